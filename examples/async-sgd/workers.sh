#!/bin/sh
# workers.sh - asynchronous against synchronous SGD with parameter servers:
# VGG-16 (batch 64 per worker; WORKLOAD=resnet50 for another) on the shipped
# cluster-4x4-v100 (4 nodes of 4 V100, NVLink inside, 100 Gb/s InfiniBand
# between), one server shard on a GPU of its own (--ps-placement own), W
# workers.
#
#   examples/async-sgd/workers.sh [--quick] [DTSIM]
#
# For every W it prints, for sync-ps and for async-ps under each and merge,
# the iteration time, the throughput, the epoch time (ImageNet-1k) and the
# staleness and mini-batch distributions (mean and p90). Here the server
# keeps up, so merge updates hold one gradient each; the choice of the
# fastest configuration near a target mini-batch (SPRINT's) is the dtsim
# sweep of examples/async-sgd/README.md. --quick runs W = 2, 4 and 8. DTSIM is the
# dtsim binary (default ./dtsim: run it from the build directory); without
# one, or when a run fails, it says so and exits 1.
set -e
quick=no
dtsim=./dtsim
workload=${WORKLOAD:-vgg16}
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=yes ;;
    -*) echo "usage: workers.sh [--quick] [DTSIM]" >&2; exit 2 ;;
    *) dtsim=$1 ;;
  esac
  shift
done
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../common.sh
. "$here/common.sh"
example_check_dtsim
if [ "$quick" = yes ]; then workers="2 4 8"; else workers="1 2 4 8 12 15"; fi

printf '%3s  %-14s %12s %11s %9s %10s %8s %10s %8s\n' W strategy "iteration ms" samples/s "epoch s" staleness p90 mini-batch p90
for w in $workers; do
  for run in "sync-ps" "async-ps each" "async-ps merge"; do
    set -- $run
    extra=
    [ $# -eq 2 ] && extra="--ps-update $2"
    # shellcheck disable=SC2086
    json=$(example_dtsim run -q --framework generic -p cluster-4x4-v100 -w "$workload" -b 64 -i 6 --gpus "$w" \
      --strategy "$1" --ps-placement own $extra -f json) || exit 1
    printf '%s\n' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = d["parameter_servers"]
name = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
print("%3d  %-14s %12.3f %11.1f %9.1f %10.2f %8.0f %10.1f %8.0f" % (
    d["n_gpus"], name, 1e3 * d["iteration_time_s"], d["throughput_samples_per_s"],
    d["epoch_time_s"], p["staleness"]["mean"], p["staleness"]["p90"],
    p["minibatch"]["mean"], p["minibatch"]["p90"]))' "$1" "$run"
  done
done
