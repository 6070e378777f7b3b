#!/bin/sh
# Every study command in an example README's sh blocks (a line that runs a
# script of examples/) is correct for the README's working directory, the
# build directory of the top README's `./configure && make` (the top of the
# source tree): the script it names is there. And an examples/ tesh test
# runs that script, so the study the command starts is tested.
set -eu
src="${top_srcdir:?}"
cd "$src"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for readme in examples/README.md examples/*/README.md; do
  # The lines of ```sh blocks.
  awk '/^```sh$/ { on = 1; next } /^```/ { on = 0 } on' "$readme" |
    sed 's/#.*//' | while read -r first rest; do
      # shellcheck disable=SC2086
      if [ "$first" = sh ]; then set -- $rest; else set -- "$first"; fi
      case $1 in *.sh) ;; *) continue ;; esac
      script=$1
      if [ ! -f "$script" ]; then
        echo "$readme: '$script' is not there from the build directory (the source tree's top)"
        echo fail
        continue
      fi
      if ! grep -q "{srcdir}/$script" examples/*.tesh examples/*/*.tesh; then
        echo "$readme: no examples/ tesh test runs '$script'"
        echo fail
        continue
      fi
      echo "ok $readme $script"
    done
done > "$out"
grep -v '^ok \|^fail$' "$out" || true
n=$(grep -c '^ok ' "$out" || true)
echo "example-readmes: $n study commands checked"
if grep -q '^fail$' "$out" || [ "$n" -lt 5 ]; then
  exit 1
fi
