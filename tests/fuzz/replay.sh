#!/bin/sh
# Replay the fuzz corpora (tests/fuzz/corpus/) and the tesh files' bad
# inputs through dtsim itself, as a user would run them: every run must
# end with exit status 0, 1 or 2 (never a SimGrid abort, 134, or a crash),
# within a minute and under 2 GB of memory. Platforms that load are also
# given to SimGrid (info --routes, allreduce, a one-iteration run), which
# the in-process fuzzers cannot do (SimGrid loads one platform a process).
# Runs in `make check`; needs no fuzzer.
set -u
src="${top_srcdir:?}"
dtsim="${top_builddir:?}/dtsim"
corpus="$src/tests/fuzz/corpus"
[ -d "$corpus/platform" ] && [ -x "$dtsim" ] || { echo "replay: no corpus or no dtsim"; exit 99; }
bad=0
runs=0
check () {
  runs=$((runs + 1))
  ( ulimit -v 2097152 2>/dev/null; exec timeout 60 "$dtsim" "$@" ) >/dev/null 2>&1
  status=$?
  case $status in
  0|1|2) return 0 ;;
  esac
  echo "FAIL (exit $status): dtsim $*"
  bad=$((bad + 1))
}
for f in "$corpus"/platform/* "$corpus"/workload/* "$src"/tests/cli/bad/*.xml; do
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
