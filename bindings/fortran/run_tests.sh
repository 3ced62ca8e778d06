#!/usr/bin/env bash
# Build and run the Fortran binding against an installed gpusvd, with plain gfortran:
#   bindings/fortran/run_tests.sh PREFIX
# 1. abi_check.sh: gpusvd.f90 declares exactly the functions and constants of
#    PREFIX/include/gpusvd.h, with compatible types and equal values.
# 2. Compile the module and test_gpusvd.f90, link -lgpusvd, run (exit status 1 on failure).
set -euo pipefail
prefix=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
fc=${FC:-gfortran}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
libdir=$(dirname "$(find "$prefix" -name 'libgpusvd.so.0' | head -n 1)")

# --- 1. ABI check ---------------------------------------------------------------------------
CC="${CC:-cc}" FC="$fc" bash "$here/abi_check.sh" "$prefix/include/gpusvd.h"

# --- 2. Build and run the test program -------------------------------------------------------
cd "$work"
"$fc" -std=f2018 -O2 -c "$here/gpusvd.f90"
"$fc" -std=f2018 -O2 -fcheck=all "$here/test_gpusvd.f90" gpusvd.o -L"$libdir" -lgpusvd -o test_gpusvd
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ./test_gpusvd
