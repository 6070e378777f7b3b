#!/bin/sh
# The README's one-picture ring all-reduce, in a temporary directory (the
# source tree may be read-only):
#   dtsim allreduce --platform dgx1-v100 --gpus 4 --size 64MB --svg ring.svg
# then the count of step boxes in the picture: 2(N-1) x N = 24.
set -e
dtsim="$1/dtsim"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$dtsim" allreduce --platform dgx1-v100 --gpus 4 --size 64MB --svg ring.svg
grep -c 'class=.step' ring.svg
