#!/bin/sh
# The README's generated-platform what-if, in a temporary directory:
#   dtsim platform --nodes 8 --gpus-per-node 8 --gpu A100-SXM4-80GB --intra nvswitch -o my.xml
#   dtsim run --platform my.xml --trace trace.json
set -e
dtsim="$1/dtsim"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$dtsim" platform --nodes 8 --gpus-per-node 8 --gpu A100-SXM4-80GB --intra nvswitch -o my.xml
"$dtsim" run --platform my.xml --trace trace.json | grep -v wall
python3 -c "import json; t = json.load(open('trace.json')); print('trace is JSON with', 'traceEvents' in t and len(t['traceEvents']) > 0 and 'events' or 'no events')"
