#!/usr/bin/env bash
# Runs the Python package's tests from this source tree (bindings/python/gpusvd) against a
# library built or installed with CMake, in a fresh virtual environment.
# Usage: bindings/python/run_tests.sh LIBRARY
#   LIBRARY: the file libgpusvd.so.0, the folder holding it (e.g. build/src), or an install
#            prefix (PREFIX/lib, lib64 or lib/<multiarch> is searched).
# The venv reuses the system's numpy/scipy/pytest (--system-site-packages) and installs them
# from PyPI only where they are missing. The installed wheel is tested by .ci/wheel.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 LIBRARY (file, folder or install prefix)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)

lib=""
if [ -f "$1" ]; then
  lib=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
else
  for d in . lib lib64 lib/x86_64-linux-gnu lib/aarch64-linux-gnu; do
    if [ -e "$1/$d/libgpusvd.so.0" ]; then lib=$(cd "$1/$d" && pwd)/libgpusvd.so.0; break; fi
  done
fi
[ -n "$lib" ] || { echo "$0: no libgpusvd.so.0 at $1 (nor in its lib folders)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv --system-site-packages "$work/venv"
py="$work/venv/bin/python"
# scikit-learn, matplotlib and Dask are optional for users, not for the tests (the estimator
# checks, the plots and gpusvd.dask on a local cluster run against them).
missing=$(for m in numpy:numpy scipy:scipy pytest:pytest sklearn:scikit-learn \
                   matplotlib:matplotlib 'dask.array:dask[array]' distributed:distributed; do
  "$py" -c "import ${m%%:*}" 2>/dev/null || echo "${m#*:}"; done)
[ -z "$missing" ] || (set -f; "$py" -m pip install -q $missing)  # no globbing of dask[array]

cd "$work"  # nothing from the current folder on the import path but the package itself
export GPUSVD_LIBRARY="$lib" PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
"$py" -c 'import gpusvd, sys; assert gpusvd.__file__.startswith(sys.argv[1]), gpusvd.__file__' "$here/"
"$py" -m pytest -q -rs -p no:cacheprovider "$here/tests"

# The numpy example of examples/ runs with the same package and library.
"$py" "$here/../../examples/python/svd_numpy.py"
