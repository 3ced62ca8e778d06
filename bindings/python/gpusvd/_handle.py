"""Handles: a Python object over gpusvdHandle_t, and a default handle per thread."""
from __future__ import annotations

import contextlib
import ctypes
import threading
from typing import Iterator, Optional, Tuple

from ._checks import c_double, c_integer, c_pointer
from ._errors import error_for_status
from ._lib import SIGNATURES, check_args, get_lib

_BACKENDS = {"auto": 0, "cpu": 1, "gpu": 2}
_BACKEND_NAMES = {1: "cpu", 2: "gpu"}


class Handle:
    """A gpusvd handle: backend choice, CUDA stream, Jacobi settings and the last error.

    Every function of the package takes ``handle=None`` (the calling thread's default handle,
    see ``default_handle``) or a Handle.

    Parameters
    ----------
    backend : {'auto', 'cpu', 'gpu'}, default 'auto'
        Where work runs (gpusvdSetBackend). 'auto': the GPU when usable and the routine has
        GPU kernels, else the CPU.

    Raises
    ------
    GpusvdError
        ``backend="gpu"`` without a usable device (status NO_DEVICE), or the handle could not
        be created.
    ValueError, TypeError
        An unknown backend name, or not a str.

    Notes
    -----
    A Handle serialises its own calls with a lock, so sharing one between threads is safe (but
    runs them one at a time; use one handle per thread for parallel work). Use it as a context
    manager or call ``close()``; it is also released when garbage-collected.

    Examples
    --------
    >>> import numpy as np, gpusvd
    >>> with gpusvd.Handle(backend="cpu") as h:
    ...     s = gpusvd.svdvals(np.diag([3.0, 4.0]), handle=h)
    ...     sweeps, off = h.jacobi_stats()
    >>> s
    array([4., 3.])
    >>> sweeps >= 1
    True
    """

    def __init__(self, backend: str = "auto") -> None:
        self._lib = get_lib()
        self._lock = threading.RLock()
        h = ctypes.c_void_p()
        status = self._lib.gpusvdCreate(ctypes.byref(h))
        if status != 0:
            raise error_for_status("gpusvdCreate", status, self.status_name(status),
                                   self._lib.gpusvdGetErrorMessage(None).decode())
        self._h: Optional[ctypes.c_void_p] = h
        if backend != "auto":
            self.set_backend(backend)

    # -- plumbing ------------------------------------------------------------------------------
    @property
    def ptr(self) -> ctypes.c_void_p:
        """The raw gpusvdHandle_t (ctypes.c_void_p)."""
        if self._h is None:
            raise ValueError("gpusvd: this Handle is closed")
        return self._h

    def status_name(self, status: int) -> str:
        """gpusvdGetStatusName: e.g. 1 -> "GPUSVD_STATUS_INVALID_VALUE"."""
        name = "gpusvdGetStatusName"
        return self._lib.gpusvdGetStatusName(*check_args(name, (status,))).decode()

    def call(self, func, *args):
        """Call a C function ``func(handle, *args)`` after the range checks of check_args
        (every argument must fit its C type: OverflowError / TypeError before the call
        otherwise); raise GpusvdError on a non-SUCCESS status with the handle's error message
        (read under the same lock, so it is this call's)."""
        with self._lock:
            checked = check_args(func.__name__, (self.ptr,) + args)
            status = func(*checked)
            if status != 0:
                detail = self._lib.gpusvdGetErrorMessage(self.ptr).decode()
                raise error_for_status(func.__name__, status, self.status_name(status), detail)

    def close(self) -> None:
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

    def __enter__(self) -> "Handle":
        return self

    def __exit__(self, *exc):
        self.close()

    # -- settings ------------------------------------------------------------------------------
    def set_backend(self, backend: str) -> None:
        """Choose ``"auto"``, ``"cpu"`` or ``"gpu"`` (gpusvdSetBackend)."""
        if not isinstance(backend, str):
            raise TypeError("gpusvd: backend must be a str ('auto', 'cpu' or 'gpu'), not %s"
                            % type(backend).__name__)
        if backend not in _BACKENDS:
            raise ValueError("gpusvd: backend must be 'auto', 'cpu' or 'gpu', not %r" % (backend,))
        self.call(self._lib.gpusvdSetBackend, _BACKENDS[backend])

    @property
    def backend(self) -> str:
        """The backend in force: ``"cpu"`` or ``"gpu"`` (AUTO resolved, gpusvdGetBackend)."""
        out = ctypes.c_int()
        self.call(self._lib.gpusvdGetBackend, ctypes.byref(out))
        return _BACKEND_NAMES[out.value]

    @property
    def stream(self) -> int:
        """The CUDA stream (an int address, 0 = legacy default stream) used by GPU work. Set it
        to None, 0 or an address in [0, 2**64 - 1] (OverflowError outside, TypeError for a
        non-integer)."""
        out = ctypes.c_void_p()
        self.call(self._lib.gpusvdGetStream, ctypes.byref(out))
        return out.value or 0

    @stream.setter
    def stream(self, stream: Optional[int]) -> None:
        self.call(self._lib.gpusvdSetStream,
                  c_pointer(stream, "stream", "gpusvd.Handle.stream") or 0)

    def set_jacobi_tolerance(self, tol: float) -> None:
        """gpusvdSetJacobiTolerance: 0 restores the default sqrt(max(m,n)) * eps; otherwise
        it must be in (0, 1). ValueError for NaN, an infinity or a value outside that range;
        TypeError for a non-number (or a bool)."""
        tol = c_double(tol, "tol", "gpusvd.Handle.set_jacobi_tolerance",
                       lambda t: 0.0 <= t < 1.0, "0 (the default) or in (0, 1)")
        self.call(self._lib.gpusvdSetJacobiTolerance, tol)

    def set_jacobi_max_sweeps(self, sweeps: int) -> None:
        """gpusvdSetJacobiMaxSweeps, in [1, 2**20] (the CPU backend always uses LAPACK's 30).
        An integer that a C int cannot hold raises OverflowError; one outside [1, 2**20],
        InvalidValueError (a ValueError) with the library's message."""
        sweeps = c_integer(sweeps, "sweeps", "int", "gpusvd.Handle.set_jacobi_max_sweeps")
        self.call(self._lib.gpusvdSetJacobiMaxSweeps, sweeps)

    def jacobi_stats(self) -> Tuple[int, float]:
        """(sweeps, off_norm) of the last svd/svdvals call on this handle (gpusvdGetJacobiStats;
        for a stack, the largest over its matrices)."""
        sweeps, off = ctypes.c_int(), ctypes.c_double()
        self.call(self._lib.gpusvdGetJacobiStats, ctypes.byref(sweeps), ctypes.byref(off))
        return sweeps.value, off.value

    def __repr__(self):
        if self._h is None:
            return "<gpusvd.Handle closed>"
        return "<gpusvd.Handle backend=%s>" % self.backend


_local = threading.local()


def default_handle(device: Optional[int] = None, make=None) -> Handle:
    """The calling thread's default Handle (backend AUTO), created on first use. Each thread
    has its own, so the module-level functions are safe to call from many threads at once.

    A handle belongs to the CUDA device current when it is created (gpusvdCreate), so device
    arrays get one default handle per device: `device` is the array's device id and `make`
    creates the handle with that device current. ``default_handle()`` is the one for host
    arrays."""
    handles = getattr(_local, "handles", None)
    if handles is None:
        handles = _local.handles = {}
    h = handles.get(device)
    if h is None:
        h = handles[device] = make() if make is not None else Handle()
    return h


def has_row_major(lib) -> bool:
    """Whether the loaded library takes row-major matrices (gpusvdSetMatrixLayout; geqrf_mgs
    and pca) and this package has its prototype."""
    return "gpusvdSetMatrixLayout" in SIGNATURES and hasattr(lib, "gpusvdSetMatrixLayout")


@contextlib.contextmanager
def row_major(handle: Handle) -> Iterator[None]:
    """Run the block with the handle's matrix layout row-major (gpusvdSetMatrixLayout),
    restoring the previous layout afterwards; the handle's lock is held throughout, so another
    thread sharing the handle never sees the temporary layout."""
    lib = handle._lib
    with handle._lock:
        old = ctypes.c_int()
        handle.call(lib.gpusvdGetMatrixLayout, ctypes.byref(old))
        handle.call(lib.gpusvdSetMatrixLayout, 1)  # GPUSVD_LAYOUT_ROW_MAJOR
        try:
            yield
        finally:
            handle.call(lib.gpusvdSetMatrixLayout, old.value)


def resolve(handle: Optional[Handle], ops=None, anchor=None) -> Handle:
    """`handle`, or the default one for the device of `anchor` (an array of adapter `ops`)."""
    if handle is None:
        if ops is not None and ops.device:
            return default_handle(ops.device_id(anchor), lambda: ops.new_handle(anchor))
        return default_handle()
    if not isinstance(handle, Handle):
        raise TypeError("gpusvd: handle must be a gpusvd.Handle or None, not %s"
                        % type(handle).__name__)
    return handle
