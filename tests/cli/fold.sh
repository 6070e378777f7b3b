#!/bin/sh
# At --comm-granularity analytic and flow, ranks that behave identically run
# as one (doc/SIMULATION.md, "Folded runs"). This runs each case twice,
# folded and with every rank an actor pair (DTSIM_FOLD=0), and requires the
# same JSON report apart from the simulator's wall time, and that the cases
# meant to fold did fold (DTSIM_FOLD=count says how many ranks ran).
# analytic: the reports are equal to the bit. flow: every number within a
# relative 1e-12 and everything else equal (SimGrid brings a flow's
# remaining bytes up to date at other events in the whole run than in the
# folded one; the last bits of a few sums move).
# Cases at analytic: flat, NVLink + InfiniBand, NVSwitch with 8 NICs, a
# host and a GPU straggler, two communication streams, links shared at
# analytic (interleaved ranks behind one NIC, hier's pieces, auto with two
# streams; the cases without --collective run the default, nccl), and cases
# that must not fold (parameter servers, compute jitter) and must still
# agree; pipeline and hybrid runs folded along their mesh's data axis
# (tensor, context and expert groups of a replica's own, pipeline messages
# on a NIC per GPU and on fat-trees, ZeRO, interleaved stages), and those
# that must not (a straggler in a tensor group, uneven replicas, a NIC or an
# oversubscribed uplink that two replicas' messages could fill). At flow: the shipped
# and generated platforms whose ring flows share no link, with the classes
# their routes make, links that several pairs cross but cannot limit (rhd
# and multi-rail between DGX A100 nodes, multi-rail over a fat-tree, nccl's
# rail rings and the plain ring on both), and cases that must not fold: a
# straggler, flows sharing a link that limits them (interleaved ranks behind
# one NIC), plans that are not lock-step (hier, tree), pipeline transfers,
# parameter servers and jitter.
set -eu
dtsim="${top_builddir:?}/dtsim"
data="${top_srcdir:?}/tests/data"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
# check GRANULARITY EXPECTED_RUN_AS ARGS...: EXPECTED_RUN_AS is the number of
# ranks the folded run must simulate ("all": not folded).
check() {
  g=$1
  want=$2
  shift 2
  n=$((n + 1))
  DTSIM_FOLD=count "$dtsim" run "$@" --comm-granularity "$g" -f json -q \
    > "$tmp/fold.json" 2> "$tmp/fold.err"
  DTSIM_FOLD=0 "$dtsim" run "$@" --comm-granularity "$g" -f json -q > "$tmp/actors.json"
  got=$(sed -n "s/^dtsim: $g: \\([0-9]*\\) ranks run as \\([0-9]*\\)\\( (.*)\\)\\{0,1\\}\$/\\1 \\2/p" \
    "$tmp/fold.err")
  ranks=${got% *}
  ran=${got#* }
  [ "$want" = all ] && want=$ranks
  if [ -z "$got" ] || [ "$ran" != "$want" ]; then
    echo "FAIL ($g $*): expected $want ranks to run, got '${got:-nothing}'"
    cat "$tmp/fold.err"
    fail=1
  fi
  if ! python3 - "$tmp/fold.json" "$tmp/actors.json" "$g" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
tol = 1e-12 if sys.argv[3] == "flow" else 0
for d in (a, b):
    d["simulation"].pop("wall_time_s")
bad = []
def same(x, y, path):
    if isinstance(x, dict) and isinstance(y, dict) and x.keys() == y.keys():
        for k in x:
            same(x[k], y[k], path + "." + k)
    elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for i, (u, v) in enumerate(zip(x, y)):
            same(u, v, "%s[%d]" % (path, i))
    elif isinstance(x, float) and isinstance(y, float) and tol > 0:
        if abs(x - y) > tol * max(abs(x), abs(y)):
            bad.append("%s (%r against %r)" % (path, x, y))
    elif x != y or type(x) != type(y):
        bad.append("%s (%r against %r)" % (path, x, y))
same(a, b, "")
if bad:
    sys.exit("reports differ in %s" % ", ".join(bad[:5]))
PY
  then
    echo "FAIL ($g $*): folded and actor reports differ"
    fail=1
  else
    echo "ok $n: $g $* (ran $ran of $ranks ranks)"
  fi
}

check analytic 1 -p "$data/flat-16.xml" -w resnet50 -i 2
check analytic 1 -p "$data/flat-64.xml" -w vgg16 -i 3
check analytic 1 -p cluster-4x4-v100 -w resnet50 -i 3
check analytic 1 -p dgxa100-x8 -w vgg16 -i 2
check analytic 1 -p "$data/cluster-16x4.xml" -w resnet50 -i 2 --no-overlap
check analytic 2 -p "$data/flat-16.xml" -w resnet50 -i 3 --scale 'host:gpu3.speed=0.5'
check analytic 2 -p cluster-4x4-v100 -w resnet50 -i 3 --scale 'gpu:node1-gpu2.flops=0.7'
check analytic 1 -p cluster-4x4-v100 -w vgg16 -i 3 --comm-streams 2
check analytic 2 -p cluster-4x4-v100 -w vgg16 -i 2 --comm-streams 2 --scale 'host:node0-gpu0.speed=0.8'
check analytic 1 -p "$data/two-nodes-interleaved.xml" -w vgg16 -i 2
check analytic 1 -p dgxa100-x8 -w vgg16 -i 2 --collective hier
check analytic 1 -p cluster-4x4-v100 -w vgg16 -i 2 --collective auto --comm-streams 2
fat=$tmp/fat-tree.xml
"$dtsim" platform --nodes 8 --gpus-per-node 8 --gpu A100-SXM4-80GB --intra nvswitch \
  --intra-bandwidth 300GB/s --nics-per-node 8 --nic-bandwidth 200Gbps --pcie-switches 2 \
  --topology fat-tree --switch-radix 16 -o "$fat"
over=$tmp/oversubscribed.xml
"$dtsim" platform --nodes 16 --gpus-per-node 4 --gpu V100-SXM2-16GB --intra nvlink-mesh \
  --nics-per-node 1 --nic-bandwidth 100Gbps --topology fat-tree --switch-radix 4 \
  --oversubscription 4 -o "$over"
# along the mesh's data axis: replicas with groups of their own and
# pipeline messages (DGX H100-like nodes, a NIC per GPU: no link carries two
# replicas' messages)
rail=$tmp/rail.xml
"$dtsim" platform --nodes 4 --gpus-per-node 8 --gpu H100-SXM5-80GB --intra nvswitch \
  --nics-per-node 8 --nic-bandwidth 400Gbps -o "$rail"
check analytic 4 -p dgxa100-x2 -w "$data/tiny-gpt.xml" -i 2 --strategy hybrid --stages 1 \
  --tensor-parallel 4 --dp 4
check analytic 16 -p "$rail" -w "$data/tiny-gpt.xml" -i 2 --strategy hybrid --stages 2 \
  --tensor-parallel 8
check analytic 8 -p "$rail" -w "$data/tiny-gpt.xml" -i 3 --strategy hybrid --stages 2 \
  --tensor-parallel 4 --zero 1 --param-gather overlap --placement stages-inside
check analytic 8 -p "$rail" -w "$data/tiny-gpt.xml" -i 2 --strategy hybrid --stages 4 \
  --tensor-parallel 2 --virtual-stages 2 --micro-batches 8 --zero 3
check analytic 16 -p "$rail" -w "$data/tiny-gpt.xml" -i 2 --strategy hybrid --stages 2 \
  --tensor-parallel 4 --context-parallel 2 --sequence-parallel --tp-overlap all
check analytic 16 -p "$rail" -w "$data/tiny-moe.xml" -i 2 --strategy hybrid --stages 2 \
  --tensor-parallel 2 --sequence-parallel --expert-parallel 4
# fat-trees: leaf uplinks that every replica's messages cross, which no
# GPU can fill beyond its NIC (full bisection), or which the replicas'
# messages cross in the same way (a leaf per replica, oversubscribed)
check analytic 16 -p "$fat" -w "$data/tiny-gpt.xml" -i 2 --strategy hybrid --stages 4 \
  --tensor-parallel 4
check analytic 8 -p "$over" -w "$data/tiny-gpt.xml" -i 2 --strategy hybrid --stages 4 \
  --tensor-parallel 2 --placement stages-inside --precision fp16
# and not: a straggler's tensor group, uneven replicas, a NIC shared by the
# messages of four replicas, oversubscribed uplinks that two replicas'
# messages cross
check analytic all -p "$rail" -w "$data/tiny-gpt.xml" -i 2 --strategy hybrid --stages 2 \
  --tensor-parallel 8 --scale 'host:node3-gpu1.speed=0.9'
check analytic all -p "$rail" -w "$data/tiny-gpt.xml" -i 2 --strategy hybrid --stages 3 \
  --tensor-parallel 4 --stage-dp 4,2,2
check analytic all -p cluster-4x4-v100 -w vgg16 -i 2 --strategy hybrid --stages 2
check analytic all -p "$over" -w "$data/tiny-gpt.xml" -i 2 --strategy hybrid --stages 2 \
  --tensor-parallel 4 --precision fp16
check analytic all -p "$data/flat-16.xml" -w resnet50 -i 2 --collective ps --ps-aggregation node
check analytic all -p "$data/flat-16.xml" -w resnet50 -i 2 --compute-jitter lognormal:0.1
check flow 1 -p "$data/flat-16.xml" -w resnet50 -i 2
check flow 1 -p "$data/flat-64.xml" -w vgg16 -i 3
check flow 3 -p cluster-4x4-v100 -w resnet50 -i 3
check flow 16 -p dgxa100-x8 -w vgg16 -i 2
check flow 5 -p dgxa100-x8 -w vgg16 -i 2 --collective ring
check flow 3 -p "$data/cluster-16x4.xml" -w resnet50 -i 2 --no-overlap
check flow 3 -p cluster-4x4-v100 -w vgg16 -i 3 --comm-streams 2
check flow 3 -p cluster-4x4-v100 -w resnet50 -i 3 --coll-overhead 5us --bucket-size 4MB
check flow 6 -p deepbench-p100-x4 -w resnet50 -i 2
check flow 4 -p aws-p2-8xlarge-x8 -w resnet50 -i 2
check flow 8 -p "$fat" -w resnet50 -i 2
check flow 3 -p "$fat" -w resnet50 -i 2 --collective ring
check flow 7 -p "$over" -w resnet50 -i 2
check flow all -p "$data/flat-16.xml" -w resnet50 -i 3 --scale 'host:gpu3.speed=0.5'
check flow all -p "$data/two-nodes-interleaved.xml" -w vgg16 -i 2
check flow 1 -p dgxa100-x8 -w vgg16 -i 2 --collective rhd
check flow 9 -p dgxa100-x8 -w vgg16 -i 2 --collective multi-rail
check flow 8 -p "$fat" -w resnet50 -i 2 --collective multi-rail --channels 8
check flow all -p dgxa100-x8 -w vgg16 -i 2 --collective hier
check flow all -p cluster-4x4-v100 -w vgg16 -i 2 --collective tree
check flow all -p cluster-4x4-v100 -w vgg16 -i 2 --strategy hybrid --stages 2
check flow all -p dgxa100-x2 -w "$data/tiny-gpt.xml" -i 2 --strategy hybrid --stages 1 \
  --tensor-parallel 4 --dp 4 --tp-overlap backward
check flow all -p "$data/flat-16.xml" -w resnet50 -i 2 --collective ps --ps-aggregation node
check flow all -p "$data/flat-16.xml" -w resnet50 -i 2 --compute-jitter lognormal:0.1
if [ $fail -ne 0 ]; then
  exit 1
fi
echo "fold: $n cases, folded = actors"
