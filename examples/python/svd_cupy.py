"""Device arrays: a CuPy array goes to the library's _gpu form on its own memory (no host copy).
    GPUSVD_LIBRARY=<prefix>/lib/libgpusvd.so.0 python3 examples/python/svd_cupy.py
Needs a GPU and CuPy. A routine without GPU kernels in this version answers NOT_SUPPORTED; the
example then says so and, as the caller's explicit choice, computes on the host copy."""
import sys

import cupy as cp
import numpy as np

import gpusvd

A = cp.random.default_rng(0).standard_normal((4096, 64))
try:
    U, S, Vh = gpusvd.svd(A)  # cupy in, cupy out, on the array's device and stream
    where = "GPU (_gpu form)"
except gpusvd.GpusvdError as e:
    if e.status_name != "GPUSVD_STATUS_NOT_SUPPORTED":
        raise
    print(f"{e.routine}: not supported on the GPU in gpusvd {gpusvd.version()}; using the host")
    U, S, Vh = (cp.asarray(x) for x in gpusvd.svd(cp.asnumpy(A)))
    where = "host (explicit fallback)"
err = float(cp.abs(A - (U * S) @ Vh).max())
print(f"svd of a 4096 x 64 CuPy array on the {where}: max |A - U S Vh| = {err:.1e}")
sys.exit(0 if err < 1e-10 else 1)
