// Team versions of LAPACK's dlascl (overflow-safe scaling), dgebal 'B' (permute, then scale by
// powers of 2) and dgebak 'B','R' (undo both on the right eigenvectors), for real or complex
// elements (zgebal, zgebak: the same real scales, the moduli and 2-norms of complex entries).
#pragma once

#include "kernels/geev_scalar.hpp"

namespace gpusvd {
namespace kernels {
namespace geev {

/// The factor sequence of dlascl for multiplying by cto/cfrom without overflow: call next()
/// until it returns false; each call yields the next factor in `mul`. Pure scalar code, so every
/// member derives the same sequence.
template <class T>
struct ScaleSteps {
    T cfromc, ctoc;
    bool done = false;
    GPUSVD_HD ScaleSteps(T cfrom, T cto) : cfromc(cfrom), ctoc(cto) {}
    GPUSVD_HD bool next(T &mul) {
        if (done) return false;
        const T smlnum = Real<T>::safe_min(), bignum = T(1) / smlnum;
        const T cfrom1 = cfromc * smlnum;
        if (cfrom1 == cfromc) {  // cfromc is inf: multiply by a correctly signed 0 or NaN
            mul = ctoc / cfromc;
            done = true;
            return true;
        }
        const T cto1 = ctoc / bignum;
        if (cto1 == ctoc) {  // ctoc is 0 or inf
            mul = ctoc;
            done = true;
            cfromc = T(1);
        } else if (std::fabs(cfrom1) > std::fabs(ctoc) && ctoc != T(0)) {
            mul = smlnum;
            cfromc = cfrom1;
        } else if (std::fabs(cto1) > std::fabs(cfromc)) {
            mul = bignum;
            ctoc = cto1;
        } else {
            mul = ctoc / cfromc;
            done = true;
        }
        return true;
    }
};

/// A(0:m, 0:n) *= cto / cfrom (dlascl 'G'). Ends with a sync.
template <class T, class Team>
GPUSVD_HD void scale_matrix(const Team &t, int m, int n, Mat<T> A, RealOf<T> cfrom,
                            RealOf<T> cto) {
    ScaleSteps<RealOf<T>> steps(cfrom, cto);
    RealOf<T> mul;
    while (steps.next(mul))
        for (int j = 0; j < n; ++j)
            GPUSVD_NO_UNROLL
            for (int i = t.rank(); i < m; i += t.size()) A(i, j) *= mul;
    t.sync();
}

/// x[0:n] *= cto / cfrom. Each member touches only its own indices (no sync).
template <class T, class Team>
GPUSVD_HD void scale_vector(const Team &t, int n, T *x, RealOf<T> cfrom, RealOf<T> cto) {
    ScaleSteps<RealOf<T>> steps(cfrom, cto);
    RealOf<T> mul;
    while (steps.next(mul))
        GPUSVD_NO_UNROLL
        for (int i = t.rank(); i < n; i += t.size()) x[i] *= mul;
}

/// Swaps columns i and j of A in rows 0..rows-1, then rows i and j in columns c0..n-1 (the
/// symmetric permutation dgebal applies). Starts and ends with a sync.
template <class T, class Team>
GPUSVD_HD void swap_rows_cols(const Team &t, Mat<T> A, int n, int i, int j, int rows, int c0) {
    t.sync();  // everyone has finished reading A
    GPUSVD_NO_UNROLL
    for (int r = t.rank(); r < rows; r += t.size()) {
        const T x = A(r, i);
        A(r, i) = A(r, j);
        A(r, j) = x;
    }
    t.sync();
    GPUSVD_NO_UNROLL
    for (int c = c0 + t.rank(); c < n; c += t.size()) {
        const T x = A(i, c);
        A(i, c) = A(j, c);
        A(j, c) = x;
    }
    t.sync();
}

/// dgebal 'B' on the n x n matrix A: on return A(i,j) = 0 for i > j and (j < ilo or i > ihi)
/// (0-based, inclusive ilo..ihi), scale[j] holds the permutation index (as a real) outside ilo..ihi
/// and the power-of-2 scaling factor inside. The isolating searches take the last row / first
/// column that qualifies and restart after each exchange (LAPACK <= 3.11 order), so a member
/// can check its rows in parallel and a max-reduction picks the one to move.
template <class T, class Team>
GPUSVD_HD void gebal(const Team &t, int n, Mat<T> A, RealOf<T> *scale, int &ilo, int &ihi) {
    using R = RealOf<T>;
    int k = 0, l = n - 1;
    // Rows isolating an eigenvalue (zero off the diagonal in columns 0..l) go to the bottom.
    for (;;) {
        int best = -1;
        GPUSVD_NO_UNROLL
        for (int r = t.rank(); r <= l; r += t.size()) {
            bool zero = true;
            for (int c = 0; c <= l && zero; ++c) zero = c == r || A(r, c) == T(0);
            if (zero && r > best) best = r;
        }
        best = t.max(best);
        if (best < 0) break;
        if (t.rank() == 0) scale[l] = R(best);
        if (best != l) swap_rows_cols(t, A, n, best, l, l + 1, k);
        if (l == 0) {  // fully triangular; scale[0] doubles as the (unit) scaling factor
            if (t.rank() == 0) scale[0] = R(1);
            ilo = ihi = 0;
            t.sync();
            return;
        }
        --l;
    }
    // Columns isolating an eigenvalue (zero off the diagonal in rows k..l) go to the left.
    for (;;) {
        int best = -1;  // reduced as n - col so that the max picks the first column
        GPUSVD_NO_UNROLL
        for (int c = k + t.rank(); c <= l; c += t.size()) {
            bool zero = true;
            for (int r = k; r <= l && zero; ++r) zero = r == c || A(r, c) == T(0);
            if (zero && n - c > best) best = n - c;
        }
        best = t.max(best);
        if (best < 0) break;
        const int col = n - best;
        if (t.rank() == 0) scale[k] = R(col);
        if (col != k) swap_rows_cols(t, A, n, col, k, l + 1, k);
        ++k;
    }
    GPUSVD_NO_UNROLL
    for (int i = k + t.rank(); i <= l; i += t.size()) scale[i] = R(1);
    t.sync();

    // Iterative norm reduction (2-norms, LAPACK >= 3.5).
    const R sclfac = R(2), factor = R(0.95);
    const R sfmin1 = Real<R>::safe_min() / Real<R>::ulp(), sfmax1 = R(1) / sfmin1;
    const R sfmin2 = sfmin1 * sclfac, sfmax2 = R(1) / sfmin2;
    // LAPACK has no cap; convergence is guaranteed in exact arithmetic, the cap only keeps a
    // pathological case from spinning on the device.
    for (int sweep = 0; sweep < 100; ++sweep) {
        bool noconv = false;
        for (int i = k; i <= l; ++i) {
            // ca: max |A(0:l, i)|, ra: max |A(i, k:n-1)|, and the 2-norms c, r of A(k:l, i) and
            // A(i, k:l), all from one pass over column and row i and four independent
            // reductions. The sums of squares are plain unless an entry's square could overflow
            // or the largest could underflow; then they are summed again scaled by 1/ca, 1/ra
            // (a second pass and two divisions, which paid at every i make gebal a large share
            // of the band path's stage 1). Complex entries: moduli and |x|^2.
            R ca = R(0), ra = R(0), c2 = R(0), r2 = R(0);
            GPUSVD_NO_UNROLL  // a few entries a member (n <= 64 on the GPU): unrolled, 5x5 slower
            for (int r = t.rank(); r <= l; r += t.size()) {
                const T x = A(r, i);
                ca = std::fmax(ca, abs_elem(x));
                if (r >= k) c2 += abs2(x);
            }
            GPUSVD_NO_UNROLL
            for (int c = k + t.rank(); c < n; c += t.size()) {
                const T y = A(i, c);
                ra = std::fmax(ra, abs_elem(y));
                if (c <= l) r2 += abs2(y);
            }
            ca = t.max(ca);
            ra = t.max(ra);
            c2 = t.sum(c2);
            r2 = t.sum(r2);
            R c, r;
            const R hi = Limits<R>::overflow();
            if (c2 < hi && r2 < hi && (ca == R(0) || ca * ca >= sfmin1) &&
                (ra == R(0) || ra * ra >= sfmin1)) {
                c = std::sqrt(c2), r = std::sqrt(r2);
            } else {
                c2 = r2 = R(0);
                if (ca > R(0) && ra > R(0)) {
                    const R ica = R(1) / ca, ira = R(1) / ra;
                    for (int j = k + t.rank(); j <= l; j += t.size()) {
                        const T x = A(j, i) * ica, y = A(i, j) * ira;
                        c2 += abs2(x);
                        r2 += abs2(y);
                    }
                }
                c2 = t.sum(c2);
                r2 = t.sum(r2);
                c = ca * std::sqrt(c2), r = ra * std::sqrt(r2);
            }
            if (c == R(0) || r == R(0)) continue;
            R g = r / sclfac, f = R(1);
            const R s = c + r;
            while (c < g && std::fmax(f, std::fmax(c, ca)) < sfmax2 &&
                   std::fmin(r, std::fmin(g, ra)) > sfmin2) {
                f *= sclfac, c *= sclfac, ca *= sclfac;
                r /= sclfac, g /= sclfac, ra /= sclfac;
            }
            g = c / sclfac;
            while (g >= r && std::fmax(r, ra) < sfmax2 &&
                   std::fmin(std::fmin(f, c), std::fmin(g, ca)) > sfmin2) {
                f /= sclfac, c /= sclfac, g /= sclfac, ca /= sclfac;
                r *= sclfac, ra *= sclfac;
            }
            const R si = scale[i];
            if (c + r >= factor * s) continue;
            if (f < R(1) && si < R(1) && f * si <= sfmin1) continue;
            if (f > R(1) && si > R(1) && si >= sfmax1 / f) continue;
            g = R(1) / f;
            noconv = true;
            t.sync();  // all reads of row/column i and of scale[i] are done
            if (t.rank() == 0) scale[i] = si * f;
            // f * g == 1 exactly (powers of 2), so A(i,i) is left alone and the row and column
            // updates touch disjoint entries.
            GPUSVD_NO_UNROLL
            for (int c2i = k + t.rank(); c2i < n; c2i += t.size())
                if (c2i != i) A(i, c2i) *= g;
            GPUSVD_NO_UNROLL
            for (int r2i = t.rank(); r2i <= l; r2i += t.size())
                if (r2i != i) A(r2i, i) *= f;
            t.sync();
        }
        if (!noconv) break;
    }
    ilo = k;
    ihi = l;
}

/// dgebak 'B','R': V := D V with the balancing scales of rows ilo..ihi, then undoes the
/// permutations in LAPACK's order. Each member owns whole columns of V, so the sequence of row
/// swaps needs no sync. Ends with a sync.
template <class T, class Team>
GPUSVD_HD void gebak(const Team &t, int n, int ilo, int ihi, const RealOf<T> *scale, Mat<T> V) {
    for (int c = t.rank(); c < n; c += t.size()) {
        for (int i = ilo; i <= ihi; ++i) V(i, c) *= scale[i];
        for (int ii = 0; ii < n; ++ii) {
            int i = ii;
            if (i >= ilo && i <= ihi) continue;
            if (i < ilo) i = ilo - 1 - ii;
            const int kk = static_cast<int>(scale[i]);
            if (kk == i) continue;
            const T x = V(i, c);
            V(i, c) = V(kk, c);
            V(kk, c) = x;
        }
    }
    t.sync();
}

}  // namespace geev
}  // namespace kernels
}  // namespace gpusvd
