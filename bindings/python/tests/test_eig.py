import numpy as np
import pytest

import gpusvd
from conftest import DTYPES, eps


def residual(a, w, v):
    """|A V - V W|_F / (n |A|_F eps) in the precision of the result."""
    n = a.shape[-1]
    r = a.astype(v.dtype) @ v - v * w[None, :]
    return np.linalg.norm(r) / (max(n, 1) * max(np.linalg.norm(a), 1e-300) * eps(a.dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_eig_batched(rng, dtype, order):
    a = rng.standard_normal((20, 8, 8)).astype(dtype)
    a = np.asfortranarray(a) if order == "F" else a
    a0 = a.copy()
    w, v = gpusvd.eig_batched(a)
    np.testing.assert_array_equal(a, a0)
    cdt = np.complex64 if dtype == np.float32 else np.complex128
    assert w.dtype == cdt and v.dtype == cdt and w.shape == (20, 8) and v.shape == (20, 8, 8)
    for b in range(20):
        assert residual(a[b], w[b], v[b]) < 20
        np.testing.assert_allclose(np.linalg.norm(v[b], axis=0), 1, rtol=20 * eps(dtype))
        # eigenvalues match numpy's, pairs with positive imaginary part first
        wn = np.linalg.eigvals(a[b].astype(np.float64))
        dist = np.abs(w[b][:, None] - wn[None, :]).min(axis=1)
        assert dist.max() < 1e3 * eps(dtype) * np.linalg.norm(a[b])
        im = w[b].imag
        for j in np.flatnonzero(im > 0):
            assert w[b][j + 1] == np.conj(w[b][j])
    w2 = gpusvd.eigvals_batched(a)
    assert w2.dtype == cdt
    np.testing.assert_allclose(w2, w, atol=100 * eps(dtype) * np.abs(w).max())


def test_eig_matches_numpy_vectors(rng):
    a = rng.standard_normal((5, 6, 6))
    w, v = gpusvd.eig_batched(a)
    wn, vn = np.linalg.eig(a)
    for b in range(5):
        for j in range(6):
            jn = np.argmin(np.abs(wn[b] - w[b, j]))
            # same normalisation (unit norm, largest component real): equal up to a real sign
            assert abs(abs(np.vdot(vn[b][:, jn], v[b][:, j])) - 1) < 1e-10


def test_eig_rotation_and_real():
    a = np.array([[[0.0, -1.0], [1.0, 0.0]], [[2.0, 1.0], [0.0, 3.0]]])
    w, v = gpusvd.eig_batched(a)
    np.testing.assert_allclose(w[0], [1j, -1j], atol=1e-15)
    np.testing.assert_allclose(np.sort(w[1].real), [2, 3])
    assert not w[1].imag.any()
    for b in range(2):
        assert residual(a[b], w[b], v[b]) < 20
    assert gpusvd.eigvals_batched(a[1:]).dtype == np.complex128  # always complex


@pytest.mark.parametrize("shape", [(0, 4, 4), (3, 0, 0), (2, 1, 1)])
def test_eig_small_and_empty(shape):
    a = np.ones(shape)
    w, v = gpusvd.eig_batched(a)
    assert w.shape == shape[:2] and v.shape == shape
    if shape[1] == 1:
        np.testing.assert_allclose(w, 1) and np.testing.assert_allclose(v, 1)


def test_eig_not_square():
    with pytest.raises(ValueError, match="square"):
        gpusvd.eig_batched(np.zeros((2, 3, 4)))
