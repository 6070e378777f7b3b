#!/bin/sh
# Draw the pictures of examples/teach-overlap/README.md.
#   usage: pictures.sh DTSIM OUTDIR
# `make examples` writes them into the source tree; the test draws them into
# a scratch directory and compares them with the committed ones.
set -e
dtsim=${1:?usage: pictures.sh DTSIM OUTDIR}
out=${2:?usage: pictures.sh DTSIM OUTDIR}
mkdir -p "$out"
"$dtsim" run --framework generic -q --gpus 8 --set 'link:*-ib.bandwidth=25Gbps' --timeline "$out/overlap-on.svg" > /dev/null
"$dtsim" run --framework generic -q --gpus 8 --set 'link:*-ib.bandwidth=25Gbps' --no-overlap --timeline "$out/overlap-off.svg" > /dev/null
