#!/bin/sh
# ring-cost.sh - the interpreter's cost per transfer at step granularity,
# against a ring written directly on SimGrid (bench/bare-ring.c) with the
# same activities: `dtsim allreduce --comm-granularity step` of one buffer
# on bench/gen-flat.sh platforms of N GPUs, and bare-ring on the same file.
# Both report the wall time of the simulation loop alone (dtsim's
# simulation.wall_time_s); their simulated times must be equal. The platforms
# have no backbone (FLAT_BACKBONE=none), so that the bare ring pays no FATPIPE
# solver cost that dtsim would relax away. Prints a
# Markdown table. Not a test.
#
#   bench/ring-cost.sh BUILD_DIR [N ...]     (default N: 128 256 512 1024)
#
# BUILD_DIR holds dtsim and bench/bare-ring (make bench/bare-ring). SIZE is
# the buffer (default 64MB); each configuration runs bare-ring and then
# dtsim, so both see the same machine load.
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: ring-cost.sh BUILD_DIR [N ...]}
shift
sizes=${*:-128 256 512 1024}
size=${SIZE:-64MB}
[ -x "$build/dtsim" ] && [ -x "$build/bench/bare-ring" ] || {
  echo "ring-cost.sh: needs $build/dtsim and $build/bench/bare-ring (make bench/bare-ring)" >&2
  exit 2
}
: "${DTSIM_DATADIR:=$(cd "$here/.." && pwd)}"
export DTSIM_DATADIR
bytes=$("$build/dtsim" allreduce -p "$here/../tests/data/flat-16.xml" --gpus 2 --size "$size" \
  -f json --dump-plan | sed -n 's/^collective 0: ring over world, \([0-9.e+]*\) bytes.*/\1/p')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| GPUs | transfers | bare us/transfer | dtsim us/transfer | dtsim/bare | same simulated time |"
echo "|---:|---:|---:|---:|---:|---|"
for n in $sizes; do
  FLAT_BACKBONE=none sh "$here/gen-flat.sh" "$n" > "$tmp/flat.xml"
  "$build/bench/bare-ring" "$tmp/flat.xml" "$n" "$bytes" > "$tmp/bare"
  "$build/dtsim" allreduce -p "$tmp/flat.xml" --size "$size" --comm-granularity step -f json \
    > "$tmp/dtsim.json"
  python3 - "$tmp/bare" "$tmp/dtsim.json" "$n" <<'PY'
import json, re, sys
bare = open(sys.argv[1]).read()
sim_s, transfers, wall = re.search(r"simulated ([0-9.e+-]+) s, ([0-9]+) transfers, wall ([0-9.]+) s", bare).groups()
d = json.load(open(sys.argv[2]))
t = d["results"][0]["time_s"]
dwall = d["simulation"]["wall_time_s"]
transfers = float(transfers)
b = float(wall) / transfers * 1e6
x = dwall / transfers * 1e6
print("| %s | %.0f | %.3f | %.3f | %.2f | %s |" % (sys.argv[3], transfers, b, x, x / b,
      "yes" if abs(float(sim_s) - t) <= 1e-9 * t else "no (%s vs %.9f)" % (sim_s, t)))
PY
done
