#!/bin/sh
# Bus bandwidth of a 1 GB all-reduce on 4 DGX-A100-like nodes (NVSwitch,
# 300 GB/s per GPU; PCIe 4.0 switches; 200 Gb/s NICs) with 8 NICs per node
# over that with 1, for the ring and the hierarchical all-reduce (2
# channels, their default) and for the ring and the multi-rail rings with 8
# channels, one per NIC; then the all-gather and reduce-scatter of the ring
# and of the multi-rail rings (8 channels). Prints the ratios. Usage:
# allreduce-nics.sh BINDIR
set -e
dtsim="$1/dtsim"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for k in 1 8; do
  "$dtsim" platform --nodes 4 --gpus-per-node 8 --gpu A100-SXM4-40GB --intra nvswitch \
    --intra-bandwidth 300GB/s --sockets 2 --pcie-switches 2 --pcie-bandwidth 31.5GB/s \
    --socket-bandwidth 64GB/s --nics-per-node "$k" --nic-bandwidth 200Gbps -o "$dir/nics-$k.xml"
done
busbw() {
  "$dtsim" allreduce -p "$dir/nics-$2.xml" --sizes 1GB --collective "$1" --channels "$3" \
    --op "${4:-all-reduce}" -f csv | tail -1 | cut -d, -f11
}
for c in ring:2 hier:2 ring:8 multi-rail:8; do
  a=${c%:*} ch=${c#*:}
  printf '%s %s %s\n' "$a/$ch-channels" "$(busbw "$a" 1 "$ch")" "$(busbw "$a" 8 "$ch")"
done | awk '{ printf "%s: busbw %.2f GB/s with 1 NIC, %.2f GB/s with 8: %.2fx\n", $1, $2 / 1e9, $3 / 1e9, $3 / $2 }'
for op in all-gather reduce-scatter; do
  for c in ring:8 multi-rail:8; do
    a=${c%:*} ch=${c#*:}
    printf '%s %s %s\n' "$op/$a/$ch-channels" "$(busbw "$a" 1 "$ch" "$op")" "$(busbw "$a" 8 "$ch" "$op")"
  done
done | awk '{ printf "%s: busbw %.2f GB/s with 1 NIC, %.2f GB/s with 8: %.2fx\n", $1, $2 / 1e9, $3 / 1e9, $3 / $2 }'
