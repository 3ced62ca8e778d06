"""Loading libgpusvd.so.0 and declaring the C prototypes (ctypes).

Where the library is found (the first that exists wins):

1. the environment variable ``GPUSVD_LIBRARY``: the library file, or a folder holding
   ``libgpusvd.so.0``. When set it is the only place tried: a value naming nothing loadable
   raises LibraryNotFoundError, never a silent fallback to another copy;
2. ``libgpusvd.so.0`` inside this package's folder, where the wheel puts it;
3. ``libgpusvd.so.0`` through the dynamic loader's search path (``LD_LIBRARY_PATH``,
   ``/etc/ld.so.conf``), e.g. after ``cmake --install build --prefix /usr/local`` and
   ``ldconfig``.

cuBLAS: the library opens ``libcublas.so.<major>`` (the major of the CUDA toolkit it was
built with) by that name on its first GPU call that needs it. When NVIDIA's cuBLAS wheel of
that major is installed (``nvidia/cu<major>/lib`` from CUDA 13 on, ``nvidia/cublas/lib``
before, under any ``sys.path`` entry), its ``libcublasLt`` and ``libcublas`` are loaded here
with ``RTLD_GLOBAL`` right after the library, so the library's lookup by name finds them;
otherwise the loader finds the system's cuBLAS (or none, and the paths that need it say so).

The library is loaded on first use, so ``import gpusvd`` works without it.
"""
import ctypes
import mmap
import os
import re
import sys
import threading

from ._checks import C_INTEGERS, c_double, c_integer, c_pointer

#: The library major version these bindings were written against (gpusvd.h, 0.x).
ABI_MAJOR = 0

# The prototypes of gpusvd.h that the package calls, with their argument names: they give the
# ctypes argtypes and name the argument in the range checks of check_args. Enums are C ints;
# host and _gpu forms of a routine have the same arguments, as do its s and d forms, and its c
# and z forms (complex elements as two reals, real part first: numpy's complex64/complex128),
# which every routine but bdsvd has; complex geev takes one eigenvalue array W.
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

_COMPLEX_ROUTINES = dict(
    {r: p for r, p in _ROUTINES.items() if r != "bdsvd"},
    geev_batched="gpusvdJob_t jobvr, int64_t n, void *A, int64_t lda, int64_t strideA, "
                 "void *W, int64_t strideW, void *VR, int64_t ldvr, int64_t strideVR, "
                 "int64_t batchCount, void *info")

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
    "gpusvdSetPcaMethod": ("void *handle, gpusvdPcaMethod_t method", "int"),
    "gpusvdGetPcaMethod": ("void *handle, int *method", "int"),
    "gpusvdGetPcaTotalVariance": ("void *handle, double *totalVariance", "int"),
    "gpusvdGetPcaTotalVariance_gpu": ("void *handle, void *totalVariance", "int"),
    "gpusvdSetMatrixLayout": ("void *handle, gpusvdLayout_t layout", "int"),
    "gpusvdGetMatrixLayout": ("void *handle, int *layout", "int"),
    "gpusvdGetErrorMessage": ("void *handle", "char *"),
    "gpusvdGetStatusName": ("gpusvdStatus_t status", "char *"),
    "gpusvdGetVersion": ("", "int"),
    "gpusvdGetVersionString": ("", "char *"),
    "gpusvdGetBuildInfo": ("", "char *"),
}

_ENUMS = ("gpusvdJob_t", "gpusvdOrth_t", "gpusvdUplo_t", "gpusvdBackend_t", "gpusvdStatus_t",
          "gpusvdPcaMethod_t", "gpusvdLayout_t")
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
for _precs, _table in (("sd", _ROUTINES), ("cz", _COMPLEX_ROUTINES)):
    for _r, _params in _table.items():
        for _prec in _precs:
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
        if type(value) is int and ctype in C_INTEGERS:
            # the common case (dimensions, addresses), checked here without c_integer's
            # conversions: every routine call passes a dozen of them
            lo, hi = C_INTEGERS[ctype]
            if lo <= value <= hi:
                out.append(value)
                continue
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


#: The file name the library is looked up by (its soname).
SONAME = "libgpusvd.so.%d" % ABI_MAJOR
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

_lock = threading.Lock()
_lib = None
_cublas = None


def _from_environment(value):
    """The library file that GPUSVD_LIBRARY names (a file, or a folder holding the soname)."""
    path = os.path.abspath(os.path.expanduser(value))
    if os.path.isdir(path):
        inside = os.path.join(path, SONAME)
        if not os.path.isfile(inside):
            raise LibraryNotFoundError(
                "gpusvd: GPUSVD_LIBRARY=%r is a folder without %s in it" % (value, SONAME))
        return inside
    if not os.path.exists(path):
        raise LibraryNotFoundError(
            "gpusvd: GPUSVD_LIBRARY=%r names no file or folder (give the path of %s or of "
            "the folder that holds it)" % (value, SONAME))
    return path


def candidates(environ=None, package_dir=_PACKAGE_DIR):
    """The places tried, in order (see the module docstring): a list of paths, or of the
    bare soname for the loader's own search."""
    value = (os.environ if environ is None else environ).get("GPUSVD_LIBRARY")
    if value:
        return [_from_environment(value)]
    here = os.path.join(package_dir, SONAME)
    return ([here] if os.path.isfile(here) else []) + [SONAME]


def load(environ=None, package_dir=_PACKAGE_DIR):
    """A new ctypes.CDLL of the first candidate that loads (no prototypes declared)."""
    errors = []
    for path in candidates(environ, package_dir):
        try:
            return ctypes.CDLL(path)
        except OSError as exc:
            errors.append("%s: %s" % (path, exc))
    env_hint = ("" if (os.environ if environ is None else environ).get("GPUSVD_LIBRARY") else
                " (set GPUSVD_LIBRARY to the file or its folder, or add the folder to "
                "LD_LIBRARY_PATH)")
    raise LibraryNotFoundError("gpusvd: cannot load %s%s. Tried:\n  %s"
                               % (SONAME, env_hint, "\n  ".join(errors)))


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def file_of(function):
    """The path of the shared object that defines ctypes function `function` (dladdr), as the
    loader opened it; None where dladdr cannot tell."""
    try:
        dladdr = ctypes.CDLL(None).dladdr
    except AttributeError:  # glibc before 2.34 has it in libdl only
        try:
            dladdr = ctypes.CDLL("libdl.so.2").dladdr
        except (OSError, AttributeError):
            return None
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
    info = _DlInfo()
    addr = ctypes.cast(function, ctypes.c_void_p).value
    if not dladdr(addr, ctypes.byref(info)) or not info.dli_fname:
        return None
    return os.fsdecode(info.dli_fname)


_CUBLAS_NAME = re.compile(rb"libcublas\.so\.([0-9]+)\x00")


def cublas_major(library_file):
    """The cuBLAS major version that `library_file` opens (the ``libcublas.so.<major>`` string
    in it), or None for a build without the CUDA backend."""
    with open(library_file, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        found = _CUBLAS_NAME.search(m)
        return int(found.group(1)) if found else None


def nvidia_cublas_dir(major, search_path=None):
    """The folder of NVIDIA's pip-installed cuBLAS of `major` (``nvidia/cu<major>/lib`` or
    ``nvidia/cublas/lib`` holding ``libcublas.so.<major>``) under the first entry of
    `search_path` (default sys.path) that has one, or None."""
    name = "libcublas.so.%d" % major
    for entry in (sys.path if search_path is None else search_path):
        for sub in (("nvidia", "cu%d" % major, "lib"), ("nvidia", "cublas", "lib")):
            folder = os.path.join(entry or os.curdir, *sub)
            if os.path.isfile(os.path.join(folder, name)):
                return os.path.abspath(folder)
    return None


def preload_cublas(major, search_path=None):
    """Load NVIDIA's pip-installed libcublasLt and libcublas of `major` with RTLD_GLOBAL (Lt
    first: libcublas needs it by name) so that a later dlopen("libcublas.so.<major>") finds
    them. Returns the files loaded ([] when no such wheel is installed); OSError if one of
    them does not load."""
    folder = nvidia_cublas_dir(major, search_path)
    if folder is None:
        return []
    loaded = []
    for stem in ("libcublasLt", "libcublas"):
        path = os.path.join(folder, "%s.so.%d" % (stem, major))
        if os.path.isfile(path):
            ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
            loaded.append(path)
    return loaded


def _setup_cublas(library_file):
    """Preload the cuBLAS wheel for the loaded library, before its first GPU call (it opens
    cuBLAS lazily). Returns (major or None, files preloaded, why the wheel's did not load)."""
    try:
        major = cublas_major(library_file)
    except (OSError, ValueError) as exc:
        return None, [], "cannot read %s: %s" % (library_file, exc)
    if major is None:
        return None, [], ""
    try:
        return major, preload_cublas(major), ""
    except OSError as exc:
        return major, [], str(exc)


def _declare(lib):
    for name, sig in SIGNATURES.items():
        f = getattr(lib, name, None)
        if f is None:  # newer than the loaded library: its callers check hasattr(lib, name)
            continue
        f.argtypes = [_CTYPES[ctype] for _, ctype in sig]
        f.restype = _CTYPES[_HANDLE_FUNCS[name][1]] if name in _HANDLE_FUNCS else ctypes.c_int


def get_lib():
    """The loaded library (ctypes.CDLL) with every prototype declared; loads it on first call."""
    global _lib, _cublas
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            lib = load()
            _declare(lib)
            major = lib.gpusvdGetVersion() // 10000
            if major != ABI_MAJOR:
                raise LibraryNotFoundError(
                    "gpusvd: the loaded library (%s) is version %s; these bindings need %d.x"
                    % (file_of(lib.gpusvdGetVersion) or lib._name,
                       lib.gpusvdGetVersionString().decode(), ABI_MAJOR))
            _cublas = _setup_cublas(file_of(lib.gpusvdGetVersion) or lib._name)
            _lib = lib
    return _lib


def library_file():
    """The path of the loaded library file (loading it first)."""
    lib = get_lib()
    return file_of(lib.gpusvdGetVersion) or lib._name


def cublas_source(probe_system=False):
    """Where the loaded library's cuBLAS comes from, in words (loading the library first).
    With `probe_system`, a cuBLAS left to the loader is looked up now (and stays loaded)."""
    get_lib()
    major, loaded, error = _cublas
    if major is None:
        return "unknown (%s)" % error if error else "not used (this build has no CUDA backend)"
    name = "libcublas.so.%d" % major
    if loaded:
        return "%s from the NVIDIA wheel in %s" % (name, os.path.dirname(loaded[-1]))
    why = ("the NVIDIA wheel's copy failed to load (%s)" % error if error
           else "no NVIDIA cuBLAS wheel installed")
    if not probe_system:
        return "%s from the system's loader path (%s)" % (name, why)
    try:
        found = file_of(ctypes.CDLL(name).cublasCreate_v2)
    except (OSError, AttributeError) as exc:
        return "%s not found: %s; the GPU paths that need it report so (%s)" % (name, why, exc)
    return "%s from the system: %s (%s)" % (name, found, why)


def routine(name, dtype, device=False):
    """The C function for routine `name` ('gesvj', ...) in the precision of numpy `dtype`
    (float32 s, float64 d, complex64 c, complex128 z)."""
    prec = {("f", 4): "s", ("f", 8): "d", ("c", 8): "c", ("c", 16): "z"}[
        (dtype.kind, dtype.itemsize)]
    return getattr(get_lib(), "gpusvd_%s%s%s" % (prec, name, "_gpu" if device else ""))
