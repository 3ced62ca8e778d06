// The reference PCA shared by the PCA tests (test_pca, test_gpu_pca, the whole-range tests in
// range_checks.hpp): computed in double from LAPACK dgesvd of the explicitly centred data, with
// the error bound the comparisons use, and the bounds of each PCA method.
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "layout_checks.hpp"
#include "svd_checks.hpp"
#include "test_common.hpp"

namespace gpusvd_test {

/// The reference PCA of X (m x n, as given in T, normal range): means in long double, the centred
/// data, its singular values and components with the sign convention, and E, the bound on the
/// error of the singular values of the centred data:
///     E = 50 (max(m,n) eps s_1 + sqrt(m) |mu|_2 eps)
/// (the second term: rounding the column means to T perturbs the centred data by a rank-one
/// 1 delta^T with |delta_j| <= eps |mu_j|).
struct PcaRef {
    int64_t m = 0, n = 0;
    std::vector<long double> mean;
    std::vector<double> colmax;      // max_i |x_ij|
    std::vector<double> Xc;          // centred, m x n
    std::vector<double> S;           // min(m, n) singular values of Xc
    std::vector<double> components;  // n x min(m, n), sign convention applied
    double E = 0;
    long double big = 0;  // largest |centred entry| and |score| (the mean is at most max |x|)
};

template <typename T>
PcaRef pca_reference(int64_t m, int64_t n, const std::vector<T> &X) {
    PcaRef r;
    r.m = m, r.n = n;
    const int64_t p = std::min(m, n);
    r.mean.assign(sz(n), 0.0L);
    r.colmax.assign(sz(n), 0.0);
    r.Xc.resize(sz(m * n));
    long double mu2 = 0;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) {
            r.mean[sz(j)] += X[sz(i + j * m)];
            r.colmax[sz(j)] = std::max(r.colmax[sz(j)], std::fabs(double(X[sz(i + j * m)])));
        }
        r.mean[sz(j)] /= (long double)m;
        mu2 += r.mean[sz(j)] * r.mean[sz(j)];
        for (int64_t i = 0; i < m; ++i) {
            r.Xc[sz(i + j * m)] = double((long double)X[sz(i + j * m)] - r.mean[sz(j)]);
            r.big = std::max(r.big, (long double)std::fabs(r.Xc[sz(i + j * m)]));
        }
    }
    std::vector<double> W = r.Xc, VT(sz(p * n)), superb(sz(p + 1));
    r.S.resize(sz(p));
    double dummy = 0;
    EXPECT_EQ(lapacke_gesvd('N', 'S', lapack_int(m), lapack_int(n), W.data(), lapack_int(m),
                            r.S.data(), &dummy, 1, VT.data(), lapack_int(p), superb.data()),
              0);
    r.components = signed_components(n, p, VT);
    for (int64_t j = 0; j < p; ++j)
        for (int64_t i = 0; i < m; ++i) {
            long double s = 0;
            for (int64_t q = 0; q < n; ++q)
                s += (long double)r.Xc[sz(i + q * m)] * r.components[sz(q + j * n)];
            r.big = std::max(r.big, std::fabs(s));
        }
    const double s1 = p ? r.S[0] : 0.0;
    r.E = kSvdThreshold * eps<T>() *
          (double(std::max(m, n)) * s1 + std::sqrt(double(m)) * std::sqrt(double(mu2)));
    return r;
}

/// Whether pca on h runs the covariance method for an m x n problem: the handle's setting, AUTO
/// resolved by the rule gpusvd.h documents at gpusvdSetPcaMethod.
template <typename T>
bool pca_uses_covariance(gpusvdHandle_t h, int64_t m, int64_t n) {
    gpusvdPcaMethod_t method = GPUSVD_PCA_AUTO;
    EXPECT_EQ(gpusvdGetPcaMethod(h, &method), GPUSVD_STATUS_SUCCESS);
    if (method != GPUSVD_PCA_AUTO) return method == GPUSVD_PCA_COVARIANCE;
    return std::is_same<T, double>::value && m >= 10 * n && n <= 1000;
}

/// How far component j and variance j of a method may be from the reference r, given E, a bound
/// on the error of the singular values of the centred data (r.E, or more where the data's own
/// rounding adds to it). QR: component within E / gap (gap between s_j and its neighbours),
/// variance within (2 s_j E + E^2) / (m - 1). Covariance: forming Xc^T Xc adds an error of about
/// s_1 E to it (the squared condition number): component within s_1 E / gap2 (gap between s_j^2
/// and its neighbours' squares), variance within (2 s_1 E + E^2) / (m - 1).
struct PcaBounds {
    double component, variance;
};

inline PcaBounds pca_bounds(const PcaRef &r, int64_t j, double E, bool covariance) {
    const int64_t p = std::min(r.m, r.n);
    const double s = r.S[sz(j)], s1 = r.S[0];
    const double next = j + 1 < p ? r.S[sz(j + 1)] : 0.0;
    double gap = s - next, gap2 = s * s - next * next;
    if (j > 0) {
        const double prev = r.S[sz(j - 1)];
        gap = std::min(gap, prev - s);
        gap2 = std::min(gap2, prev * prev - s * s);
    }
    const double scale = covariance ? s1 : s;
    return {covariance ? s1 * E / gap2 : E / gap, (2 * scale * E + E * E) / double(r.m - 1)};
}

/// ||Xc||_F^2 / (m - 1) of the reference, in long double: the total variance.
inline long double reference_total_variance(const PcaRef &r) {
    long double t = 0;
    for (double v : r.Xc) t += (long double)v * v;
    return t / (long double)(r.m - 1);
}

/// gpusvdGetPcaTotalVariance after a successful pca of X0 on h (either method) against the
/// reference: the sum of all squared singular values (QR) or the Gram matrix's trace
/// (covariance), each within 50 max(m,n) eps of it, relatively (a sum of positive terms).
template <typename T>
void expect_total_variance(gpusvdHandle_t h, const PcaRef &ref) {
    double total = -1;
    ASSERT_EQ(gpusvdGetPcaTotalVariance(h, &total), GPUSVD_STATUS_SUCCESS);
    const long double expect = reference_total_variance(ref);
    EXPECT_LE(std::fabs((long double)total - expect),
              kSvdThreshold * double(std::max(ref.m, ref.n)) * eps<T>() * expect +
                  std::numeric_limits<double>::min())
        << "total variance " << total << " vs " << (double)expect;
}

/// pca of X0 (m x n, column-major, ld m) on h given row-major (gpusvdSetMatrixLayout: X,
/// components and scores row-major, padded leading dimensions), against the same call on
/// column-major data: each output within the method's bounds of the column-major one (twice the
/// bound against the reference), X untouched, padding intact. `exact`: the components, variances
/// and mean are the column-major call's bit for bit (the CPU backend's QR method, which factors a
/// column-major copy with the same code; its scores come from another GEMM, the transposed one).
/// `call` (the row-major call) is Api<T>::pca or a function of the same signature.
template <typename T, typename Call>
void check_pca_row_major(gpusvdHandle_t h, int64_t m, int64_t n, int64_t k,
                         const std::vector<T> &X0, bool exact, Call call) {
    const bool cov = pca_uses_covariance<T>(h, m, n);
    SCOPED_TRACE(testing::Message() << "row-major m=" << m << " n=" << n << " k=" << k
                                    << (cov ? " covariance" : " QR"));
    const T pad = sentinel<T>();
    // column-major, the host form
    std::vector<T> Xc = X0, Cc(sz(n * k)), varc(sz(k)), sc(sz(m * k)), meanc(sz(n));
    int infoc = -777;
    GPUSVD_ASSERT_OK(h, Api<T>::pca(h, m, n, Xc.data(), m, k, Cc.data(), n, varc.data(), sc.data(),
                                    m, meanc.data(), &infoc));
    const PcaRef ref = pca_reference(m, n, X0);
    expect_total_variance<T>(h, ref);
    // row-major
    const int64_t ldx = n + 1, ldc = k + 2, lds = k + 3;
    const std::vector<T> X = to_row_major(m, n, X0.data(), m, ldx, pad), Xcopy = X;
    std::vector<T> C = sentinels<T>(sz(n * ldc)), var = sentinels<T>(sz(k + 1)),
                   S = sentinels<T>(sz(m * lds)), mean = sentinels<T>(sz(n + 1));
    int info = -777;
    {
        RowMajorScope row(h);
        GPUSVD_ASSERT_OK(h, call(h, m, n, const_cast<T *>(X.data()), ldx, k, C.data(), ldc,
                                 var.data(), S.data(), lds, mean.data(), &info));
    }
    EXPECT_EQ(info, infoc);
    expect_total_variance<T>(h, ref);
    EXPECT_TRUE(same_bits(X, Xcopy)) << "X modified";
    EXPECT_TRUE(row_padding_intact(n, k, C.data(), ldc, pad)) << "components outside n x k";
    EXPECT_TRUE(row_padding_intact(m, k, S.data(), lds, pad)) << "scores outside m x k";
    EXPECT_EQ(var[sz(k)], pad);
    EXPECT_EQ(mean[sz(n)], pad);
    const std::vector<T> Cr = from_row_major(n, k, C.data(), ldc), Sr = from_row_major(m, k, S.data(), lds);
    var.resize(sz(k));
    mean.resize(sz(n));
    if (exact) {
        EXPECT_TRUE(same_bits(Cr, Cc)) << "components";
        EXPECT_TRUE(same_bits(var, varc)) << "variances";
        EXPECT_TRUE(same_bits(mean, meanc)) << "mean";
    }
    EXPECT_LT(orthogonality(n, k, Cr.data(), n), kSvdThreshold);
    const int64_t r = std::min(m - 1, n);
    for (int64_t j = 0; j < k; ++j) {
        const PcaBounds b = pca_bounds(ref, j, ref.E, cov);
        EXPECT_LE(std::fabs(double(var[sz(j)]) - double(varc[sz(j)])), 2 * b.variance)
            << "explained variance " << j;
        if (j >= r) continue;
        double diff = 0;
        for (int64_t i = 0; i < n; ++i)
            diff = std::max(diff, std::fabs(double(Cr[sz(i + j * n)]) - double(Cc[sz(i + j * n)])));
        EXPECT_LE(diff, 2 * b.component) << "component " << j;
    }
    for (int64_t j = 0; j < n; ++j)
        EXPECT_LE(std::fabs(double(mean[sz(j)]) - double(meanc[sz(j)])),
                  (8 * eps<T>() + 8 * std::sqrt(double(m)) * eps<double>()) * ref.colmax[sz(j)] +
                      std::numeric_limits<T>::min())
            << "mean " << j;  // twice check_pca's bound against the exact mean
    // scores = centred X * the row-major call's components
    double sdiff = 0;
    for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < m; ++i) {
            long double v = 0;
            for (int64_t p = 0; p < n; ++p)
                v += (long double)ref.Xc[sz(i + p * m)] * Cr[sz(p + j * n)];
            sdiff = std::max(sdiff, double(std::fabs(Sr[sz(i + j * m)] - v)));
        }
    EXPECT_LE(sdiff, std::max(ref.E, 1e-30)) << "scores vs centred X * components";
}

}  // namespace gpusvd_test
