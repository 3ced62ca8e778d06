"""svd, svd_batched, qr, qr_batched, eigvals_batched, eig_batched, bdsvd: one body per routine
for host (numpy) and device (CuPy / PyTorch CUDA) arrays."""
import numpy as np

from ._arrays import HostOps, ops_for, result_dtype
from ._errors import LinAlgError
from ._handle import resolve
from ._lib import routine

_INT32 = np.dtype(np.int32)
_HOST_FOR_TESTS = HostOps()
_ORTH = {"mgs": 0, "mgs2": 1}


def _ld(rows):
    return max(1, rows)


def _ptr(ops, x):
    return None if x is None else ops.ptr(x)


def _input(x, ndim, func, check_finite, square=False):
    """(ops, array, dtype) after the shape, dtype and finiteness checks."""
    ops, a = ops_for(x)
    if a.ndim != ndim:
        raise ValueError("gpusvd.%s: expected a %d-D array%s, got shape %s"
                         % (func, ndim, " (batch, m, n)" if ndim == 3 else "", tuple(a.shape)))
    if square and a.shape[-1] != a.shape[-2]:
        raise ValueError("gpusvd.%s: matrices must be square, got shape %s"
                         % (func, tuple(a.shape)))
    dt = ops.dtype(a)
    if check_finite and not ops.device and not ops.isfinite_all(a):
        raise ValueError("gpusvd.%s: array must not contain infs or NaNs "
                         "(pass check_finite=False to get NaN outputs and info = -1 instead)"
                         % func)
    return ops, a, dt


def _call(ops, handle, name, dt, anchor, *args):
    h = resolve(handle)
    with ops.on_device(anchor, h):
        h.call(routine(name, dt, ops.device), *args)


def _finish(ops, info, single, what, raise_positive, return_info):
    """Host: raise LinAlgError for info > 0 (unless return_info or not raise_positive).
    Device: info stays on the device and is not inspected (that would synchronise)."""
    if ops.device:
        return info.reshape(()) if single else info
    if raise_positive and not return_info:
        bad = np.flatnonzero(info > 0)
        if bad.size:
            if single:
                msg = "%s (info = %d)" % (what, info[0])
            else:
                msg = "%s for %d of %d matrices (first: matrix %d, info = %d)" % (
                    what, bad.size, info.size, bad[0], info[bad[0]])
            raise LinAlgError("gpusvd: " + msg, info[0] if single else info)
    return int(info[0]) if single else info


def _out(result, info, return_info):
    if return_info:
        return (result + (info,)) if isinstance(result, tuple) else (result, info)
    return result


_COMMON_DOC = """
    check_finite : bool, default True
        Host arrays only: raise ValueError if the input holds NaN or Inf (as scipy does). With
        False such matrices are passed through: the library does not factorize them, sets
        their outputs to NaN and their info to -1 (other matrices of a batch are unaffected).
    return_info : bool, default False
        Also return the info (an int for one matrix, an int32 array (batch,) for a batch;
        gpusvd.h's meanings) as the last element, and do not raise LinAlgError for info > 0.
    handle : gpusvd.Handle, optional
        Default: the calling thread's default handle.

    Device arrays (CuPy, torch CUDA tensors, any __cuda_array_interface__ or DLPack CUDA
    array) go to the library's ``_gpu`` form on the array's device and on the current
    CuPy/torch stream, with no host copy; the outputs are arrays of the same library. The
    input is copied on the device into per-matrix Fortran order (the routine overwrites it).
    check_finite and info checks are skipped there (they would synchronise): use
    return_info=True to get info as a device array.
    Raises GpusvdError for a non-SUCCESS status (e.g. NOT_SUPPORTED / NO_DEVICE for the
    _gpu forms), carrying the library's message.
"""


def _doc(f):
    f.__doc__ = f.__doc__.rstrip() + "\n" + _COMMON_DOC
    return f


@_doc
def svd(a, compute_uv=True, *, check_finite=True, return_info=False, handle=None):
    """Economy SVD by one-sided Jacobi: a (m, n) = U @ diag(s) @ Vh, like
    ``scipy.linalg.svd(a, full_matrices=False)``.

    Returns (U (m, k), s (k,), Vh (k, n)), k = min(m, n), or s alone with compute_uv=False;
    s is non-negative and descending; U has orthonormal columns even for zero singular values.
    U is Fortran-ordered and Vh C-ordered (Vh is the transpose of the library's V).
    float32 and float64 keep their precision (in either byte order); integers and bool become
    float64, float16 float32; complex and longdouble raise TypeError.

    Copies: always one Fortran-ordered copy of ``a`` (the C routine destroys its input;
    ``a`` is never modified), from C or Fortran order alike.

    Raises LinAlgError (numpy.linalg.LinAlgError subclass, ``.info``) if Jacobi did not
    converge within the sweep limit.
    """
    ops, a, dt = _input(a, 2, "svd", check_finite)
    m, n = a.shape
    k = min(m, n)
    w = ops.fcopy(a, dt)
    s = ops.empty((k,), dt)
    u = ops.empty((m, k), dt) if compute_uv else None
    v = ops.empty((n, k), dt) if compute_uv else None
    info = ops.rows((1,), _INT32)
    job = 1 if compute_uv else 0
    _call(ops, handle, "gesvj", dt, w, job, job, m, n, ops.ptr(w), _ld(m), ops.ptr(s),
          _ptr(ops, u), _ld(m), _ptr(ops, v), _ld(n), ops.ptr(info))
    info = _finish(ops, info, True, "svd: Jacobi did not converge", True, return_info)
    return _out((u, s, ops.swap(v)) if compute_uv else s, info, return_info)


@_doc
def svd_batched(a, compute_uv=True, *, check_finite=True, return_info=False, handle=None):
    """Economy SVD of each matrix of a (batch, m, n) array (gpusvd_Xgesvj_batched).

    Returns (U (batch, m, k), s (batch, k), Vh (batch, k, n)), or s alone; each matrix as in
    ``svd``. U's matrices are Fortran-ordered, Vh's C-ordered.

    Copies: always one copy of ``a`` in per-matrix Fortran order (the C routine destroys it).

    Raises LinAlgError (``.info`` the whole array, ``.failed`` the indices) if any matrix did
    not converge, unless return_info=True.
    """
    ops, a, dt = _input(a, 3, "svd_batched", check_finite)
    b, m, n = a.shape
    k = min(m, n)
    w = ops.fcopy(a, dt)
    s = ops.rows((b, k), dt)
    u = ops.empty((b, m, k), dt) if compute_uv else None
    v = ops.empty((b, n, k), dt) if compute_uv else None
    info = ops.rows((b,), _INT32)
    job = 1 if compute_uv else 0
    _call(ops, handle, "gesvj_batched", dt, w, job, job, m, n, ops.ptr(w), _ld(m), _ld(m) * n,
          ops.ptr(s), k, _ptr(ops, u), _ld(m), _ld(m) * k, _ptr(ops, v), _ld(n), _ld(n) * k, b,
          ops.ptr(info))
    info = _finish(ops, info, False, "svd_batched: Jacobi did not converge", True, return_info)
    return _out((u, s, ops.swap(v)) if compute_uv else s, info, return_info)


def _orth(mode):
    if not isinstance(mode, str):
        raise TypeError("gpusvd.qr: mode must be a str ('mgs2' or 'mgs'), not %s"
                        % type(mode).__name__)
    if mode not in _ORTH:
        raise ValueError("gpusvd.qr: mode must be 'mgs2' or 'mgs', not %r" % (mode,))
    return _ORTH[mode]


@_doc
def qr(a, mode="mgs2", *, check_finite=True, return_info=False, handle=None):
    """QR by Gram-Schmidt with explicit Q: a (m, n) = Q @ R, like
    ``scipy.linalg.qr(a, mode="economic")`` but with R[j, j] >= 0.

    mode: "mgs2" (reorthogonalised: ||I - Q^T Q|| = O(eps)) or "mgs" (loss of orthogonality
    about eps * cond(a)). Returns Q (m, k) Fortran-ordered with orthonormal columns and R (k, n)
    upper trapezoidal, k = min(m, n).

    Copies: always one Fortran-ordered copy of ``a``, which becomes Q (for m < n, Q is a view
    of its first k columns).

    A dependent column is not an error (as in scipy): it gets R[j, j] = 0 and a completing Q
    column; info (with return_info=True) is then j + 1 for the first such column j.
    """
    orth = _orth(mode)
    ops, a, dt = _input(a, 2, "qr", check_finite)
    m, n = a.shape
    k = min(m, n)
    w = ops.fcopy(a, dt)
    r = ops.empty((k, n), dt)
    info = ops.rows((1,), _INT32)
    _call(ops, handle, "geqrf_mgs", dt, w, orth, m, n, ops.ptr(w), _ld(m), ops.ptr(r), _ld(k),
          ops.ptr(info))
    info = _finish(ops, info, True, "qr", False, return_info)
    return _out((w[:, :k], r), info, return_info)


@_doc
def qr_batched(a, mode="mgs2", *, check_finite=True, return_info=False, handle=None):
    """QR of each matrix of a (batch, m, n) array (gpusvd_Xgeqrf_mgs_batched), each as in
    ``qr``. Returns Q (batch, m, k) and R (batch, k, n), both with Fortran-ordered matrices.

    Copies: always one copy of ``a`` in per-matrix Fortran order, which becomes Q.
    """
    orth = _orth(mode)
    ops, a, dt = _input(a, 3, "qr_batched", check_finite)
    b, m, n = a.shape
    k = min(m, n)
    w = ops.fcopy(a, dt)
    r = ops.empty((b, k, n), dt)
    info = ops.rows((b,), _INT32)
    _call(ops, handle, "geqrf_mgs_batched", dt, w, orth, m, n, ops.ptr(w), _ld(m), _ld(m) * n,
          ops.ptr(r), _ld(k), _ld(k) * n, b, ops.ptr(info))
    info = _finish(ops, info, False, "qr_batched", False, return_info)
    return _out((w[..., :k], r), info, return_info)


def _geev(a, vectors, func, check_finite, return_info, handle):
    ops, a, dt = _input(a, 3, func, check_finite, square=True)
    b, n, _ = a.shape
    w = ops.fcopy(a, dt)
    wr = ops.rows((b, n), dt)
    wi = ops.rows((b, n), dt)
    vr = ops.empty((b, n, n), dt) if vectors else None
    info = ops.rows((b,), _INT32)
    _call(ops, handle, "geev_batched", dt, w, 1 if vectors else 0, n, ops.ptr(w), _ld(n),
          _ld(n) * n, ops.ptr(wr), ops.ptr(wi), n, _ptr(ops, vr), _ld(n), _ld(n) * n, b,
          ops.ptr(info))
    info = _finish(ops, info, False, "%s: the QR algorithm did not converge" % func, True,
                   return_info)
    vals = ops.complex_values(wr, wi)
    res = (vals, ops.complex_vectors(vr, wi)) if vectors else vals
    return _out(res, info, return_info)


@_doc
def eigvals_batched(a, *, check_finite=True, return_info=False, handle=None):
    """Eigenvalues of each matrix of a (batch, n, n) array (gpusvd_Xgeev_batched, LAPACK
    dgeev conventions: balancing; complex conjugate pairs adjacent, positive imaginary part
    first).

    Returns a complex (batch, n) array (complex64 for float32 input, complex128 for float64),
    *always* complex -- unlike numpy.linalg.eigvals, whose result is real when every
    eigenvalue is, the dtype here does not depend on the data.

    Copies: always one copy of ``a`` in per-matrix Fortran order (the routine destroys it).
    Raises LinAlgError if the QR algorithm failed for some matrix (info > 0: eigenvalues
    info..n, 1-based, converged), unless return_info=True.
    """
    return _geev(a, False, "eigvals_batched", check_finite, return_info, handle)


@_doc
def eig_batched(a, *, check_finite=True, return_info=False, handle=None):
    """Eigenvalues and right eigenvectors of each matrix of a (batch, n, n) array, like
    ``numpy.linalg.eig`` per matrix: returns (w, v) with w complex (batch, n) and v complex
    (batch, n, n) whose column v[b, :, j] is the eigenvector of w[b, j], i.e.
    a[b] @ v[b] = v[b] * w[b][None, :].

    v is built from LAPACK's real layout: for a complex pair (j, j+1) (positive imaginary part
    first) v_j = VR[:, j] + i VR[:, j+1] and v_{j+1} = conj(v_j). Each vector has unit 2-norm
    and its largest component real (dgeev's normalisation; numpy's is the same).
    Always complex (see eigvals_batched).

    Copies: one copy of ``a`` in per-matrix Fortran order; the complex v is a new array built
    from the library's real VR.
    """
    return _geev(a, True, "eig_batched", check_finite, return_info, handle)


@_doc
def bdsvd(d, e, lower=False, compute_uv=True, *, check_finite=True, return_info=False,
          handle=None):
    """SVD of the n x n bidiagonal matrix B with diagonal d (n,) and off-diagonal e (n-1,):
    the superdiagonal (lower=False) or the subdiagonal (lower=True). B = U @ diag(s) @ Vt.

    Returns (U (n, n), s (n,), Vt (n, n)), or s alone with compute_uv=False; s non-negative
    and descending; U and Vt Fortran-ordered.

    Copies: d and e are always copied (the routine overwrites d with s and destroys e);
    they are converted to their common dtype (float32 only when both are float32).
    """
    ops, d = ops_for(d)
    _, e = ops_for(e)
    if d.ndim != 1 or e.ndim != 1:
        raise ValueError("gpusvd.bdsvd: d and e must be 1-D, got shapes %s and %s"
                         % (tuple(d.shape), tuple(e.shape)))
    n = d.shape[0]
    if e.shape[0] != max(n - 1, 0):
        raise ValueError("gpusvd.bdsvd: e must have n - 1 = %d entries, got %d"
                         % (max(n - 1, 0), e.shape[0]))
    dt = np.promote_types(ops.dtype(d), ops.dtype(e))
    dt = result_dtype(dt)
    if check_finite and not ops.device and not (ops.isfinite_all(d) and ops.isfinite_all(e)):
        raise ValueError("gpusvd.bdsvd: array must not contain infs or NaNs "
                         "(pass check_finite=False to get NaN outputs and info = -1 instead)")
    s = ops.fcopy(d, dt)
    ew = ops.fcopy(e, dt)
    u = ops.empty((n, n), dt) if compute_uv else None
    vt = ops.empty((n, n), dt) if compute_uv else None
    info = ops.rows((1,), _INT32)
    _call(ops, handle, "bdsvd", dt, s, 1 if lower else 0, 1 if compute_uv else 0, n,
          ops.ptr(s), ops.ptr(ew) if n > 1 else None, _ptr(ops, u), _ld(n), _ptr(ops, vt),
          _ld(n), ops.ptr(info))
    info = _finish(ops, info, True, "bdsvd: a singular value did not converge", True,
                   return_info)
    return _out((u, s, vt) if compute_uv else s, info, return_info)
