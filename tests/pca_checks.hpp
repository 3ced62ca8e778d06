// The reference PCA shared by the PCA tests (test_pca, test_gpu_pca, the whole-range tests in
// range_checks.hpp): computed in double from LAPACK dgesvd of the explicitly centred data, with
// the error bound the comparisons use, and the bounds of each PCA method.
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

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

}  // namespace gpusvd_test
