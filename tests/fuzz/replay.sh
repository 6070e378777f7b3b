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
# Peak memory (resident) is measured with GNU time when it is installed: an
# address-space limit (ulimit -v) would refuse SimGrid's actor stacks,
# which are reserved (8 MiB each) but barely touched.
memlimit_kb=2097152
gnutime=""
if [ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1; then gnutime=/usr/bin/time; fi
rss=$(mktemp)
trap 'rm -f "$rss"' EXIT
check () {
  runs=$((runs + 1))
  if [ -n "$gnutime" ]; then
    $gnutime -o "$rss" -f %M timeout 60 "$dtsim" "$@" >/dev/null 2>&1
  else
    timeout 60 "$dtsim" "$@" >/dev/null 2>&1
  fi
  status=$?
  peak=0
  [ -n "$gnutime" ] && peak=$(tail -1 "$rss" 2>/dev/null | tr -cd 0-9)
  case $status in
  0|1|2)
    if [ "${peak:-0}" -le "$memlimit_kb" ]; then return 0; fi
    echo "FAIL (peak ${peak} KiB of memory): dtsim $*" ;;
  *) echo "FAIL (exit $status): dtsim $*" ;;
  esac
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
