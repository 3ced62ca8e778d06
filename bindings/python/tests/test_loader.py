"""Where the package finds libgpusvd.so.0 (GPUSVD_LIBRARY as a file or a folder, the package
folder, the loader path) and NVIDIA's pip-installed cuBLAS, on fake folders and on shared
objects compiled here, so that none of it needs a GPU."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import gpusvd
from gpusvd import _lib


def real_library():
    return os.path.realpath(gpusvd.library_path())


def child_env(**extra):
    """The environment of a child interpreter that imports this same gpusvd package."""
    env = dict(os.environ)
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(gpusvd.__file__)))
    env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def run_python(code, **env):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=child_env(**env),
                          capture_output=True, text=True, timeout=120)


# -- libgpusvd.so.0 --------------------------------------------------------------------------

def test_the_loaded_library_is_the_first_candidate():
    env = os.environ.get("GPUSVD_LIBRARY")
    packaged = os.path.join(os.path.dirname(os.path.abspath(gpusvd.__file__)), _lib.SONAME)
    if env:
        expected = os.path.join(env, _lib.SONAME) if os.path.isdir(env) else env
    elif os.path.isfile(packaged):
        expected = packaged  # the wheel's copy
    else:
        pytest.skip("library found through the loader path: no file to compare with")
    assert os.path.samefile(gpusvd.library_path(), expected)


@pytest.mark.parametrize("form", ["file", "folder"])
def test_gpusvd_library_names_a_file_or_a_folder(form):
    # The loaded file itself (a wheel's copy finds its bundled libraries relative to its own
    # folder, so it is not copied or linked elsewhere).
    path = gpusvd.library_path()
    value = path if form == "file" else os.path.dirname(path)
    out = run_python("import gpusvd; print(gpusvd.library_path()); print(gpusvd.version())",
                     GPUSVD_LIBRARY=value)
    assert out.returncode == 0, out.stderr
    loaded, version = out.stdout.split()
    assert os.path.samefile(loaded, path)
    assert version == gpusvd.version()


def test_gpusvd_library_may_be_relative(tmp_path):
    value = os.path.relpath(os.path.dirname(gpusvd.library_path()), str(tmp_path))
    out = subprocess.run([sys.executable, "-c", "import gpusvd; print(gpusvd.library_path())"],
                         env=child_env(GPUSVD_LIBRARY=value), cwd=str(tmp_path),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert os.path.samefile(out.stdout.strip(), gpusvd.library_path())


def test_gpusvd_library_wins_over_the_package_folder(tmp_path):
    packaged = tmp_path / "pkg"
    packaged.mkdir()
    (packaged / _lib.SONAME).write_bytes(b"")
    assert _lib.candidates({"GPUSVD_LIBRARY": real_library()}, str(packaged)) == [
        real_library()]
    assert _lib.candidates({}, str(packaged)) == [str(packaged / _lib.SONAME), _lib.SONAME]
    assert _lib.candidates({"GPUSVD_LIBRARY": ""}, str(packaged))[0] == str(
        packaged / _lib.SONAME)
    assert _lib.candidates({}, str(tmp_path)) == [_lib.SONAME]


def test_a_library_in_the_package_folder_is_loaded(tmp_path):
    (tmp_path / _lib.SONAME).symlink_to(real_library())
    lib = _lib.load({}, str(tmp_path))
    assert os.path.samefile(_lib.file_of(lib.gpusvdGetVersion), real_library())


def test_gpusvd_library_naming_nothing_is_an_error(tmp_path):
    missing = str(tmp_path / "nowhere" / _lib.SONAME)
    with pytest.raises(_lib.LibraryNotFoundError, match="names no file or folder") as exc:
        _lib.load({"GPUSVD_LIBRARY": missing}, str(tmp_path))
    assert missing in str(exc.value)


def test_gpusvd_library_folder_without_the_library_is_an_error(tmp_path):
    with pytest.raises(_lib.LibraryNotFoundError,
                       match="is a folder without libgpusvd.so.0 in it") as exc:
        _lib.load({"GPUSVD_LIBRARY": str(tmp_path)})
    assert str(tmp_path) in str(exc.value)


def test_gpusvd_library_naming_a_file_that_is_no_library_is_an_error(tmp_path):
    bogus = tmp_path / _lib.SONAME
    bogus.write_text("not a shared object, and longer than an ELF header would be\n" * 4)
    with pytest.raises(_lib.LibraryNotFoundError, match="cannot load libgpusvd.so.0") as exc:
        _lib.load({"GPUSVD_LIBRARY": str(tmp_path)})
    # The loader's own reason, and no hint to set the variable that is already set.
    assert str(bogus) in str(exc.value) and "invalid ELF header" in str(exc.value)
    assert "set GPUSVD_LIBRARY" not in str(exc.value)


def test_import_works_without_the_library_and_first_use_says_why(tmp_path):
    out = run_python("""
        import gpusvd
        try:
            gpusvd.version()
        except gpusvd.LibraryNotFoundError as exc:
            print("LibraryNotFoundError:", exc)
        """, GPUSVD_LIBRARY=str(tmp_path / "missing"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("LibraryNotFoundError: gpusvd: GPUSVD_LIBRARY=")


# -- cuBLAS ----------------------------------------------------------------------------------

def test_cublas_major_is_read_from_the_library(tmp_path):
    built = tmp_path / "with.so"
    built.write_bytes(b"\x7fELF junk\x00libcublas.so\x00libcublas.so.13\x00more")
    assert _lib.cublas_major(str(built)) == 13
    plain = tmp_path / "without.so"
    plain.write_bytes(b"\x7fELF junk\x00libcublas.so.%d\x00")
    assert _lib.cublas_major(str(plain)) is None
    major = _lib.cublas_major(real_library())
    if "no CUDA backend" in gpusvd.build_info():
        assert major is None
        assert _lib.cublas_source() == "not used (this build has no CUDA backend)"
    else:
        assert major >= 12
        assert _lib.cublas_source().startswith("libcublas.so.%d from the " % major)


def fake_site(root, sub, major, files=("libcublas", "libcublasLt")):
    folder = root.joinpath("nvidia", *sub, "lib")
    folder.mkdir(parents=True)
    for stem in files:
        (folder / ("%s.so.%d" % (stem, major))).write_bytes(b"")
    return str(folder)


def test_nvidia_cublas_dir_layouts_and_order(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    cu13 = fake_site(b, ["cu13"], 13)            # CUDA 13 wheels: nvidia/cu13/lib
    old13 = fake_site(b, ["cublas"], 13)         # the per-library layout, same major
    cu12 = fake_site(c, ["cublas"], 12)          # CUDA 12 wheels: nvidia/cublas/lib
    fake_site(a, ["cu12"], 12, files=("libcublasLt",))  # no libcublas: not a match
    path = [str(a), str(b), str(c)]
    assert _lib.nvidia_cublas_dir(13, path) == cu13
    assert _lib.nvidia_cublas_dir(12, path) == cu12
    assert _lib.nvidia_cublas_dir(11, path) is None
    assert _lib.nvidia_cublas_dir(13, [str(c), str(b)]) == cu13
    os.remove(os.path.join(cu13, "libcublas.so.13"))
    assert _lib.nvidia_cublas_dir(13, path) == old13
    assert _lib.preload_cublas(11, path) == []


def compile_fake_cublas(folder, major):
    """libcublasLt.so.<major> and libcublas.so.<major> (which needs the first by soname), each
    with its soname, as NVIDIA's are."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the stand-in cuBLAS")
    lt_c = os.path.join(folder, "lt.c")
    blas_c = os.path.join(folder, "blas.c")
    with open(lt_c, "w") as f:
        f.write("int fake_cublaslt_major(void) { return %d; }\n" % major)
    with open(blas_c, "w") as f:
        f.write("int fake_cublaslt_major(void);\n"
                "int cublasCreate_v2(void *handle) { (void)handle; "
                "return fake_cublaslt_major(); }\n")
    lt = "libcublasLt.so.%d" % major
    subprocess.run([cc, "-shared", "-fPIC", "-Wl,-soname," + lt, "-o",
                    os.path.join(folder, lt), lt_c], check=True)
    subprocess.run([cc, "-shared", "-fPIC", "-Wl,-soname,libcublas.so.%d" % major, "-o",
                    os.path.join(folder, "libcublas.so.%d" % major), blas_c,
                    "-L" + folder, "-l:" + lt], check=True)


def test_preloaded_wheel_cublas_is_what_a_dlopen_by_soname_finds(tmp_path):
    # A major no real cuBLAS has, so the system's cannot answer for it.
    major = 97
    site = tmp_path / "site-packages"
    folder = fake_site(site, ["cu%d" % major], major, files=())
    compile_fake_cublas(folder, major)
    out = run_python("""
        import ctypes, sys
        from gpusvd import _lib
        name = "libcublas.so.%d"
        try:
            ctypes.CDLL(name)
            print("visible before the preload")
        except OSError:
            pass
        for path in _lib.preload_cublas(%d, [sys.argv[0] + "-not-a-folder", %r]):
            print("preloaded", path)
        # what libgpusvd does on its first GPU call: dlopen by soname, RTLD_LOCAL
        blas = ctypes.CDLL(name)
        print("answer", blas.cublasCreate_v2(None))
        print("from", _lib.file_of(blas.cublasCreate_v2))
        """ % (major, major, str(site)))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    lt, blas = (os.path.join(folder, "%s.so.%d" % (s, major))
                for s in ("libcublasLt", "libcublas"))
    assert lines == ["preloaded " + lt, "preloaded " + blas, "answer %d" % major,
                     "from " + blas]


def test_without_a_wheel_nothing_is_preloaded(tmp_path):
    out = run_python("""
        import sys
        from gpusvd import _lib
        print(_lib.preload_cublas(97, [%r]))
        """ % str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
