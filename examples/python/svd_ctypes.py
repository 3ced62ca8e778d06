"""Economy SVD from Python through ctypes, no third-party package (the numpy package is in
bindings/python). Usage: LD_LIBRARY_PATH=<prefix>/lib python3 svd_ctypes.py"""
import ctypes
import sys

lib = ctypes.CDLL("libgpusvd.so.0")
i64, c_int, dbl = ctypes.c_int64, ctypes.c_int, ctypes.c_double
lib.gpusvdGetErrorMessage.restype = ctypes.c_char_p
lib.gpusvdGetVersionString.restype = ctypes.c_char_p
lib.gpusvd_dgesvj.argtypes = [ctypes.c_void_p, c_int, c_int, i64, i64, ctypes.POINTER(dbl), i64,
                              ctypes.POINTER(dbl), ctypes.POINTER(dbl), i64, ctypes.POINTER(dbl),
                              i64, ctypes.POINTER(c_int)]

m, n, JOB_VEC = 4, 2, 1
a0 = [3.0, 1.0, 0.0, 2.0, 1.0, 3.0, 1.0, 0.0]          # column-major 4 x 2
A = (dbl * (m * n))(*a0)
S, U, V = (dbl * n)(), (dbl * (m * n))(), (dbl * (n * n))()
info = c_int(-1)
h = ctypes.c_void_p()
assert lib.gpusvdCreate(ctypes.byref(h)) == 0
status = lib.gpusvd_dgesvj(h, JOB_VEC, JOB_VEC, m, n, A, m, S, U, m, V, n, ctypes.byref(info))
if status != 0 or info.value != 0:
    sys.exit(f"gpusvd_dgesvj: status {status}, info {info.value}: {lib.gpusvdGetErrorMessage(h)}")
err = max(abs(a0[i + j * m] - sum(U[i + l * m] * S[l] * V[j + l * n] for l in range(n)))
          for i in range(m) for j in range(n))
print(f"gpusvd {lib.gpusvdGetVersionString().decode()}: S = {S[0]:.6f} {S[1]:.6f}, "
      f"max |A - U S V^T| = {err:.2e}")
lib.gpusvdDestroy(h)
sys.exit(0 if err < 1e-13 else 1)
