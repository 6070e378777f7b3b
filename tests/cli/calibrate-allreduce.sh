#!/bin/sh
# tools/calibrate-allreduce.py on DeepBench's all-reduce rows (skipped, exit
# 77, without the shared data sets): the table it prints is, to the digit,
# the one doc/VALIDATION.md shows between its calibrate-allreduce markers.
set -eu
data="${DTSIM_SHARED:-${top_srcdir:?}/../shared}/data/validation"
if [ ! -f "$data/deepbench_allreduce.csv" ]; then
  echo "calibrate-allreduce: no $data/deepbench_allreduce.csv, skipped"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
DTSIM_SHARED="${DTSIM_SHARED:-${top_srcdir}/../shared}" DTSIM_DATADIR="${top_srcdir}" \
  python3 "${top_srcdir}/tools/calibrate-allreduce.py" "${top_builddir:?}" > "$tmp/table.md"
sed -n '/^<!-- calibrate-allreduce: begin/,/^<!-- calibrate-allreduce: end/p' \
  "${top_srcdir}/doc/VALIDATION.md" | sed '1d;$d' > "$tmp/doc.md"
if ! diff -u "$tmp/doc.md" "$tmp/table.md"; then
  echo "calibrate-allreduce: doc/VALIDATION.md's table is not what the tool prints"
  exit 1
fi
# The table holds every machine and the overall row, and calibration helps.
grep -c '^| N' "$tmp/table.md"
awk -F'|' '$2 ~ /^ all / { gsub(/[ %]/, "", $8); gsub(/[ %]/, "", $15); exit !($8 < $15) }' \
  "$tmp/table.md"
echo "calibrate-allreduce: ok"
