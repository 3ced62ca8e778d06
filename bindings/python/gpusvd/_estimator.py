"""gpusvd.PCA: a scikit-learn compatible PCA estimator on :func:`gpusvd.pca`.

With scikit-learn installed the class derives from its BaseEstimator, TransformerMixin and
ClassNamePrefixFeaturesOutMixin and validates host input with scikit-learn's own
``validate_data`` (so messages, feature names and ``set_output`` behave as in scikit-learn);
without it, a small base of the same shape (get_params, set_params, repr) and the same checks
written here. scikit-learn is imported on the first use of ``gpusvd.PCA``, not by
``import gpusvd``.
"""
from __future__ import annotations

import inspect
from typing import Any, Dict, Optional, Union

import numpy as np

from ._arrays import ops_for
from ._errors import INFO_NONFINITE, LinAlgError
from ._pca import pca

try:
    from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    try:
        from sklearn.utils.validation import validate_data as _sk_validate_data
    except ImportError:  # scikit-learn < 1.6: the method of BaseEstimator
        def _sk_validate_data(est, X, **kwargs):
            return est._validate_data(X, **kwargs)
    HAVE_SKLEARN = True
    _BASES: tuple = (ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator)
except ImportError:
    HAVE_SKLEARN = False

    class NotFittedError(ValueError, AttributeError):
        """The estimator is used before ``fit`` (scikit-learn's NotFittedError when that is
        installed)."""

    def check_is_fitted(estimator: Any, attributes: Optional[str] = None) -> None:
        fitted = (hasattr(estimator, attributes) if attributes else
                  any(v.endswith("_") and not v.startswith("__") for v in vars(estimator)))
        if not fitted:
            raise NotFittedError("This %s instance is not fitted yet. Call 'fit' with "
                                 "appropriate arguments before using this estimator."
                                 % type(estimator).__name__)

    class _ParamsBase:
        """get_params / set_params / repr from the constructor's signature, as scikit-learn's
        BaseEstimator provides them."""

        @classmethod
        def _get_param_names(cls) -> list:
            sig = inspect.signature(cls.__init__)
            return sorted(p.name for p in sig.parameters.values()
                          if p.name != "self" and p.kind != p.VAR_KEYWORD)

        def get_params(self, deep: bool = True) -> Dict[str, Any]:
            return {name: getattr(self, name) for name in self._get_param_names()}

        def set_params(self, **params: Any) -> "_ParamsBase":
            valid = self._get_param_names()
            for key, value in params.items():
                if key not in valid:
                    raise ValueError("Invalid parameter %r for estimator %s. Valid parameters "
                                     "are: %s." % (key, type(self).__name__, valid))
                setattr(self, key, value)
            return self

        def __repr__(self) -> str:
            sig = inspect.signature(type(self).__init__)
            changed = ["%s=%r" % (k, v) for k, v in self.get_params().items()
                       if sig.parameters[k].default is not v
                       and sig.parameters[k].default != v]
            return "%s(%s)" % (type(self).__name__, ", ".join(changed))

    _BASES = (_ParamsBase,)


def _generic_checks(est: Any, x: Any, reset: bool) -> None:
    """Shape checks of what scikit-learn's validate_data checks, for device arrays and for
    host arrays when scikit-learn is missing; the messages are scikit-learn's."""
    if x.ndim != 2:
        raise ValueError("Expected 2D array, got %dD array instead. Reshape your data either "
                         "using array.reshape(-1, 1) if your data has a single feature or "
                         "array.reshape(1, -1) if it contains a single sample." % x.ndim)
    m, n = x.shape
    if m < 1:
        raise ValueError("Found array with 0 sample(s) (shape=%s) while a minimum of 1 is "
                         "required by %s." % (tuple(x.shape), type(est).__name__))
    if n < 1:
        raise ValueError("Found array with 0 feature(s) (shape=%s) while a minimum of 1 is "
                         "required by %s." % (tuple(x.shape), type(est).__name__))
    if reset:
        est.n_features_in_ = int(n)
    elif n != est.n_features_in_:
        raise ValueError("X has %d features, but %s is expecting %d features as input."
                         % (n, type(est).__name__, est.n_features_in_))


def _validate(est: Any, X: Any, reset: bool):
    """(ops, array) for X after scikit-learn's input checks (host) or the generic ones
    (device arrays, which are neither copied nor read back here)."""
    ops, x = ops_for(X)
    if ops.device:
        _generic_checks(est, x, reset)
        return ops, x
    if HAVE_SKLEARN:
        return ops, _sk_validate_data(est, X, dtype="numeric", reset=reset)
    if x.dtype.kind == "O":
        x = x.astype(np.float64)
    if x.dtype.kind == "c":
        raise ValueError("Complex data not supported\n%s\n" % (x,))
    _generic_checks(est, x, reset)
    if x.dtype.kind == "f" and not np.isfinite(x).all():
        raise ValueError("Input X contains NaN or infinity.")
    return ops, x


def _on(ops: Any, like: Any, a: Any) -> Any:
    """Fitted array ``a`` as an array of the library of ``like`` (ops: like's adapter)."""
    src, a_arr = ops_for(a)
    if src.device == ops.device and type(src) is type(ops):
        return a_arr
    host = src.to_host(a_arr)
    if not ops.device:
        return np.asarray(host)
    if hasattr(ops, "cp"):
        return ops.cp.asarray(host)
    return ops.torch.as_tensor(np.ascontiguousarray(host), device=like.device)


class PCA(*_BASES):
    """Principal component analysis on the GPU (or the LAPACK CPU backend), with the interface
    of ``sklearn.decomposition.PCA``.

    The data is centred (not scaled) and projected on the principal axes, the right singular
    vectors of the centred data, computed by :func:`gpusvd.pca`. Works on numpy arrays (and
    anything numpy converts) and on device arrays (CuPy, torch CUDA tensors): fitted attributes
    and results are arrays of the library that was given.

    Parameters
    ----------
    n_components : None, int or float, default None
        None keeps ``min(n_samples, n_features)`` components; an int keeps that many
        (``0 <= n_components <= min(n_samples, n_features)``); a float in (0, 1) keeps the
        smallest number of components whose cumulative explained variance ratio exceeds it.
    copy : bool, default True
        Accepted for scikit-learn compatibility. gpusvd never overwrites X (the library
        centres a copy of it), so False changes nothing.
    whiten : bool, default False
        Scale the projections to unit variance: ``transform`` divides them by
        ``sqrt(explained_variance_)`` and ``inverse_transform`` multiplies them back.
    method : {'auto', 'qr', 'covariance'}, default 'auto'
        The library's PCA method (see :func:`gpusvd.pca`): 'qr' (QR of the centred data,
        then the SVD of R), 'covariance' (covariance matrix and a symmetric eigensolver,
        faster for tall data but squaring the condition number), 'auto' (the library's rule).

    Attributes
    ----------
    components_ : array, shape (n_components_, n_features)
        Principal axes, orthonormal rows; in each the entry of largest magnitude is positive
        (scikit-learn's convention since 1.5).
    explained_variance_ : array, shape (n_components_,)
        Variance along each axis, ``singular_values_**2 / (n_samples - 1)``.
    explained_variance_ratio_ : array, shape (n_components_,)
        ``explained_variance_`` over the total variance (the sum of the feature variances).
    singular_values_ : array, shape (n_components_,)
        Singular values of the centred data.
    mean_ : array, shape (n_features,)
        Per-feature mean.
    n_components_ : int
        Number of components kept.
    n_samples_ : int
        Number of samples of the fitted data.
    n_features_in_ : int
        Number of features of the fitted data.
    feature_names_in_ : ndarray of str
        Feature names, when X had string column names (a pandas DataFrame; with
        scikit-learn installed).
    noise_variance_ : float (0-d array for device input)
        Mean of the ``min(n_samples, n_features) - n_components_`` variances left out (the
        noise variance of probabilistic PCA); 0 when none is.

    See Also
    --------
    gpusvd.pca : the function, with a PCAResult.
    sklearn.decomposition.PCA : the estimator this one follows.

    Examples
    --------
    >>> import numpy as np
    >>> import gpusvd
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 5)) @ np.diag([4.0, 2.0, 1.0, 0.1, 0.1])
    >>> est = gpusvd.PCA(n_components=0.9).fit(X)
    >>> est.n_components_
    2
    >>> Z = est.transform(X)
    >>> Z.shape
    (200, 2)
    >>> bool(est.explained_variance_ratio_.sum() > 0.9)
    True
    >>> est.inverse_transform(Z).shape        # X's projection on the 2 components
    (200, 5)
    """

    def __init__(self, n_components: Union[None, int, float] = None, *, copy: bool = True,
                 whiten: bool = False, method: str = "auto") -> None:
        self.n_components = n_components
        self.copy = copy
        self.whiten = whiten
        self.method = method

    # -- fitting ------------------------------------------------------------------------------
    def _fit(self, X: Any, scores: bool) -> Any:
        ops, x = _validate(self, X, reset=True)
        m = int(x.shape[0])
        if m < 2:
            raise ValueError("gpusvd.PCA: n_samples = %d; PCA needs at least 2 samples "
                             "(the variances divide by n_samples - 1)" % m)
        # Host data was screened for NaN/Inf above; device data is screened by the library
        # (info), which costs no pass of its own.
        res = pca(x, self.n_components, compute_scores=scores, method=self.method,
                  check_finite=False)
        info = int(ops.to_host(res.info)) if ops.device else res.info
        if info == INFO_NONFINITE:
            raise ValueError("Input X contains NaN or infinity.")
        if info > 0:
            raise LinAlgError("gpusvd.PCA: the SVD did not converge (info = %d)" % info, info)
        self.components_ = res.components
        self.explained_variance_ = res.explained_variance
        self.explained_variance_ratio_ = res.explained_variance_ratio
        self.singular_values_ = res.singular_values
        self.mean_ = res.mean
        self.noise_variance_ = res.noise_variance
        self.n_components_ = res.n_components
        self.n_samples_ = m
        return res.scores

    def fit(self, X: Any, y: Any = None) -> "PCA":
        """Fit the model on X (n_samples, n_features); y is ignored. Returns self."""
        self._fit(X, scores=False)
        return self

    def fit_transform(self, X: Any, y: Any = None) -> Any:
        """Fit on X and return its projections (n_samples, n_components_), the scores that
        the library computes with the fit (whitened when ``whiten``)."""
        z = self._fit(X, scores=True)
        return self._whitened(z) if self.whiten else z

    # -- using the fit ------------------------------------------------------------------------
    def _whitened(self, z: Any) -> Any:
        scale = self.explained_variance_ ** 0.5
        if not len(scale):
            return z
        tiny = float(np.finfo(ops_for(scale)[0].raw_dtype(scale)).eps)
        # as scikit-learn: a zero variance divides by eps rather than by zero
        scale = scale + (tiny - scale) * (scale < tiny)  # keeps scale's dtype
        return z / _on(ops_for(z)[0], z, scale)

    def transform(self, X: Any) -> Any:
        """Project X (n_samples, n_features) on the components: ``(X - mean_) @
        components_.T`` (divided by ``sqrt(explained_variance_)`` when ``whiten``), an array
        of the same library as X."""
        check_is_fitted(self)
        ops, x = _validate(self, X, reset=False)
        z = (x - _on(ops, x, self.mean_)) @ _on(ops, x, self.components_).T
        return self._whitened(z) if self.whiten else z

    def inverse_transform(self, X: Any) -> Any:
        """Data space from projections X (n_samples, n_components_): ``X @ components_ +
        mean_`` (with the projections first scaled back when ``whiten``)."""
        check_is_fitted(self)
        ops, x = ops_for(X)
        if x.ndim != 2 or x.shape[1] != self.n_components_:
            raise ValueError("gpusvd.PCA.inverse_transform: expected an array of shape "
                             "(n_samples, %d), got %s" % (self.n_components_, tuple(x.shape)))
        comp = _on(ops, x, self.components_)
        if self.whiten:
            comp = _on(ops, x, self.explained_variance_ ** 0.5)[:, None] * comp
        return x @ comp + _on(ops, x, self.mean_)

    @property
    def _n_features_out(self) -> int:
        """Number of output features (scikit-learn's get_feature_names_out uses it)."""
        return self.components_.shape[0]

    if not HAVE_SKLEARN:
        def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
            """Output feature names: 'pca0', 'pca1', ..."""
            check_is_fitted(self, "_n_features_out")
            return np.asarray(["pca%d" % i for i in range(self._n_features_out)], dtype=object)

    # float32 data is fitted and transformed in float32 (scikit-learn's estimator checks
    # test what the tags declare)
    if HAVE_SKLEARN and hasattr(BaseEstimator, "__sklearn_tags__"):
        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.transformer_tags.preserves_dtype = ["float64", "float32"]
            return tags
    elif HAVE_SKLEARN:  # scikit-learn < 1.6
        def _more_tags(self) -> Dict[str, Any]:
            return {"preserves_dtype": [np.float64, np.float32]}
