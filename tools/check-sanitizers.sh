#!/bin/sh
# Build dtsim with ASan and UBSan (C and the C++ SimGrid shims) in BUILD_DIR
# (default _asan) and run `make check` there; any sanitizer report fails.
# The reports go to log files, not stderr: SimGrid's stack switching makes
# ASan warn on stderr, which would break the tesh goldens. Leaks are left to
# `make check-valgrind` (GLib and SimGrid keep start-up allocations).
# DTSIM_SANITIZED tells the few minutes-long data checks (framework-error.sh)
# to skip: they repeat code paths that shorter tests already cover.
# Used by .ci/run; usage: tools/check-sanitizers.sh [BUILD_DIR]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$src/_asan}
mkdir -p "$dir"
cd "$dir"
"$src/configure" --enable-asan >/dev/null
make -j2 >/dev/null
logs=$(mktemp -d)
status=0
DTSIM_SANITIZED=1 ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=0" \
UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1" \
  make -j2 check >/dev/null || status=1
[ $status -eq 0 ] || { cat test-suite.log; }
reports=$(grep -l -E "ERROR: AddressSanitizer|runtime error" "$logs"/* 2>/dev/null || true)
if [ -n "$reports" ]; then
  for r in $reports; do cat "$r"; done
  status=1
fi
rm -rf "$logs"
echo "sanitizers: make check $( [ $status -eq 0 ] && echo passed || echo FAILED ) with ASan and UBSan"
exit $status
