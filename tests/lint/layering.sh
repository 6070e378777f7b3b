#!/bin/sh
# Layering lint: SimGrid headers only under src/sim/, and modules include only
# the layers below them (doc/DESIGN.md):
#   core <- {platform, workload, trace} <- cost <- collective <- schedule
#        <- sim <- driver <- cli;  output depends on core and trace only.
# It also refuses any cycle between modules (tsort finds it), whatever the
# table below allows.
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
    trace) echo "core trace" ;;
    cost) echo "core platform workload cost" ;;
    collective) echo "core platform workload cost collective" ;;
    schedule) echo "core platform workload cost collective schedule" ;;
    sim) echo "core platform workload cost collective schedule trace sim" ;;
    driver) echo "core platform workload cost collective schedule trace sim driver" ;;
    output) echo "core trace output" ;;
    cli) echo "core platform workload cost collective schedule trace sim driver output cli" ;;
  esac
}

edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for dir in "$src"/*/; do
  mod=$(basename "$dir")
  ok=$(allowed "$mod")
  for f in $(find "$dir" -name '*.c' -o -name '*.h' -o -name '*.cc'); do
    for inc in $(sed -n 's/^#include[[:space:]]*"\([a-z]*\)\/.*/\1/p' "$f"); do
      [ "$inc" = "$mod" ] || echo "$inc $mod" >> "$edges"
      case " $ok " in
        *" $inc "*) ;;
        *) echo "$f: module '$mod' must not include '$inc/'"; status=1 ;;
      esac
    done
  done
done

# A cycle between modules: tsort prints the loop on stderr.
if ! sort -u "$edges" | tsort > /dev/null 2> "$edges.err"; then
  echo "layering: cycle between modules:"; sed -n 's/^tsort: //p' "$edges.err"; status=1
fi
rm -f "$edges.err"
[ $status -eq 0 ] && echo "layering: ok"
exit $status
