"""complex64/complex128 numpy arrays through the complex routines (c, z), against numpy and
scipy."""
import numpy as np
import pytest
import scipy.linalg as sla

import gpusvd
from gpusvd._arrays import HostOps
from gpusvd._linalg import _stack_input

CDTYPES = [np.complex64, np.complex128]


def ceps(dtype):
    return float(np.finfo(dtype).eps)


def crandn(rng, shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def with_singular_values(rng, m, n, s, dtype):
    """U diag(s) V^H with random U (m x k), V (n x k) with orthonormal columns, k = len(s)."""
    k = len(s)
    u, _ = np.linalg.qr(crandn(rng, (m, k), np.complex128))
    v, _ = np.linalg.qr(crandn(rng, (n, k), np.complex128))
    return ((u * s) @ v.conj().T).astype(dtype)


def unitary_error(q):
    k = q.shape[-1]
    return np.abs(np.swapaxes(q, -1, -2).conj() @ q - np.eye(k)).max(initial=0)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (9, 4), (4, 9), (12, 12)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_svd(rng, dtype, shape, order):
    m, n = shape
    k = min(m, n)
    s_true = np.geomspace(1, 1e-3, k)
    a = np.asarray(with_singular_values(rng, m, n, s_true, dtype), order=order)
    a0 = a.copy()
    u, s, vh = gpusvd.svd(a)
    assert (u.dtype, s.dtype, vh.dtype) == (np.dtype(dtype), np.finfo(dtype).dtype,
                                            np.dtype(dtype))
    assert u.shape == (m, m) and vh.shape == (n, n)
    np.testing.assert_array_equal(a, a0)
    tol = 50 * max(m, n) * ceps(dtype)
    assert np.abs(u[:, :k] * s @ vh[:k] - a).max() <= tol * s[0]
    assert unitary_error(u) <= tol and unitary_error(vh.conj().T) <= tol
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=0, atol=tol * s[0])
    np.testing.assert_allclose(gpusvd.svdvals(a), sla.svdvals(a), rtol=0, atol=tol * s[0])
    ue, se, vhe = gpusvd.svd(a, full_matrices=False)
    assert ue.shape == (m, k) and vhe.shape == (k, n)
    assert np.abs(ue * se @ vhe - a).max() <= tol * s[0]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_svd_stack_and_batched_alias(rng, dtype, order):
    a = np.asarray(crandn(rng, (3, 2, 7, 5), dtype), order=order)
    u, s, vh = gpusvd.svd(a, full_matrices=False)
    tol = 50 * 7 * ceps(dtype)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=0,
                               atol=tol * np.abs(a).max() * 7)
    assert np.abs((u * s[..., None, :]) @ vh - a).max() <= tol * s.max()
    u2, s2, vh2 = gpusvd.svd_batched(a.reshape(6, 7, 5))
    np.testing.assert_array_equal(s2, s.reshape(6, 5))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(8, 5), (5, 8), (6, 6)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_qr(rng, dtype, shape, order):
    m, n = shape
    k = min(m, n)
    a = np.asarray(crandn(rng, shape, dtype), order=order)
    q, r = gpusvd.qr(a)
    assert q.dtype == dtype and r.dtype == dtype and q.shape == (m, k) and r.shape == (k, n)
    tol = 30 * m * ceps(dtype)
    assert np.abs(q @ r - a).max() <= tol * np.abs(a).max() * n
    assert unitary_error(q) <= tol
    d = np.diag(r)
    assert (d.imag == 0).all() and (d.real >= 0).all()
    assert (np.tril(r, -1) == 0).all()
    # scipy's R up to the phases of its diagonal
    rs = sla.qr(a, mode="r")[0][:k]
    ph = np.diag(rs) / np.abs(np.diag(rs))
    np.testing.assert_allclose(r, ph.conj()[:, None] * rs, rtol=0,
                               atol=tol * np.abs(a).max() * n)
    # complete and r modes
    qc, rc = gpusvd.qr(a, mode="complete")
    assert qc.shape == (m, m) and rc.shape == (m, n) and unitary_error(qc) <= tol
    assert np.abs(qc @ rc - a).max() <= tol * np.abs(a).max() * n
    np.testing.assert_array_equal(gpusvd.qr(a, mode="r"), r)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_qr_stack(rng, dtype):
    a = crandn(rng, (4, 9, 3), dtype)
    q, r = gpusvd.qr_batched(a)
    assert np.abs(q @ r - a).max() <= 30 * 9 * ceps(dtype) * 9
    d = np.diagonal(r, axis1=-2, axis2=-1)
    assert (d.imag == 0).all() and (d.real >= 0).all()


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", [1, 6, 17])
@pytest.mark.parametrize("order", ["C", "F"])
def test_eig(rng, dtype, n, order):
    a = np.asarray(crandn(rng, (n, n), dtype), order=order)
    w, v = gpusvd.eig(a)
    assert w.dtype == dtype and v.dtype == dtype
    scale = np.abs(a).sum(axis=0).max()
    tol = 20 * n * ceps(dtype) * scale
    assert np.abs(a @ v - v * w).max() <= tol
    np.testing.assert_allclose(np.linalg.norm(v, axis=0), 1, atol=10 * n * ceps(dtype))
    big = np.abs(v).argmax(axis=0)
    assert np.abs(v[big, np.arange(n)].imag).max() <= 4 * ceps(dtype)
    ref = sla.eigvals(a)
    wv = gpusvd.eigvals(a)
    for got in (w, wv):
        for x in ref:  # every reference eigenvalue is found
            assert np.abs(got - x).min() <= 100 * n * ceps(dtype) * scale


@pytest.mark.parametrize("dtype", CDTYPES)
def test_eig_hermitian_stack(rng, dtype):
    b = crandn(rng, (3, 5, 5), dtype)
    h = (b + np.swapaxes(b, -1, -2).conj()) / 2
    w = gpusvd.eigvals_batched(h)
    assert w.dtype == dtype
    np.testing.assert_allclose(np.sort(w.real, axis=-1), np.linalg.eigvalsh(h), rtol=0,
                               atol=200 * ceps(dtype) * np.abs(h).max())
    w2, v2 = gpusvd.eig_batched(h)
    assert np.abs(h @ v2 - v2 * w2[..., None, :]).max() <= 200 * ceps(dtype) * np.abs(h).max()


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(40, 5), (4, 7)])
def test_pca(rng, dtype, shape):
    m, n = shape
    p = min(m, n)
    x = with_singular_values(rng, m, n, np.geomspace(4, 0.5, p), dtype) + (1 + 2j)
    x = x.astype(dtype)
    k = min(3, p)
    res = gpusvd.pca(x, k)
    xc = x.astype(np.complex128) - x.astype(np.complex128).mean(axis=0)
    _, s, vh = np.linalg.svd(xc, full_matrices=False)
    tol = 100 * max(m, n) * ceps(dtype)
    assert res.explained_variance.dtype == np.finfo(dtype).dtype
    assert res.components.dtype == dtype and res.mean.dtype == dtype
    np.testing.assert_allclose(res.mean, x.astype(np.complex128).mean(axis=0), rtol=0,
                               atol=tol * 3)
    np.testing.assert_allclose(res.explained_variance, s[:k] ** 2 / (m - 1), rtol=0,
                               atol=tol * s[0] ** 2)
    np.testing.assert_allclose(res.total_variance, (s ** 2).sum() / (m - 1), rtol=tol)
    for j in range(k):
        v = vh[j].conj()  # the j-th right singular vector
        big = np.abs(v).argmax()
        ref = v * (np.conj(v[big]) / np.abs(v[big]))
        gap = min(s[j - 1] - s[j] if j else s[j], s[j] - s[j + 1] if j + 1 < p else s[j])
        assert np.abs(res.components[j] - ref).max() <= tol * s[0] / gap
        c = res.components[j]
        assert c[np.abs(c).argmax()].real > 0
    np.testing.assert_allclose(res.scores, res.transform(x), rtol=0, atol=tol * s[0])
    np.testing.assert_allclose(res.scores, xc @ res.components.T, rtol=0, atol=tol * s[0])
    if k == p:  # all components: the round trip gives the data back
        np.testing.assert_allclose(res.inverse_transform(res.scores), x, rtol=0,
                                   atol=tol * s[0])


@pytest.mark.parametrize("dtype", CDTYPES)
def test_nonfinite(rng, dtype):
    a = crandn(rng, (2, 4, 3), dtype)
    a[1, 2, 0] = complex(0, np.nan)
    with pytest.raises(ValueError, match="infs or NaNs"):
        gpusvd.svd(a)
    s, info = gpusvd.svdvals(a, check_finite=False, return_info=True)
    assert list(info) == [0, -1]
    assert np.isnan(s[1]).all() and np.isfinite(s[0]).all()
    q, r, info = gpusvd.qr(a, check_finite=False, return_info=True)
    assert list(info) == [0, -1] and np.isnan(r[1].real).all() and np.isnan(r[1].imag).all()


@pytest.mark.parametrize("dtype", CDTYPES)
def test_overwrite_a(rng, dtype):
    a = np.asfortranarray(crandn(rng, (6, 4), dtype))
    a0 = a.copy()
    q, r = gpusvd.qr(a, overwrite_a=True)
    assert np.shares_memory(q, a)
    assert np.abs(q @ r - a0).max() <= 30 * 6 * ceps(dtype) * 24


def test_bdsvd_stays_real():
    with pytest.raises(TypeError, match="must be real"):
        gpusvd.bdsvd(np.ones(3, np.complex128), np.ones(2))


class _DeviceOpsForTest(HostOps):
    """HostOps that calls itself a device: what the input checks see of a device array."""
    device = True


def test_complex_device_arrays_pass_the_input_checks(monkeypatch):
    # The library, not the binding, decides which complex cases have GPU kernels.
    import gpusvd._linalg as lin
    monkeypatch.setattr(lin, "ops_for", lambda x: (_DeviceOpsForTest(), np.asarray(x)))
    for dtype in (np.complex64, np.complex128, np.float32):
        ops, a, dt = _stack_input(np.zeros((3, 3), dtype), "svd", True)
        assert dt == dtype
