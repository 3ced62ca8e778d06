"""Plots of gpusvd's results with matplotlib: the singular value spectrum with the numerical
rank, the PCA scree with the cumulative explained variance, and eigenvalues in the complex
plane against the stability boundary.

Every function draws on ``ax`` (default: the current Axes, ``matplotlib.pyplot.gca()``) and
returns it; device arrays (CuPy, torch) are copied to the host first. matplotlib is needed by
this module only (``pip install matplotlib``); ``import gpusvd`` does not import it.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

try:
    # pyplot (its figure state) is imported only where no ax is given
    from matplotlib.ticker import MaxNLocator
except ImportError as _exc:
    raise ImportError("gpusvd.plot needs matplotlib, which is not installed "
                      "(pip install matplotlib)") from _exc

from ._arrays import is_device_array, ops_for

__all__ = ["spectrum", "scree", "eigenvalues", "numerical_rank"]


def _host(x: Any) -> np.ndarray:
    if is_device_array(x):
        ops, a = ops_for(x)
        return np.asarray(ops.to_host(a))
    return np.asarray(x)


def _axes(ax: Any) -> Any:
    if ax is None:
        import matplotlib.pyplot as plt
        ax = plt.gca()
    return ax


def numerical_rank(s: Any, shape: Optional[Sequence[int]] = None,
                   tol: Optional[float] = None) -> tuple:
    """(rank, tol): the number of singular values above ``tol``, and ``tol``.

    The default ``tol`` is ``numpy.linalg.matrix_rank``'s: ``s.max() * max(m, n) * eps`` with
    eps of s's dtype; ``shape`` is the matrix's (m, n) (default: ``len(s)`` for max(m, n), as
    for a square matrix).

    Examples
    --------
    >>> import numpy as np
    >>> from gpusvd.plot import numerical_rank
    >>> numerical_rank(np.array([3.0, 1.0, 1e-17]), shape=(5, 3))
    (2, 3.3306690738754696e-15)
    """
    s = _host(s).ravel()
    if tol is None:
        if not np.issubdtype(s.dtype, np.floating):
            s = s.astype(np.float64)
        big = max(shape) if shape is not None else len(s)
        tol = float(s.max()) * big * float(np.finfo(s.dtype).eps) if s.size else 0.0
    return int(np.count_nonzero(s > tol)), float(tol)


def spectrum(a: Any, *, ax: Any = None, tol: Optional[float] = None,
             shape: Optional[Sequence[int]] = None, label: Optional[str] = None,
             handle: Any = None) -> Any:
    """Singular values on a log scale, with the numerical rank marked.

    Parameters
    ----------
    a : array, shape (m, n) or (k,)
        A matrix (its singular values are computed with ``gpusvd.svd(a, compute_uv=False)``)
        or singular values, descending.
    ax : matplotlib Axes, optional
        Where to draw (default: the current Axes).
    tol : float, optional
        Singular values above ``tol`` count towards the rank. Default: numpy.linalg.matrix_rank's
        ``s.max() * max(m, n) * eps`` (see :func:`numerical_rank`).
    shape : (m, n), optional
        The matrix's shape when ``a`` holds singular values (for the default ``tol``).
    label : str, optional
        Legend label of the spectrum.
    handle : gpusvd.Handle, optional
        For the SVD of a matrix.

    Returns
    -------
    matplotlib Axes
        Its first line holds the singular values against their index 1..k; a vertical line
        at ``rank + 0.5`` separates the values counted in the rank from the others, a
        horizontal one marks ``tol``; the title states the rank.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> import gpusvd, gpusvd.plot
    >>> rng = np.random.default_rng(0)
    >>> a = rng.standard_normal((100, 8)) @ rng.standard_normal((8, 30))   # rank 8
    >>> fig, ax = plt.subplots()
    >>> ax = gpusvd.plot.spectrum(a, ax=ax)
    >>> ax.get_title()
    'Singular values: numerical rank 8 of 30'
    >>> plt.close(fig)
    """
    arr = a if is_device_array(a) else np.asarray(a)
    if arr.ndim == 2:
        shape = tuple(arr.shape)
        from ._linalg import svd
        arr = svd(arr, compute_uv=False, handle=handle)
    elif arr.ndim != 1:
        raise ValueError("gpusvd.plot.spectrum: expected a matrix (m, n) or singular values "
                         "(k,), got shape %s" % (tuple(arr.shape),))
    s = _host(arr)
    rank, tol = numerical_rank(s, shape, tol)
    ax = _axes(ax)
    index = np.arange(1, len(s) + 1)
    ax.semilogy(index, s, marker="o", markersize=3, label=label or "singular values")
    if tol > 0:
        ax.axhline(tol, color="0.5", linestyle=":", label="tolerance %.2g" % tol)
    ax.axvline(rank + 0.5, color="C3", linestyle="--", label="numerical rank %d" % rank)
    ax.set_xlabel("index")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("singular value")
    ax.set_title("Singular values: numerical rank %d of %d" % (rank, len(s)))
    ax.legend()
    return ax


def _ratios(pca: Any) -> np.ndarray:
    for name in ("explained_variance_ratio_", "explained_variance_ratio"):
        r = getattr(pca, name, None)
        if r is not None:
            return _host(r).astype(np.float64).ravel()
    raise TypeError("gpusvd.plot.scree: expected a fitted gpusvd.PCA (or scikit-learn PCA) or a "
                    "PCAResult, got %s" % type(pca).__name__)


def scree(pca: Any, *, ax: Any = None, threshold: Optional[float] = None) -> Any:
    """Scree plot: the explained variance ratio of each component (bars) and their cumulative
    sum (line), both as fractions of the total variance.

    Parameters
    ----------
    pca : gpusvd.PCA (fitted), PCAResult, or scikit-learn PCA
        Anything with ``explained_variance_ratio_`` or ``explained_variance_ratio``.
    ax : matplotlib Axes, optional
        Where to draw (default: the current Axes).
    threshold : float, optional
        A fraction of the variance to mark (a horizontal line, and the number of components
        whose cumulative ratio first exceeds it in the legend). Default: the estimator's
        ``n_components`` when that is a float.

    Returns
    -------
    matplotlib Axes
        Its bars (``ax.patches``) are the ratios, its first line the cumulative ratios against
        the component number 1..k.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> import gpusvd, gpusvd.plot
    >>> x = np.random.default_rng(0).standard_normal((300, 6)) * [5, 3, 1, 0.5, 0.2, 0.1]
    >>> fig, ax = plt.subplots()
    >>> ax = gpusvd.plot.scree(gpusvd.PCA(0.9).fit(x), ax=ax)
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['cumulative', '90% of the variance: 2 components', 'per component']
    >>> plt.close(fig)
    """
    r = _ratios(pca)
    if threshold is None:
        n = getattr(pca, "n_components", None)
        if isinstance(n, float) and 0 < n < 1:
            threshold = n
    ax = _axes(ax)
    index = np.arange(1, len(r) + 1)
    cum = np.cumsum(r)
    ax.plot(index, cum, marker="o", markersize=3, color="C1", label="cumulative")
    if threshold is not None:
        k = int(np.count_nonzero(cum <= threshold)) + 1
        what = ("%d components" % k) if k <= len(r) else "not reached"
        ax.axhline(threshold, color="0.5", linestyle=":",
                   label="%g%% of the variance: %s" % (100 * threshold, what))
    ax.bar(index, r, color="C0", label="per component")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("component")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("explained variance ratio")
    ax.set_title("Explained variance (%d components: %.1f%%)"
                 % (len(r), 100 * (cum[-1] if len(r) else 0.0)))
    ax.legend()
    return ax


def eigenvalues(w: Any, *, ax: Any = None, system: str = "continuous", tol: float = 0.0,
                markersize: float = 3.0) -> Any:
    """Eigenvalues in the complex plane with the stability boundary and the number of
    unstable ones.

    Parameters
    ----------
    w : array of any shape, complex or real
        Eigenvalues (e.g. ``gpusvd.eigvals`` of a batch of system matrices), all plotted.
    ax : matplotlib Axes, optional
        Where to draw (default: the current Axes).
    system : {'continuous', 'discrete'}, default 'continuous'
        'continuous' (x' = A x): the boundary is the imaginary axis and an eigenvalue with
        real part > ``tol`` is unstable. 'discrete' (x[k+1] = A x[k]): the boundary is the
        unit circle and an eigenvalue of modulus > 1 + ``tol`` is unstable.
    tol : float, default 0
        Margin beyond the boundary before an eigenvalue counts as unstable.
    markersize : float, default 3
        Size of the points.

    Returns
    -------
    matplotlib Axes
        Lines labelled 'stable (N)' and 'unstable (M)' hold the points; the title reads
        'M of N eigenvalues unstable'.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> import gpusvd.plot
    >>> fig, ax = plt.subplots()
    >>> ax = gpusvd.plot.eigenvalues(np.array([-1 + 2j, -1 - 2j, 0.5, -3]), ax=ax)
    >>> ax.get_title()
    'Eigenvalues: 1 of 4 unstable (continuous time)'
    >>> plt.close(fig)
    """
    if system not in ("continuous", "discrete"):
        raise ValueError("gpusvd.plot.eigenvalues: system must be 'continuous' or 'discrete', "
                         "not %r" % (system,))
    z = _host(w).ravel().astype(np.complex128)
    unstable = (np.abs(z) > 1 + tol) if system == "discrete" else (z.real > tol)
    ax = _axes(ax)
    many = z.size > 20000  # rasterise big clouds: a vector file of 1e6 points is unusable
    for mask, name, color in ((~unstable, "stable", "C0"), (unstable, "unstable", "C3")):
        ax.plot(z.real[mask], z.imag[mask], linestyle="none", marker=".", color=color,
                markersize=markersize, rasterized=many,
                label="%s (%d)" % (name, int(np.count_nonzero(mask))))
    if system == "discrete":
        t = np.linspace(0, 2 * np.pi, 361)
        ax.plot(np.cos(t), np.sin(t), color="0.3", linewidth=1, label="unit circle")
        ax.set_aspect("equal", adjustable="datalim")
    else:
        ax.axvline(0.0, color="0.3", linewidth=1, label="imaginary axis")
    ax.axhline(0.0, color="0.8", linewidth=0.5)
    ax.set_xlabel("real part")
    ax.set_ylabel("imaginary part")
    ax.set_title("Eigenvalues: %d of %d unstable (%s time)"
                 % (int(np.count_nonzero(unstable)), z.size, system))
    ax.legend()
    return ax
