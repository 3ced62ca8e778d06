// gpusvd_Xbdsvd: SVD of upper/lower bidiagonal matrices, values only and with vectors (checks in
// bdsvd_checks.hpp, shared with test_gpu_bdsvd).
#include "bdsvd_checks.hpp"

using namespace gpusvd_test;

namespace {

template <typename T>
class BdsvdTest : public ::testing::Test {
protected:
    Handle h;
};
TYPED_TEST_SUITE(BdsvdTest, Precisions, PrecisionName);

template <typename T>
void run_mode(gpusvdHandle_t h, BidiagMode mode, double param, bool relative, uint64_t seed) {
    check_bidiag_mode<T>(h, {1, 2, 3, 5, 17, 26, 40, 64}, mode, param, relative, seed);
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
