#!/bin/sh
# Run one tesh file from its own directory, with dtsim's build directory as
# ${bindir}. Used as the automake log compiler for *.tesh tests.
set -e
file=$1
dir=$(cd "$(dirname "$file")" && pwd)
base=$(basename "$file")
# A file with the line "# needs: shared data" runs on ../shared's data sets
# and is skipped (exit 77) without them.
if grep -q '^# needs: shared data$' "$file"; then
  shared="${DTSIM_SHARED:-${top_srcdir:?}/../shared}"
  if [ ! -d "$shared/data/validation" ]; then
    echo "$base: no $shared/data/validation, skipped"
    exit 77
  fi
fi
# Under the sanitizer build (tools/check-sanitizers.sh sets DTSIM_SANITIZED)
# dtsim runs 5-10 times slower, and a command near tesh's 10 s default
# would time out on a slower machine. tesh multiplies every timeout by 20
# when commands run through a wrapper (meant for valgrind); `env` changes
# nothing else, so hangs are still caught, later.
cd "$dir"
if [ -n "${DTSIM_SANITIZED:-}" ]; then set -- --wrapper "env "; else set --; fi
exec "${TESH:-tesh}" "$@" --setenv bindir="${top_builddir:?}" --setenv srcdir="${top_srcdir:?}" "$base"
