"""gpusvd: numpy interface to libgpusvd (SVD, QR, eigenvalues, bidiagonal SVD, PCA on NVIDIA
GPUs with a LAPACK CPU backend), over ctypes.

Host numpy arrays use the library's host-pointer forms (the backend chosen by the handle:
AUTO = the GPU when usable and the routine has GPU kernels, else the CPU). CUDA arrays (CuPy,
torch, __cuda_array_interface__ / DLPack) use the ``_gpu`` forms on device memory.
See each function's docstring for copies, errors and info.
"""
from ._errors import INFO_NONFINITE, GpusvdError, InvalidValueError, LinAlgError
from ._handle import Handle, default_handle
from ._lib import LibraryNotFoundError, get_lib
from ._linalg import (EigResult, QRResult, SVDResult, bdsvd, eig, eig_batched, eigvals,
                      eigvals_batched, qr, qr_batched, svd, svd_batched, svdvals)
from ._pca import PCAResult, pca

__version__ = "0.2.0"

__all__ = [
    "svd", "svdvals", "svd_batched", "qr", "qr_batched", "eig", "eigvals", "eigvals_batched",
    "eig_batched", "SVDResult", "QRResult", "EigResult", "bdsvd", "pca",
    "PCAResult", "PCA", "Handle", "default_handle", "backend", "version", "build_info",
    "GpusvdError", "InvalidValueError", "LinAlgError", "LibraryNotFoundError", "INFO_NONFINITE",
]


def __getattr__(name):
    # gpusvd.PCA imports scikit-learn (for its base classes, when installed) and gpusvd.plot
    # matplotlib: both only on first use, not with the package.
    if name == "PCA":
        from ._estimator import PCA
        return PCA
    if name == "plot":
        import importlib
        return importlib.import_module(".plot", __name__)
    raise AttributeError("module 'gpusvd' has no attribute %r" % (name,))


def backend(handle=None):
    """'cpu' or 'gpu': where the handle (default: this thread's) runs work; AUTO resolved
    (gpusvdGetBackend)."""
    return (handle or default_handle()).backend


def version():
    """Version string of the loaded library, e.g. '0.2.0' (gpusvdGetVersionString)."""
    return get_lib().gpusvdGetVersionString().decode()


def build_info():
    """One line on the library build and this machine (gpusvdGetBuildInfo)."""
    return get_lib().gpusvdGetBuildInfo().decode()


def library_path():
    """The path of the loaded library file (see the search order in gpusvd._lib)."""
    from ._lib import library_file
    return library_file()
