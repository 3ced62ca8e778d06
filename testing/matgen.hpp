// gpusvd_util: deterministic test-matrix generator (header-only).
//
// Shared by the tests, the `gpusvd demo` CLI command and the benchmark. Not part of the library.
// All matrices are column-major with a leading dimension, sizes are int64_t, and everything is
// reproducible from a 64-bit seed (own RNG: splitmix64 seeding xoshiro256**, Box-Muller normals),
// independent of the C++ standard library's distributions.
//
// Matrices with prescribed singular values / eigenvalues are built in double precision and then
// rounded to T, so for T = float the singular values of the stored matrix are the prescribed ones
// up to float rounding of the entries (compare against a reference computed from the stored
// matrix, not against the prescribed values, when that matters).
#ifndef GPUSVD_UTIL_MATGEN_HPP
#define GPUSVD_UTIL_MATGEN_HPP

// Complex LAPACKE arguments as std::complex, as in the library (src/cpu/lapack.hpp).
#ifndef LAPACK_COMPLEX_CPP
#define LAPACK_COMPLEX_CPP
#endif
#ifndef lapack_complex_float
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#endif
#include <complex>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpusvd_util {

// ------------------------------------------------------------------------------------------------
// Random numbers
// ------------------------------------------------------------------------------------------------

/// Deterministic pseudo-random generator: xoshiro256** seeded through splitmix64.
class Rng {
public:
    explicit Rng(uint64_t seed = 1) { reseed(seed); }

    /// Restart the sequence from `seed`.
    void reseed(uint64_t seed) {
        uint64_t x = seed;
        for (auto &w : s_) w = splitmix64(x);
        have_spare_ = false;
    }

    /// Next raw 64-bit value.
    uint64_t next_u64() {
        const uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    /// Uniform double in [0, 1) with 53 random bits.
    double uniform() { return double(next_u64() >> 11) * 0x1.0p-53; }

    /// Uniform double in (0, 1] (never 0: safe for log).
    double uniform_pos() { return (double(next_u64() >> 11) + 1.0) * 0x1.0p-53; }

    /// Uniform double in [a, b).
    double uniform(double a, double b) { return a + (b - a) * uniform(); }

    /// Uniform integer in [0, n) (n > 0).
    uint64_t below(uint64_t n) { return next_u64() % n; }

    /// Standard normal N(0,1) by Box-Muller.
    double normal() {
        if (have_spare_) {
            have_spare_ = false;
            return spare_;
        }
        const double u1 = uniform_pos(), u2 = uniform();
        const double r = std::sqrt(-2.0 * std::log(u1));
        const double t = 6.283185307179586476925286766559 * u2;
        spare_ = r * std::sin(t);
        have_spare_ = true;
        return r * std::cos(t);
    }

    /// +1 or -1 with equal probability.
    double sign() { return (next_u64() >> 63) ? -1.0 : 1.0; }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    static uint64_t splitmix64(uint64_t &x) {
        uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    uint64_t s_[4];
    double spare_ = 0.0;
    bool have_spare_ = false;
};

namespace detail {

inline lapack_int geqrf(int64_t m, int64_t n, double *a, int64_t lda, double *tau) {
    return LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n, a, (lapack_int)lda, tau);
}
inline lapack_int orgqr(int64_t m, int64_t n, int64_t k, double *a, int64_t lda,
                        const double *tau) {
    return LAPACKE_dorgqr(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n, (lapack_int)k, a,
                          (lapack_int)lda, tau);
}

inline void check_lapack(lapack_int info, const char *what) {
    if (info != 0)
        throw std::runtime_error(std::string("gpusvd_util: ") + what + " failed, info = " +
                                 std::to_string(info));
}

/// Copy an m x n double matrix (ld = m) into T storage with leading dimension lda.
template <typename T>
void store(int64_t m, int64_t n, const double *src, T *A, int64_t lda) {
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) A[i + j * lda] = static_cast<T>(src[i + j * m]);
}

}  // namespace detail

// ------------------------------------------------------------------------------------------------
// Dense random matrices
// ------------------------------------------------------------------------------------------------

/// Fill the flat array p[0..count) with uniform values in (-1, 1), never exactly zero, from `seed`.
template <typename T>
void fill_uniform(T *p, size_t count, uint64_t seed) {
    Rng rng(seed);
    for (size_t i = 0; i < count; ++i) {
        T v;
        do {
            v = static_cast<T>(rng.uniform(-1.0, 1.0));
        } while (v == T(0));
        p[i] = v;
    }
}

/// Fill the m x n matrix A (leading dimension lda) with independent N(0,1) entries.
template <typename T>
void gaussian(Rng &rng, int64_t m, int64_t n, T *A, int64_t lda) {
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) A[i + j * lda] = static_cast<T>(rng.normal());
}

/// Return an m x n N(0,1) matrix (leading dimension m).
/// B C with B (m x 3) and C (3 x n) of integers in -3..3: exactly rank 3 (the products and sums
/// are exact), every column past the third a rounding-level residual away from dependent.
template <typename T>
std::vector<T> integer_rank3(Rng &rng, int64_t m, int64_t n) {
    std::vector<double> B(static_cast<size_t>(m * 3)), C(static_cast<size_t>(3 * n));
    for (double &x : B) x = double(int64_t(rng.below(7)) - 3);
    for (double &x : C) x = double(int64_t(rng.below(7)) - 3);
    std::vector<T> A(static_cast<size_t>(m * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            double s = 0;
            for (int64_t p = 0; p < 3; ++p) s += B[size_t(i + p * m)] * C[size_t(p + j * 3)];
            A[size_t(i + j * m)] = T(s);
        }
    return A;
}

template <typename T>
std::vector<T> gaussian(Rng &rng, int64_t m, int64_t n) {
    std::vector<T> A(static_cast<size_t>(std::max<int64_t>(m * n, 0)));
    gaussian(rng, m, n, A.data(), std::max<int64_t>(m, 1));
    return A;
}

/// Fill the m x n matrix A with uniform entries in [lo, hi).
template <typename T>
void uniform(Rng &rng, int64_t m, int64_t n, T *A, int64_t lda, double lo = -1.0,
             double hi = 1.0) {
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) A[i + j * lda] = static_cast<T>(rng.uniform(lo, hi));
}

namespace detail {
/// QR of a Gaussian m x n matrix (its columns centred first when `centred`), the signs of R's
/// diagonal folded into Q.
template <typename T>
void orthonormal_columns(Rng &rng, int64_t m, int64_t n, T *Q, int64_t ldq, bool centred) {
    if (m == 0 || n == 0) return;
    std::vector<double> W(static_cast<size_t>(m * n)), tau(static_cast<size_t>(n));
    gaussian(rng, m, n, W.data(), m);
    for (int64_t j = 0; centred && j < n; ++j) {
        double mu = 0;
        for (int64_t i = 0; i < m; ++i) mu += W[i + j * m];
        mu /= double(m);
        for (int64_t i = 0; i < m; ++i) W[i + j * m] -= mu;
    }
    check_lapack(geqrf(m, n, W.data(), m, tau.data()), "dgeqrf");
    std::vector<double> rsign(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) rsign[j] = W[j + j * m] < 0 ? -1.0 : 1.0;
    check_lapack(orgqr(m, n, n, W.data(), m, tau.data()), "dorgqr");
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) W[i + j * m] *= rsign[j];
    store(m, n, W.data(), Q, ldq);
}
}  // namespace detail

/// Random m x n matrix Q with orthonormal columns (m >= n), Haar distributed: QR of a Gaussian
/// matrix with the signs of R's diagonal folded into Q. Computed in double, stored as T.
template <typename T>
void random_orthonormal(Rng &rng, int64_t m, int64_t n, T *Q, int64_t ldq) {
    if (n > m) throw std::invalid_argument("gpusvd_util::random_orthonormal: needs m >= n");
    detail::orthonormal_columns(rng, m, n, Q, ldq, false);
}

/// As random_orthonormal, with every column summing to zero (orthogonal to the ones vector too,
/// so n <= m - 1): the centred factor of data with prescribed principal components.
template <typename T>
void random_centred_orthonormal(Rng &rng, int64_t m, int64_t n, T *Q, int64_t ldq) {
    if (n > m - 1 && n > 0)
        throw std::invalid_argument("gpusvd_util::random_centred_orthonormal: needs m > n");
    detail::orthonormal_columns(rng, m, n, Q, ldq, true);
}

/// Return a random m x n matrix with orthonormal columns (m >= n, leading dimension m).
template <typename T>
std::vector<T> random_orthonormal(Rng &rng, int64_t m, int64_t n) {
    std::vector<T> Q(static_cast<size_t>(std::max<int64_t>(m * n, 0)));
    random_orthonormal(rng, m, n, Q.data(), std::max<int64_t>(m, 1));
    return Q;
}

// ------------------------------------------------------------------------------------------------
// Singular value distributions (after LAPACK's dlatms MODE)
// ------------------------------------------------------------------------------------------------

/// How prescribed singular values are spread between 1 and 1/cond.
enum class SigmaMode {
    Geometric,        ///< sigma_i = cond^(-i/(k-1))                        (dlatms mode 3)
    Arithmetic,       ///< sigma_i = 1 - i/(k-1) (1 - 1/cond)               (dlatms mode 4)
    ClusterOneSmall,  ///< all 1 except the last, 1/cond                    (dlatms mode 2)
    ClusterOneLarge,  ///< all 1/cond except the first, 1                   (dlatms mode 1)
    OneSmall,         ///< random in [0.5, 1] except the last, 1/cond
    LogUniform,       ///< random, log-uniform in [1/cond, 1], sorted       (dlatms mode 5)
    RankDeficient,    ///< geometric between 1 and 1/cond for the first `rank`, then zeros
};

/// All SigmaMode values (handy for parameterized tests).
inline const std::vector<SigmaMode> &all_sigma_modes() {
    static const std::vector<SigmaMode> modes = {
        SigmaMode::Geometric,       SigmaMode::Arithmetic, SigmaMode::ClusterOneSmall,
        SigmaMode::ClusterOneLarge, SigmaMode::OneSmall,   SigmaMode::LogUniform,
        SigmaMode::RankDeficient};
    return modes;
}

/// Short name of a SigmaMode ("geometric", "arithmetic", ...).
inline const char *sigma_mode_name(SigmaMode mode) {
    switch (mode) {
        case SigmaMode::Geometric: return "geometric";
        case SigmaMode::Arithmetic: return "arithmetic";
        case SigmaMode::ClusterOneSmall: return "cluster_one_small";
        case SigmaMode::ClusterOneLarge: return "cluster_one_large";
        case SigmaMode::OneSmall: return "one_small";
        case SigmaMode::LogUniform: return "log_uniform";
        case SigmaMode::RankDeficient: return "rank_deficient";
    }
    return "unknown";
}

/// k singular values in descending order, largest 1, following `mode` with condition number
/// `cond` (>= 1). `rank` (RankDeficient only; default k/2) is the number of non-zero values.
inline std::vector<double> singular_values(Rng &rng, SigmaMode mode, int64_t k, double cond,
                                           int64_t rank = -1) {
    std::vector<double> s(static_cast<size_t>(std::max<int64_t>(k, 0)), 1.0);
    if (k <= 0) return s;
    const double small = 1.0 / cond;
    auto geometric = [&](int64_t r) {
        for (int64_t i = 0; i < r; ++i)
            s[i] = (r == 1) ? 1.0 : std::pow(cond, -double(i) / double(r - 1));
    };
    switch (mode) {
        case SigmaMode::Geometric: geometric(k); break;
        case SigmaMode::Arithmetic:
            for (int64_t i = 0; i < k; ++i)
                s[i] = (k == 1) ? 1.0 : 1.0 - double(i) / double(k - 1) * (1.0 - small);
            break;
        case SigmaMode::ClusterOneSmall:
            if (k > 1) s[k - 1] = small;
            break;
        case SigmaMode::ClusterOneLarge:
            for (int64_t i = 1; i < k; ++i) s[i] = small;
            break;
        case SigmaMode::OneSmall:
            for (int64_t i = 1; i < k; ++i) s[i] = rng.uniform(0.5, 1.0);
            if (k > 1) s[k - 1] = small;
            break;
        case SigmaMode::LogUniform:
            for (int64_t i = 1; i < k; ++i) s[i] = std::exp(-rng.uniform() * std::log(cond));
            break;
        case SigmaMode::RankDeficient: {
            const int64_t r = rank < 0 ? k / 2 : std::min(rank, k);
            geometric(r);
            for (int64_t i = r; i < k; ++i) s[i] = 0.0;
            break;
        }
    }
    std::sort(s.begin(), s.end(), [](double a, double b) { return a > b; });
    return s;
}

/// A (m x n, any shape) = U diag(sigma) V^T with random orthonormal U (m x k), V (n x k),
/// k = min(m,n); sigma holds k values (any order). Built in double, stored as T.
template <typename T>
void prescribed_sv(Rng &rng, int64_t m, int64_t n, const double *sigma, T *A, int64_t lda) {
    const int64_t k = std::min(m, n);
    if (m == 0 || n == 0) return;
    std::vector<double> U(static_cast<size_t>(m * k)), V(static_cast<size_t>(n * k)), W(static_cast<size_t>(m * n), 0.0);
    random_orthonormal(rng, m, k, U.data(), m);
    random_orthonormal(rng, n, k, V.data(), n);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t p = 0; p < k; ++p) {
            const double f = sigma[p] * V[j + p * n];
            if (f == 0.0) continue;
            for (int64_t i = 0; i < m; ++i) W[i + j * m] += U[i + p * m] * f;
        }
    detail::store(m, n, W.data(), A, lda);
}

/// Convenience: matrix with singular values from singular_values(rng, mode, min(m,n), cond),
/// leading dimension m.
template <typename T>
std::vector<T> prescribed_sv(Rng &rng, int64_t m, int64_t n, SigmaMode mode, double cond,
                             int64_t rank = -1) {
    std::vector<T> A(static_cast<size_t>(std::max<int64_t>(m * n, 0)));
    const std::vector<double> s = singular_values(rng, mode, std::min(m, n), cond, rank);
    prescribed_sv(rng, m, n, s.data(), A.data(), std::max<int64_t>(m, 1));
    return A;
}

/// Graded matrix D1 * B * D2: B Gaussian m x n, D1 = diag(row_lo^(i/(m-1))), D2 =
/// diag(col_lo^(j/(n-1))), so rows are graded from 1 down to row_lo and columns from 1 down to
/// col_lo (use 1 for no grading on that side; e.g. col_lo = 1e-10 for a column-graded matrix,
/// whose small singular values one-sided Jacobi determines to high relative accuracy).
template <typename T>
void graded(Rng &rng, int64_t m, int64_t n, T *A, int64_t lda, double row_lo, double col_lo) {
    for (int64_t j = 0; j < n; ++j) {
        const double cj = (n > 1) ? std::pow(col_lo, double(j) / double(n - 1)) : 1.0;
        for (int64_t i = 0; i < m; ++i) {
            const double ri = (m > 1) ? std::pow(row_lo, double(i) / double(m - 1)) : 1.0;
            A[i + j * lda] = static_cast<T>(ri * rng.normal() * cj);
        }
    }
}

/// Set the m x n matrix A to zero.
template <typename T>
void zero(int64_t m, int64_t n, T *A, int64_t lda) {
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) A[i + j * lda] = T(0);
}

/// Set the m x n matrix A to the identity (ones on the main diagonal, any shape).
template <typename T>
void identity(int64_t m, int64_t n, T *A, int64_t lda) {
    zero(m, n, A, lda);
    for (int64_t i = 0; i < std::min(m, n); ++i) A[i + i * lda] = T(1);
}

// ------------------------------------------------------------------------------------------------
// Scaling near overflow / underflow
// ------------------------------------------------------------------------------------------------

/// Largest |a_ij| of the m x n matrix A.
template <typename T>
T max_abs(int64_t m, int64_t n, const T *A, int64_t lda) {
    T r = T(0);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) r = std::max(r, T(std::fabs(A[i + j * lda])));
    return r;
}

/// Target max|a_ij| for "near overflow" tests: overflow * eps (LAPACK's drivers' OVFL*ULP),
/// divided by `headroom` (default 1). With this largest entry, sums of up to ~1/eps entries
/// (norms, residuals, products with orthonormal factors) cannot overflow. For algorithms that form
/// squares of entries (dot products of columns), use near_overflow_sqrt_max().
template <typename T>
T near_overflow_max(double headroom = 1.0) {
    return static_cast<T>(double(std::numeric_limits<T>::max()) *
                          double(std::numeric_limits<T>::epsilon()) / headroom);
}

/// Target max|a_ij| sqrt(overflow) * eps: products of two entries summed over ~1/eps terms still
/// cannot overflow.
template <typename T>
T near_overflow_sqrt_max() {
    return static_cast<T>(std::sqrt(double(std::numeric_limits<T>::max())) *
                          double(std::numeric_limits<T>::epsilon()));
}

/// Target max|a_ij| for "near underflow" tests: underflow / eps (LAPACK's UNFL*ULPINV), times
/// `headroom` (default 1): entries eps times smaller than the largest stay normalised numbers.
template <typename T>
T near_underflow_max(double headroom = 1.0) {
    return static_cast<T>(double(std::numeric_limits<T>::min()) /
                          double(std::numeric_limits<T>::epsilon()) * headroom);
}

/// Scale the m x n matrix A so that its largest |entry| equals `target` (a power-of-two-free
/// factor is applied in two steps so the factor itself cannot overflow). Returns the factor
/// applied as a double (may be inf/0 for float targets beyond double range: not possible for
/// the targets above). A zero matrix is left unchanged (returns 1).
template <typename T>
double scale_max_abs(int64_t m, int64_t n, T *A, int64_t lda, T target) {
    const double amax = double(max_abs(m, n, A, lda));
    if (amax == 0.0) return 1.0;
    // Apply target/amax as (target) * (1/amax) in long double: exact range for both precisions.
    const long double f = (long double)target / (long double)amax;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i)
            A[i + j * lda] = static_cast<T>((long double)A[i + j * lda] * f);
    return double(f);
}

/// Multiply the flat array p[0..count) by s (computed in long double, then rounded to T).
template <typename T>
void scale(T *p, size_t count, long double s) {
    for (size_t i = 0; i < count; ++i) p[i] = static_cast<T>((long double)p[i] * s);
}

// ------------------------------------------------------------------------------------------------
// Bidiagonal matrices
// ------------------------------------------------------------------------------------------------

/// How random bidiagonal entries are drawn.
enum class BidiagMode {
    Random,     ///< d, e independent N(0,1)
    Graded,     ///< |d_i|, |e_i| ~ lo^(i/(n-1)) * U[0.5,1] with random signs (lo = `param`)
    Clustered,  ///< d_i = 1 + tiny (param * U[-1,1]), e_i = param * U[-1,1]: singular values near 1
    ZeroDiag,   ///< like Random, with every third diagonal entry exactly zero
};

/// Fill d (n entries) and e (n-1 entries; may be NULL when n <= 1) with a random bidiagonal.
/// `param`: Graded: the smallest scale (e.g. 1e-15); Clustered: the perturbation size (e.g.
/// 1e-8); ignored otherwise.
template <typename T>
void random_bidiagonal(Rng &rng, int64_t n, T *d, T *e, BidiagMode mode, double param = 1e-15) {
    for (int64_t i = 0; i < n; ++i) {
        double di = 0, ei = 0;
        switch (mode) {
            case BidiagMode::Random:
            case BidiagMode::ZeroDiag:
                di = rng.normal();
                ei = rng.normal();
                if (mode == BidiagMode::ZeroDiag && i % 3 == 1) di = 0.0;
                break;
            case BidiagMode::Graded: {
                const double g = (n > 1) ? std::pow(param, double(i) / double(n - 1)) : 1.0;
                const double g2 =
                    (n > 1) ? std::pow(param, (double(i) + 0.5) / double(n - 1)) : 1.0;
                di = rng.sign() * g * rng.uniform(0.5, 1.0);
                ei = rng.sign() * g2 * rng.uniform(0.5, 1.0);
                break;
            }
            case BidiagMode::Clustered:
                di = 1.0 + param * rng.uniform(-1.0, 1.0);
                ei = param * rng.uniform(-1.0, 1.0);
                break;
        }
        d[i] = static_cast<T>(di);
        if (i + 1 < n && e) e[i] = static_cast<T>(ei);
    }
}

/// Expand the bidiagonal (d, e) into a dense n x n matrix B (upper: e on the superdiagonal;
/// lower: on the subdiagonal).
template <typename T>
void bidiagonal_to_dense(int64_t n, const T *d, const T *e, bool upper, T *B, int64_t ldb) {
    zero(n, n, B, ldb);
    for (int64_t i = 0; i < n; ++i) {
        B[i + i * ldb] = d[i];
        if (i + 1 < n) {
            if (upper)
                B[i + (i + 1) * ldb] = e[i];
            else
                B[(i + 1) + i * ldb] = e[i];
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Matrices for eigenproblems
// ------------------------------------------------------------------------------------------------

/// Random general n x n matrix (N(0,1) entries) for eigenproblems.
template <typename T>
void random_general(Rng &rng, int64_t n, T *A, int64_t lda) {
    gaussian(rng, n, n, A, lda);
}

/// Companion matrix (n x n, leading dimension lda) of the monic polynomial whose roots are
/// re[i] + 1i*im[i], i < n. Complex roots must come in conjugate pairs (so the coefficients are
/// real). Ones on the subdiagonal, the last column holds -c_0 .. -c_{n-1}. Coefficients are
/// computed in long double.
template <typename T>
void companion(int64_t n, const double *re, const double *im, T *A, int64_t lda) {
    // Polynomial coefficients, complex arithmetic, c[0..n], c[n] = 1.
    std::vector<long double> cr(static_cast<size_t>(n + 1), 0.0L), ci(static_cast<size_t>(n + 1), 0.0L);
    cr[0] = 1.0L;  // start with p(x) = 1, c stored lowest degree first
    for (int64_t r = 0; r < n; ++r) {
        // p(x) <- p(x) * (x - z)
        const long double zr = re[r], zi = im[r];
        for (int64_t j = r + 1; j >= 0; --j) {
            long double nr = (j > 0 ? cr[j - 1] : 0.0L), ni = (j > 0 ? ci[j - 1] : 0.0L);
            if (j <= r) {
                nr -= zr * cr[j] - zi * ci[j];
                ni -= zr * ci[j] + zi * cr[j];
            }
            cr[j] = nr;
            ci[j] = ni;
        }
    }
    zero(n, n, A, lda);
    for (int64_t i = 1; i < n; ++i) A[i + (i - 1) * lda] = T(1);
    for (int64_t i = 0; i < n; ++i) A[i + (n - 1) * lda] = static_cast<T>(-cr[i]);
}

/// n x n Jordan block: lambda on the diagonal, ones on the superdiagonal.
template <typename T>
void jordan_block(int64_t n, double lambda, T *A, int64_t lda) {
    zero(n, n, A, lda);
    for (int64_t i = 0; i < n; ++i) {
        A[i + i * lda] = static_cast<T>(lambda);
        if (i + 1 < n) A[i + (i + 1) * lda] = T(1);
    }
}

/// n x n matrix whose eigenvalues are complex conjugate pairs r_j (cos t_j +- i sin t_j) (plus
/// one real eigenvalue when n is odd): Q^T B Q with B block diagonal of 2 x 2 scaled rotations
/// [a b; -b a] and Q random orthogonal (so the eigenvalues are well conditioned). r_j log-uniform
/// in [1/spread, 1] (spread >= 1), t_j uniform in (0.05, pi - 0.05). The exact eigenvalues are
/// returned in wr/wi (n entries each; may be NULL): pairs adjacent, positive imaginary part first.
template <typename T>
void complex_pairs(Rng &rng, int64_t n, T *A, int64_t lda, double *wr = nullptr,
                   double *wi = nullptr, double spread = 1.0) {
    if (n <= 0) return;
    std::vector<double> B(static_cast<size_t>(n * n), 0.0);
    for (int64_t j = 0; j + 1 < n; j += 2) {
        const double r = std::exp(-rng.uniform() * std::log(spread));
        const double t = rng.uniform(0.05, 3.141592653589793 - 0.05);
        const double a = r * std::cos(t), b = r * std::sin(t);
        B[j + j * n] = a;
        B[j + (j + 1) * n] = b;
        B[(j + 1) + j * n] = -b;
        B[(j + 1) + (j + 1) * n] = a;
        if (wr) wr[j] = a, wr[j + 1] = a;
        if (wi) wi[j] = b, wi[j + 1] = -b;
    }
    if (n % 2 == 1) {
        const double lam = rng.sign() * rng.uniform(0.1, 1.0);
        B[(n - 1) + (n - 1) * n] = lam;
        if (wr) wr[n - 1] = lam;
        if (wi) wi[n - 1] = 0.0;
    }
    std::vector<double> Q(static_cast<size_t>(n * n)), BQ(static_cast<size_t>(n * n), 0.0), W(static_cast<size_t>(n * n), 0.0);
    random_orthonormal(rng, n, n, Q.data(), n);
    for (int64_t j = 0; j < n; ++j)  // BQ = B * Q
        for (int64_t p = 0; p < n; ++p)
            for (int64_t i = 0; i < n; ++i) BQ[i + j * n] += B[i + p * n] * Q[p + j * n];
    for (int64_t j = 0; j < n; ++j)  // W = Q^T * BQ
        for (int64_t i = 0; i < n; ++i) {
            double s = 0.0;
            for (int64_t p = 0; p < n; ++p) s += Q[p + i * n] * BQ[p + j * n];
            W[i + j * n] = s;
        }
    detail::store(n, n, W.data(), A, lda);
}

/// n x n matrix Q^T diag(lambda) Q with Q random orthogonal: symmetric, eigenvalues `lambda`.
template <typename T>
void symmetric_with_eigenvalues(Rng &rng, int64_t n, const double *lambda, T *A, int64_t lda) {
    if (n <= 0) return;
    std::vector<double> Q(static_cast<size_t>(n * n)), W(static_cast<size_t>(n * n), 0.0);
    random_orthonormal(rng, n, n, Q.data(), n);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            double s = 0.0;
            for (int64_t p = 0; p < n; ++p) s += Q[p + i * n] * lambda[p] * Q[p + j * n];
            W[i + j * n] = s;
        }
    detail::store(n, n, W.data(), A, lda);
}

// ---- Complex test matrices ------------------------------------------------------------------

/// Random m x n complex matrix with orthonormal columns (m >= n, unitary-Haar): the QR of a
/// complex Gaussian matrix with the phases of R's diagonal folded into Q. In complex<double>.
inline void random_unitary(Rng &rng, int64_t m, int64_t n, std::complex<double> *Q, int64_t ldq) {
    if (m == 0 || n == 0) return;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) Q[i + j * ldq] = {rng.normal(), rng.normal()};
    std::vector<std::complex<double>> tau(static_cast<size_t>(n));
    detail::check_lapack(LAPACKE_zgeqrf(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n, Q,
                                        (lapack_int)ldq, tau.data()),
                         "zgeqrf");
    std::vector<std::complex<double>> phase(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
        const std::complex<double> d = Q[j + j * ldq];
        phase[static_cast<size_t>(j)] = std::abs(d) > 0 ? d / std::abs(d) : 1.0;
    }
    detail::check_lapack(LAPACKE_zungqr(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n,
                                        (lapack_int)n, Q, (lapack_int)ldq, tau.data()),
                         "zungqr");
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) Q[i + j * ldq] *= phase[static_cast<size_t>(j)];
}

/// A (m x n, complex<T>, leading dimension lda) = U diag(sigma) V^H with random U (m x k),
/// V (n x k) with orthonormal columns, k = min(m,n). Built in complex<double>.
template <typename T>
void prescribed_sv_complex(Rng &rng, int64_t m, int64_t n, const double *sigma,
                           std::complex<T> *A, int64_t lda) {
    const int64_t k = std::min(m, n);
    if (m == 0 || n == 0) return;
    std::vector<std::complex<double>> U(static_cast<size_t>(m * k)), V(static_cast<size_t>(n * k));
    random_unitary(rng, m, k, U.data(), m);
    random_unitary(rng, n, k, V.data(), n);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            std::complex<double> acc = 0;
            for (int64_t p = 0; p < k; ++p)
                acc += U[static_cast<size_t>(i + p * m)] * sigma[p] *
                       std::conj(V[static_cast<size_t>(j + p * n)]);
            A[i + j * lda] = std::complex<T>(T(acc.real()), T(acc.imag()));
        }
}

/// m x n complex matrix (leading dimension m) with singular values singular_values(rng, mode,
/// min(m,n), cond, rank).
template <typename T>
std::vector<std::complex<T>> prescribed_sv_complex(Rng &rng, int64_t m, int64_t n,
                                                   SigmaMode mode, double cond,
                                                   int64_t rank = -1) {
    std::vector<std::complex<T>> A(static_cast<size_t>(std::max<int64_t>(m * n, 0)));
    const std::vector<double> s = singular_values(rng, mode, std::min(m, n), cond, rank);
    prescribed_sv_complex(rng, m, n, s.data(), A.data(), std::max<int64_t>(m, 1));
    return A;
}

/// Complex Gaussian m x n matrix (ld m), rows graded from 1 to row_lo and columns from 1 to
/// col_lo, as graded() for real data.
template <typename T>
std::vector<std::complex<T>> graded_complex(Rng &rng, int64_t m, int64_t n, double row_lo,
                                            double col_lo) {
    std::vector<std::complex<T>> A(static_cast<size_t>(m * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            const double r = m > 1 ? std::pow(row_lo, double(i) / double(m - 1)) : 1.0;
            const double c = n > 1 ? std::pow(col_lo, double(j) / double(n - 1)) : 1.0;
            A[static_cast<size_t>(i + j * m)] =
                std::complex<T>(T(r * c * rng.normal()), T(r * c * rng.normal()));
        }
    return A;
}

}  // namespace gpusvd_util

#endif  // GPUSVD_UTIL_MATGEN_HPP
