#!/usr/bin/env bash
# Smoke test of the gpusvd command-line tool. Usage: test_cli.sh PATH/TO/gpusvd
set -u
G=${1:?usage: test_cli.sh PATH/TO/gpusvd}
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
# values NAME [FILE]: the numbers of block NAME ("% NAME" line, Matrix Market header, size line,
# values) in FILE (default $T/out), one per line.
values() {
    awk -v name="$2" 'BEGIN { on = 0 }
        $0 == "% " name { on = 1; size = 0; next }
        on && /^%%MatrixMarket/ { next }
        on && /^%/ { on = 0; next }
        on && !size { size = 1; next }
        on { print }' "$1"
}
# close WHAT GOT WANT TOL: |GOT - WANT| <= TOL
close() {
    if awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= t) }'; then
        pass "$1 = $2"
    else
        fail "$1 = '$2', expected $3 (tol $4)"
    fi
}
contains() {  # contains WHAT FILE TEXT
    if grep -qF -- "$3" "$2"; then pass "$1"; else fail "$1: '$3' not in: $(head -c 400 "$2")"; fi
}

# --- info, help, version ------------------------------------------------------------------
run "info" 0 info
contains "info names the backend" "$T/out" "backend AUTO"
contains "info has build info" "$T/out" "BLAS"
run "--help" 0 --help
contains "usage text" "$T/out" "usage: gpusvd"
run "help svd" 0 help svd
run "--version" 0 --version
run "unknown command" 2 frobnicate
contains "unknown command prints usage" "$T/err" "usage: gpusvd"
run "no command" 2

# --- svd: A = [2 0; 1 1; 0 2] has A^T A = [5 1; 1 5]: singular values sqrt(6), 2 --------------
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
run "svd on Matrix Market" 0 svd "$T/a.mtx"
values "$T/out" S >"$T/s"
close "svd mm S1" "$(sed -n 1p "$T/s")" 2.449489742783178 1e-13
close "svd mm S2" "$(sed -n 2p "$T/s")" 2 1e-13
[ "$(values "$T/out" U | wc -l)" -eq 6 ] && pass "svd U has 6 values" || fail "svd U size"
[ "$(values "$T/out" V | wc -l)" -eq 4 ] && pass "svd V has 4 values" || fail "svd V size"

# The transpose as CSV (2 x 3, wide), with trailing blank lines and CRLF endings.
printf '2, 1, 0\r\n0, 1, 2\r\n\r\n\n' >"$T/a.csv"
run "svd on CSV" 0 svd "$T/a.csv" --values-only
values "$T/out" S >"$T/s"
close "svd csv S1" "$(sed -n 1p "$T/s")" 2.449489742783178 1e-13
close "svd csv S2" "$(sed -n 2p "$T/s")" 2 1e-13
run "svd --single" 0 svd "$T/a.csv" --values-only --single
close "svd single S1" "$(values "$T/out" S | sed -n 1p)" 2.449489742783178 1e-5
run "svd from stdin, csv output" 0 svd - --format csv <"$T/a.csv"
contains "csv output block" "$T/out" "% S"

# --- bad inputs: exit 2 with FILE:LINE ------------------------------------------------------
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n2x\n3\n4\n' >"$T/bad.mtx"
run "letter on line 4" 2 svd "$T/bad.mtx"
contains "message names line 4" "$T/err" "bad.mtx:4:"
printf '1,2,3\n4,5\n' >"$T/ragged.csv"
run "ragged CSV" 2 svd "$T/ragged.csv"
contains "ragged message" "$T/err" "ragged.csv:2:"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n' >"$T/coo.mtx"
run "coordinate rejected" 2 svd "$T/coo.mtx"
contains "coordinate message" "$T/err" "coordinate"
printf '%%%%MatrixMarket matrix array complex general\n1 1\n1 0\n' >"$T/cx.mtx"
run "complex rejected" 2 svd "$T/cx.mtx"
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n' >"$T/short.mtx"
run "too few values" 2 svd "$T/short.mtx"
run "missing file" 2 svd "$T/nonexistent.mtx"
run "unknown option" 2 svd "$T/a.mtx" --bogus
run "bad backend" 2 svd "$T/a.mtx" --backend tpu
printf '1,nan\n3,4\n' >"$T/nan.csv"
run "NaN input: info warning" 3 svd "$T/nan.csv"
contains "NaN warning" "$T/err" "NONFINITE"

# --- qr -o DIR ------------------------------------------------------------------------------
run "qr -o DIR" 0 qr "$T/a.mtx" -o "$T/qr/out"
[ -f "$T/qr/out/Q.mtx" ] && pass "Q.mtx written" || fail "Q.mtx missing"
[ -f "$T/qr/out/R.mtx" ] && pass "R.mtx written" || fail "R.mtx missing"
contains "R.mtx is Matrix Market" "$T/qr/out/R.mtx" "%%MatrixMarket matrix array real general"
# R = [sqrt(5) 1/sqrt(5); 0 sqrt(24/5)] (R(1,1) = ||A(:,1)||, R(1,2) = A(:,1).A(:,2)/R(1,1)).
close "R(1,1)" "$(sed -n 4p "$T/qr/out/R.mtx")" 2.23606797749979 1e-13
close "R(1,2)" "$(sed -n 6p "$T/qr/out/R.mtx")" 0.447213595499958 1e-13
run "qr --mgs --format csv -o" 0 qr "$T/a.mtx" --mgs --format csv -o "$T/qrcsv"
[ -f "$T/qrcsv/Q.csv" ] && pass "Q.csv written" || fail "Q.csv missing"

# --- eig: the rotation [0 -1; 1 0] has eigenvalues +i, -i -------------------------------------
printf '0,-1\n1,0\n' >"$T/rot.csv"
run "eig rotation" 0 eig "$T/rot.csv" --vectors
values "$T/out" W >"$T/w"
close "eig wr1" "$(sed -n 1p "$T/w")" 0 1e-15
close "eig wr2" "$(sed -n 2p "$T/w")" 0 1e-15
close "eig wi1" "$(sed -n 3p "$T/w")" 1 1e-15
close "eig wi2" "$(sed -n 4p "$T/w")" -1 1e-15
[ "$(values "$T/out" VR | wc -l)" -eq 4 ] && pass "eig VR has 4 values" || fail "eig VR size"
run "eig non-square" 2 eig "$T/a.mtx"

# --- bdsvd: upper [1 2 0; 0 3 4; 0 0 5]: sum S^2 = 55, prod S = |det| = 15 --------------------
printf '1,2,0\n0,3,4\n0,0,5\n' >"$T/bd.csv"
run "bdsvd upper" 0 bdsvd "$T/bd.csv"
values "$T/out" S >"$T/s"
close "bdsvd sum S^2" "$(awk '{ s += $1 * $1 } END { printf "%.17g", s }' "$T/s")" 55 1e-12
close "bdsvd prod S" "$(awk 'BEGIN { p = 1 } { p *= $1 } END { printf "%.17g", p }' "$T/s")" 15 1e-12
printf '1,0,0\n2,3,0\n0,4,5\n' >"$T/bdl.csv"
run "bdsvd lower" 0 bdsvd "$T/bdl.csv" --values-only
printf '1,2,0\n0,3,4\n7,0,5\n' >"$T/nbd.csv"
run "bdsvd rejects a non-bidiagonal entry" 2 bdsvd "$T/nbd.csv"
contains "bdsvd names the entry" "$T/err" "(3,1)"

# --- pca: X = [1 2; 3 4; 5 7]: total variance 4 + 19/3 ------------------------------------------
printf '1,2\n3,4\n5,7\n' >"$T/x.csv"
run "pca" 0 pca "$T/x.csv"
close "pca total variance" \
    "$(values "$T/out" explained_variance | awk '{ s += $1 } END { printf "%.17g", s }')" \
    10.333333333333333 1e-12
close "pca mean 2" "$(values "$T/out" mean | sed -n 2p)" 4.333333333333333 1e-14
run "pca -k 1" 0 pca "$T/x.csv" -k 1
[ "$(values "$T/out" scores | wc -l)" -eq 3 ] && pass "pca -k 1 scores 3 x 1" || fail "pca scores size"
run "pca -k too large" 2 pca "$T/x.csv" -k 3

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks passed"
