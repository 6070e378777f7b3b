#!/bin/sh
# flow-step.sh - how far `flow` is from `step` for one collective, per
# shipped platform, algorithm and operation, at 64 kB, 4 MB and 256 MB: the
# table of doc/SIMULATION.md "Granularities" ("flow: each phase its own
# latency"). Not a test: prints a Markdown table of flow / step - 1, one
# column per size, for one build or, side by side, for two.
#
#   bench/flow-step.sh BUILD_DIR [OTHER_BUILD_DIR]   (directories holding dtsim)
#
# PLATFORMS and CASES (space-separated; a case is OP:ALGORITHM) restrict
# what is run. Every run is `dtsim allreduce -p P --sizes 64KB,4MB,256MB
# --op OP --collective ALGORITHM --comm-granularity step|flow -f csv`.
set -e
here=$(cd "$(dirname "$0")" && pwd)
: "${DTSIM_DATADIR:=$(cd "$here/.." && pwd)}"
export DTSIM_DATADIR
platforms=${PLATFORMS:-dgxa100-x8 cluster-4x4-v100 dgx1-v100-x4 deepbench-p100-x4}
cases=${CASES:-all-reduce:ring all-reduce:rhd all-reduce:hier all-reduce:multi-rail \
all-reduce:direct all-reduce:tree all-reduce:auto all-gather:ring all-gather:rhd \
reduce-scatter:rhd all-to-all:bruck all-to-all:pairwise all-to-all:direct}
sizes=64KB,4MB,256MB

# The three times of one granularity, space-separated.
run_times() {
  "$1/dtsim" allreduce -p "$2" --sizes $sizes --op "$3" --collective "$4" \
    --comm-granularity "$5" -f csv | tail -3 | cut -d, -f9 | tr '\n' ' '
}

# "| +1.07% | +0.77% | +0.04%" for one build.
ratios() {
  step=$(run_times "$1" "$2" "$3" "$4" step)
  flow=$(run_times "$1" "$2" "$3" "$4" flow)
  echo "$step $flow" | awk '{ for (i = 1; i <= 3; i++)
    printf " | %+.2f%%", 100 * ($(i + 3) / $i - 1) }'
}

builds="$1"
[ -n "$2" ] && builds="$1 $2"
printf '| platform | op | algorithm'
for b in $builds; do
  printf ' | 64 KB (%s) | 4 MB | 256 MB' "$(basename "$b")"
done
printf ' |\n|---|---|---'
for b in $builds; do printf '|---:|---:|---:'; done
printf '|\n'
for p in $platforms; do
  for c in $cases; do
    op=${c%%:*} alg=${c#*:}
    printf '| %s | %s | %s' "$p" "$op" "$alg"
    for b in $builds; do
      printf '%s' "$(ratios "$b" "$p" "$op" "$alg")"
    done
    printf ' |\n'
  done
done
