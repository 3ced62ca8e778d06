// gpusvd_Xpca: compared with a reference built here from LAPACK ?gesvd of the explicitly
// centred matrix (components up to the documented sign convention).
#include "test_common.hpp"

using namespace gpusvd_test;

namespace {

constexpr double kThreshold = 50.0;

/// X (m x n, leading dimension m) = 1 mu^T + Uc diag(s) V^T with Uc orthonormal and centred, so
/// the centred X has exactly the singular values s (r = min(m-1, n) of them, well separated).
template <typename T>
std::vector<T> make_data(Rng &rng, int64_t m, int64_t n) {
    const int64_t r = std::min(m - 1, n);
    std::vector<double> G(sz(m * std::max<int64_t>(r, 1)));
    random_centred_orthonormal(rng, m, r, G.data(), m);
    std::vector<double> V(sz(n * std::max<int64_t>(r, 1)));
    if (r > 0) random_orthonormal(rng, n, r, V.data(), n);
    std::vector<T> X(sz(m * n));
    for (int64_t j = 0; j < n; ++j) {
        const double mu = 5.0 * rng.normal();
        for (int64_t i = 0; i < m; ++i) {
            double v = mu;
            for (int64_t p = 0; p < r; ++p)
                v += G[sz(i + p * m)] * (10.0 * std::pow(0.6, double(p))) * V[sz(j + p * n)];
            X[sz(i + j * m)] = T(v);
        }
    }
    return X;
}

template <typename T>
struct PcaRef {
    std::vector<long double> mean;
    std::vector<T> Xc;          // centred, m x n
    std::vector<T> S;           // p = min(m, n) singular values of Xc
    std::vector<T> components;  // n x p, sign convention applied
};

template <typename T>
PcaRef<T> reference(int64_t m, int64_t n, const std::vector<T> &X) {
    PcaRef<T> r;
    const int64_t p = std::min(m, n);
    r.mean.assign(sz(n), 0.0L);
    r.Xc.resize(sz(m * n));
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) r.mean[sz(j)] += X[sz(i + j * m)];
        r.mean[sz(j)] /= (long double)m;
        for (int64_t i = 0; i < m; ++i) r.Xc[sz(i + j * m)] = T(X[sz(i + j * m)] - r.mean[sz(j)]);
    }
    std::vector<T> W = r.Xc, VT(sz(p * n)), superb(sz(p + 1));
    r.S.resize(sz(p));
    T dummy = 0;
    EXPECT_EQ(lapacke_gesvd('N', 'S', lapack_int(m), lapack_int(n), W.data(), lapack_int(m),
                            r.S.data(), &dummy, 1, VT.data(), lapack_int(p), superb.data()),
              0);
    r.components = signed_components(n, p, VT);
    return r;
}

struct PcaCase {
    int64_t m, n, k;
};

template <typename T>
class PcaTest : public ::testing::Test {
protected:
    Handle h;
};
TYPED_TEST_SUITE(PcaTest, Precisions, PrecisionName);

template <typename T>
void check_pca(gpusvdHandle_t h, const PcaCase &c, uint64_t seed) {
    SCOPED_TRACE(testing::Message() << "m=" << c.m << " n=" << c.n << " k=" << c.k);
    const int64_t m = c.m, n = c.n, k = c.k;
    Rng rng(seed);
    const std::vector<T> X0 = make_data<T>(rng, m, n);
    const int64_t ldx = m + 1, ldc = n + 2, lds = m + 3;
    const T pad = sentinel<T>();
    const std::vector<T> X = with_ld(m, n, X0.data(), m, ldx, pad);
    const std::vector<T> Xcopy = X;
    std::vector<T> C = sentinels<T>(sz(ldc * k + 1)), var = sentinels<T>(sz(k + 1)),
                   scores = sentinels<T>(sz(lds * k + 1)), mean = sentinels<T>(sz(n + 1));
    int info = -777;
    GPUSVD_ASSERT_OK(h, Api<T>::pca(h, m, n, X.data(), ldx, k, C.data(), ldc, var.data(),
                                    scores.data(), lds, mean.data(), &info));
    EXPECT_EQ(info, 0);
    EXPECT_TRUE(same_bits(X, Xcopy)) << "X modified";
    EXPECT_TRUE(padding_intact(n, k, C.data(), ldc, pad));
    EXPECT_TRUE(padding_intact(m, k, scores.data(), lds, pad));
    EXPECT_EQ(C.back(), pad);
    EXPECT_EQ(var[sz(k)], pad);
    EXPECT_EQ(scores.back(), pad);
    EXPECT_EQ(mean[sz(n)], pad);

    const PcaRef<T> ref = reference(m, n, X0);
    // mean
    for (int64_t j = 0; j < n; ++j) {
        T colmax = max_abs(m, 1, X0.data() + j * m, m);
        EXPECT_LE(std::fabs((long double)mean[sz(j)] - ref.mean[sz(j)]),
                  4 * eps<T>() * colmax + std::numeric_limits<T>::min())
            << "mean " << j;
    }
    const double s1 = double(ref.S.empty() ? T(0) : ref.S[0]);
    const int64_t r = std::min(m - 1, n);  // non-zero singular values of the centred data
    // explained variance sigma^2 / (m - 1), descending
    EXPECT_TRUE(is_sorted_desc_nonneg(k, var.data()));
    for (int64_t j = 0; j < k; ++j) {
        const double expect = double(ref.S[sz(j)]) * double(ref.S[sz(j)]) / double(m - 1);
        EXPECT_LE(std::fabs(double(var[sz(j)]) - expect),
                  kThreshold * double(std::max(m, n)) * eps<T>() * s1 * s1 / double(m - 1))
            << "explained variance " << j;
    }
    // components: orthonormal, sign convention, close to the reference (gap-dependent)
    EXPECT_LT(orthogonality(n, k, C.data(), ldc), kThreshold);
    for (int64_t j = 0; j < k; ++j) {
        int64_t arg = 0;
        for (int64_t i = 1; i < n; ++i)
            if (std::fabs(C[sz(i + j * ldc)]) > std::fabs(C[sz(arg + j * ldc)])) arg = i;
        EXPECT_GT(C[sz(arg + j * ldc)], T(0)) << "largest entry of component " << j << " positive";
        if (j >= r) continue;  // component of a zero singular value: any unit vector
        double gap = double(ref.S[sz(j)]) - (j + 1 < std::min(m, n) ? double(ref.S[sz(j + 1)]) : 0.0);
        if (j > 0) gap = std::min(gap, double(ref.S[sz(j - 1)]) - double(ref.S[sz(j)]));
        const double tol = kThreshold * double(std::max(m, n)) * eps<T>() * s1 / gap;
        double diff = 0;
        for (int64_t i = 0; i < n; ++i)
            diff = std::max(diff, std::fabs(double(C[sz(i + j * ldc)]) -
                                            double(ref.components[sz(i + j * n)])));
        EXPECT_LE(diff, tol) << "component " << j << " vs reference";
    }
    // scores = centred X * components
    std::vector<T> XcC(sz(m * k), T(0));
    for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < m; ++i) {
            long double s = 0;
            for (int64_t p = 0; p < n; ++p)
                s += (long double)ref.Xc[sz(i + p * m)] * C[sz(p + j * ldc)];
            XcC[sz(i + j * m)] = T(s);
        }
    double sdiff = 0;
    for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < m; ++i)
            sdiff = std::max(sdiff, std::fabs(double(scores[sz(i + j * lds)]) -
                                              double(XcC[sz(i + j * m)])));
    EXPECT_LE(sdiff, kThreshold * double(std::max(m, n)) * eps<T>() * std::max(s1, 1e-30))
        << "scores vs centred X * components";

    // Optional outputs: NULL scores and mean give the same components and variances.
    std::vector<T> C2 = sentinels<T>(sz(ldc * k + 1)), var2 = sentinels<T>(sz(k + 1));
    int info2 = -777;
    GPUSVD_ASSERT_OK(h, Api<T>::pca(h, m, n, X.data(), ldx, k, C2.data(), ldc, var2.data(), nullptr,
                                    0, nullptr, &info2));
    EXPECT_EQ(info2, 0);
    EXPECT_LT(sv_compare(k, var2.data(), var.data()), 1.0);
    for (int64_t j = 0; j < std::min(k, r); ++j)
        for (int64_t i = 0; i < n; ++i)
            EXPECT_NEAR(double(C2[sz(i + j * ldc)]), double(C[sz(i + j * ldc)]), 4 * eps<T>());
    EXPECT_TRUE(same_bits(X, Xcopy)) << "X modified";
}

TYPED_TEST(PcaTest, Shapes) {
    using T = TypeParam;
    uint64_t seed = 51;
    for (const PcaCase &c : {PcaCase{50, 7, 3}, PcaCase{50, 7, 7}, PcaCase{8, 20, 3},
                             PcaCase{8, 20, 8}, PcaCase{20, 20, 5}, PcaCase{20, 20, 20},
                             PcaCase{3, 2, 2}, PcaCase{2, 5, 1}, PcaCase{2, 5, 2},
                             PcaCase{10, 1, 1}, PcaCase{200, 13, 4}})
        check_pca<T>(this->h, c, seed++);
}

TYPED_TEST(PcaTest, KZeroTouchesNothing) {
    using T = TypeParam;
    Rng rng(52);
    const int64_t m = 6, n = 4;
    const std::vector<T> X = gaussian<T>(rng, m, n);
    std::vector<T> C = sentinels<T>(8), var = sentinels<T>(2), scores = sentinels<T>(8),
                   mean = sentinels<T>(sz(n));
    int info = -777;
    GPUSVD_ASSERT_OK(this->h, Api<T>::pca(this->h, m, n, X.data(), m, 0, C.data(), n, var.data(),
                                          scores.data(), m, mean.data(), &info));
    EXPECT_EQ(info, 0);
    EXPECT_TRUE(all_equal(C, sentinel<T>()));
    EXPECT_TRUE(all_equal(var, sentinel<T>()));
    EXPECT_TRUE(all_equal(scores, sentinel<T>()));
    EXPECT_TRUE(all_equal(mean, sentinel<T>()));
    // ... and NULL arrays are fine then.
    GPUSVD_ASSERT_OK(this->h, Api<T>::pca(this->h, m, n, X.data(), m, 0, nullptr, n, nullptr,
                                          nullptr, 0, nullptr, &info));
    EXPECT_EQ(info, 0);
}

TYPED_TEST(PcaTest, ConstantFeature) {
    // A feature with zero variance: the centred matrix is rank deficient.
    using T = TypeParam;
    Rng rng(53);
    const int64_t m = 12, n = 4, k = 4;
    std::vector<T> X = gaussian<T>(rng, m, n);
    for (int64_t i = 0; i < m; ++i) X[sz(i + 2 * m)] = T(3.5);
    std::vector<T> C(sz(n * k)), var(sz(k)), scores(sz(m * k)), mean(sz(n));
    int info = -1;
    GPUSVD_ASSERT_OK(this->h, Api<T>::pca(this->h, m, n, X.data(), m, k, C.data(), n, var.data(),
                                          scores.data(), m, mean.data(), &info));
    EXPECT_EQ(info, 0);
    EXPECT_EQ(mean[2], T(3.5));
    EXPECT_LT(double(var[3]), 50 * eps<T>() * double(var[0]));
    EXPECT_LT(orthogonality(n, k, C.data(), n), kThreshold);
    // The zero-variance direction is e_3 (feature 2).
    EXPECT_NEAR(double(C[sz(2 + 3 * n)]), 1.0, 1e3 * eps<T>());
}

TYPED_TEST(PcaTest, NonFinite) {
    using T = TypeParam;
    Rng rng(54);
    const int64_t m = 7, n = 3, k = 2;
    std::vector<T> X = gaussian<T>(rng, m, n);
    X[5] = nan_v<T>();
    std::vector<T> C(sz(n * k), T(0)), var(sz(k), T(0)), scores(sz(m * k), T(0)), mean(sz(n), T(0));
    int info = 0;
    GPUSVD_ASSERT_OK(this->h, Api<T>::pca(this->h, m, n, X.data(), m, k, C.data(), n, var.data(),
                                          scores.data(), m, mean.data(), &info));
    EXPECT_EQ(info, GPUSVD_INFO_NONFINITE);
    EXPECT_TRUE(all_nan(n, k, C.data(), n));
    EXPECT_TRUE(all_nan(k, 1, var.data(), k));
    EXPECT_TRUE(all_nan(m, k, scores.data(), m));
    EXPECT_TRUE(all_nan(n, 1, mean.data(), n));
}

}  // namespace

// Data near overflow (and near underflow) must give the same PCA as the same data at scale 1:
// components equal, variances and scores scaled by the factor (squared for variances), means by
// the factor. The factor is a power of two, so the scaled data is exact.
TYPED_TEST(PcaTest, NearOverflowAndUnderflowScaling) {
    using T = TypeParam;
    const int64_t m = 40, n = 6, k = 3;
    Rng rng(4242);
    const std::vector<T> X0 = make_data<T>(rng, m, n);
    T amax = 0;
    for (T v : X0) amax = std::max(amax, std::fabs(v));
    auto run = [&](T factor, std::vector<T> &C, std::vector<T> &var, std::vector<T> &sc,
                   std::vector<T> &mean) {
        std::vector<T> X(X0.size());
        for (size_t i = 0; i < X.size(); ++i) X[i] = X0[i] * factor;
        C.assign(sz(n * k), T(0)), var.assign(sz(k), T(0)), sc.assign(sz(m * k), T(0));
        mean.assign(sz(n), T(0));
        int info = -777;
        GPUSVD_ASSERT_OK(this->h, Api<T>::pca(this->h, m, n, X.data(), m, k, C.data(), n,
                                              var.data(), sc.data(), m, mean.data(), &info));
        EXPECT_EQ(info, 0);
    };
    std::vector<T> C1, v1, s1, mu1;
    run(T(1), C1, v1, s1, mu1);
    // near overflow: largest entry about max/2; near underflow: about 2^(min_exponent+digits)
    const T big = std::ldexp(T(1), std::numeric_limits<T>::max_exponent - 2 - std::ilogb(amax));
    const T tiny = std::ldexp(T(1), std::numeric_limits<T>::min_exponent +
                                        std::numeric_limits<T>::digits - std::ilogb(amax));
    for (T f : {big, tiny}) {
        SCOPED_TRACE(testing::Message() << "factor " << double(f));
        std::vector<T> C, v, s, mu;
        run(f, C, v, s, mu);
        for (int64_t i = 0; i < n * k; ++i)
            EXPECT_NEAR(double(C[sz(i)]), double(C1[sz(i)]), 100 * eps<T>()) << "component " << i;
        for (int64_t j = 0; j < k; ++j) {
            // The variance of the scaled data is the true value rounded: above max it is Inf,
            // below the normal range it underflows; compare in the log domain in between.
            const double expect_log2 = std::log2(double(v1[sz(j)])) + 2 * std::log2(double(f));
            if (expect_log2 >= std::numeric_limits<T>::max_exponent) {
                EXPECT_TRUE(std::isinf(v[sz(j)])) << "variance " << j;
                continue;
            }
            if (expect_log2 < std::numeric_limits<T>::min_exponent) {
                EXPECT_GE(v[sz(j)], T(0));
                EXPECT_LE(v[sz(j)], std::numeric_limits<T>::min()) << "variance " << j;
                continue;
            }
            EXPECT_NEAR(std::log2(double(v[sz(j)])) - 2 * std::log2(double(f)),
                        std::log2(double(v1[sz(j)])), 1e-3)
                << "variance " << j;
        }
        for (int64_t j = 0; j < n; ++j)
            EXPECT_NEAR(double(mu[sz(j)] / f), double(mu1[sz(j)]),
                        100 * eps<T>() * double(amax))
                << "mean " << j;
        for (int64_t i = 0; i < m * k; ++i)
            EXPECT_NEAR(double(s[sz(i)] / f), double(s1[sz(i)]), 1000 * eps<T>() * double(amax))
                << "score " << i;
    }
}
