"""gpusvd.PCA, the scikit-learn compatible estimator.

Against sklearn.decomposition.PCA(svd_solver='full') in float64 numbers: components (after
aligning signs), variances, ratios, singular values, noise variance, transform,
fit_transform, inverse_transform, whitening; scikit-learn's own estimator checks; the same
estimator without scikit-learn installed (a child interpreter that cannot import it); device
arrays (CuPy / torch, on a GPU machine).
"""
import json
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import gpusvd
from gpusvd._pca import has_method_choice
from conftest import DTYPES, eps
from test_device import lib  # noqa: F401  (the cupy / torch fixture)

sklearn = pytest.importorskip("sklearn", reason="scikit-learn is needed for these tests")
from sklearn.decomposition import PCA as SkPCA  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

PKG_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(gpusvd.__file__)))


def data(rng, shape, dtype, offset=3.0):
    """Samples with well separated variances (components determined to the data's
    precision)."""
    scale = np.geomspace(8, 0.2, shape[1])
    return (rng.standard_normal(shape) * scale + offset).astype(dtype)


def aligned(ours, ref):
    """Sign per row of `ours` that matches `ref`'s rows (components are defined up to sign)."""
    return np.where(np.sum(ours.astype(np.float64) * ref, axis=1) < 0, -1.0, 1.0)


def assert_matches_sklearn(est, sk, x, dtype, tol):
    k = sk.n_components_
    assert est.n_components_ == k
    assert est.n_samples_ == sk.n_samples_ and est.n_features_in_ == sk.n_features_in_
    # the centred data has rank <= m - 1: a component of zero variance is arbitrary
    d = min(k, x.shape[0] - 1)
    sign = aligned(est.components_[:d], sk.components_[:d])
    np.testing.assert_allclose(est.components_[:d] * sign[:, None], sk.components_[:d],
                               atol=tol)
    ev = sk.explained_variance_
    np.testing.assert_allclose(est.explained_variance_, ev, rtol=tol, atol=tol * ev[0])
    np.testing.assert_allclose(est.explained_variance_ratio_, sk.explained_variance_ratio_,
                               rtol=tol, atol=tol * sk.explained_variance_ratio_[0])
    np.testing.assert_allclose(est.singular_values_, sk.singular_values_, rtol=tol,
                               atol=np.sqrt(tol) * sk.singular_values_[0])
    np.testing.assert_allclose(est.mean_, sk.mean_, rtol=tol, atol=tol)
    np.testing.assert_allclose(est.noise_variance_, sk.noise_variance_, rtol=10 * tol,
                               atol=tol * ev[0])
    for a in (est.components_, est.explained_variance_, est.explained_variance_ratio_,
              est.singular_values_, est.mean_):
        assert a.dtype == dtype
    z, z_sk = est.transform(x), sk.transform(x)
    assert z.dtype == dtype
    scale = np.abs(z_sk).max()
    np.testing.assert_allclose(z[:, :d] * sign, z_sk[:, :d], atol=tol * scale)
    np.testing.assert_allclose(est.inverse_transform(z), sk.inverse_transform(z_sk),
                               atol=tol * np.abs(x).max())
    return sign


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(250, 9), (14, 30)])
@pytest.mark.parametrize("n_components", [None, 4, 0.8, 0.99])
@pytest.mark.parametrize("whiten", [False, True])
def test_against_sklearn(rng, dtype, shape, n_components, whiten):
    x = data(rng, shape, dtype)
    est = gpusvd.PCA(n_components, whiten=whiten).fit(x)
    sk = SkPCA(n_components, whiten=whiten, svd_solver="full").fit(x.astype(np.float64))
    tol = 2e4 * eps(dtype)
    sign = assert_matches_sklearn(est, sk, x, dtype, tol)
    # fit_transform: the library's scores, equal to fit().transform()
    z = gpusvd.PCA(n_components, whiten=whiten).fit_transform(x)
    d = len(sign)
    z_sk = sk.transform(x)
    np.testing.assert_allclose(z[:, :d] * sign, z_sk[:, :d], atol=tol * np.abs(z_sk).max())
    if whiten:  # unit variance along every kept component of non-zero variance
        np.testing.assert_allclose(z[:, :d].astype(np.float64).var(axis=0, ddof=1), 1.0,
                                   rtol=tol)


def test_fraction_and_integer_choices(rng):
    x = data(rng, (300, 12), np.float64)
    for nc in (0.3, 0.5, 0.9, 0.95, 0.999):
        assert gpusvd.PCA(nc).fit(x).n_components_ == \
            SkPCA(nc, svd_solver="full").fit(x).n_components_
    assert gpusvd.PCA().fit(x).n_components_ == 12
    assert gpusvd.PCA(0).fit(x).components_.shape == (0, 12)
    for bad in (2.7, 1.0, -0.2):
        with pytest.raises(ValueError, match="float must be in"):
            gpusvd.PCA(bad).fit(x)
    with pytest.raises(ValueError, match="argument k = 13 is invalid"):
        gpusvd.PCA(13).fit(x)
    with pytest.raises(ValueError, match="method must be"):
        gpusvd.PCA(2, method="randomized").fit(x)


def test_params_clone_pickle_and_feature_names(rng):
    from sklearn.base import clone
    est = gpusvd.PCA(3, whiten=True, method="auto")
    assert est.get_params() == {"n_components": 3, "copy": True, "whiten": True,
                                "method": "auto"}
    assert est.set_params(n_components=0.9) is est and est.n_components == 0.9
    assert repr(gpusvd.PCA(2)) == "PCA(n_components=2)"
    x = data(rng, (40, 5), np.float64)
    fitted = clone(est).fit(x)
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.transform(x), fitted.transform(x))
    assert list(fitted.get_feature_names_out()) == \
        ["pca%d" % i for i in range(fitted.n_components_)]
    with pytest.raises(sklearn.exceptions.NotFittedError):
        gpusvd.PCA().transform(x)
    with pytest.raises(ValueError, match="X has 4 features, but PCA is expecting 5"):
        fitted.transform(x[:, :4])
    with pytest.raises(ValueError, match="n_samples = 1"):
        gpusvd.PCA().fit(x[:1])
    with pytest.raises(ValueError, match=r"expected an array of shape \(n_samples, %d\)"
                       % fitted.n_components_):
        fitted.inverse_transform(x)


def test_import_is_lazy():
    # import gpusvd does not import scikit-learn or matplotlib; gpusvd.PCA does
    code = ("import sys, gpusvd; a = 'sklearn' in sys.modules or 'matplotlib' in sys.modules; "
            "gpusvd.PCA; print(a, 'sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=PKG_ROOT), check=True)
    assert out.stdout.split() == ["False", "True"]


# ----------------------------------------------------------------------------------------------
# scikit-learn's estimator checks
# ----------------------------------------------------------------------------------------------

# check_array_api_input runs gpusvd.PCA under array_api_dispatch (numpy namespace), which
# scikit-learn allows only when SCIPY_ARRAY_API=1 was set before scipy was imported; this
# process imported scipy long before, so that check runs in a child interpreter that sets it.
_ARRAY_API_CHILD = r'''
import json, sys
from functools import partial
import gpusvd
from sklearn.utils import estimator_checks as ec
spec = json.loads(sys.argv[1])
check = getattr(ec, spec["func"])
check(spec["name"], gpusvd.PCA(), *spec["args"], **spec["kwargs"])
print("passed")
'''


def _run_array_api_check(check):
    env = dict(os.environ, SCIPY_ARRAY_API="1",
               PYTHONPATH=PKG_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.setdefault("GPUSVD_LIBRARY", gpusvd.library_path())
    spec = json.dumps({"func": check.func.__name__, "name": check.args[0],
                       "args": list(check.args[2:]), "kwargs": check.keywords})
    proc = subprocess.run([sys.executable, "-c", _ARRAY_API_CHILD, spec], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("passed"), proc.stderr[-3000:]


@parametrize_with_checks([gpusvd.PCA()])
def test_sklearn_estimator_checks(estimator, check):
    func = getattr(check, "func", check)
    if func.__name__ == "check_array_api_input" and os.environ.get("SCIPY_ARRAY_API") != "1":
        _run_array_api_check(check)
        return
    check(estimator)


# ----------------------------------------------------------------------------------------------
# Without scikit-learn: the estimator's own get_params / set_params and checks
# ----------------------------------------------------------------------------------------------

_NO_SKLEARN_CHILD = r'''
import json, pickle, sys
sys.modules["sklearn"] = None  # import sklearn (and every sklearn.x) raises ImportError
import numpy as np
import gpusvd
from gpusvd import _estimator
assert not _estimator.HAVE_SKLEARN
rng = np.random.default_rng(3)
x = rng.standard_normal((60, 5)) * [4.0, 2.0, 1.0, 0.5, 0.1] + 1.0
out = {}
est = gpusvd.PCA(3, whiten=True)
out["params"] = est.get_params()
out["repr"] = repr(est)
est.set_params(whiten=False)
try:
    est.set_params(solver="x")
except ValueError as e:
    out["bad_param"] = str(e)
try:
    est.transform(x)
except ValueError as e:
    out["unfitted"] = [type(e).__name__, isinstance(e, AttributeError)]
z = est.fit_transform(x)
est = pickle.loads(pickle.dumps(est))
out["z"] = z.tolist()
out["transform"] = est.transform(x).tolist()
out["inverse"] = est.inverse_transform(z).tolist()
out["components"] = est.components_.tolist()
out["ev"] = est.explained_variance_.tolist()
out["ratio"] = est.explained_variance_ratio_.tolist()
out["noise"] = float(est.noise_variance_)
out["names"] = list(est.get_feature_names_out())
out["n"] = [est.n_components_, est.n_samples_, est.n_features_in_]
errors = []
for bad in (x[:, :4], x[0], np.full((3, 5), np.nan), x.astype(complex)):
    try:
        est.transform(bad)
    except ValueError as e:
        errors.append(str(e))
out["errors"] = errors
print(json.dumps(out))
'''


def test_without_sklearn(rng):
    env = dict(os.environ, PYTHONPATH=PKG_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.setdefault("GPUSVD_LIBRARY", gpusvd.library_path())
    proc = subprocess.run([sys.executable, "-c", _NO_SKLEARN_CHILD], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["params"] == {"n_components": 3, "copy": True, "whiten": True,
                             "method": "auto"}
    assert out["repr"] == "PCA(n_components=3, whiten=True)"
    assert "Invalid parameter 'solver'" in out["bad_param"]
    assert out["unfitted"] == ["NotFittedError", True]
    x = np.random.default_rng(3).standard_normal((60, 5)) * [4.0, 2.0, 1.0, 0.5, 0.1] + 1.0
    sk = SkPCA(3, svd_solver="full").fit(x)
    comp = np.array(out["components"])
    sign = aligned(comp, sk.components_)
    np.testing.assert_allclose(comp * sign[:, None], sk.components_, atol=1e-12)
    np.testing.assert_allclose(out["ev"], sk.explained_variance_, rtol=1e-12)
    np.testing.assert_allclose(out["ratio"], sk.explained_variance_ratio_, rtol=1e-12)
    np.testing.assert_allclose(out["noise"], sk.noise_variance_, rtol=1e-12)
    z_sk = sk.transform(x)
    np.testing.assert_allclose(np.array(out["z"]) * sign, z_sk, atol=1e-12)
    np.testing.assert_allclose(np.array(out["transform"]) * sign, z_sk, atol=1e-12)
    np.testing.assert_allclose(out["inverse"], sk.inverse_transform(z_sk), atol=1e-12)
    assert out["names"] == ["pca0", "pca1", "pca2"] and out["n"] == [3, 60, 5]
    errs = out["errors"]
    assert len(errs) == 4
    assert "X has 4 features, but PCA is expecting 5" in errs[0]
    assert "Expected 2D array, got 1D array" in errs[1]
    assert "NaN or infinity" in errs[2] and "Complex data not supported" in errs[3]


# ----------------------------------------------------------------------------------------------
# Device arrays (CuPy / torch CUDA tensors; skipped without a GPU)
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_components", [None, 3, 0.9])
@pytest.mark.parametrize("whiten", [False, True])
def test_device_arrays(lib, rng, dtype, n_components, whiten):  # noqa: F811
    x_h = data(rng, (3000, 10), dtype)
    x = lib.put(x_h)
    est = gpusvd.PCA(n_components, whiten=whiten).fit(x)
    for a in (est.components_, est.explained_variance_, est.explained_variance_ratio_,
              est.singular_values_, est.mean_):
        assert lib.on_device(a, x), type(a)
    z = est.transform(x)
    assert lib.on_device(z, x)
    zf = gpusvd.PCA(n_components, whiten=whiten).fit_transform(x)
    back = est.inverse_transform(z)
    assert lib.on_device(zf, x) and lib.on_device(back, x)
    sk = SkPCA(n_components, whiten=whiten, svd_solver="full").fit(x_h.astype(np.float64))
    tol = 2e4 * eps(dtype)
    assert est.n_components_ == sk.n_components_
    comp = lib.host(est.components_)
    sign = aligned(comp, sk.components_)
    np.testing.assert_allclose(comp * sign[:, None], sk.components_, atol=tol)
    np.testing.assert_allclose(lib.host(est.explained_variance_), sk.explained_variance_,
                               rtol=tol)
    np.testing.assert_allclose(lib.host(est.explained_variance_ratio_),
                               sk.explained_variance_ratio_, rtol=tol)
    np.testing.assert_allclose(lib.host(est.singular_values_), sk.singular_values_, rtol=tol)
    np.testing.assert_allclose(lib.host(est.mean_), sk.mean_, rtol=tol, atol=tol)
    np.testing.assert_allclose(float(lib.host(est.noise_variance_)), sk.noise_variance_,
                               rtol=10 * tol, atol=tol * sk.explained_variance_[0])
    z_sk = sk.transform(x_h.astype(np.float64))
    np.testing.assert_allclose(lib.host(z) * sign, z_sk, atol=tol * np.abs(z_sk).max())
    np.testing.assert_allclose(lib.host(zf) * sign, z_sk, atol=tol * np.abs(z_sk).max())
    np.testing.assert_allclose(lib.host(back), sk.inverse_transform(z_sk),
                               atol=tol * np.abs(x_h).max())
    # fitted on the device, used on the host (and the reverse)
    np.testing.assert_allclose(est.transform(x_h) * sign, z_sk, atol=tol * np.abs(z_sk).max())
    est_h = gpusvd.PCA(n_components, whiten=whiten).fit(x_h)
    assert lib.on_device(est_h.transform(x), x)


def test_device_nan_raises(lib):  # noqa: F811
    x = np.ones((50, 4))
    x[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        gpusvd.PCA(2).fit(lib.put(x))


@pytest.mark.parametrize("method", ["qr", "covariance"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_device_methods(lib, rng, method, dtype):  # noqa: F811
    if not has_method_choice(gpusvd.default_handle()._lib):
        pytest.skip("the loaded library has no choice of PCA method (gpusvdSetPcaMethod)")
    x_h = data(rng, (5000, 16), dtype)
    est = gpusvd.PCA(5, method=method).fit(lib.put(x_h))
    sk = SkPCA(5, svd_solver="full").fit(x_h.astype(np.float64))
    # the covariance method's error is about max(m, n) eps times the largest variance
    e = 10 * 5000 * eps(dtype)
    ev = lib.host(est.explained_variance_)
    assert np.all(np.abs(ev - sk.explained_variance_) <= e * sk.explained_variance_[0])
    comp = lib.host(est.components_)
    gap = np.min(np.abs(np.diff(sk.explained_variance_))) / sk.explained_variance_[0]
    np.testing.assert_allclose(comp * aligned(comp, sk.components_)[:, None],
                               sk.components_, atol=e / gap)
