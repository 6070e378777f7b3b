#!/bin/sh
# build.sh - compile measure-kernels.cu for Hopper (sm_90) with cudart linked
# statically; cuDNN and cuBLAS stay shared (NVIDIA ships no static cuDNN 9).
#
# usage: build.sh [OUTPUT]          (default: measure-kernels beside this file)
# env:   NVCC (nvcc on PATH, else /usr/local/cuda/bin/nvcc),
#        CUDNN_INCLUDE, CUDNN_LIB, CUBLAS_INCLUDE, CUBLAS_LIB: extra -I/-L dirs
#        where cuDNN or cuBLAS are not in the toolkit's own directories.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/measure-kernels}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
flags=""
for d in ${CUDNN_INCLUDE:-} ${CUBLAS_INCLUDE:-}; do flags="$flags -I$d"; done
for d in ${CUDNN_LIB:-} ${CUBLAS_LIB:-}; do flags="$flags -L$d"; done
# -l:NAME.so.MAJOR links where only the versioned file exists (Python wheels)
lib_cudnn=-lcudnn
lib_cublas=-lcublas
if [ -n "${CUDNN_LIB:-}" ] && [ ! -e "$CUDNN_LIB/libcudnn.so" ]; then lib_cudnn=-l:libcudnn.so.9; fi
if [ -n "${CUBLAS_LIB:-}" ] && [ ! -e "$CUBLAS_LIB/libcublas.so" ]; then
  lib_cublas="-l:libcublas.so.13 -l:libcublasLt.so.13"
fi
# shellcheck disable=SC2086
"$nvcc" -O2 -std=c++17 -Xcompiler -Wall \
  -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
  -cudart static $flags -o "$out" "$here/measure-kernels.cu" $lib_cudnn $lib_cublas
echo "build.sh: built $out"
