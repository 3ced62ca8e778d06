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

#: The library major version these bindings were written against (gpusvd.h, 0.x).
ABI_MAJOR = 0

_vp, _int, _i64, _dbl = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_double

# Argument lists of the factorization routines: host and _gpu forms have the same ones.
# Every pointer is passed as an address (int); enums are ints.
_ROUTINES = {
    "gesvj": [_vp, _int, _int, _i64, _i64, _vp, _i64, _vp, _vp, _i64, _vp, _i64, _vp],
    "gesvj_batched": [_vp, _int, _int, _i64, _i64, _vp, _i64, _i64, _vp, _i64, _vp, _i64, _i64,
                      _vp, _i64, _i64, _i64, _vp],
    "geqrf_mgs": [_vp, _int, _i64, _i64, _vp, _i64, _vp, _i64, _vp],
    "geqrf_mgs_batched": [_vp, _int, _i64, _i64, _vp, _i64, _i64, _vp, _i64, _i64, _i64, _vp],
    "geev_batched": [_vp, _int, _i64, _vp, _i64, _i64, _vp, _vp, _i64, _vp, _i64, _i64, _i64,
                     _vp],
    "bdsvd": [_vp, _int, _int, _i64, _vp, _vp, _vp, _i64, _vp, _i64, _vp],
    "pca": [_vp, _i64, _i64, _vp, _i64, _i64, _vp, _i64, _vp, _vp, _i64, _vp, _vp],
}

_HANDLE_FUNCS = {
    "gpusvdCreate": ([ctypes.POINTER(_vp)], _int),
    "gpusvdDestroy": ([_vp], _int),
    "gpusvdSetBackend": ([_vp, _int], _int),
    "gpusvdGetBackend": ([_vp, ctypes.POINTER(_int)], _int),
    "gpusvdSetStream": ([_vp, _vp], _int),
    "gpusvdGetStream": ([_vp, ctypes.POINTER(_vp)], _int),
    "gpusvdSetJacobiTolerance": ([_vp, _dbl], _int),
    "gpusvdSetJacobiMaxSweeps": ([_vp, _int], _int),
    "gpusvdGetJacobiStats": ([_vp, ctypes.POINTER(_int), ctypes.POINTER(_dbl)], _int),
    "gpusvdGetErrorMessage": ([_vp], ctypes.c_char_p),
    "gpusvdGetStatusName": ([_int], ctypes.c_char_p),
    "gpusvdGetVersion": ([], _int),
    "gpusvdGetVersionString": ([], ctypes.c_char_p),
    "gpusvdGetBuildInfo": ([], ctypes.c_char_p),
}


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
    for name, (argtypes, restype) in _HANDLE_FUNCS.items():
        f = getattr(lib, name)
        f.argtypes, f.restype = argtypes, restype
    for routine, argtypes in _ROUTINES.items():
        for prec in "sd":
            for suffix in ("", "_gpu"):
                f = getattr(lib, "gpusvd_%s%s%s" % (prec, routine, suffix))
                f.argtypes, f.restype = argtypes, _int


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
