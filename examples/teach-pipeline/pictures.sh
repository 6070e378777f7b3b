#!/bin/sh
# Draw the pictures of examples/teach-pipeline/README.md.
#   usage: pictures.sh DTSIM OUTDIR
# `make examples` writes them into the source tree; the test draws them into
# a scratch directory and compares them with the committed ones.
set -e
dtsim=${1:?usage: pictures.sh DTSIM OUTDIR}
out=${2:?usage: pictures.sh DTSIM OUTDIR}
mkdir -p "$out"
"$dtsim" run --framework generic -q --strategy pipeline --gpus 4 -p dgx1-v100 -w vgg16 -b 64 --micro-batches 1 --timeline "$out/pipeline-m1.svg" > /dev/null
"$dtsim" run --framework generic -q --strategy pipeline --gpus 4 -p dgx1-v100 -w vgg16 -b 64 --micro-batches 8 --timeline "$out/pipeline-m8.svg" > /dev/null
