"""Array adapters: one routine body works on numpy (host) arrays and on CuPy / PyTorch device
arrays. Matrices handed to the C library are column-major per matrix: a (..., r, c) array whose
rows are adjacent in memory (unit stride along axis -2), whose columns are `ld >= r` elements
apart, and whose matrices (the leading axes flattened) are `stride >= ld * c` elements apart
("per-matrix Fortran order"). A C-ordered (..., m, n) array is, read that way, the stack of the
transposes: (..., n, m) in per-matrix Fortran order (see stack_layout)."""
import contextlib
import functools
from typing import Any, Optional, Tuple

import numpy as np

#: What the public functions accept: anything numpy.asarray takes (host), or a CUDA array
#: (CuPy array, torch CUDA tensor, any __cuda_array_interface__ or DLPack CUDA producer).
ArrayLike = Any
#: What they return: an array of the input's kind (numpy.ndarray, cupy.ndarray, torch.Tensor).
Array = Any

_DLPACK_DEVICE_TYPES = (2, 13)  # kDLCUDA, kDLCUDAManaged


def result_dtype(dtype):
    """The native dtype the library computes in for input of `dtype`: float32, float64,
    complex64 and complex128 are kept; float16 becomes float32; integers and booleans become
    float64 (as scipy.linalg does); a non-native byte order ('>f8') is converted like its
    native twin. Everything else raises TypeError: longdouble and clongdouble (as
    numpy.linalg: no silent loss of precision), object, strings, datetimes, structured
    dtypes."""
    given = dtype = np.dtype(dtype)
    if dtype.kind in "fbiuc" and not dtype.isnative:
        dtype = dtype.newbyteorder("=")
    if dtype in (np.float32, np.float64, np.complex64, np.complex128):
        return dtype
    if dtype == np.float16:
        return np.dtype(np.float32)
    if dtype.kind in "biu":
        return np.dtype(np.float64)
    hint = ("convert with .astype(np.complex128)" if dtype.kind == "c" else
            "convert with .astype(np.float64)" if dtype.kind == "f" else
            "float, complex, integer or bool data expected")
    spelled = "%s (%s)" % (dtype, given.str) if given != dtype else str(dtype)
    raise TypeError("gpusvd: unsupported dtype %s (float32, float64, complex64 or complex128 "
                    "expected; %s)" % (spelled, hint))


def real_dtype(dtype):
    """The real dtype of `dtype`'s values: float32 for complex64, float64 for complex128 (the
    dtype of singular values and variances); real dtypes themselves."""
    return np.dtype(np.finfo(dtype).dtype)


def complex_dtype(dtype):
    return np.dtype(np.complex64 if dtype in (np.float32, np.complex64) else np.complex128)


def _is_torch_cuda(x):
    mod = type(x).__module__ or ""
    return mod.startswith("torch") and getattr(x, "is_cuda", False)


def _is_torch_cpu(x):
    mod = type(x).__module__ or ""
    return (mod.startswith("torch") and hasattr(x, "numpy")
            and not getattr(x, "is_cuda", True) and getattr(x.device, "type", "") == "cpu")


def host_input(x):
    """(x, None), or for a torch CPU tensor (its numpy view, a function taking results back to
    torch): the host path reads the tensor's memory without a copy (overwrite_a works in it,
    unless the tensor requires grad) and the results become torch tensors sharing the numpy
    outputs' memory."""
    if not _is_torch_cpu(x):
        return x, None
    a = x.detach().numpy()
    if x.requires_grad:
        a = a.view()
        a.flags.writeable = False
    return a, _to_torch


def _to_torch(res):
    import torch

    def conv(y):
        return torch.from_numpy(y) if isinstance(y, np.ndarray) else y
    if isinstance(res, tuple):
        items = [conv(y) for y in res]
        return type(res)(*items) if hasattr(res, "_fields") else tuple(items)
    return conv(res)


def is_device_array(x):
    """True for a CUDA array: a torch CUDA tensor, anything with __cuda_array_interface__, or
    a DLPack producer whose __dlpack_device__ is CUDA or CUDA managed memory."""
    if isinstance(x, np.ndarray):
        return False
    if type(x).__name__ == "ndarray" and (type(x).__module__ or "").startswith("cupy"):
        return True  # a CuPy array, known without building its __cuda_array_interface__ dict
    if _is_torch_cuda(x):
        return True
    try:
        if hasattr(x, "__cuda_array_interface__"):
            return True
    except Exception:  # a property that refuses (e.g. a tensor that requires grad)
        return True
    dev = getattr(x, "__dlpack_device__", None)
    if dev is not None:
        try:
            return int(dev()[0]) in _DLPACK_DEVICE_TYPES
        except Exception:
            return False
    return False


class HostOps:
    """numpy arrays; the C library's host forms."""
    device = False

    def asarray(self, x):
        return np.asarray(x)

    def raw_dtype(self, x):
        return np.dtype(x.dtype)

    def dtype(self, x):
        return result_dtype(self.raw_dtype(x))

    def aligned(self, x):
        return bool(x.flags.aligned)

    def empty(self, shape, dtype):
        shape = tuple(shape)
        if len(shape) < 2:
            return np.empty(shape, dtype)
        return np.empty(shape[:-2] + (shape[-1], shape[-2]), dtype).swapaxes(-1, -2)

    def rows(self, shape, dtype):
        """A C-ordered array (stacked vectors: singular values, eigenvalues, info)."""
        return np.empty(tuple(shape), dtype)

    def fcopy(self, x, dtype):
        out = self.empty(x.shape, dtype)
        out[...] = x
        return out

    def elem_strides(self, x):
        s = x.dtype.itemsize
        return tuple(st // s if st % s == 0 else None for st in x.strides)

    def ptr(self, x):
        return x.ctypes.data

    def assign(self, dst, src):
        dst[...] = src

    def swap(self, x):
        return x.swapaxes(-1, -2)

    def complex_values(self, wr, wi):
        w = np.empty(wr.shape, complex_dtype(wr.dtype))
        w.real, w.imag = wr, wi
        return w

    def complex_vectors(self, vr, wi):
        return _complex_vectors(np, vr, wi)

    def isfinite_all(self, x):
        return bool(np.isfinite(x).all())

    def writable(self, x):
        """Whether the library may write into x's memory (overwrite_a)."""
        return bool(x.flags.writeable)

    def qr_complete(self, x):
        """Q of the array library's complete QR of the (..., m, k) stack x: (..., m, m)."""
        return np.linalg.qr(x, mode="complete")[0]

    def concat(self, xs):
        return np.concatenate(xs, axis=-1)

    def identity(self, shape, dtype):
        return np.broadcast_to(np.eye(shape[-1], dtype=dtype), shape).copy()

    def to_host(self, x):
        return x

    @contextlib.contextmanager
    def on_device(self, x, handle):
        yield


def _complex_vectors(xp, vr, wi):
    """LAPACK's real layout -> complex eigenvectors: for a pair (j, j+1) with wi[j] > 0,
    v_j = VR[:, j] + i VR[:, j+1] and v_{j+1} = conj(v_j); real eigenvalues keep VR[:, j]."""
    pos = (wi > 0)[..., None, :]
    neg = (wi < 0)[..., None, :]
    nxt = xp.roll(vr, -1, axis=-1)
    prv = xp.roll(vr, 1, axis=-1)
    out = xp.empty(vr.shape, complex_dtype(vr.dtype))
    out.real = xp.where(neg, prv, vr)
    out.imag = xp.where(pos, nxt, xp.where(neg, -vr, 0))
    return out


class CupyOps(HostOps):
    """CuPy arrays (and any __cuda_array_interface__ / DLPack CUDA array, viewed through CuPy
    without a copy); the C library's _gpu forms."""
    device = True

    def __init__(self):
        import cupy
        self.cp = cupy

    def asarray(self, x):
        if isinstance(x, self.cp.ndarray):
            return x
        try:
            if hasattr(x, "__cuda_array_interface__"):
                return self.cp.asarray(x)  # zero-copy view
        except Exception:
            pass
        return self.cp.from_dlpack(x)  # zero-copy view

    def empty(self, shape, dtype):
        shape = tuple(shape)
        if len(shape) < 2:
            return self.cp.empty(shape, dtype)
        return self.cp.empty(shape[:-2] + (shape[-1], shape[-2]), dtype).swapaxes(-1, -2)

    def fcopy(self, x, dtype):
        out = self.empty(x.shape, dtype)
        if x.ndim >= 2 and x.dtype == out.dtype and x.size and self.swap(x).flags.c_contiguous:
            # already in the copy's memory order: one device memcpy on the current stream
            # (CuPy's element-wise copy of these swapped views runs well below the bandwidth)
            out.data.copy_from_device_async(x.data, x.nbytes,
                                            self.cp.cuda.get_current_stream())
        else:
            out[...] = x
        return out

    def aligned(self, x):
        return True

    def rows(self, shape, dtype):
        return self.cp.empty(tuple(shape), dtype)

    def ptr(self, x):
        return x.data.ptr

    def complex_values(self, wr, wi):
        return wr + 1j * wi if wr.dtype == np.float64 else (wr + 1j * wi).astype(np.complex64)

    def complex_vectors(self, vr, wi):
        return _complex_vectors(self.cp, vr, wi)

    def isfinite_all(self, x):
        return bool(self.cp.isfinite(x).all())

    def writable(self, x):
        return True

    def qr_complete(self, x):
        return self.cp.linalg.qr(x, mode="complete")[0]

    def concat(self, xs):
        return self.cp.concatenate(xs, axis=-1)

    def identity(self, shape, dtype):
        return self.cp.broadcast_to(self.cp.eye(shape[-1], dtype=dtype), shape).copy()

    def to_host(self, x):
        return self.cp.asnumpy(x)

    def device_id(self, x):
        return int(x.device.id)

    def new_handle(self, x):
        """A Handle created with x's device current: it belongs to that device."""
        from ._handle import Handle
        with self.cp.cuda.Device(x.device.id):
            return Handle()

    @contextlib.contextmanager
    def on_device(self, x, handle):
        """Run on x's device and on CuPy's current stream (so the _gpu call is ordered after
        the copies CuPy made and before whatever the caller does next)."""
        with self.cp.cuda.Device(x.device.id):
            with _stream(handle, self.cp.cuda.get_current_stream().ptr):
                yield


class TorchOps(HostOps):
    """PyTorch CUDA tensors; the C library's _gpu forms."""
    device = True

    def __init__(self):
        import torch
        self.torch = torch
        self._np2t = {np.dtype(np.float32): torch.float32, np.dtype(np.float64): torch.float64,
                      np.dtype(np.int32): torch.int32, np.dtype(np.complex64): torch.complex64,
                      np.dtype(np.complex128): torch.complex128}

    def asarray(self, x):
        return x

    def raw_dtype(self, x):
        t = self.torch
        table = {t.float32: np.float32, t.float64: np.float64, t.float16: np.float16,
                 t.int32: np.int32, t.int64: np.int64, t.bool: np.bool_,
                 t.complex64: np.complex64, t.complex128: np.complex128}
        if x.dtype not in table:
            raise TypeError("gpusvd: unsupported dtype %s (float32 or float64 expected)"
                            % x.dtype)
        return np.dtype(table[x.dtype])

    def aligned(self, x):
        return True

    def empty(self, shape, dtype):
        shape = tuple(shape)
        tdt = self._np2t[np.dtype(dtype)]
        if len(shape) < 2:
            return self.torch.empty(shape, dtype=tdt, device=self._device)
        return self.torch.empty(shape[:-2] + (shape[-1], shape[-2]), dtype=tdt,
                                device=self._device).transpose(-1, -2)

    def rows(self, shape, dtype):
        return self.torch.empty(tuple(shape), dtype=self._np2t[np.dtype(dtype)],
                                device=self._device)

    def fcopy(self, x, dtype):
        self._device = x.device
        out = self.empty(x.shape, dtype)
        out.copy_(x.detach())
        return out

    def elem_strides(self, x):
        return tuple(x.stride())

    def ptr(self, x):
        return x.data_ptr()

    def assign(self, dst, src):
        if isinstance(src, float):
            dst.fill_(src)
        else:
            dst.copy_(src)

    def swap(self, x):
        return x.transpose(-1, -2)

    def complex_values(self, wr, wi):
        return self.torch.complex(wr, wi)

    def complex_vectors(self, vr, wi):
        t = self.torch
        pos = (wi > 0).unsqueeze(-2)
        neg = (wi < 0).unsqueeze(-2)
        nxt = t.roll(vr, -1, dims=-1)
        prv = t.roll(vr, 1, dims=-1)
        re = t.where(neg, prv, vr)
        im = t.where(pos, nxt, t.where(neg, -vr, t.zeros_like(vr)))
        return t.complex(re.contiguous(), im.contiguous())

    def isfinite_all(self, x):
        return bool(self.torch.isfinite(x).all())

    def writable(self, x):
        # Writing behind autograd's back would corrupt the graph of a tensor that needs grad.
        return not x.requires_grad

    def qr_complete(self, x):
        return self.torch.linalg.qr(x, mode="complete")[0]

    def concat(self, xs):
        return self.torch.cat(xs, dim=-1)

    def identity(self, shape, dtype):
        eye = self.torch.eye(shape[-1], dtype=self._np2t[np.dtype(dtype)], device=self._device)
        return eye.expand(shape).clone()

    def to_host(self, x):
        return x.cpu().numpy()

    def device_id(self, x):
        return int(x.device.index)

    def new_handle(self, x):
        """A Handle created with x's device current: it belongs to that device."""
        from ._handle import Handle
        with self.torch.cuda.device(x.device):
            return Handle()

    @contextlib.contextmanager
    def on_device(self, x, handle):
        self._device = x.device
        with self.torch.cuda.device(x.device):
            with _stream(handle, self.torch.cuda.current_stream(x.device).cuda_stream):
                yield


@contextlib.contextmanager
def _stream(handle, stream):
    with handle._lock:
        # Nested in a block that already put `stream` in force (the lock is held, so no other
        # thread can have changed it): nothing to read, set or restore.
        if getattr(handle, "_stream_in_force", None) == stream:
            yield
            return
        old = handle.stream
        outer = getattr(handle, "_stream_in_force", None)
        if old != stream:
            handle.stream = stream
        handle._stream_in_force = stream
        try:
            yield
        finally:
            handle._stream_in_force = outer
            if old != stream:
                handle.stream = old


_HOST = HostOps()


def on_input_device(func):
    """Runs func with its first argument's device current when that is a CuPy (or
    __cuda_array_interface__ / DLPack) array: CuPy allocates on the current device, and every
    output, temporary and copy must be on the input's. (Torch tensors name their device.)"""
    @functools.wraps(func)
    def wrapper(a, *args, **kwargs):
        if not is_device_array(a) or _is_torch_cuda(a):
            return func(a, *args, **kwargs)
        ops, arr = ops_for(a)
        with ops.cp.cuda.Device(arr.device.id):
            return func(a, *args, **kwargs)
    return wrapper


def ops_for(x):
    """(ops, array): the adapter for x and x as an array of that adapter's kind."""
    if not is_device_array(x):
        return _HOST, np.asarray(x)
    if _is_torch_cuda(x):
        ops = TorchOps()
        ops._device = x.device
        return ops, x
    try:
        ops = CupyOps()
    except ImportError:
        raise TypeError("gpusvd: %s is a CUDA array; device arrays need CuPy (or a torch "
                        "tensor) to allocate the outputs" % type(x).__name__) from None
    return ops, ops.asarray(x)


def fortran_view(ops, x, dtype):
    """(array, ld) for a read-only 2-D input: x itself when it already is `dtype` with unit
    row stride and a column stride >= max(1, rows) (Fortran order, or a column slice of one);
    otherwise a Fortran-ordered copy. Returns (array, ld, copied)."""
    m, n = x.shape
    if ops.raw_dtype(x) == dtype and ops.aligned(x):
        st = ops.elem_strides(x)
        rs = 1 if m <= 1 else st[0]
        cs = max(1, m) if n <= 1 else st[1]
        if rs == 1 and cs is not None and cs >= max(1, m):
            return x, cs, False
    return ops.fcopy(x, dtype), max(1, m), True


def c_view(ops, x, dtype) -> Optional[Tuple[Any, int]]:
    """(x, ld) when the 2-D x can go to the library row-major as it is (gpusvdSetMatrixLayout):
    `dtype`, aligned, unit column stride, row stride ld >= max(1, columns) (C order, or a row
    slice of it); None otherwise."""
    m, n = x.shape
    if ops.raw_dtype(x) != dtype or not ops.aligned(x) or m == 0 or n == 0:
        return None
    st = ops.elem_strides(x)
    cs = 1 if n <= 1 else st[1]
    rs = max(1, n) if m <= 1 else st[0]
    if cs == 1 and rs is not None and rs >= max(1, n):
        return x, rs
    return None


def stack_layout(ops, x, dtype) -> Optional[Tuple[int, int]]:
    """(ld, stride) when the (..., r, c) array x can go to the library as it is: of `dtype`,
    aligned, rows adjacent (unit stride along axis -2), columns ld >= max(1, r) elements apart,
    and the matrices of the stack (the leading axes flattened in C order) stride >= ld * c
    elements apart, so that no two elements share memory. None otherwise. An array of size 0
    is always usable (nothing is read)."""
    if ops.raw_dtype(x) != dtype or not ops.aligned(x):
        return None
    *bshape, r, c = x.shape
    ld = max(1, r)
    if 0 in x.shape:
        return ld, ld * c
    st = ops.elem_strides(x)
    if any(s is None for s in st):
        return None
    *bst, rs, cs = st
    if r > 1 and rs != 1:
        return None
    if c > 1:
        ld = cs
        if ld < max(1, r):
            return None
    dims = [(size, s) for size, s in zip(bshape, bst) if size != 1]
    for (_, s0), (n1, s1) in zip(dims, dims[1:]):
        if s0 != s1 * n1:
            return None
    stride = dims[-1][1] if dims else ld * c
    if stride < ld * c:
        return None
    return ld, stride


def rows_adjacent(ops, x):
    """Whether x's elements are closer along its last axis than along axis -2 (C order and
    its slices): the layout that is the per-matrix Fortran order of the transposes."""
    st = ops.elem_strides(x)
    if x.ndim < 2 or st[-1] is None or st[-2] is None:
        return False
    return abs(st[-1]) < abs(st[-2])


def complete_basis(ops, q):
    """(..., m, m) orthogonal matrices whose first k columns are the (..., m, k) orthonormal q,
    the other m - k from the array library's complete QR of q (Householder: orthogonal to
    q's columns to working precision)."""
    m, k = q.shape[-2:]
    shape = tuple(q.shape[:-1]) + (m,)
    if k == m:
        return q
    if k == 0:
        return ops.identity(shape, ops.raw_dtype(q))
    if 0 in shape:
        return ops.empty(shape, ops.raw_dtype(q))
    return ops.concat([q, ops.qr_complete(q)[..., k:]])
