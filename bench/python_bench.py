#!/usr/bin/env python3
"""Benchmark of the Python package: each routine on numpy arrays and on CuPy arrays in C and F
order, against the C call on the same data (the ctypes routine called directly on the same
pointer: the `_gpu` form for device arrays, the host form for numpy arrays) and against what a
user would otherwise call (numpy/scipy/scikit-learn on the host, cupy.linalg / torch.linalg on
the device). Writes one CSV row per (case, input, method).

    GPUSVD_LIBRARY=build/src/libgpusvd.so.0 PYTHONPATH=bindings/python \\
        python3 bench/python_bench.py --csv python_bench.csv [--scale 1] [--reps 5]

Cases at --scale 1 (float64): svd of a stack of 100000 32x32 matrices (U, S, Vh); eigvals of
500000 30x30; qr of one 1000000x64; pca of 1000000x64 (10 components); svd of one 1024x1024.
--scale S divides the batch and row counts by S and the side of the square SVD by S^(1/3).
Without a usable GPU (or CuPy) only the numpy rows run, on the backend the library picks.

The C-order rows of qr and pca also time the C call on the C-ordered data itself (row-major,
gpusvdSetMatrixLayout), and their x C column is relative to it; the other rows' x C is relative
to the C call on a per-matrix Fortran copy.

Times are medians of --reps runs after a warm-up, each bracketed by a device synchronisation;
inputs that a call destroys are restored outside the timed region. A counterpart whose single
run would exceed --budget seconds is timed on a sub-batch and scaled linearly (noted).
"""
import argparse
import csv
import ctypes
import math
import os
import statistics
import sys
import time

import numpy as np

try:
    import gpusvd
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "bindings", "python"))
    import gpusvd
from gpusvd._lib import routine

FIELDS = ["case", "size", "dtype", "input", "method", "ms", "reps", "vs_c", "check", "note"]


# ----------------------------------------------------------------------------------------------
# Array kinds: numpy on the host, CuPy on the device (torch through DLPack for its counterpart)
# ----------------------------------------------------------------------------------------------

class Host:
    name = "numpy"
    device = False

    def put(self, a, order):
        """A new copy of the host array a: C order or per-matrix Fortran order."""
        if order == "C":
            return np.array(a, order="C")
        return np.array(a.swapaxes(-1, -2), order="C").swapaxes(-1, -2)

    def sync(self):
        pass

    def host(self, x):
        return np.asarray(x)

    def ptr(self, x):
        return x.ctypes.data

    def empty(self, shape, dtype, order="C"):
        return np.empty(shape, dtype, order=order)

    def copyto(self, dst, src):
        np.copyto(dst, src)


class Cupy(Host):
    name = "cupy"
    device = True

    def __init__(self, cp):
        self.cp = cp

    def put(self, a, order):
        x = self.cp.asarray(np.ascontiguousarray(a))
        return x if order == "C" else per_matrix_f(self.cp, x)

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def host(self, x):
        return self.cp.asnumpy(x)

    def ptr(self, x):
        return x.data.ptr

    def empty(self, shape, dtype, order="C"):
        return self.cp.empty(shape, dtype, order=order)

    def copyto(self, dst, src):
        self.cp.copyto(dst, src)


def per_matrix_f(xp, a):
    """a with each matrix column-major and the matrices one after the other."""
    return xp.ascontiguousarray(a.swapaxes(-1, -2)).swapaxes(-1, -2)


def device_kind():
    """(Cupy adapter, torch module or None), or (None, None, reason) without a usable GPU."""
    if "no CUDA backend" in gpusvd.build_info():
        return None, None, "library built without CUDA"
    try:
        import cupy as cp
        if cp.cuda.runtime.getDeviceCount() < 1:
            return None, None, "no CUDA device"
    except Exception as exc:  # no CuPy, or no usable device
        return None, None, "no CuPy/GPU (%s)" % type(exc).__name__
    try:
        import torch
        torch = torch if torch.cuda.is_available() else None
    except ImportError:
        torch = None
    return Cupy(cp), torch, ""


# ----------------------------------------------------------------------------------------------
# Timing
# ----------------------------------------------------------------------------------------------

def measure(fn, sync, reps, budget, setup=None):
    """(median ms, runs): fn() timed between synchronisations after one warm-up run; setup()
    (untimed) before each run. Stops early once `budget` seconds have been spent."""
    if setup:
        setup()
    sync()
    fn()
    sync()
    times = []
    start = time.perf_counter()
    for _ in range(reps):
        if setup:
            setup()
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - start > budget:
            break
    return statistics.median(times) * 1e3, len(times)


def measure_scaled(fn_of, a, sync, reps, budget):
    """A counterpart on a stack a (batch first): (ms, runs, note). It runs on a sub-batch of
    a when the whole would take longer than `budget` seconds, and is scaled linearly."""
    batch = a.shape[0] if a.ndim == 3 else 1
    if batch <= 1:
        fn = fn_of(a)
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        once = time.perf_counter() - t0
        if once > budget:
            return once * 1e3, 1, "one run (> budget)"
        ms, runs = measure(fn, sync, reps, budget)
        return ms, runs, ""
    probe = max(1, min(batch, 100))
    fn = fn_of(a[:probe])
    fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    est = (time.perf_counter() - t0) * batch / probe
    sub = batch if est <= budget else max(probe, int(batch * budget / max(est, 1e-9)))
    ms, runs = measure(fn_of(a[:sub]), sync, reps, budget)
    if sub == batch:
        return ms, runs, ""
    return ms * batch / sub, runs, "extrap. from %d" % sub


# ----------------------------------------------------------------------------------------------
# The C calls, straight through ctypes on the arrays' pointers
# ----------------------------------------------------------------------------------------------

def c_function(name, dtype, device):
    return routine(name, np.dtype(dtype), device)


def c_call(kind, name, dtype, *args, row_major=False):
    """A closure calling the library routine `name` with the default handle (the one the
    package uses, on the same stream) and `args`, arrays passed as their pointers (and kept
    alive by the closure); raises on a non-SUCCESS status. row_major: the call runs with the
    handle's matrix layout row-major (gpusvdSetMatrixLayout), set and reset around it."""
    f = c_function(name, dtype, kind.device)
    h = gpusvd.default_handle().ptr
    lib = gpusvd.get_lib()
    arrays = [x for x in args if hasattr(x, "shape")]
    args = [kind.ptr(x) if hasattr(x, "shape") else x for x in args]

    def run():
        if row_major:
            lib.gpusvdSetMatrixLayout(h, 1)
        try:
            status = f(h, *args)
        finally:
            if row_major:
                lib.gpusvdSetMatrixLayout(h, 0)
        if status != 0:
            raise RuntimeError("%s returned status %d: %s" % (
                f.__name__, status, lib.gpusvdGetErrorMessage(h).decode()))
    run.routine = f.__name__ + (" row-major" if row_major else "")
    run.arrays = arrays
    return run


def has_row_major():
    """Whether the loaded library takes row-major matrices (gpusvdSetMatrixLayout)."""
    return hasattr(gpusvd.get_lib(), "gpusvdSetMatrixLayout")


def outputs(kind, dtype, *shapes):
    return [kind.empty(s, dtype) for s in shapes]


# ----------------------------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------------------------

class Case:
    """One routine at one size: how gpusvd is called, the C call and the counterparts."""
    destroys = True  # the routine overwrites its input (overwrite_a applies)

    def __init__(self, scale, dtype):
        self.dtype = np.dtype(dtype)

    def data(self, rng):
        return rng.standard_normal(self.shape).astype(self.dtype)


class SvdBatched(Case):
    name = "svd (stack)"

    def __init__(self, scale, dtype):
        super().__init__(scale, dtype)
        self.shape = (max(1, round(100000 / scale)), 32, 32)
        self.size = "%d x %dx%d" % self.shape

    def gpusvd(self, a, **kw):
        return gpusvd.svd(a, full_matrices=False, **kw)

    def c(self, kind, w):
        b, m, n = self.shape
        # column-major m x k and n x k per matrix (k = n): C arrays (b, k, m) and (b, k, n)
        s, u, v = outputs(kind, self.dtype, (b, n), (b, n, m), (b, n, n))
        info = kind.empty((b,), np.int32)
        return c_call(kind, "gesvj_batched", self.dtype, 1, 1, m, n, w, m, m * n,
                      s, n, u, m, m * n, v, n, n * n, b,
                      info)

    def others(self, kind, torch):
        if not kind.device:
            return [("numpy.linalg.svd", lambda a: lambda: np.linalg.svd(a, False))]
        cp = kind.cp
        out = [("cupy.linalg.svd", lambda a: lambda: cp.linalg.svd(a, False))]
        if torch is not None:
            out.append(("torch.linalg.svd",
                        lambda a: (lambda t: lambda: torch.linalg.svd(t, False))(
                            torch.from_dlpack(a))))
        return out

    def check(self, kind, res, a):
        s = kind.host(res[1])[:100]
        ref = np.linalg.svd(kind.host(a[:100]).astype(np.float64), compute_uv=False)
        return float(np.max(np.abs(s - ref) / ref[:, :1]))


class EigvalsBatched(Case):
    name = "eigvals (stack)"

    def __init__(self, scale, dtype):
        super().__init__(scale, dtype)
        self.shape = (max(1, round(500000 / scale)), 30, 30)
        self.size = "%d x %dx%d" % self.shape

    def gpusvd(self, a, **kw):
        return gpusvd.eigvals(a, **kw)

    def c(self, kind, w):
        b, n, _ = self.shape
        wr, wi = outputs(kind, self.dtype, (b, n), (b, n))
        info = kind.empty((b,), np.int32)
        return c_call(kind, "geev_batched", self.dtype, 0, n, w, n, n * n,
                      wr, wi, n, None, n, n * n, b, info)

    def others(self, kind, torch):
        if not kind.device:
            return [("numpy.linalg.eigvals", lambda a: lambda: np.linalg.eigvals(a))]
        out = []
        if hasattr(kind.cp.linalg, "eigvals"):
            out.append(("cupy.linalg.eigvals", lambda a: lambda: kind.cp.linalg.eigvals(a)))
        if torch is not None:
            out.append(("torch.linalg.eigvals",
                        lambda a: (lambda t: lambda: torch.linalg.eigvals(t))(
                            torch.from_dlpack(a))))
        return out

    def check(self, kind, res, a):
        w = np.sort_complex(kind.host(res)[:100])
        ref = np.sort_complex(np.linalg.eigvals(kind.host(a[:100]).astype(np.float64)))
        return float(np.max(np.abs(w - ref)) / np.max(np.abs(ref)))


class QrTall(Case):
    name = "qr"

    def __init__(self, scale, dtype):
        super().__init__(scale, dtype)
        self.shape = (max(64, round(1000000 / scale)), 64)
        self.size = "%dx%d" % self.shape

    def gpusvd(self, a, **kw):
        return gpusvd.qr(a, **kw)

    def c(self, kind, w):
        m, n = self.shape
        r = kind.empty((n, n), self.dtype, order="F")
        info = kind.empty((1,), np.int32)
        return c_call(kind, "geqrf_mgs", self.dtype, 1, m, n, w, m, r, n,
                      info)

    def c_row(self, kind, w):
        """The C call on C-ordered (row-major) data: A and R row-major, lda = ldr = n."""
        m, n = self.shape
        r = kind.empty((n, n), self.dtype)
        info = kind.empty((1,), np.int32)
        return c_call(kind, "geqrf_mgs", self.dtype, 1, m, n, w, n, r, n, info, row_major=True)

    def others(self, kind, torch):
        if not kind.device:
            return [("numpy.linalg.qr", lambda a: lambda: np.linalg.qr(a))]
        out = [("cupy.linalg.qr", lambda a: lambda: kind.cp.linalg.qr(a))]
        if torch is not None:
            out.append(("torch.linalg.qr",
                        lambda a: (lambda t: lambda: torch.linalg.qr(t))(torch.from_dlpack(a))))
        return out

    def check(self, kind, res, a):
        r = np.abs(kind.host(res[1]))
        ref = np.abs(np.linalg.qr(kind.host(a).astype(np.float64), mode="r"))
        return float(np.max(np.abs(r - ref)) / np.max(ref))


class Pca(Case):
    name = "pca"
    destroys = False
    k = 10

    def __init__(self, scale, dtype):
        super().__init__(scale, dtype)
        self.shape = (max(64, round(1000000 / scale)), 64)
        self.size = "%dx%d k=%d" % (self.shape + (self.k,))

    def data(self, rng):
        m, n = self.shape
        return (rng.standard_normal(self.shape) * np.geomspace(10, 0.1, n) + 5).astype(
            self.dtype)

    def gpusvd(self, a, **kw):
        return gpusvd.pca(a, self.k)

    def c(self, kind, w):
        m, n = self.shape
        k = self.k
        comp = kind.empty((k, n), self.dtype)  # n x k column-major
        ev, mean = outputs(kind, self.dtype, (k,), (n,))
        scores = kind.empty((k, m), self.dtype)  # m x k column-major
        info = kind.empty((1,), np.int32)
        return c_call(kind, "pca", self.dtype, m, n, w, m, k, comp, n,
                      ev, scores, m, mean, info)

    def c_row(self, kind, w):
        """The C call on C-ordered (row-major) X: components (n x k) and scores (m x k)
        row-major too."""
        m, n = self.shape
        k = self.k
        comp = kind.empty((n, k), self.dtype)
        ev, mean = outputs(kind, self.dtype, (k,), (n,))
        scores = kind.empty((m, k), self.dtype)
        info = kind.empty((1,), np.int32)
        return c_call(kind, "pca", self.dtype, m, n, w, n, k, comp, k, ev, scores, k, mean,
                      info, row_major=True)

    def others(self, kind, torch):
        k = self.k
        if not kind.device:
            try:
                from sklearn.decomposition import PCA
            except ImportError:
                def cov_eigh(a):
                    xc = a - a.mean(axis=0)
                    return lambda: np.linalg.eigh(xc.T @ xc)
                return [("numpy centring + covariance + eigh", cov_eigh)]
            return [("sklearn PCA(%d).fit_transform" % k,
                     lambda a: lambda: PCA(k).fit_transform(a))]
        cp = kind.cp

        def cupy_pca(a):
            def run():
                xc = a - a.mean(axis=0)
                return cp.linalg.eigh(xc.T @ xc)
            return run
        return [("cupy centring + covariance + eigh", cupy_pca)]

    def check(self, kind, res, a):
        ev = kind.host(res.explained_variance)
        x = kind.host(a).astype(np.float64)
        xc = x - x.mean(axis=0)
        ref = np.linalg.eigvalsh(xc.T @ xc)[::-1][:self.k] / (x.shape[0] - 1)
        return float(np.max(np.abs(ev - ref) / ref[0]))


class SvdSquare(Case):
    name = "svd (one matrix)"

    def __init__(self, scale, dtype):
        super().__init__(scale, dtype)
        n = max(32, int(round(1024 / scale ** (1.0 / 3.0))))
        self.shape = (n, n)
        self.size = "%dx%d" % self.shape

    def gpusvd(self, a, **kw):
        return gpusvd.svd(a, full_matrices=False, **kw)

    def c(self, kind, w):
        m, n = self.shape
        s = kind.empty((n,), self.dtype)
        u, v = outputs(kind, self.dtype, (n, m), (n, n))
        info = kind.empty((1,), np.int32)
        return c_call(kind, "gesvj", self.dtype, 1, 1, m, n, w, m, s,
                      u, m, v, n, info)

    def others(self, kind, torch):
        return SvdBatched.others(self, kind, torch)

    def check(self, kind, res, a):
        s = kind.host(res[1])
        ref = np.linalg.svd(kind.host(a).astype(np.float64), compute_uv=False)
        return float(np.max(np.abs(s - ref)) / ref[0])


CASES = {"svd_batched": SvdBatched, "eigvals_batched": EigvalsBatched, "qr": QrTall,
         "pca": Pca, "svd": SvdSquare}


# ----------------------------------------------------------------------------------------------
# One case on one array kind
# ----------------------------------------------------------------------------------------------

def run_case(case, kind, torch, a_host, args, emit):
    sync = kind.sync
    fortran = per_matrix_f(np, a_host) if a_host.ndim == 3 else np.asfortranarray(a_host)
    # The C call on per-matrix Fortran data, restored before each run.
    pristine_f = kind.put(fortran, "F")
    work_f = kind.put(fortran, "F")
    call = case.c(kind, work_f)
    restore = (lambda: kind.copyto(work_f, pristine_f)) if case.destroys else None
    c_ms, c_runs = measure(call, sync, args.reps, args.budget, restore)
    del pristine_f
    row_c = hasattr(case, "c_row") and has_row_major()
    for order in ("C", "F"):
        label = "%s %s" % (kind.name, order)
        a = kind.put(a_host, order)
        base_ms = c_ms
        if order == "C" and row_c:
            # The routines that take row-major data: the C call on the C-ordered data itself,
            # the baseline of this order's rows (a copy of `a`, restored before each run).
            work_c = kind.put(a_host, "C")
            call_r = case.c_row(kind, work_c)
            restore_r = (lambda: kind.copyto(work_c, a)) if case.destroys else None
            base_ms, runs_r = measure(call_r, sync, args.reps, args.budget, restore_r)
            emit(case, label, "C " + call_r.routine, base_ms, runs_r, base_ms, "",
                 "on the C-ordered data")
            del work_c, call_r
        emit(case, label, "C " + call.routine, c_ms, c_runs, base_ms, "",
             "on a per-matrix Fortran copy")
        res = case.gpusvd(a)
        sync()
        check = "%.1e" % case.check(kind, res, a)
        del res
        ms, runs = measure(lambda: case.gpusvd(a), sync, args.reps, args.budget)
        emit(case, label, "gpusvd", ms, runs, base_ms, check, "")
        if case.destroys:
            work = kind.put(a_host, order)
            ms, runs = measure(lambda: case.gpusvd(work, overwrite_a=True), sync, args.reps,
                               args.budget, lambda: kind.copyto(work, a))
            emit(case, label, "gpusvd overwrite_a=True", ms, runs, base_ms, "", "")
            del work
        for name, fn_of in case.others(kind, torch):
            try:
                ms, runs, note = measure_scaled(fn_of, a, sync, args.reps, args.budget)
            except Exception as exc:  # a counterpart that cannot run this size
                emit(case, label, name, math.nan, 0, base_ms, "", "failed: %s" % (
                    str(exc).splitlines()[0][:80] if str(exc) else type(exc).__name__))
                continue
            emit(case, label, name, ms, runs, base_ms, "", note)
        del a
    del work_f


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--csv", default="python_bench.csv", help="output file (default %(default)s)")
    p.add_argument("--scale", type=float, default=1.0,
                   help="divide the sizes by this (default 1: the full sizes)")
    p.add_argument("--reps", type=int, default=5, help="timed runs per measurement")
    p.add_argument("--budget", type=float, default=5.0,
                   help="seconds per measurement before it stops (counterparts: sub-batch)")
    p.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    p.add_argument("--cases", default=",".join(CASES),
                   help="comma-separated subset of " + ", ".join(CASES))
    p.add_argument("--host", action="store_true", help="numpy rows only, even with a GPU")
    args = p.parse_args(argv)
    if args.scale <= 0 or args.reps < 1 or args.budget <= 0:
        p.error("--scale and --budget must be positive, --reps at least 1")
    names = [c for c in args.cases.split(",") if c]
    unknown = sorted(set(names) - set(CASES))
    if unknown:
        p.error("unknown case(s) %s; choose from %s" % (", ".join(unknown), ", ".join(CASES)))

    dev, torch, why = (None, None, "--host") if args.host else device_kind()
    kinds = [Host()] + ([dev] if dev is not None else [])
    print("gpusvd %s (%s), library %s; backend %s; %s" % (
        gpusvd.version(), gpusvd.library_path(), gpusvd.build_info(), gpusvd.backend(),
        "device rows on CuPy%s" % (" and torch" if torch else "") if dev else
        "numpy rows only: " + why), flush=True)
    rng = np.random.default_rng(0)
    rows = []

    def emit(case, label, method, ms, runs, c_ms, check, note):
        row = {"case": case.name, "size": case.size, "dtype": case.dtype.name, "input": label,
               "method": method, "ms": "%.4g" % ms if math.isfinite(ms) else "",
               "reps": runs, "vs_c": "%.3f" % (ms / c_ms) if math.isfinite(ms) else "",
               "check": check, "note": note}
        rows.append(row)
        print("%-18s %-16s %-10s %-34s %10s ms  x C %6s  %s %s" % (
            case.name, case.size, label, method, row["ms"], row["vs_c"], check, note),
            flush=True)

    for name in names:
        case = CASES[name](args.scale, args.dtype)
        a_host = case.data(rng)
        for kind in kinds:
            run_case(case, kind, torch, a_host, args, emit)
        del a_host
    with open(args.csv, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        w.writerows(rows)
    print("wrote %s (%d rows)" % (args.csv, len(rows)))


if __name__ == "__main__":
    main()
