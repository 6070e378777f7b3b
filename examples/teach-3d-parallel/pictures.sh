#!/bin/sh
# Draw the pictures of examples/teach-3d-parallel/README.md.
#   usage: pictures.sh DTSIM OUTDIR
# `make examples` writes them into the source tree; the test draws them into
# a scratch directory and compares them with the committed ones.
set -e
dtsim=${1:?usage: pictures.sh DTSIM OUTDIR}
out=${2:?usage: pictures.sh DTSIM OUTDIR}
mkdir -p "$out"
"$dtsim" run --framework generic -q -w gpt3-1.3b -p dgxa100-x8 --strategy hybrid --stages 4 --tensor-parallel 4 -b 16 --micro-batches 16 --mesh "$out/mesh-tp4.svg" > /dev/null
"$dtsim" run --framework generic -q -w gpt3-1.3b -p dgxa100-x8 --strategy hybrid --stages 4 --tensor-parallel 16 -b 16 --micro-batches 16 --mesh "$out/mesh-tp16.svg" > /dev/null
