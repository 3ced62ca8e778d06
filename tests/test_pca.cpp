// gpusvd_Xpca with each method (QR, covariance, AUTO), compared with the reference of
// pca_checks.hpp (LAPACK dgesvd of the explicitly centred data, components up to the documented
// sign convention) within each method's bounds; where the covariance method loses accuracy and
// the QR method keeps it; AUTO's rule.
#include "pca_checks.hpp"
#include "test_common.hpp"

using namespace gpusvd_test;

namespace {

constexpr gpusvdPcaMethod_t kMethods[] = {GPUSVD_PCA_QR, GPUSVD_PCA_COVARIANCE, GPUSVD_PCA_AUTO};

const char *method_name(gpusvdPcaMethod_t m) {
    return m == GPUSVD_PCA_QR ? "QR" : m == GPUSVD_PCA_COVARIANCE ? "covariance" : "AUTO";
}

double top_down(int64_t p) { return 10.0 * std::pow(0.6, double(p)); }

/// X (m x n, leading dimension m) = 1 mu^T + Uc diag(s) V^T with Uc orthonormal and centred, so
/// the centred X has exactly the singular values s_p = sigma(p) (r = min(m-1, n) of them).
template <typename T>
std::vector<T> make_data(Rng &rng, int64_t m, int64_t n, double (*sigma)(int64_t) = top_down,
                         double mu_scale = 5.0) {
    const int64_t r = std::min(m - 1, n);
    std::vector<double> G(sz(m * std::max<int64_t>(r, 1)));
    random_centred_orthonormal(rng, m, r, G.data(), m);
    std::vector<double> V(sz(n * std::max<int64_t>(r, 1)));
    if (r > 0) random_orthonormal(rng, n, r, V.data(), n);
    std::vector<T> X(sz(m * n));
    for (int64_t j = 0; j < n; ++j) {
        const double mu = mu_scale * rng.normal();
        for (int64_t i = 0; i < m; ++i) {
            double v = mu;
            for (int64_t p = 0; p < r; ++p) v += G[sz(i + p * m)] * sigma(p) * V[sz(j + p * n)];
            X[sz(i + j * m)] = T(v);
        }
    }
    return X;
}

struct PcaCase {
    int64_t m, n, k;
};

template <typename T>
class PcaTest : public ::testing::Test {
protected:
    Handle h;
    void use(gpusvdPcaMethod_t method) {
        ASSERT_EQ(gpusvdSetPcaMethod(h, method), GPUSVD_STATUS_SUCCESS);
    }
};
TYPED_TEST_SUITE(PcaTest, Precisions, PrecisionName);

/// pca of X0 (m x n, ld m) on h with its current method, against the reference.
template <typename T>
void check_pca(gpusvdHandle_t h, const PcaCase &c, const std::vector<T> &X0) {
    const int64_t m = c.m, n = c.n, k = c.k;
    const bool cov = pca_uses_covariance<T>(h, m, n);
    SCOPED_TRACE(testing::Message() << "m=" << m << " n=" << n << " k=" << k
                                    << (cov ? " covariance" : " QR"));
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

    const PcaRef ref = pca_reference(m, n, X0);
    // the mean: rounded to T from a sum in double (as range_checks.hpp)
    for (int64_t j = 0; j < n; ++j)
        EXPECT_LE(std::fabs((long double)mean[sz(j)] - ref.mean[sz(j)]),
                  (4 * eps<T>() + 4 * std::sqrt(double(m)) * eps<double>()) * ref.colmax[sz(j)] +
                      std::numeric_limits<T>::min())
            << "mean " << j;
    // explained variance sigma^2 / (m - 1), descending, and the components: orthonormal, the
    // sign convention, close to the reference within the method's bounds
    EXPECT_TRUE(is_sorted_desc_nonneg(k, var.data()));
    EXPECT_LT(orthogonality(n, k, C.data(), ldc), kSvdThreshold);
    const int64_t r = std::min(m - 1, n);  // non-zero singular values of the centred data
    for (int64_t j = 0; j < k; ++j) {
        const PcaBounds b = pca_bounds(ref, j, ref.E, cov);
        const double expect = ref.S[sz(j)] * ref.S[sz(j)] / double(m - 1);
        EXPECT_LE(std::fabs(double(var[sz(j)]) - expect), b.variance) << "explained variance " << j;
        int64_t arg = 0;
        for (int64_t i = 1; i < n; ++i)
            if (std::fabs(C[sz(i + j * ldc)]) > std::fabs(C[sz(arg + j * ldc)])) arg = i;
        EXPECT_GT(C[sz(arg + j * ldc)], T(0)) << "largest entry of component " << j << " positive";
        if (j >= r) continue;  // component of a zero singular value: any unit vector
        double diff = 0;
        for (int64_t i = 0; i < n; ++i)
            diff = std::max(diff, std::fabs(double(C[sz(i + j * ldc)]) -
                                            ref.components[sz(i + j * n)]));
        EXPECT_LE(diff, b.component) << "component " << j << " vs reference";
    }
    // scores = centred X * components
    double sdiff = 0;
    for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < m; ++i) {
            long double s = 0;
            for (int64_t p = 0; p < n; ++p)
                s += (long double)ref.Xc[sz(i + p * m)] * C[sz(p + j * ldc)];
            sdiff = std::max(sdiff, double(std::fabs(scores[sz(i + j * lds)] - s)));
        }
    EXPECT_LE(sdiff, std::max(ref.E, 1e-30)) << "scores vs centred X * components";

    // Optional outputs: NULL scores and mean give the same components and variances.
    std::vector<T> C2 = sentinels<T>(sz(ldc * k + 1)), var2 = sentinels<T>(sz(k + 1));
    int info2 = -777;
    GPUSVD_ASSERT_OK(h, Api<T>::pca(h, m, n, X.data(), ldx, k, C2.data(), ldc, var2.data(), nullptr,
                                    0, nullptr, &info2));
    EXPECT_EQ(info2, 0);
    EXPECT_TRUE(same_bits(var2, var)) << "variances with and without scores";
    EXPECT_TRUE(same_bits(C2, C)) << "components with and without scores";
    EXPECT_TRUE(same_bits(X, Xcopy)) << "X modified";
}

template <typename T>
void check_pca(gpusvdHandle_t h, const PcaCase &c, uint64_t seed,
               double (*sigma)(int64_t) = top_down) {
    Rng rng(seed);
    check_pca<T>(h, c, make_data<T>(rng, c.m, c.n, sigma));
}

TYPED_TEST(PcaTest, Shapes) {
    using T = TypeParam;
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        this->use(method);
        uint64_t seed = 51;
        // Among them: wide data, k = min(m, n), the covariance method's partial eigensolver
        // (8 k <= n), several row blocks and partitions with a short last block.
        for (const PcaCase &c :
             {PcaCase{50, 7, 3}, PcaCase{50, 7, 7}, PcaCase{8, 20, 3}, PcaCase{8, 20, 8},
              PcaCase{20, 20, 5}, PcaCase{20, 20, 20}, PcaCase{3, 2, 2}, PcaCase{2, 5, 1},
              PcaCase{2, 5, 2}, PcaCase{10, 1, 1}, PcaCase{200, 13, 4}, PcaCase{300, 40, 5},
              PcaCase{9001, 40, 40}, PcaCase{20011, 16, 2}})
            check_pca<T>(this->h, c, seed++);
    }
}

// gpusvdSetMatrixLayout: row-major X, components and scores, on each method, against the
// column-major call (bit for bit for the QR method, which centres a column-major copy; the
// covariance method reads the rows in place, summing the means in another order).
TYPED_TEST(PcaTest, RowMajorMatchesColumnMajor) {
    using T = TypeParam;
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        this->use(method);
        uint64_t seed = 71;
        for (const PcaCase &c : {PcaCase{50, 7, 3}, PcaCase{8, 20, 3}, PcaCase{20, 20, 20},
                                 PcaCase{3, 2, 2}, PcaCase{10, 1, 1}, PcaCase{9001, 40, 5}}) {
            Rng rng(seed++);
            const bool cov = pca_uses_covariance<T>(this->h, c.m, c.n);
            check_pca_row_major<T>(this->h, c.m, c.n, c.k, make_data<T>(rng, c.m, c.n, top_down),
                                   !cov, Api<T>::pca);
        }
    }
}

// Row-major leading dimensions count columns: ldx >= n, ldc >= k, lds >= k.
TYPED_TEST(PcaTest, RowMajorLeadingDimensions) {
    using T = TypeParam;
    gpusvdHandle_t h = this->h;
    const int64_t m = 6, n = 4, k = 2;
    Rng rng(77);
    const std::vector<T> X = to_row_major<T>(m, n, gaussian<T>(rng, m, n).data(), m, m, T(0));
    auto call = [&](int64_t ldx, int64_t ldc, int64_t lds, const char *name, gpusvdStatus_t expect) {
        SCOPED_TRACE(testing::Message() << "ldx " << ldx << " ldc " << ldc << " lds " << lds);
        std::vector<T> C(sz(n * n + 4), T(5)), var(sz(k), T(5)), S(sz(m * m + 4), T(5));
        const std::vector<T> C1 = C, S1 = S;
        int info = -777;
        const gpusvdStatus_t st = Api<T>::pca(h, m, n, X.data(), ldx, k, C.data(), ldc, var.data(),
                                              S.data(), lds, nullptr, &info);
        EXPECT_EQ(st, expect) << gpusvdGetErrorMessage(h);
        if (expect == GPUSVD_STATUS_SUCCESS) return;
        EXPECT_NE(std::strstr(gpusvdGetErrorMessage(h), name), nullptr) << gpusvdGetErrorMessage(h);
        EXPECT_TRUE(same_bits(C, C1) && same_bits(S, S1)) << "a rejected call wrote";
        EXPECT_EQ(info, -777);
    };
    RowMajorScope row(h);
    call(n, k, k, "", GPUSVD_STATUS_SUCCESS);  // column-major would need ldx >= 6, ldc >= 4
    call(n - 1, k, k, "ldx", GPUSVD_STATUS_INVALID_VALUE);
    call(n, k - 1, k, "ldc", GPUSVD_STATUS_INVALID_VALUE);
    call(n, k, k - 1, "lds", GPUSVD_STATUS_INVALID_VALUE);
}

// gpusvdGetPcaTotalVariance: NaN before any call, the reference's ||Xc||_F^2 / (m - 1) after
// one (each method, tall and wide data, k below min(m, n)), NaN after NaN data or an empty
// problem, unchanged by a refused call.
TYPED_TEST(PcaTest, TotalVariance) {
    using T = TypeParam;
    gpusvdHandle_t h = this->h;
    double total = 0;
    ASSERT_EQ(gpusvdGetPcaTotalVariance(h, &total), GPUSVD_STATUS_SUCCESS);
    EXPECT_TRUE(std::isnan(total)) << "before any pca call";
    EXPECT_EQ(gpusvdGetPcaTotalVariance(h, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdGetPcaTotalVariance(nullptr, &total), GPUSVD_STATUS_INVALID_VALUE);
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        this->use(method);
        uint64_t seed = 81;
        for (const PcaCase &c : {PcaCase{50, 7, 3}, PcaCase{8, 20, 3}, PcaCase{300, 40, 2},
                                 PcaCase{2, 5, 1}}) {
            SCOPED_TRACE(testing::Message() << c.m << " x " << c.n << " k " << c.k);
            Rng rng(seed++);
            const std::vector<T> X = make_data<T>(rng, c.m, c.n, top_down);
            std::vector<T> C(sz(c.n * c.k)), var(sz(c.k));
            int info = -777;
            GPUSVD_ASSERT_OK(h, Api<T>::pca(h, c.m, c.n, X.data(), c.m, c.k, C.data(), c.n,
                                            var.data(), nullptr, 1, nullptr, &info));
            const PcaRef ref = pca_reference(c.m, c.n, X);
            expect_total_variance<T>(h, ref);
            // the explained variances are part of it
            ASSERT_EQ(gpusvdGetPcaTotalVariance(h, &total), GPUSVD_STATUS_SUCCESS);
            double sum = 0;
            for (T v : var) sum += double(v);
            EXPECT_LE(sum, total * (1 + 100 * eps<T>()));
            // a refused call leaves it
            EXPECT_EQ(Api<T>::pca(h, c.m, c.n, X.data(), c.m - 1, c.k, C.data(), c.n, var.data(),
                                  nullptr, 1, nullptr, &info),
                      GPUSVD_STATUS_INVALID_VALUE);
            double again = 0;
            ASSERT_EQ(gpusvdGetPcaTotalVariance(h, &again), GPUSVD_STATUS_SUCCESS);
            EXPECT_EQ(again, total);
        }
        // NaN data, then an empty problem: NaN
        std::vector<T> X(sz(20 * 3), T(1)), C(sz(3 * 2)), var(2);
        X[7] = nan_v<T>();
        int info = -777;
        GPUSVD_ASSERT_OK(h, Api<T>::pca(h, 20, 3, X.data(), 20, 2, C.data(), 3, var.data(),
                                        nullptr, 1, nullptr, &info));
        EXPECT_EQ(info, GPUSVD_INFO_NONFINITE);
        ASSERT_EQ(gpusvdGetPcaTotalVariance(h, &total), GPUSVD_STATUS_SUCCESS);
        EXPECT_TRUE(std::isnan(total)) << "NaN data";
        X[7] = T(2);
        GPUSVD_ASSERT_OK(h, Api<T>::pca(h, 20, 3, X.data(), 20, 2, C.data(), 3, var.data(),
                                        nullptr, 1, nullptr, &info));
        ASSERT_EQ(gpusvdGetPcaTotalVariance(h, &total), GPUSVD_STATUS_SUCCESS);
        EXPECT_FALSE(std::isnan(total));
        GPUSVD_ASSERT_OK(h, Api<T>::pca(h, 20, 3, X.data(), 20, 0, C.data(), 3, var.data(),
                                        nullptr, 1, nullptr, &info));
        ASSERT_EQ(gpusvdGetPcaTotalVariance(h, &total), GPUSVD_STATUS_SUCCESS);
        EXPECT_TRUE(std::isnan(total)) << "k = 0: nothing computed";
    }
}

// Spectra that spread the variances: graded over six (double) or three (float) decades, and
// ill-conditioned over twelve or five; and features of very different scales.
double graded_d(int64_t p) { return std::pow(10.0, -6.0 * double(p) / 11.0); }
double graded_s(int64_t p) { return std::pow(10.0, -3.0 * double(p) / 11.0); }
double ill_d(int64_t p) { return std::pow(10.0, -12.0 * double(p) / 11.0); }
double ill_s(int64_t p) { return std::pow(10.0, -5.0 * double(p) / 11.0); }

TYPED_TEST(PcaTest, GradedAndIllConditionedAgainstLapack) {
    using T = TypeParam;
    const bool dbl = std::is_same<T, double>::value;
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        this->use(method);
        check_pca<T>(this->h, PcaCase{300, 12, 12}, 61, dbl ? graded_d : graded_s);
        check_pca<T>(this->h, PcaCase{300, 12, 6}, 62, dbl ? ill_d : ill_s);
        check_pca<T>(this->h, PcaCase{40, 12, 12}, 63, dbl ? ill_d : ill_s);
        // features scaled from 1e-3 to 1: Gaussian data, its centred spectrum graded
        Rng rng(64);
        const int64_t m = 500, n = 10;
        std::vector<T> X = gaussian<T>(rng, m, n);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i)
                X[sz(i + j * m)] =
                    T(double(X[sz(i + j * m)]) * std::pow(10.0, -0.3 * double(j)) + 2.0);
        check_pca<T>(this->h, PcaCase{m, n, n}, X);
    }
}

TYPED_TEST(PcaTest, KZeroTouchesNothing) {
    using T = TypeParam;
    Rng rng(52);
    const int64_t m = 6, n = 4;
    const std::vector<T> X = gaussian<T>(rng, m, n);
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        this->use(method);
        std::vector<T> C = sentinels<T>(8), var = sentinels<T>(2), scores = sentinels<T>(8),
                       mean = sentinels<T>(sz(n));
        int info = -777;
        GPUSVD_ASSERT_OK(this->h, Api<T>::pca(this->h, m, n, X.data(), m, 0, C.data(), n,
                                              var.data(), scores.data(), m, mean.data(), &info));
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
}

TYPED_TEST(PcaTest, ConstantFeature) {
    // A feature with zero variance: the centred matrix is rank deficient.
    using T = TypeParam;
    Rng rng(53);
    const int64_t m = 12, n = 4, k = 4;
    std::vector<T> X = gaussian<T>(rng, m, n);
    for (int64_t i = 0; i < m; ++i) X[sz(i + 2 * m)] = T(3.5);
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        this->use(method);
        std::vector<T> C(sz(n * k)), var(sz(k)), scores(sz(m * k)), mean(sz(n));
        int info = -1;
        GPUSVD_ASSERT_OK(this->h, Api<T>::pca(this->h, m, n, X.data(), m, k, C.data(), n,
                                              var.data(), scores.data(), m, mean.data(), &info));
        EXPECT_EQ(info, 0);
        EXPECT_EQ(mean[2], T(3.5));
        EXPECT_LT(double(var[3]), 50 * eps<T>() * double(var[0]));
        EXPECT_LT(orthogonality(n, k, C.data(), n), kSvdThreshold);
        // The zero-variance direction is e_3 (feature 2).
        EXPECT_NEAR(double(C[sz(2 + 3 * n)]), 1.0, 1e3 * eps<T>());
    }
}

TYPED_TEST(PcaTest, NonFinite) {
    using T = TypeParam;
    Rng rng(54);
    // Small, and tall enough for several row blocks with the bad entry in a late one.
    for (const PcaCase &c : {PcaCase{7, 3, 2}, PcaCase{3000, 40, 3}})
        for (T bad : {nan_v<T>(), std::numeric_limits<T>::infinity()})
            for (gpusvdPcaMethod_t method : kMethods) {
                SCOPED_TRACE(testing::Message()
                             << method_name(method) << " m=" << c.m << " " << bad);
                this->use(method);
                const int64_t m = c.m, n = c.n, k = c.k;
                std::vector<T> X = gaussian<T>(rng, m, n);
                X[sz(m * n - 5)] = bad;
                std::vector<T> C(sz(n * k), T(0)), var(sz(k), T(0)), scores(sz(m * k), T(0)),
                    mean(sz(n), T(0));
                int info = 0;
                GPUSVD_ASSERT_OK(this->h,
                                 Api<T>::pca(this->h, m, n, X.data(), m, k, C.data(), n, var.data(),
                                             scores.data(), m, mean.data(), &info));
                EXPECT_EQ(info, GPUSVD_INFO_NONFINITE);
                EXPECT_TRUE(all_nan(n, k, C.data(), n));
                EXPECT_TRUE(all_nan(k, 1, var.data(), k));
                EXPECT_TRUE(all_nan(m, k, scores.data(), m));
                EXPECT_TRUE(all_nan(n, 1, mean.data(), n));
            }
}

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
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        this->use(method);
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
                EXPECT_NEAR(double(C[sz(i)]), double(C1[sz(i)]), 100 * eps<T>())
                    << "component " << i;
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
}

// Where the covariance method loses accuracy: singular values of the centred data from 1 down to
// 1e-9 (variances over 18 decades). Each method keeps its documented bound. The covariance
// method's relative error grows like eps (s_1 / s_j)^2 and swamps the variances below eps times
// the largest; the QR method's stays below max(m,n) eps s_1 / s_j and keeps them.
double decades(int64_t p) { return std::pow(10.0, -double(p)); }

TEST(PcaAccuracy, CovarianceLosesSmallVariancesQrKeepsThem) {
    const int64_t m = 500, n = 10, k = n;
    Rng rng(71);
    const std::vector<double> X = make_data<double>(rng, m, n, decades, 1.0);
    const PcaRef ref = pca_reference(m, n, X);
    Handle h;
    auto variances = [&](gpusvdPcaMethod_t method) {
        EXPECT_EQ(gpusvdSetPcaMethod(h, method), GPUSVD_STATUS_SUCCESS);
        std::vector<double> C(sz(n * k)), var(sz(k));
        int info = -777;
        EXPECT_EQ(gpusvd_dpca(h, m, n, X.data(), m, k, C.data(), n, var.data(), nullptr, 1,
                              nullptr, &info),
                  GPUSVD_STATUS_SUCCESS);
        EXPECT_EQ(info, 0);
        return var;
    };
    const std::vector<double> qr = variances(GPUSVD_PCA_QR), cov = variances(GPUSVD_PCA_COVARIANCE);
    double cov_order = 0;  // largest covariance error / eps (s_1 / s_j)^2 over j = 3..7
    double cov_lost = 0, qr_kept = 0;  // largest relative errors of the two smallest variances
    for (int64_t j = 0; j < k; ++j) {
        SCOPED_TRACE(testing::Message() << "variance " << j);
        const double s = ref.S[sz(j)], t = s * s / double(m - 1), ratio = ref.S[0] / s;
        ASSERT_NEAR(s, decades(j), 1e-12) << "the data has the prescribed spectrum";
        EXPECT_LE(std::fabs(qr[sz(j)] - t), pca_bounds(ref, j, ref.E, false).variance);
        EXPECT_LE(std::fabs(cov[sz(j)] - t), pca_bounds(ref, j, ref.E, true).variance);
        const double qr_rel = std::fabs(qr[sz(j)] - t) / t, cov_rel = std::fabs(cov[sz(j)] - t) / t;
        EXPECT_LE(qr_rel, 100 * double(m) * eps<double>() * ratio);
        if (ratio * ratio * eps<double>() < 1e-2) {  // the covariance method's relative bound
            EXPECT_LE(cov_rel, 100 * double(m) * eps<double>() * ratio * ratio);
        }
        if (j >= 3 && j <= 7)
            cov_order = std::max(cov_order, cov_rel / (eps<double>() * ratio * ratio));
        if (j >= k - 2) cov_lost = std::max(cov_lost, cov_rel), qr_kept = std::max(qr_kept, qr_rel);
    }
    // The covariance method's error does reach the order eps (s_1 / s_j)^2 ...
    EXPECT_GT(cov_order, 1e-3);
    // ... and the variances at 1e-16 and 1e-18 of the largest have not one correct digit left,
    // where the QR method's are a thousand times closer (in fact about 1e-10 relative).
    EXPECT_GT(cov_lost, 0.1);
    EXPECT_LT(qr_kept, 1e-3 * cov_lost);
}

// AUTO runs the covariance method for double-precision data with m >= 10 n and n <= 1000, the QR
// method otherwise (gpusvd.h). Seen through _bufferSize (the methods' host workspaces differ) and
// through the results, which equal those of the explicitly chosen method bit for bit.
template <typename T>
size_t host_bytes(gpusvdHandle_t h, gpusvdPcaMethod_t method, int64_t m, int64_t n, int64_t k) {
    EXPECT_EQ(gpusvdSetPcaMethod(h, method), GPUSVD_STATUS_SUCCESS);
    size_t dev = 0, host = 0;
    EXPECT_EQ(Api<T>::pca_bufferSize(h, m, n, k, &dev, &host), GPUSVD_STATUS_SUCCESS);
    return host;
}

template <typename T>
void expect_auto_is(gpusvdHandle_t h, int64_t m, int64_t n, bool covariance) {
    SCOPED_TRACE(testing::Message() << (std::is_same<T, double>::value ? "double " : "float ") << m
                                    << " x " << n);
    const size_t qr = host_bytes<T>(h, GPUSVD_PCA_QR, m, n, 2),
                 cov = host_bytes<T>(h, GPUSVD_PCA_COVARIANCE, m, n, 2);
    ASSERT_NE(qr, cov) << "the workspaces must tell the methods apart";
    EXPECT_EQ(host_bytes<T>(h, GPUSVD_PCA_AUTO, m, n, 2), covariance ? cov : qr);
}

TEST(PcaAuto, FollowsTheDocumentedRule) {
    Handle h;
    ASSERT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS);
    expect_auto_is<double>(h, 640, 64, true);
    expect_auto_is<double>(h, 639, 64, false);
    expect_auto_is<double>(h, 10000, 1000, true);
    expect_auto_is<double>(h, 10010, 1001, false);
    expect_auto_is<double>(h, 1000000, 3, true);
    expect_auto_is<float>(h, 640, 64, false);
    expect_auto_is<float>(h, 1000000, 3, false);
    // The results: AUTO's are those of the method the rule names.
    Rng rng(72);
    for (int64_t m : {int64_t(120), int64_t(119)}) {
        const int64_t n = 12, k = 4;
        const std::vector<double> X = make_data<double>(rng, m, n);
        auto run = [&](gpusvdPcaMethod_t method) {
            EXPECT_EQ(gpusvdSetPcaMethod(h, method), GPUSVD_STATUS_SUCCESS);
            std::vector<double> out(sz(n * k + k + m * k));
            int info = -777;
            EXPECT_EQ(gpusvd_dpca(h, m, n, X.data(), m, k, out.data(), n, out.data() + n * k,
                                  out.data() + n * k + k, m, nullptr, &info),
                      GPUSVD_STATUS_SUCCESS);
            return out;
        };
        const std::vector<double> a = run(GPUSVD_PCA_AUTO), q = run(GPUSVD_PCA_QR),
                                  c = run(GPUSVD_PCA_COVARIANCE);
        EXPECT_FALSE(same_bits(q, c)) << "the methods' results must differ to tell them apart";
        EXPECT_TRUE(same_bits(a, m >= 10 * n ? c : q)) << "m = " << m;
    }
}

}  // namespace
