#!/usr/bin/env bash
# Build and run the Fortran binding against an installed gpusvd:
#   bindings/fortran/run_tests.sh PREFIX
# 1. abi_check.sh: the installed module source, PREFIX/include/gpusvd/gpusvd.f90 (the same as
#    this folder's), declares exactly the functions and constants of PREFIX/include/gpusvd.h,
#    with compatible types and equal values.
# 2. Compile test_gpusvd.f90 with nothing but what `pkg-config gpusvd-fortran` gives: the
#    installed gpusvd.mod (compiled from that source) and libgpusvd_fortran.a + libgpusvd; run it
#    (exit status 1 on failure). The compiler is the one the .mod was written by (FC overrides).
set -euo pipefail
prefix=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
libdir=$(dirname "$(find "$prefix" -name 'libgpusvd.so.0' | head -n 1)")
export PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
if ! pkg-config --exists gpusvd-fortran; then
  echo "$0: no gpusvd-fortran.pc under $libdir/pkgconfig (gpusvd built without a Fortran compiler?)" >&2
  exit 1
fi
fc=${FC:-$(pkg-config --variable=fc gpusvd-fortran)}
module_src="$prefix/include/gpusvd/gpusvd.f90"
if ! cmp -s "$module_src" "$here/gpusvd.f90"; then
  echo "$0: $module_src differs from $here/gpusvd.f90: install this tree first" >&2
  exit 1
fi

# --- 1. ABI check ---------------------------------------------------------------------------
CC="${CC:-cc}" FC="$fc" bash "$here/abi_check.sh" "$prefix/include/gpusvd.h" "$module_src"

# --- 2. Build and run the test program -------------------------------------------------------
echo "gpusvd-fortran $(pkg-config --modversion gpusvd-fortran):" \
     "$(pkg-config --variable=fortran_compiler gpusvd-fortran), $(pkg-config --variable=fmoddir gpusvd-fortran)"
cd "$work"   # no gpusvd.mod here: `use gpusvd` can only find the installed one
cp "$here/test_gpusvd.f90" .
"$fc" -std=f2018 -O2 -fcheck=all test_gpusvd.f90 $(pkg-config --cflags --libs gpusvd-fortran) -o test_gpusvd
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ./test_gpusvd
