#!/usr/bin/env bash
# Build and run the consumers (C/pkg-config, CMake, dlopen, Fortran, Python) against an
# installed gpusvd: ./run_consumers.sh PREFIX
set -euo pipefail
prefix=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
libdir=$(dirname "$(find "$prefix" -name 'libgpusvd.so.0' | head -n 1)")
export PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

echo "== C via pkg-config"
cc "$here/c_pkgconfig/svd.c" $(pkg-config --cflags --libs gpusvd) -lm -o "$work/svd"
"$work/svd"

echo "== CMake find_package(gpusvd)"
cmake -S "$here/cmake_find_package" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
"$work/cmake/qr_example"

echo "== dlopen + dlsym"
cc "$here/dlopen/dlopen.c" -I"$prefix/include" -ldl -lm -o "$work/dlopen"
"$work/dlopen"

echo "== Fortran (ISO_C_BINDING)"
gfortran "$here/fortran/svd.f90" -L"$libdir" -lgpusvd -o "$work/svd_f"
"$work/svd_f"

echo "== Python (ctypes)"
python3 "$here/python/svd_ctypes.py"
