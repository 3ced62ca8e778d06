import threading

import numpy as np
import pytest

import gpusvd
from gpusvd._linalg import _finish, _HOST_FOR_TESTS as host


def test_bad_mode_and_ndim(rng):
    a = rng.standard_normal((4, 3))
    with pytest.raises(ValueError, match="mode"):
        gpusvd.qr(a, mode="householder")
    with pytest.raises(ValueError, match="mode"):
        gpusvd.qr_batched(a[None], mode="MGS2")
    for f in (gpusvd.svd, gpusvd.svdvals, gpusvd.qr, gpusvd.eig, gpusvd.eigvals):
        with pytest.raises(ValueError, match=r"expected a matrix \(m, n\) or a stack"):
            f(a[0])
    for f in (gpusvd.svd_batched, gpusvd.qr_batched, gpusvd.eig_batched,
              gpusvd.eigvals_batched):
        with pytest.raises(ValueError, match="expected a stack of matrices"):
            f(np.eye(3))
    with pytest.raises(ValueError, match="2-D"):
        gpusvd.pca(a.ravel(), 1)


@pytest.mark.parametrize("dtype", [np.complex64, ">c8", np.complex128, ">c16"])
def test_complex_either_byte_order(rng, dtype):
    a = (rng.standard_normal((2, 3, 3)) + 1j * rng.standard_normal((2, 3, 3))).astype(dtype)
    native = np.dtype(dtype).newbyteorder("=")
    w = gpusvd.eigvals(a)
    assert w.dtype == native and w.dtype.isnative
    s = gpusvd.svdvals(a)
    assert s.dtype == np.finfo(native).dtype
    np.testing.assert_allclose(s, np.linalg.svd(a.astype(np.complex128), compute_uv=False),
                               rtol=0, atol=100 * float(np.finfo(native).eps))


@pytest.mark.skipif(np.dtype(np.clongdouble).itemsize <= 16, reason="clongdouble is complex128")
@pytest.mark.parametrize("f", [gpusvd.svd, gpusvd.svdvals, gpusvd.qr, gpusvd.eig,
                               gpusvd.eigvals, gpusvd.svd_batched])
def test_clongdouble_is_a_clear_type_error(f):
    with pytest.raises(TypeError, match=r"convert with \.astype\(np\.complex128\)") as exc:
        f(np.ones((2, 3, 3), np.clongdouble))
    assert str(np.dtype(np.clongdouble)) in str(exc.value)


@pytest.mark.parametrize("dtype", [">f8", "<f8", ">f4", "<f4"])
def test_either_byte_order(rng, dtype):
    a = rng.standard_normal((3, 6, 4)).astype(dtype)
    native = np.dtype(dtype).newbyteorder("=")
    s = gpusvd.svdvals(a)
    assert s.dtype == native and s.dtype.isnative
    np.testing.assert_allclose(s, np.linalg.svd(a.astype(np.float64), compute_uv=False),
                               rtol=1e3 * np.finfo(native).eps)
    q, r = gpusvd.qr(a)
    assert q.dtype == r.dtype == native
    w = gpusvd.eigvals(a[:, :4])
    assert w.dtype == (np.complex64 if native == np.float32 else np.complex128)


def test_errors_are_numpys(rng):
    # ValueError for bad arguments, numpy.linalg.LinAlgError for numerical failure: what
    # numpy/scipy code already catches.
    assert issubclass(gpusvd.InvalidValueError, ValueError)
    assert issubclass(gpusvd.LinAlgError, np.linalg.LinAlgError)
    with pytest.raises(ValueError):
        gpusvd.svd(np.full((3, 3), np.nan))
    with pytest.raises(ValueError):
        gpusvd.eig(np.zeros((3, 4)))
    with pytest.raises(np.linalg.LinAlgError):
        _finish(host, np.array([[0, 1], [0, 0]], np.int32), False, "eig: no", True, False)


@pytest.mark.parametrize("func,shape", [
    (gpusvd.svd, (5, 3)), (gpusvd.qr, (5, 3)), (gpusvd.svd_batched, (2, 5, 3)),
    (gpusvd.qr_batched, (2, 5, 3)), (gpusvd.eig_batched, (2, 3, 3)),
    (gpusvd.eigvals_batched, (2, 3, 3)), (lambda x: gpusvd.pca(x, 1), (5, 3)),
    (gpusvd.svdvals, (2, 2, 5, 3)), (gpusvd.eig, (3, 3)), (gpusvd.eigvals, (2, 2, 3, 3))])
def test_nan_rejected_with_check_finite(rng, func, shape):
    a = rng.standard_normal(shape)
    a.flat[4] = np.nan
    with pytest.raises(ValueError, match="infs or NaNs"):
        func(a)
    with pytest.raises(ValueError, match="infs or NaNs"):
        gpusvd.bdsvd(np.array([1.0, np.inf]), np.array([1.0]))


def test_nonfinite_passthrough_batched(rng):
    a = rng.standard_normal((4, 6, 3))
    a[2, 1, 1] = np.inf
    u, s, vh, info = gpusvd.svd_batched(a, check_finite=False, return_info=True)
    assert list(info) == [0, 0, gpusvd.INFO_NONFINITE, 0]
    assert np.isnan(s[2]).all() and np.isnan(u[2]).all() and np.isnan(vh[2]).all()
    good = [0, 1, 3]
    np.testing.assert_allclose(s[good], np.linalg.svd(a[good], compute_uv=False), rtol=1e-12)
    w, v, info = gpusvd.eig_batched(a[:, :3, :3], check_finite=False, return_info=True)
    assert list(info) == [0, 0, -1, 0] and np.isnan(w[2].real).all()
    q, r, info = gpusvd.qr_batched(a, check_finite=False, return_info=True)
    assert list(info) == [0, 0, -1, 0] and np.isnan(r[2]).all()
    s, info = gpusvd.svd(a[2], compute_uv=False, check_finite=False, return_info=True)
    assert info == -1 and np.isnan(s).all()
    res = gpusvd.pca(a[2], 2, check_finite=False)
    assert res.info == -1 and np.isnan(res.components).all()


def test_nonfinite_passthrough_stack(rng):
    a = rng.standard_normal((2, 2, 6, 3))
    a[1, 0, 4, 2] = np.nan
    u, s, vh, info = gpusvd.svd(a, check_finite=False, return_info=True)
    assert info.shape == (2, 2) and info[1, 0] == gpusvd.INFO_NONFINITE
    assert np.count_nonzero(info) == 1
    assert np.isnan(s[1, 0]).all() and np.isnan(u[1, 0, :, :3]).all()
    good = np.ones((2, 2), bool)
    good[1, 0] = False
    np.testing.assert_allclose(s[good], np.linalg.svd(a[good], compute_uv=False), rtol=1e-12)
    w, info = gpusvd.eigvals(a[..., :3, :], check_finite=False, return_info=True)
    assert info.shape == (2, 2) and info[1, 0] == 0 and np.isfinite(w).all()
    w, info = gpusvd.eigvals(a[..., 3:, :], check_finite=False, return_info=True)
    assert info[1, 0] == -1 and np.isnan(w[1, 0].real).all()


def test_linalgerror_on_positive_info():
    # Non-convergence cannot be provoked on demand through LAPACK; test the policy itself.
    info = np.array([0, 3, 0, 5], np.int32)
    with pytest.raises(gpusvd.LinAlgError) as exc:
        _finish(host, info, False, "svd_batched: Jacobi did not converge", True, False)
    assert isinstance(exc.value, np.linalg.LinAlgError)
    assert list(exc.value.failed) == [1, 3] and list(exc.value.info) == [0, 3, 0, 5]
    assert "2 of 4 matrices" in str(exc.value)
    # A (2, 3) stack: info keeps the stack's shape, the message names the first failure's index
    with pytest.raises(gpusvd.LinAlgError, match=r"matrix \(1, 0\), info = 2") as exc:
        _finish(host, np.array([[0, 0, 0], [2, 0, 4]], np.int32), False, "x", True, False)
    assert exc.value.info.shape == (2, 3) and list(exc.value.failed) == [3, 5]
    assert _finish(host, info, False, "x", True, True) is info  # return_info: no raise
    assert _finish(host, info, False, "x", False, False) is info  # qr: info > 0 not an error
    with pytest.raises(np.linalg.LinAlgError, match="info = 7"):
        _finish(host, np.array([7], np.int32), True, "svd: no", True, False)


def test_library_message_surfaces():
    h = gpusvd.Handle()
    with pytest.raises(gpusvd.GpusvdError) as exc:
        h.set_jacobi_max_sweeps(0)  # fits a C int, so the library judges it
    e = exc.value
    assert e.status == 1 and e.status_name == "GPUSVD_STATUS_INVALID_VALUE"
    assert isinstance(e, gpusvd.InvalidValueError) and isinstance(e, ValueError)
    assert "gpusvdSetJacobiMaxSweeps" in e.routine and e.detail and e.detail in str(e)
    assert "maxSweeps = 0" in e.detail
    with pytest.raises(ValueError, match="backend"):
        gpusvd.Handle(backend="tpu")
    h.close()
    h.close()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        gpusvd.svd(np.eye(2), handle=h)


def test_gpu_backend_without_device():
    if gpusvd.backend() == "gpu":
        pytest.skip("a usable GPU is present")
    with pytest.raises(gpusvd.GpusvdError) as exc:
        gpusvd.Handle(backend="gpu")
    assert exc.value.status_name == "GPUSVD_STATUS_NO_DEVICE"


def test_info_functions():
    assert gpusvd.version().count(".") == 2
    assert gpusvd.version() in gpusvd.build_info()
    assert gpusvd.backend() in ("cpu", "gpu")
    with gpusvd.Handle("cpu") as h:
        assert gpusvd.backend(h) == "cpu" and "cpu" in repr(h)
        h.stream = 0
        assert h.stream == 0
        h.set_jacobi_max_sweeps(10)
        h.set_jacobi_tolerance(0)


def test_threads(rng):
    mats = [rng.standard_normal((60, 30)) for _ in range(8)]
    ref = [np.linalg.svd(m, compute_uv=False) for m in mats]
    shared = gpusvd.Handle()
    errors = []
    handles = []

    def work(i):
        try:
            for _ in range(5):
                s = gpusvd.svd(mats[i], compute_uv=False)  # this thread's default handle
                np.testing.assert_allclose(s, ref[i], rtol=1e-12)
                s = gpusvd.svd(mats[i], compute_uv=False, handle=shared)  # locked
                np.testing.assert_allclose(s, ref[i], rtol=1e-12)
            handles.append(gpusvd.default_handle())  # kept alive: ids stay distinct
        except Exception as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(map(id, handles))) == 8
