"""Device arrays (CuPy arrays and torch CUDA tensors) through the library's `_gpu` forms.

Without CuPy / torch, or without a usable CUDA device, the device tests skip ('could not import
cupy', 'CUDA is not available', ...); test_detection and test_device_array_without_cupy run
everywhere. On a GPU machine every routine with GPU kernels (gesvj, gesvj_batched, geqrf_mgs,
geqrf_mgs_batched, geev_batched, bdsvd, pca for m >= n) must give correct results on device
arrays, float32 and float64, with outputs on the input's device and the input left unchanged;
pca of wide data (no kernel) must answer GPUSVD_STATUS_NOT_SUPPORTED.

Every check runs on host copies of the outputs against numpy / scipy in float64. Inputs are
well conditioned (cond ~ 10) so that the tolerances can be tight.
"""
import math

import numpy as np
import pytest
import scipy.linalg as sl
from scipy.optimize import linear_sum_assignment

import gpusvd
from gpusvd._arrays import is_device_array, ops_for
from conftest import DTYPES, dense_bidiagonal, eps, with_singular_values

# ----------------------------------------------------------------------------------------------
# Detection (no GPU needed)
# ----------------------------------------------------------------------------------------------


class FakeCAI:
    __cuda_array_interface__ = {"shape": (2, 2), "typestr": "<f8", "data": (0, False),
                                "version": 3, "strides": None}


class FakeDLPack:
    def __init__(self, dev):
        self.dev = dev

    def __dlpack_device__(self):
        return (self.dev, 0)


def test_detection():
    assert is_device_array(FakeCAI())
    assert is_device_array(FakeDLPack(2))  # kDLCUDA
    assert not is_device_array(FakeDLPack(1))  # kDLCPU
    assert not is_device_array(np.zeros(3))
    assert not is_device_array([[1.0]])


def test_device_array_without_cupy(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_cupy(name, *args, **kw):
        if name == "cupy" or name.startswith("cupy."):
            raise ImportError("no cupy here")
        return real_import(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_cupy)
    with pytest.raises(TypeError, match="CuPy"):
        ops_for(FakeCAI())


# ----------------------------------------------------------------------------------------------
# Array libraries: one adapter per library, so each test body runs on CuPy and on torch
# ----------------------------------------------------------------------------------------------


class CupyLib:
    name = "cupy"

    def __init__(self, cp):
        self.cp = cp

    def put(self, a, order="C"):
        """A device copy of the numpy array a; order "F": per-matrix Fortran order."""
        if order == "F" and a.ndim >= 2:
            return self.cp.asarray(np.ascontiguousarray(np.swapaxes(a, -1, -2))).swapaxes(-1, -2)
        return self.cp.asarray(np.ascontiguousarray(a))

    def host(self, x):
        return self.cp.asnumpy(x)

    def on_device(self, x, like):
        return isinstance(x, self.cp.ndarray) and x.device.id == like.device.id

    def clone(self, x):
        return x.copy()

    def same(self, x, y):
        return x.shape == y.shape and bool((x == y).all())


class TorchLib:
    name = "torch"

    def __init__(self, torch):
        self.torch = torch

    def put(self, a, order="C"):
        t = self.torch
        if order == "F" and a.ndim >= 2:
            return t.as_tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)),
                               device="cuda").transpose(-1, -2)
        return t.as_tensor(np.ascontiguousarray(a), device="cuda")

    def host(self, x):
        return x.detach().cpu().numpy()

    def on_device(self, x, like):
        return isinstance(x, self.torch.Tensor) and x.is_cuda and x.device == like.device

    def clone(self, x):
        return x.clone()

    def same(self, x, y):
        return bool(self.torch.equal(x, y))


def _library_has_cuda():
    if "no CUDA backend" in gpusvd.build_info():
        pytest.skip("libgpusvd was built without the CUDA backend: %s" % gpusvd.build_info())


def _cupy_lib():
    cp = pytest.importorskip("cupy")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("cupy is installed but sees no CUDA device")
    except Exception as exc:
        pytest.skip("cupy is installed but no CUDA device is usable: %s" % exc)
    _library_has_cuda()
    return CupyLib(cp)


def _torch_lib():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch is installed but CUDA is not available")
    _library_has_cuda()
    return TorchLib(torch)


@pytest.fixture(params=["cupy", "torch"])
def lib(request):
    return _cupy_lib() if request.param == "cupy" else _torch_lib()


@pytest.fixture
def cupy_lib():
    return _cupy_lib()


def _check_outputs(lib, like, *outs):
    for x in outs:
        assert lib.on_device(x, like), "%s output %r is not a %s array on %s" % (
            lib.name, type(x), lib.name, like.device)


# ----------------------------------------------------------------------------------------------
# Test matrices and host-side checks (float64 references)
# ----------------------------------------------------------------------------------------------

COND = 10.0


def well_conditioned(rng, m, n, dtype, cond=COND):
    """m x n with cond(A) = cond for m >= n; for m < n the leading m x m block (the one a QR
    factors) has cond(A[:, :m]) = cond and the rest is random, scaled like it."""
    k = min(m, n)
    s = np.geomspace(1.0, 1.0 / cond, k)
    if m >= n:
        return with_singular_values(rng, m, n, s, dtype)
    a1 = with_singular_values(rng, m, m, s, np.float64)
    a2 = rng.standard_normal((m, n - m)) / np.sqrt(m)
    return np.hstack([a1, a2]).astype(dtype)


def well_conditioned_batch(rng, b, m, n, dtype):
    return np.stack([well_conditioned(rng, m, n, dtype) for _ in range(b)]) if b else \
        np.zeros((0, m, n), dtype)


def check_svd(a, u, s, vh, thresh=50):
    """A = U diag(s) Vh, U and Vh orthonormal, s descending and equal to numpy's singular
    values with rtol 1e3 * eps * cond(A)."""
    m, n = a.shape
    k = min(m, n)
    e = eps(a.dtype)
    assert u.shape == (m, k) and s.shape == (k,) and vh.shape == (k, n)
    assert u.dtype == s.dtype == vh.dtype == a.dtype
    a64 = a.astype(np.float64)
    u64, s64, vh64 = (x.astype(np.float64) for x in (u, s, vh))
    res = np.linalg.norm(a64 - (u64 * s64) @ vh64) / (np.linalg.norm(a64) * max(m, n) * e)
    assert res < thresh, "|A - U S Vh| / (|A| max(m,n) eps) = %.3g" % res
    orth_u = np.linalg.norm(np.eye(k) - u64.T @ u64) / (m * e)
    assert orth_u < thresh, "|I - U^T U| / (m eps) = %.3g" % orth_u
    orth_v = np.linalg.norm(np.eye(k) - vh64 @ vh64.T) / (n * e)
    assert orth_v < thresh, "|I - Vh Vh^T| / (n eps) = %.3g" % orth_v
    check_singular_values(a, s)


def _wide(a):
    """The float64 reference dtype of a's kind (complex128 for complex data)."""
    return np.complex128 if np.iscomplexobj(a) else np.float64


def check_singular_values(a, s):
    s_ref = np.linalg.svd(a.astype(_wide(a)), compute_uv=False)
    assert np.all(s >= 0) and np.all(np.diff(s.astype(np.float64)) <= 0), s
    cond = s_ref[0] / s_ref[-1]
    np.testing.assert_allclose(s, s_ref, rtol=1e3 * eps(a.dtype) * cond)


def check_qr(a, q, r, mode, thresh=30):
    """A = Q R, Q orthonormal (MGS: to eps * cond(A[:, :k])), R upper triangular with R[j, j] >=
    0 and equal to scipy's R up to the signs of its rows."""
    m, n = a.shape
    k = min(m, n)
    e = eps(a.dtype)
    assert q.shape == (m, k) and r.shape == (k, n) and q.dtype == r.dtype == a.dtype
    a64, q64, r64 = (x.astype(np.float64) for x in (a, q, r))
    res = np.linalg.norm(a64 - q64 @ r64) / (m * np.linalg.norm(a64) * e)
    assert res < thresh, "|A - Q R| / (m |A| eps) = %.3g" % res
    cond = np.linalg.cond(a64[:, :k])
    orth = np.linalg.norm(np.eye(k) - q64.T @ q64) / (m * e)
    bound = thresh * (cond if mode == "mgs" else 1.0)
    assert orth < bound, "|I - Q^T Q| / (m eps) = %.3g (mode %s)" % (orth, mode)
    assert np.array_equal(r, np.triu(r)), "R is not upper triangular"
    assert np.all(np.diag(r) >= 0), np.diag(r)
    rs = sl.qr(a64, mode="economic")[1]
    sign = np.where(np.diag(rs) < 0, -1.0, 1.0)
    np.testing.assert_allclose(r64, rs * sign[:, None],
                               atol=1e3 * e * cond * np.abs(rs).max())


def match_eigenvalues(a, w):
    """numpy.linalg.eigvals of the float64 matrix matched one-to-one (optimal assignment) to w;
    each distance must be within 20 sqrt(n) eps |A|_F kappa_j, kappa_j the condition number of
    eigenvalue j (|y_j| |x_j| / |y_j^H x_j|, from numpy.linalg.eig: y_j^H = row j of X^-1)."""
    n = a.shape[0]
    a64 = a.astype(_wide(a))
    w_ref = np.linalg.eigvals(a64)
    w_eig, x = np.linalg.eig(a64)
    kappa_eig = np.linalg.norm(np.linalg.inv(x), axis=1) * np.linalg.norm(x, axis=0)
    kappa = kappa_eig[np.argmin(np.abs(w_ref[:, None] - w_eig[None, :]), axis=1)]
    dist = np.abs(w_ref[:, None] - w.astype(np.complex128)[None, :])
    rows, cols = linear_sum_assignment(dist)
    tol = 20 * np.sqrt(n) * eps(a.dtype) * np.linalg.norm(a64) * kappa[rows]
    bad = dist[rows, cols] > tol
    assert not bad.any(), "eigenvalues %s are %s from numpy's %s (tolerance %s)" % (
        w[cols[bad]], dist[rows, cols][bad], w_ref[rows[bad]], tol[bad])
    # LAPACK's layout of a real matrix's eigenvalues: a complex pair is adjacent, positive
    # imaginary part first, conjugates.
    for j in np.flatnonzero(w.imag > 0) if not np.iscomplexobj(a) else []:
        assert j + 1 < n and abs(w[j + 1] - np.conj(w[j])) <= 4 * eps(a.dtype) * abs(w[j]), w


def eig_residual(a, w, v):
    """|A V - V diag(w)|_F / (n |A|_F eps)."""
    n = a.shape[-1]
    r = a.astype(np.complex128) @ v.astype(np.complex128) - v * w[None, :]
    return np.linalg.norm(r) / (n * np.linalg.norm(a.astype(_wide(a))) * eps(a.dtype))


def reference_pca(x, k):
    """(components (k, n), explained variance (k,), scores (m, k), mean (n,)) from numpy's SVD
    of the centred data, in float64."""
    x = x.astype(np.float64)
    mean = x.mean(axis=0)
    xc = x - mean
    _, s, vt = np.linalg.svd(xc, full_matrices=False)
    comp = vt[:k]
    return comp, s[:k] ** 2 / (x.shape[0] - 1), xc @ comp.T, mean


# ----------------------------------------------------------------------------------------------
# svd, svd_batched (gesvj_gpu, gesvj_batched_gpu)
# ----------------------------------------------------------------------------------------------

# (200, 40) Jacobi on A; (600, 48) the QR-first path (tall, m*n > 128^2); (30, 70) wide (Jacobi
# on A^T); (64, 64) square. A C-ordered input reaches the library as its transpose.
SVD_SHAPES = [(200, 40), (600, 48), (30, 70), (64, 64)]


def check_full(lib, a_h, u, vh):
    """Full factors: orthogonal, and their first k columns / rows are the economy ones'."""
    m, n = a_h.shape[-2:]
    e = eps(a_h.dtype)
    u64, vh64 = (lib.host(x).astype(np.float64) for x in (u, vh))
    assert u64.shape[-2:] == (m, m) and vh64.shape[-2:] == (n, n)
    for x, size in ((u64, m), (vh64, n)):
        g = np.swapaxes(x, -1, -2) @ x
        assert np.abs(g - np.eye(size)).max() < 50 * size * e


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", SVD_SHAPES)
def test_svd_device(lib, rng, dtype, order, shape):
    a_h = well_conditioned(rng, *shape, dtype)
    a = lib.put(a_h, order)
    a0 = lib.clone(a)
    u, s, vh = gpusvd.svd(a, full_matrices=False)
    _check_outputs(lib, a, u, s, vh)
    assert lib.same(a, a0), "svd modified its input"
    check_svd(a_h, lib.host(u), lib.host(s), lib.host(vh))
    s_only, info = gpusvd.svd(a, compute_uv=False, return_info=True)
    _check_outputs(lib, a, s_only, info)
    assert int(lib.host(info)) == 0
    check_singular_values(a_h, lib.host(s_only))
    check_singular_values(a_h, lib.host(gpusvd.svdvals(a)))
    # numpy's default, full_matrices=True: U (m, m), Vh (n, n) completed by the array
    # library's own QR, on the device
    uf, sf, vhf = gpusvd.svd(a)
    _check_outputs(lib, a, uf, sf, vhf)
    k = min(shape)
    check_full(lib, a_h, uf, vhf)
    np.testing.assert_array_equal(lib.host(uf)[:, :k], lib.host(u))
    np.testing.assert_array_equal(lib.host(vhf)[:k], lib.host(vh))
    assert lib.same(a, a0), "svd modified its input"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(20, 11, 5), (6, 5, 9), (4, 64, 48), (2, 3, 12, 7),
                                   (2, 3, 7, 12)])
def test_svd_stack_device(lib, rng, dtype, order, shape):
    a_h = well_conditioned_batch(rng, math.prod(shape[:-2]), *shape[-2:], dtype)
    a_h = a_h.reshape(shape)
    a = lib.put(a_h, order)
    a0 = lib.clone(a)
    u, s, vh, info = gpusvd.svd(a, full_matrices=False, return_info=True)
    _check_outputs(lib, a, u, s, vh, info)
    assert lib.same(a, a0), "svd modified its input"
    m, n = shape[-2:]
    k = min(m, n)
    b = shape[:-2]
    u, s, vh, info = (lib.host(x) for x in (u, s, vh, info))
    assert u.shape == b + (m, k) and s.shape == b + (k,) and vh.shape == b + (k, n)
    assert info.shape == b and not info.any(), info
    for i in np.ndindex(b):
        check_svd(a_h[i], u[i], s[i], vh[i])
    s_only = lib.host(gpusvd.svdvals(a))
    for i in np.ndindex(b):
        check_singular_values(a_h[i], s_only[i])
    uf, _, vhf = gpusvd.svd(a)
    _check_outputs(lib, a, uf, vhf)
    check_full(lib, a_h, uf, vhf)
    # the old name: economy by default
    u2, s2, vh2 = gpusvd.svd_batched(a)
    np.testing.assert_array_equal(lib.host(s2), s)
    assert lib.host(u2).shape == u.shape


@pytest.mark.parametrize("shape", [(0, 4, 3), (2, 0, 3), (2, 3, 0)])
def test_svd_empty_device(lib, shape):
    a = lib.put(np.zeros(shape))
    out = gpusvd.svd(a)
    ref = np.linalg.svd(np.zeros(shape))
    _check_outputs(lib, a, *out)
    for o, r in zip(out, ref):
        np.testing.assert_array_equal(lib.host(o), r)


# ----------------------------------------------------------------------------------------------
# qr, qr_batched (geqrf_mgs_gpu, geqrf_mgs_batched_gpu)
# ----------------------------------------------------------------------------------------------

# (40, 12), (12, 30): one-block MGS kernels; (600, 300): tall CholeskyQR with 256-column panels;
# (100, 300): the tall path for a wide matrix.
QR_SHAPES = [(40, 12), (12, 30), (600, 300), (100, 300)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", QR_SHAPES)
@pytest.mark.parametrize("orth", ["mgs2", "mgs"])
def test_qr_device(lib, rng, dtype, order, shape, orth):
    a_h = well_conditioned(rng, *shape, dtype)
    a = lib.put(a_h, order)
    a0 = lib.clone(a)
    q, r, info = gpusvd.qr(a, orth=orth, return_info=True)
    _check_outputs(lib, a, q, r, info)
    assert lib.same(a, a0), "qr modified its input"
    assert int(lib.host(info)) == 0
    check_qr(a_h, lib.host(q), lib.host(r), orth)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(40, 12), (2, 3, 9, 4), (12, 30)])
def test_qr_modes_device(lib, rng, dtype, shape):
    a_h = rng.standard_normal(shape).astype(dtype)
    a = lib.put(a_h)
    q, r = gpusvd.qr(a)
    qc, rc = gpusvd.qr(a, mode="complete")
    r_only = gpusvd.qr(a, mode="r")
    _check_outputs(lib, a, q, r, qc, rc, r_only)
    m, n = shape[-2:]
    k = min(m, n)
    q, r, qc, rc, r_only = (lib.host(x) for x in (q, r, qc, rc, r_only))
    assert qc.shape == shape[:-2] + (m, m) and rc.shape == shape[:-2] + (m, n)
    np.testing.assert_array_equal(qc[..., :k], q)
    np.testing.assert_array_equal(rc[..., :k, :], r)
    assert not rc[..., k:, :].any()
    np.testing.assert_array_equal(r_only, r)
    g = np.swapaxes(qc.astype(np.float64), -1, -2) @ qc.astype(np.float64)
    assert np.abs(g - np.eye(m)).max() < 50 * m * eps(dtype)
    np.testing.assert_allclose(qc.astype(np.float64) @ rc, a_h, atol=100 * m * eps(dtype))
    qs, rs = gpusvd.qr(a, mode="full")  # scipy's name for complete
    np.testing.assert_array_equal(lib.host(qs), qc)


# (30, 10, 4), (5, 4, 7): team kernels; (3, 300, 240): m*n > 256^2, the tall path per matrix.
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(30, 10, 4), (5, 4, 7), (3, 300, 240), (2, 3, 10, 4)])
@pytest.mark.parametrize("orth", ["mgs2", "mgs"])
def test_qr_stack_device(lib, rng, dtype, order, shape, orth):
    a_h = well_conditioned_batch(rng, math.prod(shape[:-2]), *shape[-2:], dtype)
    a_h = a_h.reshape(shape)
    a = lib.put(a_h, order)
    a0 = lib.clone(a)
    q, r, info = gpusvd.qr(a, orth=orth, return_info=True)
    _check_outputs(lib, a, q, r, info)
    assert lib.same(a, a0), "qr modified its input"
    m, n = shape[-2:]
    k = min(m, n)
    b = shape[:-2]
    q, r, info = (lib.host(x) for x in (q, r, info))
    assert q.shape == b + (m, k) and r.shape == b + (k, n)
    assert info.shape == b and not info.any(), info
    for i in np.ndindex(b):
        check_qr(a_h[i], q[i], r[i], orth)
    q2, r2 = gpusvd.qr_batched(a, orth=orth)
    np.testing.assert_array_equal(lib.host(r2), r)


# ----------------------------------------------------------------------------------------------
# eig, eigvals and the *_batched names (geev_batched_gpu)
# ----------------------------------------------------------------------------------------------

# n = 8, 33: one warp per matrix; n = 100: one block per matrix (or the global-memory path).
EIG_SHAPES = [(64, 8, 8), (8, 33, 33), (3, 100, 100), (2, 3, 8, 8), (12, 12)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", EIG_SHAPES)
def test_eig_device(lib, rng, dtype, order, shape):
    a_h = rng.standard_normal(shape).astype(dtype)
    a = lib.put(a_h, order)
    a0 = lib.clone(a)
    w, v, info = gpusvd.eig(a, return_info=True)
    _check_outputs(lib, a, w, v, info)
    assert lib.same(a, a0), "eig modified its input"
    b, n = shape[:-2], shape[-1]
    cdt = np.complex64 if dtype == np.float32 else np.complex128
    w, v, info = (lib.host(x) for x in (w, v, info))
    assert w.dtype == cdt and v.dtype == cdt and w.shape == b + (n,) and v.shape == shape
    assert info.shape == b and not info.any(), info
    for i in np.ndindex(b):
        match_eigenvalues(a_h[i], w[i])
        res = eig_residual(a_h[i], w[i], v[i])
        assert res < 50, "matrix %s: |A V - V W| / (n |A| eps) = %.3g" % (i, res)
        np.testing.assert_allclose(np.linalg.norm(v[i].astype(np.complex128), axis=0), 1,
                                   rtol=10 * n * eps(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])  # C: read as the transposes, no copy transposes
@pytest.mark.parametrize("shape", EIG_SHAPES)
def test_eigvals_device(lib, rng, dtype, order, shape):
    a_h = rng.standard_normal(shape).astype(dtype)
    a = lib.put(a_h, order)
    a0 = lib.clone(a)
    w = gpusvd.eigvals(a)
    _check_outputs(lib, a, w)
    assert lib.same(a, a0), "eigvals modified its input"
    w = lib.host(w)
    assert w.dtype == (np.complex64 if dtype == np.float32 else np.complex128)
    assert w.shape == shape[:-1]
    for i in np.ndindex(shape[:-2]):
        match_eigenvalues(a_h[i], w[i])
    if len(shape) == 3:
        np.testing.assert_array_equal(lib.host(gpusvd.eigvals_batched(a)), w)


def test_eig_device_known(lib):
    """A rotation (eigenvalues +-i) and a triangular matrix (2, 3), exactly."""
    a_h = np.array([[[0.0, -1.0], [1.0, 0.0]], [[2.0, 1.0], [0.0, 3.0]]])
    w, v = (lib.host(x) for x in gpusvd.eig_batched(lib.put(a_h)))
    np.testing.assert_allclose(w[0], [1j, -1j], atol=1e-14)
    np.testing.assert_allclose(np.sort(w[1].real), [2, 3], atol=1e-14)
    assert not w[1].imag.any()
    for i in range(2):
        assert eig_residual(a_h[i], w[i], v[i]) < 50


def test_torch_cpu_tensors(rng):
    """torch CPU tensors (no GPU needed): the host path through a numpy view, results back as
    torch tensors; overwrite_a works in the tensor's memory unless it requires grad."""
    torch = pytest.importorskip("torch")
    a_h = rng.standard_normal((2, 6, 4))
    t = torch.from_numpy(a_h.copy())
    u, s, vh = gpusvd.svd(t, full_matrices=False)
    assert all(isinstance(x, torch.Tensor) and x.device.type == "cpu" for x in (u, s, vh))
    for i in range(2):
        check_svd(a_h[i], u[i].numpy(), s[i].numpy(), vh[i].numpy())
    uf, _, vhf = gpusvd.svd(t)
    assert tuple(uf.shape) == (2, 6, 6) and tuple(vhf.shape) == (2, 4, 4)
    q, r = gpusvd.qr(t)
    assert isinstance(q, torch.Tensor) and isinstance(r, torch.Tensor)
    for i in range(2):
        check_qr(a_h[i], q[i].numpy(), r[i].numpy(), "mgs2")
    sq = a_h[:, :4, :].copy()
    w, info = gpusvd.eigvals(torch.from_numpy(sq), return_info=True)
    assert isinstance(w, torch.Tensor) and w.dtype == torch.complex128
    for i in range(2):
        match_eigenvalues(sq[i], w[i].numpy())
    f = np.swapaxes(np.ascontiguousarray(np.swapaxes(a_h, -1, -2)), -1, -2)
    tf = torch.from_numpy(f.copy(order="K"))  # per-matrix Fortran order kept
    q, _ = gpusvd.qr(tf, overwrite_a=True)
    assert q.data_ptr() == tf.data_ptr()  # Q written over the tensor's first columns
    tg = torch.from_numpy(f.copy(order="K")).requires_grad_(True)
    before = tg.detach().clone()
    q, _ = gpusvd.qr(tg, overwrite_a=True)
    assert torch.equal(tg.detach(), before), "overwrote a tensor that requires grad"


# ----------------------------------------------------------------------------------------------
# Copies: which device inputs reach the library without one (the call is recorded)
# ----------------------------------------------------------------------------------------------


def _ptr(lib, x):
    return x.data.ptr if lib.name == "cupy" else x.data_ptr()


# (function, pointer's position in the call's args, orders whose buffer is used in place; the
# shapes below are square or stacks, which svd takes through the transpose; qr takes one
# C-ordered matrix row-major in place too, a stack only in Fortran order)
IN_PLACE = [
    ("svd", 4, "CF"), ("svdvals", 4, "CF"), ("eigvals", 2, "CF"), ("eig", 2, "F"),
    ("qr", 3, "F"),
]


def in_place_orders(func, in_place, shape):
    return in_place + ("C" if func == "qr" and len(shape) == 2 else "")


@pytest.mark.parametrize("func,pos,in_place", IN_PLACE)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(64, 64), (3, 16, 16)])
def test_overwrite_a_device(lib, rng, calls, func, pos, in_place, order, shape):
    a_h = well_conditioned_batch(rng, math.prod(shape[:-2]), *shape[-2:], np.float64)
    a_h = a_h.reshape(shape)
    a = lib.put(a_h, order)
    a0 = lib.clone(a)
    out = getattr(gpusvd, func)(a, overwrite_a=True)
    _, w, args = calls[-1]
    in_place = in_place_orders(func, in_place, shape)
    assert (args[pos] == _ptr(lib, a)) == (order in in_place), (func, order)
    if order not in in_place:
        assert lib.same(a, a0), "%s changed an input it had to copy" % func
    # the results are right either way
    if func in ("svd", "svdvals"):
        s = lib.host(out[1] if func == "svd" else out)
        for i in np.ndindex(shape[:-2]):
            check_singular_values(a_h[i], s[i])
    elif func in ("eig", "eigvals"):
        w = lib.host(out[0] if func == "eig" else out)
        for i in np.ndindex(shape[:-2]):
            match_eigenvalues(a_h[i], w[i])
    else:
        q, r = (lib.host(x) for x in out)
        for i in np.ndindex(shape[:-2]):
            check_qr(a_h[i], q[i], r[i], "mgs2")


@pytest.mark.parametrize("shape", [(40, 300), (4, 40, 24), (4, 24, 40)])
def test_svd_c_order_device_is_a_straight_copy(lib, rng, calls, shape):
    # Without overwrite_a the copy of a C-ordered stack (or wide matrix) keeps the input's
    # order: the library gets A^T column-major.
    a_h = rng.standard_normal(shape)
    a = lib.put(a_h, "C")
    s = gpusvd.svdvals(a)
    _, w, args = calls[-1]
    m, n = shape[-2:]
    assert args[2:4] == (n, m) and args[4] != _ptr(lib, a)
    st = w.strides if lib.name == "cupy" else tuple(8 * x for x in w.stride())
    assert st[-2:] == (8, 8 * n)  # A^T column-major: a's own C order
    s = lib.host(s)
    for i in np.ndindex(shape[:-2]):
        check_singular_values(a_h[i], s[i])


# ----------------------------------------------------------------------------------------------
# pca (pca_gpu: m >= n only)
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])  # both passed to the library without a copy
@pytest.mark.parametrize("shape,k", [((2000, 12), 4), ((300, 64), 5), ((500, 8), 8),
                                     ((48, 48), 3)])
def test_pca_device(lib, rng, dtype, order, shape, k):
    m, n = shape
    scale = np.geomspace(10, 0.1, n)  # separated variances: well-determined components
    x_h = (rng.standard_normal(shape) * scale + 5.0).astype(dtype)
    x = lib.put(x_h, order)
    x0 = lib.clone(x)
    res = gpusvd.pca(x, k)
    assert isinstance(res, gpusvd.PCAResult)
    _check_outputs(lib, x, res.components, res.explained_variance, res.scores, res.mean,
                   res.info)
    assert lib.same(x, x0), "pca modified its input"
    assert int(lib.host(res.info)) == 0
    comp, ev, scores, mean = (lib.host(y) for y in (res.components, res.explained_variance,
                                                    res.scores, res.mean))
    assert comp.shape == (k, n) and ev.shape == (k,) and scores.shape == (m, k)
    assert mean.shape == (n,)
    assert comp.dtype == ev.dtype == scores.dtype == mean.dtype == dtype
    comp_r, ev_r, scores_r, mean_r = reference_pca(x_h, k)
    tol = 1e4 * eps(dtype)
    np.testing.assert_allclose(ev, ev_r, rtol=tol)
    np.testing.assert_allclose(mean, mean_r, rtol=tol)
    total = float(x_h.astype(np.float64).var(axis=0, ddof=1).sum())  # the ratios' denominator
    tv = res.total_variance  # a float, or a 0-d device array
    np.testing.assert_allclose(float(lib.host(tv) if hasattr(tv, "shape") else tv), total,
                               rtol=tol)
    np.testing.assert_allclose(lib.host(res.explained_variance_ratio), ev_r / total, rtol=tol)
    # components up to sign (compared as |components| after aligning each row's sign) ...
    sign = np.where(np.sum(comp.astype(np.float64) * comp_r, axis=1) < 0, -1.0, 1.0)
    np.testing.assert_allclose(comp * sign[:, None], comp_r, atol=tol)
    np.testing.assert_allclose(np.abs(comp), np.abs(comp_r), atol=tol)
    np.testing.assert_allclose(scores * sign[None, :], scores_r,
                               atol=tol * np.abs(scores_r).max())
    # ... and gpusvd.h's sign convention: each row's largest-magnitude entry is positive
    assert np.all(comp[np.arange(k), np.argmax(np.abs(comp), axis=1)] > 0)
    np.testing.assert_allclose(lib.host(res.transform(x)), scores,
                               atol=tol * np.abs(scores_r).max())
    res2 = gpusvd.pca(x, k, compute_scores=False)
    assert res2.scores is None
    _check_outputs(lib, x, res2.components, res2.explained_variance)
    np.testing.assert_allclose(lib.host(res2.explained_variance), ev_r, rtol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_pca_device_wide_not_supported(lib, rng, dtype):
    # The GPU pca needs samples >= features (m >= n); wider data is NOT_SUPPORTED on the _gpu
    # form (host arrays run it on the CPU under AUTO).
    x = lib.put(rng.standard_normal((10, 30)).astype(dtype))
    with pytest.raises(gpusvd.GpusvdError) as exc:
        gpusvd.pca(x, 3)
    assert exc.value.status_name == "GPUSVD_STATUS_NOT_SUPPORTED", exc.value
    assert exc.value.routine.endswith("pca_gpu"), exc.value.routine


# ----------------------------------------------------------------------------------------------
# bdsvd
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("n", [1, 12, 300])
def test_bdsvd_device(lib, rng, dtype, lower, n):
    # The GPU bidiagonal SVD (bisection values, twisted-factorization vectors) on device arrays:
    # LAPACK's ratios against the dense B in float64, values against scipy, inputs unchanged.
    d_h = rng.standard_normal(n).astype(dtype)
    e_h = rng.standard_normal(n - 1).astype(dtype)
    d, e = lib.put(d_h), lib.put(e_h)
    d0, e0 = lib.clone(d), lib.clone(e)
    u, s, vt, info = gpusvd.bdsvd(d, e, lower=lower, return_info=True)
    _check_outputs(lib, d, u, s, vt, info)
    assert lib.same(d, d0) and lib.same(e, e0), "bdsvd modified its inputs"
    assert int(lib.host(info)) == 0
    u, s, vt = (lib.host(x).astype(np.float64) for x in (u, s, vt))
    b = dense_bidiagonal(d_h, e_h, lower)
    ep = eps(dtype)
    assert np.linalg.norm(b - (u * s) @ vt) / (n * np.linalg.norm(b) * ep) < 50
    assert np.linalg.norm(np.eye(n) - u.T @ u) / (n * ep) < 50
    assert np.linalg.norm(np.eye(n) - vt @ vt.T) / (n * ep) < 50
    sr = sl.svdvals(b)
    np.testing.assert_allclose(s, sr, rtol=0, atol=50 * n * ep * sr[0])
    s_only = lib.host(gpusvd.bdsvd(d, e, lower=lower, compute_uv=False))
    np.testing.assert_allclose(s_only, sr, rtol=0, atol=50 * n * ep * sr[0])


# ----------------------------------------------------------------------------------------------
# Streams: the _gpu forms run on the current CuPy stream, ordered with CuPy's own work there
# ----------------------------------------------------------------------------------------------


def test_cupy_non_default_stream(cupy_lib, rng):
    cp = cupy_lib.cp
    a_h = well_conditioned(rng, 2000, 64, np.float64)
    b_h = well_conditioned_batch(rng, 50, 16, 16, np.float64)
    with cp.cuda.Stream(non_blocking=True) as stream:
        a = cp.asarray(a_h) * 2.0  # enqueued on `stream`: the library must run after it
        u, s, vh = gpusvd.svd(a, full_matrices=False)
        rec = (u * s) @ vh  # enqueued after the library's work on the same stream
        q, r = gpusvd.qr_batched(cp.asarray(b_h))
        w = gpusvd.eigvals_batched(cp.asarray(b_h))
        stream.synchronize()
    check_svd(2.0 * a_h, cp.asnumpy(u), cp.asnumpy(s), cp.asnumpy(vh))
    err = float(cp.abs(rec - a).max())
    assert err < 1e-10, "max |2A - U S Vh| = %.3g" % err
    q, r, w = cp.asnumpy(q), cp.asnumpy(r), cp.asnumpy(w)
    for i in range(0, 50, 7):
        check_qr(b_h[i], q[i], r[i], "mgs2")
        match_eigenvalues(b_h[i], w[i])


def test_cupy_pca_total_variance_on_the_calls_stream(cupy_lib, rng):
    # The total variance (the ratios' denominator) is read after the call on the stream it ran
    # on: a read on another stream would find the previous call's value (or none yet).
    cp = cupy_lib.cp
    small = rng.standard_normal((500, 16))
    big = rng.standard_normal((400000, 16)) * np.geomspace(8.0, 0.5, 16)
    first = gpusvd.pca(cp.asarray(small), 3)  # the handle's word now holds small's total
    np.testing.assert_allclose(float(first.total_variance), small.var(axis=0, ddof=1).sum(),
                               rtol=1e-10)
    with cp.cuda.Stream(non_blocking=True) as stream:
        x = cp.asarray(big) * 3.0  # enqueued on `stream`: the call runs after it
        res = gpusvd.pca(x, 3)
        ratio = cp.asnumpy(res.explained_variance_ratio)
        stream.synchronize()
    total = float((3.0 * big).var(axis=0, ddof=1).sum())
    np.testing.assert_allclose(float(res.total_variance), total, rtol=1e-10)
    np.testing.assert_allclose(ratio, cp.asnumpy(res.explained_variance) / total, rtol=1e-10)
    xc = 3.0 * big - 3.0 * big.mean(axis=0)
    var = np.linalg.eigvalsh(xc.T @ xc)[::-1] / (big.shape[0] - 1)
    np.testing.assert_allclose(float(res.noise_variance), var[3:].mean(), rtol=1e-8)


# ----------------------------------------------------------------------------------------------
# Complex device arrays (the c and z routines' GPU kernels)
# ----------------------------------------------------------------------------------------------

CDTYPES = [np.complex64, np.complex128]


def complex_randn(rng, shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(300, 16), (40, 40), (3, 40, 24), (2, 3, 9, 5)])
def test_qr_complex_device(lib, rng, dtype, order, shape):
    """A = Q R with Q^H Q = I and R upper triangular with a real non-negative diagonal (zgeqrf +
    zungqr's convention), on the input's device."""
    a_h = complex_randn(rng, shape, dtype)
    a = lib.put(a_h, order)
    q, r, info = gpusvd.qr(a, return_info=True)
    _check_outputs(lib, a, q, r, info)
    q, r = lib.host(q), lib.host(r)
    assert q.dtype == r.dtype == dtype and not lib.host(info).any()
    e = eps(dtype)
    for i in np.ndindex(shape[:-2]):
        a64, q64, r64 = (x[i].astype(np.complex128) for x in (a_h, q, r))
        m, n = a64.shape
        assert np.linalg.norm(a64 - q64 @ r64) / (np.linalg.norm(a64) * m * e) < 30
        assert np.linalg.norm(np.eye(q64.shape[1]) - q64.conj().T @ q64) / (m * e) < 30
        assert np.array_equal(r64, np.triu(r64))
        d = np.diagonal(r64)
        assert np.all(d.imag == 0) and np.all(d.real >= 0), d


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(30, 30), (4, 12, 12), (2, 3, 7, 7)])
def test_eig_complex_device(lib, rng, dtype, shape):
    """Eigenvalues matched to numpy's, |A V - V W| small, vectors of unit norm with the largest
    component real (zgeev's normalisation)."""
    a_h = complex_randn(rng, shape, dtype)
    a = lib.put(a_h, "F")
    w, v, info = gpusvd.eig(a, return_info=True)
    _check_outputs(lib, a, w, v, info)
    w, v = lib.host(w), lib.host(v)
    assert w.dtype == v.dtype == dtype and not lib.host(info).any()
    n = shape[-1]
    for i in np.ndindex(shape[:-2]):
        match_eigenvalues(a_h[i], w[i])
        res = eig_residual(a_h[i], w[i], v[i])
        assert res < 50, "matrix %s: |A V - V W| / (n |A| eps) = %.3g" % (i, res)
        v64 = v[i].astype(np.complex128)
        np.testing.assert_allclose(np.linalg.norm(v64, axis=0), 1, rtol=10 * n * eps(dtype))
        big = v64[np.argmax(np.abs(v64), axis=0), np.arange(n)]
        assert np.all(big.imag == 0), big
    w2 = lib.host(gpusvd.eigvals(lib.put(a_h, "C")))  # C order: read as the transposes
    for i in np.ndindex(shape[:-2]):
        match_eigenvalues(a_h[i], w2[i])


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(24, 16), (16, 24), (5, 32, 32)])
def test_svd_complex_device(lib, rng, dtype, shape):
    """A = U diag(s) V^H with U, V orthonormal and s numpy's singular values."""
    a_h = complex_randn(rng, shape, dtype)
    a = lib.put(a_h, "F")
    u, s, vh, info = gpusvd.svd(a, full_matrices=False, return_info=True)
    _check_outputs(lib, a, u, s, vh, info)
    u, s, vh = lib.host(u), lib.host(s), lib.host(vh)
    assert u.dtype == vh.dtype == dtype and s.dtype == np.finfo(dtype).dtype
    assert not lib.host(info).any()
    e = eps(dtype)
    for i in np.ndindex(shape[:-2]):
        a64, u64, vh64 = (x[i].astype(np.complex128) for x in (a_h, u, vh))
        m, n = a64.shape
        k = min(m, n)
        res = np.linalg.norm(a64 - (u64 * s[i]) @ vh64) / (np.linalg.norm(a64) * max(m, n) * e)
        assert res < 50, res
        assert np.linalg.norm(np.eye(k) - u64.conj().T @ u64) / (m * e) < 50
        assert np.linalg.norm(np.eye(k) - vh64 @ vh64.conj().T) / (n * e) < 50
        check_singular_values(a_h[i], s[i])


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_pca_complex_device(lib, rng, dtype, order):
    """Complex PCA on the GPU as on the host: the same variances, components (largest entry real
    and positive), scores and mean, on arrays of the input's library."""
    m, n, k = 600, 10, 4
    x_h = (complex_randn(rng, (m, n), dtype) * (0.7 ** np.arange(n)) + (3 + 2j)).astype(dtype)
    d = gpusvd.pca(lib.put(x_h, order), k)
    h = gpusvd.pca(x_h, k, handle=gpusvd.Handle("cpu"))  # LAPACK's ?geqrf + ?gesdd
    tol = 300 * n * eps(dtype)
    ev = lib.host(d.explained_variance)
    assert ev.dtype == np.finfo(dtype).dtype
    np.testing.assert_allclose(ev, h.explained_variance, rtol=0, atol=tol * h.explained_variance[0])
    comp = lib.host(d.components)
    big = comp[np.arange(k), np.argmax(np.abs(comp), axis=1)]
    assert np.all(big.real > 0) and np.all(np.abs(big.imag) <= 4 * eps(dtype) * big.real), big
    np.testing.assert_allclose(comp, h.components, rtol=0, atol=20 * tol)
    scores = lib.host(d.scores)
    np.testing.assert_allclose(scores, h.scores, rtol=0, atol=20 * tol * np.abs(h.scores).max())
    np.testing.assert_allclose(lib.host(d.mean), h.mean, rtol=0,
                               atol=100 * eps(dtype) * np.abs(x_h).max())


def test_pca_complex_device_wide_not_supported(lib, rng):
    """Complex data with fewer samples than features has no GPU path: the library's
    NOT_SUPPORTED, no silent host copy."""
    x = lib.put(complex_randn(rng, (4, 50), np.complex128), "F")
    with pytest.raises(gpusvd.GpusvdError, match="NOT_SUPPORTED"):
        gpusvd.pca(x, 2)
