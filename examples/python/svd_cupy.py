"""Device arrays: a CuPy array goes to the library's _gpu form on its own memory (no host copy).
    GPUSVD_LIBRARY=<prefix>/lib/libgpusvd.so.0 python3 examples/python/svd_cupy.py
Needs a GPU and CuPy. Exits 1 unless the relative residual is small."""
import sys

import cupy as cp

import gpusvd

A = cp.random.default_rng(0).standard_normal((4096, 64))
U, S, Vh = gpusvd.svd(A, full_matrices=False)  # cupy in, cupy out: gesvj_gpu on its device
res = float(cp.linalg.norm(A - (U * S) @ Vh) / cp.linalg.norm(A))
orth = float(cp.linalg.norm(cp.eye(64) - U.T @ U))
print(f"gpusvd {gpusvd.version()}: svd of a 4096 x 64 CuPy array on the GPU: "
      f"|A - U S Vh| / |A| = {res:.1e}, |I - U^T U| = {orth:.1e}")
sys.exit(0 if max(res, orth) < 1e-11 else 1)
