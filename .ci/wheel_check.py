"""Checks of the Python distributions that .ci/wheel builds.

  wheel_check.py wheel WHEEL SOURCE_DIR cuda|cpu
                                          the repaired wheel: tag, files, bundled libraries,
                                          the CUDA backend compiled in (cuda) or not (cpu)
  wheel_check.py sdist SDIST SOURCE_DIR   the sdist holds exactly the tracked files
  wheel_check.py hidden SONAME...         each soname fails to load (run where they are hidden)
  wheel_check.py loaded SITE_PACKAGES     after loading gpusvd, every BLAS/LAPACK/Fortran
                                          runtime mapped into the process is a wheel's copy

Exits 1 with one line per problem.
"""
import ctypes
import email.parser
import os
import re
import subprocess
import sys
import tarfile
import zipfile

#: Libraries a manylinux system provides (PEP 600): never bundled.
SYSTEM = re.compile(r"^(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|ld-linux[-\w]*)"
                    r"\.so(\.\d+)*$")
#: What the library needs from outside the manylinux set; the wheel must carry each.
MUST_BUNDLE = ("libopenblas", "liblapacke", "libgfortran")

problems = []


def check(ok, message):
    if not ok:
        problems.append(message)


def project_version(source):
    text = open(os.path.join(source, "CMakeLists.txt")).read()
    return re.search(r"project\(gpusvd VERSION ([0-9.]+)", text).group(1)


def elf_dynamic(path):
    """(NEEDED sonames, RPATH/RUNPATH) of an ELF file, from readelf."""
    out = subprocess.run(["readelf", "-d", path], check=True, capture_output=True,
                         text=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    rpath = re.findall(r"\((?:RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[([^\]]*)\]", out)
    return needed, rpath


def check_wheel(path, source, backend):
    version = project_version(source)
    name = os.path.basename(path)
    m = re.fullmatch(r"gpusvd-(?P<v>[^-]+)-py3-none-(?P<plat>manylinux_2_\d+_x86_64)\.whl", name)
    check(m is not None, "wheel name %s is not gpusvd-V-py3-none-manylinux_2_N_x86_64.whl" % name)
    if m is None:
        return
    check(m["v"] == version, "wheel version %s, project version %s" % (m["v"], version))
    dist = "gpusvd-%s.dist-info" % version
    with zipfile.ZipFile(path) as z:
        names = [n for n in z.namelist() if not n.endswith("/")]
        wheel_meta = z.read(dist + "/WHEEL").decode()
        meta = email.parser.Parser().parsestr(z.read(dist + "/METADATA").decode())
        license_text = z.read(dist + "/licenses/LICENSE") if (
            dist + "/licenses/LICENSE") in names else b""
        tmp = os.path.join(os.path.dirname(os.path.abspath(path)), "unpacked")
        z.extractall(tmp)
    tags = re.findall(r"^Tag: (.+)$", wheel_meta, re.M)
    check(tags == ["py3-none-" + m["plat"]], "WHEEL tags %s" % tags)
    check("Root-Is-Purelib: false" in wheel_meta, "WHEEL is not platlib")
    check(meta["Name"] == "gpusvd" and meta["Version"] == version,
          "METADATA names %s %s" % (meta["Name"], meta["Version"]))
    check(meta.get("License-Expression") == "BSD-3-Clause",
          "License-Expression %r" % meta.get("License-Expression"))
    check(any(r.startswith("numpy") for r in meta.get_all("Requires-Dist") or []),
          "numpy is not a requirement")
    check(license_text == open(os.path.join(source, "LICENSE"), "rb").read(),
          "dist-info/licenses/LICENSE is missing or differs from LICENSE")

    # Every file has its place: the package's modules, the library, the bundled libraries,
    # the metadata; nothing from a build folder.
    modules = sorted(f for f in os.listdir(os.path.join(source, "bindings/python/gpusvd"))
                     if f.endswith(".py") or f == "py.typed")
    expected_pkg = sorted("gpusvd/" + f for f in modules + ["libgpusvd.so.0"])
    check(sorted(n for n in names if n.startswith("gpusvd/")) == expected_pkg,
          "gpusvd/ holds %s, expected %s" % (
              sorted(n for n in names if n.startswith("gpusvd/")), expected_pkg))
    allowed = re.compile(r"^(gpusvd/[\w.]+|gpusvd\.libs/lib[\w.+-]+\.so(\.\d+)*|%s/(METADATA|WHEEL|"
                         r"RECORD|licenses/LICENSE|sboms/[\w.-]+\.json))$" % re.escape(dist))
    for n in names:
        check(allowed.match(n) and "__pycache__" not in n and not n.endswith((".pyc", ".a")),
              "unexpected file in the wheel: %s" % n)
    bundled = sorted(n.split("/", 1)[1] for n in names if n.startswith("gpusvd.libs/"))
    for stem in MUST_BUNDLE:
        check(any(b.startswith(stem) for b in bundled), "%s is not bundled (%s)" % (stem, bundled))

    # The library and every bundled library find their dependencies inside the wheel.
    lib = os.path.join(tmp, "gpusvd", "libgpusvd.so.0")
    needed, rpath = elf_dynamic(lib)
    check(rpath == ["$ORIGIN/../gpusvd.libs"], "libgpusvd.so.0 RPATH %s" % rpath)
    has_cuda = b"CUDA backend compiled in" in open(lib, "rb").read()
    check(has_cuda == (backend == "cuda"), "libgpusvd.so.0 %s the CUDA backend, expected %s"
          % ("has" if has_cuda else "lacks", backend))
    for f in [lib] + [os.path.join(tmp, "gpusvd.libs", b) for b in bundled]:
        for dep in elf_dynamic(f)[0]:
            check(SYSTEM.match(dep) or dep in bundled,
                  "%s needs %s, neither bundled nor a manylinux system library"
                  % (os.path.basename(f), dep))
    print("wheel %s: %d files, tag py3-none-%s, bundled: %s"
          % (name, len(names), m["plat"], ", ".join(bundled)))


def check_sdist(path, source):
    version = project_version(source)
    top = "gpusvd-%s/" % version
    with tarfile.open(path) as t:
        members = [x.name for x in t.getmembers() if x.isfile() or x.issym()]
    tracked = subprocess.run(["git", "-C", source, "ls-files"], check=True, capture_output=True,
                             text=True).stdout.split()
    inside = sorted(n[len(top):] for n in members if n.startswith(top))
    check(len(inside) == len(members), "sdist members outside %s" % top)
    extra = sorted(set(inside) - set(tracked) - {"PKG-INFO"})
    missing = sorted(set(tracked) - set(inside))
    check(not extra, "sdist holds untracked files: %s" % extra[:20])
    check(not missing, "sdist lacks tracked files: %s" % missing[:20])
    check("PKG-INFO" in inside, "sdist has no PKG-INFO")
    print("sdist %s: %d files (the tracked tree and PKG-INFO)"
          % (os.path.basename(path), len(inside)))


def check_hidden(sonames):
    for soname in sonames:
        try:
            ctypes.CDLL(soname)
            problems.append("%s still loads: it is not hidden" % soname)
        except OSError as exc:
            print("hidden: %s (%s)" % (soname, exc))


def check_loaded(site):
    import gpusvd
    gpusvd.version()
    lib = os.path.realpath(gpusvd.library_path())
    check(lib.startswith(os.path.realpath(site) + os.sep),
          "gpusvd loaded %s, not the installed wheel's library" % lib)
    pattern = re.compile(r"^lib(openblas\w*|blas|lapacke?|tmglib|gfortran|quadmath)\b")
    mapped = sorted({line.split()[-1] for line in open("/proc/self/maps")
                     if "/" in line and pattern.search(line.split()[-1].rsplit("/", 1)[-1])})
    for path in mapped:
        check(os.path.realpath(path).startswith(os.path.realpath(site) + os.sep),
              "%s is mapped from outside the venv" % path)
    check(any("gpusvd.libs" in p for p in mapped), "no library of gpusvd.libs is mapped")
    print("loaded %s with %s" % (lib, ", ".join(os.path.basename(p) for p in mapped)))


if __name__ == "__main__":
    what, args = sys.argv[1], sys.argv[2:]
    {"wheel": lambda: check_wheel(*args), "sdist": lambda: check_sdist(*args),
     "hidden": lambda: check_hidden(args), "loaded": lambda: check_loaded(*args)}[what]()
    for p in problems:
        print("wheel_check %s: %s" % (what, p), file=sys.stderr)
    sys.exit(1 if problems else 0)
