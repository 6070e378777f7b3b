#!/bin/sh
# At --comm-granularity analytic, ranks that behave identically run as one
# (doc/SIMULATION.md, "Folded analytic runs"). This runs each case twice,
# folded and with every rank an actor pair (DTSIM_ANALYTIC_ACTORS=1), and
# requires the same JSON report apart from the simulator's wall time, and
# that the cases meant to fold did fold (DTSIM_ANALYTIC_ACTORS=count says
# how many ranks ran): flat, NVLink + InfiniBand, NVSwitch with 8 NICs, a
# host and a GPU straggler, two communication streams, tensor parallelism,
# links shared at analytic (interleaved ranks behind one NIC, hier's pieces,
# auto with two streams), and cases that must not fold (pipeline transfers, parameter servers,
# compute jitter) and must still agree.
set -eu
dtsim="${top_builddir:?}/dtsim"
data="${top_srcdir:?}/tests/data"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
# check EXPECTED_RUN_AS ARGS...: EXPECTED_RUN_AS is the number of ranks the
# folded run must simulate ("all": not folded).
check() {
  want=$1
  shift
  n=$((n + 1))
  DTSIM_ANALYTIC_ACTORS=count "$dtsim" run "$@" --comm-granularity analytic -f json -q \
    > "$tmp/fold.json" 2> "$tmp/fold.err"
  DTSIM_ANALYTIC_ACTORS=1 "$dtsim" run "$@" --comm-granularity analytic -f json -q \
    > "$tmp/actors.json"
  got=$(sed -n 's/^dtsim: analytic: \([0-9]*\) ranks run as \([0-9]*\)$/\1 \2/p' "$tmp/fold.err")
  ranks=${got% *}
  ran=${got#* }
  [ "$want" = all ] && want=$ranks
  if [ -z "$got" ] || [ "$ran" != "$want" ]; then
    echo "FAIL ($*): expected $want ranks to run, got '${got:-nothing}'"
    cat "$tmp/fold.err"
    fail=1
  fi
  if ! python3 - "$tmp/fold.json" "$tmp/actors.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d["simulation"].pop("wall_time_s")
if a != b:
    diff = [k for k in a if a[k] != b.get(k)]
    sys.exit("reports differ in %s" % ", ".join(diff))
PY
  then
    echo "FAIL ($*): folded and actor reports differ"
    fail=1
  else
    echo "ok $n: $* (ran $ran of $ranks ranks)"
  fi
}

check 1 -p "$data/flat-16.xml" -w resnet50 -i 2
check 1 -p "$data/flat-64.xml" -w vgg16 -i 3
check 1 -p cluster-4x4-v100 -w resnet50 -i 3
check 1 -p dgxa100-x8 -w vgg16 -i 2
check 1 -p "$data/cluster-16x4.xml" -w resnet50 -i 2 --no-overlap
check 2 -p "$data/flat-16.xml" -w resnet50 -i 3 --scale 'host:gpu3.speed=0.5'
check 2 -p cluster-4x4-v100 -w resnet50 -i 3 --scale 'gpu:node1-gpu2.flops=0.7'
check 1 -p cluster-4x4-v100 -w vgg16 -i 3 --comm-streams 2
check 2 -p cluster-4x4-v100 -w vgg16 -i 2 --comm-streams 2 --scale 'host:node0-gpu0.speed=0.8'
check 1 -p "$data/two-nodes-interleaved.xml" -w vgg16 -i 2
check 1 -p dgxa100-x8 -w vgg16 -i 2 --collective hier
check 1 -p cluster-4x4-v100 -w vgg16 -i 2 --collective auto --comm-streams 2
check all -p cluster-4x4-v100 -w vgg16 -i 2 --strategy hybrid --stages 2
check all -p "$data/flat-16.xml" -w resnet50 -i 2 --collective ps
check all -p "$data/flat-16.xml" -w resnet50 -i 2 --compute-jitter lognormal:0.1
if [ $fail -ne 0 ]; then
  exit 1
fi
echo "analytic-fold: $n cases, folded = actors"
