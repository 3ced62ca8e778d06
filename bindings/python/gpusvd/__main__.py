"""``python -m gpusvd info|demo``: what was loaded from where, and every routine on random data.

``info`` prints the package and library versions, the library file, its build, the backend
AUTO resolves to, the GPU (or why there is none) and where cuBLAS comes from; exit status 0.

``demo`` runs each routine once on random data on the default backend (``--backend`` to
choose) and prints LAPACK-style accuracy ratios against the limits the tests use; exit status
0 when every ratio is within its limit, 1 otherwise.
"""
import argparse
import ctypes
import os
import sys
import time

import numpy as np

#: Accuracy ratio limits (as in the test suite): SVD, QR with MGS2, eigenvalues, PCA.
LIMITS = {"svd": 50.0, "qr": 30.0, "eig": 20.0, "pca": 50.0}

_GPU_TAG = "; GPU: "
_CUDA_ERROR_NO_DEVICE = 100


def _driver_probe():
    """(driver CUDA version text or '', cuInit result or None, device count, load error)."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as exc:
        return "", None, 0, str(exc)
    version, count = ctypes.c_int(0), ctypes.c_int(0)
    text = ""
    if cuda.cuDriverGetVersion(ctypes.byref(version)) == 0 and version.value:
        text = "%d.%d" % (version.value // 1000, version.value % 1000 // 10)
    init = cuda.cuInit(0)
    if init == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        count.value = 0
    return text, init, count.value, ""


def gpu_line(build):
    """The GPU the library uses, or 'none: <why>' in plain words."""
    if "no CUDA backend" in build:
        return "none: this build of gpusvd has no CUDA backend"
    described = build.split(_GPU_TAG, 1)[1] if _GPU_TAG in build else ""
    if described and not described.startswith("no usable GPU"):
        return described
    version, init, count, load_error = _driver_probe()
    driver = "the NVIDIA driver" + (" for CUDA " + version if version else "")
    if load_error:
        return "none: no NVIDIA driver is installed (%s)" % load_error
    if init == _CUDA_ERROR_NO_DEVICE or (init == 0 and count == 0):
        hidden = os.environ.get("CUDA_VISIBLE_DEVICES")
        return "none: %s is installed but finds no GPU%s" % (
            driver, "" if hidden is None else " (CUDA_VISIBLE_DEVICES=%r may hide them)" % hidden)
    if init != 0:
        return "none: %s failed to initialise (cuInit error %d)" % (driver, init)
    return "none: " + (described or "the library found no usable GPU")


def info(out=sys.stdout):
    import gpusvd
    from gpusvd import _lib

    build = gpusvd.build_info()
    rows = [
        ("package", "%s (%s)" % (gpusvd.__version__, os.path.dirname(gpusvd.__file__))),
        ("library", "%s (%s)" % (gpusvd.version(), gpusvd.library_path())),
        ("build", build.split(_GPU_TAG, 1)[0]),
        ("backend AUTO ->", gpusvd.backend()),
        ("GPU", gpu_line(build)),
        ("cuBLAS", _lib.cublas_source(probe_system=True)),
    ]
    for name, value in rows:
        print("%-16s %s" % (name, value), file=out)
    return 0


# -- demo ----------------------------------------------------------------------------------------

def _norms(x):
    """Frobenius norm of each matrix of x (the last two axes), in float64."""
    x = np.asarray(x)
    x = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    return np.sqrt(np.sum(np.abs(x) ** 2, axis=(-2, -1)))


def _worst(num, den):
    """The largest ratio over a stack of matrices."""
    return float(np.max(np.asarray(num) / np.asarray(den)))


def _orth(q, eps):
    """|Q^T Q - I|_F / (k eps) for the columns of q, the worst matrix of a stack."""
    q = np.asarray(q, dtype=np.float64)
    k = q.shape[-1]
    gram = np.swapaxes(q, -1, -2) @ q
    return _worst(_norms(gram - np.eye(k)), max(k, 1) * eps)


def _svd_ratios(a, u, s, vh, eps):
    a64 = np.asarray(a, dtype=np.float64)
    m, n = a64.shape[-2:]
    k = min(m, n)
    u = np.asarray(u, dtype=np.float64)[..., :, :k]
    vh = np.asarray(vh, dtype=np.float64)[..., :k, :]
    recon = (u * np.asarray(s, dtype=np.float64)[..., None, :]) @ vh
    return {"resid": _worst(_norms(a64 - recon), _norms(a64) * max(m, n) * eps),
            "orthU": _orth(u, eps), "orthV": _orth(np.swapaxes(vh, -1, -2), eps)}


def _demo_svd(gpusvd, rng, dtype):
    a = rng.standard_normal((300, 200)).astype(dtype)
    return "svd", "300x200", lambda: gpusvd.svd(a), \
        lambda r: _svd_ratios(a, *r, np.finfo(dtype).eps), "svd"


def _demo_svd_batched(gpusvd, rng, dtype):
    a = rng.standard_normal((1000, 16, 16)).astype(dtype)
    return "svd_batched", "1000 x 16x16", lambda: gpusvd.svd_batched(a), \
        lambda r: _svd_ratios(a, *r, np.finfo(dtype).eps), "svd"


def _qr_ratios(a, q, r, eps):
    a64 = np.asarray(a, dtype=np.float64)
    m = a64.shape[-2]
    recon = np.asarray(q, dtype=np.float64) @ np.asarray(r, dtype=np.float64)
    return {"resid": _worst(_norms(a64 - recon), _norms(a64) * m * eps),
            "orthQ": _orth(q, eps)}


def _demo_qr(gpusvd, rng, dtype):
    a = rng.standard_normal((300, 200)).astype(dtype)
    return "qr", "300x200", lambda: gpusvd.qr(a), \
        lambda r: _qr_ratios(a, *r, np.finfo(dtype).eps), "qr"


def _demo_qr_batched(gpusvd, rng, dtype):
    a = rng.standard_normal((1000, 32, 16)).astype(dtype)
    return "qr_batched", "1000 x 32x16", lambda: gpusvd.qr_batched(a), \
        lambda r: _qr_ratios(a, *r, np.finfo(dtype).eps), "qr"


def _eig_ratios(a, w, v, eps):
    """Eigen-residual |A V - V W| and the trace (the sum of the eigenvalues), relative to
    n |A| eps: both hold for ill-conditioned eigenvalues too."""
    a64 = np.asarray(a, dtype=np.float64)
    n = a64.shape[-1]
    w, v = np.asarray(w), np.asarray(v)
    v = v / np.linalg.norm(v, axis=-2, keepdims=True)
    scale = _norms(a64) * n * eps
    trace = np.abs(w.sum(axis=-1) - np.trace(a64, axis1=-2, axis2=-1))
    return {"resid": _worst(_norms(a64 @ v - v * w[..., None, :]), scale),
            "trace": _worst(trace, scale)}


def _demo_eig_batched(gpusvd, rng, dtype):
    a = rng.standard_normal((1000, 8, 8)).astype(dtype)
    return "eig_batched", "1000 x 8x8", lambda: gpusvd.eig_batched(a), \
        lambda r: _eig_ratios(a, *r, np.finfo(dtype).eps), "eig"


def _bdsvd_ratios(d, e, u, s, vt, eps):
    b = np.diag(d.astype(np.float64)) + np.diag(e.astype(np.float64), 1)
    return _svd_ratios(b, u, s, vt, eps)


def _demo_bdsvd(gpusvd, rng, dtype):
    d = rng.standard_normal(200).astype(dtype)
    e = rng.standard_normal(199).astype(dtype)
    return "bdsvd", "n=200 upper", lambda: gpusvd.bdsvd(d, e), \
        lambda r: _bdsvd_ratios(d, e, *r, np.finfo(dtype).eps), "svd"


def _pca_ratios(x, p, k, eps):
    x64 = np.asarray(x, dtype=np.float64)
    m, n = x64.shape
    centred = x64 - x64.mean(axis=0)
    ref = np.linalg.svd(centred, compute_uv=False)[:k] ** 2 / (m - 1)
    comps = np.asarray(p.components, dtype=np.float64)
    var = np.abs(np.asarray(p.explained_variance, dtype=np.float64) - ref).max() / (
        ref[0] * max(m, n) * eps)
    return {"variance": var, "orthC": _orth(comps.T, eps)}


def _demo_pca(gpusvd, rng, dtype):
    x = (rng.standard_normal((500, 20)) @ rng.standard_normal((20, 20)) + 3.0).astype(dtype)
    return "pca", "500x20 k=5", lambda: gpusvd.pca(x, 5), \
        lambda r: _pca_ratios(x, r, 5, np.finfo(dtype).eps), "pca"


_DEMOS = (_demo_svd, _demo_svd_batched, _demo_qr, _demo_qr_batched, _demo_eig_batched,
          _demo_bdsvd, _demo_pca)


def demo(backend="auto", out=sys.stdout):
    import gpusvd

    handle = gpusvd.Handle(backend=backend)
    print("gpusvd %s demo: backend %s (resolves to %s), library %s"
          % (gpusvd.version(), backend, handle.backend, gpusvd.library_path()), file=out)
    print("limits: ratio < %s; time of one call after a warm-up call\n" % ", ".join(
        "%g (%s)" % (v, k) for k, v in LIMITS.items()), file=out)
    print("%-12s %-8s %-14s %9s  %-6s %s" % ("routine", "dtype", "size", "time ms", "result",
                                             "accuracy ratios"), file=out)
    rng = np.random.default_rng(2024)
    failed = 0
    rows = 0
    gpusvd_h = _WithHandle(gpusvd, handle)
    for make in _DEMOS:
        for dtype in (np.float64, np.float32):
            name, size, call, check, family = make(gpusvd_h, rng, dtype)
            rows += 1
            try:
                call()
                t0 = time.perf_counter()
                result = call()
                ms = (time.perf_counter() - t0) * 1e3
                ratios = check(result)
            except Exception as exc:  # a failing routine is a row of the table, not a crash
                failed += 1
                print("%-12s %-8s %-14s %9s  %-6s %s: %s" % (
                    name, np.dtype(dtype).name, size, "-", "ERROR", type(exc).__name__, exc),
                    file=out)
                continue
            ok = all(np.isfinite(v) and v < LIMITS[family] for v in ratios.values())
            failed += not ok
            print("%-12s %-8s %-14s %9.2f  %-6s %s" % (
                name, np.dtype(dtype).name, size, ms, "PASS" if ok else "FAIL",
                "  ".join("%s %.3g" % kv for kv in ratios.items())), file=out)
    handle.close()
    print("\n%d of %d within the limits" % (rows - failed, rows), file=out)
    return 0 if failed == 0 else 1


class _WithHandle:
    """The package's functions with handle= bound, so the demo runs on the chosen backend."""

    def __init__(self, module, handle):
        self._module, self._handle = module, handle

    def __getattr__(self, name):
        f = getattr(self._module, name)
        return lambda *args, **kw: f(*args, handle=self._handle, **kw)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m gpusvd", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", metavar="{info,demo}")
    sub.required = True
    sub.add_parser("info", help="versions, library file, build, backend, GPU, cuBLAS")
    d = sub.add_parser("demo", help="each routine on random data, with accuracy ratios")
    d.add_argument("--backend", choices=("auto", "cpu", "gpu"), default="auto",
                   help="the handle's backend (default: auto)")
    args = parser.parse_args(argv)
    import gpusvd
    try:
        if args.command == "info":
            return info()
        return demo(args.backend)
    except gpusvd.LibraryNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
