#!/bin/sh
# run.sh - benchmark: wall time and peak memory of simulating one ResNet-50
# iteration (data parallel, default options) on flat platforms of 16 to 1024
# GPUs, at both all-reduce granularities. Not a test: prints a Markdown table.
#
#   bench/run.sh [BUILD_DIR]      (default: the current directory)
#
# Environment: SIZES (default "16 64 256 1024"), STEP_MAX (largest N run at
# the step granularity, default 256: step at 1024 GPUs simulates ~17 million
# transfers and takes minutes), WORKLOAD (default resnet50), ITERATIONS (1).
# Peak memory is the maximum resident set size from /usr/bin/time.
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-.}
dtsim="$build/dtsim"
[ -x "$dtsim" ] || { echo "run.sh: no dtsim in '$build' (pass the build directory)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "run.sh: needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
: "${DTSIM_DATADIR:=$(cd "$here/.." && pwd)}"
export DTSIM_DATADIR
sizes=${SIZES:-16 64 256 1024}
step_max=${STEP_MAX:-256}
workload=${WORKLOAD:-resnet50}
iterations=${ITERATIONS:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "| GPUs | granularity | wall s (process) | wall s (simulation) | peak RSS MB | events | iteration ms |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for n in $sizes; do
  sh "$here/gen-flat.sh" "$n" > "$tmp/flat-$n.xml"
  for g in flow step; do
    if [ "$g" = step ] && [ "$n" -gt "$step_max" ]; then
      echo "| $n | step | skipped (N > STEP_MAX=$step_max) | | | | |"
      continue
    fi
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$dtsim" run -p "$tmp/flat-$n.xml" -w "$workload" \
      --iterations "$iterations" --comm-granularity "$g" --format json --quiet > "$tmp/out.json"
    python3 - "$tmp/out.json" "$tmp/time" "$n" "$g" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
wall, rss_kb = open(sys.argv[2]).read().split()[-2:]
print("| %s | %s | %.2f | %.3f | %.0f | %d | %.3f |" % (
    sys.argv[3], sys.argv[4], float(wall), d["simulation"]["wall_time_s"],
    int(rss_kb) / 1024, d["simulation"]["events"], d["iteration_time_s"] * 1e3))
PY
  done
done
