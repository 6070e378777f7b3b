#!/bin/sh
# Draw the pictures of examples/teach-bandwidth/README.md.
#   usage: pictures.sh DTSIM OUTDIR
# `make examples` writes them into the source tree; the test draws them into
# a scratch directory and compares the two drawings.
set -e
dtsim=${1:?usage: pictures.sh DTSIM OUTDIR}
out=${2:?usage: pictures.sh DTSIM OUTDIR}
mkdir -p "$out"
for w in resnet50 vgg16; do
  "$dtsim" run --framework generic -q -w "$w" --gpus 8 --set 'link:*-ib.bandwidth=10Gbps' --timeline "$out/$w-10gbps.svg" > /dev/null
done
