#!/bin/sh
# Forward time under tests/cli/frameworks/speed-spread.conf (gpu-speed-spread
# 0.05 and nothing else) over a spread-free run, for dp and hybrid on the 64
# GPUs of dgxa100-x8 and for a 2-stage pipeline. Usage: speed-spread.sh BINDIR SRCDIR
set -e
dtsim="$1/dtsim"
fw="$2/tests/cli/frameworks/speed-spread.conf"
fwd() {
  s=$1
  shift
  if [ "$s" = dp ]; then set -- "$@"; else set -- --stages 2 "$@"; fi
  "$dtsim" run -p dgxa100-x8 -w resnet50 -i 3 --strategy "$s" "$@" -f json -q |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["breakdown"]["forward_s"])'
}
for s in dp hybrid pipeline; do
  a=$(fwd "$s")
  b=$(fwd "$s" --framework "$fw")
  python3 -c "import sys; print('%s: %.6f' % (sys.argv[1], float(sys.argv[3]) / float(sys.argv[2])))" "$s" "$a" "$b"
done
