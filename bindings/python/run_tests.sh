#!/usr/bin/env bash
# Installs the gpusvd Python package into a fresh virtual environment and runs its tests
# against the library installed under PREFIX (cmake --install build --prefix PREFIX).
# Usage: bindings/python/run_tests.sh PREFIX
# The venv reuses the system's numpy/scipy/pytest (--system-site-packages) and installs them
# from PyPI only where they are missing.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 PREFIX" >&2; exit 2; }
prefix=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)

lib=""
for d in lib lib64 lib/x86_64-linux-gnu; do
  if [ -e "$prefix/$d/libgpusvd.so.0" ]; then lib="$prefix/$d/libgpusvd.so.0"; break; fi
done
[ -n "$lib" ] || { echo "$0: no libgpusvd.so.0 under $prefix/lib*" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv --system-site-packages "$work/venv"
py="$work/venv/bin/python"
missing=$(for m in numpy scipy pytest; do "$py" -c "import $m" 2>/dev/null || echo "$m"; done)
[ -z "$missing" ] || "$py" -m pip install -q $missing
# A normal (isolated) build fetches setuptools from PyPI; offline, fall back to the
# environment's setuptools (needs setuptools >= 77, which reads the licence expression).
"$py" -m pip install -q "$here" || "$py" -m pip install -q --no-build-isolation "$here"

cd "$work"  # import the installed package, not the source folder
GPUSVD_LIBRARY="$lib" "$py" -m pytest -q -rs -p no:cacheprovider "$here/tests"

# The numpy example of examples/ runs with the same installed package.
GPUSVD_LIBRARY="$lib" "$py" "$here/../../examples/python/svd_numpy.py"
