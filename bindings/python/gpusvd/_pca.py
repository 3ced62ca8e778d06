"""pca: principal component analysis (gpusvd_Xpca) with scikit-learn's choice of
``n_components`` and its derived quantities (variance ratios, singular values, noise
variance)."""
from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import math
import numbers
from typing import Any, Iterator, Optional, Union

import numpy as np

from ._arrays import c_view, fortran_view, on_input_device, real_dtype
from ._checks import c_integer
from ._errors import INFO_NONFINITE, GpusvdError
from ._handle import Handle, has_row_major, resolve
from ._lib import SIGNATURES, get_lib
from ._linalg import (_INT32, _call, _call_row_major, _finish, _input, _ld, _nonfinite_error,
                      _ptr)

#: PCA methods of the library (gpusvdPcaMethod_t).
PCA_METHODS = {"auto": 0, "qr": 1, "covariance": 2}

#: Rows of X taken at a time when the total variance is summed, to bound the temporary.
_BLOCK_ELEMENTS = 1 << 22


@dataclasses.dataclass
class PCAResult:
    """Result of :func:`pca`; the layouts are those of scikit-learn's PCA attributes.

    Attributes
    ----------
    components : array, shape (k, n)
        Principal axes as orthonormal rows (``components_``). In each row the entry of
        largest magnitude (the first one on ties) is positive.
    explained_variance : array, shape (k,)
        ``sigma_j**2 / (m - 1)``, descending (``explained_variance_``).
    scores : array, shape (m, k), or None
        ``(X - mean) @ components.T`` (what ``transform(X)`` gives); None with
        ``compute_scores=False``.
    mean : array, shape (n,)
        Column means of X (``mean_``; NaN when m = 0).
    info : int or 0-d device array
        0; > 0: the SVD did not converge; -1: X held NaN or Inf.
    explained_variance_ratio : array, shape (k,)
        ``explained_variance`` divided by the total variance (``explained_variance_ratio_``);
        all zero when the total variance is zero.
    singular_values : array, shape (k,)
        Singular values of the centred X, ``sqrt(explained_variance * (m - 1))``
        (``singular_values_``).
    noise_variance : float or 0-d device array
        Mean of the ``min(m, n) - k`` variances left out, 0 when none is
        (``noise_variance_``).
    total_variance : float or 0-d device array
        Sum of the per-feature variances (``ddof=1``), the denominator of the ratios.
    """

    components: Any
    explained_variance: Any
    scores: Any
    mean: Any
    info: Any
    explained_variance_ratio: Any = None
    singular_values: Any = None
    noise_variance: Any = None
    total_variance: Any = None

    @property
    def n_components(self) -> int:
        """Number of components kept (k)."""
        return int(self.components.shape[0])

    def transform(self, y: Any) -> Any:
        """Project samples ``y`` (p, n) onto the components: ``(y - mean) @ components.T``,
        shape (p, k), an array of the same library as ``y``."""
        return (y - self.mean) @ self.components.T

    def inverse_transform(self, z: Any) -> Any:
        """Samples (p, n) from scores ``z`` (p, k): ``z @ components + mean``
        (``z @ components.conj() + mean`` for complex data)."""
        c = self.components
        if getattr(c.dtype, "kind", None) == "c":
            c = c.conj()
        return z @ c + self.mean


class _Fraction(float):
    """An n_components given as a fraction of the variance to keep."""


def _parse_n_components(value: Any) -> Union[None, int, _Fraction]:
    """None, an int (not range-checked here: the library checks it against min(m, n)), or a
    _Fraction in (0, 1). TypeError for other types (bools included), ValueError for a float
    outside (0, 1), as scikit-learn."""
    if value is None:
        return None
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind == "f":
        value = value[()]
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("gpusvd.pca: argument n_components must be None, an integer or a float "
                        "in (0, 1), not a bool (%r)" % (value,))
    try:
        return c_integer(value, "n_components", "int64_t", "gpusvd.pca")
    except TypeError:
        pass
    if isinstance(value, numbers.Real):
        f = float(value)
        if 0.0 < f < 1.0:
            return _Fraction(f)
        raise ValueError("gpusvd.pca: argument n_components = %r is invalid: a float must be "
                         "in (0, 1), the fraction of the variance to keep (an integer count "
                         "must be an int)" % (value,))
    raise TypeError("gpusvd.pca: argument n_components must be None, an integer or a float in "
                    "(0, 1), not %s (%r)" % (type(value).__name__, value))


def _method_code(method: str) -> int:
    if not isinstance(method, str):
        raise TypeError("gpusvd.pca: method must be a str ('auto', 'qr' or 'covariance'), "
                        "not %s" % type(method).__name__)
    if method not in PCA_METHODS:
        raise ValueError("gpusvd.pca: method must be 'auto', 'qr' or 'covariance', not %r"
                         % (method,))
    return PCA_METHODS[method]


def has_total_variance(lib: Any) -> bool:
    """Whether the loaded library reports pca's total variance (gpusvdGetPcaTotalVariance)."""
    return ("gpusvdGetPcaTotalVariance" in SIGNATURES
            and hasattr(lib, "gpusvdGetPcaTotalVariance"))


def has_device_total_variance(lib: Any) -> bool:
    """Whether the loaded library writes pca's total variance to device memory without waiting
    (gpusvdGetPcaTotalVariance_gpu)."""
    return ("gpusvdGetPcaTotalVariance_gpu" in SIGNATURES
            and hasattr(lib, "gpusvdGetPcaTotalVariance_gpu"))


def _like(x: Any, ref: Any) -> Any:
    """x (a device array) in ref's dtype: CuPy's astype, torch's to."""
    return x.astype(ref.dtype, copy=False) if hasattr(x, "astype") else x.to(ref.dtype)


# The derived results of a device pca with the library's total variance on the device: one
# launch instead of the ten or so element-wise operations and reductions they take as array
# expressions (small kernels that each cost a launch behind the library's call).
_DERIVED_SOURCE = r"""
template <typename T>
__global__ void pca_derived(const T *ev, long long k, const double *total, double m1,
                            long long left, T *ratio, T *singular, T *noise) {
    __shared__ double part[256];
    const double t = *total;
    const T den = T(t) == T(0) ? T(1) : T(t);  // constant data: ratios 0, not NaN
    const T root = T(sqrt(m1));
    double sum = 0;
    for (long long i = threadIdx.x; i < k; i += blockDim.x) {
        const T v = ev[i];
        ratio[i] = v / den;
        singular[i] = sqrt(v) * root;
        sum += double(v);
    }
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        const double r = (t - part[0]) / double(left);
        *noise = r < 0 ? T(0) : T(r);  // (NaN stays NaN)
    }
}
"""
_DERIVED_KERNELS: dict = {}


def _derived_on_device(ops: Any, ev: Any, total: Any, m: int, p: int, k: int) -> tuple:
    """(explained variance ratios, singular values, noise variance) from the variances ev
    (k,) and the device total (0-d float64), queued on the current stream; k < p."""
    if hasattr(ops, "cp"):  # CuPy (ev is real: float32 or float64)
        cp = ops.cp
        name = "pca_derived<%s>" % ("float" if ev.dtype == np.float32 else "double")
        key = (name, ev.device.id)
        if key not in _DERIVED_KERNELS:
            module = cp.RawModule(code=_DERIVED_SOURCE, name_expressions=[name])
            _DERIVED_KERNELS[key] = module.get_function(name)
        ratio, singular = cp.empty_like(ev), cp.empty_like(ev)
        noise = cp.empty((), ev.dtype)
        _DERIVED_KERNELS[key]((1,), (256,), (ev, np.int64(k), total, np.float64(max(m - 1, 0)),
                                            np.int64(p - k), ratio, singular, noise))
        return ratio, singular, noise
    t = _like(total, ev)  # the variances' precision, as with a host total
    noise = ((t - ev.sum()) * (1.0 / (p - k))).clip(min=0)
    return ev / (t + (t == 0)), _singular_values(ev, m), noise


def has_method_choice(lib: Any) -> bool:
    """Whether the loaded library has gpusvdSetPcaMethod (and this package its prototype)."""
    return "gpusvdSetPcaMethod" in SIGNATURES and hasattr(lib, "gpusvdSetPcaMethod")


@contextlib.contextmanager
def pca_method(handle: Handle, method: str) -> Iterator[None]:
    """Run the block with the handle's PCA method set to ``method`` (gpusvdSetPcaMethod),
    restoring the previous method afterwards. The handle's lock is held throughout, so another
    thread sharing the handle never sees the temporary method. A library without the method
    choice runs 'auto' only; other methods raise GpusvdError (NOT_SUPPORTED)."""
    code = _method_code(method)
    lib = handle._lib
    if not has_method_choice(lib):
        if code != 0:
            raise GpusvdError(
                "gpusvdSetPcaMethod", 4, "GPUSVD_STATUS_NOT_SUPPORTED",
                "method=%r needs a libgpusvd with a choice of PCA method (gpusvdSetPcaMethod); "
                "the loaded library (%s) has none and always uses its one method"
                % (method, lib.gpusvdGetVersionString().decode()))
        yield
        return
    with handle._lock:
        old = ctypes.c_int()
        handle.call(lib.gpusvdGetPcaMethod, ctypes.byref(old))
        if old.value == code:  # the usual case: no setting to change and restore
            yield
            return
        handle.call(lib.gpusvdSetPcaMethod, code)
        try:
            yield
        finally:
            handle.call(lib.gpusvdSetPcaMethod, old.value)


def _sum_of_squares(ops: Any, x: Any, mean: Any) -> Any:
    """||x - mean||_F^2 over row blocks (x: (m, n)). Host: accumulated in float64, a Python
    float; device: a 0-d array in x's precision (the device reductions are pairwise)."""
    m, n = x.shape
    rows = max(1, _BLOCK_ELEMENTS // max(1, n))
    if not ops.device:
        mu = np.asarray(mean, np.float64)
        total = 0.0
        for i in range(0, m, rows):
            c = x[i:i + rows].astype(np.float64) - mu
            total += float(np.einsum("ij,ij->", c, c))
        return total
    total = None
    for i in range(0, m, rows):
        c = x[i:i + rows] - mean
        part = (c * c).sum()
        total = part if total is None else total + part
    return total


def _singular_values(ev: Any, m: int) -> Any:
    """Singular values of the centred data from its explained variances."""
    return ev ** 0.5 * math.sqrt(max(m - 1, 0))


def _first_exceeding(cumulative: np.ndarray, fraction: float) -> int:
    """The smallest k (1-based) with cumulative[k - 1] > fraction; len(cumulative) if none
    (rounding can leave the last sum a hair below 1)."""
    k = int(np.searchsorted(cumulative, fraction, side="right")) + 1
    return min(k, len(cumulative))


@on_input_device
def pca(x: Any, n_components: Union[None, int, float] = None, *, compute_scores: bool = True,
        method: str = "auto", check_finite: bool = True,
        handle: Optional[Handle] = None) -> PCAResult:
    """Principal component analysis of x (m samples, n features), mean-centred.

    Parameters
    ----------
    x : array_like or device array, shape (m, n)
        Samples as rows. Not modified.
    n_components : None, int or float, default None
        As scikit-learn's PCA: None keeps ``min(m, n)`` components; an integer k keeps k
        (``0 <= k <= min(m, n)``, ``m >= 2`` unless m, n or k is 0; others raise
        InvalidValueError, a ValueError, with the library's message); a float in (0, 1) keeps
        the smallest number of components whose cumulative explained variance ratio exceeds
        it (one component for data of zero variance). Other floats raise ValueError; bools
        and other types TypeError.
    compute_scores : bool, default True
        Compute the scores (m, k); False leaves ``scores`` None.
    method : {'auto', 'qr', 'covariance'}, default 'auto'
        The library's PCA method, set on the handle for this call only: 'qr' (QR of the
        centred data, then the SVD of R: accurate to the data's precision), 'covariance' (the
        n x n covariance matrix and a symmetric eigensolver: faster for tall data, but it
        squares the condition number, so components of small variance lose accuracy), 'auto'
        (the library's rule). A library built without the choice accepts only 'auto'
        (GpusvdError NOT_SUPPORTED otherwise).

    Returns
    -------
    PCAResult
        ``components`` (k, n), ``explained_variance`` (k,), ``scores`` (m, k) or None,
        ``mean`` (n,), ``info``, ``explained_variance_ratio`` (k,), ``singular_values`` (k,),
        ``noise_variance``, ``total_variance``; arrays of the same library as x.

    Other Parameters
    ----------------
    check_finite : bool, default True
        Host arrays only: raise ValueError if x holds NaN or Inf (as scipy does). The library
        finds them in its own first pass over x (info -1), so the check reads x only when the
        library does not (k = 0). With False such data is passed through: the outputs are NaN
        and ``info`` is -1.
    handle : gpusvd.Handle, optional
        Default: the calling thread's default handle.

    Raises
    ------
    LinAlgError
        The SVD did not converge (host arrays).

    Notes
    -----
    The library computes the whole spectrum of the centred data whatever k is (the SVD of the
    QR's R factor, or of the covariance matrix), so asking it for all ``min(m, n)``
    components costs only their output. A float ``n_components`` does that, without scores,
    picks k on the host from the variances, and then computes the k scores as
    ``(x - mean) @ components.T``. With None the ratios divide by the sum of all variances;
    with an integer k < min(m, n) the library reports the total variance of the data it
    factored (gpusvdGetPcaTotalVariance, or its device form for device arrays: no extra pass
    over x).

    Copies: none when x is float32/float64 in C order (or a row slice of a C-ordered array:
    the library reads it row-major) or in Fortran order (or a column slice of one); otherwise
    one Fortran-ordered copy. ``components`` is a transposed view of the library's n x k
    output; the scores are C-ordered for C-ordered x.

    Device arrays (CuPy, torch CUDA tensors, any __cuda_array_interface__ or DLPack CUDA
    array) go to the library's ``_gpu`` form on the array's device and on the current
    CuPy/torch stream, with no host copy; the outputs are arrays of the same library and
    ``info`` a 0-d device array that is not inspected (that would synchronise), except that a
    float ``n_components`` reads the variances back to choose k. With an integer
    ``k < min(m, n)`` the call's total variance is written to a device double on the same
    stream (gpusvdGetPcaTotalVariance_gpu), so nothing waits; ``total_variance`` and
    ``noise_variance`` are then 0-d device arrays.

    Complex data (complex64, complex128): the centred data is U S V^H; row j of ``components``
    is the j-th column of V, multiplied by the phase that makes its entry of largest modulus real
    and positive; ``explained_variance`` is real, ``mean`` and ``scores``
    (``(x - mean) @ components.T``) complex. The library's QR method runs whatever ``method``
    says. Complex device arrays go to the GPU column-major (a C-ordered one is copied in Fortran
    order) where the Jacobi SVD of the n x n R fits one thread block's shared memory; with more
    features, or fewer samples than features, they raise gpusvd.GpusvdError (NOT_SUPPORTED).

    Examples
    --------
    >>> import numpy as np
    >>> import gpusvd
    >>> rng = np.random.default_rng(0)
    >>> x = rng.standard_normal((500, 6)) * [5.0, 3.0, 1.0, 0.1, 0.1, 0.1]
    >>> p = gpusvd.pca(x, 2)
    >>> p.components.shape, p.scores.shape
    ((2, 6), (500, 2))
    >>> p95 = gpusvd.pca(x, 0.95)        # keep 95% of the variance
    >>> p95.n_components
    2
    >>> bool(p95.explained_variance_ratio.sum() > 0.95)
    True
    """
    want = _parse_n_components(n_components)
    _method_code(method)
    # NaN/Inf in host data is found by the library's own column sums (info = -1), so
    # check_finite raises from info after the call instead of a pass over x of its own.
    ops, x, dt = _input(x, 2, "pca", False)
    m, n = x.shape
    p = min(m, n)
    fraction = want if isinstance(want, _Fraction) else None
    k = p if want is None or fraction is not None else want
    full = k == p  # the whole spectrum comes back: its sum is the total variance
    # C-ordered data goes to the library row-major as it is (gpusvdSetMatrixLayout): X, the
    # components and the scores then all row-major.
    # (The GPU takes complex data column-major only.)
    row_ok = has_row_major(get_lib()) and not (ops.device and dt.kind == "c")
    cv = c_view(ops, x, dt) if row_ok else None
    row = cv is not None
    xv, ldx = cv if row else fortran_view(ops, x, dt)[:2]
    # An invalid k reaches the library, which refuses it with its message before writing any
    # output (gpusvd.h); the outputs are sized for a valid k only, so a huge one allocates
    # nothing.
    kk = k if 0 <= k <= p else 0
    if check_finite and not ops.device and k == 0 and x.size and not ops.isfinite_all(x):
        raise _nonfinite_error("pca")  # the library reads no data for k = 0
    library_scores = compute_scores and fraction is None
    # (r, c) in the layout the library writes: C order (the swap of a Fortran-ordered (c, r))
    # when row-major
    def out(r, c):
        return ops.swap(ops.empty((c, r), dt)) if row else ops.empty((r, c), dt)

    comp = out(n, kk)
    ev = ops.empty((kk,), real_dtype(dt))
    scores = out(m, kk) if library_scores else None
    mean = ops.empty((n,), dt)
    info = ops.rows((1,), _INT32)
    h = resolve(handle, ops, xv)
    lib = get_lib()
    lib_total = None
    # the call's own total variance (no pass over x)
    query = not full and k > 0 and m >= 2 and has_total_variance(lib)
    singular = None
    # Device arrays: the query is queued on the call's stream into a device double
    # (gpusvdGetPcaTotalVariance_gpu), so nothing waits and what follows is queued behind the
    # call. A library without that query waits on the stream instead (the host query), with
    # what does not need the total queued before the wait.
    device_total = query and ops.device and has_device_total_variance(lib)
    with pca_method(h, method), ops.on_device(xv, h):
        if row:
            _call_row_major(ops, h, "pca", dt, xv, m, n, ops.ptr(xv), ldx, k, ops.ptr(comp),
                            _ld(kk), ops.ptr(ev), _ptr(ops, scores), _ld(kk), ops.ptr(mean),
                            ops.ptr(info))
        else:
            _call(ops, h, "pca", dt, xv, m, n, ops.ptr(xv), ldx, k, ops.ptr(comp), _ld(n),
                  ops.ptr(ev), _ptr(ops, scores), _ld(m), ops.ptr(mean), ops.ptr(info))
        if device_total:
            lib_total = ops.rows((), np.float64)
            h.call(lib.gpusvdGetPcaTotalVariance_gpu, ops.ptr(lib_total))
            derived = _derived_on_device(ops, ev, lib_total, m, p, k)
        elif query:
            if ops.device:
                singular = _singular_values(ev, m)
                left_out = ev.sum() * (1.0 / (p - k))  # k < p here
            t = ctypes.c_double()
            h.call(lib.gpusvdGetPcaTotalVariance, ctypes.byref(t))
            lib_total = t.value
    info = _finish(ops, info, True, "pca: the SVD did not converge", True, False)
    if check_finite and not ops.device and info == INFO_NONFINITE:
        raise _nonfinite_error("pca")
    if k == 0:
        # The library writes nothing for a zero-size problem (gpusvd.h): fill the mean here.
        if m > 0:
            ops.assign(mean, xv.mean(axis=0))
        else:
            ops.assign(mean, float("nan"))
    components = ops.swap(comp)

    if m < 2:
        total = float("nan")
    elif full:
        total = float(np.sum(ev, dtype=np.float64)) if not ops.device else ev.sum()
    elif lib_total is not None:
        total = lib_total
    else:  # a library without gpusvdGetPcaTotalVariance
        total = _sum_of_squares(ops, xv, mean) / (m - 1)

    if fraction is not None:
        ev_host = np.asarray(ops.to_host(ev), np.float64)
        tot = float(ev_host.sum())
        ratio = ev_host / tot if tot > 0 else np.zeros_like(ev_host)
        # zero total variance (constant data): nothing to explain, one component is kept
        k = 0 if p == 0 else _first_exceeding(np.cumsum(ratio), fraction) if tot > 0 else 1
        components, ev = components[:k], ev[:k]
        if compute_scores:
            scores = (xv - mean) @ components.T

    if device_total:
        ratio, singular, noise = derived
    elif ops.device:
        ratio = ev / (total + (total == 0))  # all zero (not NaN) when the data is constant
        if singular is not None:  # the total came from the library (query above)
            noise = (total / (p - k) - left_out).clip(min=0)
        elif not full or fraction is not None:
            noise = (total - ev.sum()) / (p - k) if k < p else total * 0
            noise = noise * (noise > 0)
        else:
            noise = total * 0
    else:
        ratio = (ev / total).astype(ev.dtype) if total > 0 else np.zeros_like(ev)
        noise = max(0.0, (total - float(np.sum(ev, dtype=np.float64))) / (p - k)) if k < p \
            else 0.0
    if singular is None:
        singular = _singular_values(ev, m)
    return PCAResult(components, ev, scores, mean, info, ratio, singular, noise, total)
