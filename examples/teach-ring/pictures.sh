#!/bin/sh
# Draw the picture of examples/teach-ring/README.md.
#   usage: pictures.sh DTSIM OUTDIR
# `make examples` writes it into the source tree; the test draws it into a
# scratch directory and compares the two drawings.
set -e
dtsim=${1:?usage: pictures.sh DTSIM OUTDIR}
out=${2:?usage: pictures.sh DTSIM OUTDIR}
mkdir -p "$out"
"$dtsim" allreduce --platform dgx1-v100 --gpus 4 --size 64MB --svg "$out/ring.svg" > /dev/null
