// gpusvd_Xbdsvd: SVD of upper/lower bidiagonal matrices, values only and with vectors.
#include "test_common.hpp"

using namespace gpusvd_test;

namespace {

constexpr double kSvdThreshold = 50.0;

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

/// Checks bdsvd on (d0, e0) with and without vectors. check_relative: compare every value to
/// the dqds reference relative to itself (values-only path).
template <typename T>
BdsvdRatios check_bdsvd(gpusvdHandle_t h, bool upper, int64_t n, const std::vector<T> &d0,
                        const std::vector<T> &e0, bool check_relative) {
    BdsvdRatios r;
    const gpusvdUplo_t uplo = upper ? GPUSVD_UPPER : GPUSVD_LOWER;
    const int64_t ldu = n + 1, ldvt = n + 2;
    const T pad = sentinel<T>();
    const std::vector<double> ref = ref_bdsqr(upper, n, d0, e0);

    // values only
    {
        std::vector<T> d = d0, e = e0;
        int info = -777;
        GPUSVD_EXPECT_OK(h, Api<T>::bdsvd(h, uplo, GPUSVD_JOB_NOVEC, n, d.data(),
                                          n > 1 ? e.data() : nullptr, nullptr, 1, nullptr, 1,
                                          &info));
        EXPECT_EQ(info, 0);
        EXPECT_TRUE(is_sorted_desc_nonneg(n, d.data()));
        EXPECT_LT(sv_compare(n, d.data(), ref.data()), kSvdThreshold) << "values only vs ?bdsqr";
        if (check_relative) {
            // dqds: each value to a small multiple of n eps of itself.
            r.rel = sv_relative(n, d.data(), ref.data());
            EXPECT_LT(r.rel, 10.0 * double(std::max<int64_t>(n, 5)))
                << "max_i |d_i - ref_i| / (ref_i eps)";
        }
    }
    // with vectors
    {
        std::vector<T> d = d0, e = e0;
        std::vector<T> U = sentinels<T>(sz(ldu * n)), VT = sentinels<T>(sz(ldvt * n));
        int info = -777;
        GPUSVD_EXPECT_OK(h, Api<T>::bdsvd(h, uplo, GPUSVD_JOB_VEC, n, d.data(),
                                          n > 1 ? e.data() : nullptr, U.data(), ldu, VT.data(),
                                          ldvt, &info));
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
    }
    if (verbose())
        std::printf("  bdsvd %s n=%lld: resid %.3g orthU %.3g orthVT %.3g sv %.3g rel %.3g\n",
                    upper ? "U" : "L", (long long)n, r.resid, r.orth_u, r.orth_vt, r.sv, r.rel);
    return r;
}

template <typename T>
class BdsvdTest : public ::testing::Test {
protected:
    Handle h;
};
TYPED_TEST_SUITE(BdsvdTest, Precisions, PrecisionName);

const int64_t kSizes[] = {1, 2, 3, 5, 17, 26, 40, 64};

template <typename T>
void run_mode(gpusvdHandle_t h, BidiagMode mode, double param, bool relative, uint64_t seed) {
    Rng rng(seed);
    for (int64_t n : kSizes)
        for (bool upper : {true, false}) {
            SCOPED_TRACE(testing::Message() << (upper ? "upper" : "lower") << " n = " << n);
            std::vector<T> d(sz(n)), e(sz(std::max<int64_t>(n - 1, 1)), T(0));
            random_bidiagonal(rng, n, d.data(), e.data(), mode, param);
            check_bdsvd<T>(h, upper, n, d, e, relative);
        }
}

TYPED_TEST(BdsvdTest, Random) { run_mode<TypeParam>(this->h, BidiagMode::Random, 0, true, 41); }

TYPED_TEST(BdsvdTest, GradedHighRelativeAccuracy) {
    // d, e spanning 1 .. 1e-15: every value, down to ~1e-15, to high relative accuracy.
    run_mode<TypeParam>(this->h, BidiagMode::Graded, 1e-15, true, 42);
}

TYPED_TEST(BdsvdTest, Clustered) {
    using T = TypeParam;
    run_mode<T>(this->h, BidiagMode::Clustered, std::is_same<T, float>::value ? 1e-4 : 1e-8, false,
                43);
}

TYPED_TEST(BdsvdTest, ZeroDiagonalEntries) {
    run_mode<TypeParam>(this->h, BidiagMode::ZeroDiag, 0, false, 44);
}

TYPED_TEST(BdsvdTest, OneByOne) {
    using T = TypeParam;
    T d = T(-3), U = T(0), VT = T(0);
    int info = -1;
    GPUSVD_ASSERT_OK(this->h, Api<T>::bdsvd(this->h, GPUSVD_UPPER, GPUSVD_JOB_VEC, 1, &d, nullptr,
                                            &U, 1, &VT, 1, &info));
    EXPECT_EQ(info, 0);
    EXPECT_EQ(d, T(3));
    EXPECT_EQ(U * VT, T(-1)) << "U * d * VT reproduces -3";
    d = T(0.25);
    GPUSVD_ASSERT_OK(this->h, Api<T>::bdsvd(this->h, GPUSVD_LOWER, GPUSVD_JOB_NOVEC, 1, &d, nullptr,
                                            nullptr, 1, nullptr, 1, &info));
    EXPECT_EQ(info, 0);
    EXPECT_EQ(d, T(0.25));
}

TYPED_TEST(BdsvdTest, ZeroMatrix) {
    using T = TypeParam;
    for (int64_t n : {2, 5}) {
        std::vector<T> d(sz(n), T(0)), e(sz(n - 1), T(0));
        const BdsvdRatios r = check_bdsvd<T>(this->h, true, n, d, e, true);
        EXPECT_EQ(r.resid, 0.0);
    }
}

TYPED_TEST(BdsvdTest, DiagonalOnly) {
    // e = 0: the values are |d| sorted, exactly.
    using T = TypeParam;
    const int64_t n = 6;
    std::vector<T> d = {T(1), T(-5), T(0.5), T(3), T(-0.25), T(2)}, e(sz(n - 1), T(0));
    check_bdsvd<T>(this->h, false, n, d, e, true);
    std::vector<T> dd = d, ee = e;
    int info = -1;
    GPUSVD_ASSERT_OK(this->h, Api<T>::bdsvd(this->h, GPUSVD_UPPER, GPUSVD_JOB_NOVEC, n, dd.data(),
                                            ee.data(), nullptr, 1, nullptr, 1, &info));
    const T expect[] = {T(5), T(3), T(2), T(1), T(0.5), T(0.25)};
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(dd[sz(i)], expect[i]);
}

TYPED_TEST(BdsvdTest, NearOverflowAndUnderflow) {
    using T = TypeParam;
    Rng rng(45);
    for (int which = 0; which < 2; ++which)
        for (int64_t n : {5, 30}) {
            SCOPED_TRACE(testing::Message() << (which ? "near underflow" : "near overflow")
                                            << " n = " << n);
            std::vector<T> d(sz(n)), e(sz(n - 1));
            random_bidiagonal(rng, n, d.data(), e.data(), BidiagMode::Random);
            const T target = which ? near_underflow_max<T>() : near_overflow_max<T>();
            const T amax = std::max(max_abs(n, 1, d.data(), n), max_abs(n - 1, 1, e.data(), n - 1));
            const long double f = (long double)target / (long double)amax;
            scale(d.data(), d.size(), f);
            scale(e.data(), e.size(), f);
            check_bdsvd<T>(this->h, which == 0, n, d, e, true);
        }
}

TYPED_TEST(BdsvdTest, NonFinite) {
    using T = TypeParam;
    const int64_t n = 4;
    for (int where = 0; where < 2; ++where) {
        std::vector<T> d = {T(1), T(2), T(3), T(4)}, e = {T(1), T(1), T(1)};
        (where ? e[1] : d[2]) = where ? std::numeric_limits<T>::infinity() : nan_v<T>();
        std::vector<T> U(sz(n * n), T(0)), VT(sz(n * n), T(0));
        int info = 0;
        GPUSVD_ASSERT_OK(this->h, Api<T>::bdsvd(this->h, GPUSVD_UPPER, GPUSVD_JOB_VEC, n, d.data(),
                                                e.data(), U.data(), n, VT.data(), n, &info));
        EXPECT_EQ(info, GPUSVD_INFO_NONFINITE);
        EXPECT_TRUE(all_nan(n, 1, d.data(), n));
        EXPECT_TRUE(all_nan(n, n, U.data(), n));
        EXPECT_TRUE(all_nan(n, n, VT.data(), n));
    }
}

}  // namespace
