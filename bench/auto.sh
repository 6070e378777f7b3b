#!/bin/sh
# auto.sh - --collective auto against every algorithm: for each platform and
# size, the algorithm and protocol the tuning model picks, its predicted and
# simulated time, the simulated time of every algorithm, and the ratio of
# auto's time to the fastest one's. With OLD_BUILD_DIR, also what the
# dtsim of that build picks and its ratio, side by side. Prints a Markdown
# table (doc/SIMULATION.md quotes it) and a line counting the points where
# auto is the fastest (within 0.5%) and the worst ratio. Not a test.
#
#   bench/auto.sh BUILD_DIR [OLD_BUILD_DIR]
#
# PLATFORMS="dgxa100 ..." and SIZES="8B 1MB" restrict it.
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: auto.sh BUILD_DIR [OLD_BUILD_DIR]}
old=${2:-}
dtsim="$build/dtsim"
: "${DTSIM_DATADIR:=$(cd "$here/.." && pwd)}"
export DTSIM_DATADIR
platforms=${PLATFORMS:-dgxa100 dgx1-v100 aws-p2-8xlarge dgxa100-x8 dgxa100-x96}
sizes=${SIZES:-8B 64KB 1MB 25MB}
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT

if [ -n "$old" ]; then
  echo "| platform | size | before: picks | before / fastest | auto picks | predicted (us) | simulated (us) | fastest (us) | auto / fastest | ring (us) |"
  echo "|---|---|---|---:|---|---:|---:|---|---:|---:|"
else
  echo "| platform | size | auto picks | predicted (us) | simulated (us) | fastest (us) | auto / fastest | ring (us) |"
  echo "|---|---|---|---:|---:|---|---:|---:|"
fi
for p in $platforms; do
  nodes=$("$dtsim" allreduce -p "$p" --size 8B -f csv | awk -F, 'NR == 2 { print $4 }')
  for s in $sizes; do
    auto=$("$dtsim" allreduce -p "$p" --size "$s" --collective auto -f csv | awk -F, 'NR == 2')
    before=
    [ -n "$old" ] && before=$("$old/dtsim" allreduce -p "$p" --size "$s" --collective auto -f csv \
                              | awk -F, 'NR == 2 { print $14 " " $15 "," $9 }')
    best_alg=; best=; ring=
    for c in ring direct rhd rd tree hier multi-rail topo-ring; do
      # auto offers the direct all-reduce on one node only.
      [ "$c" = direct ] && [ "$nodes" -gt 1 ] && continue
      t=$("$dtsim" allreduce -p "$p" --size "$s" --collective "$c" -f csv | awk -F, 'NR == 2 { print $9 }')
      [ "$c" = ring ] && ring=$t
      if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
        best=$t; best_alg=$c
      fi
    done
    echo "$auto" | awk -F, -v p="$p" -v s="$s" -v best="$best" -v ba="$best_alg" -v ring="$ring" \
      -v before="$before" -v sum="$summary" '{
        b = ""
        if (before != "") {
          split(before, f, ",")
          b = sprintf(" %s | %.2f |", f[1], f[2] / best)
          printf "%d %.6f %d %.6f\n", $9 / best <= 1.005, $9 / best, f[2] / best <= 1.005, f[2] / best >> sum
        } else
          printf "%d %.6f\n", $9 / best <= 1.005, $9 / best >> sum
        printf "|%s %s | %s |%s %s %s | %.1f | %.1f | %s %.1f | %.2f | %.1f |\n", "", p, s, b, $14, $15, $16 * 1e6, $9 * 1e6, ba, best * 1e6, $9 / best, ring * 1e6 }'
  done
done
awk '{ n++; a += $1; if ($2 > wa) wa = $2; if (NF > 2) { o += $3; if ($4 > wo) wo = $4 } }
     END { printf "\nauto is the fastest (within 0.5%%) at %d of %d points, at worst %.2fx the fastest", a, n, wa
           if (wo > 0) printf "; before: %d of %d, at worst %.2fx", o, n, wo
           printf "\n" }' "$summary"
