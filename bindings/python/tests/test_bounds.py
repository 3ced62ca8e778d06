"""Boundaries of every value the package hands to the C library.

ctypes keeps the low bits of an integer that does not fit its C type, so without the checks of
gpusvd._checks pca(X, -(2**64) + 3) reaches the library as k = 3 with outputs sized for 0
components (heap corruption), and set_jacobi_max_sweeps(2**32 + 5) sets 5. These tests call
every integer argument of the public functions and Handle setters at the C types' limits and
assert the exact exception (or the exact result), then every dtype and layout a user may pass.

The integer matrices run in a child interpreter: a value that slips through and corrupts the
heap kills the child, which fails the test with its exit status instead of killing pytest.
"""
import ctypes
import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.linalg as sl

import gpusvd
from gpusvd import _checks
from gpusvd._lib import SIGNATURES, check_args, routine
from conftest import dense_bidiagonal, eps

I32, I64, U64 = 2 ** 31, 2 ** 63, 2 ** 64

# ----------------------------------------------------------------------------------------------
# The integer matrix, in a child interpreter
# ----------------------------------------------------------------------------------------------

#: Every integer argument is called with each of these (Python expressions, evaluated in the
#: child with numpy as np); each table below must give the outcome of every one.
BOUNDARY = [
    "-1", "0", "2**31-1", "2**31", "2**32+5", "2**63-1", "2**63", "-2**63", "-2**63-1",
    "2**64+3", "-(2**64)+3", "True", "False", "np.True_", "2.0", "np.float64(2)", "np.int64(2)",
    "np.int32(-1)", "np.uint8(3)", "np.uint64(2**64-1)", "np.array(2)", "'2'", "None",
]

_CHILD = r'''
import json, sys
from fractions import Fraction
import numpy as np
import gpusvd
spec = json.loads(sys.argv[1])
ns = {"np": np, "gpusvd": gpusvd, "Fraction": Fraction}
exec(spec["setup"], ns)
out = {}
for expr in spec["values"]:
    ns["V"] = eval(expr, ns)
    try:
        out[expr] = ["ok", repr(eval(spec["call"], ns))]
    except Exception as e:
        out[expr] = [type(e).__name__, str(e)]
# After all the refused calls the heap must still be sound.
a = np.arange(1.0, 13.0).reshape(4, 3) ** 2
assert np.allclose(gpusvd.svd(a, compute_uv=False), np.linalg.svd(a, compute_uv=False))
print(json.dumps(out))
'''


def run_child(setup, call, values):
    """{expression: [outcome, text]} from a fresh interpreter that imports the same gpusvd and
    library as this one; the test fails (not pytest) if the child dies."""
    env = dict(os.environ)
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(gpusvd.__file__)))
    env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("GPUSVD_LIBRARY", gpusvd.library_path())
    spec = json.dumps({"setup": textwrap.dedent(setup), "call": call, "values": values})
    proc = subprocess.run([sys.executable, "-X", "faulthandler", "-c", _CHILD, spec], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, "child interpreter died (exit status %d):\n%s" % (
        proc.returncode, proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def check_table(results, table):
    """Each expression's outcome must be the expected exception type (exactly) or "ok", and
    its text must contain the expected needle ("{v}": the expression's integer value)."""
    assert set(table) == set(results)
    wrong = []
    for expr, (kind, needle) in table.items():
        got_kind, text = results[expr]
        if "{v}" in needle:
            needle = needle.format(v=int(eval(expr, {"np": np})))
        if got_kind != kind or needle not in text:
            wrong.append("%s: expected %s containing %r, got %s: %s"
                         % (expr, kind, needle, got_kind, text))
    assert not wrong, "\n".join(wrong)


def run_table(setup, call, table):
    """Run `call` for every expression of `table` (which must cover all of BOUNDARY) in one
    child and check each outcome."""
    missing = [e for e in BOUNDARY if e not in table]
    assert not missing, "no expectation for %s" % missing
    check_table(run_child(setup, call, list(table)), table)


OVER = "OverflowError"
NOT_INT = ("TypeError", "must be an integer")
NOT_REAL = ("TypeError", "must be a real number")
BOOL = ("TypeError", "not a bool")

# pca of a 400 x 40 X (min(m, n) = 40): with k = -(2**64) + 3 wrapped to 3 the library writes
# 3 * (40 + 400 + 1) values into zero-size outputs, which reliably crashed the interpreter.
PCA_SETUP = """
    X = np.random.default_rng(7).standard_normal((400, 40)) * np.geomspace(10, 1, 40)
    Xc = X - X.mean(axis=0)
    ref = np.linalg.svd(Xc, compute_uv=False) ** 2 / 399
    def summary(r):
        k = r.components.shape[0]
        return (r.components.shape, r.scores.shape,
                bool(np.allclose(r.explained_variance, ref[:k], rtol=1e-8)))
"""


NOT_FRACTION = ("ValueError", "a float must be in (0, 1)")


def _pca_ok(k):
    return ("ok", "((%d, 40), (400, %d), True)" % (k, k))


PCA_K = {
    "-1": ("InvalidValueError", "argument k = -1 is invalid"),
    "0": _pca_ok(0), "3": _pca_ok(3), "40": _pca_ok(40),
    "41": ("InvalidValueError", "argument k = 41 is invalid"),
    "2**31-1": ("InvalidValueError", "argument k = {v} is invalid"),
    "2**31": ("InvalidValueError", "argument k = {v} is invalid"),
    "2**32+5": ("InvalidValueError", "argument k = {v} is invalid"),
    "2**63-1": ("InvalidValueError", "argument k = {v} is invalid"),
    "2**63": (OVER, "gpusvd.pca: argument n_components = {v} does not fit the C type int64_t"),
    "-2**63": ("InvalidValueError", "argument k = {v} is invalid"),
    "-2**63-1": (OVER, "argument n_components = {v} does not fit the C type int64_t"),
    "2**64+3": (OVER, "argument n_components = {v} does not fit the C type int64_t"),
    "-(2**64)+3": (OVER, "argument n_components = {v} does not fit the C type int64_t"),
    "True": BOOL, "False": BOOL, "np.True_": BOOL,
    # scikit-learn's n_components: None keeps min(m, n); a float must be a fraction in (0, 1)
    "None": _pca_ok(40), "2.0": NOT_FRACTION, "np.float64(2)": NOT_FRACTION,
    "'2'": ("TypeError", "must be None, an integer or a float in (0, 1), not str"),
    "np.int64(2)": _pca_ok(2), "np.uint8(3)": _pca_ok(3), "np.array(2)": _pca_ok(2),
    "np.int32(-1)": ("InvalidValueError", "argument k = -1 is invalid"),
    "np.uint64(2**64-1)": (OVER, "argument n_components = {v} does not fit the C type int64_t"),
}


def test_pca_k_boundaries():
    run_table(PCA_SETUP, "summary(gpusvd.pca(X, V))", PCA_K)


INVALID_SWEEPS = ("InvalidValueError", "argument maxSweeps = {v} is invalid")
OVER_SWEEPS = (OVER, "set_jacobi_max_sweeps: argument sweeps = {v} does not fit the C type int ")
MAX_SWEEPS = {
    "-1": INVALID_SWEEPS, "0": INVALID_SWEEPS, "1": ("ok", "None"), "2**20": ("ok", "None"),
    "2**20+1": INVALID_SWEEPS, "2**31-1": INVALID_SWEEPS, "-2**31": INVALID_SWEEPS,
    "2**31": OVER_SWEEPS, "-2**31-1": OVER_SWEEPS, "2**32+5": OVER_SWEEPS,
    "2**63-1": OVER_SWEEPS, "2**63": OVER_SWEEPS, "-2**63": OVER_SWEEPS,
    "-2**63-1": OVER_SWEEPS, "2**64+3": OVER_SWEEPS, "-(2**64)+3": OVER_SWEEPS,
    "True": BOOL, "False": BOOL, "np.True_": BOOL,
    "2.0": NOT_INT, "np.float64(2)": NOT_INT, "'2'": NOT_INT, "None": NOT_INT,
    "np.int64(2)": ("ok", "None"), "np.uint8(3)": ("ok", "None"), "np.array(2)": ("ok", "None"),
    "np.int32(-1)": INVALID_SWEEPS, "np.uint64(2**64-1)": OVER_SWEEPS,
}


def test_max_sweeps_boundaries():
    run_table("h = gpusvd.Handle()", "h.set_jacobi_max_sweeps(V)", MAX_SWEEPS)


TOL_RANGE = ("ValueError", "must be 0 (the default) or in (0, 1)")
TOL_OK = ("ok", "None")
TOLERANCE = {
    "0": TOL_OK, "-0.0": TOL_OK, "0.5": TOL_OK, "1e-300": TOL_OK, "np.nextafter(1, 0)": TOL_OK,
    "np.float32(0.25)": TOL_OK, "np.float16(0.5)": TOL_OK, "np.longdouble(0.5)": TOL_OK,
    "Fraction(1, 3)": TOL_OK, "np.array(0.5)": TOL_OK,
    "1.0": TOL_RANGE, "-1e-300": TOL_RANGE, "-1": TOL_RANGE, "2.0": TOL_RANGE,
    "np.float64(2)": TOL_RANGE, "np.int64(2)": TOL_RANGE, "np.int32(-1)": TOL_RANGE,
    "np.uint8(3)": TOL_RANGE, "np.array(2)": TOL_RANGE, "np.uint64(2**64-1)": TOL_RANGE,
    "2**31-1": TOL_RANGE, "2**31": TOL_RANGE, "2**32+5": TOL_RANGE, "2**63-1": TOL_RANGE,
    "2**63": TOL_RANGE, "-2**63": TOL_RANGE, "-2**63-1": TOL_RANGE, "2**64+3": TOL_RANGE,
    "-(2**64)+3": TOL_RANGE,
    "float('nan')": ("ValueError", "must be finite"), "float('inf')": ("ValueError", "finite"),
    "-float('inf')": ("ValueError", "must be finite"),
    "10**400": (OVER, "does not fit the C type double"),
    "True": ("TypeError", "not bool"), "False": ("TypeError", "not bool"),
    "np.True_": ("TypeError", "not bool"),
    "'2'": NOT_REAL, "None": NOT_REAL, "np.complex128(0.5)": NOT_REAL,
    "np.array([0.5])": NOT_REAL,
}


def test_tolerance_boundaries():
    run_table("h = gpusvd.Handle()", "h.set_jacobi_tolerance(V)", TOLERANCE)


OVER_PTR = (OVER, "Handle.stream: argument stream = {v} does not fit the C type void *")
STREAM = {
    "None": ("ok", "0"), "0": ("ok", "0"), "1": ("ok", "1"),
    "2**31-1": ("ok", "{v}"), "2**31": ("ok", "{v}"), "2**32+5": ("ok", "{v}"),
    "2**63-1": ("ok", "{v}"), "2**63": ("ok", "{v}"), "2**64-1": ("ok", "{v}"),
    "np.uint64(2**64-1)": ("ok", "{v}"), "np.int64(2)": ("ok", "2"), "np.uint8(3)": ("ok", "3"),
    "np.array(2)": ("ok", "2"),
    "-1": OVER_PTR, "-2**63": OVER_PTR, "-2**63-1": OVER_PTR, "2**64": OVER_PTR,
    "2**64+3": OVER_PTR, "-(2**64)+3": OVER_PTR, "np.int32(-1)": OVER_PTR,
    "True": BOOL, "False": BOOL, "np.True_": BOOL,
    "2.0": NOT_INT, "np.float64(2)": NOT_INT, "'2'": NOT_INT,
}
# The stream is only stored (no GPU work runs on this handle), so any address reads back.
STREAM_CALL = "(setattr(h, 'stream', V), h.stream, setattr(h, 'stream', 0))[1]"


def test_stream_boundaries():
    run_table("h = gpusvd.Handle()", STREAM_CALL, STREAM)


UNKNOWN = ("ok", "'GPUSVD_STATUS_UNKNOWN'")
OVER_STATUS = (OVER, "gpusvdGetStatusName: argument status = {v} does not fit the C type int ")
STATUS_NAME = {
    "-1": UNKNOWN, "0": ("ok", "'GPUSVD_STATUS_SUCCESS'"),
    "6": ("ok", "'GPUSVD_STATUS_INTERNAL_ERROR'"), "7": UNKNOWN, "2**31-1": UNKNOWN,
    "-2**31": UNKNOWN, "np.int32(-1)": UNKNOWN,
    "np.int64(2)": ("ok", "'GPUSVD_STATUS_ALLOC_FAILED'"),
    "np.uint8(3)": ("ok", "'GPUSVD_STATUS_NO_DEVICE'"),
    "np.array(2)": ("ok", "'GPUSVD_STATUS_ALLOC_FAILED'"),
    # 2**32 + 5 would read as status 5 (EXECUTION_FAILED) if it were wrapped.
    "2**31": OVER_STATUS, "2**32+5": OVER_STATUS, "2**63-1": OVER_STATUS, "2**63": OVER_STATUS,
    "-2**63": OVER_STATUS, "-2**63-1": OVER_STATUS, "2**64+3": OVER_STATUS,
    "-(2**64)+3": OVER_STATUS, "np.uint64(2**64-1)": OVER_STATUS,
    "True": BOOL, "False": BOOL, "np.True_": BOOL,
    "2.0": NOT_INT, "np.float64(2)": NOT_INT, "'2'": NOT_INT, "None": NOT_INT,
}


def test_status_name_boundaries():
    run_table("h = gpusvd.Handle()", "h.status_name(V)", STATUS_NAME)


def test_child_detects_a_crash():
    """The harness itself: a child that dies must fail the test, not pass it."""
    with pytest.raises(AssertionError, match="child interpreter died"):
        run_child("import ctypes", "ctypes.string_at(0)", ["0"])


# ----------------------------------------------------------------------------------------------
# The shared helper, type by type
# ----------------------------------------------------------------------------------------------

# value -> accepted by ("int", "int64_t", "size_t", "void *")
_FITS = {
    -1: (True, True, False, False),
    0: (True, True, True, True),
    2 ** 31 - 1: (True, True, True, True),
    2 ** 31: (False, True, True, True),
    -2 ** 31: (True, True, False, False),
    -2 ** 31 - 1: (False, True, False, False),
    2 ** 63 - 1: (False, True, True, True),
    2 ** 63: (False, False, True, True),
    -2 ** 63: (False, True, False, False),
    -2 ** 63 - 1: (False, False, False, False),
    2 ** 64 - 1: (False, False, True, True),
    2 ** 64: (False, False, False, False),
    2 ** 64 + 3: (False, False, False, False),
    -(2 ** 64) + 3: (False, False, False, False),
}
_CTYPE_NAMES = ("int", "int64_t", "size_t", "void *")


@pytest.mark.parametrize("ctype", _CTYPE_NAMES)
@pytest.mark.parametrize("value", sorted(_FITS))
def test_c_integer_ranges(ctype, value):
    fits = _FITS[value][_CTYPE_NAMES.index(ctype)]
    if fits:
        assert _checks.c_integer(value, "x", ctype, "f") == value
    else:
        with pytest.raises(OverflowError, match=r"^f: argument x = %d does not fit the C "
                           r"type %s \(range" % (value, re.escape(ctype))):
            _checks.c_integer(value, "x", ctype, "f")
    # numpy integer scalars take the same path (operator.index), where numpy can hold them
    for nptype in (np.int64, np.uint64):
        info = np.iinfo(nptype)
        if info.min <= value <= info.max:
            if fits:
                assert _checks.c_integer(nptype(value), "x", ctype, "f") == value
            else:
                with pytest.raises(OverflowError):
                    _checks.c_integer(nptype(value), "x", ctype, "f")


def test_c_integer_matches_ctypes_sizes():
    """The ranges are the platform's: ctypes' round trip is exact inside and wraps outside."""
    for name, ct in (("int", ctypes.c_int), ("int64_t", ctypes.c_int64),
                     ("size_t", ctypes.c_size_t), ("void *", ctypes.c_void_p)):
        lo, hi = _checks.C_INTEGERS[name]
        for v in (lo, hi):
            assert (ct(v).value or 0) == v
        assert (ct(hi + 1).value or 0) != hi + 1  # what the check exists for


@pytest.mark.parametrize("value,exc", [
    (True, TypeError), (False, TypeError), (np.True_, TypeError), (np.array(True), TypeError),
    (1.0, TypeError), (np.float32(1), TypeError), (1 + 0j, TypeError), ("1", TypeError),
    (b"1", TypeError), (None, TypeError), ([1], TypeError), (np.array([1]), TypeError),
    (ctypes.c_int(1), TypeError)])
def test_c_integer_types(value, exc):
    for ctype in _CTYPE_NAMES:
        with pytest.raises(exc, match="^f: argument x must be an integer"):
            _checks.c_integer(value, "x", ctype, "f")


def test_c_integer_index_protocol():
    class Idx:
        def __index__(self):
            return 2 ** 31

    assert _checks.c_integer(Idx(), "x", "int64_t", "f") == 2 ** 31
    with pytest.raises(OverflowError):
        _checks.c_integer(Idx(), "x", "int", "f")
    assert _checks.c_pointer(None, "p", "f") is None


# ----------------------------------------------------------------------------------------------
# The one call site: every integer argument of every routine
# ----------------------------------------------------------------------------------------------

HOST_ROUTINES = sorted(n for n in SIGNATURES if n.startswith("gpusvd_") and
                       not n.endswith("_gpu"))


def _zero_size_args(name, info):
    """Valid arguments of a zero-size call: dimensions, strides and enums 0, leading
    dimensions and batchCount 1, no arrays but info (the library sets info[0] = 0)."""
    args = []
    for arg, ctype in SIGNATURES[name][1:]:
        if ctype == "void *":
            args.append(info.ctypes.data if arg == "info" else None)
        elif arg.startswith("ld") or arg == "batchCount":
            args.append(1)
        else:
            args.append(0)
    return args


@pytest.mark.parametrize("name", HOST_ROUTINES)
def test_every_routine_argument_is_checked(name):
    """Each integer argument, shifted by 2**bits of its C type, wraps to the same valid value:
    without the check the call would succeed. It must raise before reaching the library."""
    info = np.full(1, -7, np.int32)
    args = _zero_size_args(name, info)
    with gpusvd.Handle("cpu") as h:
        f = routine(name[8:], np.dtype({"s": np.float32, "d": np.float64, "c": np.complex64,
                                        "z": np.complex128}[name[7]]))
        assert f.__name__ == name
        h.call(f, *args)
        assert info[0] == 0  # the valid call reached the library
        checked = 0
        for i, (arg, ctype) in enumerate(SIGNATURES[name][1:]):
            bits = 64 if ctype in ("int64_t", "void *") else 32
            if ctype not in ("int64_t", "void *") and not ctype.startswith("gpusvd"):
                raise AssertionError("unexpected C type %s" % ctype)
            base = args[i] or 0
            for bad in (base + 2 ** bits, base - 2 ** bits):
                if ctype == "void *" and bad < 0 and base == 0:
                    continue  # NULL - 2**64 is covered by the positive shift
                info[0] = -7
                trial = list(args)
                trial[i] = bad
                with pytest.raises(OverflowError, match=r"^%s: argument %s = %d does not fit"
                                   % (name, arg, bad)):
                    h.call(f, *trial)
                assert info[0] == -7  # the library was not called
            if ctype != "void *":
                for bad, exc in ((float(base), TypeError), (bool(base), TypeError),
                                 (str(base), TypeError)):
                    trial = list(args)
                    trial[i] = bad
                    with pytest.raises(exc, match="argument %s must be an integer" % arg):
                        h.call(f, *trial)
            checked += 1
        assert checked == len(args)


def test_gpu_forms_share_the_host_signatures():
    for name in HOST_ROUTINES:
        assert SIGNATURES[name + "_gpu"] == SIGNATURES[name]
        twin = {"s": "d", "d": "s", "c": "z", "z": "c"}[name[7]]  # same element kind
        assert SIGNATURES[name] == SIGNATURES[name[:7] + twin + name[8:]]


def test_check_args_refuses_wrong_arity():
    with pytest.raises(TypeError, match="takes 3 arguments, 2 given"):
        check_args("gpusvdGetJacobiStats", (None, None))


def _header():
    """gpusvd.h of the installed tree (PREFIX/include beside PREFIX/lib), else the source
    tree's."""
    lib = os.path.realpath(gpusvd.library_path())
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(os.path.dirname(os.path.dirname(lib)), "include", "gpusvd.h"),
                 os.path.join(here, "..", "..", "..", "include", "gpusvd.h")):
        if os.path.exists(path):
            return path
    return None


def _normalise(ctype):
    ctype = ctype.replace("const ", "").strip()
    return "ptr" if "*" in ctype or ctype == "gpusvdHandle_t" else ctype


def test_signatures_match_the_header():
    """The names and C types the checks use are those of gpusvd.h: an argument that became
    int64_t (or int) there would otherwise be checked against the wrong range."""
    path = _header()
    if path is None:
        pytest.skip("gpusvd.h not found next to the library or in the source tree")
    text = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
    protos = {}
    for m in re.finditer(r"GPUSVD_API\s+[\w\s\*]+?\b(\w+)\s*\(([^)]*)\)\s*;", text):
        params = [] if m.group(2).strip() == "void" else [
            p.strip() for p in m.group(2).split(",")]
        parsed = []
        for p in params:
            mm = re.match(r"(.*?)(\**)\s*(\w+)$", p.replace("*", " *").strip())
            ctype, stars, arg = mm.group(1), mm.group(2), mm.group(3)
            parsed.append((arg, _normalise(ctype + stars)))
        protos[m.group(1)] = parsed
    for name, sig in SIGNATURES.items():
        assert name in protos, "%s is not in gpusvd.h" % name
        ours = [(arg, _normalise(ctype)) for arg, ctype in sig]
        assert ours == protos[name], name


# ----------------------------------------------------------------------------------------------
# Dimensions from array shapes, and the other arguments of the public functions
# ----------------------------------------------------------------------------------------------

def _economy_svd(a):
    return gpusvd.svd(a, full_matrices=False)


@pytest.mark.parametrize("func,shape,dim", [
    (_economy_svd, (0, 2 ** 31), "n"), (_economy_svd, (2 ** 31, 0), "m"),
    (gpusvd.svdvals, (0, 2 ** 31), "n"), (gpusvd.svdvals, (3, 0, 2 ** 31), "n"),
    (gpusvd.qr, (0, 2 ** 31), "n"), (gpusvd.qr, (2 ** 31, 0), "m"),
    (gpusvd.svd_batched, (0, 4, 2 ** 31), "n"), (gpusvd.qr_batched, (0, 2 ** 31, 4), "m"),
    (lambda a: gpusvd.pca(a, 0), (2 ** 31, 0), "m")])
def test_dimensions_past_int32_reach_the_library_exactly(func, shape, dim):
    """A zero-size array with a dimension of 2**31 (numpy allows it) is passed unwrapped. The
    CPU backend refuses dimensions >= 2**31 (LAPACK's 32-bit integers) even for an empty
    problem, which gpusvd.h's zero-size rule says should succeed: either outcome is accepted
    here, but the library must have seen the exact dimension (svd and svdvals may pass the
    transpose, where m and n swap)."""
    try:
        out = func(np.empty(shape))
    except gpusvd.GpusvdError as exc:
        assert exc.status_name == "GPUSVD_STATUS_NOT_SUPPORTED"
        if func in (_economy_svd, gpusvd.svdvals):
            dim = "[mn]"
        assert re.search("argument %s = 2147483648 " % dim, exc.detail), exc.detail
    else:
        outs = (out if isinstance(out, tuple) else (out,) if isinstance(out, np.ndarray)
                else (out.components,))
        assert all(o.size == 0 for o in outs)


@pytest.mark.parametrize("shape", [(0, 2 ** 31 - 1), (2 ** 31 - 1, 0)])
def test_dimensions_at_int32_max_succeed(shape):
    u, s, vh = gpusvd.svd(np.empty(shape), full_matrices=False)
    m, n = shape
    assert (u.shape, s.shape, vh.shape) == ((m, 0), (0,), (0, n))


def test_string_and_handle_arguments():
    a = np.eye(3)
    for bad in (1, True, None, ["cpu"], b"cpu"):
        with pytest.raises(TypeError, match="backend must be a str"):
            gpusvd.Handle(backend=bad)
    with pytest.raises(ValueError, match="backend must be"):
        gpusvd.Handle(backend="CPU")
    for bad in (0, 1, True, None, ["mgs"]):
        with pytest.raises(TypeError, match="mode must be a str"):
            gpusvd.qr(a, mode=bad)
    for bad in (0, "cpu", object()):
        with pytest.raises(TypeError, match="handle must be a gpusvd.Handle"):
            gpusvd.svd(a, handle=bad)
    for bad in (0, True, None, ["mgs"]):
        with pytest.raises(TypeError, match="orth must be a str"):
            gpusvd.qr(a, orth=bad)
    q, r = gpusvd.qr(a, orth="mgs")
    np.testing.assert_allclose(q @ r, a, atol=1e-15)


def test_refused_values_leave_the_handle_unchanged():
    with gpusvd.Handle("cpu") as h:
        h.stream = 12345
        for bad in (-1, 2 ** 64, 2 ** 64 + 12345, 1.5):
            with pytest.raises((OverflowError, TypeError)):
                h.stream = bad
        assert h.stream == 12345
        h.stream = None
        assert h.stream == 0


# ----------------------------------------------------------------------------------------------
# dtypes
# ----------------------------------------------------------------------------------------------

# 0/1 data: every dtype below holds it exactly, so every result can be checked against float64.
_R = np.random.default_rng(2024)
A01 = (_R.random((7, 4)) < 0.5).astype(np.float64)
A01[np.arange(4), np.arange(4)] = 1.0
B01 = (_R.random((3, 5, 4)) < 0.5).astype(np.float64)
# cyclic permutations: normal, with the distinct eigenvalues 1, exp(+-2 pi i / 3)
P = np.roll(np.eye(3), 1, axis=0)
E01 = np.stack([P, P.T, np.eye(3)])
D01, F01 = np.array([1.0, 1.0, 0.0, 1.0, 1.0]), np.array([1.0, 0.0, 1.0, 1.0])


def _close(x, ref, dt, scale=1.0):
    np.testing.assert_allclose(np.asarray(x, np.float64) if not np.iscomplexobj(x) else x, ref,
                               rtol=0, atol=200 * eps(dt) * scale)


def _check_svd(a, out, dt):
    u, s, vh = out
    assert u.dtype == s.dtype == vh.dtype == dt
    _close(s, np.linalg.svd(A01, compute_uv=False), dt, 4)
    _close((u.astype(np.float64) * s) @ vh, A01, dt, 4)


def _check_svd_full(a, out, dt):
    u, s, vh = out
    assert u.dtype == s.dtype == vh.dtype == dt and u.shape == (7, 7) and vh.shape == (4, 4)
    _close(s, np.linalg.svd(A01, compute_uv=False), dt, 4)
    _close((u[:, :4].astype(np.float64) * s) @ vh, A01, dt, 4)
    _close(u.T.astype(np.float64) @ u, np.eye(7), dt, 4)


def _check_svdvals(a, out, dt):
    assert out.dtype == dt
    _close(out, np.linalg.svd(A01, compute_uv=False), dt, 4)


def _check_svd_batched(a, out, dt):
    u, s, vh = out
    assert u.dtype == s.dtype == vh.dtype == dt
    _close(s, np.linalg.svd(B01, compute_uv=False), dt, 4)
    _close(np.einsum("bik,bk,bkj->bij", u.astype(np.float64), s, vh), B01, dt, 4)


def _check_qr(a, out, dt):
    q, r = out
    assert q.dtype == r.dtype == dt
    ref = A01 if a.ndim == 2 else B01
    _close(q.astype(np.float64) @ r, ref, dt, 4)
    assert np.all(np.diagonal(r, axis1=-2, axis2=-1) >= 0)


def _sorted_eigs(w):
    return np.sort_complex(np.round(w, 5))


def _check_eig(a, out, dt):
    cdt = np.complex64 if dt == np.float32 else np.complex128
    w, v = out if isinstance(out, tuple) else (out, None)
    assert w.dtype == cdt
    ref = np.linalg.eigvals(E01)
    for b in range(3):
        np.testing.assert_allclose(_sorted_eigs(w[b]), _sorted_eigs(ref[b]), atol=1e-4)
    if v is not None:
        assert v.dtype == cdt
        _close(E01.astype(complex) @ v, v * w[:, None, :], dt, 10)


def _check_bdsvd(a, out, dt):
    u, s, vt = out
    assert u.dtype == s.dtype == vt.dtype == dt
    b = dense_bidiagonal(D01, F01, False)
    _close(s, sl.svdvals(b), dt, 4)
    _close((u.astype(np.float64) * s) @ vt, b, dt, 4)


def _check_pca(a, out, dt):
    assert out.components.dtype == out.explained_variance.dtype == dt
    xc = A01 - A01.mean(axis=0)
    _close(out.explained_variance, np.linalg.svd(xc, compute_uv=False)[:2] ** 2 / 6, dt, 4)
    _close(out.mean, A01.mean(axis=0), dt)


FUNCS = {
    "svd": (_economy_svd, A01, _check_svd),
    "svd_full": (gpusvd.svd, A01, _check_svd_full),
    "svdvals": (gpusvd.svdvals, A01, _check_svdvals),
    "eigvals": (gpusvd.eigvals, E01, _check_eig),
    "eig": (gpusvd.eig, E01, _check_eig),
    "svd_batched": (gpusvd.svd_batched, B01, _check_svd_batched),
    "qr": (gpusvd.qr, A01, _check_qr),
    "qr_batched": (gpusvd.qr_batched, B01, _check_qr),
    "eigvals_batched": (gpusvd.eigvals_batched, E01, _check_eig),
    "eig_batched": (gpusvd.eig_batched, E01, _check_eig),
    "bdsvd": (lambda d: gpusvd.bdsvd(d, _as(F01, d.dtype)), D01, _check_bdsvd),
    "pca": (lambda x: gpusvd.pca(x, 2), A01, _check_pca),
}

# dtype -> the dtype the result has
CONVERTED = {
    "float16": np.float32, "float32": np.float32, "float64": np.float64,
    ">f2": np.float32, ">f4": np.float32, ">f8": np.float64, "<f4": np.float32,
    "int8": np.float64, "int16": np.float64, "int32": np.float64, "int64": np.float64,
    "uint8": np.float64, "uint16": np.float64, "uint32": np.float64, "uint64": np.float64,
    ">i4": np.float64, ">u8": np.float64, "bool": np.float64,
}
# dtype -> what the TypeError says
REFUSED = {
    "object": "float, complex, integer or bool data expected",
    "U1": "float, complex, integer or bool data expected",
    "S1": "float, complex, integer or bool data expected",
    "datetime64[s]": "float, complex, integer or bool data expected",
    "timedelta64[s]": "float, complex, integer or bool data expected",
    "V8": "float, complex, integer or bool data expected",
}
if np.dtype(np.longdouble).itemsize > 8:
    # No silent loss of precision (numpy.linalg refuses it too), in either byte order.
    REFUSED["longdouble"] = "convert with .astype(np.float64)"
    REFUSED[np.dtype(np.longdouble).newbyteorder(">").str] = "convert with .astype(np.float64)"
    REFUSED["clongdouble"] = "convert with .astype(np.complex128)"
else:
    CONVERTED["longdouble"] = np.float64
# (complex64 and complex128 go to the complex routines: test_complex.py.)


def _as(data, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "V":
        return data.astype(np.float64).view(dtype)
    if dtype.kind in "USmM":
        return data.astype(np.int8).astype(dtype)
    return data.astype(dtype)


@pytest.mark.parametrize("func", sorted(FUNCS))
@pytest.mark.parametrize("dtype", sorted(CONVERTED))
def test_dtype_converted(func, dtype):
    f, data, check = FUNCS[func]
    a = _as(data, dtype)
    a0 = a.copy()
    check(a, f(a), np.dtype(CONVERTED[dtype]))
    np.testing.assert_array_equal(a, a0)
    assert a.dtype == a0.dtype


@pytest.mark.parametrize("func", sorted(FUNCS))
@pytest.mark.parametrize("dtype", sorted(REFUSED))
def test_dtype_refused(func, dtype):
    f, data, _ = FUNCS[func]
    a = _as(data, dtype)
    with pytest.raises(TypeError, match=re.escape(REFUSED[dtype])):
        f(a)


def test_bdsvd_mixed_dtypes():
    d32, e64 = D01.astype(np.float32), F01.astype(">f8")
    _check_bdsvd(None, gpusvd.bdsvd(d32, e64), np.dtype(np.float64))
    _check_bdsvd(None, gpusvd.bdsvd(d32, F01.astype(np.float16)), np.dtype(np.float32))
    with pytest.raises(TypeError, match="complex"):
        gpusvd.bdsvd(D01, F01.astype(np.complex128))


def test_float16_overflow_to_inf_is_caught():
    with np.errstate(over="ignore"):
        a = np.array([[1.0, 7e4], [2.0, 3.0]]).astype(np.float16)  # 7e4 -> inf in float16
    assert np.isinf(a[0, 1])
    with pytest.raises(ValueError, match="infs or NaNs"):
        gpusvd.svd(a)
    s, info = gpusvd.svd(a, compute_uv=False, check_finite=False, return_info=True)
    assert info == gpusvd.INFO_NONFINITE and np.isnan(s).all()


def test_object_array_of_numbers_is_refused_not_guessed():
    with pytest.raises(TypeError, match="unsupported dtype object"):
        gpusvd.svd(np.array([[1, 2.5], [3, 4]], dtype=object))
    with pytest.raises(TypeError, match="unsupported dtype object"):
        gpusvd.svd([[1, 2 ** 70], [3, 4]])  # too large for int64: numpy makes it object


# ----------------------------------------------------------------------------------------------
# Layouts, zero-size and 0-d
# ----------------------------------------------------------------------------------------------

def _unaligned(a):
    buf = np.zeros(a.nbytes + 1, np.uint8)
    out = np.ndarray(a.shape, a.dtype, buffer=buf, offset=1, order="F")
    out[...] = a
    assert not out.flags.aligned
    return out


def _readonly(a):
    a = a.copy()
    a.flags.writeable = False
    return a


def _strided(a):
    b = np.repeat(a, 2, axis=-1)[..., ::2]
    return np.repeat(b, 3, axis=-2)[..., ::3, :] if a.ndim >= 2 else b


def _reversed(a):
    """The same values with negative strides on the last one or two axes."""
    flip = (Ellipsis,) + (slice(None, None, -1),) * min(a.ndim, 2)
    return a[flip].copy()[flip]


def _overlapping(a):
    """A read-only view whose elements share memory: stride 0 along the batch axis (every
    matrix the first) or, for 1-D, along the vector; for 2-D a Hankel view (strides (s, s)) over
    a random vector. The values differ from `a`'s, so results are compared with those of a
    contiguous copy."""
    if a.ndim != 2:
        return np.broadcast_to(a[:1], a.shape)
    m, n = a.shape
    buf = np.random.default_rng(5).standard_normal(m + n - 1).astype(a.dtype)
    s = buf.strides[0]
    return np.lib.stride_tricks.as_strided(buf, (m, n), (s, s), writeable=False)


LAYOUTS = {
    "C": np.ascontiguousarray, "F": np.asfortranarray, "strided": _strided,
    "reversed": _reversed, "readonly": _readonly, "unaligned": _unaligned,
    "overlapping": _overlapping,
}


@pytest.mark.parametrize("func", sorted(FUNCS))
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, ">f8"])
def test_layouts(func, layout, dtype):
    f, data, check = FUNCS[func]
    base = data.astype(dtype)
    a = LAYOUTS[layout](base)
    a0 = np.array(a)
    if layout == "overlapping":
        out, ref = f(a), f(np.ascontiguousarray(a))
        if isinstance(out, gpusvd.PCAResult):
            out = (out.components, out.explained_variance, out.scores, out.mean)
            ref = (ref.components, ref.explained_variance, ref.scores, ref.mean)
        outs = out if isinstance(out, tuple) else (out,)
        refs = ref if isinstance(ref, tuple) else (ref,)
        assert len(outs) == len(refs)
        for o, r in zip(outs, refs):
            assert o.shape == r.shape and o.dtype == r.dtype
            np.testing.assert_allclose(o, r, rtol=0, atol=100 * eps(o.real.dtype))
    else:
        np.testing.assert_array_equal(a, base)
        check(a, f(a), np.dtype(dtype).newbyteorder("="))
    np.testing.assert_array_equal(a, a0)


ZERO_SIZE = {
    "svd": [((0, 3), [(0, 0), (0,), (0, 3)]), ((3, 0), [(3, 0), (0,), (0, 0)]),
            ((0, 0), [(0, 0), (0,), (0, 0)])],
    "svd_batched": [((0, 3, 2), [(0, 3, 2), (0, 2), (0, 2, 2)]),
                    ((2, 0, 3), [(2, 0, 0), (2, 0), (2, 0, 3)]),
                    ((2, 3, 0), [(2, 3, 0), (2, 0), (2, 0, 0)])],
    "qr": [((0, 3), [(0, 0), (0, 3)]), ((3, 0), [(3, 0), (0, 0)])],
    "qr_batched": [((0, 3, 2), [(0, 3, 2), (0, 2, 2)]), ((2, 0, 3), [(2, 0, 0), (2, 0, 3)])],
    "eigvals_batched": [((0, 3, 3), [(0, 3)]), ((2, 0, 0), [(2, 0)])],
    "eig_batched": [((0, 3, 3), [(0, 3), (0, 3, 3)]), ((2, 0, 0), [(2, 0), (2, 0, 0)])],
}


@pytest.mark.parametrize("func", sorted(ZERO_SIZE))
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", ">f8", "int64", "bool"])
def test_zero_size(func, dtype):
    f = FUNCS[func][0]
    rdt = np.dtype(CONVERTED[dtype])
    for shape, shapes in ZERO_SIZE[func]:
        out = f(np.zeros(shape, dtype))
        outs = out if isinstance(out, tuple) else (out,)
        assert [o.shape for o in outs] == shapes
        for o in outs:
            assert o.dtype in (rdt, np.dtype(np.complex64 if rdt == np.float32 else
                                             np.complex128))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_zero_size_complex(dtype):
    real = np.finfo(dtype).dtype
    u, s, vh = gpusvd.svd(np.zeros((0, 3), dtype))
    assert (u.shape, s.shape, vh.shape) == ((0, 0), (0,), (3, 3))
    assert (u.dtype, s.dtype, vh.dtype) == (dtype, real, dtype)
    q, r = gpusvd.qr(np.zeros((4, 0), dtype))
    assert (q.shape, r.shape, q.dtype, r.dtype) == ((4, 0), (0, 0), dtype, dtype)
    w = gpusvd.eigvals(np.zeros((2, 0, 0), dtype))
    assert w.shape == (2, 0) and w.dtype == dtype


@pytest.mark.parametrize("dtype", ["float16", ">f8", "int32", "bool"])
def test_zero_size_bdsvd_and_pca(dtype):
    u, s, vt = gpusvd.bdsvd(np.zeros(0, dtype), np.zeros(0, dtype))
    assert (u.shape, s.shape, vt.shape) == ((0, 0), (0,), (0, 0))
    assert s.dtype == CONVERTED[dtype]
    res = gpusvd.pca(np.ones((5, 0), dtype), 0)
    assert res.components.shape == (0, 0) and res.mean.shape == (0,)
    res = gpusvd.pca(np.ones((0, 3), dtype), 0)
    assert res.components.shape == (0, 3) and np.isnan(res.mean).all()
    res = gpusvd.pca(np.arange(6).reshape(3, 2).astype(dtype), 0)
    np.testing.assert_allclose(res.mean, np.arange(6).reshape(3, 2).astype(dtype)
                               .astype(np.float64).mean(axis=0))


_LINALG = [gpusvd.svd, gpusvd.svdvals, gpusvd.qr, gpusvd.eig, gpusvd.eigvals]
_BATCHED = [gpusvd.svd_batched, gpusvd.qr_batched, gpusvd.eig_batched, gpusvd.eigvals_batched]
_NOT_MATRICES = [np.float64(2.0), np.array(2.0), 3, np.complex128(1), "a", None, np.zeros(4)]


@pytest.mark.parametrize("func", _LINALG)
@pytest.mark.parametrize("x", _NOT_MATRICES)
def test_wrong_ndim(func, x):
    with pytest.raises(ValueError, match=r"expected a matrix \(m, n\) or a stack of matrices"):
        func(x)


@pytest.mark.parametrize("func", _BATCHED)
@pytest.mark.parametrize("x", _NOT_MATRICES + [np.zeros((2, 2))])
def test_wrong_ndim_batched(func, x):
    with pytest.raises(ValueError, match=r"expected a stack of matrices"):
        func(x)


@pytest.mark.parametrize("x", _NOT_MATRICES + [np.zeros((2, 2, 2))])
def test_wrong_ndim_pca(x):
    with pytest.raises(ValueError, match="expected a 2-D array"):
        gpusvd.pca(x, 0)


@pytest.mark.parametrize("d,e", [(np.float64(1), np.zeros(0)), (np.ones(2), np.float64(1)),
                                 (np.ones((2, 2)), np.ones(1)), (None, np.zeros(0))])
def test_bdsvd_wrong_ndim(d, e):
    with pytest.raises(ValueError, match="must be 1-D"):
        gpusvd.bdsvd(d, e)
