"""Which inputs are copied, and overwrite_a: the library's calls are recorded (the pointer, the
dimensions and leading dimension it gets) and the results checked against numpy."""
import contextlib
import ctypes

import numpy as np
import pytest

import gpusvd
from gpusvd._arrays import HostOps, stack_layout
from conftest import ordered

HOST = HostOps()


def addr(x):
    return x.ctypes.data


def svals(a):
    return np.linalg.svd(a, compute_uv=False)


# ----------------------------------------------------------------------------------------------
# svd / svdvals: C order through the transpose, never a transposing copy
# ----------------------------------------------------------------------------------------------

def through_transpose(shape):
    """Whether svd hands a C-ordered input of this shape to the library as its transpose: a
    stack always, one matrix unless it is tall (gesvj takes a QR first of a tall matrix, which
    its wide transpose would miss)."""
    return len(shape) > 2 or shape[-2] <= shape[-1]


@pytest.mark.parametrize("shape", [(9, 5), (5, 9), (6, 6), (2, 3, 9, 5), (4, 5, 9)])
def test_svd_of_c_order(rng, shape, calls):
    a = rng.standard_normal(shape)  # C order
    a0 = a.copy()
    u, s, vh = gpusvd.svd(a, full_matrices=False)
    np.testing.assert_array_equal(a, a0)
    name, w, args = calls[-1]
    m, n = shape[-2:]
    assert args[4] == addr(w) != addr(a) and not np.shares_memory(w, a)  # svd destroys it
    if through_transpose(shape):
        # a copy in a's own memory order, read as A^T column-major: no transposing copy
        assert args[2:4] == (n, m)
        assert np.swapaxes(w, -1, -2).flags.c_contiguous
    else:
        assert args[2:4] == (m, n) and w.flags.f_contiguous  # the library sees it tall
    np.testing.assert_allclose(s, svals(a), rtol=1e-13)
    np.testing.assert_allclose((u * s[..., None, :]) @ vh, a, atol=1e-13)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(9, 5), (5, 9), (2, 3, 9, 5), (3, 5, 9)])
def test_svd_overwrite_a_uses_the_callers_buffer(rng, order, shape, calls):
    a = ordered(rng.standard_normal(shape), order)
    a0 = a.copy()
    u, s, vh = gpusvd.svd(a, full_matrices=False, overwrite_a=True)
    name, w, args = calls[-1]
    assert name == ("gesvj" if a.ndim == 2 else "gesvj_batched")
    m, n = shape[-2:]
    if order == "F":
        assert args[4] == addr(a) and args[2:4] == (m, n)
    elif through_transpose(shape):
        assert args[4] == addr(a) and args[2:4] == (n, m)
    else:
        assert args[4] != addr(a) and args[2:4] == (m, n)
        np.testing.assert_array_equal(a, a0)
    np.testing.assert_allclose(s, svals(a0), rtol=1e-13)
    np.testing.assert_allclose((u * s[..., None, :]) @ vh, a0, atol=1e-13)
    s2 = gpusvd.svdvals(ordered(a0, order), overwrite_a=True)
    np.testing.assert_allclose(s2, s, rtol=1e-13)


def test_svd_overwrite_a_with_a_leading_dimension(rng, calls):
    # Rows 0..6 of per-matrix Fortran (.., 10, 4) matrices: column stride 10, no copy.
    big = ordered(rng.standard_normal((3, 10, 4)), "F")
    a = big[:, :7, :]
    a0 = a.copy()
    s = gpusvd.svdvals(a, overwrite_a=True)
    _, w, args = calls[-1]
    assert args[4] == addr(a) and args[5] == 10 and args[6] == 40  # lda, strideA
    np.testing.assert_allclose(s, svals(a0), rtol=1e-13)


@pytest.mark.parametrize("make", [
    lambda a: a.astype(">f8"),  # another byte order: converted
    lambda a: a.astype(np.float32).astype(np.float16),  # another dtype: converted
    lambda a: np.broadcast_to(a[:1], a.shape),  # read-only, matrices share memory
    lambda a: a.swapaxes(0, 1),  # the stack's axes do not flatten to one stride
    lambda a: a[:, ::-1, :],  # negative strides
    lambda a: a[:, :, ::2],  # column stride 2 in C order: not a transposed Fortran layout
])
def test_overwrite_a_copies_what_it_cannot_use(rng, make, calls):
    a = make(rng.standard_normal((4, 6, 6)))
    if a.flags.writeable:
        a0 = a.copy()
    s = gpusvd.svdvals(a, overwrite_a=True)
    _, w, args = calls[-1]
    assert not np.shares_memory(w, a)
    if a.flags.writeable:
        np.testing.assert_array_equal(a, a0)
    np.testing.assert_allclose(s, svals(a.astype(np.float64)), rtol=1e-5)


def test_overwrite_a_read_only(rng, calls):
    a = ordered(rng.standard_normal((6, 4)), "F")
    a.flags.writeable = False
    q, r = gpusvd.qr(a, overwrite_a=True)
    assert calls[-1][2][3] != addr(a)
    np.testing.assert_allclose(q @ r, a, atol=1e-13)


# ----------------------------------------------------------------------------------------------
# qr: one matrix in either order as it is (C order row-major); stacks in Fortran order
# ----------------------------------------------------------------------------------------------

@pytest.fixture
def layouts(monkeypatch):
    """The handle's matrix layout at each library call made through gpusvd._linalg._call:
    True where the call ran row-major (gpusvdSetMatrixLayout)."""
    from gpusvd import _handle, _linalg
    seen = []
    real = _linalg._call

    def spy(ops, handle, name, dt, anchor, *args):
        h = _handle.resolve(handle, ops, anchor)
        layout = _handle.ctypes.c_int(-1)
        h.call(h._lib.gpusvdGetMatrixLayout, _handle.ctypes.byref(layout))
        seen.append(layout.value == 1)
        return real(ops, handle, name, dt, anchor, *args)

    monkeypatch.setattr(_linalg, "_call", spy)
    return seen


@pytest.mark.parametrize("shape", [(9, 5), (5, 9), (2, 7), (2, 3, 9, 5)])
def test_qr_copies(rng, shape, calls, layouts):
    c = rng.standard_normal(shape)
    f = ordered(c, "F")
    single = len(shape) == 2
    m, n = shape[-2:]
    for a, overwrite, copied in [(c, False, True), (c, True, not single), (f, False, True),
                                 (f, True, False)]:
        a = a.copy(order="K")
        a0 = a.copy()
        q, r = gpusvd.qr(a, overwrite_a=overwrite)
        name, w, args = calls[-1]
        row = layouts[-1]
        assert args[1:3] == (m, n)
        assert (args[3] != addr(a)) == copied
        # one C-ordered matrix: row-major, lda = its row length; never a transposing copy
        assert row == (single and abs(a.strides[-1]) < abs(a.strides[-2]))
        if row:
            assert args[4] == n and args[6] == n  # lda, ldr count columns
            assert np.swapaxes(w, -1, -2).flags.c_contiguous  # a copy in a's memory order
            assert r.flags.c_contiguous
        elif single:
            assert args[4] == m and w.flags.f_contiguous
        if copied:
            np.testing.assert_array_equal(a, a0)
        else:
            k = min(shape[-2:])
            assert np.shares_memory(q, a)  # Q is written over a's first k columns
            np.testing.assert_array_equal(a[..., :k], q)
        np.testing.assert_allclose(q @ r, a0, atol=1e-13)
        np.testing.assert_allclose(r, np.triu(r))
        k = min(m, n)
        np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q,
                                   np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)), atol=1e-13)


def test_qr_row_slice_of_c_order_without_copy(rng, calls, layouts):
    # Columns 0..4 of a C-ordered (9, 8): row stride 8, no copy with overwrite_a.
    big = rng.standard_normal((9, 8))
    a = big[:, :5]
    a0 = a.copy()
    q, r = gpusvd.qr(a, overwrite_a=True)
    _, w, args = calls[-1]
    assert layouts[-1] and args[3] == addr(a) and args[4] == 8
    np.testing.assert_allclose(q @ r, a0, atol=1e-13)
    np.testing.assert_allclose(np.abs(r), np.abs(np.linalg.qr(a0, mode="r")), atol=1e-13)


# ----------------------------------------------------------------------------------------------
# pca: C and Fortran order read as they are
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("order", ["C", "F"])
def test_pca_reads_either_order_without_copy(rng, order, monkeypatch):
    from gpusvd import _pca
    seen = []

    def spy(real, row):
        def call(ops, handle, name, dt, anchor, *args):
            seen.append((row, anchor, args))
            return real(ops, handle, name, dt, anchor, *args)
        return call

    monkeypatch.setattr(_pca, "_call", spy(_pca._call, False))
    monkeypatch.setattr(_pca, "_call_row_major", spy(_pca._call_row_major, True))

    def no_pass(*args):
        raise AssertionError("an extra pass over x for the total variance")
    monkeypatch.setattr(_pca, "_sum_of_squares", no_pass)  # the library reports it
    x = ordered(rng.standard_normal((200, 6)) * [5.0, 3.0, 2.0, 1.0, 0.5, 0.1] + 3.0, order)
    p = gpusvd.pca(x, 3)
    row, anchor, args = seen[-1]
    assert row == (order == "C")
    assert args[2] == addr(x) and anchor is x  # X as it is
    assert args[3] == (6 if row else 200)  # ldx
    assert args[6] == (3 if row else 6) and args[9] == (3 if row else 200)  # ldc, lds
    if row:
        assert p.scores.flags.c_contiguous
    xc = x - x.mean(axis=0)
    _, s, vt = np.linalg.svd(xc, full_matrices=False)
    np.testing.assert_allclose(p.explained_variance, s[:3] ** 2 / 199, rtol=1e-12)
    np.testing.assert_allclose(np.abs(p.components), np.abs(vt[:3]), atol=1e-12)
    np.testing.assert_allclose(p.scores, xc @ p.components.T, atol=1e-12)
    np.testing.assert_allclose(p.mean, x.mean(axis=0), rtol=1e-13)
    total = float(np.var(x, axis=0, ddof=1).sum())
    np.testing.assert_allclose(p.total_variance, total, rtol=1e-12)
    np.testing.assert_allclose(p.explained_variance_ratio, s[:3] ** 2 / 199 / total, rtol=1e-12)


def _pca_reference(x, k):
    """(explained variances, total variance, noise variance, components up to sign) in
    float64 from numpy's SVD of the centred x."""
    xc = x - x.mean(axis=0)
    _, s, vt = np.linalg.svd(xc, full_matrices=False)
    var = s ** 2 / (x.shape[0] - 1)
    return var[:k], var.sum(), var[k:].mean() if k < len(var) else 0.0, vt[:k]


@pytest.mark.parametrize("order", ["C", "F"])
def test_pca_one_call_outputs_as_written(rng, order, monkeypatch, c_calls):
    # What gpusvd.pca(x, k) does besides the library call: allocate the outputs (returned as
    # the library wrote them: no transposing copy, components a transposed view) and read the
    # call's total variance. No finiteness pass over x (check_finite=True, the default, is
    # answered from the library's info), no settings changed and restored when the handle
    # already has them (PCA method AUTO, the default stream).
    from gpusvd import _pca
    seen = []

    def spy(real):
        def call(ops, handle, name, dt, anchor, *args):
            seen.append(args)
            return real(ops, handle, name, dt, anchor, *args)
        return call

    monkeypatch.setattr(_pca, "_call", spy(_pca._call))
    monkeypatch.setattr(_pca, "_call_row_major", spy(_pca._call_row_major))

    def no_scan(self, a):
        raise AssertionError("a finiteness pass over x")
    monkeypatch.setattr(HostOps, "isfinite_all", no_scan)
    x = ordered(rng.standard_normal((300, 7)) * np.geomspace(4.0, 0.2, 7) + 1.5, order)
    x0 = x.copy()
    p = gpusvd.pca(x, 3)
    np.testing.assert_array_equal(x, x0)
    (args,) = seen  # one library call
    assert args[5] == addr(p.components) and args[7] == addr(p.explained_variance)
    assert args[8] == addr(p.scores) and args[10] == addr(p.mean)
    assert p.scores.flags.c_contiguous if order == "C" else p.scores.flags.f_contiguous
    assert c_calls.count("gpusvd_dpca") == 1
    assert c_calls.count("gpusvdGetPcaTotalVariance") == 1
    assert "gpusvdSetPcaMethod" not in c_calls and "gpusvdSetStream" not in c_calls
    var, total, noise, vt = _pca_reference(x0, 3)
    np.testing.assert_allclose(p.explained_variance, var, rtol=1e-12)
    np.testing.assert_allclose(np.abs(p.components), np.abs(vt), atol=1e-12)
    np.testing.assert_allclose(p.scores, (x0 - x0.mean(axis=0)) @ p.components.T, atol=1e-12)
    np.testing.assert_allclose(p.total_variance, total, rtol=1e-12)
    np.testing.assert_allclose(p.explained_variance_ratio, var / total, rtol=1e-12)
    np.testing.assert_allclose(p.noise_variance, noise, rtol=1e-10)
    # A method other than the handle's is set for the call and restored after it.
    del c_calls[:]
    gpusvd.pca(x, 3, method="qr")
    assert c_calls.count("gpusvdSetPcaMethod") == 2


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("method", ["qr", "covariance"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_pca_check_finite_from_info(rng, order, method, bad):
    # check_finite=True raises scipy's ValueError from the library's info (no pass of its
    # own); with False the NaN outputs and info = -1 come back.
    x = ordered(rng.standard_normal((40, 5)), order)
    x[17, 3] = bad
    x0 = x.copy()
    for n_components in (2, None, 0.8):
        with pytest.raises(ValueError, match="must not contain infs or NaNs"):
            gpusvd.pca(x, n_components, method=method)
        np.testing.assert_array_equal(x, x0)
    p = gpusvd.pca(x, 2, method=method, check_finite=False)
    assert p.info == gpusvd.INFO_NONFINITE
    assert np.isnan(p.explained_variance).all() and np.isnan(p.components).all()
    assert np.isnan(p.mean).all() and np.isnan(p.scores).all()
    # k = 0: the library reads no data, so the check is a pass of its own
    with pytest.raises(ValueError, match="must not contain infs or NaNs"):
        gpusvd.pca(x, 0)
    with np.errstate(invalid="ignore"):  # the total variance is summed from x: NaN
        assert gpusvd.pca(x, 0, check_finite=False).info == 0
    # finite data of any size passes, also with k = 0
    assert gpusvd.pca(np.ones((3, 2)), 0).components.shape == (0, 2)


def test_pca_check_finite_from_info_complex(rng):
    if not hasattr(gpusvd.get_lib(), "gpusvd_zpca"):
        pytest.fail("the loaded library has no complex pca (gpusvd_zpca)")
    x = rng.standard_normal((30, 4)) + 1j * rng.standard_normal((30, 4))
    x[5, 1] = complex(0.0, np.inf)
    with pytest.raises(ValueError, match="must not contain infs or NaNs"):
        gpusvd.pca(x, 2)
    assert gpusvd.pca(x, 2, check_finite=False).info == gpusvd.INFO_NONFINITE


class _Counted(np.ndarray):
    """A numpy array standing in for a device array on the CPU: each elementwise operation or
    reduction on it (a kernel launch on a GPU) is logged in `log`, between the names of the C
    functions called (the c_calls fixture's list)."""
    log = []

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        _Counted.log.append((ufunc.__name__, method, inputs))
        plain = [np.asarray(i) if isinstance(i, _Counted) else i for i in inputs]
        if "out" in kw:
            kw["out"] = tuple(np.asarray(o) if isinstance(o, _Counted) else o
                              for o in kw["out"])
        res = getattr(ufunc, method)(*plain, **kw)
        return np.asarray(res).view(_Counted)


class _FakeDeviceOps(HostOps):
    """The device adapter's interface over _Counted arrays and the library's host forms."""
    device = True

    def empty(self, shape, dtype):
        return super().empty(shape, dtype).view(_Counted)

    def rows(self, shape, dtype):
        return super().rows(shape, dtype).view(_Counted)

    def device_id(self, x):
        return "fake device"

    def new_handle(self, x):
        return gpusvd.Handle()

    def to_host(self, x):
        return np.asarray(x)

    @contextlib.contextmanager
    def on_device(self, x, handle):
        """Logs where the array's device and stream are in force for the library."""
        _Counted.log.append("<device")
        try:
            yield
        finally:
            _Counted.log.append("device>")


class _LibWithDeviceTotal:
    """The loaded library, with gpusvdGetPcaTotalVariance_gpu standing in for the device query
    on the CPU: it writes the host query's value to the address it is given."""

    def __init__(self, lib):
        self._lib = lib

        def query(handle, address):
            t = ctypes.c_double()
            status = lib.gpusvdGetPcaTotalVariance(handle, ctypes.byref(t))
            ctypes.c_double.from_address(address).value = t.value
            return status
        query.__name__ = "gpusvdGetPcaTotalVariance_gpu"
        self.gpusvdGetPcaTotalVariance_gpu = query

    def __getattr__(self, name):
        return getattr(self._lib, name)


@pytest.mark.parametrize("device_query", [True, False])
@pytest.mark.parametrize("order", ["C", "F"])
def test_pca_device_path_work(rng, order, device_query, monkeypatch, c_calls):
    # The device path of gpusvd.pca(x, k), k < min(m, n), with the array operations counted:
    # nothing reads x but the library (no pass of its own) and one library call. The call's
    # total variance comes from the device query (gpusvdGetPcaTotalVariance_gpu) on the call's
    # device and stream, with nothing waited for; a library without it is waited for by the host
    # query, after which only the operations that need the total come. k = min(m, n): no query.
    from gpusvd import _lib, _linalg, _pca
    fake = _FakeDeviceOps()
    monkeypatch.setattr(_linalg, "ops_for", lambda a: (fake, a))
    real_routine = _lib.routine
    monkeypatch.setattr(_linalg, "routine", lambda name, dt, device=False:
                        real_routine(name, dt, False))
    if device_query:
        lib = _LibWithDeviceTotal(_lib.get_lib())
        monkeypatch.setattr(_pca, "get_lib", lambda: lib)
    else:
        monkeypatch.setattr(_pca, "has_device_total_variance", lambda lib: False)
    monkeypatch.setattr(_Counted, "log", c_calls)
    x = ordered(rng.standard_normal((200, 6)) * np.geomspace(3.0, 0.3, 6) - 0.5, order)
    x0 = x.copy()
    p = gpusvd.pca(x.view(_Counted), 2)
    assert c_calls.count("gpusvd_dpca") == 1
    ops = [e for e in c_calls if isinstance(e, tuple)]
    assert not [e for e in ops if any(np.shares_memory(i, x) for i in e[2]
                                      if isinstance(i, np.ndarray))], "a pass over x"
    query = "gpusvdGetPcaTotalVariance_gpu" if device_query else "gpusvdGetPcaTotalVariance"
    other = "gpusvdGetPcaTotalVariance" if device_query else "gpusvdGetPcaTotalVariance_gpu"
    assert c_calls.count(query) == 1 and other not in c_calls, c_calls
    at = c_calls.index(query)
    assert c_calls.index("gpusvd_dpca") < at
    # the query is on the call's device and stream
    assert c_calls[:at].count("<device") > c_calls[:at].count("device>")
    if not device_query:  # after the wait, only what needs the total
        after = [e[:2] for e in c_calls[at + 1:] if isinstance(e, tuple)]
        assert len(after) <= 3 and ("add", "reduce") not in after, after
    assert len(ops) <= (10 if device_query else 7), [e[:2] for e in ops]
    var, total, noise, vt = _pca_reference(x0, 2)
    np.testing.assert_allclose(p.explained_variance, var, rtol=1e-12)
    np.testing.assert_allclose(p.singular_values, np.sqrt(var * 199), rtol=1e-12)
    np.testing.assert_allclose(p.explained_variance_ratio, var / total, rtol=1e-12)
    np.testing.assert_allclose(p.noise_variance, noise, rtol=1e-10)
    np.testing.assert_allclose(p.total_variance, total, rtol=1e-12)
    np.testing.assert_allclose(np.abs(p.components), np.abs(vt), atol=1e-12)
    np.testing.assert_allclose(p.scores, (x0 - x0.mean(axis=0)) @ p.components.T, atol=1e-12)
    del c_calls[:]
    full = gpusvd.pca(x.view(_Counted), None, compute_scores=False)
    assert c_calls.count("gpusvd_dpca") == 1 and "gpusvdGetPcaTotalVariance" not in c_calls
    var, total, _, _ = _pca_reference(x0, 6)
    np.testing.assert_allclose(full.explained_variance_ratio, var / total, rtol=1e-12)


# ----------------------------------------------------------------------------------------------
# eig: Fortran order needed (eigvals: A^T's eigenvalues are A's)
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(6, 6), (2, 3, 6, 6)])
def test_eig_and_eigvals_copies(rng, shape, calls):
    c = rng.standard_normal(shape)
    f = ordered(c, "F")
    ref = np.sort_complex(np.linalg.eigvals(c))
    for func, a, overwrite, copied in [
            (gpusvd.eigvals, c, True, False),  # A^T's eigenvalues: C order is usable
            (gpusvd.eigvals, f, True, False),
            (gpusvd.eigvals, c, False, True),
            (gpusvd.eig, f, True, False),
            (gpusvd.eig, c, True, True),  # A^T's eigenvectors are not A's
            (gpusvd.eig, f, False, True)]:
        a = a.copy(order="K")
        a0 = a.copy()
        out = func(a, overwrite_a=overwrite)
        w = out[0] if isinstance(out, tuple) else out
        assert (calls[-1][2][2] != addr(a)) == copied, (func.__name__, a.flags)
        if copied:
            np.testing.assert_array_equal(a, a0)
        np.testing.assert_allclose(np.sort_complex(w), ref, atol=1e-12)
        if func is gpusvd.eig:
            v = out[1]
            np.testing.assert_allclose(a0 @ v, v * w[..., None, :], atol=1e-12)


# ----------------------------------------------------------------------------------------------
# The layout rule itself
# ----------------------------------------------------------------------------------------------

def test_stack_layout():
    f8 = np.dtype(np.float64)
    f = ordered(np.zeros((2, 3, 5, 4)), "F")
    assert stack_layout(HOST, f, f8) == (5, 20)
    assert stack_layout(HOST, f[:, :, :3, :], f8) == (5, 20)  # ld 5 > 3 rows
    assert stack_layout(HOST, f[:, 1:2], f8) == (5, 60)  # batch (2, 1): one stride
    assert stack_layout(HOST, f[:, ::2], f8) is None  # batch strides 60 and 40
    assert stack_layout(HOST, f.reshape(6, 5, 4)[::2], f8) == (5, 40)
    assert stack_layout(HOST, f.swapaxes(0, 1), f8) is None
    assert stack_layout(HOST, f, np.dtype(np.float32)) is None
    assert stack_layout(HOST, f[..., ::-1, :], f8) is None
    c = np.zeros((3, 5, 4))
    assert stack_layout(HOST, c, f8) is None
    assert stack_layout(HOST, c.swapaxes(-1, -2), f8) == (4, 20)
    assert stack_layout(HOST, np.broadcast_to(c[:1], c.shape).swapaxes(-1, -2), f8) is None
    assert stack_layout(HOST, np.zeros((3, 1, 4)), f8) == (1, 4)  # one row: any row stride
    assert stack_layout(HOST, np.zeros((0, 5, 4)), f8) == (5, 20)
