#!/bin/sh
# `make check-valgrind`: memcheck over the unit suites (given as arguments)
# and over dtsim on inputs of each kind: invalid reads or writes, use of
# uninitialised values and definite leaks fail the target (exit 1).
# SimGrid switches stacks with its own raw contexts, which memcheck cannot
# follow: dtsim runs with --cfg contexts/factory:thread here.
set -u
vg="${VALGRIND:-valgrind} -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
vg="$vg --suppressions=${top_srcdir:?}/tests/valgrind.supp --num-callers=30"
dtsim="${top_builddir:?}/dtsim"
src="$top_srcdir"
bad=0
run () {
  echo "valgrind: $*"
  # Check forks each test (memcheck follows forks); tests that configure
  # SimGrid need a process each.
  G_SLICE=always-malloc $vg "$@" >/dev/null 2>valgrind.err
  status=$?
  if [ "$status" -eq 99 ]; then
    cat valgrind.err
    bad=$((bad + 1))
  fi
  rm -f valgrind.err
}
for t in "$@"; do
  case $t in
  */test-mlp-shared) continue ;; # the shared data sets: long under memcheck
  # 5.5 million kernel times of one rule (8 min under memcheck); test-mlp and
  # test-cost run the same code under memcheck.
  */test-cost-monotone) continue ;;
  esac
  run "${top_builddir}/$t"
done
thread="--cfg contexts/factory:thread"
run "$dtsim" info "$src/tests/data/two-nodes-local.xml"
run "$dtsim" info --routes "$src/tests/data/two-nodes-local.xml"
run "$dtsim" info "$src/tests/data/mlp8.xml"
run "$dtsim" info "$src/tests/cli/bad/workload-entity-layer.xml"
run "$dtsim" info "$src/tests/cli/bad/platform-empty-route-full.xml"
run "$dtsim" allreduce $thread -p "$src/tests/data/two-nodes-local.xml" --size 1MB
run "$dtsim" allreduce $thread -p "$src/tests/cli/bad/platform-empty-route-full.xml"
run "$dtsim" run $thread -q -i 1 -p "$src/tests/data/two-nodes-local.xml" -w "$src/tests/data/mlp8.xml"
run "$dtsim" platform --gpu V100-SXM2-16GB --nodes 2
run "$dtsim" run -b 8 -b 16
# The strategies besides dp, the transformer path with every option of the
# pipeline at once, and the study tools (the sweep's children run outside
# memcheck; the sweep and its key file, the results reader and the plot
# writer in it).
two="$src/tests/data/two-nodes-local.xml"
run "$dtsim" run $thread -q -i 2 -p "$two" -w "$src/tests/data/mlp8.xml" --strategy pipeline --stages 2
run "$dtsim" run $thread -q -i 2 -p "$two" -w "$src/tests/data/mlp8.xml" --strategy hybrid \
  --stages 2 --dp 2 --tensor-parallel 2
run "$dtsim" run $thread -q -i 2 -p "$two" -w "$src/tests/data/tiny-gpt.xml" --precision fp16 \
  --strategy hybrid --stages 2 --dp 2 --tensor-parallel 2 --sequence-parallel --micro-batches 4 \
  --virtual-stages 2 --zero 1 --param-gather overlap --recompute full
run "$dtsim" run $thread -q -i 2 -p "$two" -w "$src/tests/data/tiny-gpt.xml" --precision fp16 \
  --strategy hybrid --stages 1 --dp 2 --tensor-parallel 2 --zero 3 --bucket-size 200kB
run "$dtsim" run $thread -q -i 3 -p "$two" -w "$src/tests/data/mlp8.xml" --strategy async-ps --gpus 4
run "$dtsim" run $thread -q -i 2 -p "$two" -w "$src/tests/data/mlp8.xml" --strategy sync-ps --gpus 4
vgtmp=$(mktemp -d)
printf '[sweep]\nvary = gpus=1,2\n[run]\nplatform = %s\nworkload = %s\niterations = 1\n' \
  "$two" "$src/tests/data/mlp8.xml" > "$vgtmp/study.ini"
run "$dtsim" sweep -q --config "$vgtmp/study.ini" -o "$vgtmp/out"
DTSIM_GNUPLOT=none
export DTSIM_GNUPLOT
run "$dtsim" plot "$vgtmp/out/results.csv" --x gpus --y throughput_samples_per_s -o "$vgtmp/t.svg"
unset DTSIM_GNUPLOT
rm -rf "$vgtmp"
echo "check-valgrind: $bad with errors"
[ "$bad" -eq 0 ]
