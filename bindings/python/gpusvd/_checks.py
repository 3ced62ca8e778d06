"""Checks on the scalars handed to the C library.

ctypes converts a Python int to a C integer by keeping its low bits, without a word: -(2**64) + 3
reaches an int64_t as 3, 2**32 + 5 reaches an int as 5, -1 reaches a void * as 0xff...ff. So
every integer and double that crosses ctypes is checked here first, and one that the C type
cannot hold exactly is refused. The conventions are numpy's:

- a non-integer where an integer is expected (float, str, None, ...) raises TypeError; integers
  are taken through operator.index (Python ints, numpy integer scalars, 0-d integer arrays),
  and bool / numpy.bool_ are refused, as numpy refuses them for dimensions (np.zeros(True));
- an integer outside the C type's range raises OverflowError (numpy: "Python integer ... out of
  bounds for int32");
- a value of the right type but not a valid setting raises ValueError.

Whether a representable value is valid for a routine (k <= min(m, n), maxSweeps in [1, 2^20],
...) is the library's own rule: it answers GPUSVD_STATUS_INVALID_VALUE with a message naming the
argument, raised as gpusvd.InvalidValueError, a ValueError.
"""
import ctypes
import math
import numbers
import operator

import numpy as np


def _bounds(ctype):
    bits = 8 * ctypes.sizeof(ctype)
    if ctype in (ctypes.c_void_p, ctypes.c_size_t):
        return 0, 2 ** bits - 1
    return -2 ** (bits - 1), 2 ** (bits - 1) - 1


#: C integer types that cross the ABI, with the name used in messages and their range.
C_INTEGERS = {
    "int": _bounds(ctypes.c_int),
    "int64_t": _bounds(ctypes.c_int64),
    "size_t": _bounds(ctypes.c_size_t),
    "void *": _bounds(ctypes.c_void_p),
}


def _is_bool(value):
    return isinstance(value, (bool, np.bool_)) or (
        isinstance(value, np.ndarray) and value.dtype == np.bool_)


def c_integer(value, name, ctype, where):
    """`value` as a Python int that the C type `ctype` ("int", "int64_t", "size_t", "void *")
    holds exactly; TypeError for a non-integer, OverflowError out of the type's range. The
    message names `where` (the function called), the argument and its value."""
    if _is_bool(value):
        raise TypeError("%s: argument %s must be an integer, not a bool (%r)"
                        % (where, name, value))
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError("%s: argument %s must be an integer, not %s (%r)"
                        % (where, name, type(value).__name__, value)) from None
    lo, hi = C_INTEGERS[ctype]
    if not lo <= v <= hi:
        raise OverflowError("%s: argument %s = %d does not fit the C type %s (range [%d, %d])"
                            % (where, name, v, ctype, lo, hi))
    return v


def c_pointer(value, name, where):
    """None (NULL) or an address as a Python int (see c_integer)."""
    return None if value is None else c_integer(value, name, "void *", where)


def c_double(value, name, where, valid=None, expected=None):
    """`value` as a finite Python float. TypeError for a non-number (or a bool); OverflowError
    for a number too large for a double (e.g. 10**400); ValueError for NaN or an infinity, or
    when `valid(v)` is false (`expected` says what is valid)."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value[()]
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError("%s: argument %s must be a real number, not %s (%r)"
                        % (where, name, type(value).__name__, value))
    try:
        v = float(value)
    except OverflowError:
        raise OverflowError("%s: argument %s = %r does not fit the C type double"
                            % (where, name, value)) from None
    if not math.isfinite(v):
        raise ValueError("%s: argument %s = %r is invalid: must be finite" % (where, name, v))
    if valid is not None and not valid(v):
        raise ValueError("%s: argument %s = %r is invalid: must be %s"
                         % (where, name, v, expected))
    return v
