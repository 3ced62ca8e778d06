"""pca: principal component analysis (gpusvd_Xpca)."""
import dataclasses
from typing import Any


from ._arrays import fortran_view
from ._checks import c_integer
from ._linalg import _COMMON_DOC, _INT32, _call, _finish, _input, _ld, _ptr


@dataclasses.dataclass
class PCAResult:
    """Result of ``pca``. Layouts follow scikit-learn's PCA attributes:

    components : (k, n)  principal axes as rows (sklearn's ``components_``); orthonormal rows;
                 in each row the entry of largest magnitude (the first on ties) is positive.
    explained_variance : (k,)  sigma_j**2 / (m - 1), descending (sklearn's
                 ``explained_variance_``).
    scores : (m, k) or None  (X - mean) @ components.T (sklearn's ``transform(X)``).
    mean : (n,)  column means of X (sklearn's ``mean_``; NaN when m = 0).
    info : int (0, > 0: the SVD did not converge, -1: X held NaN/Inf) -- a 0-d device array
           for device input.
    """
    components: Any
    explained_variance: Any
    scores: Any
    mean: Any
    info: Any

    def transform(self, y):
        """Project new samples y (p, n): (y - mean) @ components.T, shape (p, k)."""
        return (y - self.mean) @ self.components.T


def pca(x, k, *, compute_scores=True, check_finite=True, handle=None):
    """PCA of x (m samples, n features), mean-centred: the top k principal components
    (0 <= k <= min(m, n); m >= 2 unless m, n or k is 0). Returns a PCAResult.

    Copies: none when x is already float32/float64 with unit row stride (Fortran order, or a
    column slice of a Fortran-ordered array) -- the C routine does not modify x; otherwise one
    Fortran-ordered copy (e.g. for C-ordered x). components is a transposed (C-ordered) view of
    the library's n x k output, no copy.

    compute_scores=False skips the (m, k) scores (``scores`` is then None).
    k is an integer (operator.index: a float or a bool raises TypeError) that an int64_t holds
    (OverflowError otherwise); one outside [0, min(m, n)] (or m < 2) raises InvalidValueError
    (a GpusvdError and a ValueError, status INVALID_VALUE) with the library's message.
    Raises LinAlgError if the SVD did not converge. See below for check_finite, handle and
    device arrays (return_info does not apply: info is always on the result).
    """
    k = c_integer(k, "k", "int64_t", "gpusvd.pca")
    ops, x, dt = _input(x, 2, "pca", check_finite)
    m, n = x.shape
    xv, ldx, _ = fortran_view(ops, x, dt)
    # An invalid k reaches the library, which refuses it with its message before writing any
    # output (gpusvd.h); the outputs are sized for a valid k only, so a huge one allocates
    # nothing.
    kk = k if 0 <= k <= min(m, n) else 0
    comp = ops.empty((n, kk), dt)
    ev = ops.empty((kk,), dt)
    scores = ops.empty((m, kk), dt) if compute_scores else None
    mean = ops.empty((n,), dt)
    info = ops.rows((1,), _INT32)
    _call(ops, handle, "pca", dt, xv, m, n, ops.ptr(xv), ldx, k, ops.ptr(comp), _ld(n),
          ops.ptr(ev), _ptr(ops, scores), _ld(m), ops.ptr(mean), ops.ptr(info))
    info = _finish(ops, info, True, "pca: the SVD did not converge", True, False)
    if k == 0:
        # The library writes nothing for a zero-size problem (gpusvd.h): fill the mean here.
        if m > 0:
            ops.assign(mean, xv.mean(axis=0))
        else:
            ops.assign(mean, float("nan"))
    return PCAResult(ops.swap(comp), ev, scores, mean, info)


pca.__doc__ += _COMMON_DOC
