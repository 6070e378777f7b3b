#!/bin/sh
# Draw the picture of examples/teach-straggler/README.md.
#   usage: pictures.sh DTSIM OUTDIR
# `make examples` writes it into the source tree; the test draws it into a
# scratch directory and compares it with the committed one.
set -e
dtsim=${1:?usage: pictures.sh DTSIM OUTDIR}
out=${2:?usage: pictures.sh DTSIM OUTDIR}
mkdir -p "$out"
"$dtsim" run --framework generic -q --gpus 8 --scale 'host:node1-gpu2.speed=0.5' --timeline "$out/straggler.svg" > /dev/null
