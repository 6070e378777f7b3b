#!/bin/sh
# Draw the pictures of examples/teach-collectives/README.md.
#   usage: pictures.sh DTSIM OUTDIR
# `make examples` writes them into the source tree; the test draws them into
# a scratch directory and compares the drawings.
set -e
dtsim=${1:?usage: pictures.sh DTSIM OUTDIR}
out=${2:?usage: pictures.sh DTSIM OUTDIR}
mkdir -p "$out"
"$dtsim" allreduce --platform cluster-4x4-v100 --gpus 8 --size 8MB --collective rhd --svg "$out/rhd.svg" > /dev/null
"$dtsim" allreduce --platform cluster-4x4-v100 --gpus 16 --size 16MB --collective tree --svg "$out/tree.svg" > /dev/null
