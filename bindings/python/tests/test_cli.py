"""python -m gpusvd info|demo, run as a user would (a child interpreter), checked against what
the package itself reports and against the accuracy limits."""
import os
import re
import subprocess
import sys

import gpusvd
from gpusvd import _lib
from gpusvd.__main__ import LIMITS


def run_module(*args, **env_extra):
    env = dict(os.environ)
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(gpusvd.__file__)))
    env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
    env.update(env_extra)
    return subprocess.run([sys.executable, "-m", "gpusvd", *args], env=env,
                          capture_output=True, text=True, timeout=600)


def test_info_reports_what_was_loaded():
    out = run_module("info")
    assert out.returncode == 0, out.stderr
    rows = dict((line[:16].strip(), line[17:]) for line in out.stdout.splitlines())
    assert list(rows) == ["package", "library", "build", "backend AUTO ->", "GPU", "cuBLAS"]
    assert rows["package"] == "%s (%s)" % (gpusvd.__version__,
                                           os.path.dirname(gpusvd.__file__))
    assert rows["library"] == "%s (%s)" % (gpusvd.version(), gpusvd.library_path())
    build = gpusvd.build_info()
    assert rows["build"] == build.split("; GPU: ")[0]
    assert rows["backend AUTO ->"] == gpusvd.backend()
    # AUTO resolves to the GPU exactly when there is a usable one.
    assert rows["GPU"].startswith("none: ") == (gpusvd.backend() == "cpu")
    if "no CUDA backend" in build:
        assert rows["GPU"] == "none: this build of gpusvd has no CUDA backend"
        assert rows["cuBLAS"] == "not used (this build has no CUDA backend)"
    else:
        major = _lib.cublas_major(gpusvd.library_path())
        assert rows["cuBLAS"].startswith("libcublas.so.%d " % major)


def test_demo_runs_every_routine_within_the_limits():
    out = run_module("demo")
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("gpusvd %s demo: backend auto (resolves to %s)"
                               % (gpusvd.version(), gpusvd.backend()))
    rows = [l for l in lines if re.match(r"^[a-z_]+ +float(32|64) ", l)]
    names = {(l.split()[0], l.split()[1]) for l in rows}
    routines = ["svd", "svd_batched", "qr", "qr_batched", "eig_batched", "bdsvd", "pca"]
    assert names == {(r, d) for r in routines for d in ("float32", "float64")}
    family = {"svd": "svd", "svd_batched": "svd", "bdsvd": "svd", "qr": "qr",
              "qr_batched": "qr", "eig_batched": "eig", "pca": "pca"}
    for row in rows:
        assert " PASS " in row, row
        ratios = re.findall(r"([A-Za-z]+) ([0-9.e+-]+|nan|inf)(?=  |$)", row.split(" PASS ")[1])
        assert len(ratios) >= 2, row
        for _, value in ratios:
            assert float(value) < LIMITS[family[row.split()[0]]], row
    assert lines[-1] == "%d of %d within the limits" % (len(rows), len(rows))


def test_demo_on_the_cpu_backend():
    out = run_module("demo", "--backend", "cpu")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "backend cpu (resolves to cpu)" in out.stdout.splitlines()[0]


def test_usage_errors_exit_2():
    for args in ((), ("frobnicate",), ("demo", "--backend", "tpu")):
        out = run_module(*args)
        assert out.returncode == 2, args
        assert "usage: python -m gpusvd" in out.stderr


def test_a_missing_library_is_one_line_and_exit_1(tmp_path):
    out = run_module("info", GPUSVD_LIBRARY=str(tmp_path / "none"))
    assert out.returncode == 1
    assert out.stdout == ""
    assert out.stderr.startswith("gpusvd: GPUSVD_LIBRARY=") and "Traceback" not in out.stderr
