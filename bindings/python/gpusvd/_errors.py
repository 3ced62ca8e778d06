"""Exceptions of the gpusvd package."""
from __future__ import annotations

from typing import Any

import numpy as np

STATUS_NAMES = {
    0: "SUCCESS", 1: "INVALID_VALUE", 2: "ALLOC_FAILED", 3: "NO_DEVICE", 4: "NOT_SUPPORTED",
    5: "EXECUTION_FAILED", 6: "INTERNAL_ERROR",
}

#: info value of a matrix that holds NaN or Inf (GPUSVD_INFO_NONFINITE in gpusvd.h).
INFO_NONFINITE = -1


class GpusvdError(RuntimeError):
    """A gpusvd call returned a status other than SUCCESS.

    Attributes: ``status`` (int), ``status_name`` (e.g. ``"GPUSVD_STATUS_INVALID_VALUE"``),
    ``routine`` (the C function called) and ``detail`` (gpusvdGetErrorMessage() of the handle,
    which names the routine, the argument and its value).
    """

    def __init__(self, routine: str, status: int, status_name: str, detail: str) -> None:
        self.routine, self.status, self.status_name, self.detail = (
            routine, status, status_name, detail)
        super().__init__("%s returned %s: %s" % (routine, status_name, detail or "(no detail)"))


class InvalidValueError(GpusvdError, ValueError):
    """The library refused an argument (GPUSVD_STATUS_INVALID_VALUE), e.g. k > min(m, n) in
    pca: a GpusvdError that is also a ValueError, so that a bad value is a ValueError whether
    the package or the library finds it, as in numpy and scipy."""


def error_for_status(routine: str, status: int, status_name: str, detail: str) -> GpusvdError:
    """The exception for a non-SUCCESS status: InvalidValueError or GpusvdError."""
    cls = InvalidValueError if status == 1 else GpusvdError
    return cls(routine, status, status_name, detail)


class LinAlgError(np.linalg.LinAlgError):
    """A factorization did not succeed for some matrices (a subclass of
    ``numpy.linalg.LinAlgError``, like scipy's errors).

    ``info`` is the whole info array (shape ``()`` for one matrix, ``(batch,)`` for a batch),
    with gpusvd.h's meanings; ``failed`` the indices of the matrices that failed.
    """

    def __init__(self, message: str, info: Any) -> None:
        self.info = np.asarray(info)
        self.failed = np.flatnonzero(self.info.reshape(-1) > 0)
        super().__init__(message)
