#!/bin/sh
# analytic-scale.sh - one ResNet-50 iteration at --comm-granularity analytic
# for two dtsim builds side by side, on flat platforms (bench/gen-flat.sh)
# and on generated fat-trees of 8-GPU DGX A100-like nodes (8 NICs each):
# wall time and peak RSS of the whole process, and whether both builds
# report the same results (JSON equal apart from simulation.wall_time_s).
# Not a test: prints a Markdown table.
#
#   bench/analytic-scale.sh OLD_BUILD NEW_BUILD   (directories holding a dtsim binary)
#
# Environment: FLAT_SIZES (default "4096 16384 65536 131072"), FT_SIZES
# (GPUs on fat-trees, multiples of 8; default "4096 16384"), OLD_MAX
# (largest N the old build runs, default 65536: beyond it only the new one
# runs, "-" in the old columns), WORKLOAD (resnet50), COLLECTIVE (an
# algorithm for --collective, e.g. auto; default: dtsim's). Each configuration
# runs the old binary, then the new one, so both see the same machine load.
# Sizes past 65,536 GPUs need vm.max_map_count above 65,530 for the old
# build (two actors per GPU), and memory: check `free -g` first.
set -e
here=$(cd "$(dirname "$0")" && pwd)
name=analytic-scale.sh
# shellcheck source=two-builds.sh
. "$here/two-builds.sh"
flat_sizes=${FLAT_SIZES-4096 16384 65536 131072}
ft_sizes=${FT_SIZES-4096 16384}
old_max=${OLD_MAX:-65536}
workload=${WORKLOAD:-resnet50}
collective=${COLLECTIVE:+--collective $COLLECTIVE}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fat_tree N BUILD FILE: N/8 nodes, 8 NICs each, on the smallest switch radix
# k (a multiple of 16, at least 32) whose 3-level fat-tree holds the nodes
# whole: k pods of k/2 leaves, each leaf k/2 NIC ports (whole nodes of 8).
fat_tree() {
  radix=32
  while [ $((radix / 16 * 8 * radix / 2 * radix)) -lt "$1" ]; do radix=$((radix + 16)); done
  "$2/dtsim" platform --nodes $(($1 / 8)) --gpus-per-node 8 --gpu A100-SXM4-40GB \
    --intra nvswitch --intra-bandwidth 300GB/s --pcie-switches 2 --pcie-bandwidth 31.5GB/s \
    --nics-per-node 8 --nic-bandwidth 200Gbps --topology fat-tree --switch-radix "$radix" \
    -o "$3"
}

row() {
  kind=$1 n=$2 platform=$3
  for side in old new; do
    if [ $side = old ]; then build=$old_build; else build=$new_build; fi
    rm -f "$tmp/$side.json" "$tmp/time-$side"
    if [ $side = old ] && [ "$n" -gt "$old_max" ]; then
      continue
    fi
    /usr/bin/time -f "%e %M" -o "$tmp/time-$side" "$build/dtsim" run -p "$platform" \
      -w "$workload" --iterations 1 --comm-granularity analytic $collective --format json --quiet \
      > "$tmp/$side.json"
  done
  python3 - "$here" "$tmp" "$kind" "$n" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from importlib import import_module
load = import_module("two-builds").load
tmp, kind, n = sys.argv[2:5]
old, old_wall, old_rss = load(tmp, "old")
new, new_wall, new_rss = load(tmp, "new")
fmt = lambda v, f: "-" if v is None else f % v
same = "-" if old is None else ("yes" if old == new else "**no**")
print("| %s | %s | %s | %.2f | %s | %s | %.0f | %s |" % (
    kind, n, fmt(old_wall, "%.2f"), new_wall,
    "-" if old_wall is None else "%.1f" % (old_wall / max(new_wall, 1e-3)),
    fmt(old_rss, "%.0f"), new_rss, same))
PY
}

old_build=$1
new_build=$2
echo "| platform | GPUs | old wall s | new wall s | old/new | old RSS MB | new RSS MB | same results |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
for n in $flat_sizes; do
  sh "$here/gen-flat.sh" "$n" > "$tmp/flat-$n.xml"
  row flat "$n" "$tmp/flat-$n.xml"
  rm -f "$tmp/flat-$n.xml"
done
for n in $ft_sizes; do
  fat_tree "$n" "$new_build" "$tmp/ft-$n.xml"
  row fat-tree "$n" "$tmp/ft-$n.xml"
  rm -f "$tmp/ft-$n.xml"
done
