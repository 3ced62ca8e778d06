// gpusvd_Xgesvj: one-sided Jacobi SVD, accuracy on the generator's matrices (DESIGN.md ratios).
#include "svd_checks.hpp"

using namespace gpusvd_test;

namespace {

struct Shape {
    int64_t m, n;
};

const Shape kShapes[] = {{1, 1},  {1, 9},   {9, 1},   {2, 2},   {3, 2},   {2, 3},
                         {17, 11}, {11, 17}, {200, 13}, {13, 200}, {32, 32}, {33, 31}};

template <typename T>
class GesvjTest : public ::testing::Test {
protected:
    Handle h;
};
TYPED_TEST_SUITE(GesvjTest, Precisions, PrecisionName);

TYPED_TEST(GesvjTest, RandomShapes) {
    using T = TypeParam;
    Rng rng(101);
    for (const Shape &s : kShapes) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const std::vector<T> A = gaussian<T>(rng, s.m, s.n);
        check_gesvj<T>(this->h, s.m, s.n, A);
    }
}

TYPED_TEST(GesvjTest, AllSmallShapes) {
    // Every shape up to 9 x 9: edge cases of blocking/pairing in future kernels.
    using T = TypeParam;
    Rng rng(102);
    for (int64_t m = 1; m <= 9; ++m)
        for (int64_t n = 1; n <= 9; ++n) {
            SCOPED_TRACE(testing::Message() << m << " x " << n);
            const std::vector<T> A = gaussian<T>(rng, m, n);
            check_gesvj<T>(this->h, m, n, A);
        }
}

TYPED_TEST(GesvjTest, PrescribedSpectra) {
    using T = TypeParam;
    Rng rng(202);
    const Shape shapes[] = {{17, 11}, {11, 17}, {24, 24}};
    for (SigmaMode mode : all_sigma_modes())
        for (double cond : {1e2, 1e6, 1e12})
            for (const Shape &s : shapes) {
                SCOPED_TRACE(testing::Message() << sigma_mode_name(mode) << " cond=" << cond << " "
                                                << s.m << " x " << s.n);
                const std::vector<T> A = prescribed_sv<T>(rng, s.m, s.n, mode, cond);
                check_gesvj<T>(this->h, s.m, s.n, A);
            }
}

TYPED_TEST(GesvjTest, PrescribedValuesRecovered) {
    // Well-conditioned enough for the precision: every singular value is recovered relative to
    // the largest one (which is 1).
    using T = TypeParam;
    Rng rng(203);
    const double cond = std::is_same<T, float>::value ? 1e6 : 1e12;
    for (SigmaMode mode : {SigmaMode::Geometric, SigmaMode::Arithmetic, SigmaMode::OneSmall}) {
        SCOPED_TRACE(sigma_mode_name(mode));
        const int64_t m = 30, n = 12;
        const std::vector<double> sigma = singular_values(rng, mode, n, cond);
        std::vector<T> A(sz(m * n));
        prescribed_sv(rng, m, n, sigma.data(), A.data(), m);
        std::vector<T> S;
        check_gesvj<T>(this->h, m, n, A, &S);
        ASSERT_EQ(S.size(), sz(n));
        // Rounding A to T perturbs the values by about eps * sqrt(mn).
        EXPECT_LT(sv_compare(n, S.data(), sigma.data()), 50.0 * std::sqrt(double(m * n)));
    }
}

TYPED_TEST(GesvjTest, ColumnGradedHighRelativeAccuracy) {
    // A = B * D with B well conditioned and D = diag(1 .. 1e-10): one-sided Jacobi determines
    // even the smallest singular values to high relative accuracy. Reference: one-sided Jacobi in
    // long double.
    using T = TypeParam;
    Rng rng(303);
    const Shape shapes[] = {{12, 8}, {30, 10}, {8, 12}};
    for (const Shape &s : shapes) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const GradedCase<T> g = graded_case<T>(rng, s.m, s.n);
        ASSERT_LT(g.condB, 100.0) << "test matrix B should be well conditioned";
        check_graded_accuracy(this->h, s.m, s.n, g);
    }
}

TYPED_TEST(GesvjTest, TwoSidedGraded) {
    using T = TypeParam;
    Rng rng(304);
    const Shape shapes[] = {{17, 11}, {11, 17}, {40, 9}};
    for (const Shape &s : shapes) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        std::vector<T> A(sz(s.m * s.n));
        graded(rng, s.m, s.n, A.data(), s.m, 1e-5, 1e-5);
        check_gesvj<T>(this->h, s.m, s.n, A);
    }
}

TYPED_TEST(GesvjTest, ZeroMatrix) {
    using T = TypeParam;
    for (const Shape &s : {Shape{1, 1}, Shape{7, 4}, Shape{4, 7}, Shape{6, 6}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        std::vector<T> A(sz(s.m * s.n), T(0));
        std::vector<T> S;
        const GesvjResult r = check_gesvj<T>(this->h, s.m, s.n, A, &S);
        EXPECT_EQ(r.resid, 0.0);
        for (T v : S) EXPECT_EQ(v, T(0));
    }
}

TYPED_TEST(GesvjTest, Identity) {
    using T = TypeParam;
    for (const Shape &s : {Shape{1, 1}, Shape{7, 4}, Shape{4, 7}, Shape{9, 9}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        std::vector<T> A(sz(s.m * s.n));
        identity(s.m, s.n, A.data(), s.m);
        std::vector<T> S;
        check_gesvj<T>(this->h, s.m, s.n, A, &S);
        for (T v : S) EXPECT_NEAR(double(v), 1.0, 4 * eps<T>());
    }
}

TYPED_TEST(GesvjTest, RankDeficient) {
    using T = TypeParam;
    Rng rng(404);
    for (const Shape &s : {Shape{20, 10}, Shape{10, 20}, Shape{12, 12}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const int64_t k = std::min(s.m, s.n);
        // exact zeros in the spectrum, plus duplicated columns
        const std::vector<T> A = prescribed_sv<T>(rng, s.m, s.n, SigmaMode::RankDeficient, 1e3, 3);
        std::vector<T> S;
        check_gesvj<T>(this->h, s.m, s.n, A, &S);
        for (int64_t i = 3; i < k; ++i) EXPECT_LT(double(S[sz(i)]), 50 * s.m * eps<T>());

        std::vector<T> D = gaussian<T>(rng, s.m, s.n);
        for (int64_t i = 0; i < s.m; ++i) {
            D[sz(i + 3 * s.m)] = D[sz(i + 1 * s.m)];
            D[sz(i + 5 * s.m)] = D[sz(i + 1 * s.m)];
        }
        check_gesvj<T>(this->h, s.m, s.n, D);
    }
}

// Exactly rank one: LAPACK's ?gesvj runs out of sweeps on several of these shapes (ones(5, 4))
// although its output has converged; the routine must report info 0 and the exact answer.
TYPED_TEST(GesvjTest, ConstantMatrices) {
    using T = TypeParam;
    for (const Shape &s : {Shape{4, 3}, Shape{5, 3}, Shape{5, 4}, Shape{6, 4}, Shape{16, 3},
                           Shape{3, 5}, Shape{4, 6}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        std::vector<T> A(sz(s.m * s.n), T(1));
        std::vector<T> S;
        check_gesvj<T>(this->h, s.m, s.n, A, &S);
        EXPECT_NEAR(double(S[0]), std::sqrt(double(s.m * s.n)), 8 * eps<T>() * double(S[0]));
        for (size_t i = 1; i < S.size(); ++i) EXPECT_LT(double(S[i]), 8 * eps<T>() * double(S[0]));
    }
}

TYPED_TEST(GesvjTest, NearOverflowAndUnderflow) {
    using T = TypeParam;
    Rng rng(505);
    for (int which = 0; which < 2; ++which)
        for (const Shape &s : {Shape{17, 11}, Shape{11, 17}, Shape{1, 5}, Shape{5, 1}}) {
            SCOPED_TRACE(testing::Message() << (which ? "near underflow " : "near overflow ")
                                            << s.m << " x " << s.n);
            std::vector<T> A = prescribed_sv<T>(rng, s.m, s.n, SigmaMode::Geometric, 1e3);
            scale_max_abs(s.m, s.n, A.data(), s.m,
                          which ? near_underflow_max<T>() : near_overflow_max<T>());
            ASSERT_FALSE(has_nonfinite(s.m, s.n, A.data(), s.m));
            check_gesvj<T>(this->h, s.m, s.n, A);
        }
}

TYPED_TEST(GesvjTest, JacobiStats) {
    using T = TypeParam;
    Rng rng(606);
    const int64_t m = 30, n = 20;
    int sweeps = -1;
    double off = -1;
    GPUSVD_ASSERT_OK(this->h, gpusvdGetJacobiStats(this->h, &sweeps, &off));
    EXPECT_EQ(sweeps, 0);
    EXPECT_EQ(off, 0.0);

    const std::vector<T> A0 = gaussian<T>(rng, m, n);
    std::vector<T> A = A0, S(n), U(m * n), V(n * n);
    int info = -1;
    GPUSVD_ASSERT_OK(this->h, Api<T>::gesvj(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(),
                                            m, S.data(), U.data(), m, V.data(), n, &info));
    EXPECT_EQ(info, 0);
    GPUSVD_ASSERT_OK(this->h, gpusvdGetJacobiStats(this->h, &sweeps, &off));
    EXPECT_GE(sweeps, 2);
    EXPECT_LE(sweeps, 30);
    // Converged: every |cos| in the last sweep was below the default tolerance sqrt(m) eps
    // (the CPU backend cannot go below 2 eps).
    EXPECT_GE(off, 0.0);
    EXPECT_LE(off, 10 * std::sqrt(double(m)) * eps<T>());
    GPUSVD_ASSERT_OK(this->h, gpusvdGetJacobiStats(this->h, nullptr, nullptr));

    // A loose tolerance needs no more sweeps and stops at |cos| <= tol.
    const double loose = std::is_same<T, float>::value ? 1e-3 : 1e-6;
    GPUSVD_ASSERT_OK(this->h, gpusvdSetJacobiTolerance(this->h, loose));
    A = A0;
    GPUSVD_ASSERT_OK(this->h, Api<T>::gesvj(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(),
                                            m, S.data(), U.data(), m, V.data(), n, &info));
    EXPECT_EQ(info, 0);
    int sweeps_loose = -1;
    double off_loose = -1;
    GPUSVD_ASSERT_OK(this->h, gpusvdGetJacobiStats(this->h, &sweeps_loose, &off_loose));
    EXPECT_GE(sweeps_loose, 1);
    EXPECT_LE(sweeps_loose, sweeps);
    // LAPACK's convergence test (and so the CPU backend's) accepts a last sweep whose largest
    // |cos| is below sqrt(n) * tol.
    EXPECT_LE(off_loose, std::sqrt(double(n)) * loose);
    // V is still a product of rotations; the residual still holds.
    EXPECT_LT(orthogonality(n, n, V.data(), n), kSvdThreshold);
    EXPECT_LT(svd_residual(m, n, A0.data(), m, S.data(), U.data(), m, V.data(), n), kSvdThreshold);

    // Back to the default.
    GPUSVD_ASSERT_OK(this->h, gpusvdSetJacobiTolerance(this->h, 0.0));
    A = A0;
    GPUSVD_ASSERT_OK(this->h, Api<T>::gesvj(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(),
                                            m, S.data(), U.data(), m, V.data(), n, &info));
    int sweeps2 = -1;
    GPUSVD_ASSERT_OK(this->h, gpusvdGetJacobiStats(this->h, &sweeps2, nullptr));
    EXPECT_EQ(sweeps2, sweeps);
}

TYPED_TEST(GesvjTest, CpuBackendIgnoresMaxSweeps) {
    // Documented: the CPU backend always uses LAPACK's fixed limit of 30 sweeps.
    using T = TypeParam;
    GPUSVD_ASSERT_OK(this->h, gpusvdSetBackend(this->h, GPUSVD_BACKEND_CPU));
    GPUSVD_ASSERT_OK(this->h, gpusvdSetJacobiMaxSweeps(this->h, 1));
    Rng rng(707);
    const int64_t m = 25, n = 15;
    const std::vector<T> A0 = gaussian<T>(rng, m, n);
    std::vector<T> A = A0, S(n), U(m * n), V(n * n);
    int info = -1;
    GPUSVD_ASSERT_OK(this->h, Api<T>::gesvj(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(),
                                            m, S.data(), U.data(), m, V.data(), n, &info));
    EXPECT_EQ(info, 0);
    int sweeps = 0;
    GPUSVD_ASSERT_OK(this->h, gpusvdGetJacobiStats(this->h, &sweeps, nullptr));
    EXPECT_GT(sweeps, 1);
    EXPECT_LT(svd_residual(m, n, A0.data(), m, S.data(), U.data(), m, V.data(), n), kSvdThreshold);
}

TYPED_TEST(GesvjTest, MinimalLeadingDimensions) {
    // ld = max(1, rows) exactly, including 1 x n and n x 1.
    using T = TypeParam;
    Rng rng(808);
    for (const Shape &s : {Shape{1, 6}, Shape{6, 1}, Shape{5, 3}, Shape{3, 5}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const int64_t k = std::min(s.m, s.n);
        const std::vector<T> A0 = gaussian<T>(rng, s.m, s.n);
        std::vector<T> A = A0, S(k), U(s.m * k), V(s.n * k);
        int info = -1;
        GPUSVD_ASSERT_OK(this->h, Api<T>::gesvj(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n,
                                                A.data(), s.m, S.data(), U.data(), s.m, V.data(),
                                                s.n, &info));
        EXPECT_EQ(info, 0);
        EXPECT_LT(svd_residual(s.m, s.n, A0.data(), s.m, S.data(), U.data(), s.m, V.data(), s.n),
                  kSvdThreshold);
        EXPECT_LT(orthogonality(s.m, k, U.data(), s.m), kSvdThreshold);
        EXPECT_LT(orthogonality(s.n, k, V.data(), s.n), kSvdThreshold);
        if (k == 1) {  // S is the 2-norm of the single row/column
            long double nr = 0;
            for (T v : A0) nr += (long double)v * v;
            EXPECT_NEAR(double(S[0]), double(std::sqrt(nr)), 4 * eps<T>() * double(std::sqrt(nr)));
        }
    }
}

}  // namespace
