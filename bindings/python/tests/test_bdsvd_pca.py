import numpy as np
import pytest
import scipy.linalg as sl

import gpusvd
from gpusvd._arrays import HostOps, fortran_view
from gpusvd._pca import has_method_choice
from conftest import DTYPES, dense_bidiagonal, eps


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [False, True])
def test_bdsvd(rng, dtype, lower):
    n = 25
    d = rng.standard_normal(n).astype(dtype)
    e = rng.standard_normal(n - 1).astype(dtype)
    d0, e0 = d.copy(), e.copy()
    u, s, vt = gpusvd.bdsvd(d, e, lower=lower)
    np.testing.assert_array_equal(d, d0)
    np.testing.assert_array_equal(e, e0)
    b = dense_bidiagonal(d, e, lower)
    ep = eps(dtype)
    assert np.linalg.norm(b - (u.astype(np.float64) * s) @ vt) / (n * np.linalg.norm(b) * ep) < 50
    assert np.linalg.norm(np.eye(n) - u.T.astype(np.float64) @ u) / (n * ep) < 50
    assert np.linalg.norm(np.eye(n) - vt.astype(np.float64) @ vt.T) / (n * ep) < 50
    sr = sl.svdvals(b)
    np.testing.assert_allclose(s, sr, rtol=0, atol=50 * n * ep * sr[0])
    s_only = gpusvd.bdsvd(d, e, lower=lower, compute_uv=False)
    np.testing.assert_allclose(s_only, sr, rtol=0, atol=50 * n * ep * sr[0])


def test_bdsvd_sizes():
    assert gpusvd.bdsvd(np.zeros(0), np.zeros(0), compute_uv=False).shape == (0,)
    u, s, vt = gpusvd.bdsvd(np.array([-3.0]), np.zeros(0))
    assert s[0] == 3 and abs(u[0, 0] * s[0] * vt[0, 0] + 3) < 1e-15
    with pytest.raises(ValueError, match="n - 1"):
        gpusvd.bdsvd(np.ones(4), np.ones(4))


def reference_pca(x, k):
    x = x.astype(np.float64)
    mean = x.mean(axis=0)
    xc = x - mean
    _, s, vt = np.linalg.svd(xc, full_matrices=False)
    comp = vt[:k].copy()
    for row in comp:  # gpusvd.h: the entry of largest magnitude (first on ties) is positive
        if row[np.argmax(np.abs(row))] < 0:
            row *= -1
    return comp, s[:k] ** 2 / (x.shape[0] - 1), xc @ comp.T, mean


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape,k", [((200, 12), 4), ((10, 30), 5), ((40, 6), 6)])
def test_pca(rng, dtype, order, shape, k):
    scale = np.geomspace(10, 0.1, shape[1])  # separated variances
    x = (rng.standard_normal(shape) * scale + 5.0).astype(dtype)
    x = np.asfortranarray(x) if order == "F" else np.ascontiguousarray(x)
    x0 = x.copy()
    res = gpusvd.pca(x, k)
    np.testing.assert_array_equal(x, x0)
    comp, ev, scores, mean = reference_pca(x, k)
    tol = 1e4 * eps(dtype)
    assert res.components.shape == (k, shape[1]) and res.scores.shape == (shape[0], k)
    assert res.info == 0 and res.components.dtype == dtype
    np.testing.assert_allclose(res.components, comp, atol=tol)
    np.testing.assert_allclose(res.explained_variance, ev, rtol=tol)
    np.testing.assert_allclose(res.mean, mean, rtol=tol)
    np.testing.assert_allclose(res.scores, scores, atol=tol * np.abs(scores).max())
    np.testing.assert_allclose(res.transform(x), scores, atol=tol * np.abs(scores).max())
    assert gpusvd.pca(x, k, compute_scores=False).scores is None


def test_pca_strided_input_without_copy(rng):
    big = np.asfortranarray(rng.standard_normal((30, 8)))
    x = big[:20, 1:6]  # unit row stride, column stride 30: passed as is with ldx = 30
    v, ld, copied = fortran_view(HostOps(), x, np.dtype(np.float64))
    assert v is x and ld == 30 and not copied
    assert fortran_view(HostOps(), np.ascontiguousarray(x), np.dtype(np.float64))[2]
    assert fortran_view(HostOps(), x.astype(np.float32), np.dtype(np.float64))[2]
    res, ref = gpusvd.pca(x, 3), gpusvd.pca(np.array(x, order="F"), 3)
    np.testing.assert_allclose(res.components, ref.components, atol=1e-13)
    res = gpusvd.pca(big[::2, :], 2)  # row stride 2: copied
    np.testing.assert_allclose(res.components, reference_pca(big[::2], 2)[0], atol=1e-12)


def test_pca_errors_and_empty(rng):
    x = rng.standard_normal((10, 4))
    with pytest.raises(gpusvd.GpusvdError) as exc:
        gpusvd.pca(x, 5)
    assert exc.value.status_name == "GPUSVD_STATUS_INVALID_VALUE"
    assert "argument k = 5" in str(exc.value) and "gpusvd_dpca" in str(exc.value)
    res = gpusvd.pca(x, 0)
    assert res.components.shape == (0, 4) and res.scores.shape == (10, 0)
    np.testing.assert_allclose(res.mean, x.mean(axis=0))


# ----------------------------------------------------------------------------------------------
# n_components as scikit-learn's, and the derived quantities
# ----------------------------------------------------------------------------------------------


def reference_spectrum(x):
    """All min(m, n) variances of the centred x (float64) and the total variance, summed
    feature by feature."""
    x = x.astype(np.float64)
    s = np.linalg.svd(x - x.mean(axis=0), compute_uv=False)
    return s ** 2 / (x.shape[0] - 1), float(np.var(x, axis=0, ddof=1).sum())


def expected_k(ev_all, total, fraction):
    """The smallest k whose cumulative ratio exceeds the fraction, counted directly."""
    cum = np.cumsum(ev_all / total)
    return next((j + 1 for j in range(len(cum)) if cum[j] > fraction), len(cum))


def decaying(rng, shape, dtype, offset=5.0):
    scale = np.geomspace(10, 0.1, shape[1])
    return (rng.standard_normal(shape) * scale + offset).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(300, 10), (12, 40)])
@pytest.mark.parametrize("n_components", [None, 3, 0.5, 0.9, 0.99, 0.999999])
def test_pca_n_components(rng, dtype, shape, n_components):
    x = decaying(rng, shape, dtype)
    ev_all, total = reference_spectrum(x)
    p = min(shape)
    if n_components is None:
        k = p
    elif isinstance(n_components, int):
        k = n_components
    else:
        k = expected_k(ev_all, total, n_components)
        assert 0 < k <= p
    res = gpusvd.pca(x, n_components)
    assert res.n_components == k
    assert res.components.shape == (k, shape[1]) and res.scores.shape == (shape[0], k)
    comp, ev, scores, mean = reference_pca(x, k)
    tol = 1e4 * eps(dtype)
    for a in (res.components, res.explained_variance, res.scores, res.explained_variance_ratio,
              res.singular_values):
        assert a.dtype == dtype
    # the centred data has rank <= m - 1: a last component of zero variance is arbitrary
    d = min(k, shape[0] - 1)
    np.testing.assert_allclose(res.components[:d], comp[:d], atol=tol)
    # (absolute tolerances relative to the largest: the zero variance of wide data is noise)
    np.testing.assert_allclose(res.explained_variance, ev, rtol=tol, atol=tol * ev[0])
    np.testing.assert_allclose(res.scores, scores, atol=tol * np.abs(scores).max())
    np.testing.assert_allclose(res.total_variance, total, rtol=tol)
    np.testing.assert_allclose(res.explained_variance_ratio, ev / total, rtol=tol,
                               atol=tol * ev[0] / total)
    sv = np.sqrt(ev * (shape[0] - 1))
    np.testing.assert_allclose(res.singular_values, sv, rtol=tol, atol=np.sqrt(tol) * sv[0])
    noise = ev_all[k:].mean() if k < p else 0.0
    np.testing.assert_allclose(res.noise_variance, noise, rtol=tol, atol=tol * ev_all[0])
    np.testing.assert_allclose(res.inverse_transform(res.scores),
                               scores @ comp + mean, atol=tol * np.abs(x).max())
    # the fraction rule is strict: the ratio of k - 1 components does not exceed it
    if isinstance(n_components, float) and k > 1:
        assert np.cumsum(ev_all / total)[k - 2] <= n_components
    without = gpusvd.pca(x, n_components, compute_scores=False)
    assert without.scores is None and without.n_components == k
    np.testing.assert_allclose(without.components[:d], comp[:d], atol=tol)


def test_pca_total_variance_in_blocks(rng, monkeypatch):
    # An integer k < min(m, n) sums the total variance from the data, in row blocks with
    # float64 accumulation: with 7-row blocks the sum crosses many block boundaries, and a
    # large offset (1e6 with unit spread) would lose the variance to cancellation in
    # sum(x**2) - m * mean**2.
    from gpusvd import _pca
    monkeypatch.setattr(_pca, "_BLOCK_ELEMENTS", 7 * 6)
    for dtype in DTYPES:
        x = decaying(rng, (101, 6), dtype, offset=1e6 if dtype == np.float64 else 1e3)
        res = gpusvd.pca(x, 2)
        ref = float(np.var(x.astype(np.float64), axis=0, ddof=1).sum())
        np.testing.assert_allclose(res.total_variance, ref, rtol=1e2 * eps(dtype))
        ev_all, _ = reference_spectrum(x)
        np.testing.assert_allclose(res.noise_variance, ev_all[2:].mean(), rtol=1e3 * eps(dtype))


def test_pca_fraction_edges(rng):
    # a fraction keeps at least one component and at most min(m, n)
    x = decaying(rng, (50, 5), np.float64)
    assert gpusvd.pca(x, 1e-12).n_components == 1
    assert gpusvd.pca(x, 1 - 1e-16).n_components == 5
    assert gpusvd.pca(x, np.float32(0.5)).n_components == \
        gpusvd.pca(x, np.array(0.5)).n_components
    # constant data: zero total variance gives ratios 0 (not NaN) and one component
    const = np.full((8, 3), 2.5)
    for nc in (None, 2, 0.5):
        res = gpusvd.pca(const, nc)
        assert np.all(res.explained_variance_ratio == 0)
        assert res.total_variance == 0 and res.noise_variance == 0
    assert gpusvd.pca(const, 0.5).n_components == 1


@pytest.mark.parametrize("value,exc,match", [
    (2.7, ValueError, "n_components = 2.7 is invalid: a float must be in"),
    (1.0, ValueError, "a float must be in \\(0, 1\\)"),
    (3.0, ValueError, "a float must be in \\(0, 1\\)"),
    (0.0, ValueError, "a float must be in \\(0, 1\\)"),
    (-0.5, ValueError, "a float must be in \\(0, 1\\)"),
    (float("nan"), ValueError, "a float must be in \\(0, 1\\)"),
    (True, TypeError, "not a bool"),
    ("mle", TypeError, "must be None, an integer or a float in \\(0, 1\\), not str"),
    (7, ValueError, "argument k = 7 is invalid"),
    (-1, ValueError, "argument k = -1 is invalid"),
])
def test_pca_n_components_errors(rng, value, exc, match):
    with pytest.raises(exc, match=match):
        gpusvd.pca(rng.standard_normal((10, 6)), value)


def test_pca_method_keyword(rng):
    x = decaying(rng, (200, 6), np.float64)
    ref = reference_pca(x, 3)
    np.testing.assert_allclose(gpusvd.pca(x, 3, method="auto").components, ref[0], atol=1e-10)
    with pytest.raises(ValueError, match="method must be 'auto', 'qr' or 'covariance'"):
        gpusvd.pca(x, 3, method="full")
    with pytest.raises(TypeError, match="method must be a str"):
        gpusvd.pca(x, 3, method=1)


class _LibWithout:
    """The loaded library as seen by a Handle, without the named symbols (an older build)."""

    def __init__(self, lib, *missing):
        self._real, self._missing = lib, missing

    def __getattr__(self, name):
        if name in self._missing:
            raise AttributeError(name)
        return getattr(self._real, name)


def test_pca_method_without_library_support(rng):
    x = decaying(rng, (60, 4), np.float64)
    with gpusvd.Handle(backend="cpu") as h:
        h._lib = _LibWithout(h._lib, "gpusvdSetPcaMethod", "gpusvdGetPcaMethod")
        res = gpusvd.pca(x, 2, method="auto", handle=h)
        np.testing.assert_allclose(res.components, reference_pca(x, 2)[0], atol=1e-10)
        for method in ("qr", "covariance"):
            with pytest.raises(gpusvd.GpusvdError, match="a choice of PCA method") as exc:
                gpusvd.pca(x, 2, method=method, handle=h)
            assert exc.value.status_name == "GPUSVD_STATUS_NOT_SUPPORTED"


def _pca_method(h):
    import ctypes
    out = ctypes.c_int()
    h.call(h._lib.gpusvdGetPcaMethod, ctypes.byref(out))
    return out.value


def _needs_method_choice():
    if not has_method_choice(gpusvd.default_handle()._lib):
        pytest.skip("the loaded library has no choice of PCA method (gpusvdSetPcaMethod)")


@pytest.mark.parametrize("method", ["auto", "qr", "covariance"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(400, 12), (15, 30)])
def test_pca_methods(rng, method, dtype, shape):
    _needs_method_choice()
    x = decaying(rng, shape, dtype)
    with gpusvd.Handle(backend="cpu") as h:
        lib = h._lib
        h.call(lib.gpusvdSetPcaMethod, 1)  # a method set by the caller is restored afterwards
        res = gpusvd.pca(x, 0.95, method=method, handle=h)
        assert _pca_method(h) == 1
        h.call(lib.gpusvdSetPcaMethod, 2)
        gpusvd.pca(x, 2, method=method, handle=h)
        assert _pca_method(h) == 2
    ev_all, total = reference_spectrum(x)
    k = expected_k(ev_all, total, 0.95)
    comp, ev, scores, _ = reference_pca(x, k)
    assert res.n_components == k
    # gpusvd.h's error model, with a margin of 10: QR gives variance j a relative error of
    # about max(m, n) eps sigma_1 / sigma_j; the covariance method an absolute error of about
    # max(m, n) eps sigma_1^2 / (m - 1), i.e. max(m, n) eps ev[0]. Components: an angle of
    # about that error over the gap to the neighbouring variances.
    e = 10 * max(shape) * eps(dtype)
    ev_err = e * ev[0] if method != "qr" else e * np.sqrt(ev[0] * ev)
    assert np.all(np.abs(res.explained_variance - ev) <= ev_err), (res.explained_variance, ev)
    gaps = np.abs(np.diff(ev_all[:k + 1]))
    gap = np.minimum(np.r_[np.inf, gaps[:-1]], gaps)
    angle = (e * ev[0] if method != "qr" else e * np.sqrt(ev[0] * ev)) / gap
    dev = np.linalg.norm(res.components.astype(np.float64) - comp, axis=1)
    assert np.all(dev <= np.maximum(angle, e)), (dev, angle)
    np.testing.assert_allclose(res.scores, scores,
                               atol=max(angle.max(), e) * np.abs(scores).max() * 10)


def test_pca_method_reaches_the_library(rng):
    # Where the methods differ: a variance 1e-14 of the largest. QR keeps it to about
    # eps sigma_1 / sigma_4 = 2e-9; the covariance matrix squares the condition number, and its
    # eigenvalue carries an absolute error of about eps ev[0] or more (gpusvd.h), a relative
    # error of 1e-2 here. 'auto' takes the covariance method for tall float64 data
    # (m >= 10 n, n <= 1000).
    _needs_method_choice()
    s = np.array([1.0, 0.5, 0.2, 1e-7])
    u, _ = np.linalg.qr(rng.standard_normal((2000, 4)))
    v, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    x = (u - u.mean(axis=0)) * s @ v.T * np.sqrt(1999) + 3.0
    ev_ref = reference_spectrum(x)[0]
    rel = {}
    with gpusvd.Handle(backend="cpu") as h:  # the CPU backend has both methods
        for method in ("qr", "covariance", "auto"):
            ev = gpusvd.pca(x, None, method=method, compute_scores=False,
                            handle=h).explained_variance
            rel[method] = abs(ev[3] - ev_ref[3]) / ev_ref[3]
            np.testing.assert_allclose(ev[:3], ev_ref[:3], rtol=1e-10)
    assert rel["qr"] < 1e-6, rel
    assert rel["covariance"] > 1e-4, rel
    assert rel["auto"] == rel["covariance"], rel
