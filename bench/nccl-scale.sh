#!/bin/sh
# nccl-scale.sh - one ResNet-50 iteration with --collective nccl on the
# generated DGX A100 fat-trees of issue "collectives as NCCL runs them"
# (N/8 nodes of 8 A100-SXM4-80GB, NVSwitch, 8 NICs of 200 Gb/s, radix-64
# fat-tree), for two dtsim builds side by side: wall and CPU time, peak
# RSS and the iteration time each reports. The old build runs at
# OLD_GRANULARITY (default flow), the new one at NEW_GRANULARITY (default
# auto: trees at analytic where they are alone on the network). A third
# row per size runs the new build with the plain ring, for scale. Not a
# test: prints a Markdown table.
#
#   bench/nccl-scale.sh OLD_BUILD NEW_BUILD   (directories holding a dtsim binary)
#
# Environment: SIZES (GPUs, multiples of 8; default "4096 16384"),
# WORKLOAD (resnet50). Each size runs the old binary, then the new one,
# so both see the same machine load.
set -e
here=$(cd "$(dirname "$0")" && pwd)
name=nccl-scale.sh
# shellcheck source=two-builds.sh
. "$here/two-builds.sh"
sizes=${SIZES:-4096 16384}
workload=${WORKLOAD:-resnet50}
old_g=${OLD_GRANULARITY:-flow}
new_g=${NEW_GRANULARITY:-auto}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "| GPUs | build | collective | granularity | wall s | CPU s | RSS MB | iteration ms |"
echo "|---:|---|---|---|---:|---:|---:|---:|"
for n in $sizes; do
  "$2/dtsim" platform --nodes $((n / 8)) --gpus-per-node 8 --gpu A100-SXM4-80GB --intra nvswitch \
    --nics-per-node 8 --nic-bandwidth 200Gbps --topology fat-tree --switch-radix 64 \
    -o "$tmp/ft-$n.xml" > /dev/null
  for row in "old $1 nccl $old_g" "new $2 nccl $new_g" "new $2 ring flow"; do
    # shellcheck disable=SC2086
    set -- $row "$1" "$2"
    side=$1 build=$2 coll=$3 gran=$4
    /usr/bin/time -f "%e %U %M" -o "$tmp/time" "$build/dtsim" run -p "$tmp/ft-$n.xml" \
      -w "$workload" --collective "$coll" --comm-granularity "$gran" --format json --quiet \
      > "$tmp/out.json"
    python3 - "$tmp/time" "$tmp/out.json" "$n" "$side" "$coll" "$gran" <<'PY'
import json, sys
wall, cpu, rss = open(sys.argv[1]).read().split()[-3:]
it = json.load(open(sys.argv[2]))["iteration_time_s"] * 1e3
print("| %s | %s | %s | %s | %.2f | %.2f | %.0f | %.3f |"
      % (sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], float(wall), float(cpu),
         float(rss) / 1024, it))
PY
    shift 4
  done
done
