#!/bin/sh
# The layering lint refuses a cycle between modules: a tree where core
# includes platform and platform includes core must fail with the cycle
# named, and the real tree must pass.
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/core" "$tmp/src/sim" "$tmp/src/platform"
printf '#include "platform/platform.h"\n' > "$tmp/src/core/a.c"
printf '#include "core/a.h"\n' > "$tmp/src/platform/platform.h"
out=$(top_srcdir="$tmp" sh "$here/layering.sh")
status=$?
if [ $status -eq 0 ]; then echo "layering-cycle: a cycle passed the lint"; exit 1; fi
case "$out" in
  *"cycle between modules"*) ;;
  *) echo "layering-cycle: no cycle reported:"; echo "$out"; exit 1 ;;
esac
echo "layering-cycle: ok"
