import numpy as np
import pytest
import scipy.linalg as sl

import gpusvd
from gpusvd._arrays import HostOps, fortran_view
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
