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
    with pytest.raises(ValueError, match="2-D"):
        gpusvd.svd(a[None])
    with pytest.raises(ValueError, match="3-D"):
        gpusvd.svd_batched(a)
    with pytest.raises(ValueError, match="3-D"):
        gpusvd.eig_batched(np.eye(3))
    with pytest.raises(ValueError, match="2-D"):
        gpusvd.pca(a.ravel(), 1)
    with pytest.raises(TypeError, match="complex"):
        gpusvd.svd(a.astype(np.complex128))


@pytest.mark.parametrize("func,shape", [
    (gpusvd.svd, (5, 3)), (gpusvd.qr, (5, 3)), (gpusvd.svd_batched, (2, 5, 3)),
    (gpusvd.qr_batched, (2, 5, 3)), (gpusvd.eig_batched, (2, 3, 3)),
    (gpusvd.eigvals_batched, (2, 3, 3)), (lambda x: gpusvd.pca(x, 1), (5, 3))])
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


def test_linalgerror_on_positive_info():
    # Non-convergence cannot be provoked on demand through LAPACK; test the policy itself.
    info = np.array([0, 3, 0, 5], np.int32)
    with pytest.raises(gpusvd.LinAlgError) as exc:
        _finish(host, info, False, "svd_batched: Jacobi did not converge", True, False)
    assert isinstance(exc.value, np.linalg.LinAlgError)
    assert list(exc.value.failed) == [1, 3] and list(exc.value.info) == [0, 3, 0, 5]
    assert "2 of 4 matrices" in str(exc.value)
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
