#!/bin/sh
# Benchmark of `dtsim platform` on fat-trees of 8-GPU nodes: generation time,
# file size, dtsim's own load (libxml2 view, `dtsim info`) and SimGrid's load
# with routes (`dtsim info --routes`: parse, seal, then one route from rank 0
# to the first GPU of every other node).
#
#   bench/platform-gen.sh [DTSIM [NODES...]]     (default: ./dtsim 16 128 1024)
#
# Two node kinds: DGX A100-like (NVSwitch, 8 NICs per node, leaves of 2
# nodes) and DGX-1-like (NVLink mesh, one NIC per node, leaves of 20 nodes);
# then the DGX A100-like nodes on one switch (split in parts beyond 56 nodes).
# Prints one row per size; the per-node columns show how each cost grows.
set -e
dtsim=${1:-./dtsim}
[ $# -gt 0 ] && shift
sizes=${*:-16 128 1024}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

run_kind() {
  kind=$1
  shift
  printf '%-10s %6s %6s %8s %9s %8s %10s %12s\n' kind nodes gpus gen_s size_MB info_s routes_s routes_ms/node
  for n in $sizes; do
    f=$tmp/$kind-$n.xml
    t0=$(now)
    "$dtsim" platform --nodes "$n" "$@" -o "$f"
    t1=$(now)
    "$dtsim" info "$f" > /dev/null
    t2=$(now)
    "$dtsim" info --routes "$f" > /dev/null
    t3=$(now)
    size=$(wc -c < "$f")
    printf '%-10s %6d %6d %8s %9.2f %8s %10s %12.3f\n' "$kind" "$n" $((n * 8)) \
      "$(elapsed "$t0" "$t1")" "$(awk -v s="$size" 'BEGIN { print s / 1e6 }')" \
      "$(elapsed "$t1" "$t2")" "$(elapsed "$t2" "$t3")" \
      "$(awk -v a="$t2" -v b="$t3" -v n="$n" 'BEGIN { print (b - a) * 1000 / n }')"
  done
}

run_kind nvswitch --gpus-per-node 8 --gpu A100-SXM4-40GB --intra nvswitch \
  --intra-bandwidth 300GB/s --pcie-switches 2 --pcie-bandwidth 31.5GB/s \
  --nics-per-node 8 --nic-bandwidth 200Gbps --topology fat-tree
run_kind mesh --gpus-per-node 8 --gpu V100-SXM2-16GB --intra nvlink-mesh \
  --nvlink-pairs dgx1-v100 --pcie-switches 2 --nics-per-node 1 --topology fat-tree
run_kind switch --gpus-per-node 8 --gpu A100-SXM4-40GB --intra nvswitch \
  --intra-bandwidth 300GB/s --pcie-switches 2 --pcie-bandwidth 31.5GB/s \
  --nics-per-node 8 --nic-bandwidth 200Gbps --topology switch
