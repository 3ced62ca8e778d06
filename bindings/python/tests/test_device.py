"""Device arrays. CI has no GPU and no CuPy: the tests that need CuPy are skipped with the
reason 'could not import cupy'. Today every _gpu form answers NOT_SUPPORTED (GPU build, routine
without kernels) or NO_DEVICE (no usable GPU, or a build without CUDA): these tests assert that
the call reaches the library's _gpu form and surfaces its status; once kernels land they check
the results."""
import numpy as np
import pytest

import gpusvd
from gpusvd._arrays import is_device_array, ops_for

TODAY = ("GPUSVD_STATUS_NOT_SUPPORTED", "GPUSVD_STATUS_NO_DEVICE")


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


def _cupy():
    cp = pytest.importorskip("cupy")
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception as exc:
        pytest.skip("cupy is installed but no CUDA device is usable: %s" % exc)
    return cp


def _expect_today_or_result(call):
    try:
        return call()
    except gpusvd.GpusvdError as exc:
        assert exc.status_name in TODAY, exc
        assert "_gpu" in exc.routine
        return None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cupy_routines(rng, dtype):
    cp = _cupy()
    a_h = rng.standard_normal((12, 5)).astype(dtype)
    a = cp.asarray(a_h)  # C-ordered on the device: copied to Fortran order there
    a0 = a.copy()
    res = _expect_today_or_result(lambda: gpusvd.svd(a))
    assert bool((a == a0).all())  # input not modified
    if res is not None:
        u, s, vh = res
        assert isinstance(s, cp.ndarray)
        np.testing.assert_allclose(cp.asnumpy(s), np.linalg.svd(a_h, compute_uv=False),
                                   rtol=1e3 * np.finfo(dtype).eps)
    b3 = cp.asarray(rng.standard_normal((4, 6, 6)).astype(dtype))
    for call in (lambda: gpusvd.svd_batched(b3), lambda: gpusvd.qr(a),
                 lambda: gpusvd.qr_batched(b3), lambda: gpusvd.eig_batched(b3),
                 lambda: gpusvd.eigvals_batched(b3), lambda: gpusvd.pca(a, 2),
                 lambda: gpusvd.bdsvd(a[:, 0], a[:-1, 1])):
        _expect_today_or_result(call)


def test_torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch is installed but CUDA is not available")
    a = torch.randn(10, 4, device="cuda", dtype=torch.float64)
    res = _expect_today_or_result(lambda: gpusvd.svd(a))
    if res is not None:
        assert isinstance(res[1], torch.Tensor) and res[1].is_cuda
