#!/bin/sh
# dtsim validate --quick on the shared data sets (skipped, exit 77, without
# them): it runs, its REPORT summary holds REPORT slices only and the FIT
# rows only under --fit, apart; and every compute slice it prints is, to the
# digit, the one tools/validate-compute.py prints for the same rows (the
# command is a port of that script, with the DeepBench all-reduce set added;
# two implementations that agree).
set -eu
data="${DTSIM_SHARED:-${top_srcdir:?}/../shared}/data/validation"
if [ ! -d "$data" ]; then
  echo "validate-quick: no $data, skipped"
  exit 77
fi
dtsim="${top_builddir:?}/dtsim"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out="$tmp/validate.md"
"$dtsim" validate --quick --fit --data "$data" > "$out"
TMPDIR="$tmp" python3 "${top_srcdir:?}/tools/validate-compute.py" "$top_builddir" --quick > "$out.py"
python3 - "$out" "$out.py" <<'PY'
import re, sys
c = open(sys.argv[1]).read()
report, _, fit = c.partition("| slice (FIT rows, not a measure of accuracy)")
rows = lambda text: dict((m[0], m[1:]) for m in re.findall(
    r"^\| ([^|]+?) \| (\d+) \| ([-+0-9.]+%) \| ([-+0-9.]+%) \|$", text, re.M))
r, f = rows(report), rows(fit)
fail = []
if not any(k.startswith("lambda-v1") for k in r) or not any(k.startswith("deepbench") for k in r):
    fail.append("no lambda-v1 or deepbench slice in the REPORT table")
if any(k.startswith("lambda-v0") for k in r):
    fail.append("a FIT slice (lambda-v0) in the REPORT table")
if not any(k.startswith("lambda-v0") for k in f) or not any(k.startswith("tf2017") for k in f):
    fail.append("the FIT table lacks the lambda-v0 or tf2017 FIT slices")
# the python tool: | split | slice | rows | MAPE | signed bias |
py = dict(((m[0], m[1]), m[2:]) for m in re.findall(
    r"^\| (fit|report) \| ([^|]+?) \| (\d+) \| ([-+0-9.]+%) \| ([-+0-9.]+%) \|$",
    open(sys.argv[2]).read(), re.M))
mine = dict([(("report", k), v) for k, v in r.items()] + [(("fit", k), v) for k, v in f.items()])
# the DeepBench and transformer sets are not the script's (validate-llm.tesh
# holds the 8-GPU Korthikanti rows and NeMo's one-node row of --quick)
mine = dict((k, v) for k, v in mine.items()
            if not k[1].startswith(("deepbench", "korthikanti", "vtrain", "nemo")))
if not py or py != mine:
    fail.append("slices differ from tools/validate-compute.py: %s" % sorted(
        set(py.items()) ^ set(mine.items())))
# The REPORT slices of the shipped profiles on the quick rows, to the digit
# (doc/VALIDATION.md parts 6, 8 and 9): a change to a profile, the catalogue or the
# cost model that moves them shows here.
golden = {
    "lambda-v1 A100": ("4", "7.1%", "+6.6%"),
    # doc/VALIDATION.md parts 8 and 9: the PCIe cards (GeForce at the die's
    # rate), SSD300 and both together
    "lambda-v1-other": ("14", "6.4%", "-2.6%"),
    "lambda-v1-ssd A100": ("4", "1.4%", "-1.4%"),
    "lambda-v1 all GPUs, ResNet-50 + SSD": ("44", "8.7%", "-6.0%"),
    "lambda-v1 V100": ("4", "2.6%", "-2.6%"),
    "lambda-v1 scaling 1->8": ("4", "3.1%", "+1.3%"),
    "tf2017 K80": ("5", "17.3%", "+12.5%"),
    # doc/VALIDATION.md part 3: the p2.8xlarge cluster, 1 and 64 K80 dies
    "tf2017-cluster resnet50": ("4", "4.7%", "+3.5%"),
    "tf2017-cluster scaling 1->n": ("5", "6.8%", "+2.7%"),
    # doc/VALIDATION.md parts 5 and 12, "convnet-benchmarks on the Titan X"
    "convnet": ("6", "7.4%", "+3.9%"),
}
for k, v in golden.items():
    if r.get(k) != v:
        fail.append("REPORT slice '%s': %s, expected %s" % (k, r.get(k), v))
for m in fail:
    print("validate-quick: " + m)
print("validate-quick: %d REPORT and %d FIT slices, %d compared with the script" % (
    len(r), len(f), len(py)))
sys.exit(1 if fail else 0)
PY

# doc/VALIDATION.md part 5, the convnet table: the slice under the other
# shipped profiles and cost models, to the digit.
check_convnet() {
  want="$1"
  shift
  got=$("$dtsim" validate --sets convnet --data "$data" "$@" | grep '^| convnet |')
  if [ "$got" != "$want" ]; then
    echo "validate-quick: convnet $*: '$got', expected '$want'"
    exit 1
  fi
}
check_convnet '| convnet | 6 | 42.2% | -12.9% |' -F convnet=generic
check_convnet '| convnet | 6 | 21.4% | -17.2% |' -F convnet=generic -- --cost-model mlp
check_convnet '| convnet | 6 | 56.4% | -43.1% |' -F convnet=pytorch
check_convnet '| convnet | 6 | 22.2% | +19.7% |' -F convnet=tensorflow1
check_convnet '| convnet | 6 | 21.0% | -20.8% |' -F convnet=tensorflow1 -- --cost-model mlp
check_convnet '| convnet | 6 | 21.1% | -19.4% |' -F convnet=torch7-cudnn4 -- --cost-model mlp
echo "validate-quick: convnet table of doc/VALIDATION.md part 5 holds"

# frameworks/torch7-cudnn4.conf's 1x1 shares are what the DeepBench kernels
# give (doc/VALIDATION.md part 12), reproduced by the tool that measured them
want=$(grep -E '^compute-efficiency-1x1(-wgrad)? =' "$top_srcdir/frameworks/torch7-cudnn4.conf")
got=$(TMPDIR="$tmp" python3 "$top_srcdir/tools/fit-framework.py" "$top_builddir" \
  "$top_srcdir/frameworks/torch7-cudnn4.conf" --deepbench-1x1 | grep -v '^#')
if [ "$got" != "$want" ]; then
  echo "validate-quick: --deepbench-1x1 gives '$got', the profile has '$want'"
  exit 1
fi
echo "validate-quick: torch7-cudnn4's 1x1 shares are DeepBench's"
