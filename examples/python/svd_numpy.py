"""SVD, batched eigenvalues and PCA with the numpy package (bindings/python):
    pip install .        (from the repository root, or the wheel)
    python3 examples/python/svd_numpy.py
Exits 1 unless every result matches numpy."""
import sys

import numpy as np

import gpusvd

rng = np.random.default_rng(0)
A = rng.standard_normal((200, 30))
U, S, Vh = gpusvd.svd(A, full_matrices=False)
svd_err = np.abs(A - (U * S) @ Vh).max()

batch = rng.standard_normal((1000, 8, 8))
w = gpusvd.eigvals_batched(batch)
eig_err = max(np.abs(np.sort_complex(w[i]) - np.sort_complex(np.linalg.eigvals(batch[i]))).max()
              for i in range(0, 1000, 97))

X = rng.standard_normal((500, 6)) @ rng.standard_normal((6, 6)) + 3.0
p = gpusvd.pca(X, 2)
var_err = np.abs(p.explained_variance - p.scores.var(axis=0, ddof=1)).max()

print(f"gpusvd {gpusvd.version()} on {gpusvd.backend()}: svd {svd_err:.1e}, "
      f"eigvals {eig_err:.1e}, pca variance {var_err:.1e}")
sys.exit(0 if max(svd_err, eig_err, var_err) < 1e-10 else 1)
