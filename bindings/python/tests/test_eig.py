"""eig, eigvals and their *_batched names on host arrays, against numpy.linalg and scipy.linalg."""
import numpy as np
import pytest
import scipy.linalg as sl
from scipy.optimize import linear_sum_assignment

import gpusvd
from conftest import DTYPES, eps, ordered


def residual(a, w, v):
    """max over the stack of |A V - V W|_F / (n |A|_F eps)."""
    n = a.shape[-1]
    r = a.astype(v.dtype) @ v - v * w[..., None, :]
    num = np.linalg.norm(r, axis=(-2, -1))
    den = max(n, 1) * np.maximum(np.linalg.norm(a, axis=(-2, -1)), 1e-300) * eps(a.dtype)
    return float(np.max(num / den, initial=0.0))


def match(w, ref, tol):
    """Each of w's eigenvalues paired one-to-one with numpy's (optimal assignment) within tol."""
    dist = np.abs(w.astype(np.complex128)[:, None] - ref[None, :])
    rows, cols = linear_sum_assignment(dist)
    assert dist[rows, cols].max(initial=0) <= tol, (w, ref)


def check_pairs(w):
    """LAPACK's layout: a complex pair is adjacent, positive imaginary part first."""
    for j in np.flatnonzero(w.imag > 0):
        assert w[j + 1] == np.conj(w[j])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F", "Fortran"])
@pytest.mark.parametrize("shape", [(8, 8), (20, 8, 8), (2, 3, 6, 6)])
def test_eig(rng, dtype, order, shape):
    a = ordered(rng.standard_normal(shape).astype(dtype), order)
    a0 = a.copy()
    w, v = gpusvd.eig(a)
    np.testing.assert_array_equal(a, a0)
    cdt = np.complex64 if dtype == np.float32 else np.complex128
    assert w.dtype == cdt and v.dtype == cdt
    assert w.shape == shape[:-1] and v.shape == shape
    assert residual(a, w, v) < 20
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, rtol=20 * eps(dtype))
    wn = np.linalg.eigvals(a.astype(np.float64))
    for i in np.ndindex(shape[:-2]):
        match(w[i], wn[i], 1e3 * eps(dtype) * np.linalg.norm(a[i]))
        check_pairs(w[i])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F", "Fortran"])
@pytest.mark.parametrize("shape", [(9, 9), (30, 5, 5), (2, 3, 7, 7)])
def test_eigvals(rng, dtype, order, shape):
    # C-ordered input is read as the stack of its transposes (same eigenvalues, no transposing
    # copy): the values must match scipy's whatever the layout.
    a = ordered(rng.standard_normal(shape).astype(dtype), order)
    a0 = a.copy()
    w = gpusvd.eigvals(a)
    np.testing.assert_array_equal(a, a0)
    assert w.dtype == (np.complex64 if dtype == np.float32 else np.complex128)
    assert w.shape == shape[:-1]
    for i in np.ndindex(shape[:-2]):
        ref = sl.eigvals(a[i].astype(np.float64))
        match(w[i], ref, 1e3 * eps(dtype) * np.linalg.norm(a[i]))
        check_pairs(w[i])
    w2, info = gpusvd.eigvals(a, return_info=True)
    assert (info == 0 if a.ndim == 2 else (info.shape == shape[:-2] and not info.any()))


def test_eig_matches_numpy_vectors(rng):
    a = rng.standard_normal((5, 6, 6))
    w, v = gpusvd.eig(a)
    wn, vn = np.linalg.eig(a)
    for b in range(5):
        for j in range(6):
            jn = np.argmin(np.abs(wn[b] - w[b, j]))
            # same normalisation (unit norm, largest component real): equal up to a real sign
            assert abs(abs(np.vdot(vn[b][:, jn], v[b][:, j])) - 1) < 1e-10


def test_always_complex_unlike_numpy():
    # numpy.linalg.eigvals (before numpy 2.5) returns a real array when every eigenvalue is
    # real; gpusvd (like scipy and torch) always returns complex, zero imaginary parts here.
    a = np.array([[2.0, 1.0], [0.0, 3.0]])
    w = gpusvd.eigvals(a)
    assert w.dtype == sl.eigvals(a).dtype == np.complex128
    assert not w.imag.any()
    np.testing.assert_allclose(np.sort(w.real), np.sort(np.linalg.eigvals(a).real), rtol=1e-15)


def test_eig_rotation_and_real():
    a = np.array([[[0.0, -1.0], [1.0, 0.0]], [[2.0, 1.0], [0.0, 3.0]]])
    w, v = gpusvd.eig(a)
    np.testing.assert_allclose(w[0], [1j, -1j], atol=1e-15)
    np.testing.assert_allclose(np.sort(w[1].real), [2, 3])
    assert not w[1].imag.any()
    assert residual(a, w, v) < 20
    res = gpusvd.eig(a[0])
    assert isinstance(res, gpusvd.EigResult)
    np.testing.assert_allclose(res.eigenvalues, [1j, -1j], atol=1e-15)
    assert residual(a[0], res.eigenvalues, res.eigenvectors) < 20


@pytest.mark.parametrize("shape", [(0, 0), (1, 1), (0, 4, 4), (3, 0, 0), (2, 1, 1),
                                   (2, 0, 3, 3)])
def test_eig_small_and_empty(shape):
    a = np.full(shape, 2.0)
    w, v = gpusvd.eig(a)
    wn, vn = np.linalg.eig(a)
    assert w.shape == wn.shape and v.shape == vn.shape
    np.testing.assert_allclose(w, wn)
    np.testing.assert_allclose(v, vn)
    assert gpusvd.eigvals(a).shape == wn.shape


def test_batched_aliases(rng):
    a = rng.standard_normal((4, 5, 5))
    w, v = gpusvd.eig_batched(a)
    w2, v2 = gpusvd.eig(a)
    np.testing.assert_array_equal(w, w2)
    np.testing.assert_array_equal(v, v2)
    np.testing.assert_array_equal(gpusvd.eigvals_batched(a), gpusvd.eigvals(a))
    for f in (gpusvd.eig_batched, gpusvd.eigvals_batched):
        with pytest.raises(ValueError, match="stack of matrices"):
            f(a[0])


@pytest.mark.parametrize("f", [gpusvd.eig, gpusvd.eigvals, gpusvd.eig_batched])
def test_eig_not_square(f):
    with pytest.raises(ValueError, match="square"):
        f(np.zeros((2, 3, 4)))
