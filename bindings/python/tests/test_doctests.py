"""The Examples sections of the package's docstrings, run as doctests.

The modules are those of the gpusvd that the tests import (the installed package when the
tests run against a wheel or an installed copy), so this is the same check as
``pytest --doctest-modules`` over the package, wherever it is installed. A module that cannot
be imported for want of an optional package is skipped with the reason.
"""
import doctest
import importlib
import pkgutil

import pytest

import gpusvd


def _modules():
    """(name, module or the ImportError's text) of every module of the package with examples."""
    out = []
    for name in ["gpusvd"] + ["gpusvd." + m.name for m in pkgutil.iter_modules(gpusvd.__path__)
                              if m.name != "__main__"]:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:  # an optional dependency of that module
            out.append((name, str(exc)))
            continue
        if any(t.examples for t in doctest.DocTestFinder().find(module, name)):
            out.append((name, module))
    return out


MODULES = _modules()


def test_every_public_function_has_examples():
    missing = [name for name in gpusvd.__all__
               if callable(getattr(gpusvd, name)) and not isinstance(getattr(gpusvd, name), type)
               and ">>>" not in (getattr(gpusvd, name).__doc__ or "")]
    documented = {"svd", "svdvals", "qr", "eig", "eigvals", "svd_batched", "qr_batched",
                  "eig_batched", "eigvals_batched", "bdsvd"}
    assert not documented & set(missing), sorted(documented & set(missing))


@pytest.mark.parametrize("name,module", MODULES, ids=[name for name, _ in MODULES])
def test_doctests(name, module):
    if isinstance(module, str):
        pytest.skip("%s cannot be imported here: %s" % (name, module))
    tests = [t for t in doctest.DocTestFinder().find(module, name) if t.examples]
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out = []
    for t in tests:
        runner.run(t, out=out.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(out)
