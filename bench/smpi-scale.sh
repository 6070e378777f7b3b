#!/bin/sh
# smpi-scale.sh - the cost of simulating one 100 MB ring all-reduce at every
# granularity, side by side with SimGrid's own MPI (SMPI) running
# MPI_Allreduce with its ring (smpi/allreduce:lr) on the same platform file
# and network settings (tests/smpi/check-smpi.sh's). Wall time and peak RSS
# of the whole process (/usr/bin/time), and the simulated times, for N = 8
# to N_MAX GPUs on bench/gen-flat.sh crossbars without backbone
# (FLAT_BACKBONE=none: SMPI would pay SimGrid's FATPIPE cost that dtsim
# relaxes away). dtsim runs one channel with chunks of S/N, SMPI's message
# size, so that step granularity sends SMPI's messages. Prints a Markdown
# table. Not a test.
#
#   bench/smpi-scale.sh BUILD_DIR
#
# Environment: SIZE (bytes, default 100000000), N_MAX (default 16384),
# STEP_MAX (largest N run at step granularity, default 512: 2(N-1) N
# messages, about half a million there), SMPI_MAX (largest N run with SMPI,
# default 64: SMPI allocates and reduces every rank's real buffers, 2 S
# bytes per rank, 6 GB at 64 ranks of 100 MB).
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: smpi-scale.sh BUILD_DIR}
dtsim="$build/dtsim"
[ -x "$dtsim" ] || { echo "smpi-scale.sh: no dtsim in '$build'" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "smpi-scale.sh: needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
size=${SIZE:-100000000}
n_max=${N_MAX:-16384}
step_max=${STEP_MAX:-512}
smpi_max=${SMPI_MAX:-64}
: "${DTSIM_DATADIR:=$(cd "$here/.." && pwd)}"
export DTSIM_DATADIR
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
have_smpi=no
if command -v smpicc >/dev/null 2>&1 && command -v smpirun >/dev/null 2>&1 \
   && smpicc -O2 "$here/../tests/smpi/allreduce.c" -o "$tmp/allreduce" 2>"$tmp/cc.log"; then
  have_smpi=yes
fi

# run_dtsim N GRANULARITY: "wall_s rss_MB simulated_s" of one all-reduce.
run_dtsim() {
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$dtsim" allreduce -p "$tmp/flat.xml" --gpus "$1" \
    --size "$size" --channels 1 --chunk-size $((size / $1 + 1)) --collective ring \
    --comm-granularity "$2" --format json > "$tmp/out.json"
  python3 - "$tmp/out.json" "$tmp/time" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["results"][0]["time_s"]
wall, rss = open(sys.argv[2]).read().split()[-2:]
print("%.2f %.0f %.9f" % (float(wall), int(rss) / 1024, t))
PY
}

echo "| GPUs | step wall s | step MB | flow wall s | flow MB | analytic wall s | analytic MB | SMPI wall s | SMPI MB | SMPI / step wall | step vs SMPI simulated | flow vs step | analytic vs flow |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
n=8
while [ "$n" -le "$n_max" ]; do
  FLAT_BACKBONE=none sh "$here/gen-flat.sh" "$n" > "$tmp/flat.xml"
  step="- - -"
  [ "$n" -le "$step_max" ] && step=$(run_dtsim "$n" step)
  flow=$(run_dtsim "$n" flow)
  analytic=$(run_dtsim "$n" analytic)
  smpi="- - -"
  if [ $have_smpi = yes ] && [ "$n" -le "$smpi_max" ]; then
    i=0
    : > "$tmp/hosts"
    while [ $i -lt "$n" ]; do echo "gpu$i" >> "$tmp/hosts"; i=$((i + 1)); done
    (cd "$tmp" && /usr/bin/time -f "%e %M" -o "$tmp/time" smpirun -np "$n" \
      -platform "$tmp/flat.xml" -hostfile "$tmp/hosts" --cfg=smpi/allreduce:lr \
      --cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0 \
      --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:1 --cfg=smpi/lat-factor:1 \
      --log=root.thresh:critical ./allreduce "$size" \
      2>/dev/null | tail -1 > "$tmp/smpi.out")
    smpi="$(awk '{ printf "%.2f %.0f", $1, $2 / 1024 }' "$tmp/time") $(cat "$tmp/smpi.out")"
  fi
  echo "$n $step $flow $analytic $smpi" | awk '{
    n = $1; sw = $2; sm = $3; st = $4; fw = $5; fm = $6; ft = $7; aw = $8; am = $9; at = $10
    mw = $11; mm = $12; mt = $13
    ratio = (sw != "-" && mw != "-" && sw > 0) ? sprintf("%.1f", mw / sw) : "-"
    agree = (st != "-" && mt != "-") ? sprintf("%+.3f%%", 100 * (st - mt) / mt) : "-"
    rel = st != "-" ? sprintf("%+.4f%%", 100 * (ft - st) / st) : "-"
    arel = sprintf("%+.4f%%", 100 * (at - ft) / ft)
    printf "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", n, sw, sm, fw,
      fm, aw, am, mw, mm, ratio, agree, rel, arel }'
  n=$((n * 2))
done
