#!/bin/sh
# auto.sh - --collective auto against every algorithm: for each platform and
# size, the algorithm and protocol the tuning model picks, its predicted and
# simulated time, the simulated time of every algorithm, and the ratio of
# auto's time to the fastest one's. Prints a Markdown table
# (doc/SIMULATION.md quotes it). Not a test.
#
#   bench/auto.sh BUILD_DIR
#
# PLATFORMS="dgxa100 ..." and SIZES="8B 1MB" restrict it.
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: auto.sh BUILD_DIR}
dtsim="$build/dtsim"
: "${DTSIM_DATADIR:=$(cd "$here/.." && pwd)}"
export DTSIM_DATADIR
platforms=${PLATFORMS:-dgxa100 dgx1-v100 aws-p2-8xlarge dgxa100-x8 dgxa100-x96}
sizes=${SIZES:-8B 64KB 1MB 25MB}

echo "| platform | size | auto picks | predicted (us) | simulated (us) | fastest (us) | auto / fastest | ring (us) |"
echo "|---|---|---|---:|---:|---|---:|---:|"
for p in $platforms; do
  nodes=$("$dtsim" allreduce -p "$p" --size 8B -f csv | awk -F, 'NR == 2 { print $4 }')
  for s in $sizes; do
    auto=$("$dtsim" allreduce -p "$p" --size "$s" --collective auto -f csv | awk -F, 'NR == 2')
    best_alg=; best=; ring=
    for c in ring direct rhd rd tree hier multi-rail; do
      # auto offers the direct all-reduce on one node only.
      [ "$c" = direct ] && [ "$nodes" -gt 1 ] && continue
      t=$("$dtsim" allreduce -p "$p" --size "$s" --collective "$c" -f csv | awk -F, 'NR == 2 { print $9 }')
      [ "$c" = ring ] && ring=$t
      if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
        best=$t; best_alg=$c
      fi
    done
    echo "$auto" | awk -F, -v p="$p" -v s="$s" -v best="$best" -v ba="$best_alg" -v ring="$ring" \
      '{ printf "| %s | %s | %s %s | %.1f | %.1f | %s %.1f | %.2f | %.1f |\n", p, s, $14, $15, $16 * 1e6, $9 * 1e6, ba, best * 1e6, $9 / best, ring * 1e6 }'
  done
done
