// Shared checks of the bdsvd tests (test_bdsvd, test_gpu_bdsvd): run a call with the signature of
// gpusvd_Xbdsvd values only and with vectors (padded ldu/ldvt) and check the DESIGN.md SVD ratios
// (LAPACK dchkbd style) against LAPACK ?bdsqr (dqds) values computed in double.
// The `call` argument defaults to the host form; the GPU test passes wrappers (the `_gpu` form).
#pragma once

#include <initializer_list>
#include <type_traits>

#include "svd_checks.hpp"

namespace gpusvd_test {

/// Values-only reference: LAPACK ?bdsqr (dqds, high relative accuracy) in double precision on
/// the (exactly representable) entries.
template <typename T>
std::vector<double> ref_bdsqr(bool upper, int64_t n, const std::vector<T> &d0,
                              const std::vector<T> &e0) {
    std::vector<double> d(d0.begin(), d0.end()), e(sz(std::max<int64_t>(n, 1)), 0.0);
    for (int64_t i = 0; i + 1 < n; ++i) e[sz(i)] = double(e0[sz(i)]);
    const lapack_int info = lapacke_bdsqr(upper ? 'U' : 'L', lapack_int(n), d.data(), e.data());
    EXPECT_EQ(info, 0) << "reference dbdsqr failed";
    return d;
}

struct BdsvdRatios {
    double resid = 0, orth_u = 0, orth_vt = 0, sv = 0, rel = 0;
};

/// check_bdsvd's ratios and the values it got: values only (s_novec) and with vectors (s_vec).
template <typename T>
struct BdsvdOut : BdsvdRatios {
    std::vector<T> s_novec, s_vec;
};

template <typename T>
using BdsvdFn = std::remove_const_t<decltype(Api<T>::bdsvd)>;

/// Checks bdsvd (or `call`) on (d0, e0) with and without vectors. check_relative: compare every
/// value to the dqds reference relative to itself (values-only path).
template <typename T, typename Call = BdsvdFn<T>>
BdsvdOut<T> check_bdsvd(gpusvdHandle_t h, bool upper, int64_t n, const std::vector<T> &d0,
                        const std::vector<T> &e0, bool check_relative, Call call = Api<T>::bdsvd) {
    BdsvdOut<T> r;
    const gpusvdUplo_t uplo = upper ? GPUSVD_UPPER : GPUSVD_LOWER;
    const int64_t ldu = n + 1, ldvt = n + 2;
    const T pad = sentinel<T>();
    const std::vector<double> ref = ref_bdsqr(upper, n, d0, e0);

    // values only
    {
        std::vector<T> d = d0, e = e0;
        int info = -777;
        GPUSVD_EXPECT_OK(h, call(h, uplo, GPUSVD_JOB_NOVEC, n, d.data(), n > 1 ? e.data() : nullptr,
                                 nullptr, 1, nullptr, 1, &info));
        EXPECT_EQ(info, 0);
        EXPECT_TRUE(is_sorted_desc_nonneg(n, d.data()));
        EXPECT_LT(sv_compare(n, d.data(), ref.data()), kSvdThreshold) << "values only vs ?bdsqr";
        if (check_relative) {
            // dqds: each value to a small multiple of n eps of itself.
            r.rel = sv_relative(n, d.data(), ref.data());
            EXPECT_LT(r.rel, 10.0 * double(std::max<int64_t>(n, 5)))
                << "max_i |d_i - ref_i| / (ref_i eps)";
        }
        r.s_novec.assign(d.begin(), d.begin() + n);
    }
    // with vectors
    {
        std::vector<T> d = d0, e = e0;
        std::vector<T> U = sentinels<T>(sz(ldu * n)), VT = sentinels<T>(sz(ldvt * n));
        int info = -777;
        GPUSVD_EXPECT_OK(h, call(h, uplo, GPUSVD_JOB_VEC, n, d.data(), n > 1 ? e.data() : nullptr,
                                 U.data(), ldu, VT.data(), ldvt, &info));
        EXPECT_EQ(info, 0);
        EXPECT_TRUE(is_sorted_desc_nonneg(n, d.data()));
        EXPECT_TRUE(padding_intact(n, n, U.data(), ldu, pad)) << "U written outside n x n";
        EXPECT_TRUE(padding_intact(n, n, VT.data(), ldvt, pad)) << "VT written outside n x n";
        r.resid = bidiag_residual(n, upper, d0.data(), e0.data(), d.data(), U.data(), ldu,
                                  VT.data(), ldvt);
        r.orth_u = orthogonality(n, n, U.data(), ldu);
        r.orth_vt = orthogonality_rows(n, n, VT.data(), ldvt);
        r.sv = sv_compare(n, d.data(), ref.data());
        EXPECT_LT(r.resid, kSvdThreshold) << "|B - U S VT| / (|B| n eps)";
        EXPECT_LT(r.orth_u, kSvdThreshold) << "|I - U^T U| / (n eps)";
        EXPECT_LT(r.orth_vt, kSvdThreshold) << "|I - VT VT^T| / (n eps)";
        EXPECT_LT(r.sv, kSvdThreshold) << "values with vectors vs ?bdsqr";
        r.s_vec.assign(d.begin(), d.begin() + n);
    }
    if (verbose())
        std::printf("  bdsvd %s n=%lld: resid %.3g orthU %.3g orthVT %.3g sv %.3g rel %.3g\n",
                    upper ? "U" : "L", (long long)n, r.resid, r.orth_u, r.orth_vt, r.sv, r.rel);
    return r;
}

/// check_bdsvd on random bidiagonals of `mode` (random_bidiagonal's `param`), upper and lower,
/// one per size, from Rng(seed).
template <typename T, typename Call = BdsvdFn<T>>
void check_bidiag_mode(gpusvdHandle_t h, std::initializer_list<int64_t> sizes, BidiagMode mode,
                       double param, bool relative, uint64_t seed, Call call = Api<T>::bdsvd) {
    Rng rng(seed);
    for (int64_t n : sizes)
        for (bool upper : {true, false}) {
            SCOPED_TRACE(testing::Message() << (upper ? "upper" : "lower") << " n = " << n);
            std::vector<T> d(sz(n)), e(sz(std::max<int64_t>(n - 1, 1)), T(0));
            random_bidiagonal(rng, n, d.data(), e.data(), mode, param);
            check_bdsvd<T>(h, upper, n, d, e, relative, call);
        }
}

}  // namespace gpusvd_test
