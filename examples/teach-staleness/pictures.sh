#!/bin/sh
# Draw the pictures of examples/teach-staleness/README.md.
#   usage: pictures.sh DTSIM OUTDIR
# `make examples` writes them into the source tree; the test draws them into a
# scratch directory and compares them with the committed ones.
set -e
dtsim=${1:?usage: pictures.sh DTSIM OUTDIR}
out=${2:?usage: pictures.sh DTSIM OUTDIR}
mkdir -p "$out"
for policy in each merge; do
  "$dtsim" run --framework generic -q --strategy async-ps --ps-update $policy --gpus 4 --ps-placement own -i 5 \
    --set 'gpu:node1-gpu0.mem_bw=20GB/s' --timeline "$out/staleness-$policy.svg" > /dev/null
done
