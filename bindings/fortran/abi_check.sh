#!/usr/bin/env bash
# Check that the Fortran module gpusvd.f90 matches the C header, without running anything:
#   bindings/fortran/abi_check.sh path/to/gpusvd.h [path/to/gpusvd.f90]
# (gfortran >= 12 and a C compiler; FC and CC override gfortran and cc; the module defaults to
# the one next to this script)
# - functions: gfortran -fc-prototypes prints the C prototype of every bind(C) interface; the
#   header's prototypes, reduced to what Fortran can express, are declared in the same C file,
#   so any argument or return type that differs is a "conflicting types" error, and the two
#   sets of names must be equal;
# - constants: every GPUSVD_* enumerator and macro of the header is a parameter of the module,
#   with the value a C program compiled against the header prints.
set -euo pipefail
hdr=$1
case "$hdr" in *\;*) hdr=${hdr%%;*} ;; esac   # a CMake list of include dirs: take the first
[ -d "$hdr" ] && hdr="$hdr/gpusvd.h"
here=$(cd "$(dirname "$0")" && pwd)
module=${2:-$here/gpusvd.f90}
fc=${FC:-gfortran}
cc=${CC:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$fc" -fc-prototypes -fsyntax-only -J "$work" "$module" > "$work/f_protos.h"
# The header's prototypes, flattened one per line, rewritten to what Fortran can express and
# gfortran prints: handle, const char* (string results) and void** as void* (gfortran prints
# a c_ptr passed by reference as void*), the communicator as void*, its all-reduce callback as
# gfortran's int (*)() (type(c_funptr), value), enums as int, size_t as long (c_size_t), the
# complex structs as C99 complex (gfortran prints complex(c_float_complex) and
# complex(c_double_complex) as __GFORTRAN_FLOAT_COMPLEX / __GFORTRAN_DOUBLE_COMPLEX, which are
# float _Complex / double _Complex in C: same size and layout), and the device pointers of _gpu
# forms as void* (type(c_ptr), value).
"$cc" -E -P -x c "$hdr" | tr '\n' ' ' | sed 's/;/;\n/g' | grep -E '\bgpusvd[A-Za-z0-9_]*[[:space:]]*\(' \
  | grep -v typedef \
  | sed -E 's/\bgpusvd(Handle|Comm)_t\b/void */g; s/\bgpusvdAllreduceFn_t ([A-Za-z]+)/int (*\1)()/g;
           s/\bgpusvdComplex_t\b/float _Complex/g; s/\bgpusvdDoubleComplex_t\b/double _Complex/g;
           s/\bgpusvd[A-Za-z]*_t\b/int/g; s/\bsize_t\b/long/g;
           s/\bconst char \*/void */g; s/void \* ?\*/void */g;
           /_gpu[[:space:]]*\(/ s/(const )?\b((float|double) _Complex|float|double|int) \*/void */g' > "$work/c_protos.h"
names() { grep -oE '\bgpusvd[A-Za-z0-9_]*[[:space:]]*\(' "$1" | tr -d ' (' | sort -u; }
if ! diff <(names "$work/c_protos.h") <(names "$work/f_protos.h"); then
  echo "ABI check: functions of gpusvd.h (<) and of gpusvd.f90 (>) differ" >&2
  exit 1
fi
{ echo '#include <stdint.h>'; cat "$work/c_protos.h" "$work/f_protos.h"; } > "$work/abi_check.c"
if ! "$cc" -std=c11 -fsyntax-only -Werror "$work/abi_check.c"; then
  echo "ABI check: an interface in gpusvd.f90 does not match gpusvd.h (conflicting types above)" >&2
  exit 1
fi
# Constants: every GPUSVD_* enumerator/macro of the header is a parameter of the module, with
# the same value (the module's values printed by a C program compiled against the header).
"$cc" -fpreprocessed -dD -E -P -x c "$hdr" 2>/dev/null | grep -oE '\bGPUSVD_[A-Z0-9_]+\b' \
  | grep -vxE 'GPUSVD_(H|API|BUILDING_LIBRARY|ENUM_BASE)' | sort -u > "$work/h_consts"
sed -nE 's/^ *integer\(c_int\), parameter :: (GPUSVD_[A-Z0-9_]+) = (-?[0-9]+) *$/\1 \2/p' \
  "$module" | sort > "$work/f_consts"
# (GPUSVD_VERSION is an expression in the module: checked by the test program.)
if ! diff <(grep -vx GPUSVD_VERSION "$work/h_consts") <(cut -d' ' -f1 "$work/f_consts"); then
  echo "ABI check: GPUSVD_* constants of gpusvd.h (<) and gpusvd.f90 (>) differ" >&2
  exit 1
fi
{ echo '#include <stdio.h>'; echo '#include "gpusvd.h"'; echo 'int main(void) {';
  while read -r name _; do echo "  printf(\"%s %d\\n\", \"$name\", (int)($name));"; done < "$work/f_consts"
  echo '  return 0; }'; } > "$work/consts.c"
"$cc" -I"$(dirname "$hdr")" "$work/consts.c" -o "$work/consts"
if ! diff <("$work/consts") "$work/f_consts"; then
  echo "ABI check: values of GPUSVD_* constants in gpusvd.h (<) and gpusvd.f90 (>) differ" >&2
  exit 1
fi
echo "ABI check: $(names "$work/c_protos.h" | wc -l) functions and $(wc -l < "$work/f_consts") constants of $hdr match $module"
