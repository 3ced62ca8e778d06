// Numerics across the whole floating-point range, written once for both backends: test_range runs
// these checks on GPUSVD_BACKEND_CPU, test_gpu_range on GPUSVD_BACKEND_GPU (the same matrices).
//
// Every routine gets matrices from the generator, normalised so that the largest entry lies in
// [1, 2), then scaled by 2^e for every e of range_scales(): from the largest e at which every
// exact output stays below max/2 (the outputs within a factor 4 of overflow; the entries at most
// in the top binade), through +-1000 and +-500 (double; +-100 and +-50 in float) and 0, to the
// smallest normal binade and entries that are all subnormal. Scaling by 2^e is exact apart from
// the rounding of entries pushed below the normal range; the scaled matrix is the input, and its
// copy scaled back by 2^-e (exact) is the problem the results are compared with. The outputs are
// scaled back the same way (exact for the O(1) values they have then), so every ratio is computed
// on numbers of order one:
//   - info 0 and no NaN/Inf in any output whose exact value is representable;
//   - DESIGN.md's ratios (residual, orthogonality, values against LAPACK on the unscaled
//     problem). An output on the subnormal grid is at best the exact value rounded, off by half
//     a subnormal spacing delta = denorm_min 2^-e (unscaled units), so a residual's eps |A|
//     becomes eps |A| + k delta (floored()); orthogonality gets no such allowance.
//   - pca's explained variance scales by 2^2e where the data scales by 2^e, so it leaves the
//     range where nothing else does: it must be the exact value rounded (+Inf above the largest
//     finite value, subnormal or 0 below the normal range; expect_rounded()).
// The regression cases at the end are the inputs of the range bugs found in the CPU backend, at
// the magnitudes they were reported with.
// GPUSVD_TEST_VERBOSE=1 prints the worst ratio of every routine and scale.
#pragma once

#include <type_traits>

#include "bdsvd_checks.hpp"
#include "geev_checks.hpp"
#include "pca_checks.hpp"
#include "svd_checks.hpp"

namespace gpusvd_test {
namespace range {

template <typename T>
using lim = std::numeric_limits<T>;

constexpr double kQrThreshold = 30.0;  // DESIGN.md: QR ratios < 30

/// One scaling of a problem whose largest entry is in [1, 2): the input is multiplied by 2^e.
struct Scale {
    int e;
    const char *what;
};

/// The scales of a problem whose largest exact output (in magnitude) is `big` at e = 0.
template <typename T>
std::vector<Scale> range_scales(long double big) {
    const int top =
        std::min(lim<T>::max_exponent - 2 - int(std::ilogb(big)), lim<T>::max_exponent - 1);
    const bool dbl = lim<T>::max_exponent > 128;
    const int far = dbl ? 1000 : 100, mid = dbl ? 500 : 50;
    return {{top, "outputs near overflow"},
            {far, "large"},
            {mid, "large"},
            {0, "unscaled"},
            {-mid, "small"},
            {-far, "small"},
            {lim<T>::min_exponent - 1, "largest entry in the smallest normal binade"},
            {lim<T>::min_exponent - 1 - lim<T>::digits / 2, "all entries subnormal"}};
}

inline std::string describe(const Scale &s) {
    return "scaled by 2^" + std::to_string(s.e) + " (" + s.what + ")";
}

/// x 2^e for each of the m x n entries of A (leading dimension lda), into an m x n array.
template <typename T>
std::vector<T> times_pow2(int64_t m, int64_t n, const T *A, int64_t lda, int e) {
    std::vector<T> out(sz(m * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) out[sz(i + j * m)] = std::ldexp(A[i + j * lda], e);
    return out;
}

template <typename T>
std::vector<T> times_pow2(const std::vector<T> &v, int e) {
    return times_pow2(int64_t(v.size()), 1, v.data(), int64_t(v.size()), e);
}

/// A scaled by the power of two that brings its largest entry into [1, 2).
template <typename T>
std::vector<T> normalised(std::vector<T> A) {
    T amax = 0;
    for (T x : A) amax = std::max(amax, std::fabs(x));
    return amax > 0 ? times_pow2(A, -std::ilogb(amax)) : A;
}

/// The spacing of T's subnormals (denorm_min) in the units of the problem scaled back by 2^-e.
template <typename T>
double spacing(int e) {
    return double(std::ldexp((long double)lim<T>::denorm_min(), -e));
}

/// A ratio r = resid / (c |A| eps) recomputed as resid / (c (|A| eps + floor)).
inline double floored(double r, double anorm_eps, double floor) {
    return anorm_eps + floor > 0 ? r * anorm_eps / (anorm_eps + floor) : r;
}

/// EXPECTs x (in T) to be the exact value t rounded, within tol: +-Inf where |t| > 2 max, finite
/// and |x - t| <= tol where |t| < max / 2 (in between, near the largest finite value, either).
template <typename T>
void expect_rounded(T x, long double t, long double tol, const char *what, int64_t j) {
    const long double big = lim<T>::max();
    if (std::fabs(t) > 2 * big) {
        EXPECT_TRUE(std::isinf(x) && (x > 0) == (t > 0))
            << what << " " << j << " = " << x << ", exact " << double(t) << ": overflows";
    } else if (std::fabs(t) < big / 2) {
        EXPECT_TRUE(std::isfinite(x)) << what << " " << j << " = " << x << " is representable";
        EXPECT_LE(std::fabs((long double)x - t), tol)
            << what << " " << j << " = " << x << ", exact " << double(t);
    }
}

template <typename T>
struct Problem {
    std::string name;
    int64_t m, n;
    std::vector<T> A;  // m x n, leading dimension m, largest entry in [1, 2)
};

template <typename T>
Problem<T> problem(std::string name, int64_t m, int64_t n, std::vector<T> A) {
    return {std::move(name), m, n, normalised(std::move(A))};
}

inline void report(const char *routine, const std::string &name, const Scale &s, double worst) {
    if (verbose())
        std::printf("  %s %s 2^%d: worst ratio %.3g\n", routine, name.c_str(), s.e, worst);
}

// ------------------------------------------------------------------------------------------------
// gesvj
// ------------------------------------------------------------------------------------------------

/// EXPECTs A_b = U diag(S 2^-e) V^T (A_b m x n, leading dimension m: the unscaled problem) with
/// DESIGN.md's SVD ratios; U and V may be NULL (values only). Returns the worst ratio.
template <typename T>
double expect_svd_scaled(int64_t m, int64_t n, const std::vector<T> &Ab, int e, int info,
                         const T *S, const T *U, int64_t ldu, const T *V, int64_t ldv) {
    const int64_t k = std::min(m, n);
    EXPECT_EQ(info, 0);
    EXPECT_FALSE(has_nonfinite(k, 1, S, k)) << "S holds NaN/Inf";
    if (U) {
        EXPECT_FALSE(has_nonfinite(m, k, U, ldu)) << "U holds NaN/Inf";
    }
    if (V) {
        EXPECT_FALSE(has_nonfinite(n, k, V, ldv)) << "V holds NaN/Inf";
    }
    const std::vector<T> Sb = times_pow2(k, 1, S, k, -e);
    EXPECT_TRUE(is_sorted_desc_nonneg(k, Sb.data())) << "S non-negative and descending";
    const double floor = double(k) * spacing<T>(e);
    const std::vector<double> ref = ref_singular_values_double(m, n, Ab.data(), m);
    const double sv = floored(sv_compare(k, Sb.data(), ref.data()), ref[0] * eps<T>(), floor);
    EXPECT_LT(sv, sv_threshold(m, n)) << "|S - S_lapack| / (|S| eps)";
    double worst = sv;
    if (U) {
        const double o = orthogonality(m, k, U, ldu);
        EXPECT_LT(o, kSvdThreshold) << "|I - U^T U| / (m eps)";
        worst = std::max(worst, o);
    }
    if (V) {
        const double o = orthogonality(n, k, V, ldv);
        EXPECT_LT(o, kSvdThreshold) << "|I - V^T V| / (n eps)";
        worst = std::max(worst, o);
    }
    if (U && V) {
        const double a_eps = double(norm1(m, n, Ab.data(), m)) * eps<T>();
        const double r =
            floored(svd_residual(m, n, Ab.data(), m, Sb.data(), U, ldu, V, ldv), a_eps, floor);
        EXPECT_LT(r, kSvdThreshold) << "|A - U S V^T| / (|A| max(m,n) eps)";
        worst = std::max(worst, r);
    }
    return worst;
}

/// gesvj on p at every scale, with vectors and values only.
template <typename T>
void check_gesvj(gpusvdHandle_t h, const Problem<T> &p) {
    const int64_t m = p.m, n = p.n, k = std::min(m, n);
    const std::vector<double> s = ref_singular_values_double(m, n, p.A.data(), m);
    for (const Scale &sc : range_scales<T>(s[0])) {
        SCOPED_TRACE(p.name + " " + describe(sc));
        const std::vector<T> A0 = times_pow2(p.A, sc.e), Ab = times_pow2(A0, -sc.e);
        double worst = 0;
        for (bool vectors : {true, false}) {
            SCOPED_TRACE(vectors ? "with vectors" : "values only");
            const gpusvdJob_t job = vectors ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC;
            std::vector<T> A = A0, S(sz(k)), U(sz(m * k)), V(sz(n * k));
            int info = -777;
            GPUSVD_EXPECT_OK(h, Api<T>::gesvj(h, job, job, m, n, A.data(), m, S.data(),
                                              vectors ? U.data() : nullptr, m,
                                              vectors ? V.data() : nullptr, n, &info));
            worst = std::max(worst, expect_svd_scaled(m, n, Ab, sc.e, info, S.data(),
                                                      vectors ? U.data() : nullptr, m,
                                                      vectors ? V.data() : nullptr, n));
        }
        report("gesvj", p.name, sc, worst);
    }
}

/// gesvj_batched on p at every scale, all in one batch.
template <typename T>
void check_gesvj_batched(gpusvdHandle_t h, const Problem<T> &p) {
    const int64_t m = p.m, n = p.n, k = std::min(m, n);
    const std::vector<double> s = ref_singular_values_double(m, n, p.A.data(), m);
    const std::vector<Scale> scales = range_scales<T>(s[0]);
    const int64_t batch = int64_t(scales.size()), sA = m * n, sU = m * k, sV = n * k;
    std::vector<T> A(sz(sA * batch)), S(sz(k * batch)), U(sz(sU * batch)), V(sz(sV * batch));
    for (int64_t b = 0; b < batch; ++b) {
        const std::vector<T> Ab = times_pow2(p.A, scales[sz(b)].e);
        std::copy(Ab.begin(), Ab.end(), A.begin() + b * sA);
    }
    std::vector<T> A0 = A;
    std::vector<int> info(sz(batch), -777);
    GPUSVD_EXPECT_OK(
        h, Api<T>::gesvj_batched(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m, sA, S.data(),
                                 k, U.data(), m, sU, V.data(), n, sV, batch, info.data()));
    for (int64_t b = 0; b < batch; ++b) {
        const Scale &sc = scales[sz(b)];
        SCOPED_TRACE(p.name + " batched, " + describe(sc));
        const std::vector<T> Ab = times_pow2(m, n, A0.data() + b * sA, m, -sc.e);
        report("gesvj_batched", p.name, sc,
               expect_svd_scaled(m, n, Ab, sc.e, info[sz(b)], S.data() + b * k, U.data() + b * sU,
                                 m, V.data() + b * sV, n));
    }
}

template <typename T>
std::vector<Problem<T>> svd_problems(bool larger) {
    Rng rng(7001);
    const bool dbl = std::is_same<T, double>::value;
    std::vector<Problem<T>> ps;
    ps.push_back(problem("gaussian 17x11", 17, 11, gaussian<T>(rng, 17, 11)));
    ps.push_back(problem("gaussian 11x17", 11, 17, gaussian<T>(rng, 11, 17)));
    ps.push_back(problem("cond 1e6 20x20", 20, 20,
                         prescribed_sv<T>(rng, 20, 20, SigmaMode::Geometric, dbl ? 1e6 : 1e3)));
    std::vector<T> G(sz(16 * 8));
    graded(rng, 16, 8, G.data(), 16, 1.0, dbl ? 1e-10 : 1e-4);
    ps.push_back(problem("column-graded 16x8", 16, 8, G));
    if (larger) {  // the GPU backend's other paths: tall QR first, blocked Jacobi
        ps.push_back(problem("gaussian 400x60", 400, 60, gaussian<T>(rng, 400, 60)));
        ps.push_back(problem("gaussian 130x121", 130, 121, gaussian<T>(rng, 130, 121)));
    }
    return ps;
}

// ------------------------------------------------------------------------------------------------
// geqrf_mgs
// ------------------------------------------------------------------------------------------------

/// EXPECTs A_b = Q R 2^-e with DESIGN.md's QR ratios, no column dependent (info 0), R upper
/// trapezoidal with R(j,j) >= 0. cond: 2-norm condition number of A_b (MGS's orthogonality bound).
template <typename T>
double expect_qr_scaled(gpusvdOrth_t orth, int64_t m, int64_t n, const std::vector<T> &Ab,
                        double cond, int e, int info, const T *Q, int64_t ldq, const T *R,
                        int64_t ldr) {
    const int64_t k = std::min(m, n);
    EXPECT_EQ(info, 0) << "no column is dependent";
    EXPECT_FALSE(has_nonfinite(m, k, Q, ldq)) << "Q holds NaN/Inf";
    EXPECT_FALSE(has_nonfinite(k, n, R, ldr)) << "R holds NaN/Inf";
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j + 1; i < k; ++i)
            EXPECT_EQ(R[i + j * ldr], T(0)) << "R(" << i << "," << j << ") below the diagonal";
    for (int64_t j = 0; j < k; ++j) EXPECT_GE(R[j + j * ldr], T(0)) << "R(j,j) < 0, j = " << j;
    const std::vector<T> Rb = times_pow2(k, n, R, ldr, -e);
    const double a_eps = double(norm1(m, n, Ab.data(), m)) * eps<T>();
    const double resid = floored(qr_residual(m, n, Ab.data(), m, Q, ldq, Rb.data(), k), a_eps,
                                 double(k) * spacing<T>(e));
    EXPECT_LT(resid, kQrThreshold) << "|A - QR| / (m |A| eps)";
    const double o = orthogonality(m, k, Q, ldq);
    if (orth == GPUSVD_ORTH_MGS2) {
        EXPECT_LT(o, kQrThreshold) << "|I - Q^T Q| / (m eps)";
    } else {
        EXPECT_LT(o / std::max(1.0, cond), kQrThreshold)
            << "MGS: |I - Q^T Q| / (m eps cond(A)), cond = " << cond;
    }
    return std::max(resid, o / (orth == GPUSVD_ORTH_MGS2 ? 1.0 : std::max(1.0, cond)));
}

inline const char *orth_name(gpusvdOrth_t o) {
    return o == GPUSVD_ORTH_MGS ? "MGS" : "MGS2";
}

/// Largest column 2-norm of A (m x n): the largest entry of R.
template <typename T>
long double max_column_norm(int64_t m, int64_t n, const T *A, int64_t lda) {
    long double best = 0;
    for (int64_t j = 0; j < n; ++j) {
        long double s = 0;
        for (int64_t i = 0; i < m; ++i) s += (long double)A[i + j * lda] * A[i + j * lda];
        best = std::max(best, std::sqrt(s));
    }
    return best;
}

/// geqrf_mgs on A_0 = p.A 2^e (one scale), both orth modes.
template <typename T>
void check_geqrf_at(gpusvdHandle_t h, const Problem<T> &p, const Scale &sc) {
    const int64_t m = p.m, n = p.n, k = std::min(m, n);
    SCOPED_TRACE(p.name + " " + describe(sc));
    const std::vector<T> A0 = times_pow2(p.A, sc.e), Ab = times_pow2(A0, -sc.e);
    const double cond = cond2(m, n, Ab.data(), m);
    double worst = 0;
    for (gpusvdOrth_t orth : {GPUSVD_ORTH_MGS, GPUSVD_ORTH_MGS2}) {
        SCOPED_TRACE(orth_name(orth));
        std::vector<T> A = A0, R(sz(k * n));
        int info = -777;
        GPUSVD_EXPECT_OK(h, Api<T>::geqrf_mgs(h, orth, m, n, A.data(), m, R.data(), k, &info));
        worst = std::max(
            worst, expect_qr_scaled(orth, m, n, Ab, cond, sc.e, info, A.data(), m, R.data(), k));
    }
    report("geqrf_mgs", p.name, sc, worst);
}

template <typename T>
void check_geqrf(gpusvdHandle_t h, const Problem<T> &p) {
    for (const Scale &sc : range_scales<T>(max_column_norm(p.m, p.n, p.A.data(), p.m)))
        check_geqrf_at(h, p, sc);
}

/// geqrf_mgs_batched on p at every scale, all in one batch, both orth modes.
template <typename T>
void check_geqrf_batched(gpusvdHandle_t h, const Problem<T> &p) {
    const int64_t m = p.m, n = p.n, k = std::min(m, n);
    const std::vector<Scale> scales = range_scales<T>(max_column_norm(m, n, p.A.data(), m));
    const int64_t batch = int64_t(scales.size()), sA = m * n, sR = k * n;
    std::vector<T> A0(sz(sA * batch));
    for (int64_t b = 0; b < batch; ++b) {
        const std::vector<T> Ab = times_pow2(p.A, scales[sz(b)].e);
        std::copy(Ab.begin(), Ab.end(), A0.begin() + b * sA);
    }
    for (gpusvdOrth_t orth : {GPUSVD_ORTH_MGS, GPUSVD_ORTH_MGS2}) {
        std::vector<T> A = A0, R(sz(sR * batch));
        std::vector<int> info(sz(batch), -777);
        GPUSVD_EXPECT_OK(h, Api<T>::geqrf_mgs_batched(h, orth, m, n, A.data(), m, sA, R.data(), k,
                                                      sR, batch, info.data()));
        for (int64_t b = 0; b < batch; ++b) {
            const Scale &sc = scales[sz(b)];
            SCOPED_TRACE(p.name + " batched " + orth_name(orth) + ", " + describe(sc));
            const std::vector<T> Ab = times_pow2(m, n, A0.data() + b * sA, m, -sc.e);
            report("geqrf_mgs_batched", p.name, sc,
                   expect_qr_scaled(orth, m, n, Ab, cond2(m, n, Ab.data(), m), sc.e, info[sz(b)],
                                    A.data() + b * sA, m, R.data() + b * sR, k));
        }
    }
}

template <typename T>
std::vector<Problem<T>> qr_problems(bool larger) {
    Rng rng(7002);
    std::vector<Problem<T>> ps;
    ps.push_back(problem("gaussian 17x11", 17, 11, gaussian<T>(rng, 17, 11)));
    ps.push_back(problem("gaussian 11x17", 11, 17, gaussian<T>(rng, 11, 17)));
    ps.push_back(problem("cond 1e3 24x16", 24, 16,
                         prescribed_sv<T>(rng, 24, 16, SigmaMode::Geometric, 1e3)));
    // large enough for the CPU backend's ?geqrfp
    ps.push_back(problem("gaussian 5000x16", 5000, 16, gaussian<T>(rng, 5000, 16)));
    if (larger) {  // the GPU backend's tall path (CholeskyQR), one and several panels
        ps.push_back(problem("gaussian 3000x32", 3000, 32, gaussian<T>(rng, 3000, 32)));
        ps.push_back(problem("gaussian 600x300", 600, 300, gaussian<T>(rng, 600, 300)));
    }
    return ps;
}

// ------------------------------------------------------------------------------------------------
// geev_batched
// ------------------------------------------------------------------------------------------------

/// EXPECTs the eigenvalues (wr + i wi) 2^-e and VR of A_b (n x n): ?geev's pairing, matched to
/// LAPACK's within 20 n eps |A| kappa, residual |A VR - VR W| / (n |A| eps) < 20, unit vectors.
template <typename T>
double expect_eig_scaled(int64_t n, const std::vector<T> &Ab, int e, int info, const T *wr,
                         const T *wi, const T *VR, int64_t ldvr) {
    EXPECT_EQ(info, 0);
    EXPECT_FALSE(has_nonfinite(n, 1, wr, n) || has_nonfinite(n, 1, wi, n))
        << "eigenvalues hold NaN/Inf";
    if (VR) {
        EXPECT_FALSE(has_nonfinite(n, n, VR, ldvr)) << "VR holds NaN/Inf";
    }
    const std::vector<T> wrb = times_pow2(n, 1, wr, n, -e), wib = times_pow2(n, 1, wi, n, -e);
    EXPECT_TRUE(eig_pairs_ok(n, wrb.data(), wib.data()))
        << "complex pairs adjacent with positive imaginary part first";
    const double anorm = double(norm1(n, n, Ab.data(), n)), floor = double(n) * spacing<T>(e);
    const EigRef<T> ref = ref_eig(n, Ab);
    const double tol = kEigThreshold * double(n) * ref.kappa;
    const double match =
        floored(eig_match(n, wrb.data(), wib.data(), ref.wr.data(), ref.wi.data(), anorm),
                anorm * eps<T>(), floor);
    EXPECT_LE(match, tol) << "eigenvalues vs LAPACK: max |lambda - lambda_ref| / (|A| eps), kappa "
                          << ref.kappa;
    double worst = match / tol * kEigThreshold;
    if (VR) {
        const double r = floored(eig_residual(n, Ab.data(), n, wrb.data(), wib.data(), VR, ldvr),
                                 anorm * eps<T>(), floor);
        EXPECT_LT(r, kEigThreshold) << "|A VR - VR W| / (n |A| eps)";
        const double nrm = eigvec_normalization(n, wi, VR, ldvr);
        EXPECT_LT(nrm, 10.0) << "unit 2-norm, largest component real";
        worst = std::max({worst, r, nrm});
    }
    return worst;
}

/// geev_batched on p at every scale, all in one batch, with and without vectors.
template <typename T>
void check_geev(gpusvdHandle_t h, const Problem<T> &p) {
    const int64_t n = p.n;
    const EigRef<T> r1 = ref_eig(n, p.A);
    long double big = 0;
    for (int64_t i = 0; i < n; ++i)
        big = std::max(big, (long double)std::hypot(double(r1.wr[sz(i)]), double(r1.wi[sz(i)])));
    const std::vector<Scale> scales = range_scales<T>(big);
    const int64_t batch = int64_t(scales.size()), sA = n * n;
    std::vector<T> A0(sz(sA * batch));
    for (int64_t b = 0; b < batch; ++b) {
        const std::vector<T> Ab = times_pow2(p.A, scales[sz(b)].e);
        std::copy(Ab.begin(), Ab.end(), A0.begin() + b * sA);
    }
    for (bool vectors : {true, false}) {
        std::vector<T> A = A0, wr(sz(n * batch)), wi(sz(n * batch)), VR(sz(sA * batch));
        std::vector<int> info(sz(batch), -777);
        GPUSVD_EXPECT_OK(
            h, Api<T>::geev_batched(h, vectors ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC, n, A.data(), n,
                                    sA, wr.data(), wi.data(), n, vectors ? VR.data() : nullptr, n,
                                    sA, batch, info.data()));
        for (int64_t b = 0; b < batch; ++b) {
            const Scale &sc = scales[sz(b)];
            SCOPED_TRACE(p.name + (vectors ? " with vectors, " : " values only, ") + describe(sc));
            const std::vector<T> Ab = times_pow2(n, n, A0.data() + b * sA, n, -sc.e);
            report("geev_batched", p.name, sc,
                   expect_eig_scaled(n, Ab, sc.e, info[sz(b)], wr.data() + b * n, wi.data() + b * n,
                                     vectors ? VR.data() + b * sA : nullptr, n));
        }
    }
}

template <typename T>
std::vector<Problem<T>> eig_problems(bool larger) {
    Rng rng(7003);
    std::vector<Problem<T>> ps;
    ps.push_back(problem("gaussian 6x6", 6, 6, gaussian<T>(rng, 6, 6)));
    ps.push_back(problem("gaussian 15x15", 15, 15, gaussian<T>(rng, 15, 15)));
    std::vector<T> G(sz(10 * 10));
    graded(rng, 10, 10, G.data(), 10, 1e-3, 1.0);
    ps.push_back(problem("row-graded 10x10", 10, 10, G));
    // Q (D + N) Q^T, D = diag(N(0,1)) / 64, N strictly upper N(0,1): eigenvalues far below the
    // entries, which near overflow are in the top binade.
    const int64_t n = 8;
    std::vector<double> Q(sz(n * n)), B(sz(n * n), 0.0);
    random_orthonormal(rng, n, n, Q.data(), n);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= j; ++i) B[sz(i + j * n)] = rng.normal() / (i == j ? 64.0 : 1.0);
    std::vector<T> N(sz(n * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            double v = 0;
            for (int64_t p = 0; p < n; ++p)
                for (int64_t q = p; q < n; ++q)
                    v += Q[sz(i + p * n)] * B[sz(p + q * n)] * Q[sz(j + q * n)];
            N[sz(i + j * n)] = T(v);
        }
    ps.push_back(problem("non-normal 8x8", n, n, N));
    if (larger) ps.push_back(problem("gaussian 40x40", 40, 40, gaussian<T>(rng, 40, 40)));
    return ps;
}

// ------------------------------------------------------------------------------------------------
// bdsvd
// ------------------------------------------------------------------------------------------------

/// A bidiagonal (d, e) whose largest entry is in [1, 2).
template <typename T>
struct BidiagProblem {
    std::string name;
    int64_t n;
    std::vector<T> d, e;  // e: n - 1 entries (one unused entry when n == 1)
};

template <typename T>
BidiagProblem<T> bidiag_problem(std::string name, Rng &rng, int64_t n, BidiagMode mode,
                                double param) {
    std::vector<T> d(sz(n)), e(sz(std::max<int64_t>(n - 1, 1)), T(0));
    random_bidiagonal(rng, n, d.data(), e.data(), mode, param);
    T amax = 0;
    for (T x : d) amax = std::max(amax, std::fabs(x));
    for (T x : e) amax = std::max(amax, std::fabs(x));
    const int s = -std::ilogb(amax);
    return {std::move(name), n, times_pow2(d, s), times_pow2(e, s)};
}

/// bdsvd on (d, e) = (p.d, p.e) 2^e at one scale, upper and lower, values only and with vectors.
template <typename T>
void check_bdsvd_at(gpusvdHandle_t h, const BidiagProblem<T> &p, const Scale &sc) {
    const int64_t n = p.n;
    SCOPED_TRACE(p.name + " " + describe(sc));
    const std::vector<T> d0 = times_pow2(p.d, sc.e), e0 = times_pow2(p.e, sc.e);
    const std::vector<T> db = times_pow2(d0, -sc.e), eb = times_pow2(e0, -sc.e);
    const double floor = double(n) * spacing<T>(sc.e);
    double worst = 0;
    for (bool upper : {true, false}) {
        const std::vector<double> ref = ref_bdsqr(upper, n, db, eb);
        const gpusvdUplo_t uplo = upper ? GPUSVD_UPPER : GPUSVD_LOWER;
        for (bool vectors : {false, true}) {
            SCOPED_TRACE(testing::Message() << (upper ? "upper" : "lower")
                                            << (vectors ? ", with vectors" : ", values only"));
            std::vector<T> d = d0, e = e0, U(sz(n * n)), VT(sz(n * n));
            int info = -777;
            GPUSVD_EXPECT_OK(
                h, Api<T>::bdsvd(h, uplo, vectors ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC, n, d.data(),
                                 n > 1 ? e.data() : nullptr, vectors ? U.data() : nullptr, n,
                                 vectors ? VT.data() : nullptr, n, &info));
            EXPECT_EQ(info, 0);
            EXPECT_FALSE(has_nonfinite(n, 1, d.data(), n)) << "singular values hold NaN/Inf";
            const std::vector<T> s = times_pow2(d, -sc.e);
            EXPECT_TRUE(is_sorted_desc_nonneg(n, s.data())) << "non-negative and descending";
            const double sv =
                floored(sv_compare(n, s.data(), ref.data()), ref[0] * eps<T>(), floor);
            EXPECT_LT(sv, kSvdThreshold) << "values vs ?bdsqr";
            worst = std::max(worst, sv);
            if (!vectors) continue;
            EXPECT_FALSE(has_nonfinite(n, n, U.data(), n)) << "U holds NaN/Inf";
            EXPECT_FALSE(has_nonfinite(n, n, VT.data(), n)) << "VT holds NaN/Inf";
            // |B|_1 <= max |d| + max |e|
            const double b_eps =
                double(max_abs(n, 1, db.data(), n) + max_abs(n - 1, 1, eb.data(), n)) * eps<T>();
            const double r = floored(bidiag_residual(n, upper, db.data(), eb.data(), s.data(),
                                                     U.data(), n, VT.data(), n),
                                     b_eps, floor);
            const double ou = orthogonality(n, n, U.data(), n);
            const double ov = orthogonality_rows(n, n, VT.data(), n);
            EXPECT_LT(r, kSvdThreshold) << "|B - U S VT| / (|B| n eps)";
            EXPECT_LT(ou, kSvdThreshold) << "|I - U^T U| / (n eps)";
            EXPECT_LT(ov, kSvdThreshold) << "|I - VT VT^T| / (n eps)";
            worst = std::max({worst, r, ou, ov});
        }
    }
    report("bdsvd", p.name, sc, worst);
}

template <typename T>
void check_bdsvd(gpusvdHandle_t h, const BidiagProblem<T> &p) {
    const std::vector<double> s = ref_bdsqr(true, p.n, p.d, p.e);
    for (const Scale &sc : range_scales<T>(s[0])) check_bdsvd_at(h, p, sc);
}

template <typename T>
std::vector<BidiagProblem<T>> bidiag_problems(bool larger) {
    Rng rng(7004);
    const bool dbl = std::is_same<T, double>::value;
    std::vector<BidiagProblem<T>> ps;
    ps.push_back(bidiag_problem<T>("n=1", rng, 1, BidiagMode::Random, 0));
    ps.push_back(bidiag_problem<T>("random n=10", rng, 10, BidiagMode::Random, 0));
    // n > 25: ?bdsdc's divide and conquer instead of its QR iteration
    ps.push_back(bidiag_problem<T>("random n=40", rng, 40, BidiagMode::Random, 0));
    ps.push_back(bidiag_problem<T>("graded n=30", rng, 30, BidiagMode::Graded, dbl ? 1e-8 : 1e-3));
    if (larger) ps.push_back(bidiag_problem<T>("random n=300", rng, 300, BidiagMode::Random, 0));
    return ps;
}

// ------------------------------------------------------------------------------------------------
// pca
// ------------------------------------------------------------------------------------------------

/// X (m x n) = 1 mu^T + G diag(s) V^T with G orthonormal and centred, mu_j = mu_scale N(0,1),
/// s_p = 10 0.6^p: the top components well separated.
template <typename T>
std::vector<T> pca_data(Rng &rng, int64_t m, int64_t n, double mu_scale) {
    const int64_t r = std::min(m - 1, n);
    std::vector<double> G(sz(m * r)), V(sz(n * r));
    random_centred_orthonormal(rng, m, r, G.data(), m);
    random_orthonormal(rng, n, r, V.data(), n);
    std::vector<T> X(sz(m * n));
    for (int64_t j = 0; j < n; ++j) {
        const double mu = mu_scale * rng.normal();
        for (int64_t i = 0; i < m; ++i) {
            double v = mu;
            for (int64_t q = 0; q < r; ++q)
                v += G[sz(i + q * m)] * (10.0 * std::pow(0.6, double(q))) * V[sz(j + q * n)];
            X[sz(i + j * m)] = T(v);
        }
    }
    return X;
}

/// pca of X_0 = X1 2^e (m x n, largest entry of X1 in [1, 2)), k components, with the handle's
/// method, against the reference PCA of X_0 2^-e: components (orthonormal, the sign convention,
/// within the method's bound of the reference's, pca_bounds), mean, scores (the centred data
/// times the returned components, within E) and the explained variance, which must be the exact
/// value rounded (expect_rounded) within the method's bound.
template <typename T>
void check_pca_at(gpusvdHandle_t h, int64_t m, int64_t n, int64_t k, const std::vector<T> &X1,
                  const Scale &sc, const std::string &name) {
    const bool cov = pca_uses_covariance<T>(h, m, n);
    SCOPED_TRACE(name + (cov ? " covariance " : " QR ") + describe(sc));
    const int e = sc.e;
    const std::vector<T> X = times_pow2(X1, e), Xb = times_pow2(X, -e);
    const PcaRef r = pca_reference(m, n, Xb);
    const double delta = spacing<T>(e);
    const double E = r.E + double(m + n) * delta;
    std::vector<T> C(sz(n * k)), var(sz(k)), scores(sz(m * k)), mean(sz(n));
    int info = -777;
    GPUSVD_EXPECT_OK(h, Api<T>::pca(h, m, n, X.data(), m, k, C.data(), n, var.data(), scores.data(),
                                    m, mean.data(), &info));
    EXPECT_EQ(info, 0);
    EXPECT_FALSE(has_nonfinite(n, k, C.data(), n)) << "components hold NaN/Inf";
    EXPECT_FALSE(has_nonfinite(m, k, scores.data(), m)) << "scores hold NaN/Inf";
    EXPECT_FALSE(has_nonfinite(n, 1, mean.data(), n)) << "mean holds NaN/Inf";
    double worst = orthogonality(n, k, C.data(), n);
    EXPECT_LT(worst, kSvdThreshold) << "|I - C^T C| / (n eps)";
    const int64_t rank = std::min(m - 1, n);
    for (int64_t j = 0; j < k; ++j) {
        int64_t arg = 0;
        for (int64_t i = 1; i < n; ++i)
            if (std::fabs(C[sz(i + j * n)]) > std::fabs(C[sz(arg + j * n)])) arg = i;
        EXPECT_GT(C[sz(arg + j * n)], T(0)) << "largest entry of component " << j << " positive";
        if (j >= rank) continue;
        const double tol = pca_bounds(r, j, E, cov).component;
        double d = 0;
        for (int64_t i = 0; i < n; ++i)
            d = std::max(d, std::fabs(double(C[sz(i + j * n)]) - r.components[sz(i + j * n)]));
        EXPECT_LE(d, tol) << "component " << j << " vs the reference";
        worst = std::max(worst, d / tol);
    }
    double worst_mean = 0;  // |mean - mean_ref| / tol
    for (int64_t j = 0; j < n; ++j) {
        const long double tol =
            (4 * eps<T>() + 4 * std::sqrt(double(m)) * eps<double>()) * r.colmax[sz(j)] + delta;
        const long double d = std::fabs(std::ldexp((long double)mean[sz(j)], -e) - r.mean[sz(j)]);
        worst_mean = std::max(worst_mean, std::isnan(d) ? HUGE_VAL : double(d / tol));
    }
    EXPECT_LE(worst_mean, 1.0) << "max_j |mean_j - mean_ref_j| / tol_j";
    double worst_score = 0;  // max |scores - X_c C|
    for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < m; ++i) {
            long double s = 0;
            for (int64_t q = 0; q < n; ++q)
                s += (long double)r.Xc[sz(i + q * m)] * C[sz(q + j * n)];
            const long double d = std::fabs(std::ldexp((long double)scores[sz(i + j * m)], -e) - s);
            worst_score = std::max(worst_score, std::isnan(d) ? HUGE_VAL : double(d));
        }
    EXPECT_LE(worst_score, E) << "max |scores - X_c C|";
    worst = std::max({worst, worst_mean, worst_score / E});
    EXPECT_TRUE(is_sorted_desc_nonneg(k, var.data())) << "variance non-negative, descending";
    for (int64_t j = 0; j < k; ++j) {
        const long double s = r.S[sz(j)];
        const long double t = s * s / (m - 1), tol = pca_bounds(r, j, E, cov).variance;
        expect_rounded(var[sz(j)], std::ldexp(t, 2 * e),
                       std::ldexp(tol, 2 * e) + lim<T>::denorm_min(), "explained variance", j);
    }
    report("pca", name + (cov ? " covariance" : " QR"), sc, worst);
}

/// check_pca_at at every scale. mu_scale: the means' spread (0: the largest entries are the
/// largest scores, and near overflow the largest singular value is not representable).
template <typename T>
void check_pca(gpusvdHandle_t h, int64_t m, int64_t n, int64_t k, double mu_scale, uint64_t seed) {
    Rng rng(seed);
    const std::vector<T> X1 = normalised(pca_data<T>(rng, m, n, mu_scale));
    const std::string name = std::to_string(m) + "x" + std::to_string(n) +
                             " k=" + std::to_string(k) +
                             (mu_scale > 0 ? " offset means" : " zero means");
    for (const Scale &sc : range_scales<T>(pca_reference(m, n, X1).big))
        check_pca_at(h, m, n, k, X1, sc, name);
}

// ------------------------------------------------------------------------------------------------
// Regressions: the range bugs of the CPU backend, at the magnitudes they were found with
// ------------------------------------------------------------------------------------------------

/// pca of data with entries of 0.9e308 to 1.8e308 (double; 1.7e38 to 3.4e38 float) gave NaN
/// scores with info 0: the scores were formed from the singular values of the centred data, the
/// largest of which overflows here, though no score does.
template <typename T>
void regression_pca_near_overflow(gpusvdHandle_t h) {
    Rng rng(7101);
    const int64_t m = 50, n = 3, k = 3;
    std::vector<T> X1(sz(m * n));
    for (T &x : X1) x = T(1.0 + 0.98 * rng.uniform());  // times 2^(max_exponent - 1)
    check_pca_at(h, m, n, k, X1, Scale{lim<T>::max_exponent - 1, "entries max/2 to max"},
                 "positive data");
}

/// QR of a matrix with entries about 1e308 (double; 1e38 float), whose column norms are close
/// to overflow, gave Inf/NaN in Q and R and reported a dependent column.
template <typename T>
void regression_qr_near_overflow(gpusvdHandle_t h) {
    Rng rng(7102);
    const int64_t m = 3, n = 3;
    std::vector<T> A1(sz(m * n));
    for (T &x : A1) x = T(rng.sign() * rng.uniform(0.5, 1.0));
    // column norms below sqrt(3) 2^(max_exponent - 1) = 0.87 max
    check_geqrf_at(h, Problem<T>{"3x3", m, n, A1},
                   Scale{lim<T>::max_exponent - 1, "entries max/4 to max/2"});
}

/// QR of a matrix of subnormal entries marked every column dependent and returned A != QR.
template <typename T>
void regression_qr_subnormal(gpusvdHandle_t h) {
    Rng rng(7103);
    const Problem<T> p = problem("gaussian 6x4", 6, 4, gaussian<T>(rng, 6, 4));
    check_geqrf_at(h, p, Scale{lim<T>::min_exponent - 1 - lim<T>::digits / 2, "subnormal"});
}

/// The SVD with vectors of a subnormal bidiagonal returned |d| sorted, ignoring e.
template <typename T>
void regression_bdsvd_subnormal(gpusvdHandle_t h) {
    Rng rng(7104);
    for (int64_t n : {8, 40})
        check_bdsvd_at(
            h, bidiag_problem<T>("random n=" + std::to_string(n), rng, n, BidiagMode::Random, 0),
            Scale{lim<T>::min_exponent - 1 - lim<T>::digits / 2, "subnormal"});
}

}  // namespace range
}  // namespace gpusvd_test
