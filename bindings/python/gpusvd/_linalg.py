"""svd, svdvals, qr, eig, eigvals (numpy's and scipy's signatures), the older *_batched names,
and bdsvd: one body per routine for host (numpy) and device (CuPy / PyTorch CUDA) arrays; a
(..., m, n) stack goes to the library's batched routine in one call."""
from __future__ import annotations

import functools
import math
from typing import Literal, NamedTuple, Optional, Tuple, Union

import numpy as np

from ._arrays import (Array, ArrayLike, HostOps, complete_basis, host_input, on_input_device,
                      ops_for, real_dtype, result_dtype, rows_adjacent, stack_layout)
from ._errors import LinAlgError
from ._handle import Handle, has_row_major, resolve, row_major
from ._lib import get_lib, routine

_INT32 = np.dtype(np.int32)
_HOST_FOR_TESTS = HostOps()
_ORTH = {"mgs": 0, "mgs2": 1}

#: qr's mode names, numpy's and scipy's, and what each means here.
_QR_MODES = {"reduced": "reduced", "economic": "reduced", "complete": "complete",
             "full": "complete", "r": "r"}

QRMode = Literal["reduced", "complete", "r", "raw", "economic", "full"]
Orth = Literal["mgs2", "mgs"]


class SVDResult(NamedTuple):
    """``(U, S, Vh)`` of ``svd``, also readable by name as numpy's ``SVDResult``."""
    U: Array
    S: Array
    Vh: Array


class QRResult(NamedTuple):
    """``(Q, R)`` of ``qr``, also readable by name as numpy's ``QRResult``."""
    Q: Array
    R: Array


class EigResult(NamedTuple):
    """``(eigenvalues, eigenvectors)`` of ``eig``, also readable by name as numpy's
    ``EigResult``."""
    eigenvalues: Array
    eigenvectors: Array


def _ld(rows):
    return max(1, rows)


def _ptr(ops, x):
    return None if x is None else ops.ptr(x)


def _stack_input(x, func, check_finite, min_ndim=2, square=False):
    """(ops, array, dtype) for a (..., m, n) input after the shape, dtype and finiteness
    checks."""
    ops, a = ops_for(x)
    if a.ndim < min_ndim:
        what = ("a matrix (m, n) or a stack of matrices (..., m, n)" if min_ndim == 2 else
                "a stack of matrices (batch, ..., m, n)")
        raise ValueError("gpusvd.%s: expected %s, got an array of shape %s"
                         % (func, what, tuple(a.shape)))
    if square and a.shape[-1] != a.shape[-2]:
        raise ValueError("gpusvd.%s: matrices must be square, got shape %s"
                         % (func, tuple(a.shape)))
    dt = ops.dtype(a)
    if check_finite and not ops.device and not ops.isfinite_all(a):
        raise _nonfinite_error(func)
    return ops, a, dt


def _nonfinite_error(func):
    """check_finite's error (scipy raises ValueError for NaN/Inf input)."""
    return ValueError("gpusvd.%s: array must not contain infs or NaNs "
                      "(pass check_finite=False to get NaN outputs and info = -1 instead)" % func)


def _input(x, ndim, func, check_finite, square=False):
    """(ops, array, dtype) for an input of exactly `ndim` dimensions (pca's matrix)."""
    ops, a = ops_for(x)
    if a.ndim != ndim:
        raise ValueError("gpusvd.%s: expected a %d-D array, got shape %s"
                         % (func, ndim, tuple(a.shape)))
    return _stack_input(a, func, check_finite, ndim, square)


def _working(ops, a, dt, transpose_ok, overwrite_a):
    """The (..., r, c) matrices the library factors in place, in per-matrix Fortran order:
    (w, transposed, ld, stride). With overwrite_a, `a` itself (or, where transpose_ok, its
    transpose: a C-ordered stack) when its dtype and layout allow. Otherwise a new copy: in the
    input's own orientation where transpose_ok (a C-ordered input is copied as it is, the
    cheapest copy, and read as the stack of its transposes), else per-matrix Fortran order."""
    if overwrite_a and ops.writable(a):
        layout = stack_layout(ops, a, dt)
        if layout is not None:
            return (a, False) + layout
        if transpose_ok:
            at = ops.swap(a)
            layout = stack_layout(ops, at, dt)
            if layout is not None:
                return (at, True) + layout
    trans = transpose_ok and rows_adjacent(ops, a)
    w = ops.fcopy(ops.swap(a) if trans else a, dt)
    r, c = w.shape[-2:]
    return w, trans, _ld(r), _ld(r) * c


def _call(ops, handle, name, dt, anchor, *args):
    h = resolve(handle, ops, anchor)
    with ops.on_device(anchor, h):
        h.call(routine(name, dt, ops.device), *args)


def _call_row_major(ops, handle, name, dt, anchor, *args):
    """_call with the handle's matrix layout row-major for this call (gpusvdSetMatrixLayout):
    the matrix arguments are C-ordered, their leading dimensions count columns."""
    h = resolve(handle, ops, anchor)
    with row_major(h):
        _call(ops, h, name, dt, anchor, *args)


def _row_major_ok(ops, a):
    """Whether one matrix `a` (2-D, not empty) can go to the library row-major as it is (or as
    a copy in its own memory order): rows contiguous, and a library with the layout option."""
    return (a.ndim == 2 and 0 not in a.shape and rows_adjacent(ops, a)
            and has_row_major(get_lib()))


def _finish(ops, info, single, what, raise_positive, return_info):
    """Host: raise LinAlgError for info > 0 (unless return_info or not raise_positive); returns
    info as an int (single) or an int32 array of the stack's leading shape. Device: info stays
    on the device and is not inspected (that would synchronise)."""
    if ops.device:
        return info.reshape(()) if single else info
    if raise_positive and not return_info:
        flat = info.reshape(-1)
        bad = np.flatnonzero(flat > 0)
        if bad.size:
            if single:
                msg = "%s (info = %d)" % (what, flat[0])
            else:
                where = np.unravel_index(bad[0], info.shape)
                where = where[0] if len(where) == 1 else tuple(int(i) for i in where)
                msg = "%s for %d of %d matrices (first: matrix %s, info = %d)" % (
                    what, bad.size, flat.size, where, flat[bad[0]])
            raise LinAlgError("gpusvd: " + msg, flat[0] if single else info)
    return int(info.reshape(-1)[0]) if single else info


def _out(result, info, return_info):
    if return_info:
        return (tuple(result) + (info,)) if isinstance(result, tuple) else (result, info)
    return result


def _info_array(ops, bshape):
    return ops.rows(bshape if bshape else (1,), _INT32)


def _same_kind(impl):
    """Results of the input's kind for inputs the host path reads through numpy (torch CPU
    tensors); numpy, CuPy and CUDA tensors are handled by their adapters."""
    @functools.wraps(impl)
    def run(a, *args, **kw):
        a, back = host_input(a)
        res = impl(a, *args, **kw)
        return back(res) if back is not None else res
    return run


_COMMON_PARAMS = """\
    overwrite_a : bool, default False
        Let the routine work in ``a``'s own memory, as scipy's ``overwrite_a``: when ``a`` is
        writable, of the dtype computed in and laid out as the routine needs (see Notes), no
        copy is made and ``a``'s contents are unspecified afterwards. Otherwise (and always
        with False) ``a`` is left unchanged.
    check_finite : bool, default True
        Host arrays: raise ValueError if ``a`` holds NaN or Inf (as scipy does). With False
        such matrices are passed through: the library does not factorize them, sets their
        outputs to NaN and their info to -1 (other matrices of a stack are unaffected). Device
        arrays are not checked (it would synchronise).
    return_info : bool, default False
        Also return the info (an int for one matrix, an int32 array of the stack's leading
        shape for a stack; a device array for device input) as the last element, and do not
        raise LinAlgError for info > 0.
    handle : gpusvd.Handle, optional
        Default: the calling thread's default handle."""

_COMMON_RAISES = """\
    ValueError
        ``a`` has fewer than two dimensions, holds NaN or Inf (with check_finite), or an
        argument is invalid; the library's refusals (gpusvd.InvalidValueError) carry its
        message.
    TypeError
        The dtype is object, string, longdouble, ...
    gpusvd.GpusvdError
        Another non-SUCCESS status, e.g. NO_DEVICE, or NOT_SUPPORTED for a complex device
        array of a case the GPU has no complex kernel for."""

_DEVICE_NOTES = """\
    Host (numpy) input runs on the handle's backend (AUTO: the GPU when usable, the CPU
    otherwise). Device arrays (CuPy, torch CUDA tensors, any ``__cuda_array_interface__`` or
    DLPack CUDA array) go to the library's ``_gpu`` form on the array's device and on the
    current CuPy/torch stream, with no host copy; the results are arrays of the same library.
    torch CPU tensors take the host path through a numpy view and come back as torch tensors.

    float32, float64, complex64 and complex128 keep their precision (either byte order);
    float16 becomes float32, integers and bool float64 (as scipy.linalg does). Complex arrays
    go to the library's complex routines (c, z), on the GPU where it has complex kernels for
    the case (see gpusvd.h); elsewhere a host array runs on the CPU and a device array raises
    gpusvd.GpusvdError (NOT_SUPPORTED)."""


def _doc(f):
    f.__doc__ = (f.__doc__.replace("{COMMON_PARAMS}", _COMMON_PARAMS)
                 .replace("{COMMON_RAISES}", _COMMON_RAISES)
                 .replace("{DEVICE_NOTES}", _DEVICE_NOTES))
    return f


# ----------------------------------------------------------------------------------------------
# SVD
# ----------------------------------------------------------------------------------------------

@_same_kind
def _svd(a, full_matrices, compute_uv, overwrite_a, check_finite, return_info, handle, func,
         min_ndim=2):
    ops, a, dt = _stack_input(a, func, check_finite, min_ndim)
    # The SVD of A^T is that of A with U and V swapped: a C-ordered stack is handed over as the
    # Fortran-ordered stack of its transposes. Not one tall matrix: gesvj would get it wide and
    # miss its QR-first path for tall matrices (a batch transposes as it loads).
    # (Complex data: A^T's SVD would need conjugated factors, so it is factored as it is.)
    m, n = a.shape[-2:]
    cplx = dt.kind == "c"
    w, trans, ld, stride = _working(ops, a, dt, not cplx and (a.ndim > 2 or m <= n), overwrite_a)
    bshape = tuple(a.shape[:-2])
    r, c = w.shape[-2:]
    k = min(r, c)
    job = 1 if compute_uv else 0
    s = ops.rows(bshape + (k,), real_dtype(dt))
    ub = ops.empty(bshape + (r, k), dt) if compute_uv else None
    vb = ops.empty(bshape + (c, k), dt) if compute_uv else None
    info = _info_array(ops, bshape)
    if not bshape:
        _call(ops, handle, "gesvj", dt, w, job, job, r, c, ops.ptr(w), ld, ops.ptr(s),
              _ptr(ops, ub), _ld(r), _ptr(ops, vb), _ld(c), ops.ptr(info))
    else:
        _call(ops, handle, "gesvj_batched", dt, w, job, job, r, c, ops.ptr(w), ld, stride,
              ops.ptr(s), k, _ptr(ops, ub), _ld(r), _ld(r) * k, _ptr(ops, vb), _ld(c),
              _ld(c) * k, math.prod(bshape), ops.ptr(info))
    info = _finish(ops, info, not bshape, "%s: Jacobi did not converge" % func, True,
                   return_info)
    if not compute_uv:
        return _out(s, info, return_info)
    u, v = (vb, ub) if trans else (ub, vb)
    if full_matrices:
        u, v = complete_basis(ops, u), complete_basis(ops, v)
    vh = ops.swap(v).conj() if cplx else ops.swap(v)  # A = U diag(S) V^H
    return _out(SVDResult(u, s, vh), info, return_info)


@_doc
@on_input_device
def svd(a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True, *,
        overwrite_a: bool = False, check_finite: bool = True, return_info: bool = False,
        handle: Optional[Handle] = None) -> Union[SVDResult, Array, tuple]:
    """Singular value decomposition by one-sided Jacobi, as ``numpy.linalg.svd``.

    ``a = U @ diag(S) @ Vh`` for each matrix of ``a``; one matrix (2-D) or any stack
    ``(..., m, n)``, the whole stack in one batched call.

    Parameters
    ----------
    a : (..., m, n) array_like
        Real matrices: numpy (or anything numpy.asarray takes), torch or CuPy.
    full_matrices : bool, default True
        True: U is (..., m, m) and Vh (..., n, n), as numpy's and scipy's default. False: the
        economy SVD, U (..., m, k) and Vh (..., k, n), k = min(m, n), which is what the
        library computes (the full factors complete it, see Notes).
    compute_uv : bool, default True
        False: return the singular values alone (as ``svdvals``).
{COMMON_PARAMS}

    Returns
    -------
    SVDResult (U, S, Vh), or S alone when compute_uv is False
        S (..., k) non-negative and descending; U and Vh with orthonormal columns and rows,
        U's columns an orthonormal completion where singular values are zero. All of the
        input's precision and array kind.

    Raises
    ------
    LinAlgError
        Jacobi did not converge for some matrix within the sweep limit (a subclass of
        numpy.linalg.LinAlgError; ``.info`` the info array, ``.failed`` the flat indices of
        the failed matrices), unless return_info is True.
{COMMON_RAISES}

    Notes
    -----
    Copies. The routine destroys its input, so ``a`` is copied unless overwrite_a allows
    working in it. The SVD of A^T is the SVD of A with U and V swapped, so a C-ordered
    (row-major) stack, or one C-ordered matrix with m <= n, is passed as the Fortran-ordered
    stack of its transposes: it is copied as it is (never transposed), and with overwrite_a
    not copied at all. One C-ordered matrix with m > n gets a transposing copy, so that the
    library sees it tall (for a tall matrix it takes a QR first, which its transpose would
    miss). Other layouts (negative or non-uniform strides, other dtypes) get one per-matrix
    Fortran copy.

    Full factors. With full_matrices (and m != n) the last m - k columns of U (or n - k rows
    of Vh) come from the complete QR of the thin factor by the input's own array library
    (numpy.linalg.qr, cupy.linalg.qr, torch.linalg.qr); the first k are the library's.

{DEVICE_NOTES}

    Examples
    --------
    >>> import numpy as np, gpusvd
    >>> a = np.array([[3.0, 0.0], [4.0, 5.0], [0.0, 0.0]])
    >>> u, s, vh = gpusvd.svd(a)
    >>> u.shape, s.shape, vh.shape
    ((3, 3), (2,), (2, 2))
    >>> s ** 2
    array([45.,  5.])
    >>> np.allclose(u[:, :2] * s @ vh, a)
    True
    >>> gpusvd.svd(np.ones((10, 4, 3)), full_matrices=False).U.shape
    (10, 4, 3)
    """
    return _svd(a, full_matrices, compute_uv, overwrite_a, check_finite, return_info, handle,
                "svd")


@_doc
@on_input_device
def svdvals(a: ArrayLike, *, overwrite_a: bool = False, check_finite: bool = True,
            return_info: bool = False, handle: Optional[Handle] = None) -> Union[Array, tuple]:
    """Singular values of each matrix of ``a``, as ``scipy.linalg.svdvals``.

    Parameters
    ----------
    a : (..., m, n) array_like
        Real matrices: numpy (or anything numpy.asarray takes), torch or CuPy.
{COMMON_PARAMS}

    Returns
    -------
    S : (..., min(m, n)) array
        Non-negative and descending, in the input's precision and array kind.

    Raises
    ------
    LinAlgError
        Jacobi did not converge for some matrix (see ``svd``), unless return_info is True.
{COMMON_RAISES}

    Notes
    -----
    The same copies as ``svd``: C- and Fortran-ordered stacks alike are copied as they are
    (never transposed), and not at all with overwrite_a; so is one matrix, except a tall
    C-ordered one, which gets a transposing copy.

{DEVICE_NOTES}

    Examples
    --------
    >>> import numpy as np, gpusvd
    >>> gpusvd.svdvals(np.array([[3.0, 0.0], [4.0, 5.0]])) ** 2
    array([45.,  5.])
    >>> gpusvd.svdvals(np.zeros((2, 3, 5, 4))).shape
    (2, 3, 4)
    """
    return _svd(a, False, False, overwrite_a, check_finite, return_info, handle, "svdvals")


@_doc
def svd_batched(a: ArrayLike, compute_uv: bool = True, *, full_matrices: bool = False,
                overwrite_a: bool = False, check_finite: bool = True, return_info: bool = False,
                handle: Optional[Handle] = None) -> Union[SVDResult, Array, tuple]:
    """``svd`` of a stack (batch, ..., m, n), economy-size by default: the earlier name.

    Parameters
    ----------
    a : (batch, ..., m, n) array_like
        At least three dimensions.
    compute_uv : bool, default True
        As in ``svd``.
    full_matrices : bool, default False
        As in ``svd``, with the economy SVD as default (this name's earlier behaviour).
{COMMON_PARAMS}

    Returns
    -------
    SVDResult (U, S, Vh), or S alone
        As ``svd(a, full_matrices=full_matrices, compute_uv=compute_uv)``.

    Raises
    ------
    LinAlgError
        As in ``svd``.
{COMMON_RAISES}

    Notes
    -----
    A thin alias of ``svd``; copies and device arrays as there.

    Examples
    --------
    >>> import numpy as np, gpusvd
    >>> u, s, vh = gpusvd.svd_batched(np.ones((5, 4, 3)))
    >>> u.shape, s.shape, vh.shape
    ((5, 4, 3), (5, 3), (5, 3, 3))
    """
    return _svd(a, full_matrices, compute_uv, overwrite_a, check_finite, return_info, handle,
                "svd_batched", min_ndim=3)


# ----------------------------------------------------------------------------------------------
# QR
# ----------------------------------------------------------------------------------------------

def _orth(orth, func):
    if not isinstance(orth, str):
        raise TypeError("gpusvd.%s: orth must be a str ('mgs2' or 'mgs'), not %s"
                        % (func, type(orth).__name__))
    if orth not in _ORTH:
        raise ValueError("gpusvd.%s: orth must be 'mgs2' or 'mgs', not %r" % (func, orth))
    return _ORTH[orth]


def _qr_mode(mode, func):
    if not isinstance(mode, str):
        raise TypeError("gpusvd.%s: mode must be a str ('reduced', 'complete', 'r'; scipy's "
                        "'economic', 'full'), not %s" % (func, type(mode).__name__))
    if mode in _QR_MODES:
        return _QR_MODES[mode]
    if mode == "raw":
        raise NotImplementedError(
            "gpusvd.%s: mode='raw' (Householder reflectors) is not available: gpusvd's QR is "
            "Gram-Schmidt with an explicit Q; use numpy.linalg.qr(a, mode='raw')" % func)
    if mode in _ORTH:
        raise ValueError("gpusvd.%s: mode=%r: mode is the shape of the result now (numpy's "
                         "'reduced', 'complete', 'r' or scipy's 'economic', 'full'); choose "
                         "the Gram-Schmidt flavour with orth=%r" % (func, mode, mode))
    raise ValueError("gpusvd.%s: mode must be 'reduced', 'complete', 'r', 'economic' or "
                     "'full', not %r" % (func, mode))


@_same_kind
def _qr(a, mode, orth, overwrite_a, check_finite, return_info, handle, func, min_ndim=2):
    shape = _qr_mode(mode, func)
    orth = _orth(orth, func)
    ops, a, dt = _stack_input(a, func, check_finite, min_ndim)
    # One C-ordered matrix goes to geqrf_mgs row-major (gpusvdSetMatrixLayout): as it is with
    # overwrite_a, else copied in its own memory order, never transposed. geqrf_mgs_batched is
    # column-major only: a C-ordered stack gets a per-matrix Fortran-ordered copy.
    # (The GPU kernels take complex data column-major only.)
    row_major = _row_major_ok(ops, a) and not (ops.device and dt.kind == "c")
    w, trans, ld, stride = _working(ops, a, dt, row_major, overwrite_a)
    bshape = tuple(a.shape[:-2])
    m, n = a.shape[-2:]
    k = min(m, n)
    # row-major R: a C-ordered (k, n), the transposed view of a Fortran-ordered (n, k)
    r = ops.swap(ops.empty((n, k), dt)) if trans else ops.empty(bshape + (k, n), dt)
    info = _info_array(ops, bshape)
    if trans:  # w is a's C-ordered storage read as A^T: A row-major with lda = its row stride
        _call_row_major(ops, handle, "geqrf_mgs", dt, w, orth, m, n, ops.ptr(w), ld, ops.ptr(r),
                        _ld(n), ops.ptr(info))
        w = ops.swap(w)
    elif not bshape:
        _call(ops, handle, "geqrf_mgs", dt, w, orth, m, n, ops.ptr(w), ld, ops.ptr(r), _ld(k),
              ops.ptr(info))
    else:
        _call(ops, handle, "geqrf_mgs_batched", dt, w, orth, m, n, ops.ptr(w), ld, stride,
              ops.ptr(r), _ld(k), _ld(k) * n, math.prod(bshape), ops.ptr(info))
    info = _finish(ops, info, not bshape, func, False, return_info)
    if shape == "r":
        return _out(r, info, return_info)
    q = w[..., :k]
    if shape == "complete" and m > k:
        q = complete_basis(ops, q)
        full = ops.empty(bshape + (m, n), dt)
        ops.assign(full[..., k:, :], 0.0)
        ops.assign(full[..., :k, :], r)
        r = full
    return _out(QRResult(q, r), info, return_info)


@_doc
@on_input_device
def qr(a: ArrayLike, mode: QRMode = "reduced", *, orth: Orth = "mgs2",
       overwrite_a: bool = False, check_finite: bool = True, return_info: bool = False,
       handle: Optional[Handle] = None) -> Union[QRResult, Array, tuple]:
    """QR by Gram-Schmidt with explicit Q, as ``numpy.linalg.qr``, with ``R[j, j] >= 0``.

    ``a = Q @ R`` for each matrix of ``a``; one matrix (2-D) or any stack ``(..., m, n)``, the
    whole stack in one batched call.

    Parameters
    ----------
    a : (..., m, n) array_like
        Real matrices: numpy (or anything numpy.asarray takes), torch or CuPy.
    mode : str, default 'reduced'
        numpy's names: 'reduced' (Q (..., m, k), R (..., k, n), k = min(m, n)), 'complete'
        (Q (..., m, m), R (..., m, n)), 'r' (R (..., k, n) alone); 'raw' raises
        NotImplementedError (there are no Householder reflectors). scipy's names are
        accepted too: 'economic' is 'reduced' and 'full' is 'complete'.
    orth : {'mgs2', 'mgs'}, default 'mgs2'
        The Gram-Schmidt flavour (gpusvdOrth_t): 'mgs2' reorthogonalises
        (``||I - Q^T Q|| = O(eps)``); 'mgs' is one pass (loss of orthogonality about
        ``eps * cond(a)``), faster on the GPU for small matrices.
{COMMON_PARAMS}

    Returns
    -------
    QRResult (Q, R), or R alone for mode 'r'
        Q with orthonormal columns, R upper trapezoidal with a non-negative diagonal, in the
        input's precision and array kind.

    Raises
    ------
    NotImplementedError
        mode='raw'.
{COMMON_RAISES}

    Notes
    -----
    Default and mode names. The default is numpy's, 'reduced' (the economy QR the library
    computes); scipy.linalg.qr's default is 'full'. The positional second argument is numpy's
    ``mode``. 'r' follows numpy: R alone of shape (..., k, n), not scipy's 1-tuple ``(R,)`` of
    shape (..., m, n).

    A dependent column is not an error (as in numpy and scipy): it gets ``R[j, j] = 0`` and
    a Q column that completes Q orthonormally; the info (return_info=True) is then ``j + 1``
    for the first such column j.

    Copies. The routine writes Q over its input. One matrix in C or Fortran order is given to
    it in its own memory order (C order as a row-major matrix): copied as it is, never
    transposed, and with overwrite_a not copied at all (Q is then a view of ``a``'s first k
    columns). A stack must be in per-matrix Fortran order for the batched routine: a
    C-ordered stack gets a transposing copy, a Fortran-ordered one a plain copy or, with
    overwrite_a, none. For mode 'complete' with m > n, Q's last m - n columns come from the
    complete QR of the thin Q by the input's own array library.

{DEVICE_NOTES}

    Examples
    --------
    >>> import numpy as np, gpusvd
    >>> a = np.array([[3.0, 0.0], [4.0, 5.0], [0.0, 0.0]])
    >>> q, r = gpusvd.qr(a)
    >>> q.shape, r.shape
    ((3, 2), (2, 2))
    >>> np.round(r, 12)
    array([[5., 4.],
           [0., 3.]])
    >>> np.allclose(q @ r, a)
    True
    >>> gpusvd.qr(a, mode="complete").Q.shape
    (3, 3)
    """
    return _qr(a, mode, orth, overwrite_a, check_finite, return_info, handle, "qr")


@_doc
def qr_batched(a: ArrayLike, mode: QRMode = "reduced", *, orth: Orth = "mgs2",
               overwrite_a: bool = False, check_finite: bool = True, return_info: bool = False,
               handle: Optional[Handle] = None) -> Union[QRResult, Array, tuple]:
    """``qr`` of a stack (batch, ..., m, n): the earlier name.

    Parameters
    ----------
    a : (batch, ..., m, n) array_like
        At least three dimensions.
    mode : str, default 'reduced'
        As in ``qr``.
    orth : {'mgs2', 'mgs'}, default 'mgs2'
        As in ``qr`` (this was ``mode`` before ``mode`` took numpy's meaning).
{COMMON_PARAMS}

    Returns
    -------
    QRResult (Q, R), or R alone
        As ``qr``.

    Raises
    ------
    NotImplementedError
        mode='raw'.
{COMMON_RAISES}

    Notes
    -----
    A thin alias of ``qr``; copies and device arrays as there.

    Examples
    --------
    >>> import numpy as np, gpusvd
    >>> q, r = gpusvd.qr_batched(np.random.default_rng(0).random((6, 5, 3)), orth="mgs")
    >>> q.shape, r.shape
    ((6, 5, 3), (6, 3, 3))
    """
    return _qr(a, mode, orth, overwrite_a, check_finite, return_info, handle, "qr_batched",
               min_ndim=3)


# ----------------------------------------------------------------------------------------------
# Eigenvalues
# ----------------------------------------------------------------------------------------------

@_same_kind
def _geev(a, vectors, overwrite_a, check_finite, return_info, handle, func, min_ndim=2):
    ops, a, dt = _stack_input(a, func, check_finite, min_ndim, square=True)
    # A and A^T have the same eigenvalues, so for eigvals a C-ordered stack is read as the
    # Fortran-ordered stack of its transposes; the eigenvectors of A^T are not A's.
    w, _, ld, stride = _working(ops, a, dt, not vectors, overwrite_a)
    bshape = tuple(a.shape[:-2])
    n = a.shape[-1]
    vr = ops.empty(bshape + (n, n), dt) if vectors else None
    info = _info_array(ops, bshape)
    # geev has no one-matrix routine: one matrix is a batch of one. Complex data: one complex
    # eigenvalue array and complex vectors, as LAPACK zgeev gives them.
    if dt.kind == "c":
        wr = wi = ops.rows(bshape + (n,), dt)
        ws = (ops.ptr(wr),)
    else:
        wr = ops.rows(bshape + (n,), dt)
        wi = ops.rows(bshape + (n,), dt)
        ws = (ops.ptr(wr), ops.ptr(wi))
    _call(ops, handle, "geev_batched", dt, w, 1 if vectors else 0, n, ops.ptr(w), ld,
          stride, *ws, n, _ptr(ops, vr), _ld(n), _ld(n) * n, math.prod(bshape), ops.ptr(info))
    info = _finish(ops, info, not bshape, "%s: the QR algorithm did not converge" % func, True,
                   return_info)
    if dt.kind == "c":
        vals = wr
        res = EigResult(vals, vr) if vectors else vals
    else:
        vals = ops.complex_values(wr, wi)
        res = EigResult(vals, ops.complex_vectors(vr, wi)) if vectors else vals
    return _out(res, info, return_info)


@_doc
@on_input_device
def eigvals(a: ArrayLike, *, overwrite_a: bool = False, check_finite: bool = True,
            return_info: bool = False, handle: Optional[Handle] = None) -> Union[Array, tuple]:
    """Eigenvalues of general real square matrices, as ``scipy.linalg.eigvals``.

    One matrix (2-D) or any stack ``(..., n, n)``, in one batched call (gpusvd_Xgeev_batched,
    LAPACK dgeev's conventions: balancing; complex conjugate pairs adjacent, positive
    imaginary part first).

    Parameters
    ----------
    a : (..., n, n) array_like
        Real square matrices: numpy (or anything numpy.asarray takes), torch or CuPy.
{COMMON_PARAMS}

    Returns
    -------
    w : (..., n) complex array
        complex64 for float32 input, complex128 for float64, whether or not the eigenvalues
        are real (see Notes).

    Raises
    ------
    LinAlgError
        The QR algorithm failed for some matrix (info > 0: eigenvalues info..n, 1-based,
        converged), unless return_info is True.
{COMMON_RAISES}
        Also ValueError for matrices that are not square.

    Notes
    -----
    Always complex, as scipy.linalg.eigvals and torch.linalg.eigvals: the dtype does not
    depend on the data (numpy.linalg.eigvals returns a real array when every eigenvalue of
    the whole input is real, which on a device would need a synchronising check). Use
    ``w.real`` where the eigenvalues are known to be real.

    Copies. The routine destroys its input. A and A^T have the same eigenvalues, so a
    C-ordered ``a`` is passed as the Fortran-ordered stack of its transposes: it is copied as
    it is (never transposed), and with overwrite_a not copied at all. The order of the
    eigenvalues (apart from pairs being adjacent) is not specified, as in LAPACK.

{DEVICE_NOTES}

    Examples
    --------
    >>> import numpy as np, gpusvd
    >>> w = gpusvd.eigvals(np.array([[2.0, 1.0], [0.0, 3.0]]))
    >>> w.dtype, np.sort(w.real)
    (dtype('complex128'), array([2., 3.]))
    >>> rotation = np.array([[0.0, -1.0], [1.0, 0.0]])
    >>> np.allclose(gpusvd.eigvals(rotation), [1j, -1j])
    True
    >>> gpusvd.eigvals(np.zeros((100, 4, 4))).shape
    (100, 4)
    """
    return _geev(a, False, overwrite_a, check_finite, return_info, handle, "eigvals")


@_doc
@on_input_device
def eig(a: ArrayLike, *, overwrite_a: bool = False, check_finite: bool = True,
        return_info: bool = False, handle: Optional[Handle] = None) -> Union[EigResult, tuple]:
    """Eigenvalues and right eigenvectors of general real square matrices, as
    ``numpy.linalg.eig``.

    One matrix (2-D) or any stack ``(..., n, n)``, in one batched call: ``a @ v = v * w`` with
    ``w[..., j]`` the eigenvalue of the column ``v[..., :, j]``.

    Parameters
    ----------
    a : (..., n, n) array_like
        Real square matrices: numpy (or anything numpy.asarray takes), torch or CuPy.
{COMMON_PARAMS}

    Returns
    -------
    EigResult (eigenvalues, eigenvectors)
        w (..., n) and v (..., n, n), both complex (complex64 for float32, complex128 for
        float64; always, see ``eigvals``). Each vector has unit 2-norm and its largest
        component real (dgeev's normalisation, numpy's too).

    Raises
    ------
    LinAlgError
        The QR algorithm failed for some matrix, unless return_info is True.
{COMMON_RAISES}
        Also ValueError for matrices that are not square.

    Notes
    -----
    v is built from LAPACK's real layout: for a complex pair (j, j+1) (positive imaginary part
    first) ``v_j = VR[:, j] + i VR[:, j+1]`` and ``v_{j+1} = conj(v_j)``.

    Copies. The routine needs each matrix in Fortran (column-major) order and destroys it:
    ``a`` is copied into per-matrix Fortran order (for C-ordered input a transposing copy;
    the eigenvectors of A^T are not A's) unless overwrite_a allows working in a
    Fortran-ordered ``a``. The complex v is a new array built from the library's real VR.

{DEVICE_NOTES}

    Examples
    --------
    >>> import numpy as np, gpusvd
    >>> a = np.array([[2.0, 1.0], [0.0, 3.0]])
    >>> w, v = gpusvd.eig(a)
    >>> np.allclose(a @ v, v * w)
    True
    >>> w, v = gpusvd.eig(np.random.default_rng(0).random((50, 6, 6)))
    >>> w.shape, v.shape, v.dtype
    ((50, 6), (50, 6, 6), dtype('complex128'))
    """
    return _geev(a, True, overwrite_a, check_finite, return_info, handle, "eig")


@_doc
def eigvals_batched(a: ArrayLike, *, overwrite_a: bool = False, check_finite: bool = True,
                    return_info: bool = False,
                    handle: Optional[Handle] = None) -> Union[Array, tuple]:
    """``eigvals`` of a stack (batch, ..., n, n): the earlier name.

    Parameters
    ----------
    a : (batch, ..., n, n) array_like
        At least three dimensions.
{COMMON_PARAMS}

    Returns
    -------
    w : (batch, ..., n) complex array
        As ``eigvals``.

    Raises
    ------
    LinAlgError
        As in ``eigvals``.
{COMMON_RAISES}

    Notes
    -----
    A thin alias of ``eigvals``; copies and device arrays as there.

    Examples
    --------
    >>> import numpy as np, gpusvd
    >>> gpusvd.eigvals_batched(np.zeros((7, 3, 3))).shape
    (7, 3)
    """
    return _geev(a, False, overwrite_a, check_finite, return_info, handle, "eigvals_batched",
                 min_ndim=3)


@_doc
def eig_batched(a: ArrayLike, *, overwrite_a: bool = False, check_finite: bool = True,
                return_info: bool = False,
                handle: Optional[Handle] = None) -> Union[EigResult, tuple]:
    """``eig`` of a stack (batch, ..., n, n): the earlier name.

    Parameters
    ----------
    a : (batch, ..., n, n) array_like
        At least three dimensions.
{COMMON_PARAMS}

    Returns
    -------
    EigResult (eigenvalues, eigenvectors)
        As ``eig``.

    Raises
    ------
    LinAlgError
        As in ``eig``.
{COMMON_RAISES}

    Notes
    -----
    A thin alias of ``eig``; copies and device arrays as there.

    Examples
    --------
    >>> import numpy as np, gpusvd
    >>> w, v = gpusvd.eig_batched(np.zeros((7, 3, 3)))
    >>> w.shape, v.shape
    ((7, 3), (7, 3, 3))
    """
    return _geev(a, True, overwrite_a, check_finite, return_info, handle, "eig_batched",
                 min_ndim=3)


# ----------------------------------------------------------------------------------------------
# Bidiagonal SVD
# ----------------------------------------------------------------------------------------------

@on_input_device
def bdsvd(d: ArrayLike, e: ArrayLike, lower: bool = False, compute_uv: bool = True, *,
          check_finite: bool = True, return_info: bool = False,
          handle: Optional[Handle] = None) -> Union[Tuple[Array, Array, Array], Array, tuple]:
    """SVD of the n x n bidiagonal matrix B with diagonal d and off-diagonal e.

    ``B = U @ diag(s) @ Vt`` (gpusvd_Xbdsvd).

    Parameters
    ----------
    d : (n,) array_like
        The diagonal.
    e : (n - 1,) array_like
        The superdiagonal (lower=False) or the subdiagonal (lower=True).
    lower : bool, default False
        Whether e is the subdiagonal.
    compute_uv : bool, default True
        False: return s alone.
    check_finite : bool, default True
        Host arrays: raise ValueError if d or e holds NaN or Inf; with False the outputs of
        such input are NaN and info is -1.
    return_info : bool, default False
        Also return the info (an int; a 0-d device array for device input) and do not raise
        LinAlgError for info > 0.
    handle : gpusvd.Handle, optional
        Default: the calling thread's default handle.

    Returns
    -------
    (U, s, Vt), or s alone
        U (n, n) and Vt (n, n) Fortran-ordered; s (n,) non-negative and descending, in the
        common precision of d and e (float32 only when both are float32).

    Raises
    ------
    LinAlgError
        A singular value did not converge, unless return_info is True.
    ValueError
        d or e is not 1-D, e does not have n - 1 entries, or NaN/Inf with check_finite.
    TypeError
        An unsupported dtype (complex, ...).

    Notes
    -----
    d and e are always copied (the routine overwrites d with s and destroys e). Device
    arrays go to the ``_gpu`` form as in ``svd``.

    Examples
    --------
    >>> import numpy as np, gpusvd
    >>> s = gpusvd.bdsvd(np.array([3.0, 5.0]), np.array([4.0]), compute_uv=False)
    >>> s ** 2
    array([45.,  5.])
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
    if dt.kind == "c":
        raise TypeError("gpusvd.bdsvd: d and e must be real (a bidiagonal matrix from a complex "
                        "reduction is made real by diagonal scaling), got %s" % dt)
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


# The note that pca appends to its docstring (kept for _pca.py).
_COMMON_DOC = """
    check_finite : bool, default True
        Host arrays only: raise ValueError if the input holds NaN or Inf (as scipy does). With
        False such matrices are passed through: the library does not factorize them, sets
        their outputs to NaN and their info to -1.
    handle : gpusvd.Handle, optional
        Default: the calling thread's default handle.

    Device arrays (CuPy, torch CUDA tensors, any __cuda_array_interface__ or DLPack CUDA
    array) go to the library's ``_gpu`` form on the array's device and on the current
    CuPy/torch stream, with no host copy; the outputs are arrays of the same library.
"""
