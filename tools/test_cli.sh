#!/usr/bin/env bash
# Test of the gpusvd command-line tool. Usage: test_cli.sh PATH/TO/gpusvd
# Needs python3 (standard library only): it writes the .npy inputs with struct and parses every
# output format back, so each check compares numbers, not just exit codes.
set -u
G=${1:?usage: test_cli.sh PATH/TO/gpusvd}
command -v python3 >/dev/null || { echo "FAIL python3 is needed to write .npy inputs and parse outputs"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/gpusvd_cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
failures=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }

# run NAME EXPECTED_RC ARGS...: runs the tool, keeps stdout in $T/out and stderr in $T/err.
run() {
    local name=$1 want=$2
    shift 2
    "$G" "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ "$rc" -eq "$want" ]; then
        pass "$name (exit $rc)"
    else
        fail "$name: exit $rc, expected $want; stderr: $(head -c 400 "$T/err")"
    fi
}
contains() {  # contains WHAT FILE TEXT
    if grep -qF -- "$3" "$2"; then pass "$1"; else fail "$1: '$3' not in: $(head -c 600 "$2")"; fi
}
lacks() {  # lacks WHAT FILE TEXT
    if grep -qF -- "$3" "$2"; then fail "$1: '$3' found in: $(head -c 400 "$2")"; else pass "$1"; fi
}
# check NAME PYTHON_CODE [ARGS...]: the code, run in $T with io_helpers.py imported, must exit 0;
# an AssertionError's message is shown.
check() {
    local name=$1 code=$2 out
    shift 2
    if out=$(cd "$T" && python3 -c "from io_helpers import *
$code" "$@" 2>&1); then
        pass "$name"
    else
        fail "$name: $(echo "$out" | tail -n 3)"
    fi
}

# Readers and writers for the checks: Matrix Market array, CSV and .npy, standard library only.
cat >"$T/io_helpers.py" <<'PY'
import ast, math, struct, sys

def close(got, want, tol=1e-12):
    got, want = list(got), list(want)
    assert len(got) == len(want), "got %d values %r, want %d %r" % (len(got), got, len(want), want)
    for g, w in zip(got, want):
        assert abs(g - w) <= tol * max(1.0, abs(w)), "got %r, want %r" % (got, want)

def read_mm(path):
    """(rows, cols, values column by column); the banner must be the first line."""
    lines = open(path).read().splitlines()
    assert lines and lines[0] == "%%MatrixMarket matrix array real general", "banner: %r" % lines[:1]
    body = [l for l in lines[1:] if l.strip() and not l.startswith("%")]
    rows, cols = map(int, body[0].split())
    vals = [float(x) for x in body[1:]]
    assert len(vals) == rows * cols, "%d values for %d x %d" % (len(vals), rows, cols)
    return rows, cols, vals

def read_csv(path):
    """Rows of floats; every line must be numbers (nothing else on the stream)."""
    return [[float(x) for x in l.split(",")] for l in open(path).read().splitlines()]

NPY_CODES = {"f8": "d", "f4": "f", "i4": "i", "i2": "h", "u1": "B"}

def npy_header(shape, descr, fortran=False):
    dims = "(%d,)" % shape[0] if len(shape) == 1 else "(%s)" % ", ".join(map(str, shape))
    h = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, dims)
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode()

def write_npy(path, shape, values, descr="<f8", fortran=False):
    """values in C order (or Fortran order when fortran=True)."""
    order = ">" if descr[0] == ">" else "<"
    data = struct.pack(order + "%d%s" % (len(values), NPY_CODES[descr[1:]]), *values)
    open(path, "wb").write(npy_header(shape, descr, fortran) + data)

def read_npy(path):
    """(shape, descr, values in C order)."""
    b = open(path, "rb").read()
    assert b[:8] == b"\x93NUMPY\x01\x00", "magic %r" % b[:8]
    hl = struct.unpack("<H", b[8:10])[0]
    assert (10 + hl) % 64 == 0, "data not 64-byte aligned"
    h = ast.literal_eval(b[10:10 + hl].decode())
    assert not h["fortran_order"]
    n = 1
    for s in h["shape"]:
        n *= s
    code = NPY_CODES[h["descr"][1:]]
    vals = struct.unpack(h["descr"][0] + "%d%s" % (n, code), b[10 + hl:])
    return tuple(h["shape"]), h["descr"], list(vals)

def matmul(a, b):
    return [[sum(a[i][p] * b[p][j] for p in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]

def rows_of(shape2, vals, offset=0):
    """Rows of a C-order 2-D block."""
    r, c = shape2
    return [vals[offset + i * c: offset + (i + 1) * c] for i in range(r)]

def col_major(rows, cols, vals):
    return [[vals[i + j * rows] for j in range(cols)] for i in range(rows)]
PY

# --- info, help, version ------------------------------------------------------------------
run "info" 0 info
contains "info names the backend" "$T/out" "backend AUTO"
contains "info has build info" "$T/out" "BLAS"
contains "info has a GPU line" "$T/out" "GPU "
lacks "info does not blame the driver version" "$T/out" "insufficient"
if grep -q "no CUDA backend" "$T/out"; then
    contains "info: CPU-only build" "$T/out" "this build of gpusvd has no CUDA backend"
elif ! python3 -c "import ctypes; ctypes.CDLL('libcuda.so.1')" 2>/dev/null; then
    contains "info: no driver installed" "$T/out" "no NVIDIA driver is installed"
fi
run "--help" 0 --help
contains "usage text" "$T/out" "usage: gpusvd"
contains "usage names the formats" "$T/out" "--format mm|csv|npy"
run "help svd" 0 help svd
contains "help svd states the layout difference" "$T/out" "Vh = V^T"
run "help pca" 0 help pca
contains "help pca names the ratio" "$T/out" "explained_variance_ratio"
run "--version" 0 --version
run "unknown command" 2 frobnicate
contains "unknown command prints usage" "$T/err" "usage: gpusvd"
run "no command" 2

# --- Matrix Market: A = [2 0; 1 1; 0 2], A^T A = [5 1; 1 5]: singular values sqrt(6), 2 ----------
cat >"$T/a.mtx" <<'MTX'
%%MatrixMarket matrix array real general
% a 3 x 2 test matrix, column by column
3 2
2
1
0
0
1
2
MTX
run "svd on Matrix Market: S on stdout" 0 svd "$T/a.mtx"
check "stdout is one Matrix Market matrix, S" '
r, c, v = read_mm("out"); assert (r, c) == (2, 1); close(v, [6 ** 0.5, 2])'
contains "summary: singular values" "$T/err" "singular values: largest 2.44949, smallest 2; condition number 1.22474; numerical rank 2 of 2"
contains "summary names what was left out" "$T/err" "not written: U, V"
"$G" svd "$T/a.mtx" -q | "$G" svd - -q >"$T/out" 2>"$T/err"
check "stdout reads back into the tool (S as a 2 x 1 matrix: sqrt(10))" '
r, c, v = read_mm("out"); close(v, [10 ** 0.5])'

run "svd -o DIR" 0 svd "$T/a.mtx" -o "$T/svd"
for f in S U V; do contains "stderr names $f.mtx" "$T/err" "wrote $T/svd/$f.mtx"; done
contains "stderr line gives the shape" "$T/err" "wrote $T/svd/U.mtx (3, 2) float64"
check "U diag(S) V^T = A from the files" '
_, _, s = read_mm("svd/S.mtx"); _, _, u = read_mm("svd/U.mtx"); _, _, v = read_mm("svd/V.mtx")
U = col_major(3, 2, u); V = col_major(2, 2, v)
US = [[U[i][j] * s[j] for j in range(2)] for i in range(3)]
A = matmul(US, [list(r) for r in zip(*V)])
close(sum(A, []), [2, 0, 1, 1, 0, 2], 1e-14)'
run "svd --only U" 0 svd "$T/a.mtx" --only U --format csv
check "--only U: a 3 x 2 CSV with orthonormal columns" '
U = read_csv("out"); assert len(U) == 3 and all(len(r) == 2 for r in U)
close(sum(matmul([list(r) for r in zip(*U)], U), []), [1, 0, 0, 1], 1e-14)'

# --- CSV with comments, a header row, CRLF endings; the transpose of A ------------------------
printf '# measurements\r\n# two rows\r\nx,y,z\r\n2, 1, 0   # first row\r\n0, 1, 2\r\n\r\n' >"$T/h.csv"
"$G" svd "$T/h.csv" --values-only --format csv -q | python3 -c '
import sys
v = [float(l) for l in sys.stdin]
assert len(v) == 2 and abs(v[0] - 6 ** 0.5) < 1e-14 and abs(v[1] - 2) < 1e-14, v' \
    && pass "CSV with header and comments piped into python3" || fail "CSV with header piped"
run "header row is not data" 0 svd "$T/h.csv" -v -q
run "header row with -v" 0 svd "$T/h.csv" -v
contains "-v names the header row" "$T/err" "header row on line 3"
contains "-v has the times" "$T/err" "time: read"
run "svd --single" 0 svd "$T/h.csv" --single
check "float32: 9 significant digits" '
v = [float(l) for l in open("out")]; close(v, [6 ** 0.5, 2], 1e-7)
assert all(len(l.strip().replace(".", "").lstrip("0")) <= 9 for l in open("out")), open("out").read()'
contains "summary says float32" "$T/err" "float32"

# --- whitespace and tab text: diag(3, -5, 1) has singular values 5, 3, 1 ---------------------
printf '3.000000000000000000e+00 0.000000000000000000e+00 0.000000000000000000e+00\n0 -5 0\n0   0  1\n' >"$T/d.txt"
printf 'a\tb\tc\n3\t0\t0\n0\t-5\t0\n0\t0\t1\n' >"$T/d.tsv"
for f in d.txt d.tsv; do
    "$G" svd "$T/$f" --values-only --format csv -q >"$T/out" 2>"$T/err"
    check "$f: S = 5, 3, 1" 'close([r[0] for r in read_csv("out")], [5, 3, 1], 1e-15)'
done
run "summary on a diagonal matrix" 0 svd "$T/d.txt"
contains "summary: condition number and rank" "$T/err" "largest 5, smallest 1; condition number 5; numerical rank 3 of 3"
contains "summary: backend and time" "$T/err" "backend cpu"
run "-q silences the summary" 0 svd "$T/d.txt" -q
[ ! -s "$T/err" ] && pass "-q: stderr empty" || fail "-q: stderr has $(head -c 200 "$T/err")"
printf '1 0\n0 0\n' >"$T/rank1.txt"
run "numerical rank of a singular matrix" 0 svd "$T/rank1.txt"
contains "rank 1 of 2" "$T/err" "numerical rank 1 of 2"
contains "condition number inf" "$T/err" "condition number inf"

# Row labels: an empty first name in the header (pandas' index column), or text in column 1.
printf ',a,b\n0,3,0\n1,0,4\n' >"$T/idx.csv"
run "index column skipped" 0 svd "$T/idx.csv" --format csv
check "index column: S = 4, 3" 'close([r[0] for r in read_csv("out")], [4, 3])'
contains "note about row labels" "$T/err" "row labels"
printf 'name,a,b\nr1,3,0\nr2,0,4\n' >"$T/lab.csv"
run "text row labels skipped" 0 svd "$T/lab.csv" --format csv
check "row labels: S = 4, 3" 'close([r[0] for r in read_csv("out")], [4, 3])'
printf '1990,1991\n3,0\n0,4\n' >"$T/numhead.csv"
run "--header with numeric names" 0 svd "$T/numhead.csv" --header --format csv
check "--header: S = 4, 3" 'close([r[0] for r in read_csv("out")], [4, 3])'
printf 'a,1,b\n1,2,3\n' >"$T/mix.csv"
run "a row of names and numbers is an error" 2 svd "$T/mix.csv"
contains "it suggests --header" "$T/err" "--header"

# --- .npy: A (3 x 2) as C-order float64, Fortran-order big-endian, int32 ----------------------
check "write .npy inputs" '
write_npy("a.npy", (3, 2), [2, 0, 1, 1, 0, 2])
write_npy("af.npy", (3, 2), [2, 1, 0, 0, 1, 2], descr=">f8", fortran=True)
write_npy("ai.npy", (3, 2), [2, 0, 1, 1, 0, 2], descr="<i4")
write_npy("a32.npy", (3, 2), [2, 0, 1, 1, 0, 2], descr="<f4")
# diagonal batch: diag(1,2,3), diag(4,0,1), diag(-2,7,5)
d = [(1, 2, 3), (4, 0, 1), (-2, 7, 5)]
write_npy("batch.npy", (3, 3, 3), [d[b][i] if i == j else 0 for b in range(3) for i in range(3) for j in range(3)])
# [[2,1],[1,2]] (eigenvalues 3, 1), [[0,-1],[1,0]] (+-i), [[1,2],[0,-3]] (1, -3)
write_npy("e.npy", (3, 2, 2), [2, 1, 1, 2, 0, -1, 1, 0, 1, 2, 0, -3])'
for f in a.npy af.npy ai.npy; do
    run "svd $f -> .npy" 0 svd "$T/$f" -o "$T/np_$f" -q
    check "$f: S.npy (2,) float64 = sqrt(6), 2" '
shape, descr, v = read_npy("np_'"$f"'/S.npy")
assert shape == (2,) and descr == "<f8", (shape, descr); close(v, [6 ** 0.5, 2])'
done
run "float32 .npy computes in float32" 0 svd "$T/a32.npy" --only S -o "$T/np32"
check "S.npy is float32" '
shape, descr, v = read_npy("np32/S.npy"); assert descr == "<f4", descr; close(v, [6 ** 0.5, 2], 1e-6)'
run ".npy to stdout" 0 svd "$T/a.npy" -q
check ".npy on stdout is S" 'shape, _, v = read_npy("out"); assert shape == (2,); close(v, [6 ** 0.5, 2])'
run ".npy in, --format csv out" 0 svd "$T/a.npy" --format csv -q
check "csv from .npy" 'close([r[0] for r in read_csv("out")], [6 ** 0.5, 2])'
python3 -c 'import sys; sys.stdout.buffer.write(open(sys.argv[1], "rb").read())' "$T/a.npy" |
    "$G" svd - --format csv -q >"$T/out" 2>"$T/err"
check ".npy from standard input" 'close([r[0] for r in read_csv("out")], [6 ** 0.5, 2])'

# At a terminal (a pseudo-terminal here): .npy input is shown as text, a big result not at all.
cat >"$T/on_terminal.py" <<'PY'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
PY
python3 "$T/on_terminal.py" "$G" svd "$T/a.npy" >"$T/tty_out"
contains "terminal: .npy input shown as CSV text" "$T/tty_out" "2.4494897427831779"
contains "terminal: with the summary" "$T/tty_out" "numerical rank 2 of 2"
python3 -c 'print("\n".join(",".join("1" if i == j else "0" for j in range(11)) for i in range(11)))' >"$T/i11.csv"
python3 "$T/on_terminal.py" "$G" qr "$T/i11.csv" >"$T/tty_out"
contains "terminal: 121 values of R not shown" "$T/tty_out" "standard output is a terminal: R (121 values) not shown"

# --- batches: 3-D .npy runs the batched routines ------------------------------------------
run "svd of a batch" 0 svd "$T/batch.npy" -o "$T/sb"
for f in S U V; do contains "batch: stderr names $f.npy" "$T/err" "wrote $T/sb/$f.npy"; done
contains "S of a batch is (batch, k)" "$T/err" "wrote $T/sb/S.npy (3, 3) float64"
contains "U of a batch is (batch, m, k)" "$T/err" "wrote $T/sb/U.npy (3, 3, 3) float64"
contains "summary: batch shape" "$T/err" "3 matrices of 3 x 3"
contains "summary: batch rank" "$T/err" "numerical rank: full (3) in 2 of 3 matrices; lowest 2 at index 1"
check "batch S and U diag(S) V^T = A" '
_, _, s = read_npy("sb/S.npy"); _, _, u = read_npy("sb/U.npy"); _, _, v = read_npy("sb/V.npy")
_, _, a = read_npy("batch.npy")
close(s, [3, 2, 1, 4, 1, 0, 7, 5, 2], 1e-15)
for b in range(3):
    U = rows_of((3, 3), u, 9 * b); V = rows_of((3, 3), v, 9 * b)
    US = [[U[i][j] * s[3 * b + j] for j in range(3)] for i in range(3)]
    close(sum(matmul(US, [list(r) for r in zip(*V)]), []), a[9 * b: 9 * b + 9], 1e-14)'
run "batch S as CSV (batch rows)" 0 svd "$T/batch.npy" --values-only --format csv -q
check "batch CSV: one row of S per matrix" 'close(sum(read_csv("out"), []), [3, 2, 1, 4, 1, 0, 7, 5, 2], 1e-15)'
run "3-D results need npy" 2 svd "$T/batch.npy" --format csv -o "$T/sbcsv"
contains "the error names --format npy" "$T/err" "--format npy"

run "eig of a batch" 0 eig "$T/e.npy" --vectors -o "$T/eb"
contains "W of a batch is (batch, n, 2)" "$T/err" "wrote $T/eb/W.npy (3, 2, 2) float64"
contains "summary: abscissa" "$T/err" "spectral abscissa: max 3 at index 0, min 0 at index 1"
contains "summary: unstable matrices" "$T/err" "2 of 3 matrices have an eigenvalue with positive real part (first at index 0); 3 such eigenvalues in all"
check "batch eigenvalues" '
_, _, w = read_npy("eb/W.npy")
got = [sorted((w[4 * b + 2 * i], w[4 * b + 2 * i + 1]) for i in range(2)) for b in range(3)]
want = [[(1, 0), (3, 0)], [(0, -1), (0, 1)], [(-3, 0), (1, 0)]]
for g, x in zip(got, want): close(sum(map(list, g), []), sum(map(list, x), []), 1e-14)'
run "qr of a batch" 0 qr "$T/e.npy" -o "$T/qb" --format npy
check "batch Q R = A, R upper with R(j,j) >= 0" '
_, _, q = read_npy("qb/Q.npy"); _, _, r = read_npy("qb/R.npy"); _, _, a = read_npy("e.npy")
for b in range(3):
    Q = rows_of((2, 2), q, 4 * b); R = rows_of((2, 2), r, 4 * b)
    assert R[1][0] == 0 and R[0][0] >= 0 and R[1][1] >= 0, R
    close(sum(matmul(Q, R), []), a[4 * b: 4 * b + 4], 1e-14)'

# --- eig of one matrix: the rotation [0 -1; 1 0] has eigenvalues +i, -i -----------------------
printf '0,-1\n1,0\n' >"$T/rot.csv"
run "eig rotation" 0 eig "$T/rot.csv"
check "W = [0 1; 0 -1] as CSV" 'close(sum(read_csv("out"), []), [0, 1, 0, -1], 1e-15)'
contains "summary: stable" "$T/err" "spectral abscissa (largest real part) 0; 0 of 2 eigenvalues have a positive real part"
run "--vectors needs -o or --only" 2 eig "$T/rot.csv" --vectors
run "eig --only VR" 0 eig "$T/rot.csv" --only VR
check "VR: unit columns, the real and imaginary parts of the vector of +i" '
V = read_csv("out"); assert len(V) == 2 and len(V[0]) == 2
close([V[0][0] ** 2 + V[0][1] ** 2 + V[1][0] ** 2 + V[1][1] ** 2], [1], 1e-14)'
run "eig non-square" 2 eig "$T/a.mtx"

# --- qr -o DIR: R = [sqrt(5) 1/sqrt(5); 0 sqrt(24/5)] ------------------------------------------
run "qr -o DIR" 0 qr "$T/a.mtx" -o "$T/qr/out"
contains "stderr names R.mtx" "$T/err" "wrote $T/qr/out/R.mtx (2, 2) float64"
check "R from R.mtx" '
_, _, r = read_mm("qr/out/R.mtx"); close(r, [5 ** 0.5, 0, 1 / 5 ** 0.5, (24 / 5) ** 0.5])'
"$G" qr "$T/a.mtx" --only Q --format csv -q | "$G" svd - -q --format csv >"$T/out" 2>"$T/err"
check "Q piped back in: orthonormal (S = 1, 1)" 'close([r[0] for r in read_csv("out")], [1, 1], 1e-14)'
run "qr summary" 0 qr "$T/a.mtx"
contains "summary: R diagonal" "$T/err" "R diagonal: largest"
contains "summary: no dependent column" "$T/err" "dependent columns: none"

# --- bdsvd: upper [1 2 0; 0 3 4; 0 0 5]: sum S^2 = 55, prod S = |det| = 15 --------------------
printf '1,2,0\n0,3,4\n0,0,5\n' >"$T/bd.csv"
run "bdsvd upper" 0 bdsvd "$T/bd.csv"
check "bdsvd: sum S^2 = 55, prod S = 15" '
s = [r[0] for r in read_csv("out")]; close([sum(x * x for x in s), s[0] * s[1] * s[2]], [55, 15])'
printf '1,0,0\n2,3,0\n0,4,5\n' >"$T/bdl.csv"
run "bdsvd lower -o" 0 bdsvd "$T/bdl.csv" -o "$T/bdl" -q
[ -f "$T/bdl/U.csv" ] && [ -f "$T/bdl/VT.csv" ] && pass "bdsvd U.csv, VT.csv" || fail "bdsvd files"
printf '1,2,0\n0,3,4\n7,0,5\n' >"$T/nbd.csv"
run "bdsvd rejects a non-bidiagonal entry" 2 bdsvd "$T/nbd.csv"
contains "bdsvd names the entry" "$T/err" "(3,1)"

# --- pca: X = [1 2; 3 4; 5 7]: covariance [4 5; 5 19/3], total variance 31/3 -------------------
printf 'u,v\n1,2\n3,4\n5,7\n' >"$T/x.csv"
run "pca -k 1 -o DIR" 0 pca "$T/x.csv" -k 1 -o "$T/pca"
for f in explained_variance explained_variance_ratio total_variance components scores mean; do
    contains "pca writes $f" "$T/err" "wrote $T/pca/$f.csv"
done
check "pca: total variance and ratio" '
t = 31 / 3; det = 4 * 19 / 3 - 25
l1 = (t + (t * t - 4 * det) ** 0.5) / 2
close([r[0] for r in read_csv("pca/total_variance.csv")], [t])
close([r[0] for r in read_csv("pca/explained_variance.csv")], [l1])
close([r[0] for r in read_csv("pca/explained_variance_ratio.csv")], [l1 / t])
close([len(read_csv("pca/scores.csv")), len(read_csv("pca/components.csv"))], [3, 2])
close([r[0] for r in read_csv("pca/mean.csv")], [3, 13 / 3])'
contains "summary: total variance" "$T/err" "total variance 10.3333 (2 features)"
contains "summary: ratio table" "$T/err" "0.9969      0.9969"
run "pca default stdout: explained_variance" 0 pca "$T/x.csv" -q
check "pca stdout: both variances, adding up to the total" '
v = [r[0] for r in read_csv("out")]; assert len(v) == 2; close([sum(v)], [31 / 3])'
run "pca --standardize" 0 pca "$T/x.csv" --standardize -o "$T/pcas" -q
check "standardized: total variance 2, scale = sample standard deviations" '
close([r[0] for r in read_csv("pcas/total_variance.csv")], [2])
close([sum(r[0] for r in read_csv("pcas/explained_variance.csv"))], [2])
close([r[0] for r in read_csv("pcas/scale.csv")], [2, (19 / 3) ** 0.5])'
run "pca --only total_variance" 0 pca "$T/x.csv" --only total_variance --format mm
check "total_variance as a 1 x 1 Matrix Market" 'r, c, v = read_mm("out"); assert (r, c) == (1, 1); close(v, [31 / 3])'
run "pca -k too large" 2 pca "$T/x.csv" -k 3
run "pca of a batch is refused" 2 pca "$T/batch.npy"

# --- bad inputs and usage: exit 2 with FILE:LINE or a pointer to help -------------------------
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n2x\n3\n4\n' >"$T/bad.mtx"
run "letter on line 4" 2 svd "$T/bad.mtx"
contains "message names line 4" "$T/err" "bad.mtx:4:"
printf '1,2,3\n4,5\n' >"$T/ragged.csv"
run "ragged CSV" 2 svd "$T/ragged.csv"
contains "ragged message" "$T/err" "ragged.csv:2:"
printf '1,2\n\n3,4\n' >"$T/gap.csv"
run "blank line inside data" 2 svd "$T/gap.csv"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n' >"$T/coo.mtx"
run "coordinate rejected" 2 svd "$T/coo.mtx"
contains "coordinate message" "$T/err" "coordinate"
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n' >"$T/short.mtx"
run "too few values" 2 svd "$T/short.mtx"
head -c 100 "$T/a.npy" >"$T/trunc.npy"
run "truncated .npy" 2 svd "$T/trunc.npy"
contains "truncated message" "$T/err" "truncated"
check "write bad .npy files" '
write_npy("four.npy", (1, 1, 1, 1), [1])
open("cx.npy", "wb").write(npy_header((1, 1), "<c16") + bytes(16))'
run "4-D .npy rejected" 2 svd "$T/four.npy"
run "complex .npy rejected" 2 svd "$T/cx.npy"
contains "complex message" "$T/err" "complex"
printf 'x\n' >"$T/fake.npy"
run ".npy without magic" 2 svd "$T/fake.npy"
run "missing file" 2 svd "$T/nonexistent.mtx"
run "unknown option" 2 svd "$T/a.mtx" --bogus
run "bad backend" 2 svd "$T/a.mtx" --backend tpu
run "bad format" 2 svd "$T/a.mtx" --format xls
run "unknown result" 2 svd "$T/a.mtx" --only W
contains "unknown result lists the results" "$T/err" "its results: S, U, V"
run "two results on stdout" 2 svd "$T/a.mtx" --only S,U
contains "two results: suggests -o" "$T/err" "-o DIR"
printf '1,nan\n3,4\n' >"$T/nan.csv"
run "NaN input: info warning" 3 svd "$T/nan.csv"
contains "NaN warning" "$T/err" "NONFINITE"

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks passed"
