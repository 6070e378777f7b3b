#!/bin/sh
# auto-fastest.sh DTSIM PLATFORM SIZE BOUND - simulate the all-reduce of
# SIZE on PLATFORM with --collective auto and with every algorithm auto
# can pick; print what auto picked, the fastest algorithm, and whether
# auto's simulated time is within BOUND times the fastest ("within") or
# not ("OVER"). Exits 1 when a run fails.
set -e
dtsim=${1:?usage: auto-fastest.sh DTSIM PLATFORM SIZE BOUND}
p=$2 s=$3 bound=$4
nodes=$("$dtsim" allreduce -p "$p" --size 8B -f csv | awk -F, 'NR == 2 { print $4 }')
auto=$("$dtsim" allreduce -p "$p" --size "$s" --collective auto -f csv | awk -F, 'NR == 2 { print $14, $9 }')
best_alg= best=
for c in ring direct rhd rd tree hier multi-rail topo-ring; do
  # auto offers the direct all-reduce on one node only.
  [ "$c" = direct ] && [ "$nodes" -gt 1 ] && continue
  t=$("$dtsim" allreduce -p "$p" --size "$s" --collective "$c" -f csv | awk -F, 'NR == 2 { print $9 }')
  if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
    best=$t best_alg=$c
  fi
done
echo "$auto" | awk -v ba="$best_alg" -v best="$best" -v bound="$bound" -v p="$p" -v s="$s" \
  '{ printf "%s %s: auto picks %s, the fastest is %s: %s %sx the fastest\n", p, s, $1, ba,
     $2 <= bound * best ? "within" : "OVER", bound }'
