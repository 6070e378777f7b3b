#!/bin/sh
# The default framework profile's measured error, which every run prints
# ("measured error: MAPE ..."), is what `dtsim validate -F ID` measures now
# (doc/VALIDATION.md part 19). Needs the shared data sets (skipped, exit
# 77, without them); about 3 minutes on one core. bench/framework-errors.sh
# checks every shipped profile the same way. Skipped under the sanitizer
# build (tools/check-sanitizers.sh sets DTSIM_SANITIZED): it adds minutes
# there and no code path the other validate tests do not already run.
set -eu
if [ -n "${DTSIM_SANITIZED:-}" ]; then
  echo "framework-error: skipped under the sanitizer build"
  exit 77
fi
data="${DTSIM_SHARED:-${top_srcdir:?}/../shared}/data/validation"
if [ ! -d "$data" ]; then
  echo "framework-error: no $data, skipped"
  exit 77
fi
dtsim="${top_builddir:?}/dtsim"
set -- $("$dtsim" run -w resnet50 -p v100-single -i 1 --format json --quiet |
  python3 -c 'import json, sys
o = json.load(sys.stdin)["options"]
v = o["framework_validate_mape_pct"]
print(o["framework"], "none" if v is None else "%.1f" % v)')
fw=$1 rec=$2
if [ "$rec" = none ]; then
  echo "framework-error: the default profile $fw records no error under roofline"
  exit 1
fi
out=$("$dtsim" validate -F "$fw" --data "$data")
got=$(printf '%s\n' "$out" | sed -n 's/^Mean over .* MAPE \([0-9.]*\)%.*/\1/p')
if [ "$got" != "$rec" ]; then
  printf '%s\n' "$out" | tail -n 3
  echo "framework-error: dtsim validate -F $fw measures '$got'%; the run prints $rec%"
  exit 1
fi
echo "framework-error: the default $fw: $got% measured, as every run prints"
