"""Handles on CuPy and torch streams, created, used (plainly or inside a CUDA graph capture) and
dropped in every order: the next gpusvd call, on any handle, must work. And the graph examples
of examples/python, run as a user would.

Device only: each test skips without a usable GPU or without CuPy / torch.
"""
import gc
import os
import subprocess
import sys

import numpy as np
import pytest

import gpusvd

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "python")


def _gpu_or_skip():
    try:
        if gpusvd.backend() != "gpu":
            pytest.skip("no usable GPU")
    except gpusvd.LibraryNotFoundError as exc:
        pytest.fail(str(exc))


def _cupy():
    cp = pytest.importorskip("cupy")
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CuPy without a device
        pytest.skip("CuPy has no device: %s" % exc)
    return cp


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    return torch


def _next_call_works(cp_or_torch_array, ref):
    """svd values of a batch on the default handle, checked against numpy's."""
    s = gpusvd.svd(cp_or_torch_array, compute_uv=False)
    got = np.asarray(s.get() if hasattr(s, "get") else s.cpu().numpy())
    want = np.linalg.svd(ref, compute_uv=False)
    # Each value to rounding of its matrix's largest (LAPACK's bound for the small ones).
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-13 * float(want.max()))


@pytest.mark.parametrize("capture", [False, True], ids=["plain", "captured"])
@pytest.mark.parametrize("order", ["handle-first", "stream-first"])
def test_dropped_handle_on_cupy_stream(capture, order):
    _gpu_or_skip()
    cp = _cupy()
    rng = np.random.default_rng(0)
    xv_h = rng.standard_normal((1000, 16, 16))
    xe = cp.asarray(rng.standard_normal((1000, 12, 12)))
    s = cp.cuda.Stream(non_blocking=True)
    h = gpusvd.Handle()
    h.stream = s.ptr
    with s:
        gpusvd.eigvals(xe, handle=h)
        s.synchronize()
        if capture:
            s.begin_capture()
            gpusvd.eigvals(xe, handle=h)
            g = s.end_capture()
            g.launch(stream=s)
            s.synchronize()
            del g
    if order == "handle-first":
        del h
        gc.collect()
        del s
    else:
        del s
        gc.collect()
        del h
    gc.collect()
    _next_call_works(cp.asarray(xv_h), xv_h)


@pytest.mark.parametrize("capture", [False, True], ids=["plain", "captured"])
def test_dropped_handle_on_torch_stream(capture):
    _gpu_or_skip()
    torch = _torch()
    rng = np.random.default_rng(1)
    xv_h = rng.standard_normal((500, 16, 16))
    xe = torch.as_tensor(rng.standard_normal((500, 12, 12)), device="cuda")
    s = torch.cuda.Stream()
    h = gpusvd.Handle()
    h.stream = s.cuda_stream
    with torch.cuda.stream(s):
        gpusvd.eigvals(xe, handle=h)
    s.synchronize()
    if capture:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            gpusvd.eigvals(xe, handle=h)
        g.replay()
        s.synchronize()
        del g
    del h
    gc.collect()
    _next_call_works(torch.as_tensor(xv_h, device="cuda"), xv_h)


def test_helper_that_captures_with_its_own_handle():
    """A function that captures a graph with a handle of its own and drops both."""
    _gpu_or_skip()
    cp = _cupy()
    rng = np.random.default_rng(2)

    def eigvals_graph(x):
        s = cp.cuda.Stream(non_blocking=True)
        h = gpusvd.Handle()
        h.stream = s.ptr
        with s:
            gpusvd.eigvals(x, handle=h)
            s.synchronize()
            s.begin_capture()
            w = gpusvd.eigvals(x, handle=h)
            g = s.end_capture()
            g.launch(stream=s)
            s.synchronize()
        return cp.asnumpy(w)

    x_h = rng.standard_normal((200, 10, 10))
    w = eigvals_graph(cp.asarray(x_h))
    gc.collect()
    np.testing.assert_allclose(np.sort_complex(w), np.sort_complex(np.linalg.eigvals(x_h)),
                               rtol=1e-10, atol=1e-12)
    _next_call_works(cp.asarray(x_h), x_h)


@pytest.mark.parametrize("example", ["graph_cupy.py", "graph_torch.py"])
def test_graph_example(example):
    _gpu_or_skip()
    pytest.importorskip("cupy" if "cupy" in example else "torch")
    env = dict(os.environ)  # the package under test, wherever it was imported from
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(gpusvd.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg, env.get("PYTHONPATH")) if p)
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, example)], capture_output=True,
                       text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "replayed" in r.stdout, r.stdout


def test_arrays_on_every_device():
    """CuPy arrays on each GPU work through the default handles (one per thread and device),
    whatever device is current; a handle used with another device's array is refused with a
    ValueError naming both devices."""
    _gpu_or_skip()
    cp = _cupy()
    ndev = cp.cuda.runtime.getDeviceCount()
    rng = np.random.default_rng(3)
    x_h = rng.standard_normal((64, 20, 20))
    ref = np.linalg.svd(x_h, compute_uv=False)
    for dev in range(ndev):
        with cp.cuda.Device(dev):
            x = cp.asarray(x_h)
        with cp.cuda.Device(ndev - 1 - dev):  # another device current during the call
            s = gpusvd.svd(x, compute_uv=False)
            assert cp.cuda.runtime.getDevice() == ndev - 1 - dev
        assert s.device.id == dev
        np.testing.assert_allclose(cp.asnumpy(s), ref, rtol=0, atol=1e-13 * float(ref.max()))
    if ndev < 2:
        return
    with cp.cuda.Device(0):
        h0 = gpusvd.Handle()
    with cp.cuda.Device(1):
        x1 = cp.asarray(x_h)
    with pytest.raises(ValueError, match="device 1.*device 0"):
        gpusvd.svd(x1, compute_uv=False, handle=h0)
