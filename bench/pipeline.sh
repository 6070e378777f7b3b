#!/bin/sh
# pipeline.sh - benchmark: wall time and peak memory of simulating pipeline,
# hybrid and tensor-parallel runs (3 iterations, default options otherwise)
# on shipped platforms. Not a test: prints a Markdown table.
#
#   bench/pipeline.sh [BUILD_DIR]      (default: the current directory)
#
# The cases: VGG-16 and ResNet-152 pipelines of 16 stages across the 4
# nodes of cluster-4x4-v100; hybrid ResNet-152 on 64 A100 (dgxa100-x8,
# 4 stages x 16 replicas); the same with 8-way tensor parallelism inside
# the nodes' NVSwitch (4 stages x 2 replicas x 8); and VGG-16 on 256 A100
# (dgxa100-x32, 4 stages x 64 replicas); GPT-3 13B on the 64 A100 (2
# stages x 4 replicas x 8, sequence parallel), its tensor-parallel
# collectives blocking and on tensor streams of their own (--tp-overlap
# all: one more stream per GPU); and Llama-3-70B on 256 H100 (a generated
# platform of 32 nodes: 4 stages x 8 replicas x 8, sequence parallel,
# ZeRO 1, one iteration), whose 8 replicas of a stage share one program
# through plan maps. Peak memory is the maximum resident set size from
# /usr/bin/time.
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-.}
dtsim="$build/dtsim"
[ -x "$dtsim" ] || { echo "pipeline.sh: no dtsim in '$build' (pass the build directory)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "pipeline.sh: needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
: "${DTSIM_DATADIR:=$(cd "$here/.." && pwd)}"
export DTSIM_DATADIR
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$dtsim" platform --nodes 32 --gpus-per-node 8 --gpu H100-SXM5-80GB --intra nvswitch \
  --intra-bandwidth 450GB/s --nics-per-node 8 --nic-bandwidth 400Gbps -o "$tmp/h100-x32.xml" \
  > /dev/null

echo "| case | GPUs | wall s (process) | wall s (simulation) | peak RSS MB | events | iteration ms | bubble |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
while read -r name args; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$dtsim" run $args --format json --quiet > "$tmp/out.json"
  python3 - "$name" "$tmp/time" "$tmp/out.json" <<'PY'
import json, sys
name, tpath, jpath = sys.argv[1:]
wall, rss = open(tpath).read().split()[-2:]
d = json.load(open(jpath))
print("| %s | %d | %.2f | %.2f | %.0f | %d | %.3f | %.1f%% |" % (
    name, d["n_gpus"], float(wall), d["simulation"]["wall_time_s"], int(rss) / 1024,
    d["simulation"]["events"], d["iteration_time_s"] * 1e3,
    100 * d["pipeline"]["bubble_fraction"]))
PY
done <<CASES
vgg16-pipeline --strategy pipeline --stages 16 --workload vgg16
resnet152-pipeline --strategy pipeline --stages 16 --workload resnet152
resnet152-hybrid --strategy hybrid --stages 4 --platform dgxa100-x8 --workload resnet152
resnet152-tensor --strategy hybrid --stages 4 --tensor-parallel 8 --platform dgxa100-x8 --workload resnet152
vgg16-hybrid-256 --strategy hybrid --stages 4 --platform dgxa100-x32 --workload vgg16
gpt3-13b-tp --strategy hybrid --stages 2 --tensor-parallel 8 --sequence-parallel --dp 4 --batch-size 16 --micro-batches 8 --platform dgxa100-x8 --workload gpt3-13b --precision bf16 --allow-oversubscribe-memory
gpt3-13b-tp-overlap --strategy hybrid --stages 2 --tensor-parallel 8 --sequence-parallel --dp 4 --batch-size 16 --micro-batches 8 --platform dgxa100-x8 --workload gpt3-13b --precision bf16 --allow-oversubscribe-memory --tp-overlap all
llama3-70b-256 --strategy hybrid --stages 4 --tensor-parallel 8 --dp 8 --sequence-parallel --zero 1 --batch-size 16 --micro-batches 16 --platform $tmp/h100-x32.xml --workload llama3-70b --precision bf16 --recompute selective --iterations 1
CASES
