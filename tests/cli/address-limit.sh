#!/bin/sh
# Under an address-space limit (ulimit -v, as batch systems set it) a run
# whose actor stacks do not fit is refused before SimGrid starts, with the
# numbers and a stack size that fits, instead of SimGrid's abort; that
# stack size runs, with the same result as without the limit. dgxa100-x32
# at step granularity has 512 streams of 8 MiB stacks: 4 GiB, over a 4 GiB
# limit. Skipped (77) in sanitizer builds (they reserve terabytes of shadow
# memory) and where the limit cannot be set or the binary cannot run under it.
set -u
dtsim="${top_builddir:?}/dtsim"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A sanitizer build reserves terabytes of shadow memory: it cannot start
# under the limit at all, and would report that as a sanitizer error.
if [ -n "${ASAN_OPTIONS:-}" ] || [ -n "${UBSAN_OPTIONS:-}" ] ||
  ldd "$dtsim" 2>/dev/null | grep -q -e libasan -e libubsan -e libtsan; then
  echo "skip: a sanitizer build"
  exit 77
fi
run() {
  (ulimit -v 4194304 2>/dev/null || exit 77; exec "$dtsim" "$@") > "$tmp/out" 2> "$tmp/err"
}
run info dgxa100
rc=$?
if [ $rc -ne 0 ]; then
  echo "skip: dtsim does not run under ulimit -v 4194304 (exit $rc)"
  exit 77
fi
run run -p dgxa100-x32 --comm-granularity step -q
rc=$?
if [ $rc -ne 1 ]; then
  echo "FAIL: expected exit 1 under the limit, got $rc"; cat "$tmp/err"; exit 1
fi
if ! grep -q "address-space limit of 4096 MiB (ulimit -v); give --cfg contexts/stack-size:" "$tmp/err"; then
  echo "FAIL: unexpected message"; cat "$tmp/err"; exit 1
fi
kib=$(sed -n 's/.*contexts\/stack-size:\([0-9]*\).*/\1/p' "$tmp/err")
run run -p dgxa100-x32 --comm-granularity step -q --cfg "contexts/stack-size:$kib"
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAIL: --cfg contexts/stack-size:$kib under the limit: exit $rc"; cat "$tmp/err"; exit 1
fi
limited=$(grep '^iteration time' "$tmp/out")
free=$("$dtsim" run -p dgxa100-x32 --comm-granularity step -q | grep '^iteration time')
if [ "$limited" != "$free" ] || [ -z "$free" ]; then
  echo "FAIL: '$limited' under the limit, '$free' without"; exit 1
fi
echo "ok: refused, then ran with stacks of $kib KiB: $free"
