#!/bin/sh
# compare.sh - benchmark two dtsim builds side by side: wall time and peak
# memory of simulating one ResNet-50 iteration on flat platforms, with the
# ratio old/new, and whether both report the same simulated results. Not a
# test: prints a Markdown table.
#
#   bench/compare.sh OLD_BUILD NEW_BUILD    (directories holding a dtsim binary)
#
# Environment as bench/run.sh: SIZES (default "1024 4096"), STEP_MAX (largest
# N run at the step granularity, default 64), WORKLOAD (resnet50),
# ITERATIONS (1), FLAT_BACKBONE (passed to gen-flat.sh), FRAMEWORK (when set,
# --framework FRAMEWORK for both builds: across a change of the default
# profile, the same profile on both sides). Each configuration
# runs the old binary and then the new one, so both see the same machine
# load; on a shared machine repeat the table before trusting ratios < 1.3.
# "same results" compares the JSON reports without the fields that measure
# the simulator itself (simulation.wall_time_s).
set -e
here=$(cd "$(dirname "$0")" && pwd)
name=compare.sh
# shellcheck source=two-builds.sh
. "$here/two-builds.sh"
sizes=${SIZES:-1024 4096}
step_max=${STEP_MAX:-64}
workload=${WORKLOAD:-resnet50}
iterations=${ITERATIONS:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "| GPUs | granularity | old wall s | new wall s | old/new | old RSS MB | new RSS MB | same results |"
echo "|---:|---|---:|---:|---:|---:|---:|---|"
for n in $sizes; do
  sh "$here/gen-flat.sh" "$n" > "$tmp/flat-$n.xml"
  for g in flow step; do
    if [ "$g" = step ] && [ "$n" -gt "$step_max" ]; then
      continue
    fi
    for side in old new; do
      if [ $side = old ]; then build=$1; else build=$2; fi
      /usr/bin/time -f "%e %M" -o "$tmp/time-$side" "$build/dtsim" run -p "$tmp/flat-$n.xml" \
        -w "$workload" --iterations "$iterations" --comm-granularity "$g" --format json \
        ${FRAMEWORK:+--framework "$FRAMEWORK"} --quiet > "$tmp/$side.json"
    done
    python3 - "$here" "$tmp" "$n" "$g" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from importlib import import_module
load = import_module("two-builds").load
tmp, n, g = sys.argv[2:5]
old, old_wall, old_rss = load(tmp, "old")
new, new_wall, new_rss = load(tmp, "new")
print("| %s | %s | %.2f | %.2f | %.2f | %.0f | %.0f | %s |" % (
    n, g, old_wall, new_wall, old_wall / max(new_wall, 1e-3), old_rss, new_rss,
    "yes" if old == new else "**no**"))
PY
  done
done
