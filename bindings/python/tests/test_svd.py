import numpy as np
import pytest
import scipy.linalg as sl

import gpusvd
from conftest import DTYPES, eps, ill_conditioned, ordered


def check_svd(a, u, s, vh, thresh=50):
    a64 = a.astype(np.float64)
    m, n = a.shape
    k = min(m, n)
    e = eps(a.dtype)
    assert u.shape == (m, k) and s.shape == (k,) and vh.shape == (k, n)
    assert u.dtype == s.dtype == vh.dtype == a.dtype
    norm_a = max(np.linalg.norm(a64), np.finfo(np.float64).tiny)
    res = np.linalg.norm(a64 - (u.astype(np.float64) * s) @ vh) / (norm_a * max(m, n) * e)
    assert res < thresh, res
    assert np.linalg.norm(np.eye(k) - u.T.astype(np.float64) @ u) / (max(m, 1) * e) < thresh
    assert np.linalg.norm(np.eye(k) - vh.astype(np.float64) @ vh.T) / (max(n, 1) * e) < thresh
    assert np.all(s >= 0) and np.all(np.diff(s) <= 0)
    s_ref = sl.svdvals(a64)
    if k:
        assert np.max(np.abs(s - s_ref)) <= 50 * max(m, n) * e * s_ref[0]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(30, 12), (12, 30), (17, 17), (1, 5), (5, 1)])
def test_svd_random(rng, dtype, order, shape):
    a = ordered(rng.standard_normal(shape).astype(dtype), order)
    a0 = a.copy()
    u, s, vh = gpusvd.svd(a)
    np.testing.assert_array_equal(a, a0)  # input not modified
    check_svd(a, u, s, vh)
    s_only = gpusvd.svd(a, compute_uv=False)
    np.testing.assert_allclose(s_only, s, rtol=0, atol=10 * max(shape) * eps(dtype) * s[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_svd_ill_conditioned(rng, dtype, order):
    a = ordered(ill_conditioned(rng, 40, 25, dtype, cond=1e8), order)
    u, s, vh = gpusvd.svd(a)
    check_svd(a, u, s, vh)


def test_svd_like_scipy_up_to_signs(rng):
    a = rng.standard_normal((9, 6))
    u, s, vh = gpusvd.svd(a)
    ur, sr, vhr = sl.svd(a, full_matrices=False)
    np.testing.assert_allclose(s, sr, rtol=1e-13)
    sign = np.sign(np.sum(u * ur, axis=0))
    np.testing.assert_allclose(u * sign, ur, atol=1e-12)
    np.testing.assert_allclose(vh * sign[:, None], vhr, atol=1e-12)


def test_svd_dtype_conversion(rng):
    a = rng.integers(-5, 5, size=(6, 4))
    assert gpusvd.svd(a, compute_uv=False).dtype == np.float64
    assert gpusvd.svd(a.astype(np.float16), compute_uv=False).dtype == np.float32
    assert gpusvd.svd(a.tolist(), compute_uv=False).dtype == np.float64


def test_svd_non_contiguous_input(rng):
    big = rng.standard_normal((20, 16))
    a = big[::2, 1::3]
    u, s, vh = gpusvd.svd(a)
    check_svd(np.ascontiguousarray(a), u, s, vh)


@pytest.mark.parametrize("shape", [(0, 4), (4, 0), (0, 0)])
def test_svd_empty(shape):
    a = np.zeros(shape)
    u, s, vh = gpusvd.svd(a)
    ur, sr, vhr = sl.svd(a, full_matrices=False)
    assert (u.shape, s.shape, vh.shape) == (ur.shape, sr.shape, vhr.shape)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_svd_batched(rng, dtype, order):
    a = rng.standard_normal((7, 11, 5)).astype(dtype)
    a[3] = ill_conditioned(rng, 11, 5, dtype)
    a = np.asfortranarray(a) if order == "F" else a
    a0 = a.copy()
    u, s, vh = gpusvd.svd_batched(a)
    np.testing.assert_array_equal(a, a0)
    assert u.shape == (7, 11, 5) and s.shape == (7, 5) and vh.shape == (7, 5, 5)
    for b in range(7):
        check_svd(a[b], u[b], s[b], vh[b])
    s2, info = gpusvd.svd_batched(a, compute_uv=False, return_info=True)
    assert info.shape == (7,) and info.dtype == np.int32 and not info.any()
    np.testing.assert_allclose(s2, s, rtol=0, atol=100 * eps(dtype) * s.max())


def test_svd_batched_wide_and_empty(rng):
    a = rng.standard_normal((3, 4, 9))
    u, s, vh = gpusvd.svd_batched(a)
    for b in range(3):
        check_svd(a[b], u[b], s[b], vh[b])
    for shape in [(0, 3, 2), (2, 0, 3), (2, 3, 0)]:
        u, s, vh = gpusvd.svd_batched(np.zeros(shape))
        b, m, n = shape
        k = min(m, n)
        assert (u.shape, s.shape, vh.shape) == ((b, m, k), (b, k), (b, k, n))


def test_jacobi_stats_and_handle(rng):
    with gpusvd.Handle(backend="cpu") as h:
        assert h.backend == "cpu"
        gpusvd.svd(rng.standard_normal((20, 10)), handle=h)
        sweeps, off = h.jacobi_stats()
        assert sweeps >= 1 and 0 <= off < 1e-6
