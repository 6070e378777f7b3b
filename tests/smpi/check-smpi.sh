#!/bin/sh
# check-smpi.sh - dtsim's all-reduces against SimGrid's own MPI (SMPI) on the
# same platform file with the same network model: MPI_Allreduce with SMPI's
# ring (smpi/allreduce:lr: reduce-scatter then all-gather, N-1 steps each,
# one message of SIZE/N per step), recursive doubling (rdb: log2 N exchanges
# of the whole buffer) and Rabenseifner (rab_rdb: recursive halving, then
# doubling) against `dtsim allreduce --collective ring|rd|rhd` at step
# granularity with one channel and chunks as large as SMPI's messages. SMPI's
# MPI-specific corrections are switched off (bandwidth and latency factors 1,
# no benchmarking of the reduction: dtsim's reduction kernel runs alongside
# each transfer and is shorter on these platforms). Agreement within 5% for N
# = 8, 16 and 32 GPUs is required.
#
#   tests/smpi/check-smpi.sh [BUILD_DIR SRC_DIR]
#
# (default: $top_builddir and $top_srcdir, as make check sets them). Exits
# 77 (skipped) when smpicc or smpirun is missing; prints one line per case.
set -e
build=${1:-${top_builddir:?}}
src=${2:-${top_srcdir:?}}
command -v smpicc >/dev/null 2>&1 && command -v smpirun >/dev/null 2>&1 || {
  echo "smpicc/smpirun not found: skipped"
  exit 77
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
smpicc -O2 "$src/tests/smpi/allreduce.c" -o "$tmp/allreduce" 2>"$tmp/cc.log" || {
  cat "$tmp/cc.log" >&2
  echo "smpicc could not build the test program" >&2
  exit 1
}
export DTSIM_DATADIR="$src"
fail=0
for case in "8 flat-16" "16 flat-16" "32 flat-64"; do
  set -- $case
  n=$1
  platform=$src/tests/data/$2.xml
  : > "$tmp/hosts"
  i=0
  while [ $i -lt "$n" ]; do echo "gpu$i" >> "$tmp/hosts"; i=$((i + 1)); done
  # dtsim algorithm, SMPI algorithm, size; the ring's chunk is SIZE/N, the
  # others send whole halves or buffers.
  algs="ring lr 67108864,rd rdb 67108864,rhd rab_rdb 67108864"
  [ "$n" = 8 ] && algs="ring lr 4194304,$algs"
  IFS=,
  for alg in $algs; do
    IFS=' '
    set -- $alg
    size=$3
    chunk=$size
    [ "$1" = ring ] && chunk=$((size / n))
    smpi=$(cd "$tmp" && smpirun -np "$n" -platform "$platform" -hostfile "$tmp/hosts" \
      --cfg=smpi/allreduce:"$2" --cfg=network/model:CM02 --cfg=network/crosstraffic:0 \
      --cfg=network/TCP-gamma:0 --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:1 \
      --cfg=smpi/lat-factor:1 --log=root.thresh:critical ./allreduce "$size" 2>/dev/null | tail -1)
    dtsim=$("$build/dtsim" allreduce -p "$platform" --gpus "$n" --size "$size" --channels 1 \
      --collective "$1" --chunk-size "$chunk" --comm-granularity step --format json |
      python3 -c 'import json, sys; print("%.9f" % (json.load(sys.stdin)["results"][0]["time_s"]))')
    awk -v alg="$1/$2" -v n="$n" -v s="$size" -v a="$dtsim" -v b="$smpi" 'BEGIN {
      if (b + 0 <= 0) { printf "%s N=%d: no time from smpirun\n", alg, n; exit 1 }
      d = (a - b) / b; if (d < 0) d = -d;
      printf "%-12s N=%-3d %9d B: dtsim %.6f s, SMPI %.6f s, difference %.3f%% %s\n", alg, n, s, a, b, 100 * d, d <= 0.05 ? "ok" : "FAIL";
      exit d <= 0.05 ? 0 : 1 }' || fail=1
    IFS=,
  done
  IFS=' '
done
exit $fail
