#!/usr/bin/env bash
# Build and run the consumers (C/pkg-config, CMake, dlopen, Fortran, Python) against an
# installed gpusvd: ./run_consumers.sh PREFIX
# Also checks the CMake package's version rule and, where libgpusvd.a is installed
# (GPUSVD_BUILD_STATIC), links the C and CMake examples statically.
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

echo "== CMake version rule: 0.x accepts only the same 0.x"
version=$(pkg-config --modversion gpusvd)
IFS=. read -r major minor patch <<< "$version"
mkdir -p "$work/version"
cat > "$work/version/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(gpusvd_version_check LANGUAGES NONE)
find_package(gpusvd ${REQUEST} REQUIRED)
CMAKE
if [ "$major" = 0 ]; then
  accept=("0.$minor" "0.$minor.$patch")
  reject=("0.$((minor - 1))" "0.$((minor + 1))" "0.$minor.$((patch + 1))" "1.0")
else
  accept=("$major" "$major.$minor")
  reject=("$((major - 1))" "$((major + 1))" "$major.$((minor + 1))")
fi
for request in "${accept[@]}" "${reject[@]}"; do
  rm -rf "$work/version/build"
  if cmake -S "$work/version" -B "$work/version/build" -DCMAKE_PREFIX_PATH="$prefix" \
       -DREQUEST="$request" > "$work/version/log" 2>&1; then
    found=yes
  elif grep -q 'considered but not accepted' "$work/version/log"; then
    found=no
  else
    cat "$work/version/log" >&2; exit 1   # refused for another reason than the version
  fi
  want=no
  for a in "${accept[@]}"; do [ "$a" = "$request" ] && want=yes; done
  echo "find_package(gpusvd $request) against $version: found=$found"
  [ "$found" = "$want" ] || { echo "expected found=$want" >&2; exit 1; }
done

if [ -e "$libdir/libgpusvd.a" ]; then
  echo "== C via pkg-config --static, libgpusvd.a"
  # libgpusvd.so lies next to the archive and -lgpusvd would pick it: name the archive.
  static_libs=$(pkg-config --static --libs gpusvd)
  cc "$here/c_pkgconfig/svd.c" $(pkg-config --cflags gpusvd) ${static_libs/-lgpusvd /-l:libgpusvd.a } \
     -o "$work/svd_static"
  if readelf -d "$work/svd_static" | grep -q 'NEEDED.*libgpusvd'; then
    echo "svd_static needs libgpusvd.so: not a static link" >&2; exit 1
  fi
  env -u LD_LIBRARY_PATH "$work/svd_static"

  echo "== CMake find_package(gpusvd COMPONENTS static), gpusvd::gpusvd_static"
  cmake -S "$here/cmake_find_package" -B "$work/cmake_static" -DCMAKE_PREFIX_PATH="$prefix" \
        -DGPUSVD_EXAMPLE_STATIC=ON >/dev/null
  cmake --build "$work/cmake_static" >/dev/null
  if readelf -d "$work/cmake_static/qr_example" | grep -q 'NEEDED.*libgpusvd'; then
    echo "qr_example needs libgpusvd.so: not a static link" >&2; exit 1
  fi
  env -u LD_LIBRARY_PATH "$work/cmake_static/qr_example"

  echo "== CMake, C only: gpusvd::gpusvd_static brings the C++ runtime"
  mkdir -p "$work/cmake_static_c"
  cat > "$work/cmake_static_c/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(gpusvd_static_c LANGUAGES C)
find_package(gpusvd $major.$minor REQUIRED COMPONENTS static)
add_executable(svd "$here/c_pkgconfig/svd.c")
target_link_libraries(svd PRIVATE gpusvd::gpusvd_static m)
CMAKE
  cmake -S "$work/cmake_static_c" -B "$work/cmake_static_c/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$work/cmake_static_c/build" >/dev/null
  env -u LD_LIBRARY_PATH "$work/cmake_static_c/build/svd"
else
  echo "== no libgpusvd.a under $libdir: static links not checked"
fi

echo "== dlopen + dlsym"
cc "$here/dlopen/dlopen.c" -I"$prefix/include" -ldl -lm -o "$work/dlopen"
"$work/dlopen"

echo "== Fortran (ISO_C_BINDING)"
gfortran "$here/fortran/svd.f90" -L"$libdir" -lgpusvd -o "$work/svd_f"
"$work/svd_f"

echo "== Python (ctypes)"
python3 "$here/python/svd_ctypes.py"
