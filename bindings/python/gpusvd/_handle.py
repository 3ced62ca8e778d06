"""Handles: a Python object over gpusvdHandle_t, and a default handle per thread."""
import ctypes
import threading

from ._errors import GpusvdError
from ._lib import get_lib

_BACKENDS = {"auto": 0, "cpu": 1, "gpu": 2}
_BACKEND_NAMES = {1: "cpu", 2: "gpu"}


class Handle:
    """A gpusvd handle: backend choice, CUDA stream, Jacobi settings and the last error.

    ``Handle(backend="auto")``; ``backend`` is ``"auto"``, ``"cpu"`` or ``"gpu"`` (``"gpu"``
    without a usable device raises GpusvdError NO_DEVICE). Every function of the package takes
    ``handle=None`` (the calling thread's default handle, see ``default_handle()``) or a Handle.
    A Handle serialises its own calls with a lock, so sharing one between threads is safe (but
    runs them one at a time; use one handle per thread for parallel work).
    Use as a context manager or call ``close()``; it is also released when garbage-collected.
    """

    def __init__(self, backend="auto"):
        self._lib = get_lib()
        self._lock = threading.RLock()
        h = ctypes.c_void_p()
        status = self._lib.gpusvdCreate(ctypes.byref(h))
        if status != 0:
            raise GpusvdError("gpusvdCreate", status, self.status_name(status),
                              self._lib.gpusvdGetErrorMessage(None).decode())
        self._h = h
        if backend != "auto":
            self.set_backend(backend)

    # -- plumbing ------------------------------------------------------------------------------
    @property
    def ptr(self):
        """The raw gpusvdHandle_t (ctypes.c_void_p)."""
        if self._h is None:
            raise ValueError("gpusvd: this Handle is closed")
        return self._h

    def status_name(self, status):
        return self._lib.gpusvdGetStatusName(status).decode()

    def call(self, func, *args):
        """Call a C function ``func(handle, *args)``; raise GpusvdError on a non-SUCCESS status
        with the handle's error message (read under the same lock, so it is this call's)."""
        with self._lock:
            status = func(self.ptr, *args)
            if status != 0:
                detail = self._lib.gpusvdGetErrorMessage(self.ptr).decode()
                raise GpusvdError(func.__name__, status, self.status_name(status), detail)

    def close(self):
        """Destroy the C handle (idempotent)."""
        with self._lock:
            if getattr(self, "_h", None) is not None:
                self._lib.gpusvdDestroy(self._h)
                self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- settings ------------------------------------------------------------------------------
    def set_backend(self, backend):
        """Choose ``"auto"``, ``"cpu"`` or ``"gpu"`` (gpusvdSetBackend)."""
        if backend not in _BACKENDS:
            raise ValueError("gpusvd: backend must be 'auto', 'cpu' or 'gpu', not %r" % (backend,))
        self.call(self._lib.gpusvdSetBackend, _BACKENDS[backend])

    @property
    def backend(self):
        """The backend in force: ``"cpu"`` or ``"gpu"`` (AUTO resolved, gpusvdGetBackend)."""
        out = ctypes.c_int()
        self.call(self._lib.gpusvdGetBackend, ctypes.byref(out))
        return _BACKEND_NAMES[out.value]

    @property
    def stream(self):
        """The CUDA stream (an int address, 0 = legacy default stream) used by GPU work."""
        out = ctypes.c_void_p()
        self.call(self._lib.gpusvdGetStream, ctypes.byref(out))
        return out.value or 0

    @stream.setter
    def stream(self, stream):
        self.call(self._lib.gpusvdSetStream, ctypes.c_void_p(int(stream or 0)))

    def set_jacobi_tolerance(self, tol):
        """gpusvdSetJacobiTolerance: 0 restores the default sqrt(max(m,n)) * eps."""
        self.call(self._lib.gpusvdSetJacobiTolerance, float(tol))

    def set_jacobi_max_sweeps(self, sweeps):
        """gpusvdSetJacobiMaxSweeps (the CPU backend always uses LAPACK's 30)."""
        self.call(self._lib.gpusvdSetJacobiMaxSweeps, int(sweeps))

    def jacobi_stats(self):
        """(sweeps, off_norm) of the last svd/svd_batched call on this handle."""
        sweeps, off = ctypes.c_int(), ctypes.c_double()
        self.call(self._lib.gpusvdGetJacobiStats, ctypes.byref(sweeps), ctypes.byref(off))
        return sweeps.value, off.value

    def __repr__(self):
        if self._h is None:
            return "<gpusvd.Handle closed>"
        return "<gpusvd.Handle backend=%s>" % self.backend


_local = threading.local()


def default_handle():
    """The calling thread's default Handle (backend AUTO), created on first use. Each thread
    has its own, so the module-level functions are safe to call from many threads at once."""
    h = getattr(_local, "handle", None)
    if h is None:
        h = _local.handle = Handle()
    return h


def resolve(handle):
    return default_handle() if handle is None else handle
