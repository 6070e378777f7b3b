#!/bin/sh
# async-ps.sh - benchmark two dtsim builds side by side on asynchronous
# parameter-server training: W workers (ResNet-50, batch 64) and 16 shards
# on the workers' GPUs, 10 iterations per worker, on a flat platform of
# bench/gen-flat.sh and on a generated cluster of 8-GPU nodes under one
# switch (`dtsim platform --nodes W/8+2 --gpus-per-node 8 --gpu
# V100-SXM2-16GB --intra nvlink-mesh --nic-bandwidth 100Gbps`). Prints a
# Markdown table: wall and CPU (user + system) seconds and peak RSS of
# each build, old/new, and whether both report the same simulated results
# (the JSON without simulation.wall_time_s). Not a test.
#
#   bench/async-ps.sh OLD_BUILD NEW_BUILD   (directories holding a dtsim binary)
#
# Environment: WORKERS (default "256 1024"), SHARDS (16), ITERATIONS (10),
# PLATFORMS (default "flat switch"), CONCURRENCY (--ps-concurrency values,
# default "1"). Each row runs the old binary and then
# the new one, so both see the same machine load; CPU seconds move less
# with the load than wall seconds. The 1,024-worker study of 64 shards
# moving 8 messages at once, 3 iterations:
#
#   WORKERS=1024 SHARDS=64 ITERATIONS=3 CONCURRENCY=8 PLATFORMS=switch \
#     bench/async-ps.sh OLD_BUILD NEW_BUILD
set -e
here=$(cd "$(dirname "$0")" && pwd)
name=async-ps.sh
# shellcheck source=two-builds.sh
. "$here/two-builds.sh"
workers=${WORKERS:-256 1024}
shards=${SHARDS:-16}
iterations=${ITERATIONS:-10}
platforms=${PLATFORMS:-flat switch}
concurrency=${CONCURRENCY:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "| platform | workers | K | old wall s | new wall s | old/new | old CPU s | new CPU s | old RSS MB | new RSS MB | same results |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for kind in $platforms; do
  for w in $workers; do
    case $kind in
      flat) sh "$here/gen-flat.sh" $((w + 16)) > "$tmp/p.xml" ;;
      switch) "$2/dtsim" platform --nodes $((w / 8 + 2)) --gpus-per-node 8 --gpu V100-SXM2-16GB \
                --intra nvlink-mesh --nic-bandwidth 100Gbps -o "$tmp/p.xml" ;;
      *) echo "$name: unknown platform kind '$kind' (flat or switch)" >&2; exit 2 ;;
    esac
    for k in $concurrency; do
    for side in old new; do
      if [ $side = old ]; then build=$1; else build=$2; fi
      /usr/bin/time -f "%U %S %e %M" -o "$tmp/time-$side" "$build/dtsim" run -p "$tmp/p.xml" \
        -w resnet50 -b 64 --strategy async-ps --ps-shards "$shards" -n "$w" \
        --ps-concurrency "$k" --iterations "$iterations" --format json --quiet > "$tmp/$side.json"
    done
    python3 - "$here" "$tmp" "$kind" "$w" "$k" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from importlib import import_module
load = import_module("two-builds").load
tmp, kind, w, k = sys.argv[2:6]
old, old_wall, old_rss = load(tmp, "old")
new, new_wall, new_rss = load(tmp, "new")
cpu = lambda side: sum(float(x) for x in open("%s/time-%s" % (tmp, side)).read().split()[-4:-2])
print("| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f | %s |" % (
    kind, w, k, old_wall, new_wall, old_wall / max(new_wall, 1e-3), cpu("old"), cpu("new"),
    old_rss, new_rss, "yes" if old == new else "**no**"))
PY
    done
  done
done
