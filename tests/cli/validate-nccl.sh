#!/bin/sh
# bench/validate-nccl.py on vTrain's nccl-tests rows and on a few of
# Vidur's (skipped, exit 77, without the shared data sets): the vTrain
# table it prints is, to the digit, the one doc/VALIDATION.md part 16 shows
# between its validate-nccl-vtrain markers; on Vidur's rows the fitted NIC
# bandwidth is printed and the calibration rows stay out of the reported ones.
set -eu
shared="${DTSIM_SHARED:-${top_srcdir:?}/../shared}"
for f in vtrain_nccl_allreduce_lut.csv vidur_collectives_median_ms.csv; do
  if [ ! -f "$shared/data/kernels/llm/$f" ]; then
    echo "validate-nccl: no $shared/data/kernels/llm/$f, skipped"
    exit 77
  fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
DTSIM_SHARED="$shared" DTSIM_DATADIR="${top_srcdir}" \
  python3 "${top_srcdir}/bench/validate-nccl.py" "${top_builddir:?}" --set=vtrain > "$tmp/vtrain.md"
sed -n '/^<!-- validate-nccl-vtrain: begin/,/^<!-- validate-nccl-vtrain: end/p' \
  "${top_srcdir}/doc/VALIDATION.md" | sed '1d;$d' > "$tmp/doc.md"
if ! diff -u "$tmp/doc.md" "$tmp/vtrain.md"; then
  echo "validate-nccl: doc/VALIDATION.md's vTrain table is not what the script prints"
  exit 1
fi
# --quick on Vidur: 2 x 1 (calibration), 8 x 4 and 8 x 8 (H100), four sizes
# each. The reported rows are the last two configurations' eight, and the
# fitted bandwidth reproduces the 2 x 1 rows of 1 MiB and more within 10%.
DTSIM_SHARED="$shared" DTSIM_DATADIR="${top_srcdir}" \
  python3 "${top_srcdir}/bench/validate-nccl.py" "${top_builddir:?}" --set=vidur --quick > "$tmp/vidur.md"
grep '^Inter-node NIC bandwidth fitted' "$tmp/vidur.md"
test "$(grep -c '^| a100_dgx 2 x 1 (calibration) |' "$tmp/vidur.md")" = 4
grep -q '^| all | all | 8 |' "$tmp/vidur.md"
awk -F'|' '$2 ~ /2 x 1 \(calibration\)/ && $3 ~ /MiB/ && $3 !~ /</ { gsub(/[ %]/, "", $5); if ($5 + 0 >= 10) bad = 1 }
  END { exit bad }' "$tmp/vidur.md"
echo "validate-nccl: ok"
