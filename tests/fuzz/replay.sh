#!/bin/sh
# Replay the fuzz corpora (tests/fuzz/corpus/) and the tesh files' bad
# inputs through dtsim itself, as a user would run them: every run must
# end with exit status 0, 1 or 2 (never a SimGrid abort, 134, or a crash),
# within a minute and under 2 GB of memory. Platforms that load are also
# given to SimGrid (info --routes, allreduce, a one-iteration run), which
# the in-process fuzzers cannot do (SimGrid loads one platform a process).
# Runs in `make check`; needs no fuzzer. After a campaign, replay what it
# found: `tests/fuzz/replay.sh _fuzz/fuzz-corpus` (top_srcdir, top_builddir
# and DTSIM_DATADIR set as for `make check`).
set -u
src="${top_srcdir:?}"
dtsim="${top_builddir:?}/dtsim"
corpus="${1:-$src/tests/fuzz/corpus}"
extra="$src/tests/cli/bad"
[ $# -gt 0 ] && extra=""
[ -d "$corpus/platform" ] && [ -x "$dtsim" ] || { echo "replay: no corpus or no dtsim"; exit 99; }
bad=0
runs=0
# 2 GB of address space, except under AddressSanitizer, which reserves
# terabytes of shadow memory up front (its own checks stand in).
vlimit=2097152
if grep -q __asan_init "$dtsim" 2>/dev/null; then vlimit=unlimited; fi
check () {
  runs=$((runs + 1))
  ( ulimit -v $vlimit 2>/dev/null; exec timeout 60 "$dtsim" "$@" ) >/dev/null 2>&1
  status=$?
  case $status in
  0|1|2) return 0 ;;
  esac
  echo "FAIL (exit $status): dtsim $*"
  bad=$((bad + 1))
}
for f in "$corpus"/platform/* "$corpus"/workload/* ${extra:+"$extra"/*.xml}; do
  [ -f "$f" ] || continue
  check info "$f"
  if "$dtsim" info "$f" 2>/dev/null | head -1 | grep -q "^platform "; then
    check info --routes "$f"
    check allreduce -p "$f" --size 1MB
    check run -q -i 1 -p "$f" -w "$src/tests/data/mlp8.xml"
  fi
done
# Option values: each line of the options corpus given to every option
# that takes such a value.
for f in "$corpus"/options/*; do
  while IFS= read -r line; do
    for opt in --set --scale --cfg; do
      check allreduce -p "$src/tests/data/two-nodes-local.xml" --size 1MB "$opt" "$line"
    done
  done < "$f"
done
echo "replay: $runs runs, $bad failures"
[ "$bad" -eq 0 ]
