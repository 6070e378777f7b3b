#!/bin/sh
# A rank's parts add up to the iteration and none is negative
# (doc/SIMULATION.md, "Per rank and the verdict"): for every rank of each
# case, compute + every wait + idle = iteration_time_s within 1e-9 of it,
# and every part >= -1e-12 s. The first case is the one whose first stage
# started iteration W 24.6 ms (over the two measured iterations) before
# the last stage had finished W-1 by more than it finished early at the
# end: its idle time read -12.3 ms before the parts were cut to the
# measured window (src/sim/window.c); its bubble must now be the rest of
# the iteration, idle 0. Cases: pipelines (1f1b, gpipe, interleaved,
# shared and own transfer streams), hybrid with and without overlap,
# tensor parallelism, --zero 1 and 3 (over stages, and FSDP x TP on one,
# with gradient accumulation over jittered micro-batches),
# a data-parallel straggler, compute jitter.
set -eu
dtsim="${top_builddir:?}/dtsim"
data="${top_srcdir:?}/tests/data"
export DTSIM_DATADIR="${top_srcdir}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
check() {
  n=$((n + 1))
  if ! "$dtsim" run "$@" -f json -q > "$tmp/run.json"; then
    echo "FAIL: dtsim run $* did not run" >&2
    fail=1
    return
  fi
  if ! python3 - "$tmp/run.json" "$*" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["iteration_time_s"]
bad = []
for k in r["ranks"]:
    parts = [k["compute_s"], k["idle_s"]] + [v for n, v in k.items() if n.startswith("wait_")]
    if min(parts) < -1e-12 or abs(sum(parts) - t) > 1e-9 * t:
        bad.append((k["rank"], [round(p * 1e3, 3) for p in parts]))
if bad:
    print("FAIL: dtsim run %s: iteration %.3f ms; rank, parts (ms): %s"
          % (sys.argv[2], t * 1e3, bad[:4]), file=sys.stderr)
    sys.exit(1)
EOF
  then
    fail=1
  fi
}

vgg="--workload vgg16 --batch-size 96 --micro-batches 8"
check --strategy hybrid --stage-dp 8,8 $vgg --p2p-stream own --no-overlap
# the same case, by value: rank 0's bubble is the rest of its iteration
"$dtsim" run --strategy hybrid --stage-dp 8,8 $vgg --p2p-stream own --no-overlap \
  -f json -q > "$tmp/first.json"
python3 - "$tmp/first.json" <<'EOF' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
t, k = r["iteration_time_s"], r["ranks"][0]
rest = t - k["compute_s"] - k["wait_allreduce_s"] - k["wait_transfer_s"] - k["wait_tensor_s"]
if k["idle_s"] != 0 or abs(k["wait_bubble_s"] - rest) > 1e-9 * t:
    print("FAIL: rank 0: idle %.6f ms, bubble %.6f ms, want 0 and %.6f ms"
          % (k["idle_s"] * 1e3, k["wait_bubble_s"] * 1e3, rest * 1e3), file=sys.stderr)
    sys.exit(1)
EOF
check --strategy hybrid --stage-dp 8,8 $vgg
check --strategy hybrid --stage-dp 8,8 $vgg --p2p-stream shared
check --strategy pipeline --stages 4 $vgg --pipeline-schedule gpipe -p "$data/flat-16.xml"
check --strategy pipeline --stages 4 $vgg -p "$data/flat-16.xml" -i 5
check -w "$data/tiny-gpt.xml" -p dgxa100 --strategy hybrid --stages 4 --dp 2 --batch-size 16 \
  --micro-batches 8 --virtual-stages 2
check --strategy hybrid --stages 2 --dp 2 --tensor-parallel 2 -p "$data/flat-16.xml" \
  -w "$data/fc-equal.xml" --micro-batches 4
check --strategy hybrid --stages 2 --dp 4 $vgg --zero 1
check --strategy hybrid --stages 2 --dp 4 $vgg --zero 3
check -w "$data/tiny-gpt.xml" -p dgxa100 --strategy hybrid --stages 1 --dp 4 --tensor-parallel 2 \
  --batch-size 4 --bucket-size 2MB --zero 3
check -w "$data/tiny-gpt.xml" -p dgxa100 --strategy hybrid --stages 1 --dp 4 --tensor-parallel 2 \
  --batch-size 16 --micro-batches 4 --bucket-size 2MB --zero 3 --compute-jitter lognormal:0.1 \
  --seed 7 -i 4
check -w "$data/tiny-gpt.xml" -p dgxa100 --gpus 8 --batch-size 4 --bucket-size 1MB --zero 3 \
  --no-overlap
check --gpus 8 --scale 'host:node1-gpu2.speed=0.5'
check --gpus 8 --compute-jitter lognormal:0.1 --seed 3 -i 4
check --strategy hybrid --stage-dp 4,4 $vgg --compute-jitter lognormal:0.1 --seed 5
if [ "$fail" -ne 0 ]; then
  exit 1
fi
echo "$n cases: every rank's parts add up to the iteration, none negative"
