#!/bin/sh
# run-device.sh - one measuring session on a GPU machine, results in OUTDIR.
#
# usage: tools/measure-kernels/run-device.sh OUTDIR
# env:   DEADLINE_S  seconds after which no new point is started (330)
#        PRECISIONS  order to measure in (fp32,fp16,bf16,tf32)
#        RUNS        timed calls per point (25)
#
# Picks the first instrument that works, in this order:
#   1. measure-kernels beside this script (built here by build.sh, carried);
#   2. measure-kernels built on the spot, where nvcc and cudnn.h exist;
#   3. measure-torch.py, where PyTorch sees a GPU.
# cuDNN and cuBLAS are looked up wherever the machine has them (the CUDA
# toolkit, or the NVIDIA wheels that PyTorch installs). Writes into OUTDIR:
#   conv.csv, gemm.csv  results, flushed row by row (partial on a cut-short run)
#   env.txt             GPU, driver, clocks, library paths and versions
#   run.log             everything printed
# Exits 0 when at least one point was measured.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run-device.sh OUTDIR}
deadline=${DEADLINE_S:-330}
precisions=${PRECISIONS:-fp32,fp16,bf16,tf32}
runs=${RUNS:-25}
mkdir -p "$out"
t0=$(date +%s)

elapsed () { echo $(( $(date +%s) - t0 )); }
remaining () { r=$((deadline - $(elapsed))); if [ "$r" -ge 1 ]; then echo "$r"; else echo 1; fi; }
data_rows () { if [ -f "$1" ]; then grep -vc -e '^#' -e '^mode,' "$1"; else echo 0; fi; }

# Python's site-packages first (the NVIDIA wheels PyTorch runs with), then the
# system's directories.
roots="$(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null) \
/usr/local /opt /usr/lib /usr/lib64"
found="$out/.found"
index_files () {
  # one walk of the file tree (slow file systems), at most 60 s
  for root in $roots; do [ -d "$root" ] && echo "$root"; done > "$found.roots"
  # shellcheck disable=SC2046
  timeout 60 find $(cat "$found.roots") \( -name 'libcudnn.so.9*' -o -name 'libcublas.so.13*' \
    -o -name 'libcublasLt.so.13*' -o -name 'libnvrtc.so.13*' -o -name cudnn.h \) \
    2>/dev/null | sort -u > "$found"
}
find_first () {
  while read -r root; do
    hit=$(grep "^$root/" "$found" | grep "/$1\$" | head -1)
    if [ -n "$hit" ]; then echo "$hit"; return; fi
  done < "$found.roots"
}

environment () {
  echo "date: $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
  echo "host: $(uname -srm)"
  grep -m1 'model name' /proc/cpuinfo
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit,pstate,temperature.gpu,clocks.sm,clocks.mem --format=csv
  nvidia-smi
  command -v nvcc && nvcc --version | tail -2
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "gpu", torch.cuda.is_available())' 2>&1 | tail -1
  echo "libcudnn: $cudnn_so"
  echo "libcublas: $cublas_so"
  echo "libcublasLt: $cublaslt_so"
  echo "libnvrtc: $nvrtc_so"
  echo "cudnn.h: $cudnn_h"
  echo "libraries and headers found:"
  cat "$found"
}

# Each instrument stops itself at its deadline; the timeout is for a hang.
run_c () {
  timeout --kill-after=10 $(($2 + 60)) "$1" --conv "$here/shapes-conv.csv" --gemm "$here/shapes-gemm.csv" \
    --out-conv "$out/conv.csv" --out-gemm "$out/gemm.csv" --precisions "$precisions" \
    --runs "$runs" --deadline-s "$2" --driver "$driver"
}

main () {
  index_files
  cudnn_so=$(find_first 'libcudnn.so.9')
  cublas_so=$(find_first 'libcublas.so.13')
  cublaslt_so=$(find_first 'libcublasLt.so.13')
  nvrtc_so=$(find_first 'libnvrtc.so.13')   # cuDNN's runtime-compiled engines
  cudnn_h=$(find_first 'cudnn.h')
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
  environment > "$out/env.txt" 2>&1
  echo "run-device: environment read in $(elapsed) s"
  libpath=""
  for f in "$cudnn_so" "$cublas_so" "$cublaslt_so" "$nvrtc_so"; do
    [ -n "$f" ] || continue
    d=$(dirname "$f")
    case ":$libpath:" in *":$d:"*) ;; *) libpath="$libpath${libpath:+:}$d" ;; esac
  done
  export LD_LIBRARY_PATH="$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "run-device: LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

  used=""
  bin="$here/measure-kernels"
  if [ -x "$bin" ] && ! ldd "$bin" | grep -q 'not found'; then
    echo "run-device: carried binary, $(elapsed) s"
    run_c "$bin" "$(remaining)"
    [ "$(data_rows "$out/conv.csv")" -gt 0 ] && used=carried
  else
    echo "run-device: carried binary missing or unloadable:"
    [ -x "$bin" ] && ldd "$bin" | grep 'not found'
  fi
  if [ -z "$used" ] && command -v nvcc >/dev/null && [ -n "$cudnn_h" ] && [ -n "$cudnn_so" ]; then
    echo "run-device: building on this machine, $(elapsed) s"
    if CUDNN_INCLUDE=$(dirname "$cudnn_h") CUDNN_LIB=$(dirname "$cudnn_so") \
       CUBLAS_LIB=$(dirname "$cublas_so") "$here/build.sh" /tmp/measure-kernels-built; then
      run_c /tmp/measure-kernels-built "$(remaining)"
      [ "$(data_rows "$out/conv.csv")" -gt 0 ] && used=built
    fi
  fi
  if [ -z "$used" ] && python3 -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
    echo "run-device: falling back to PyTorch, $(elapsed) s"
    timeout --kill-after=10 $(($(remaining) + 60)) \
      python3 "$here/measure-torch.py" --conv "$here/shapes-conv.csv" --gemm "$here/shapes-gemm.csv" \
      --out-conv "$out/conv.csv" --out-gemm "$out/gemm.csv" --precisions "$precisions" \
      --runs "$runs" --deadline-s "$(remaining)" --driver "$driver"
    [ "$(data_rows "$out/conv.csv")" -gt 0 ] && used=torch
  fi
  rm -f "$found" "$found.roots"
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv >> "$out/env.txt" 2>&1
  echo "run-device: instrument ${used:-none}; $(data_rows "$out/conv.csv") conv rows," \
       "$(data_rows "$out/gemm.csv") GEMM rows in $(elapsed) s"
  [ -n "$used" ]
}

export PYTHONUNBUFFERED=1
status_file=$(mktemp)
{ main; echo $? > "$status_file"; } 2>&1 | tee "$out/run.log"
rc=$(cat "$status_file")
rm -f "$status_file"
exit "$rc"
