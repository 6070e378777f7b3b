#!/bin/sh
# dtsim cost eval and cost validate find the shared data sets as dtsim
# validate does: $DTSIM_SHARED, else ../shared beside the data directory.
# Here DTSIM_SHARED is unset and the data directory is a temporary one (links
# to the source tree's entries) beside a link named shared to the data sets;
# each command must print what it prints with --data. Skipped (exit 77)
# without them.
set -eu
shared="${DTSIM_SHARED:-${top_srcdir:?}/../shared}"
if [ ! -d "$shared/data/validation" ] || [ ! -d "$shared/data/kernels" ]; then
  echo "cost-shared: no $shared/data/{validation,kernels}, skipped"
  exit 77
fi
shared=$(cd "$shared" && pwd)
dtsim="${top_builddir:?}/dtsim"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$(cd "${top_srcdir:?}" && pwd)
# A data directory whose ../shared is DIR/shared.
datadir() {
  mkdir -p "$1/src"
  for f in "$src"/*; do ln -s "$f" "$1/src/"; done
}
datadir "$tmp"
ln -s "$shared" "$tmp/shared"
check() {
  sub=$1
  shift
  env -u DTSIM_SHARED DTSIM_DATADIR="$tmp/src" "$dtsim" "$@" > "$tmp/found"
  env -u DTSIM_SHARED "$dtsim" "$@" --data "$shared/data/$sub" > "$tmp/given"
  if ! cmp -s "$tmp/found" "$tmp/given" || [ ! -s "$tmp/found" ]; then
    echo "cost-shared: 'dtsim $*' without DTSIM_SHARED differs from --data $shared/data/$sub"
    exit 1
  fi
  echo "cost-shared: dtsim $* finds ../shared/data/$sub"
}
check validation cost validate --format csv
check kernels cost eval --epochs 2 --members 1 --format csv
# Without the data sets anywhere: one error naming the directory and the fix.
datadir "$tmp/alone"
if env -u DTSIM_SHARED DTSIM_DATADIR="$tmp/alone/src" "$dtsim" cost validate > /dev/null 2> "$tmp/err"; then
  echo "cost-shared: cost validate ran without the data sets"
  exit 1
fi
grep -q "no data directory '$tmp/alone/src/../shared/data/validation' (pass --data DIR or set DTSIM_SHARED" "$tmp/err" || {
  echo "cost-shared: unexpected error: $(cat "$tmp/err")"
  exit 1
}
echo "cost-shared: without them, one error that names the fix"
