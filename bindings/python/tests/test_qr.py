"""qr and qr_batched on host arrays, against numpy.linalg.qr and scipy.linalg.qr."""
import numpy as np
import pytest
import scipy.linalg as sl

import gpusvd
from conftest import DTYPES, eps, ill_conditioned, ordered


def check_qr(a, q, r, thresh=30, orth_bound=None, complete=False):
    """a (..., m, n) = Q R with Q's columns orthonormal (to orth_bound for MGS), R upper
    trapezoidal with a non-negative diagonal and equal to numpy's R up to the signs of its
    rows; shapes those of numpy.linalg.qr's reduced (or complete) mode."""
    *b, m, n = a.shape
    k = min(m, n)
    e = eps(a.dtype)
    qn, rn = np.linalg.qr(a.astype(np.float64), mode="complete" if complete else "reduced")
    assert q.shape == qn.shape and r.shape == rn.shape
    assert q.dtype == r.dtype == a.dtype
    a64, q64, r64 = (x.astype(np.float64) for x in (a, q, r))
    norm_a = max(np.linalg.norm(a64), np.finfo(np.float64).tiny)
    assert np.linalg.norm(a64 - q64 @ r64) / (max(m, 1) * norm_a * e) < thresh
    qq = np.swapaxes(q64, -1, -2) @ q64
    orth = np.linalg.norm(qq - np.eye(qq.shape[-1]))
    assert orth / (max(m, 1) * e) < (thresh if orth_bound is None else orth_bound)
    assert np.array_equal(r, np.triu(r))
    assert np.all(np.diagonal(r, axis1=-2, axis2=-1) >= 0)
    # numpy's R up to the signs of its first k rows (rows k.. of a complete R are zero)
    sign = np.where(np.diagonal(rn, axis1=-2, axis2=-1)[..., :k] < 0, -1.0, 1.0)
    scale = max(np.abs(rn).max(), 1.0) if rn.size else 1.0
    cond = np.linalg.cond(a64[..., :, :k]).max() if k and a.size else 1.0
    np.testing.assert_allclose(r64[..., :k, :], rn[..., :k, :] * sign[..., None],
                               atol=1e3 * e * cond * scale)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(40, 12), (12, 30), (15, 15)])
@pytest.mark.parametrize("orth", ["mgs2", "mgs"])
def test_qr_random(rng, dtype, order, shape, orth):
    a = ordered(rng.standard_normal(shape).astype(dtype), order)
    a0 = a.copy()
    q, r = gpusvd.qr(a, orth=orth)
    np.testing.assert_array_equal(a, a0)
    check_qr(a, q, r)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F", "Fortran"])
@pytest.mark.parametrize("mn", [(9, 4), (4, 9), (6, 6)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "economic", "full"])
def test_qr_modes_on_stacks(rng, dtype, order, mn, mode):
    a = ordered(rng.standard_normal((2, 3) + mn).astype(dtype), order)
    a0 = a.copy()
    q, r = gpusvd.qr(a, mode)  # numpy's positional mode
    np.testing.assert_array_equal(a, a0)
    check_qr(a, q, r, complete=mode in ("complete", "full"))


@pytest.mark.parametrize("shape", [(7, 3), (3, 7), (4, 4), (2, 7, 3)])
def test_scipy_mode_names_give_scipy_shapes(rng, shape):
    a = rng.standard_normal(shape)
    for mode in ("full", "economic"):
        q, r = gpusvd.qr(a, mode=mode)
        if a.ndim == 2:
            qs, rs = sl.qr(a, mode=mode)
            assert (q.shape, r.shape) == (qs.shape, rs.shape)
    reduced = gpusvd.qr(a)
    complete = gpusvd.qr(a, mode="complete")
    k = min(shape[-2:])
    np.testing.assert_array_equal(complete.Q[..., :k], reduced.Q)  # the thin Q, completed
    np.testing.assert_array_equal(complete.R[..., :k, :], reduced.R)
    assert not complete.R[..., k:, :].any()


@pytest.mark.parametrize("shape", [(7, 3), (3, 7), (2, 3, 7, 3)])
def test_mode_r(rng, shape):
    a = rng.standard_normal(shape)
    r = gpusvd.qr(a, mode="r")
    rn = np.linalg.qr(a, mode="r")  # numpy's 'r': R alone, (..., k, n)
    assert isinstance(r, np.ndarray) and r.shape == rn.shape
    np.testing.assert_array_equal(r, gpusvd.qr(a).R)
    r2, info = gpusvd.qr(a, mode="r", return_info=True)
    np.testing.assert_array_equal(r2, r)


def test_mode_raw_and_old_mode_values():
    a = np.eye(3)
    with pytest.raises(NotImplementedError, match="raw"):
        gpusvd.qr(a, mode="raw")
    for old in ("mgs", "mgs2"):
        with pytest.raises(ValueError, match="orth=%r" % old):
            gpusvd.qr(a, mode=old)
    with pytest.raises(ValueError, match="mode must be"):
        gpusvd.qr(a, mode="householder")
    with pytest.raises(ValueError, match="orth must be"):
        gpusvd.qr(a, orth="MGS2")
    with pytest.raises(TypeError, match="orth must be a str"):
        gpusvd.qr(a, orth=1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_qr_ill_conditioned(rng, dtype):
    a = ill_conditioned(rng, 50, 20, dtype, cond=1e8)
    q, r = gpusvd.qr(a, orth="mgs2")
    check_qr(a, q, r, thresh=1e3)
    q, r = gpusvd.qr(a, orth="mgs")  # MGS: orthogonality only to eps * cond(A)
    check_qr(a, q, r, thresh=1e3, orth_bound=1e8 * 50)


def test_qr_dependent_column_info(rng):
    a = rng.standard_normal((8, 4))
    a[:, 2] = a[:, 0] + a[:, 1]
    q, r, info = gpusvd.qr(a, return_info=True)
    assert info == 3 and r[2, 2] == 0
    q2, r2 = gpusvd.qr(a)  # not an error, as in numpy and scipy
    np.testing.assert_array_equal(r2, r)
    np.testing.assert_allclose(q @ r, a, atol=1e-13)
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-13)
    stack = np.stack([a, rng.standard_normal((8, 4))])
    _, _, info = gpusvd.qr(stack, return_info=True)
    assert list(info) == [3, 0]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 10, 4), (3, 4, 7), (0, 5, 3), (2, 0, 3), (2, 3, 0),
                                   (2, 0, 4, 3)])
def test_qr_batched_alias(rng, dtype, shape):
    a = rng.standard_normal(shape).astype(dtype)
    a0 = a.copy()
    q, r, info = gpusvd.qr_batched(a, return_info=True)
    np.testing.assert_array_equal(a, a0)
    assert info.shape == shape[:-2]
    check_qr(a, q, r)
    q2, r2 = gpusvd.qr(a, orth="mgs")
    check_qr(a, q2, r2)
    with pytest.raises(ValueError, match="stack of matrices"):
        gpusvd.qr_batched(np.eye(3))


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (0, 4, 3), (2, 3, 0), (2, 0, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_empty(shape, mode):
    out = gpusvd.qr(np.zeros(shape), mode=mode)
    ref = np.linalg.qr(np.zeros(shape), mode=mode)
    if mode == "r":
        out, ref = (out,), (ref,)
    assert [o.shape for o in out] == [x.shape for x in ref]
    if mode == "complete":
        np.testing.assert_array_equal(out[0], ref[0])  # identity where nothing is factored
