// gpusvd_Xgesvj_batched: every matrix of a batch is factorized accurately, strides and leading
// dimensions are respected, a NaN/Inf matrix affects only itself.
#include "svd_checks.hpp"

using namespace gpusvd_test;

namespace {

template <typename T>
class GesvjBatchedTest : public ::testing::Test {
protected:
    Handle h;
};
TYPED_TEST_SUITE(GesvjBatchedTest, Precisions, PrecisionName);

/// A batch of `batch` matrices m x n with padded leading dimensions and strides (or tight ones);
/// matrix b gets a different spectrum type. `bad` >= 0 puts a NaN (or Inf) into that matrix.
template <typename T>
void run_batch(gpusvdHandle_t h, int64_t m, int64_t n, int64_t batch, int64_t bad, bool use_inf,
               bool tight) {
    Rng rng(uint64_t(1000 + m * 31 + n));
    std::vector<std::vector<T>> mats(sz(batch));
    const auto &modes = all_sigma_modes();
    for (int64_t b = 0; b < batch; ++b) {
        mats[sz(b)] = (b % 3 == 0) ? gaussian<T>(rng, m, n)
                                   : prescribed_sv<T>(rng, m, n, modes[sz(b) % modes.size()], 1e4);
        if (b == bad)
            mats[sz(b)][sz((m * n) / 2)] = use_inf ? std::numeric_limits<T>::infinity() : nan_v<T>();
    }
    check_gesvj_batched(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, mats, tight);
}

TYPED_TEST(GesvjBatchedTest, PaddedStrides) {
    using T = TypeParam;
    for (auto mn : {std::pair<int64_t, int64_t>{17, 11}, {11, 17}, {8, 8}, {1, 5}, {5, 1}, {1, 1}}) {
        SCOPED_TRACE(testing::Message() << mn.first << " x " << mn.second);
        run_batch<T>(this->h, mn.first, mn.second, 7, -1, false, false);
    }
}

TYPED_TEST(GesvjBatchedTest, TightStrides) {
    using T = TypeParam;
    for (auto mn : {std::pair<int64_t, int64_t>{13, 9}, {9, 13}, {6, 6}}) {
        SCOPED_TRACE(testing::Message() << mn.first << " x " << mn.second);
        run_batch<T>(this->h, mn.first, mn.second, 5, -1, false, true);
    }
}

TYPED_TEST(GesvjBatchedTest, NonFiniteMatrixIsolated) {
    using T = TypeParam;
    run_batch<T>(this->h, 12, 7, 6, 2, false, false);  // NaN in matrix 2
    run_batch<T>(this->h, 7, 12, 6, 0, true, false);   // Inf in matrix 0
    run_batch<T>(this->h, 9, 9, 4, 3, false, true);    // NaN in the last matrix
}

TYPED_TEST(GesvjBatchedTest, ManySmallMatrices) {
    using T = TypeParam;
    run_batch<T>(this->h, 4, 3, 64, -1, false, false);
}

TYPED_TEST(GesvjBatchedTest, BatchOfOneAcceptsZeroStrides) {
    // Strides are only constrained when there is more than one matrix.
    using T = TypeParam;
    Rng rng(11);
    const int64_t m = 10, n = 6;
    const std::vector<T> A0 = gaussian<T>(rng, m, n);
    std::vector<T> A = A0, S(n), U(m * n), V(n * n);
    int info = -1;
    GPUSVD_ASSERT_OK(this->h, Api<T>::gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n,
                                                    A.data(), m, 0, S.data(), 0, U.data(), m, 0,
                                                    V.data(), n, 0, 1, &info));
    EXPECT_EQ(info, 0);
    EXPECT_LT(svd_residual(m, n, A0.data(), m, S.data(), U.data(), m, V.data(), n), kSvdThreshold);
}

TYPED_TEST(GesvjBatchedTest, ValuesOnlyMatchesVectors) {
    using T = TypeParam;
    Rng rng(12);
    const int64_t m = 9, n = 14, k = 9, batch = 5;
    const std::vector<T> A0 = gaussian<T>(rng, m, n * batch);  // batch matrices side by side
    std::vector<T> A = A0, S(sz(k * batch)), S2(sz(k * batch));
    std::vector<int> info(batch, -1);
    GPUSVD_ASSERT_OK(this->h, Api<T>::gesvj_batched(this->h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, m,
                                                    n, A.data(), m, m * n, S.data(), k, nullptr, 0,
                                                    0, nullptr, 0, 0, batch, info.data()));
    for (int b = 0; b < batch; ++b) {
        EXPECT_EQ(info[sz(b)], 0);
        const std::vector<T> Sref = ref_singular_values(m, n, A0.data() + b * m * n, m);
        EXPECT_LT(sv_compare(k, S.data() + b * k, Sref.data()), kSvdThreshold);
    }
    // Only U: V not referenced.
    A = A0;
    std::vector<T> U(sz(m * k * batch));
    GPUSVD_ASSERT_OK(this->h, Api<T>::gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_NOVEC, m,
                                                    n, A.data(), m, m * n, S2.data(), k, U.data(),
                                                    m, m * k, nullptr, 0, 0, batch, info.data()));
    for (int b = 0; b < batch; ++b) {
        EXPECT_EQ(info[sz(b)], 0);
        EXPECT_LT(sv_compare(k, S2.data() + b * k, S.data() + b * k), kSvdThreshold);
        EXPECT_LT(orthogonality(m, k, U.data() + b * m * k, m), kSvdThreshold);
    }
}

TYPED_TEST(GesvjBatchedTest, JacobiStatsAreBatchMaximum) {
    using T = TypeParam;
    Rng rng(13);
    const int64_t m = 20, n = 12, batch = 3;
    // matrix 0 has orthogonal columns already (a confirming sweep suffices), the others random.
    std::vector<T> A0(sz(m * n * batch));
    random_orthonormal(rng, m, n, A0.data(), m);
    for (int64_t j = 0; j < n; ++j)  // distinct column norms
        for (int64_t i = 0; i < m; ++i) A0[sz(i + j * m)] *= T(n - j);
    gaussian(rng, m, n * (batch - 1), A0.data() + m * n, m);
    std::vector<T> A = A0, S(sz(n * batch));
    std::vector<int> info(batch, -1);
    GPUSVD_ASSERT_OK(this->h, Api<T>::gesvj_batched(this->h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, m,
                                                    n, A.data(), m, m * n, S.data(), n, nullptr, 0,
                                                    0, nullptr, 0, 0, batch, info.data()));
    int sweeps_batch = 0;
    double off_batch = -1;
    GPUSVD_ASSERT_OK(this->h, gpusvdGetJacobiStats(this->h, &sweeps_batch, &off_batch));

    int max_single = 0;
    double max_off = 0;
    for (int64_t b = 0; b < batch; ++b) {
        std::vector<T> Ab(A0.begin() + b * m * n, A0.begin() + (b + 1) * m * n), Sb(n);
        int inf1 = -1;
        GPUSVD_ASSERT_OK(this->h, Api<T>::gesvj(this->h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, m, n,
                                                Ab.data(), m, Sb.data(), nullptr, 0, nullptr, 0,
                                                &inf1));
        EXPECT_EQ(inf1, 0);
        int sw = 0;
        double off = 0;
        GPUSVD_ASSERT_OK(this->h, gpusvdGetJacobiStats(this->h, &sw, &off));
        max_single = std::max(max_single, sw);
        max_off = std::max(max_off, off);
        if (b == 0) {
            EXPECT_LE(sw, 2) << "orthogonal columns need at most a confirming sweep";
        }
    }
    EXPECT_EQ(sweeps_batch, max_single);
    EXPECT_NEAR(off_batch, max_off, 1e-3 * max_off);
    EXPECT_GE(sweeps_batch, 2);
}

}  // namespace
