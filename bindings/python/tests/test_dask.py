"""gpusvd.dask: the batched functions over chunked stacks, the tall QR / SVD / PCA reduction.

Each result is computed by Dask (the synchronous scheduler, and a distributed LocalCluster of
two in-process workers where distributed is installed) and checked on the computed whole
against gpusvd's own function of the whole array and against numpy / scipy in float64.
Without Dask every test but the ImportError check skips. The CuPy-chunk tests at the end need
CuPy and a CUDA device (they skip otherwise, as test_device.py's).
"""
import builtins
import importlib
import sys

import numpy as np
import pytest
import scipy.linalg as sl

import gpusvd
from conftest import DTYPES, eps, ill_conditioned, with_singular_values

try:
    import dask
    import dask.array as da
    import gpusvd.dask as gd
except ImportError:  # the tests below skip; test_import_error_names_pip runs anyway
    dask = da = gd = None


@pytest.fixture(autouse=True)
def _synchronous(request):
    if dask is None and request.node.name != "test_import_error_names_pip":
        pytest.skip("dask is not installed (pip install \"dask[array]\" distributed)")
    if dask is None:
        yield
        return
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture(scope="module")
def client():
    if dask is None:
        pytest.skip("dask is not installed (pip install \"dask[array]\" distributed)")
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as c:
            yield c


def scale(x):
    return max(1.0, float(np.abs(np.asarray(x, np.float64)).max(initial=0)))


def assert_close(got, ref, dtype, factor=50):
    """got equals ref to rounding: |got - ref| <= factor * eps * max|ref|."""
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.shape == ref.shape and got.dtype == ref.dtype, (got.shape, got.dtype,
                                                                 ref.shape, ref.dtype)
    err = float(np.abs(got.astype(np.complex128) - ref.astype(np.complex128)).max(initial=0))
    assert err <= factor * eps(dtype) * scale(np.abs(ref)), "max difference %.3g" % err


def assert_declared(lazy, computed):
    """The Dask array's declared shape, dtype and chunk type are those of its computed value."""
    assert lazy.shape == computed.shape and lazy.dtype == computed.dtype
    assert type(lazy._meta) is type(computed)


# ----------------------------------------------------------------------------------------------
# Import
# ----------------------------------------------------------------------------------------------

def test_import_error_names_pip(monkeypatch):
    real_import = builtins.__import__

    def no_dask(name, *args, **kw):
        if name == "dask" or name.startswith("dask."):
            raise ImportError("No module named %r" % name)
        return real_import(name, *args, **kw)

    monkeypatch.delitem(sys.modules, "gpusvd.dask", raising=False)
    if hasattr(gpusvd, "dask"):
        monkeypatch.delattr(gpusvd, "dask")
    monkeypatch.setattr(builtins, "__import__", no_dask)
    with pytest.raises(ImportError, match=r'pip install "dask\[array\]" distributed'):
        importlib.import_module("gpusvd.dask")


# ----------------------------------------------------------------------------------------------
# Batched functions
# ----------------------------------------------------------------------------------------------

# (shape, chunks): batch axes chunked unevenly; the last case splits the matrix axes (they are
# rechunked), the 2-D one is a single matrix.
LAYOUTS = [((10, 6, 4), (3, 6, 4)), ((4, 3, 5, 5), (3, 2, 5, 5)), ((7, 4, 6), (2, 2, 3)),
           ((5, 4), (5, 4))]


def _stack(rng, shape, dtype):
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,chunks", LAYOUTS)
def test_svd_batched(rng, dtype, shape, chunks):
    x = _stack(rng, shape, dtype)
    a = da.from_array(x, chunks=chunks)
    for full in (True, False):
        lazy = gd.svd(a, full_matrices=full)
        got = dask.compute(*lazy)
        for lz, g in zip(lazy, got):
            assert_declared(lz, g)
        assert lazy.U.chunks[:-2] == a.chunks[:-2]
        ref = gpusvd.svd(x, full_matrices=full)
        for g, r in zip(got, ref):
            assert_close(g, r, dtype)
    u, s, vh = dask.compute(*gd.svd(a, full_matrices=False))
    x64 = x.astype(np.float64)
    assert_close(s.astype(np.float64), np.linalg.svd(x64, compute_uv=False), np.float32
                 if dtype == np.float32 else np.float64)
    recon = np.einsum("...ik,...k,...kj->...ij", u.astype(np.float64), s.astype(np.float64),
                      vh.astype(np.float64))
    assert np.abs(recon - x64).max() <= 100 * eps(dtype) * scale(x)
    vals = gd.svdvals(a)
    assert_declared(vals, vals.compute())
    assert_close(vals.compute(), gpusvd.svdvals(x), dtype)
    assert_close(gd.svd(a, compute_uv=False).compute(), gpusvd.svdvals(x), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,chunks", LAYOUTS)
def test_qr_batched(rng, dtype, shape, chunks):
    x = _stack(rng, shape, dtype)
    a = da.from_array(x, chunks=chunks)
    for mode in ("reduced", "complete", "economic"):
        lazy = gd.qr(a, mode)
        got = dask.compute(*lazy)
        for lz, g in zip(lazy, got):
            assert_declared(lz, g)
        for g, r in zip(got, gpusvd.qr(x, mode)):
            assert_close(g, r, dtype)
    lazy_r = gd.qr(a, "r", orth="mgs")
    assert_declared(lazy_r, lazy_r.compute())
    assert_close(lazy_r.compute(), gpusvd.qr(x, "r", orth="mgs"), dtype)
    # numpy's R up to the signs of its rows (gpusvd's diagonal is non-negative)
    r_np = np.linalg.qr(x.astype(np.float64), mode="r")
    r_np = r_np * np.sign(np.diagonal(r_np, axis1=-2, axis2=-1))[..., :, None]
    assert_close(gd.qr(a).R.compute().astype(np.float64), r_np,
                 np.float32 if dtype == np.float32 else np.float64, 200)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,chunks", [((9, 5, 5), (4, 5, 5)), ((3, 4, 4, 4), (2, 3, 2, 4)),
                                          ((6, 6), (3, 3))])
def test_eig_batched(rng, dtype, shape, chunks):
    x = _stack(rng, shape, dtype)
    a = da.from_array(x, chunks=chunks)
    lazy = gd.eig(a)
    w, v = dask.compute(*lazy)
    assert_declared(lazy.eigenvalues, w)
    assert_declared(lazy.eigenvectors, v)
    ref_w, ref_v = gpusvd.eig(x)
    assert_close(w, ref_w, dtype)
    assert_close(v, ref_v, dtype)
    lazy_w = gd.eigvals(a)
    assert_declared(lazy_w, lazy_w.compute())
    assert_close(lazy_w.compute(), gpusvd.eigvals(x), dtype)
    # against numpy: A v = v w, and the same eigenvalues (sorted)
    x64 = x.astype(np.float64)
    tol = 200 * eps(dtype) * scale(x) * x.shape[-1]
    assert np.abs(x64 @ v - v * w[..., None, :]).max() <= tol
    key = lambda z: np.sort_complex(np.round(z, 6))  # noqa: E731
    ref = np.linalg.eigvals(x64)
    assert np.abs(key(w.astype(np.complex128)) - key(ref)).max() <= 1e3 * eps(dtype) * \
        scale(x) * x.shape[-1]


def test_meta_without_compute(rng):
    """Shapes, chunks and dtypes are known from the graph alone; nothing runs until compute."""
    calls = []
    x = _stack(rng, (8, 5, 3), np.float32)

    def counted(block):
        calls.append(block.shape)
        return block

    a = da.from_array(x, chunks=(4, 5, 3)).map_blocks(counted, meta=np.empty((0, 0, 0), np.float32))
    u, s, vh = gd.svd(a)
    w = gd.eigvals(da.from_array(np.zeros((6, 3, 3), np.int64), chunks=(2, 3, 3)))
    q, r = gd.qr(a, "complete")
    assert not calls
    assert (u.shape, s.shape, vh.shape) == ((8, 5, 5), (8, 3), (8, 3, 3))
    assert u.dtype == np.float32 and w.dtype == np.complex128 and w.chunks == ((2, 2, 2), (3,))
    assert (q.shape, r.shape) == ((8, 5, 5), (8, 5, 3))
    assert s.compute().shape == (8, 3) and len(calls) == 2


def test_kwargs_and_info(rng):
    x = _stack(rng, (6, 4, 4), np.float64)
    x[4, 1, 2] = np.nan
    x[1, :, 3] = x[1, :, 0]  # a dependent column: qr's info 4
    a = da.from_array(x, chunks=(2, 4, 4))
    with pytest.raises(ValueError, match="NaN"):
        gd.svdvals(a).compute()
    s, info = gd.svdvals(a, check_finite=False, return_info=True)
    ref_s, ref_info = gpusvd.svdvals(x, check_finite=False, return_info=True)
    assert info.dtype == np.int32 and info.chunks == ((2, 2, 2),)
    np.testing.assert_array_equal(info.compute(), ref_info)
    assert info.compute()[4] == -1 and np.isnan(s.compute()[4]).all()
    np.testing.assert_array_equal(np.isnan(s.compute()), np.isnan(ref_s))
    q, r, info = gd.qr(a, check_finite=False, return_info=True)
    np.testing.assert_array_equal(info.compute(), gpusvd.qr(x, check_finite=False,
                                                             return_info=True)[2])
    assert info.compute()[1] == 4
    w, v, info = gd.eig(a, check_finite=False, return_info=True)
    np.testing.assert_array_equal(info.compute(), [0, 0, 0, 0, -1, 0])
    one = da.from_array(x[0], chunks=(4, 2))  # columns rechunked, one matrix
    s, info = gd.svdvals(one, return_info=True)
    assert info.shape == () and int(info.compute()) == 0


def test_overwrite_a_passes_through(rng):
    x = np.asfortranarray(rng.standard_normal((4, 5)))
    a = da.from_array(x.copy(order="F"), chunks=(4, 5), asarray=False)
    s = gd.svdvals(da.from_array(x, chunks=(4, 5)), overwrite_a=False).compute()
    assert_close(s, gpusvd.svdvals(x), np.float64)
    assert gd.svdvals(a, overwrite_a=True).compute().shape == (4,)


def test_batched_errors(rng):
    with pytest.raises(ValueError, match="square"):
        gd.eig(da.zeros((4, 3, 2), chunks=2))
    with pytest.raises(ValueError, match="matrix"):
        gd.svd(da.zeros(5, chunks=2))
    with pytest.raises(TypeError, match="complex"):
        gd.svd(da.zeros((2, 3, 3), dtype=np.complex128))
    with pytest.raises(ValueError, match="raw|mode"):
        gd.qr(da.zeros((2, 3, 3)), "bogus")
    with pytest.raises(NotImplementedError):
        gd.qr(da.zeros((2, 3, 3)), "raw")
    with pytest.raises(ValueError, match="mgs2"):
        gd.qr(da.zeros((2, 3, 3)), orth="cgs")
    x = da.from_array(rng.standard_normal((6, 3, 3)), chunks=3)
    with pytest.raises(ValueError, match="unknown"):
        gd.svd(x[x[:, 0, 0] > 0])


# ----------------------------------------------------------------------------------------------
# Tall QR and SVD
# ----------------------------------------------------------------------------------------------

# (m, n, row chunks, split_every): one level, uneven chunks, chunks with fewer rows than n, a
# deep tree (split_every 2), a wide array.
TALL = [(400, 6, 100, None), (523, 8, (200, 3, 120, 200), None), (300, 5, 37, 2),
        (64, 10, 4, 3), (6, 10, 2, 2)]


def _tall_checks(x, q, r, dtype, cond_factor=1.0):
    m, n = x.shape
    k = min(m, n)
    e = eps(dtype)
    assert q.shape == (m, k) and r.shape == (k, n) and q.dtype == r.dtype == dtype
    x64, q64, r64 = (z.astype(np.float64) for z in (x, q, r))
    res = np.linalg.norm(x64 - q64 @ r64) / np.linalg.norm(x64)
    assert res <= 20 * max(m, n) ** 0.5 * e, "||A - QR|| / ||A|| = %.3g" % res
    orth = np.linalg.norm(q64.T @ q64 - np.eye(k))
    assert orth <= 20 * k * e * cond_factor, "||Q^T Q - I|| = %.3g" % orth
    assert np.all(np.diagonal(r64) >= 0) and np.allclose(np.tril(r64, -1), 0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,n,chunks,split", TALL)
def test_tall_qr(rng, dtype, m, n, chunks, split):
    x = rng.standard_normal((m, n)).astype(dtype)
    a = da.from_array(x, chunks=(chunks, n))
    q, r = gd.qr(a, split_every=split)
    assert q.chunks[0] == a.chunks[0] and r.chunks == ((min(m, n),), (n,))
    qc, rc = dask.compute(q, r)
    assert_declared(q, qc)
    assert_declared(r, rc)
    _tall_checks(x, qc, rc, dtype)
    # gpusvd's R of the whole, and numpy's with its signs fixed (R is unique for full rank)
    assert_close(rc, gpusvd.qr(x).R, dtype, 20 * n)
    r_np = np.linalg.qr(x.astype(np.float64), mode="r")
    r_np *= np.sign(np.diag(r_np))[:, None]
    assert_close(rc.astype(np.float64), r_np, dtype, 20 * n)
    assert_close(gd.qr(a, "r", split_every=split).compute(), rc, dtype, 0)


@pytest.mark.parametrize("chunks,split", [(50, None), (25, 2), ((10, 90, 60, 40), 3)])
def test_tall_qr_ill_conditioned(rng, chunks, split):
    """cond 1e10: residual and orthogonality stay at eps (mgs2 in every factorisation)."""
    x = ill_conditioned(rng, 200, 7, np.float64, cond=1e10)
    q, r = dask.compute(*gd.qr(da.from_array(x, chunks=(chunks, 7)), split_every=split))
    _tall_checks(x, q, r, np.float64)
    # R agrees with gpusvd's of the whole to the accuracy cond allows (normwise)
    ref = gpusvd.qr(x).R
    assert np.linalg.norm(r - ref) <= 1e-4 * np.linalg.norm(ref)
    # the columns of A are reproduced column by column, small ones included
    rel = np.linalg.norm(x - q @ r, axis=0) / np.linalg.norm(x, axis=0)
    assert rel.max() <= 1e3 * eps(np.float64) * 1e10 ** 0.5


def test_tall_qr_rank_deficient_and_info(rng):
    x = rng.standard_normal((120, 5))
    x[:, 3] = 2.0 * x[:, 1]
    a = da.from_array(x, chunks=(30, 5))
    q, r, info = dask.compute(*gd.qr(a, return_info=True))
    assert int(info) == gpusvd.qr(x, return_info=True)[2] == 4
    assert abs(r[3, 3]) <= 1e3 * eps(np.float64) * np.linalg.norm(x)
    assert np.linalg.norm(q.T @ q - np.eye(5)) <= 100 * eps(np.float64)
    assert np.linalg.norm(x - q @ r) <= 100 * eps(np.float64) * np.linalg.norm(x)
    x[7, 2] = np.inf
    a = da.from_array(x, chunks=(30, 5))
    with pytest.raises(ValueError, match="NaN"):
        dask.compute(*gd.qr(a))
    r, info = dask.compute(*gd.qr(a, "r", check_finite=False, return_info=True))
    assert int(info) == -1


def test_tall_qr_errors():
    a = da.zeros((100, 4), chunks=(25, 4))
    with pytest.raises(ValueError, match="complete"):
        gd.qr(a, "complete")
    with pytest.raises(ValueError, match="split_every"):
        gd.qr(a, split_every=1)
    with pytest.raises(ValueError, match="full_matrices=False"):
        gd.svd(a)
    with pytest.raises(ValueError, match="return_info"):
        gd.svdvals(a, return_info=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_tall_qr_columns_rechunked(rng, dtype):
    x = rng.standard_normal((90, 6)).astype(dtype)
    q, r = dask.compute(*gd.qr(da.from_array(x, chunks=(20, 2))))
    _tall_checks(x, q, r, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_tall_svd(rng, dtype):
    s_true = np.geomspace(10.0, 1e-3, 6)
    x = with_singular_values(rng, 333, 6, s_true, dtype)
    a = da.from_array(x, chunks=(80, 6))
    lazy = gd.svd(a, full_matrices=False)
    u, s, vh = dask.compute(*lazy)
    for lz, g in zip(lazy, (u, s, vh)):
        assert_declared(lz, g)
    assert lazy.U.chunks[0] == a.chunks[0]
    e = eps(dtype)
    assert_close(s, gpusvd.svdvals(x), dtype, 100)
    assert np.abs(s.astype(np.float64) - sl.svdvals(x.astype(np.float64))).max() <= \
        100 * e * s_true[0]
    u64, vh64 = u.astype(np.float64), vh.astype(np.float64)
    assert np.linalg.norm(x - (u64 * s) @ vh64) <= 100 * e * np.linalg.norm(x)
    assert np.linalg.norm(u64.T @ u64 - np.eye(6)) <= 100 * e
    assert np.linalg.norm(vh64 @ vh64.T - np.eye(6)) <= 100 * e
    assert_close(gd.svdvals(a).compute(), s, dtype, 0)
    assert gd.svd(a, full_matrices=False, compute_uv=False).compute().shape == (6,)


# ----------------------------------------------------------------------------------------------
# PCA
# ----------------------------------------------------------------------------------------------

FIELDS = ["components", "explained_variance", "scores", "mean", "explained_variance_ratio",
          "singular_values", "noise_variance", "total_variance"]


def _pca_data(rng, m, n, dtype):
    """Samples with variances spread over decades along random (not coordinate) axes, offset
    from the origin."""
    axes, _ = np.linalg.qr(rng.standard_normal((n, n)))
    z = rng.standard_normal((m, n)) * np.geomspace(20.0, 0.1, n)
    return (z @ axes.T + 100.0).astype(dtype)


def _compare_pca(p, ref, dtype):
    vals = dask.compute(*[getattr(p, f) for f in FIELDS] + [p.info])
    got = dict(zip(FIELDS, vals[:-1]))
    assert int(vals[-1]) == 0
    assert p.n_components == ref.n_components
    e = eps(dtype)
    for f in ("explained_variance", "singular_values", "explained_variance_ratio",
              "noise_variance", "total_variance", "mean"):
        want = np.asarray(getattr(ref, f), np.float64)
        err = np.abs(np.asarray(got[f], np.float64) - want).max(initial=0)
        assert err <= 1e3 * e * max(scale(want), 1e-30 if f == "noise_variance" else 1.0), f
    # components and scores: the same sign convention, so equal to rounding
    assert got["components"].shape == ref.components.shape
    assert np.abs(got["components"] - ref.components).max(initial=0) <= 1e3 * e
    assert np.abs(got["scores"] - ref.scores).max(initial=0) <= 1e3 * e * scale(ref.scores)
    c = got["components"]
    if c.shape[0]:
        big = np.take_along_axis(c, np.abs(c).argmax(axis=1)[:, None], axis=1)
        assert np.all(big > 0)
    return got


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_components", [None, 3, 0, 0.9, 0.999])
def test_pca(rng, dtype, n_components):
    x = _pca_data(rng, 400, 6, dtype)
    a = da.from_array(x, chunks=(90, 6))
    p = gd.pca(a, n_components)
    assert p.scores.chunks[0] == a.chunks[0]
    ref = gpusvd.pca(x, n_components, method="qr")
    got = _compare_pca(p, ref, dtype)
    # numpy in float64: variances are the eigenvalues of the covariance matrix
    k = ref.n_components
    cov = np.cov(x.astype(np.float64), rowvar=False)
    evals = np.sort(np.linalg.eigvalsh(cov))[::-1][:k]
    err = np.abs(got["explained_variance"] - evals).max(initial=0)
    assert err <= 1e3 * eps(dtype) * (evals[0] if k else 1.0), err
    xc = x.astype(np.float64) - x.astype(np.float64).mean(axis=0)
    np.testing.assert_allclose(got["scores"], xc @ got["components"].T.astype(np.float64),
                               atol=1e3 * eps(dtype) * scale(xc))


def test_pca_without_scores_and_split(rng):
    x = _pca_data(rng, 250, 5, np.float64)
    p = gd.pca(da.from_array(x, chunks=(20, 5)), 2, compute_scores=False, split_every=2)
    assert p.scores is None
    ref = gpusvd.pca(x, 2, method="qr")
    np.testing.assert_allclose(p.components.compute(), ref.components, atol=1e-12)
    z = p.transform(da.from_array(x[:7], chunks=(3, 5))).compute()
    np.testing.assert_allclose(z, ref.scores[:7], atol=1e-10)


def test_pca_errors():
    a = da.zeros((50, 4), chunks=(10, 4))
    with pytest.raises(ValueError, match="n_components"):
        gd.pca(a, 5)
    with pytest.raises(ValueError, match="n_components"):
        gd.pca(a, 1.5)
    with pytest.raises(TypeError, match="bool"):
        gd.pca(a, True)
    with pytest.raises(ValueError, match="2 samples"):
        gd.pca(da.zeros((1, 4)), 1)
    with pytest.raises(ValueError, match="2-D"):
        gd.pca(da.zeros((3, 4, 2)), 1)


def test_pca_constant_data():
    p = gd.pca(da.full((40, 3), 2.5, chunks=(10, 3)), 0.5)
    ev, ratio, mean = dask.compute(p.explained_variance, p.explained_variance_ratio, p.mean)
    assert p.n_components == 1
    np.testing.assert_array_equal(ev, [0.0])
    np.testing.assert_array_equal(ratio, [0.0])
    np.testing.assert_array_equal(mean, [2.5, 2.5, 2.5])


# ----------------------------------------------------------------------------------------------
# A distributed LocalCluster (two in-process workers, each with its own default handle)
# ----------------------------------------------------------------------------------------------

def test_distributed(client, rng):
    x = rng.standard_normal((12, 5, 5))
    a = da.from_array(x, chunks=(3, 5, 5))
    u, s, vh = client.compute(list(gd.svd(a)), sync=True)
    for g, r in zip((u, s, vh), gpusvd.svd(x)):
        assert_close(g, r, np.float64)
    w = client.compute(gd.eigvals(a), sync=True)
    assert_close(w, gpusvd.eigvals(x), np.float64)
    t = ill_conditioned(rng, 300, 6, np.float64, cond=1e10)
    q, r = client.compute(list(gd.qr(da.from_array(t, chunks=(40, 6)), split_every=3)),
                          sync=True)
    _tall_checks(t, q, r, np.float64)
    y = _pca_data(rng, 300, 6, np.float64)
    p = gd.pca(da.from_array(y, chunks=(70, 6)), 4)
    with dask.config.set(scheduler=client):
        _compare_pca(p, gpusvd.pca(y, 4, method="qr"), np.float64)


# ----------------------------------------------------------------------------------------------
# CuPy chunks (a CUDA device; skipped elsewhere)
# ----------------------------------------------------------------------------------------------

@pytest.fixture
def cp():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("cupy is installed but sees no CUDA device")
    except Exception as exc:
        pytest.skip("cupy is installed but no CUDA device is usable: %s" % exc)
    if "no CUDA backend" in gpusvd.build_info():
        pytest.skip("libgpusvd was built without the CUDA backend: %s" % gpusvd.build_info())
    return cupy


@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy_batched(cp, rng, dtype):
    x = _stack(rng, (40, 6, 5), dtype)
    a = da.from_array(cp.asarray(x), chunks=(15, 6, 5))
    lazy = gd.svd(a, full_matrices=False)
    assert all(isinstance(z._meta, cp.ndarray) for z in lazy)
    got = dask.compute(*lazy)
    assert all(isinstance(g, cp.ndarray) for g in got)
    for g, r in zip(got, gpusvd.svd(cp.asarray(x), full_matrices=False)):
        assert_close(cp.asnumpy(g), cp.asnumpy(r), dtype)
    s_host = gpusvd.svdvals(x)
    assert_close(cp.asnumpy(got[1]), s_host, dtype, 200)
    sq = da.from_array(cp.asarray(x[:, :5, :]), chunks=(15, 5, 5))
    w, v = dask.compute(*gd.eig(sq))
    assert isinstance(w, cp.ndarray) and isinstance(v, cp.ndarray)
    wr, vr = gpusvd.eig(cp.asarray(x[:, :5, :]))
    assert_close(cp.asnumpy(w), cp.asnumpy(wr), dtype)
    q, r = dask.compute(*gd.qr(a))
    qr_ref = gpusvd.qr(cp.asarray(x))
    assert_close(cp.asnumpy(q), cp.asnumpy(qr_ref.Q), dtype)
    assert_close(cp.asnumpy(r), cp.asnumpy(qr_ref.R), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy_tall_qr_and_pca(cp, rng, dtype):
    x = ill_conditioned(rng, 2000, 8, dtype, cond=1e10 if dtype == np.float64 else 1e4)
    a = da.from_array(cp.asarray(x), chunks=(300, 8))
    q, r = gd.qr(a, split_every=3)
    assert isinstance(q._meta, cp.ndarray) and isinstance(r._meta, cp.ndarray)
    q, r = dask.compute(q, r)
    assert isinstance(q, cp.ndarray) and isinstance(r, cp.ndarray)
    _tall_checks(x, cp.asnumpy(q), cp.asnumpy(r), dtype)
    y = _pca_data(rng, 1500, 6, dtype)
    p = gd.pca(da.from_array(cp.asarray(y), chunks=(400, 6)), 3)
    comp, ev, scores = dask.compute(p.components, p.explained_variance, p.scores)
    assert isinstance(comp, cp.ndarray) and isinstance(scores, cp.ndarray)
    ref = gpusvd.pca(y, 3, method="qr")
    e = eps(dtype)
    assert np.abs(cp.asnumpy(comp) - ref.components).max() <= 1e3 * e
    assert np.abs(cp.asnumpy(ev) - ref.explained_variance).max() <= 1e3 * e * \
        ref.explained_variance[0]
    assert np.abs(cp.asnumpy(scores) - ref.scores).max() <= 1e3 * e * scale(ref.scores)
