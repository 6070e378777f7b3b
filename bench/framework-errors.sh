#!/bin/sh
# bench/framework-errors.sh BUILD [PROFILE...]: every shipped framework
# profile (and the built-in generic) over all of `dtsim validate`'s sets,
# under the cost model $COST_MODEL (default roofline): the measured mean
# MAPE beside the one the profile records (validate-mape-MODEL, "-" where
# none; generic's in src/cost/framework.c).
# Exit 1 where they differ. The record every run prints must be what this
# measures; tests/cli/framework-error.sh checks the default's in make check.
# About 3-4 minutes per profile on one core (doc/VALIDATION.md part 19).
set -eu
build=${1:?usage: bench/framework-errors.sh BUILD [PROFILE...]}
shift
top=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -eq 0 ]; then
  set -- generic
  for f in "$top"/frameworks/*.conf; do set -- "$@" "$(basename "$f" .conf)"; done
fi
export DTSIM_DATADIR="${DTSIM_DATADIR:-$top}"
model=${COST_MODEL:-roofline}
status=0
printf '| profile (%s) | recorded | measured | bias |\n|---|---:|---:|---:|\n' "$model"
for fw in "$@"; do
  rec=$("$build/dtsim" run -w resnet50 -p v100-single -i 1 --format json --quiet \
    --framework "$fw" --cost-model "$model" |
    python3 -c 'import json, sys; v = json.load(sys.stdin)["options"]["framework_validate_mape_pct"]; print("-" if v is None else "%.1f%%" % v)')
  line=$("$build/dtsim" validate -F "$fw" -- --cost-model "$model" | grep '^Mean over ')
  got=$(printf '%s\n' "$line" | sed -n 's/.* MAPE \([0-9.]*\)%.*/\1/p')
  bias=$(printf '%s\n' "$line" | sed -n 's/.*signed bias \([-+0-9.]*\)%.*/\1/p')
  printf '| %s | %s | %s%% | %s%% |\n' "$fw" "$rec" "$got" "$bias"
  [ "$rec" = "$got%" ] || status=1
done
exit $status
