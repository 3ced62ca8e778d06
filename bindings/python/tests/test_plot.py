"""gpusvd.plot with matplotlib's Agg backend: what is drawn (line data, the rank marker, the
tolerance, bar heights, the unstable count) against numpy's own numbers."""
import os
import subprocess
import sys

import numpy as np
import pytest

import gpusvd
from conftest import DTYPES, eps, with_singular_values
from test_device import lib  # noqa: F401  (the cupy / torch fixture)

matplotlib = pytest.importorskip("matplotlib", reason="gpusvd.plot needs matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import gpusvd.plot as gplot  # noqa: E402

PKG_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(gpusvd.__file__)))


@pytest.fixture
def ax():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def vline_x(line):
    x = np.unique(line.get_xdata())
    assert len(x) == 1, "not a vertical line: %s" % x
    return float(x[0])


def hline_y(line):
    y = np.unique(line.get_ydata())
    assert len(y) == 1, "not a horizontal line: %s" % y
    return float(y[0])


def by_label(ax, start):
    found = [ln for ln in ax.lines if ln.get_label().startswith(start)]
    assert len(found) == 1, [ln.get_label() for ln in ax.lines]
    return found[0]


# ----------------------------------------------------------------------------------------------
# spectrum
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,rank", [((60, 20), 12), ((15, 40), 15), ((30, 30), 29)])
def test_spectrum_of_a_matrix(ax, rng, dtype, shape, rank):
    s_true = np.concatenate([np.geomspace(10, 0.1, rank), np.zeros(min(shape) - rank)])
    a = with_singular_values(rng, shape[0], shape[1], s_true, dtype)
    assert gplot.spectrum(a, ax=ax) is ax
    line = ax.lines[0]
    s_ref = np.linalg.svd(a.astype(np.float64), compute_uv=False)
    np.testing.assert_array_equal(line.get_xdata(), np.arange(1, min(shape) + 1))
    np.testing.assert_allclose(line.get_ydata(), s_ref, rtol=0, atol=100 * eps(dtype) * s_ref[0])
    assert ax.get_yscale() == "log"
    r = np.linalg.matrix_rank(a)  # numpy's default tolerance, in a's precision
    assert r == rank
    assert vline_x(by_label(ax, "numerical rank")) == r + 0.5
    tol_ref = s_ref.max() * max(shape) * eps(dtype)
    np.testing.assert_allclose(hline_y(by_label(ax, "tolerance")), tol_ref, rtol=1e-3)
    assert ax.get_title() == "Singular values: numerical rank %d of %d" % (r, min(shape))


def test_spectrum_of_values(ax):
    s = np.array([5.0, 1.0, 1e-9, 3e-15, 0.0])
    gplot.spectrum(s, ax=ax, shape=(8, 5))
    # numpy: tol = 5 * 8 * eps = 8.9e-15 -> 3 values above it
    assert gplot.numerical_rank(s, (8, 5)) == (3, 5 * 8 * eps(np.float64))
    assert vline_x(by_label(ax, "numerical rank 3")) == 3.5
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), s)
    ax.clear()
    gplot.spectrum(s, ax=ax, tol=1e-6)
    assert vline_x(by_label(ax, "numerical rank 2")) == 2.5
    assert hline_y(by_label(ax, "tolerance")) == 1e-6
    with pytest.raises(ValueError, match="expected a matrix"):
        gplot.spectrum(np.ones((2, 3, 4)), ax=ax)


def test_current_axes_by_default():
    fig = plt.figure()
    try:
        ax = gplot.spectrum(np.array([2.0, 1.0]))
        assert ax is fig.gca() and len(ax.lines) >= 2
    finally:
        plt.close(fig)


# ----------------------------------------------------------------------------------------------
# scree
# ----------------------------------------------------------------------------------------------


def _data(rng):
    return rng.standard_normal((400, 8)) * np.geomspace(6, 0.2, 8) + 2.0


@pytest.mark.parametrize("source", ["estimator", "result"])
def test_scree(ax, rng, source):
    x = _data(rng)
    xc = x - x.mean(axis=0)
    ev = np.linalg.svd(xc, compute_uv=False) ** 2
    ratio_ref = ev / ev.sum()
    fitted = gpusvd.PCA(0.95).fit(x) if source == "estimator" else gpusvd.pca(x, 0.95)
    k = int(np.count_nonzero(np.cumsum(ratio_ref) <= 0.95)) + 1
    assert gplot.scree(fitted, ax=ax, threshold=None if source == "estimator" else 0.95) is ax
    heights = np.array([p.get_height() for p in ax.patches])
    np.testing.assert_allclose(heights, ratio_ref[:k], rtol=1e-10)
    cum = by_label(ax, "cumulative")
    np.testing.assert_array_equal(cum.get_xdata(), np.arange(1, k + 1))
    np.testing.assert_allclose(cum.get_ydata(), np.cumsum(ratio_ref[:k]), rtol=1e-10)
    thr = by_label(ax, "95%% of the variance: %d components" % k)
    assert hline_y(thr) == 0.95


def test_scree_without_threshold_and_errors(ax, rng):
    res = gpusvd.pca(_data(rng), 3)
    gplot.scree(res, ax=ax)
    assert [ln.get_label() for ln in ax.lines] == ["cumulative"]
    assert len(ax.patches) == 3
    assert "3 components" in ax.get_title()
    with pytest.raises(TypeError, match="expected a fitted gpusvd.PCA"):
        gplot.scree(np.ones(3), ax=ax)


# ----------------------------------------------------------------------------------------------
# eigenvalues
# ----------------------------------------------------------------------------------------------


def test_eigenvalues_continuous(ax, rng):
    a = rng.standard_normal((300, 6, 6)) / np.sqrt(6) - 0.6 * np.eye(6)
    w = gpusvd.eigvals_batched(a)
    w_ref = np.linalg.eigvals(a)
    n_unstable = int(np.count_nonzero(w_ref.real > 0))
    assert 0 < n_unstable < w_ref.size  # the test data has both kinds
    assert gplot.eigenvalues(w, ax=ax) is ax
    st, un = by_label(ax, "stable ("), by_label(ax, "unstable (")
    assert un.get_label() == "unstable (%d)" % n_unstable
    assert st.get_label() == "stable (%d)" % (w_ref.size - n_unstable)
    assert np.all(un.get_xdata() > 0) and np.all(st.get_xdata() <= 0)
    drawn = np.sort_complex(np.concatenate([st.get_xdata() + 1j * st.get_ydata(),
                                            un.get_xdata() + 1j * un.get_ydata()]))
    np.testing.assert_allclose(drawn, np.sort_complex(w.ravel()), atol=0)
    np.testing.assert_allclose(np.sort(drawn.real), np.sort(w_ref.real.ravel()), atol=1e-10)
    assert vline_x(by_label(ax, "imaginary axis")) == 0.0
    assert ax.get_title() == "Eigenvalues: %d of %d unstable (continuous time)" % (
        n_unstable, w_ref.size)


def test_eigenvalues_discrete_and_tol(ax):
    w = np.array([0.5 + 0.5j, 0.5 - 0.5j, 1.0, 1.2, -1.05, 0.99j])
    gplot.eigenvalues(w, ax=ax, system="discrete")
    assert ax.get_title() == "Eigenvalues: 2 of 6 unstable (discrete time)"
    circle = by_label(ax, "unit circle")
    np.testing.assert_allclose(np.hypot(circle.get_xdata(), circle.get_ydata()), 1.0)
    np.testing.assert_array_equal(by_label(ax, "unstable").get_xdata(), [1.2, -1.05])
    ax.clear()
    gplot.eigenvalues(w, ax=ax, system="discrete", tol=0.1)
    assert ax.get_title().startswith("Eigenvalues: 1 of 6 unstable")
    ax.clear()
    gplot.eigenvalues(np.array([-1.0, 0.0, 2.0]), ax=ax)  # real input, on the axis: stable
    assert by_label(ax, "unstable").get_label() == "unstable (1)"
    with pytest.raises(ValueError, match="system must be 'continuous' or 'discrete'"):
        gplot.eigenvalues(w, ax=ax, system="sampled")


# ----------------------------------------------------------------------------------------------
# device arrays, and without matplotlib
# ----------------------------------------------------------------------------------------------


def test_device_arrays(ax, lib, rng):  # noqa: F811
    a = with_singular_values(rng, 200, 10, np.concatenate([np.geomspace(4, 1, 7), [0] * 3]),
                             np.float64)
    gplot.spectrum(lib.put(a), ax=ax)
    assert vline_x(by_label(ax, "numerical rank")) == 7.5
    ax.clear()
    m = rng.standard_normal((50, 4, 4)) - 0.5 * np.eye(4)
    gplot.eigenvalues(gpusvd.eigvals_batched(lib.put(m)), ax=ax)
    n_unstable = int(np.count_nonzero(np.linalg.eigvals(m).real > 0))
    assert by_label(ax, "unstable").get_label() == "unstable (%d)" % n_unstable
    ax.clear()
    est = gpusvd.PCA(0.9).fit(lib.put(_data(rng)))
    gplot.scree(est, ax=ax)
    np.testing.assert_allclose([p.get_height() for p in ax.patches],
                               lib.host(est.explained_variance_ratio_), rtol=1e-12)


def test_without_matplotlib():
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "import gpusvd\n"
            "try:\n"
            "    gpusvd.plot\n"
            "except ImportError as e:\n"
            "    print('ImportError:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=PKG_ROOT), check=True)
    assert out.stdout.strip() == ("ImportError: gpusvd.plot needs matplotlib, which is not "
                                  "installed (pip install matplotlib)")
