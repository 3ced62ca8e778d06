"""Loading libgpusvd.so.0 and declaring the C prototypes (ctypes).

Search order (the first that exists wins):

1. the environment variable ``GPUSVD_LIBRARY``: the full path of the library file;
2. ``libgpusvd.so.0`` next to this package (a copy placed in the ``gpusvd/`` folder);
3. ``libgpusvd.so.0`` through the dynamic loader's search path (``LD_LIBRARY_PATH``,
   ``/etc/ld.so.conf``, the RUNPATH of the interpreter), e.g. after
   ``cmake --install build --prefix /usr/local`` and ``ldconfig``.

The library is loaded on first use, so ``import gpusvd`` works without it.
"""
import ctypes
import os
import threading

from ._checks import C_INTEGERS, c_double, c_integer, c_pointer

#: The library major version these bindings were written against (gpusvd.h, 0.x).
ABI_MAJOR = 0

# The prototypes of gpusvd.h that the package calls, with their argument names: they give the
# ctypes argtypes and name the argument in the range checks of check_args. Enums are C ints;
# host and _gpu forms of a routine have the same arguments, as do its s and d forms.
_ROUTINES = {
    "gesvj": "gpusvdJob_t jobu, gpusvdJob_t jobv, int64_t m, int64_t n, void *A, int64_t lda, "
             "void *S, void *U, int64_t ldu, void *V, int64_t ldv, void *info",
    "gesvj_batched": "gpusvdJob_t jobu, gpusvdJob_t jobv, int64_t m, int64_t n, void *A, "
                     "int64_t lda, int64_t strideA, void *S, int64_t strideS, void *U, "
                     "int64_t ldu, int64_t strideU, void *V, int64_t ldv, int64_t strideV, "
                     "int64_t batchCount, void *info",
    "geqrf_mgs": "gpusvdOrth_t orth, int64_t m, int64_t n, void *A, int64_t lda, void *R, "
                 "int64_t ldr, void *info",
    "geqrf_mgs_batched": "gpusvdOrth_t orth, int64_t m, int64_t n, void *A, int64_t lda, "
                         "int64_t strideA, void *R, int64_t ldr, int64_t strideR, "
                         "int64_t batchCount, void *info",
    "geev_batched": "gpusvdJob_t jobvr, int64_t n, void *A, int64_t lda, int64_t strideA, "
                    "void *wr, void *wi, int64_t strideW, void *VR, int64_t ldvr, "
                    "int64_t strideVR, int64_t batchCount, void *info",
    "bdsvd": "gpusvdUplo_t uplo, gpusvdJob_t jobz, int64_t n, void *d, void *e, void *U, "
             "int64_t ldu, void *VT, int64_t ldvt, void *info",
    "pca": "int64_t m, int64_t n, void *X, int64_t ldx, int64_t k, void *components, "
           "int64_t ldc, void *explainedVariance, void *scores, int64_t lds, void *mean, "
           "void *info",
}

_HANDLE_FUNCS = {
    "gpusvdCreate": ("void **handle", "int"),
    "gpusvdDestroy": ("void *handle", "int"),
    "gpusvdSetBackend": ("void *handle, gpusvdBackend_t backend", "int"),
    "gpusvdGetBackend": ("void *handle, int *resolved", "int"),
    "gpusvdSetStream": ("void *handle, void *cudaStream", "int"),
    "gpusvdGetStream": ("void *handle, void **cudaStream", "int"),
    "gpusvdSetJacobiTolerance": ("void *handle, double tol", "int"),
    "gpusvdSetJacobiMaxSweeps": ("void *handle, int maxSweeps", "int"),
    "gpusvdGetJacobiStats": ("void *handle, int *sweeps, double *offNorm", "int"),
    "gpusvdGetErrorMessage": ("void *handle", "char *"),
    "gpusvdGetStatusName": ("gpusvdStatus_t status", "char *"),
    "gpusvdGetVersion": ("", "int"),
    "gpusvdGetVersionString": ("", "char *"),
    "gpusvdGetBuildInfo": ("", "char *"),
}

_ENUMS = ("gpusvdJob_t", "gpusvdOrth_t", "gpusvdUplo_t", "gpusvdBackend_t", "gpusvdStatus_t")
_CTYPES = dict({
    "int": ctypes.c_int, "int64_t": ctypes.c_int64, "double": ctypes.c_double,
    "void *": ctypes.c_void_p, "char *": ctypes.c_char_p,
    "void **": ctypes.POINTER(ctypes.c_void_p), "int *": ctypes.POINTER(ctypes.c_int),
    "double *": ctypes.POINTER(ctypes.c_double),
}, **{e: ctypes.c_int for e in _ENUMS})


def _parse(params):
    """'int64_t m, void *A' -> [('m', 'int64_t'), ('A', 'void *')]."""
    out = []
    for p in filter(None, (p.strip() for p in params.split(","))):
        ctype, name = p.rsplit(" ", 1)
        stars = len(name) - len(name.lstrip("*"))
        out.append((name[stars:], ctype + (" " + "*" * stars if stars else "")))
    return out


#: C function name -> its [(argument name, C type)], the handle first where it takes one.
SIGNATURES = {name: _parse(params) for name, (params, _) in _HANDLE_FUNCS.items()}
for _r, _params in _ROUTINES.items():
    for _prec in "sd":
        for _suffix in ("", "_gpu"):
            SIGNATURES["gpusvd_%s%s%s" % (_prec, _r, _suffix)] = _parse(
                "void *handle, " + _params)


def check_args(name, args):
    """The arguments of C function `name`, range-checked (see _checks): integers and enums
    must fit their C type, doubles be finite, void * be None, an address or a ctypes.c_void_p.
    Out-pointers (int *, ...) are left to ctypes, which accepts only matching ctypes objects."""
    sig = SIGNATURES[name]
    if len(args) != len(sig):
        raise TypeError("%s takes %d arguments, %d given" % (name, len(sig), len(args)))
    out = []
    for (arg, ctype), value in zip(sig, args):
        if ctype in _ENUMS:
            ctype = "int"
        if ctype == "double":
            value = c_double(value, arg, name)
        elif ctype == "void *":
            if not isinstance(value, ctypes.c_void_p):
                value = c_pointer(value, arg, name)
        elif ctype in C_INTEGERS:
            value = c_integer(value, arg, ctype, name)
        out.append(value)
    return out


class LibraryNotFoundError(ImportError):
    """libgpusvd.so.0 could not be loaded (the message lists every place tried)."""


_lock = threading.Lock()
_lib = None


def _candidates():
    env = os.environ.get("GPUSVD_LIBRARY")
    if env:
        # An explicit choice is final: no silent fallback to another copy.
        return [env]
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libgpusvd.so.0")
    return ([here] if os.path.exists(here) else []) + ["libgpusvd.so.0"]


def _declare(lib):
    for name, sig in SIGNATURES.items():
        f = getattr(lib, name)
        f.argtypes = [_CTYPES[ctype] for _, ctype in sig]
        f.restype = _CTYPES[_HANDLE_FUNCS[name][1]] if name in _HANDLE_FUNCS else ctypes.c_int


def get_lib():
    """The loaded library (ctypes.CDLL) with every prototype declared; loads it on first call."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            errors = []
            for path in _candidates():
                try:
                    lib = ctypes.CDLL(path)
                    break
                except OSError as exc:
                    errors.append("%s: %s" % (path, exc))
            else:
                raise LibraryNotFoundError(
                    "gpusvd: cannot load libgpusvd.so.0 (set GPUSVD_LIBRARY to its full path, "
                    "or add its folder to LD_LIBRARY_PATH). Tried:\n  " + "\n  ".join(errors))
            _declare(lib)
            major = lib.gpusvdGetVersion() // 10000
            if major != ABI_MAJOR:
                raise LibraryNotFoundError(
                    "gpusvd: the loaded library (%s) is version %s; these bindings need %d.x"
                    % (path, lib.gpusvdGetVersionString().decode(), ABI_MAJOR))
            _lib = lib
    return _lib


def routine(name, dtype, device=False):
    """The C function for routine `name` ('gesvj', ...) in the precision of numpy `dtype`."""
    prec = {4: "s", 8: "d"}[dtype.itemsize]
    return getattr(get_lib(), "gpusvd_%s%s%s" % (prec, name, "_gpu" if device else ""))
