#!/bin/sh
# Layering lint: SimGrid headers only under src/sim/, and modules include only
# the layers below them (doc/DESIGN.md):
#   core <- {platform, workload} <- cost <- collective <- schedule <- sim <- cli
#   output depends on core (and the trace type of sim/trace.h) only.
src="${top_srcdir:-.}/src"
status=0
# Looking nowhere finds nothing: refuse a wrong top_srcdir (99: hard error).
[ -d "$src/core" ] && [ -d "$src/sim" ] || { echo "layering: no sources under '$src'"; exit 99; }

# SimGrid's headers: simgrid/, xbt/ (its toolbox) and smpi/.
bad=$(grep -rlE '#include[[:space:]]*[<"](simgrid|xbt|smpi)[/.]' "$src" --include='*.c' --include='*.h' \
      --include='*.cc' --include='*.cpp' | grep -v "/src/sim/" || true)
if [ -n "$bad" ]; then
  echo "SimGrid included outside src/sim/:"; echo "$bad"; status=1
fi

# allowed[module] = modules it may include
allowed() {
  case "$1" in
    core) echo "core" ;;
    platform) echo "core platform" ;;
    workload) echo "core workload" ;;
    cost) echo "core platform workload cost" ;;
    collective) echo "core platform workload cost collective" ;;
    schedule) echo "core platform workload cost collective schedule" ;;
    sim) echo "core platform workload cost collective schedule sim output" ;;
    output) echo "core output sim" ;;
    cli) echo "core platform workload cost collective schedule sim output cli" ;;
  esac
}

for dir in "$src"/*/; do
  mod=$(basename "$dir")
  ok=$(allowed "$mod")
  for f in $(find "$dir" -name '*.c' -o -name '*.h' -o -name '*.cc'); do
    for inc in $(sed -n 's/^#include[[:space:]]*"\([a-z]*\)\/.*/\1/p' "$f"); do
      case " $ok " in
        *" $inc "*) ;;
        *) echo "$f: module '$mod' must not include '$inc/'"; status=1 ;;
      esac
    done
  done
done

# output may only use the trace header of sim, never SimGrid-facing ones.
if grep -rn '#include "sim/' "$src/output" | grep -v 'sim/trace.h' ; then
  echo "src/output may include only sim/trace.h from sim/"; status=1
fi
[ $status -eq 0 ] && echo "layering: ok"
exit $status
