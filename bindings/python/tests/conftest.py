import numpy as np
import pytest

import gpusvd


def pytest_report_header(config):
    try:
        return "gpusvd package: %s; library: %s (%s); backend %s" % (
            gpusvd.__file__, gpusvd.library_path(), gpusvd.version(), gpusvd.backend())
    except gpusvd.LibraryNotFoundError as exc:  # every test will fail with this message
        return str(exc)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


DTYPES = [np.float32, np.float64]


def eps(dtype):
    return float(np.finfo(dtype).eps)


def with_singular_values(rng, m, n, s, dtype):
    """U diag(s) V^T with random orthonormal U (m x k), V (n x k), k = len(s), in float64,
    then cast."""
    k = len(s)
    u, _ = np.linalg.qr(rng.standard_normal((m, k)))
    v, _ = np.linalg.qr(rng.standard_normal((n, k)))
    return ((u * s) @ v.T).astype(dtype)


def dense_bidiagonal(d, e, lower):
    """The n x n bidiagonal with diagonal d and sub- (lower) or superdiagonal e, in float64."""
    b = np.diag(d.astype(np.float64))
    if len(d) > 1:
        b += np.diag(e.astype(np.float64), -1 if lower else 1)
    return b


def ill_conditioned(rng, m, n, dtype, cond=1e8):
    k = min(m, n)
    return with_singular_values(rng, m, n, np.geomspace(1.0, 1.0 / cond, k), dtype)


def ordered(a, order):
    """a in C order, "F": per-matrix Fortran order (each matrix column-major, the matrices one
    after the other: what the library reads without a copy), or "Fortran": np.asfortranarray
    of the whole array (the same as "F" for 2-D)."""
    if order == "F":
        return np.swapaxes(np.ascontiguousarray(np.swapaxes(a, -1, -2)), -1, -2)
    return np.asfortranarray(a) if order == "Fortran" else np.ascontiguousarray(a)


@pytest.fixture
def calls(monkeypatch):
    """Every library call of gpusvd._linalg as (routine, anchor array, args), recorded on the
    way through (which inputs reach the library without a copy)."""
    from gpusvd import _linalg
    seen = []
    real = _linalg._call

    def spy(ops, handle, name, dt, anchor, *args):
        seen.append((name, anchor, args))
        return real(ops, handle, name, dt, anchor, *args)

    monkeypatch.setattr(_linalg, "_call", spy)
    return seen


@pytest.fixture
def c_calls(monkeypatch):
    """The name of every C function called through a gpusvd.Handle, in call order (how many
    library calls a Python function makes, which settings it changes, and where it waits for
    the device)."""
    from gpusvd._handle import Handle
    seen = []
    real = Handle.call

    def spy(self, func, *args):
        seen.append(func.__name__)
        return real(self, func, *args)

    monkeypatch.setattr(Handle, "call", spy)
    return seen
