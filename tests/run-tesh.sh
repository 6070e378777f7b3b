#!/bin/sh
# Run one tesh file from its own directory, with dtsim's build directory as
# ${bindir}. Used as the automake log compiler for *.tesh tests.
set -e
file=$1
dir=$(cd "$(dirname "$file")" && pwd)
base=$(basename "$file")
cd "$dir"
exec "${TESH:-tesh}" --setenv bindir="${top_builddir:?}" --setenv srcdir="${top_srcdir:?}" "$base"
