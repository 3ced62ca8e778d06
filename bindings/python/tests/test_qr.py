import numpy as np
import pytest
import scipy.linalg as sl

import gpusvd
from conftest import DTYPES, eps, ill_conditioned, ordered


def check_qr(a, q, r, thresh=30, orth_bound=None):
    m, n = a.shape
    k = min(m, n)
    e = eps(a.dtype)
    assert q.shape == (m, k) and r.shape == (k, n) and q.dtype == r.dtype == a.dtype
    a64 = a.astype(np.float64)
    norm_a = max(np.linalg.norm(a64), np.finfo(np.float64).tiny)
    assert np.linalg.norm(a64 - q.astype(np.float64) @ r) / (max(m, 1) * norm_a * e) < thresh
    orth = np.linalg.norm(np.eye(k) - q.T.astype(np.float64) @ q)
    assert orth / (max(m, 1) * e) < (thresh if orth_bound is None else orth_bound)
    assert np.array_equal(r, np.triu(r)) and np.all(np.diag(r) >= 0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(40, 12), (12, 30), (15, 15)])
@pytest.mark.parametrize("mode", ["mgs2", "mgs"])
def test_qr_random(rng, dtype, order, shape, mode):
    a = ordered(rng.standard_normal(shape).astype(dtype), order)
    a0 = a.copy()
    q, r = gpusvd.qr(a, mode=mode)
    np.testing.assert_array_equal(a, a0)
    check_qr(a, q, r)
    # scipy's economic QR agrees up to the signs of R's rows
    qs, rs = sl.qr(a.astype(np.float64), mode="economic")
    sign = np.sign(np.diag(rs))
    np.testing.assert_allclose(r, rs * sign[:, None], atol=1e3 * eps(dtype) * np.abs(rs).max())


@pytest.mark.parametrize("dtype", DTYPES)
def test_qr_ill_conditioned(rng, dtype):
    a = ill_conditioned(rng, 50, 20, dtype, cond=1e8)
    q, r = gpusvd.qr(a, mode="mgs2")
    check_qr(a, q, r)
    q, r = gpusvd.qr(a, mode="mgs")  # MGS: orthogonality only to eps * cond(A)
    check_qr(a, q, r, orth_bound=1e8 * 50)


def test_qr_dependent_column_info(rng):
    a = rng.standard_normal((8, 4))
    a[:, 2] = a[:, 0] + a[:, 1]
    (q, r), info = gpusvd.qr(a, return_info=True)[:2], gpusvd.qr(a, return_info=True)[2]
    assert info == 3 and r[2, 2] == 0
    check_qr(a, q, r)
    q2, r2 = gpusvd.qr(a)  # not an error, as in scipy
    np.testing.assert_array_equal(r2, r)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 10, 4), (3, 4, 7), (0, 5, 3), (2, 0, 3), (2, 3, 0)])
def test_qr_batched(rng, dtype, shape):
    a = rng.standard_normal(shape).astype(dtype)
    a0 = a.copy()
    q, r, info = gpusvd.qr_batched(a, return_info=True)
    np.testing.assert_array_equal(a, a0)
    b, m, n = shape
    k = min(m, n)
    assert q.shape == (b, m, k) and r.shape == (b, k, n) and info.shape == (b,)
    for i in range(b):
        check_qr(a[i], q[i], r[i])


def test_qr_empty():
    q, r = gpusvd.qr(np.zeros((0, 3)))
    assert q.shape == (0, 0) and r.shape == (0, 3)
