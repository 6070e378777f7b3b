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
# With --nic, the table between the calibrate-allreduce-nic markers.
DTSIM_SHARED="${DTSIM_SHARED:-${top_srcdir}/../shared}" DTSIM_DATADIR="${top_srcdir}" \
  python3 "${top_srcdir}/tools/calibrate-allreduce.py" "${top_builddir:?}" --nic > "$tmp/nic.md"
sed -n '/^<!-- calibrate-allreduce-nic: begin/,/^<!-- calibrate-allreduce-nic: end/p' \
  "${top_srcdir}/doc/VALIDATION.md" | sed '1d;$d' > "$tmp/doc-nic.md"
if ! diff -u "$tmp/doc-nic.md" "$tmp/nic.md"; then
  echo "calibrate-allreduce: doc/VALIDATION.md's --nic table is not what the tool prints"
  exit 1
fi
# The NIC factor beats B and T alone on the same REPORT rows: its overall
# MAPE is under the 15.4% of doc/VALIDATION.md part 1.
awk -F'|' '$2 ~ /^ all / { gsub(/[ %]/, "", $9); exit !($9 + 0 < 15.4) }' "$tmp/nic.md"
# The table holds every machine and the overall row, and calibration helps.
grep -c '^| N' "$tmp/table.md"
awk -F'|' '$2 ~ /^ all / { gsub(/[ %]/, "", $8); gsub(/[ %]/, "", $15); exit !($8 + 0 < $15 + 0) }' \
  "$tmp/table.md"
echo "calibrate-allreduce: ok"
