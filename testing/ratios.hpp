// gpusvd_util: LAPACK-style accuracy ratios (header-only).
//
// Shared by the tests, the `gpusvd demo` CLI command and the benchmark. Not part of the library.
// Every ratio is a double, O(1) for a backward-stable result (thresholds: SVD < 50, QR < 30,
// eig < 20, see DESIGN.md), NaN when the inputs hold NaN. Norms are 1-norms (max column sum) and
// eps = std::numeric_limits<T>::epsilon(). Residuals are formed in precision T with BLAS (as
// LAPACK's test routines do) and the final ratio is computed the way LAPACK's dbdt01/dget22 do,
// so matrices scaled near overflow or underflow give finite, meaningful ratios.
//
// Matrices: column-major, plain pointers with leading dimensions, int64_t sizes.
#ifndef GPUSVD_UTIL_RATIOS_HPP
#define GPUSVD_UTIL_RATIOS_HPP

#include <cblas.h>

#include <algorithm>
#include <complex>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

namespace gpusvd_util {

namespace detail {

inline void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                 int64_t lda, const double *B, int64_t ldb, double beta, double *C, int64_t ldc) {
    cblas_dgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                (blasint)m, (blasint)n, (blasint)k, alpha, A, (blasint)lda, B, (blasint)ldb, beta,
                C, (blasint)ldc);
}
inline void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                 int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    cblas_sgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                (blasint)m, (blasint)n, (blasint)k, alpha, A, (blasint)lda, B, (blasint)ldb, beta,
                C, (blasint)ldc);
}

/// LAPACK's (dbdt01-style) overflow-safe ratio resid / (anorm * scale * eps).
/// anorm == 0: resid / eps. NaN resid: NaN.
template <typename T>
double safe_ratio(T resid, T anorm, double scale) {
    const double eps = double(std::numeric_limits<T>::epsilon());
    const double r = double(resid), a = double(anorm);
    if (std::isnan(r) || std::isnan(a)) return std::numeric_limits<double>::quiet_NaN();
    if (std::isinf(r)) return std::numeric_limits<double>::infinity();
    scale = std::max(scale, 1.0);
    if (a <= 0.0) return r / eps;
    if (a >= r) return (r / a) / (scale * eps);
    if (a < 1.0) return (std::min(r, scale * a) / a) / (scale * eps);
    return std::min(r / a, scale) / (scale * eps);
}

}  // namespace detail

/// 1-norm (largest column sum of |a_ij|) of the m x n matrix A; NaN if A holds NaN.
template <typename T>
T norm1(int64_t m, int64_t n, const T *A, int64_t lda) {
    T best = T(0);
    for (int64_t j = 0; j < n; ++j) {
        T s = T(0);
        for (int64_t i = 0; i < m; ++i) s += std::fabs(A[i + j * lda]);
        if (std::isnan(s)) return s;
        best = std::max(best, s);
    }
    return best;
}

/// true if any of the m x n entries of A is NaN or Inf. (Deliberately independent of the
/// library's own screen in src/cpu/scan.cpp, so the tests do not reuse the code they check.)
template <typename T>
bool has_nonfinite(int64_t m, int64_t n, const T *A, int64_t lda) {
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i)
            if (!std::isfinite(A[i + j * lda])) return true;
    return false;
}

/// true if all m x n entries of A are NaN.
template <typename T>
bool all_nan(int64_t m, int64_t n, const T *A, int64_t lda) {
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i)
            if (!std::isnan(A[i + j * lda])) return false;
    return true;
}

/// SVD residual |A - U diag(S) V^T|_1 / (|A|_1 max(m,n) eps), with A m x n, U m x k, V n x k
/// (NOT transposed), k = min(m,n) unless given. |A| = 0: |U S V^T| / eps.
template <typename T>
double svd_residual(int64_t m, int64_t n, const T *A, int64_t lda, const T *S, const T *U,
                    int64_t ldu, const T *V, int64_t ldv, int64_t k = -1) {
    if (k < 0) k = std::min(m, n);
    if (m == 0 || n == 0) return 0.0;
    std::vector<T> US(static_cast<size_t>(m * std::max<int64_t>(k, 1))), E(static_cast<size_t>(m * n));
    for (int64_t p = 0; p < k; ++p)
        for (int64_t i = 0; i < m; ++i) US[i + p * m] = U[i + p * ldu] * S[p];
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) E[i + j * m] = A[i + j * lda];
    if (k > 0) detail::gemm(false, true, m, n, k, T(-1), US.data(), m, V, ldv, T(1), E.data(), m);
    return detail::safe_ratio(norm1(m, n, E.data(), m), norm1(m, n, A, lda),
                              double(std::max(m, n)));
}

/// Like svd_residual but with VT (k x n, V transposed): |A - U diag(S) VT|_1 / (|A| max(m,n) eps).
template <typename T>
double svd_residual_vt(int64_t m, int64_t n, int64_t k, const T *A, int64_t lda, const T *S,
                       const T *U, int64_t ldu, const T *VT, int64_t ldvt) {
    if (m == 0 || n == 0) return 0.0;
    std::vector<T> US(static_cast<size_t>(m * std::max<int64_t>(k, 1))), E(static_cast<size_t>(m * n));
    for (int64_t p = 0; p < k; ++p)
        for (int64_t i = 0; i < m; ++i) US[i + p * m] = U[i + p * ldu] * S[p];
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) E[i + j * m] = A[i + j * lda];
    if (k > 0)
        detail::gemm(false, false, m, n, k, T(-1), US.data(), m, VT, ldvt, T(1), E.data(), m);
    return detail::safe_ratio(norm1(m, n, E.data(), m), norm1(m, n, A, lda),
                              double(std::max(m, n)));
}

/// Orthogonality of the columns of Q (rows x cols): |I - Q^T Q|_1 / (rows eps).
template <typename T>
double orthogonality(int64_t rows, int64_t cols, const T *Q, int64_t ldq) {
    if (cols == 0) return 0.0;
    std::vector<T> G(static_cast<size_t>(cols * cols), T(0));
    for (int64_t i = 0; i < cols; ++i) G[i + i * cols] = T(1);
    if (rows > 0) detail::gemm(true, false, cols, cols, rows, T(-1), Q, ldq, Q, ldq, T(1), G.data(), cols);
    const double eps = double(std::numeric_limits<T>::epsilon());
    return double(norm1(cols, cols, G.data(), cols)) / (double(std::max<int64_t>(rows, 1)) * eps);
}

/// Orthogonality of the rows of Q (rows x cols, e.g. VT): |I - Q Q^T|_1 / (cols eps).
template <typename T>
double orthogonality_rows(int64_t rows, int64_t cols, const T *Q, int64_t ldq) {
    if (rows == 0) return 0.0;
    std::vector<T> G(static_cast<size_t>(rows * rows), T(0));
    for (int64_t i = 0; i < rows; ++i) G[i + i * rows] = T(1);
    if (cols > 0) detail::gemm(false, true, rows, rows, cols, T(-1), Q, ldq, Q, ldq, T(1), G.data(), rows);
    const double eps = double(std::numeric_limits<T>::epsilon());
    return double(norm1(rows, rows, G.data(), rows)) / (double(std::max<int64_t>(cols, 1)) * eps);
}

/// QR residual |A - Q R|_1 / (m |A|_1 eps): A m x n (the ORIGINAL matrix), Q m x k, R k x n
/// (only its upper trapezoid is used), k = min(m,n).
template <typename T>
double qr_residual(int64_t m, int64_t n, const T *A, int64_t lda, const T *Q, int64_t ldq,
                   const T *R, int64_t ldr) {
    const int64_t k = std::min(m, n);
    if (m == 0 || n == 0) return 0.0;
    std::vector<T> Ru(static_cast<size_t>(k * n), T(0)), E(static_cast<size_t>(m * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= std::min(j, k - 1); ++i) Ru[i + j * k] = R[i + j * ldr];
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) E[i + j * m] = A[i + j * lda];
    detail::gemm(false, false, m, n, k, T(-1), Q, ldq, Ru.data(), k, T(1), E.data(), m);
    return detail::safe_ratio(norm1(m, n, E.data(), m), norm1(m, n, A, lda), double(m));
}

/// Eigen-residual |A VR - VR W|_1 / (n |A|_1 eps) with LAPACK ?geev's real storage: a real
/// eigenvalue j (wi[j] == 0) has vector VR(:,j); a pair (j, j+1) with wi[j] > 0 has vector
/// VR(:,j) + i VR(:,j+1) for wr[j] + i wi[j] (W is block diagonal with [wr wi; -wi wr] blocks).
/// Pass VR = nullptr to get NaN.
template <typename T>
double eig_residual(int64_t n, const T *A, int64_t lda, const T *wr, const T *wi, const T *VR,
                    int64_t ldvr) {
    if (n == 0) return 0.0;
    if (!VR) return std::numeric_limits<double>::quiet_NaN();
    std::vector<T> E(static_cast<size_t>(n * n)), VW(static_cast<size_t>(n * n), T(0));
    // VW = VR * W
    for (int64_t j = 0; j < n; ++j) {
        if (wi[j] == T(0)) {
            for (int64_t i = 0; i < n; ++i) VW[i + j * n] = VR[i + j * ldvr] * wr[j];
        } else if (j + 1 < n) {
            const T a = wr[j], b = wi[j];
            for (int64_t i = 0; i < n; ++i) {
                const T x = VR[i + j * ldvr], y = VR[i + (j + 1) * ldvr];
                VW[i + j * n] = a * x - b * y;
                VW[i + (j + 1) * n] = b * x + a * y;
            }
            ++j;
        } else {  // a lone complex eigenvalue in the last column: not a valid ?geev output
            return std::numeric_limits<double>::quiet_NaN();
        }
    }
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) E[i + j * n] = -VW[i + j * n];
    detail::gemm(false, false, n, n, n, T(1), A, lda, VR, ldvr, T(1), E.data(), n);
    return detail::safe_ratio(norm1(n, n, E.data(), n), norm1(n, n, A, lda), double(n));
}

/// Bidiagonal SVD residual |B - U diag(S) VT|_1 / (|B|_1 n eps); B n x n from (d, e) (upper: e
/// on the superdiagonal, lower: subdiagonal), U n x n, VT n x n. d, e are the ORIGINAL entries.
template <typename T>
double bidiag_residual(int64_t n, bool upper, const T *d, const T *e, const T *S, const T *U,
                       int64_t ldu, const T *VT, int64_t ldvt) {
    if (n == 0) return 0.0;
    std::vector<T> B(static_cast<size_t>(n * n), T(0));
    for (int64_t i = 0; i < n; ++i) {
        B[i + i * n] = d[i];
        if (i + 1 < n) (upper ? B[i + (i + 1) * n] : B[(i + 1) + i * n]) = e[i];
    }
    return svd_residual_vt(n, n, n, B.data(), n, S, U, ldu, VT, ldvt);
}

/// Singular value comparison max_i |S_i - Sref_i| / (max_i |Sref_i| eps) (k values each, same
/// order; Sref may be of another precision, e.g. a double reference for float S). Sref all zero:
/// max |S_i| / eps.
template <typename T, typename R>
double sv_compare(int64_t k, const T *S, const R *Sref) {
    double diff = 0.0, smax = 0.0;
    for (int64_t i = 0; i < k; ++i) {
        const double d = std::fabs(double(S[i]) - double(Sref[i]));
        if (std::isnan(d)) return std::numeric_limits<double>::quiet_NaN();
        diff = std::max(diff, d);
        smax = std::max(smax, std::fabs(double(Sref[i])));
    }
    const double eps = double(std::numeric_limits<T>::epsilon());
    return smax > 0.0 ? (diff / smax) / eps : diff / eps;
}

/// Relative singular value comparison max_i |S_i - Sref_i| / (|Sref_i| eps). Sref may be a more
/// accurate (e.g. double or long double) reference. A zero Sref_i must be matched exactly (else
/// the ratio is infinite).
template <typename T, typename R>
double sv_relative(int64_t k, const T *S, const R *Sref) {
    const double eps = double(std::numeric_limits<T>::epsilon());
    double worst = 0.0;
    for (int64_t i = 0; i < k; ++i) {
        const long double d = std::fabs((long double)S[i] - (long double)Sref[i]);
        if (std::isnan((double)d)) return std::numeric_limits<double>::quiet_NaN();
        const long double r = std::fabs((long double)Sref[i]);
        double q;
        if (r == 0.0L)
            q = (d == 0.0L) ? 0.0 : std::numeric_limits<double>::infinity();
        else
            q = double(d / r) / eps;
        worst = std::max(worst, q);
    }
    return worst;
}

/// true if the k values are non-negative and in descending order (no NaN).
template <typename T>
bool is_sorted_desc_nonneg(int64_t k, const T *S) {
    for (int64_t i = 0; i < k; ++i) {
        if (!(S[i] >= T(0))) return false;
        if (i > 0 && !(S[i] <= S[i - 1])) return false;
    }
    return true;
}

/// true if the k values are in descending order (no NaN).
template <typename T>
bool is_sorted_desc(int64_t k, const T *S) {
    for (int64_t i = 0; i < k; ++i) {
        if (std::isnan(S[i])) return false;
        if (i > 0 && !(S[i] <= S[i - 1])) return false;
    }
    return true;
}

/// true if (wr, wi) follows ?geev's layout: every complex eigenvalue is the first of an adjacent
/// conjugate pair (wi[j] > 0, wr[j+1] == wr[j], wi[j+1] == -wi[j]); no NaN.
template <typename T>
bool eig_pairs_ok(int64_t n, const T *wr, const T *wi) {
    for (int64_t j = 0; j < n; ++j) {
        if (std::isnan(wr[j]) || std::isnan(wi[j])) return false;
        if (wi[j] == T(0)) continue;
        if (!(wi[j] > T(0)) || j + 1 >= n) return false;
        if (wr[j + 1] != wr[j] || wi[j + 1] != -wi[j]) return false;
        ++j;
    }
    return true;
}

/// Eigenvector normalisation check for ?geev-style VR: returns the largest of
/// | ||v||_2 - 1 | and |Im(v_p)| / |v_p| (p = the component of largest modulus) over all
/// eigenvectors v, divided by (n eps). 0 for a perfectly normalised VR.
template <typename T>
double eigvec_normalization(int64_t n, const T *wi, const T *VR, int64_t ldvr) {
    const double eps = double(std::numeric_limits<T>::epsilon());
    double worst = 0.0;
    for (int64_t j = 0; j < n; ++j) {
        const bool pair = wi[j] != T(0) && j + 1 < n;
        double nrm2 = 0.0, best = -1.0, best_im = 0.0;
        for (int64_t i = 0; i < n; ++i) {
            const double x = double(VR[i + j * ldvr]);
            const double y = pair ? double(VR[i + (j + 1) * ldvr]) : 0.0;
            const double mod2 = x * x + y * y;
            nrm2 += mod2;
            if (mod2 > best) best = mod2, best_im = (mod2 > 0 ? std::fabs(y) / std::sqrt(mod2) : 0);
        }
        const double dev = std::max(std::fabs(std::sqrt(nrm2) - 1.0), best_im);
        if (std::isnan(dev)) return std::numeric_limits<double>::quiet_NaN();
        worst = std::max(worst, dev);
        if (pair) ++j;
    }
    return worst / (double(std::max<int64_t>(n, 1)) * eps);
}

namespace detail {

// Kuhn's augmenting path for a bipartite matching under a distance threshold.
inline bool kuhn_try(int64_t u, const std::vector<double> &D, int64_t n, double thr,
                     std::vector<char> &seen, std::vector<int64_t> &match_of_ref) {
    for (int64_t v = 0; v < n; ++v) {
        if (D[static_cast<size_t>(u * n + v)] > thr || seen[static_cast<size_t>(v)]) continue;
        seen[static_cast<size_t>(v)] = 1;
        if (match_of_ref[static_cast<size_t>(v)] < 0 ||
            kuhn_try(match_of_ref[static_cast<size_t>(v)], D, n, thr, seen, match_of_ref)) {
            match_of_ref[static_cast<size_t>(v)] = u;
            return true;
        }
    }
    return false;
}

inline bool perfect_matching(const std::vector<double> &D, int64_t n, double thr) {
    std::vector<int64_t> match_of_ref(static_cast<size_t>(n), -1);
    std::vector<char> seen(static_cast<size_t>(n));
    for (int64_t u = 0; u < n; ++u) {
        std::fill(seen.begin(), seen.end(), 0);
        if (!kuhn_try(u, D, n, thr, seen, match_of_ref)) return false;
    }
    return true;
}

}  // namespace detail

/// Largest distance between n computed eigenvalues (wr + i wi) and n reference eigenvalues,
/// under the best one-to-one assignment (bottleneck matching; independent of ordering; exact for
/// n <= 256, greedy upper bound above), divided by (anorm eps). anorm = 0: divided by eps.
/// Any NaN gives NaN.
template <typename T, typename R>
double eig_match(int64_t n, const T *wr, const T *wi, const R *wr_ref, const R *wi_ref,
                 double anorm) {
    const double eps = double(std::numeric_limits<T>::epsilon());
    if (n == 0) return 0.0;
    std::vector<double> D(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
            const double d = std::hypot(double(wr[i]) - double(wr_ref[j]),
                                        double(wi[i]) - double(wi_ref[j]));
            if (std::isnan(d)) return std::numeric_limits<double>::quiet_NaN();
            D[static_cast<size_t>(i * n + j)] = d;
        }
    // Greedy upper bound: take pairs in increasing distance.
    std::vector<int64_t> order(static_cast<size_t>(n * n));
    std::iota(order.begin(), order.end(), int64_t(0));
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return D[static_cast<size_t>(a)] < D[static_cast<size_t>(b)]; });
    std::vector<char> used_c(static_cast<size_t>(n), 0), used_r(static_cast<size_t>(n), 0);
    double greedy = 0.0;
    int64_t matched = 0;
    for (int64_t idx : order) {
        const int64_t i = idx / n, j = idx % n;
        if (used_c[static_cast<size_t>(i)] || used_r[static_cast<size_t>(j)]) continue;
        used_c[static_cast<size_t>(i)] = used_r[static_cast<size_t>(j)] = 1;
        greedy = std::max(greedy, D[static_cast<size_t>(idx)]);
        if (++matched == n) break;
    }
    double best = greedy;
    if (n <= 256) {
        // Binary search for the smallest distance threshold admitting a perfect matching.
        std::vector<double> cand;
        for (double d : D)
            if (d <= greedy) cand.push_back(d);
        std::sort(cand.begin(), cand.end());
        cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
        size_t lo = 0, hi = cand.size() - 1;  // cand[hi] == greedy is feasible
        while (lo < hi) {
            const size_t mid = (lo + hi) / 2;
            if (detail::perfect_matching(D, n, cand[mid]))
                hi = mid;
            else
                lo = mid + 1;
        }
        best = cand[hi];
    }
    return anorm > 0.0 ? (best / anorm) / eps : best / eps;
}

// ---- Complex (and real) element types: the same ratios with conjugate transposes ------------
// E is float, double, std::complex<float> or std::complex<double>; sums are formed in
// std::complex<double>, eps is that of E's real type.

namespace detail {
template <typename E>
struct RealOf {
    using type = E;
};
template <typename R>
struct RealOf<std::complex<R>> {
    using type = R;
};
inline std::complex<double> widen(float x) { return x; }
inline std::complex<double> widen(double x) { return x; }
inline std::complex<double> widen(std::complex<float> x) { return {x.real(), x.imag()}; }
inline std::complex<double> widen(std::complex<double> x) { return x; }
template <typename E>
double eps_of() {
    return double(std::numeric_limits<typename RealOf<E>::type>::epsilon());
}
/// 1-norm of an m x n matrix held as complex<double>, ld m.
inline double norm1_wide(int64_t m, int64_t n, const std::vector<std::complex<double>> &A) {
    double best = 0;
    for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t i = 0; i < m; ++i) s += std::abs(A[static_cast<size_t>(i + j * m)]);
        if (std::isnan(s)) return s;
        best = std::max(best, s);
    }
    return best;
}
}  // namespace detail

/// 1-norm of the m x n matrix A (any element type), in double.
template <typename E>
double norm1_h(int64_t m, int64_t n, const E *A, int64_t lda) {
    double best = 0;
    for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t i = 0; i < m; ++i) s += std::abs(detail::widen(A[i + j * lda]));
        if (std::isnan(s)) return s;
        best = std::max(best, s);
    }
    return best;
}

/// |A - U diag(S) V^H|_1 / (|A|_1 max(m,n) eps): U m x k, V n x k (V itself, not V^H).
template <typename E, typename R>
double svd_residual_h(int64_t m, int64_t n, int64_t k, const E *A, int64_t lda, const R *S,
                      const E *U, int64_t ldu, const E *V, int64_t ldv) {
    std::vector<std::complex<double>> D(static_cast<size_t>(m * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            std::complex<double> acc = detail::widen(A[i + j * lda]);
            for (int64_t p = 0; p < k; ++p)
                acc -= detail::widen(U[i + p * ldu]) * double(S[p]) *
                       std::conj(detail::widen(V[j + p * ldv]));
            D[static_cast<size_t>(i + j * m)] = acc;
        }
    const double a = norm1_h(m, n, A, lda), r = detail::norm1_wide(m, n, D);
    return detail::safe_ratio(r, a, double(std::max(m, n))) *
           double(std::numeric_limits<double>::epsilon()) / detail::eps_of<E>();
}

/// |I - Q^H Q|_1 / (rows eps) of the columns of Q (rows x cols).
template <typename E>
double orthogonality_h(int64_t rows, int64_t cols, const E *Q, int64_t ldq) {
    std::vector<std::complex<double>> G(static_cast<size_t>(cols * cols));
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < cols; ++i) {
            std::complex<double> acc = i == j ? 1.0 : 0.0;
            for (int64_t r = 0; r < rows; ++r)
                acc -= std::conj(detail::widen(Q[r + i * ldq])) * detail::widen(Q[r + j * ldq]);
            G[static_cast<size_t>(i + j * cols)] = acc;
        }
    return detail::norm1_wide(cols, cols, G) / (double(std::max<int64_t>(rows, 1)) *
                                                 detail::eps_of<E>());
}

/// |A - Q R|_1 / (m |A|_1 eps): Q m x k, R k x n (upper trapezoid used), k = min(m,n).
template <typename E>
double qr_residual_h(int64_t m, int64_t n, const E *A, int64_t lda, const E *Q, int64_t ldq,
                     const E *R, int64_t ldr) {
    const int64_t k = std::min(m, n);
    std::vector<std::complex<double>> D(static_cast<size_t>(m * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            std::complex<double> acc = detail::widen(A[i + j * lda]);
            for (int64_t p = 0; p <= std::min(j, k - 1); ++p)
                acc -= detail::widen(Q[i + p * ldq]) * detail::widen(R[p + j * ldr]);
            D[static_cast<size_t>(i + j * m)] = acc;
        }
    const double a = norm1_h(m, n, A, lda), r = detail::norm1_wide(m, n, D);
    return detail::safe_ratio(r, a, double(m)) * double(std::numeric_limits<double>::epsilon()) /
           detail::eps_of<E>();
}

/// |A VR - VR diag(W)|_1 / (n |A|_1 eps) of complex eigenpairs (W n values, VR n x n).
template <typename C>
double eig_residual_c(int64_t n, const C *A, int64_t lda, const C *W, const C *VR,
                      int64_t ldvr) {
    std::vector<std::complex<double>> D(static_cast<size_t>(n * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            std::complex<double> acc = -detail::widen(VR[i + j * ldvr]) * detail::widen(W[j]);
            for (int64_t p = 0; p < n; ++p)
                acc += detail::widen(A[i + p * lda]) * detail::widen(VR[p + j * ldvr]);
            D[static_cast<size_t>(i + j * n)] = acc;
        }
    const double a = norm1_h(n, n, A, lda), r = detail::norm1_wide(n, n, D);
    return detail::safe_ratio(r, a, double(n)) * double(std::numeric_limits<double>::epsilon()) /
           detail::eps_of<C>();
}

/// ?geev's normalisation of complex VR: the largest over the columns of | ||v||_2 - 1 | / eps,
/// or +Inf where the component of largest modulus has a nonzero imaginary part.
template <typename C>
double eigvec_normalisation_c(int64_t n, const C *VR, int64_t ldvr) {
    double worst = 0;
    for (int64_t j = 0; j < n; ++j) {
        double ss = 0, big = -1;
        int64_t arg = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double a = std::abs(detail::widen(VR[i + j * ldvr]));
            ss += a * a;
            if (a > big) big = a, arg = i;
        }
        // ?geev makes the largest component real; ties in modulus are within rounding
        const double im = std::abs(detail::widen(VR[arg + j * ldvr]).imag());
        if (im > 4 * detail::eps_of<C>() * big)
            return std::numeric_limits<double>::infinity();
        worst = std::max(worst, std::abs(std::sqrt(ss) - 1.0) / detail::eps_of<C>());
    }
    return worst;
}

/// Distance between two sets of n complex values (the best matching, greedy by nearest) over
/// (max |ref| eps).
template <typename C>
double eigenvalue_match_c(int64_t n, const C *W, const C *ref) {
    std::vector<char> used(static_cast<size_t>(n), 0);
    double worst = 0, scale = 0;
    for (int64_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(detail::widen(ref[i])));
    for (int64_t i = 0; i < n; ++i) {
        int64_t best = -1;
        double d = std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < n; ++j) {
            if (used[static_cast<size_t>(j)]) continue;
            const double e = std::abs(detail::widen(W[i]) - detail::widen(ref[j]));
            if (e < d || best < 0) d = e, best = j;
        }
        if (best < 0 || std::isnan(d)) return std::numeric_limits<double>::quiet_NaN();
        used[static_cast<size_t>(best)] = 1;
        worst = std::max(worst, d);
    }
    return scale > 0 ? worst / (scale * detail::eps_of<C>()) : worst / detail::eps_of<C>();
}

}  // namespace gpusvd_util

#endif  // GPUSVD_UTIL_RATIOS_HPP
