"""gpusvd on Dask arrays: batched SVD, QR and eigenvalues over chunked stacks, and the tall QR,
SVD and PCA of a tall-and-skinny array as a reduction of per-chunk R factors.

Batched functions (``svd``, ``svdvals``, ``qr``, ``eig``, ``eigvals`` on ``(..., m, n)``
stacks) run gpusvd's own function on each chunk of the batch axes: one task per chunk, numpy
or CuPy chunks alike, results chunked like the batch axes. The matrix axes are rechunked to
single chunks when they are split (a matrix is never cut).

Tall functions (``qr``, ``svd``, ``svdvals`` of a 2-D array split along its rows, and ``pca``)
factor each row chunk with ``gpusvd.qr``, reduce the stacked R factors by ``gpusvd.qr`` again
in a tree, and form each chunk's Q block as its local Q times its block of the tree's Q: one
pass over the data, an n x n matrix per chunk travelling between workers.

Every worker thread uses its own default gpusvd handle (see ``gpusvd.default_handle``): with a
Dask cluster of one worker per GPU, CuPy chunks run on each worker's GPU.

Needs Dask (``pip install "dask[array]" distributed``; distributed only for clusters).
"""
from __future__ import annotations

import functools
import itertools
import math
import operator
from typing import Any, Optional, Union

import numpy as np

try:
    import dask
    import dask.array as da
    from dask.array.utils import meta_from_array
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph
except ImportError as _exc:  # pragma: no cover - exercised where dask is absent
    raise ImportError("gpusvd.dask needs Dask: pip install \"dask[array]\" distributed (%s)"
                      % (_exc,)) from _exc

from . import _linalg
from ._arrays import complex_dtype, ops_for, result_dtype
from ._errors import LinAlgError
from ._linalg import EigResult, QRResult, SVDResult, _qr_mode
from ._pca import PCAResult, _first_exceeding, _Fraction, _parse_n_components

__all__ = ["svd", "svdvals", "qr", "eig", "eigvals", "pca"]


def _real_dtype_only(dtype: Any) -> Any:
    """result_dtype for the Dask wrappers, which take real data only (TypeError for complex:
    use the numpy functions on complex chunks)."""
    dt = result_dtype(dtype)
    if dt.kind == "c":
        raise TypeError("gpusvd.dask: complex arrays are not supported by the Dask wrappers "
                        "(got %s)" % dt)
    return dt


#: R factors stacked and factored together at each level of the tall reduction.
SPLIT_EVERY = 8

_BATCH_LETTERS = "abcdefghijklmnopqrstuvwx"


# ----------------------------------------------------------------------------------------------
# Inputs
# ----------------------------------------------------------------------------------------------

def _as_dask(a: Any, func: str) -> "da.Array":
    if not isinstance(a, da.Array):
        a = da.asarray(a)
    if a.ndim < 2:
        raise ValueError("gpusvd.dask.%s: expected a matrix (m, n) or a stack of matrices "
                         "(..., m, n), got an array of shape %s" % (func, a.shape))
    if any(math.isnan(c) for cs in a.chunks for c in cs):
        raise ValueError("gpusvd.dask.%s: the chunk sizes of the array are unknown; call "
                         "compute_chunk_sizes() first" % func)
    _real_dtype_only(a.dtype)  # TypeError for complex, object, ... before any graph is built
    return a


def _whole_matrices(a: "da.Array") -> "da.Array":
    """a with its last two axes in single chunks (rechunked only where they are split)."""
    if len(a.chunks[-1]) == 1 and len(a.chunks[-2]) == 1:
        return a
    return a.rechunk({a.ndim - 2: -1, a.ndim - 1: -1})


def _whole_columns(a: "da.Array") -> "da.Array":
    return a if len(a.chunks[1]) == 1 else a.rechunk({1: -1})


def _meta(a: "da.Array", ndim: int, dtype: Any) -> Any:
    """An empty array of a's chunk type (numpy, CuPy) with `ndim` dimensions and `dtype`."""
    return meta_from_array(a._meta, ndim=ndim, dtype=dtype)


# ----------------------------------------------------------------------------------------------
# Batched functions: one gpusvd call per chunk of the batch axes
# ----------------------------------------------------------------------------------------------

def _as_tuple(res: Any) -> tuple:
    return tuple(res) if isinstance(res, tuple) else (res,)


def _info_block(res: tuple, return_info: bool) -> tuple:
    """The block's outputs with an int info (one matrix) made a 0-d int32 array."""
    if return_info and isinstance(res[-1], (int, np.integer)):
        res = res[:-1] + (np.asarray(res[-1], np.int32),)
    return res


def _run_block(func: str, args: tuple, kwargs: dict, block: Any) -> tuple:
    res = _as_tuple(getattr(_linalg, func)(block, *args, **kwargs))
    return _info_block(res, kwargs.get("return_info", False))


def _batched(a: "da.Array", func: str, args: tuple, kwargs: dict, outputs: list) -> tuple:
    """Dask arrays of gpusvd.<func>(block, *args, **kwargs) over the batch chunks of a.
    outputs: (trailing shape, dtype) of each of the function's outputs, in order."""
    a = _whole_matrices(a)
    nb = a.ndim - 2
    if nb > len(_BATCH_LETTERS):
        raise ValueError("gpusvd.dask.%s: at most %d batch axes" % (func, len(_BATCH_LETTERS)))
    token = tokenize(a, func, args, sorted(kwargs.items()))
    name = "gpusvd-%s-%s" % (func, token)
    run = functools.partial(_run_block, func, args, kwargs)
    blocks = list(itertools.product(*(range(len(c)) for c in a.chunks[:nb])))
    dsk = {(name,) + i: (run, (a.name,) + i + (0, 0)) for i in blocks}
    # The object array of the per-block result tuples; each output picks its element.
    tuples = da.Array(HighLevelGraph.from_collections(name, dsk, dependencies=[a]), name,
                      chunks=a.chunks[:nb], meta=np.empty((0,) * nb, dtype=object))
    out = []
    for j, (tail, dtype) in enumerate(outputs):
        oname = "%s-%d-%s" % (func, j, token)
        zeros = (0,) * len(tail)
        odsk = {(oname,) + i + zeros: (operator.getitem, (name,) + i, j) for i in blocks}
        graph = HighLevelGraph.from_collections(oname, odsk, dependencies=[tuples])
        out.append(da.Array(graph, oname, chunks=a.chunks[:nb] + tuple((t,) for t in tail),
                            meta=_meta(a, nb + len(tail), dtype)))
    return tuple(out)


def _result(out: tuple, kind: Any, return_info: bool) -> Any:
    """The outputs as gpusvd returns them: kind(...) of the factors (or the one array), with
    the info last when asked for."""
    values, info = (out[:-1], out[-1]) if return_info else (out, None)
    res = kind(*values) if kind is not None else values[0]
    if return_info:
        return (tuple(res) if isinstance(res, tuple) else (res,)) + (info,)
    return res


def _outputs(items: list, return_info: bool) -> list:
    return items + ([((), np.int32)] if return_info else [])


_NOTES = """\
    Each chunk of the batch axes is one task calling gpusvd's function of the same name on
    that chunk (numpy or CuPy), so the results are those of gpusvd on the whole stack, chunked
    like the input's batch axes. The matrix axes are rechunked to one chunk each where they
    are split. With return_info False a failed matrix raises LinAlgError when the result is
    computed; the info (return_info True) is an int32 Dask array of the batch shape.
    ``overwrite_a`` is passed to each task: use it only when the chunks are not read by
    anything else (``da.from_array`` chunks are views of the source array, which it would
    overwrite). There is no ``handle``: each worker thread uses its default handle."""


def _doc(f):
    f.__doc__ = f.__doc__.replace("{NOTES}", _NOTES)
    return f


@_doc
def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, *,
        overwrite_a: bool = False, check_finite: bool = True,
        return_info: bool = False) -> Any:
    """Singular value decomposition of each matrix of a Dask array, as ``gpusvd.svd``.

    Parameters
    ----------
    a : (..., m, n) dask array or array_like
        A stack (batch axes chunked as you like), or one matrix. A 2-D array split into
        several row chunks with ``m >= n`` takes the tall path (see Notes).
    full_matrices, compute_uv, overwrite_a, check_finite, return_info
        As in ``gpusvd.svd``. The tall path computes the economy SVD: it needs
        ``full_matrices=False`` (ValueError otherwise) and has no return_info.

    Returns
    -------
    SVDResult (U, S, Vh) of Dask arrays, or S alone when compute_uv is False
        With the info last when return_info is True.

    Notes
    -----
{NOTES}

    Tall path: ``A = Q R`` by the tall reduction of ``qr``, then ``R = U_R S Vh`` by
    ``gpusvd.svd`` on one chunk, and ``U = Q U_R`` chunked like a's rows.

    Examples
    --------
    >>> import dask, dask.array as da, numpy as np, gpusvd, gpusvd.dask
    >>> x = np.random.default_rng(0).standard_normal((100, 5, 4))
    >>> u, s, vh = gpusvd.dask.svd(da.from_array(x, chunks=(25, 5, 4)), full_matrices=False)
    >>> u.chunks[0], u.shape
    ((25, 25, 25, 25), (100, 5, 4))
    >>> with dask.config.set(scheduler="synchronous"):
    ...     bool(np.allclose(s.compute(), gpusvd.svdvals(x)))
    True
    """
    a = _as_dask(a, "svd")
    if a.ndim == 2 and len(a.chunks[0]) > 1 and a.shape[0] >= a.shape[1]:
        if full_matrices:
            raise ValueError("gpusvd.dask.svd: a tall array in %d row chunks gets the economy "
                             "SVD; pass full_matrices=False" % len(a.chunks[0]))
        _no_info("svd", return_info)
        u, s, vh, _ = _tall_svd(a, check_finite, compute_uv)
        return SVDResult(u, s, vh) if compute_uv else s
    dt = _real_dtype_only(a.dtype)
    m, n = a.shape[-2:]
    k = min(m, n)
    kw = dict(overwrite_a=overwrite_a, check_finite=check_finite, return_info=return_info)
    if not compute_uv:
        out = _batched(a, "svd", (False, False), kw, _outputs([((k,), dt)], return_info))
        return _result(out, None, return_info)
    ur, vc = (m, n) if full_matrices else (k, k)
    out = _batched(a, "svd", (full_matrices, True), kw,
                   _outputs([((m, ur), dt), ((k,), dt), ((vc, n), dt)], return_info))
    return _result(out, SVDResult, return_info)


@_doc
def svdvals(a: Any, *, overwrite_a: bool = False, check_finite: bool = True,
            return_info: bool = False) -> Any:
    """Singular values of each matrix of a Dask array, as ``gpusvd.svdvals``.

    Parameters
    ----------
    a : (..., m, n) dask array or array_like
        A stack, or one matrix; a 2-D array in several row chunks with ``m >= n`` takes the
        tall path of ``svd`` (no return_info there).
    overwrite_a, check_finite, return_info
        As in ``gpusvd.svdvals``.

    Returns
    -------
    S : (..., min(m, n)) Dask array
        With the info after it when return_info is True.

    Notes
    -----
{NOTES}

    Examples
    --------
    >>> import dask, dask.array as da, numpy as np, gpusvd.dask
    >>> a = da.from_array(np.stack([np.diag([3.0, 4.0])] * 6), chunks=(2, 2, 2))
    >>> gpusvd.dask.svdvals(a).compute(scheduler="synchronous")[0]
    array([4., 3.])
    """
    a = _as_dask(a, "svdvals")
    if a.ndim == 2 and len(a.chunks[0]) > 1 and a.shape[0] >= a.shape[1]:
        _no_info("svdvals", return_info)
        return _tall_svd(a, check_finite, False)[1]
    dt = _real_dtype_only(a.dtype)
    kw = dict(overwrite_a=overwrite_a, check_finite=check_finite, return_info=return_info)
    out = _batched(a, "svdvals", (), kw,
                   _outputs([((min(a.shape[-2:]),), dt)], return_info))
    return _result(out, None, return_info)


@_doc
def eigvals(a: Any, *, overwrite_a: bool = False, check_finite: bool = True,
            return_info: bool = False) -> Any:
    """Eigenvalues of each square matrix of a Dask array, as ``gpusvd.eigvals``.

    Parameters
    ----------
    a : (..., n, n) dask array or array_like
    overwrite_a, check_finite, return_info
        As in ``gpusvd.eigvals``.

    Returns
    -------
    w : (..., n) complex Dask array
        With the info after it when return_info is True.

    Notes
    -----
{NOTES}

    Examples
    --------
    >>> import dask.array as da, numpy as np, gpusvd.dask
    >>> a = da.from_array(np.stack([[[2.0, 1.0], [0.0, 3.0]]] * 4), chunks=(2, 2, 2))
    >>> w = gpusvd.dask.eigvals(a)
    >>> w.dtype, w.chunks[0]
    (dtype('complex128'), (2, 2))
    >>> np.sort(w.compute(scheduler="synchronous")[3].real)
    array([2., 3.])
    """
    a = _square(_as_dask(a, "eigvals"), "eigvals")
    ct = complex_dtype(_real_dtype_only(a.dtype))
    kw = dict(overwrite_a=overwrite_a, check_finite=check_finite, return_info=return_info)
    out = _batched(a, "eigvals", (), kw, _outputs([((a.shape[-1],), ct)], return_info))
    return _result(out, None, return_info)


@_doc
def eig(a: Any, *, overwrite_a: bool = False, check_finite: bool = True,
        return_info: bool = False) -> Any:
    """Eigenvalues and right eigenvectors of each square matrix of a Dask array, as
    ``gpusvd.eig``.

    Parameters
    ----------
    a : (..., n, n) dask array or array_like
    overwrite_a, check_finite, return_info
        As in ``gpusvd.eig``.

    Returns
    -------
    EigResult (eigenvalues, eigenvectors) of complex Dask arrays
        (..., n) and (..., n, n); with the info last when return_info is True.

    Notes
    -----
{NOTES}

    Examples
    --------
    >>> import dask.array as da, numpy as np, gpusvd.dask
    >>> x = np.random.default_rng(1).random((8, 3, 3))
    >>> w, v = gpusvd.dask.eig(da.from_array(x, chunks=(4, 3, 3)))
    >>> w, v = w.compute(scheduler="synchronous"), v.compute(scheduler="synchronous")
    >>> bool(np.allclose(x @ v, v * w[:, None, :]))
    True
    """
    a = _square(_as_dask(a, "eig"), "eig")
    n = a.shape[-1]
    ct = complex_dtype(_real_dtype_only(a.dtype))
    kw = dict(overwrite_a=overwrite_a, check_finite=check_finite, return_info=return_info)
    out = _batched(a, "eig", (), kw, _outputs([((n,), ct), ((n, n), ct)], return_info))
    return _result(out, EigResult, return_info)


def _square(a: "da.Array", func: str) -> "da.Array":
    if a.shape[-1] != a.shape[-2]:
        raise ValueError("gpusvd.dask.%s: matrices must be square, got shape %s"
                         % (func, a.shape))
    return a


def _no_info(func: str, return_info: bool) -> None:
    if return_info:
        raise ValueError("gpusvd.dask.%s: return_info is not available for a tall array in "
                         "several row chunks" % func)


@_doc
def qr(a: Any, mode: str = "reduced", *, orth: str = "mgs2", overwrite_a: bool = False,
       check_finite: bool = True, return_info: bool = False,
       split_every: Optional[int] = None) -> Any:
    """QR of each matrix of a Dask array, or the tall QR of a 2-D array split into row
    chunks, as ``gpusvd.qr`` (R with a non-negative diagonal).

    Parameters
    ----------
    a : (..., m, n) dask array or array_like
        A stack (batch axes chunked), or one matrix. A 2-D array in several row chunks takes
        the tall reduction (see Notes); its columns are rechunked to one chunk.
    mode : str, default 'reduced'
        As in ``gpusvd.qr``. The tall reduction gives 'reduced' ('economic') and 'r';
        'complete' ('full') raises ValueError there (Q would be m x m).
    orth, overwrite_a, check_finite, return_info
        As in ``gpusvd.qr``; the tall reduction passes orth and check_finite to every
        factorisation, ignores overwrite_a (its chunks are never written), and its info
        (return_info) is that of the last factorisation, a 0-d Dask array: ``j + 1`` for the
        first column j that depends on the earlier ones, -1 for data with NaN or Inf
        (check_finite False).
    split_every : int, optional
        Tall reduction: R factors stacked and factored together at each level of the tree
        (default ``gpusvd.dask.SPLIT_EVERY``, 8); at least 2.

    Returns
    -------
    QRResult (Q, R) of Dask arrays, or R alone for mode 'r'
        Tall reduction: Q (m, k) chunked like a's rows, R (k, n) in one chunk,
        k = min(m, n). With the info last when return_info is True.

    Notes
    -----
{NOTES}

    Tall reduction (TSQR): each row chunk ``A_i = Q_i R_i`` by ``gpusvd.qr``; the R factors
    are stacked ``split_every`` at a time and factored again by ``gpusvd.qr``, level by level,
    until one R is left: R of A, whose diagonal is non-negative as gpusvd's. Chunk i's block
    of Q is ``Q_i`` times its rows of the product of the tree's Q factors. Q and R are
    computed from one graph: compute them together (``dask.compute(q, r)``) so the data is
    read once.

    Examples
    --------
    >>> import dask, dask.array as da, numpy as np, gpusvd, gpusvd.dask
    >>> x = np.random.default_rng(2).standard_normal((1000, 4))
    >>> q, r = gpusvd.dask.qr(da.from_array(x, chunks=(250, 4)))
    >>> q.chunks, r.shape
    (((250, 250, 250, 250), (4,)), (4, 4))
    >>> q, r = dask.compute(q, r, scheduler="synchronous")
    >>> bool(np.allclose(q @ r, x)), bool(np.allclose(r, gpusvd.qr(x).R))
    (True, True)
    """
    a = _as_dask(a, "qr")
    shape = _qr_mode(mode, "qr")
    _linalg._orth(orth, "qr")
    if a.ndim == 2 and len(a.chunks[0]) > 1:
        if shape == "complete":
            raise ValueError("gpusvd.dask.qr: mode=%r is not available for a tall array in "
                             "several row chunks (Q would be m x m); use 'reduced'" % (mode,))
        q, r, info = _tsqr(_whole_columns(a), orth, check_finite, split_every)
        res = r if shape == "r" else QRResult(q, r)
        return _result((res, info), None, True) if return_info else res
    dt = _real_dtype_only(a.dtype)
    m, n = a.shape[-2:]
    k = min(m, n)
    kw = dict(orth=orth, overwrite_a=overwrite_a, check_finite=check_finite,
              return_info=return_info)
    if shape == "r":
        out = _batched(a, "qr", ("r",), kw, _outputs([((k, n), dt)], return_info))
        return _result(out, None, return_info)
    qc, rr = (m, m) if shape == "complete" else (k, k)
    out = _batched(a, "qr", (mode,), kw,
                   _outputs([((m, qc), dt), ((rr, n), dt)], return_info))
    return _result(out, QRResult, return_info)


# ----------------------------------------------------------------------------------------------
# The tall reduction
# ----------------------------------------------------------------------------------------------

def _leaf(block: Any, orth: str, check_finite: bool) -> tuple:
    q, r = _linalg.qr(block, orth=orth, check_finite=check_finite)
    return q, r


def _node(rs: list, orth: str) -> tuple:
    """QR of the stacked R factors of a node's children: (Q of the stack, R, info)."""
    ops, _ = ops_for(rs[0])
    stacked = ops.concat([ops.swap(r) for r in rs])  # concat joins the last axis
    # The R factors are finite where the chunks were; NaN from check_finite=False passes on.
    q, r, info = _linalg.qr(ops.swap(stacked), orth=orth, check_finite=False,
                            return_info=True)
    return q, r, np.asarray(info, np.int32) if isinstance(info, int) else info


def _down(parent_q: Any, start: int, stop: int, parent_t: Any) -> Any:
    """A node's rows of its parent's stack Q, times the parent's own factor (None at the
    root: the identity)."""
    t = parent_q[start:stop]
    return t if parent_t is None else t @ parent_t


def _tsqr(a: "da.Array", orth: str, check_finite: bool, split_every: Optional[int]) -> tuple:
    """(Q, R, info) of the tall reduction of a (m, n), columns in one chunk."""
    split = SPLIT_EVERY if split_every is None else split_every
    if not isinstance(split, (int, np.integer)) or isinstance(split, bool) or split < 2:
        raise ValueError("gpusvd.dask.qr: split_every must be an integer >= 2, not %r"
                         % (split_every,))
    m, n = a.shape
    dt = _real_dtype_only(a.dtype)
    delayed = functools.partial(dask.delayed, pure=True)
    blocks = a.to_delayed().ravel()
    leaves = [delayed(_leaf, nout=2)(b, orth, check_finite) for b in blocks]
    # nodes: (Q, R, rows of R) per node of the current level; tree: per level above the
    # leaves, (children of each node as (index, start, stop) in its stack, the node's Q).
    level = [(q, r, min(rows, n)) for (q, r), rows in zip(leaves, a.chunks[0])]
    tree = []
    info = None
    while len(level) > 1 or not tree:
        parents, links = [], []
        for g in range(0, len(level), split):
            group = level[g:g + split]
            q, r, info = delayed(_node, nout=3)([x[1] for x in group], orth)
            rows = sum(x[2] for x in group)
            spans, start = [], 0
            for x in group:
                spans.append((start, start + x[2]))
                start += x[2]
            parents.append((q, r, min(rows, n)))
            links.append(spans)
        tree.append((links, [p[0] for p in parents]))
        level = parents
    r = level[0][1]
    # Top down: each node's factor T (its rows of the product of the Q's above it).
    factors = [None]
    for links, qs in reversed(tree):
        below = []
        for j, spans in enumerate(links):
            for start, stop in spans:
                below.append(delayed(_down)(qs[j], start, stop, factors[j]))
        factors = below
    k = min(m, n)
    meta = _meta(a, 2, dt)
    qblocks = [da.from_delayed(delayed(operator.matmul)(lq, t), (rows, k), dtype=dt, meta=meta)
               for (lq, _), t, rows in zip(leaves, factors, a.chunks[0])]
    q = da.concatenate(qblocks, axis=0)
    r = da.from_delayed(r, (k, n), dtype=dt, meta=meta)
    info = da.from_delayed(info, (), dtype=np.int32, meta=_meta(a, 0, np.int32))
    return q, r, info


def _svd_of_r(r: Any, sign_fix: bool) -> tuple:
    """(U_R, S, Vh) of the small R by gpusvd.svd; with sign_fix, each row of Vh gets its
    entry of largest magnitude (the first on ties) positive, and U_R's column the same sign."""
    u, s, vh, info = _linalg.svd(r, full_matrices=False, check_finite=False, return_info=True)
    ops, _ = ops_for(vh)
    code = int(np.asarray(ops.to_host(info) if ops.device else info).reshape(-1)[0])
    if code > 0:
        raise LinAlgError("gpusvd.dask: the SVD of R did not converge (info = %d)" % code, code)
    if sign_fix and vh.shape[0] > 0:
        xp = getattr(ops, "cp", np)
        big = xp.take_along_axis(vh, abs(vh).argmax(axis=1)[:, None], axis=1)[:, 0]
        signs = xp.where(big >= 0, 1.0, -1.0).astype(vh.dtype)
        vh = vh * signs[:, None]
        u = u * signs[None, :]
    return u, s, vh, np.asarray(info, np.int32) if isinstance(info, int) else info


def _tall_svd(a: "da.Array", check_finite: bool, compute_uv: bool, sign_fix: bool = False,
              split_every: Optional[int] = None) -> tuple:
    """(U, S, Vh, info) of a (m, n) through the tall reduction and the SVD of R."""
    a = _whole_columns(a)
    q, r, _ = _tsqr(a, "mgs2", check_finite, split_every)
    m, n = a.shape
    k = min(m, n)
    dt = _real_dtype_only(a.dtype)
    parts = dask.delayed(_svd_of_r, nout=4, pure=True)(r.to_delayed()[0, 0], sign_fix)
    meta = _meta(a, 2, dt)
    ur = da.from_delayed(parts[0], (k, k), dtype=dt, meta=meta)
    s = da.from_delayed(parts[1], (k,), dtype=dt, meta=_meta(a, 1, dt))
    vh = da.from_delayed(parts[2], (k, n), dtype=dt, meta=meta)
    info = da.from_delayed(parts[3], (), dtype=np.int32, meta=_meta(a, 0, np.int32))
    u = q @ ur if compute_uv else None
    return u, s, vh, info


# ----------------------------------------------------------------------------------------------
# PCA
# ----------------------------------------------------------------------------------------------

def pca(x: Any, n_components: Union[None, int, float] = None, *, compute_scores: bool = True,
        check_finite: bool = True, split_every: Optional[int] = None) -> PCAResult:
    """Principal component analysis of a tall Dask array (samples as rows, split into row
    chunks), as ``gpusvd.pca`` with its QR method.

    Parameters
    ----------
    x : (m, n) dask array or array_like
        Samples as rows; the columns are rechunked to one chunk.
    n_components : None, int or float, default None
        As in ``gpusvd.pca``: None keeps ``min(m, n)``; an int k, ``0 <= k <= min(m, n)``; a
        float in (0, 1) keeps the fewest components whose cumulative explained variance ratio
        exceeds it. A float computes the spectrum at once (it decides the output shapes).
    compute_scores : bool, default True
        False leaves ``scores`` None.
    check_finite : bool, default True
        Raise ValueError (when computed) for data with NaN or Inf; with False such data
        gives NaN outputs and ``info`` -1.
    split_every : int, optional
        As in ``qr``.

    Returns
    -------
    PCAResult
        Its fields as in ``gpusvd.pca``, Dask arrays: ``components`` (k, n),
        ``explained_variance``, ``explained_variance_ratio``, ``singular_values`` (k,),
        ``mean`` (n,), ``scores`` (m, k) chunked like x's rows, and the 0-d ``info``,
        ``noise_variance``, ``total_variance``. Compute the ones you need together
        (``dask.compute``) so the data is read once per pass.

    Raises
    ------
    ValueError
        Fewer than 2 samples, or an n_components out of range.
    TypeError
        An n_components that is not None, an int or a float (bools too).

    Notes
    -----
    The column means come first, as one reduction accumulated in float64; the centred data
    ``x - mean`` is never stored. Its tall reduction (see ``qr``) gives ``X_c = Q R``; the SVD
    of the small R by ``gpusvd.svd`` gives ``R = U_R S V^T``, so ``components = V^T`` (each
    with its entry of largest magnitude positive, gpusvd's convention), ``explained_variance
    = S^2 / (m - 1)`` and ``scores = Q U_R S``. The accuracy is that of the QR method of
    ``gpusvd.pca``: the data's condition number is not squared. The total variance is the sum
    of all ``min(m, n)`` variances.

    Examples
    --------
    >>> import dask, dask.array as da, numpy as np, gpusvd, gpusvd.dask
    >>> x = np.random.default_rng(0).standard_normal((600, 5)) * [5.0, 3.0, 1.0, 0.1, 0.1]
    >>> p = gpusvd.dask.pca(da.from_array(x, chunks=(150, 5)), 2)
    >>> p.components.shape, p.scores.chunks[0]
    ((2, 5), (150, 150, 150, 150))
    >>> comp, ev = dask.compute(p.components, p.explained_variance, scheduler="synchronous")
    >>> ref = gpusvd.pca(x, 2, method="qr")
    >>> bool(np.allclose(comp, ref.components)), bool(np.allclose(ev, ref.explained_variance))
    (True, True)
    """
    want = _parse_n_components(n_components)
    x = _as_dask(x, "pca")
    if x.ndim != 2:
        raise ValueError("gpusvd.dask.pca: expected a 2-D array, got shape %s" % (x.shape,))
    m, n = x.shape
    p = min(m, n)
    if m < 2:
        raise ValueError("gpusvd.dask.pca: needs at least 2 samples, got m = %d" % m)
    if isinstance(want, int) and not 0 <= want <= p:
        raise ValueError("gpusvd.dask.pca: argument n_components = %d is invalid: 0 <= "
                         "n_components <= min(m, n) = %d expected" % (want, p))
    dt = _real_dtype_only(x.dtype)
    x = _whole_columns(x)
    mean = x.mean(axis=0, dtype=np.float64).astype(dt)
    centred = x.astype(dt) - mean
    q, r, _ = _tsqr(centred, "mgs2", check_finite, split_every)
    parts = dask.delayed(_svd_of_r, nout=4, pure=True)(r.to_delayed()[0, 0], True)
    meta2, meta1 = _meta(x, 2, dt), _meta(x, 1, dt)
    ur = da.from_delayed(parts[0], (p, p), dtype=dt, meta=meta2)
    s = da.from_delayed(parts[1], (p,), dtype=dt, meta=meta1)
    vh = da.from_delayed(parts[2], (p, n), dtype=dt, meta=meta2)
    info = da.from_delayed(parts[3], (), dtype=np.int32, meta=_meta(x, 0, np.int32))
    ev_all = s * s / (m - 1)
    total = ev_all.astype(np.float64).sum()
    if isinstance(want, _Fraction):
        ev_host, tot = dask.compute(ev_all, total)
        ev_host = np.asarray(ops_for(ev_host)[0].to_host(ev_host), np.float64)
        tot = float(ops_for(tot)[0].to_host(tot))
        k = _first_exceeding(np.cumsum(ev_host / tot), want) if tot > 0 else 1
    else:
        k = p if want is None else int(want)
    ev = ev_all[:k]
    ratio = (ev / da.where(total > 0, total, 1.0)).astype(dt)
    noise = ((total - ev.astype(np.float64).sum()) / (p - k)).clip(0) if k < p else total * 0
    scores = (q @ ur[:, :k]) * s[:k] if compute_scores else None
    return PCAResult(vh[:k], ev, scores, mean, info, ratio, s[:k], noise, total)
