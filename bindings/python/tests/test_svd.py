"""svd, svdvals and svd_batched on host arrays, against numpy.linalg.svd and scipy.linalg."""
import numpy as np
import pytest
import scipy.linalg as sl

import gpusvd
from conftest import DTYPES, eps, ill_conditioned, ordered


def eye_stack(shape, k):
    return np.broadcast_to(np.eye(k), tuple(shape) + (k, k))


def check_svd(a, u, s, vh, full, thresh=50):
    """a (..., m, n) = U diag(s) Vh, U and Vh orthogonal (full) or with orthonormal columns /
    rows, shapes as numpy.linalg.svd's, s equal to numpy's singular values."""
    *b, m, n = a.shape
    k = min(m, n)
    e = eps(a.dtype)
    un, sn, vhn = np.linalg.svd(a.astype(np.float64), full_matrices=full)
    assert (u.shape, s.shape, vh.shape) == (un.shape, sn.shape, vhn.shape)
    assert u.shape == tuple(b) + ((m, m) if full else (m, k))
    assert vh.shape == tuple(b) + ((n, n) if full else (k, n))
    assert u.dtype == s.dtype == vh.dtype == a.dtype
    u64, s64, vh64 = (x.astype(np.float64) for x in (u, s, vh))
    a64 = a.astype(np.float64)
    norm_a = max(np.linalg.norm(a64), np.finfo(np.float64).tiny)
    rec = (u64[..., :k] * s64[..., None, :]) @ vh64[..., :k, :]
    res = np.linalg.norm(a64 - rec) / (norm_a * max(m, n, 1) * e)
    assert res < thresh, res
    uu = np.swapaxes(u64, -1, -2) @ u64
    vv = vh64 @ np.swapaxes(vh64, -1, -2)
    assert np.linalg.norm(uu - eye_stack(b, uu.shape[-1])) / (max(m, 1) * e) < thresh
    assert np.linalg.norm(vv - eye_stack(b, vv.shape[-1])) / (max(n, 1) * e) < thresh
    assert np.all(s >= 0) and np.all(np.diff(s64, axis=-1) <= 0)
    if k and s.size:
        top = sn[..., :1]
        assert np.all(np.abs(s64 - sn) <= 50 * max(m, n) * e * top)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(30, 12), (12, 30), (17, 17), (1, 5), (5, 1)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_random(rng, dtype, order, shape, full):
    a = ordered(rng.standard_normal(shape).astype(dtype), order)
    a0 = a.copy()
    u, s, vh = gpusvd.svd(a, full_matrices=full)
    np.testing.assert_array_equal(a, a0)  # input not modified
    check_svd(a, u, s, vh, full)
    s_only = gpusvd.svd(a, full, False)  # numpy's positional order
    np.testing.assert_allclose(s_only, s, rtol=0, atol=10 * max(shape) * eps(dtype) * s[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F", "Fortran"])
@pytest.mark.parametrize("mn", [(7, 4), (4, 7), (5, 5)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_stack(rng, dtype, order, mn, full):
    # C: row-major matrices; F: per-matrix Fortran order (each matrix column-major, matrices
    # one after the other); Fortran: np.asfortranarray of the whole 4-D array.
    a = rng.standard_normal((2, 3) + mn).astype(dtype)
    a[1, 2] = ill_conditioned(rng, *mn, dtype)
    a = ordered(a, order)
    a0 = a.copy()
    u, s, vh = gpusvd.svd(a, full_matrices=full)
    np.testing.assert_array_equal(a, a0)
    check_svd(a, u, s, vh, full)
    s2, info = gpusvd.svd(a, compute_uv=False, return_info=True)
    assert info.shape == (2, 3) and info.dtype == np.int32 and not info.any()
    np.testing.assert_allclose(s2, s, rtol=0, atol=100 * eps(dtype) * s.max())


def test_svd_stack_matches_one_by_one(rng):
    # The stack goes through the batched routine, 2-D through the one-matrix routine: equal
    # singular values to rounding.
    a = rng.standard_normal((3, 2, 9, 6))
    s = gpusvd.svdvals(a)
    for i in np.ndindex(3, 2):
        np.testing.assert_allclose(s[i], gpusvd.svdvals(a[i]), rtol=1e-13)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_svd_ill_conditioned(rng, dtype, order):
    a = ordered(ill_conditioned(rng, 40, 25, dtype, cond=1e8), order)
    u, s, vh = gpusvd.svd(a, full_matrices=False)
    check_svd(a, u, s, vh, False)


def test_svd_like_scipy_up_to_signs(rng):
    a = rng.standard_normal((9, 6))
    u, s, vh = gpusvd.svd(a, full_matrices=False)
    ur, sr, vhr = sl.svd(a, full_matrices=False)
    np.testing.assert_allclose(s, sr, rtol=1e-13)
    sign = np.sign(np.sum(u * ur, axis=0))
    np.testing.assert_allclose(u * sign, ur, atol=1e-12)
    np.testing.assert_allclose(vh * sign[:, None], vhr, atol=1e-12)


@pytest.mark.parametrize("shape", [(9, 4), (4, 9)])
def test_full_factors_extend_the_economy_ones(rng, shape):
    a = rng.standard_normal(shape)
    uf, sf, vhf = gpusvd.svd(a)
    ue, se, vhe = gpusvd.svd(a, full_matrices=False)
    k = min(shape)
    np.testing.assert_array_equal(sf, se)
    np.testing.assert_array_equal(uf[:, :k], ue)
    np.testing.assert_array_equal(vhf[:k], vhe)


def test_result_fields(rng):
    a = rng.standard_normal((5, 3))
    res = gpusvd.svd(a)
    assert isinstance(res, gpusvd.SVDResult)
    assert res.U is res[0] and res.S is res[1] and res.Vh is res[2]
    u, s, vh, info = gpusvd.svd(a, return_info=True)
    assert info == 0 and isinstance(info, int)


def test_svdvals_like_scipy(rng):
    a = rng.standard_normal((4, 11, 7))
    np.testing.assert_allclose(gpusvd.svdvals(a), np.linalg.svd(a, compute_uv=False),
                               rtol=1e-13)
    b = rng.standard_normal((6, 8))
    np.testing.assert_allclose(gpusvd.svdvals(b), sl.svdvals(b), rtol=1e-13)
    np.testing.assert_allclose(gpusvd.svdvals(b.T), sl.svdvals(b), rtol=1e-13)
    with pytest.raises(TypeError):
        gpusvd.svdvals(b, False)  # scipy's positional overwrite_a is keyword-only here


def test_svd_dtype_conversion(rng):
    a = rng.integers(-5, 5, size=(6, 4))
    assert gpusvd.svd(a, compute_uv=False).dtype == np.float64
    assert gpusvd.svd(a.astype(np.float16), compute_uv=False).dtype == np.float32
    assert gpusvd.svd(a.tolist(), compute_uv=False).dtype == np.float64
    assert gpusvd.svdvals(a.astype(">f4")).dtype == np.float32
    np.testing.assert_allclose(gpusvd.svdvals(a.astype(">f8")), sl.svdvals(a), rtol=1e-13)


def test_svd_non_contiguous_input(rng):
    big = rng.standard_normal((3, 20, 16))
    for a in (big[0, ::2, 1::3], big[::2, ::2, 1::3], big[..., ::-1, :], big.swapaxes(0, 1)):
        u, s, vh = gpusvd.svd(a, full_matrices=False)
        check_svd(np.ascontiguousarray(a), u, s, vh, False)


@pytest.mark.parametrize("shape", [(0, 4), (4, 0), (0, 0), (0, 3, 2), (2, 0, 3), (2, 3, 0),
                                   (2, 0, 4, 3), (1, 2, 0, 0)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_empty(shape, full):
    a = np.zeros(shape)
    out = gpusvd.svd(a, full_matrices=full)
    ref = np.linalg.svd(a, full_matrices=full)
    assert [o.shape for o in out] == [r.shape for r in ref]
    for o, r in zip(out, ref):
        np.testing.assert_array_equal(o, r)  # e.g. U = I for (m, 0) with full_matrices
    assert gpusvd.svdvals(a).shape == ref[1].shape


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_svd_batched_alias(rng, dtype, order):
    a = rng.standard_normal((7, 11, 5)).astype(dtype)
    a[3] = ill_conditioned(rng, 11, 5, dtype)
    a = np.asfortranarray(a) if order == "F" else a
    a0 = a.copy()
    u, s, vh = gpusvd.svd_batched(a)  # economy by default, as before
    np.testing.assert_array_equal(a, a0)
    check_svd(a, u, s, vh, False)
    ref = gpusvd.svd(a, full_matrices=False)
    for x, y in zip((u, s, vh), ref):
        np.testing.assert_array_equal(x, y)
    s2, info = gpusvd.svd_batched(a, compute_uv=False, return_info=True)
    assert info.shape == (7,) and info.dtype == np.int32 and not info.any()
    np.testing.assert_allclose(s2, s, rtol=0, atol=100 * eps(dtype) * s.max())
    uf, _, vhf = gpusvd.svd_batched(a, full_matrices=True)
    check_svd(a, uf, s, vhf, True)
    with pytest.raises(ValueError, match="stack of matrices"):
        gpusvd.svd_batched(a[0])


def test_jacobi_stats_and_handle(rng):
    with gpusvd.Handle(backend="cpu") as h:
        assert h.backend == "cpu"
        gpusvd.svd(rng.standard_normal((20, 10)), handle=h)
        sweeps, off = h.jacobi_stats()
        assert sweeps >= 1 and 0 <= off < 1e-6
