#!/bin/sh
# check.sh - what can be checked of measure-kernels without a GPU.
#
# usage: tools/measure-kernels/check.sh [DTSIM]
#   1. the committed shape lists are what gen-shapes.py writes;
#   2. with DTSIM (a built dtsim), they match the shipped zoo layer by layer;
#   3. where nvcc and cuDNN are installed, measure-kernels builds, accepts the
#      shape lists (--dry-run) and rejects malformed ones with the line named;
#   4. where some python3 has PyTorch, measure-torch.py runs on the CPU and
#      writes the same header as the binary.
# Exit 0 when every check that could run passed, 1 otherwise.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dtsim=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
pass () { echo "PASS: $1"; }
flunk () { echo "FAIL: $1"; fail=1; }
skip () { echo "SKIP: $1"; }

python3 "$here/gen-shapes.py" --outdir "$tmp" 2>/dev/null
if cmp -s "$tmp/shapes-conv.csv" "$here/shapes-conv.csv" \
   && cmp -s "$tmp/shapes-gemm.csv" "$here/shapes-gemm.csv"; then
  pass "shape lists up to date"
else
  flunk "shape lists differ from gen-shapes.py output (rerun it)"
fi

if [ -n "$dtsim" ]; then
  if python3 "$here/gen-shapes.py" --check-zoo "$dtsim"; then pass "zoo agreement"
  else flunk "zoo agreement"; fi
else
  skip "zoo agreement (no dtsim given)"
fi

nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$nvcc" ] && [ -n "$(find /usr/local /usr/include -name cudnn.h 2>/dev/null | head -1)" ]; then
  if NVCC=$nvcc "$here/build.sh" "$tmp/mk" >/dev/null 2>"$tmp/build.err"; then
    pass "build"
    if "$tmp/mk" --conv "$here/shapes-conv.csv" --gemm "$here/shapes-gemm.csv" --dry-run \
         2>&1 | grep -q '657 conv and 81 GEMM shapes'; then pass "dry run"
    else flunk "dry run"; fi
    printf 'W,H,C,N,K,filter_w,filter_h,pad_w,pad_h,stride_w,stride_h,groups,out_w,out_h\n# x\n7,7,3,2,4,3,3,1,1,1,1,1,7,7\n7,7,3,2,4,3,3,1,1,1,1,1,8,7\n' > "$tmp/bad.csv"
    "$tmp/mk" --conv "$tmp/bad.csv" --gemm "$here/shapes-gemm.csv" --dry-run > "$tmp/out" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && grep -q "line 4: out_w,out_h 8,7 disagree" "$tmp/out"; then pass "bad conv row"
    else flunk "bad conv row (rc $rc: $(cat "$tmp/out"))"; fi
    printf 'M,N,K,transA,transB\n1,2,3,N,X\n' > "$tmp/bad.csv"
    "$tmp/mk" --conv "$here/shapes-conv.csv" --gemm "$tmp/bad.csv" --dry-run > "$tmp/out" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && grep -q "line 2: transB is 'X'" "$tmp/out"; then pass "bad GEMM row"
    else flunk "bad GEMM row (rc $rc: $(cat "$tmp/out"))"; fi
    "$tmp/mk" --conv a --gemm b --precisions fp64 > "$tmp/out" 2>&1
    rc=$?
    if [ $rc -eq 2 ]; then pass "bad option"; else flunk "bad option (rc $rc)"; fi
  else
    flunk "build: $(tail -3 "$tmp/build.err")"
  fi
else
  skip "build (no nvcc or cudnn.h)"
fi

torch_py=""
for py in python3 /usr/bin/python3; do
  if "$py" -c 'import torch' 2>/dev/null; then torch_py=$py; break; fi
done
if [ -n "$torch_py" ]; then
  printf 'W,H,C,N,K,filter_w,filter_h,pad_w,pad_h,stride_w,stride_h,groups,app\n14,14,8,2,16,3,3,1,1,2,2,1,a\n9,9,8,2,8,3,3,1,1,1,1,8,dw\n7,7,4,2,8,1,7,0,3,1,1,1,asym\n' > "$tmp/c.csv"
  printf 'M,N,K,transA,transB,pass,app\n10,4,20,N,N,fwd,a\n20,4,10,T,N,bwd_data,a\n10,20,4,N,T,bwd_filter,a\n' > "$tmp/g.csv"
  if "$torch_py" "$here/measure-torch.py" --device cpu --conv "$tmp/c.csv" --gemm "$tmp/g.csv" \
       --out-conv "$tmp/oc.csv" --out-gemm "$tmp/og.csv" --precisions fp32,bf16 --runs 2 \
       --warmup 1 2>"$tmp/err" \
     && [ "$(grep -c '^train,' "$tmp/oc.csv")" -eq 6 ] && [ "$(grep -c '^train,' "$tmp/og.csv")" -eq 6 ] \
     && grep -q '^train,cpu,.*,9,9,8,2,8,3,3,1,1,1,1,8,9,9,' "$tmp/oc.csv" \
     && grep -q '^mode,device,cuda,dnnlib,precision,app,W,H,C,N,K,filter_w,filter_h,pad_w,pad_h,stride_w,stride_h,groups,out_w,out_h,fwd_ms,bwd_data_ms,bwd_filter_ms,fwd_algo,bwd_data_algo,bwd_filter_algo,layout,queued,source$' "$tmp/oc.csv" \
     && grep -q '^mode,device,cuda,dnnlib,precision,app,M,N,K,transA,transB,pass,time_ms,queued,source$' "$tmp/og.csv"; then
    pass "measure-torch.py on the CPU"
  else
    flunk "measure-torch.py on the CPU: $(tail -3 "$tmp/err")"
  fi
else
  skip "measure-torch.py (no PyTorch)"
fi
[ $fail -eq 0 ]
