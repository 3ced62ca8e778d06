// gpusvd_Xgeev_batched: eigenvalues/vectors of many small general matrices, LAPACK ?geev
// conventions (pairs adjacent, positive imaginary part first, unit vectors with a real largest
// component), residual |A VR - VR W| / (n |A| eps) < 20.
#include "geev_checks.hpp"

using namespace gpusvd_test;

namespace {

template <typename T>
class GeevBatchedTest : public ::testing::Test {
protected:
    Handle h;
};
TYPED_TEST_SUITE(GeevBatchedTest, Precisions, PrecisionName);

TYPED_TEST(GeevBatchedTest, RandomSizes) {
    using T = TypeParam;
    Rng rng(31);
    for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 15, 16, 31, 32, 63, 64, 65}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        std::vector<std::vector<T>> mats;
        for (int b = 0; b < 3; ++b) mats.push_back(gaussian<T>(rng, n, n));
        for (bool vectors : {true, false}) {
            SCOPED_TRACE(vectors ? "VEC" : "NOVEC");
            const auto out = run_geev<T>(this->h, n, mats, vectors);
            for (size_t b = 0; b < mats.size(); ++b) check_eig<T>(n, mats[b], out[b], vectors);
        }
    }
}

TYPED_TEST(GeevBatchedTest, CompanionKnownRoots) {
    using T = TypeParam;
    const double re1[] = {0.5, -1.0, 2.0, 0.3, 0.3, -0.7, -0.7, 1.5, 1.5};
    const double im1[] = {0.0, 0.0, 0.0, 0.4, -0.4, 1.1, -1.1, 0.2, -0.2};
    const double re2[] = {1.0, -2.0, 3.0, -4.0};
    const double im2[] = {0.0, 0.0, 0.0, 0.0};
    const double re3[] = {0.0, 0.0};
    const double im3[] = {1.0, -1.0};  // x^2 + 1
    struct Case {
        int64_t n;
        const double *re, *im;
    };
    for (const Case &c : {Case{9, re1, im1}, Case{4, re2, im2}, Case{2, re3, im3}}) {
        SCOPED_TRACE(testing::Message() << "degree " << c.n);
        std::vector<T> A(sz(c.n * c.n));
        companion(c.n, c.re, c.im, A.data(), c.n);
        const auto out = run_geev<T>(this->h, c.n, {A}, true);
        check_eig<T>(c.n, A, out[0], true, c.re, c.im);
    }
}

TYPED_TEST(GeevBatchedTest, DiagonalAndTriangular) {
    using T = TypeParam;
    Rng rng(32);
    const int64_t n = 9;
    std::vector<T> D(sz(n * n), T(0)), U(sz(n * n), T(0));
    std::vector<double> dre(sz(n)), dim(sz(n), 0.0), ure(sz(n)), uim(sz(n), 0.0);
    for (int64_t i = 0; i < n; ++i) {
        D[sz(i + i * n)] = T(double(i + 1) * (i % 2 ? -1 : 1));
        dre[sz(i)] = double(D[sz(i + i * n)]);
        for (int64_t j = i; j < n; ++j) U[sz(i + j * n)] = T(rng.normal());
        U[sz(i + i * n)] = T(0.5 * double(i) - 2.0);
        ure[sz(i)] = double(U[sz(i + i * n)]);
    }
    const auto out = run_geev<T>(this->h, n, {D, U}, true);
    check_eig<T>(n, D, out[0], true, dre.data(), dim.data());
    // A diagonal matrix has exactly its diagonal as eigenvalues, and (up to sign) unit vectors.
    EXPECT_EQ(eig_match(n, out[0].wr.data(), out[0].wi.data(), dre.data(), dim.data(), 1.0), 0.0);
    for (int64_t j = 0; j < n; ++j) {
        int nonzero = 0;
        for (int64_t i = 0; i < n; ++i)
            nonzero += std::fabs(double(out[0].VR[sz(i + j * n)])) > 10 * eps<T>();
        EXPECT_EQ(nonzero, 1) << "eigenvector " << j << " of a diagonal matrix";
    }
    check_eig<T>(n, U, out[1], true, ure.data(), uim.data());
}

TYPED_TEST(GeevBatchedTest, ZeroMatrix) {
    using T = TypeParam;
    const int64_t n = 5;
    std::vector<T> Z(sz(n * n), T(0));
    const auto out = run_geev<T>(this->h, n, {Z}, true);
    EXPECT_EQ(out[0].info, 0);
    for (int64_t i = 0; i < n; ++i) {
        EXPECT_EQ(out[0].wr[sz(i)], T(0));
        EXPECT_EQ(out[0].wi[sz(i)], T(0));
    }
    EXPECT_EQ(eig_residual(n, Z.data(), n, out[0].wr.data(), out[0].wi.data(), out[0].VR.data(), n),
              0.0);
    EXPECT_LT(eigvec_normalization(n, out[0].wi.data(), out[0].VR.data(), n), 10.0);
}

TYPED_TEST(GeevBatchedTest, JordanBlockResidualOnly) {
    // Defective: eigenvalues are ill conditioned (perturbation ~ (eps |A|)^(1/n)), vectors nearly
    // parallel; only the backward error is meaningful.
    using T = TypeParam;
    for (int64_t n : {2, 4, 6}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        std::vector<T> J(sz(n * n));
        jordan_block(n, 2.0, J.data(), n);
        const auto out = run_geev<T>(this->h, n, {J}, true);
        EXPECT_EQ(out[0].info, 0);
        EXPECT_TRUE(eig_pairs_ok(n, out[0].wr.data(), out[0].wi.data()));
        EXPECT_LT(eig_residual(n, J.data(), n, out[0].wr.data(), out[0].wi.data(),
                               out[0].VR.data(), n),
                  kEigThreshold);
        const double bound = 10.0 * std::pow(eps<T>() * 3.0, 1.0 / double(n));
        for (int64_t i = 0; i < n; ++i)
            EXPECT_LT(std::hypot(double(out[0].wr[sz(i)]) - 2.0, double(out[0].wi[sz(i)])), bound);
    }
}

TYPED_TEST(GeevBatchedTest, ComplexPairsOnly) {
    using T = TypeParam;
    Rng rng(33);
    for (int64_t n : {2, 6, 7, 10}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        std::vector<T> A(sz(n * n));
        std::vector<double> re(sz(n)), im(sz(n));
        complex_pairs(rng, n, A.data(), n, re.data(), im.data(), 4.0);
        const auto out = run_geev<T>(this->h, n, {A}, true);
        check_eig<T>(n, A, out[0], true, re.data(), im.data());
        int complex_count = 0;
        for (T v : out[0].wi) complex_count += v != T(0);
        EXPECT_EQ(complex_count, n - n % 2);
    }
}

TYPED_TEST(GeevBatchedTest, SymmetricRealSpectrum) {
    using T = TypeParam;
    Rng rng(34);
    const int64_t n = 8;
    std::vector<double> lam(sz(n)), zeros(sz(n), 0.0);
    for (int64_t i = 0; i < n; ++i) lam[sz(i)] = double(i) - 3.5;
    std::vector<T> A(sz(n * n));
    symmetric_with_eigenvalues(rng, n, lam.data(), A.data(), n);
    const auto out = run_geev<T>(this->h, n, {A}, true);
    check_eig<T>(n, A, out[0], true, lam.data(), zeros.data());
    for (T v : out[0].wi) EXPECT_EQ(v, T(0));
    EXPECT_LT(orthogonality(n, n, out[0].VR.data(), n), kEigThreshold * 10)
        << "eigenvectors of a symmetric matrix with separated eigenvalues are orthogonal";
}

TYPED_TEST(GeevBatchedTest, BadlyScaled) {
    // D A D^-1 has A's eigenvalues; balancing undoes most of the scaling.
    using T = TypeParam;
    Rng rng(35);
    const int64_t n = 10;
    const double span = std::is_same<T, float>::value ? 1e3 : 1e6;
    std::vector<T> A0 = gaussian<T>(rng, n, n), S(sz(n * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            const double di = std::pow(span, double(i) / double(n - 1) - 0.5);
            const double dj = std::pow(span, double(j) / double(n - 1) - 0.5);
            S[sz(i + j * n)] = T(double(A0[sz(i + j * n)]) * di / dj);
        }
    const EigRef<T> ref = ref_eig(n, A0);
    std::vector<double> re(ref.wr.begin(), ref.wr.end()), im(ref.wi.begin(), ref.wi.end());
    const auto out = run_geev<T>(this->h, n, {S}, true);
    check_eig<T>(n, S, out[0], true);
    // Same eigenvalues as the unscaled A, to the accuracy the unscaled A determines them.
    const double tol = 20.0 * double(n) * ref.kappa * span;  // |S| can exceed |A| by ~span
    EXPECT_LE(eig_match(n, out[0].wr.data(), out[0].wi.data(), re.data(), im.data(),
                        double(norm1(n, n, A0.data(), n))),
              tol);
}

TYPED_TEST(GeevBatchedTest, NearOverflowAndUnderflow) {
    using T = TypeParam;
    Rng rng(36);
    const int64_t n = 8;
    for (int which = 0; which < 2; ++which) {
        SCOPED_TRACE(which ? "near underflow" : "near overflow");
        std::vector<T> A = gaussian<T>(rng, n, n);
        scale_max_abs(n, n, A.data(), n, which ? near_underflow_max<T>() : near_overflow_max<T>());
        const auto out = run_geev<T>(this->h, n, {A}, true);
        check_eig<T>(n, A, out[0], true);
    }
}

TYPED_TEST(GeevBatchedTest, OneByOne) {
    using T = TypeParam;
    const std::vector<T> A = {T(-2.5)};
    const auto out = run_geev<T>(this->h, 1, {A, {T(0)}, {T(7)}}, true);
    EXPECT_EQ(out[0].wr[0], T(-2.5));
    EXPECT_EQ(out[0].wi[0], T(0));
    EXPECT_EQ(std::fabs(out[0].VR[0]), T(1));
    EXPECT_EQ(out[1].wr[0], T(0));
    EXPECT_EQ(out[2].wr[0], T(7));
    for (const auto &o : out) EXPECT_EQ(o.info, 0);
}

TYPED_TEST(GeevBatchedTest, NonFiniteMatrixIsolated) {
    using T = TypeParam;
    Rng rng(37);
    const int64_t n = 6;
    std::vector<std::vector<T>> mats;
    for (int b = 0; b < 5; ++b) mats.push_back(gaussian<T>(rng, n, n));
    mats[1][4] = nan_v<T>();
    mats[3][35] = -std::numeric_limits<T>::infinity();
    for (bool vectors : {true, false}) {
        const auto out = run_geev<T>(this->h, n, mats, vectors);
        for (size_t b = 0; b < mats.size(); ++b) {
            SCOPED_TRACE(testing::Message() << "matrix " << b << (vectors ? " VEC" : " NOVEC"));
            if (b == 1 || b == 3) {
                expect_eig_nonfinite(n, out[b], vectors);
            } else {
                check_eig<T>(n, mats[b], out[b], vectors);
            }
        }
    }
}

TYPED_TEST(GeevBatchedTest, TightStridesLargeBatch) {
    using T = TypeParam;
    Rng rng(38);
    const int64_t n = 5, batch = 40;
    std::vector<T> A0 = gaussian<T>(rng, n, n * batch);
    std::vector<T> A = A0, wr(sz(n * batch)), wi(sz(n * batch)), VR(sz(n * n * batch));
    std::vector<int> info(sz(batch), -1);
    GPUSVD_ASSERT_OK(this->h, Api<T>::geev_batched(this->h, GPUSVD_JOB_VEC, n, A.data(), n, n * n,
                                                   wr.data(), wi.data(), n, VR.data(), n, n * n,
                                                   batch, info.data()));
    for (int64_t b = 0; b < batch; ++b) {
        SCOPED_TRACE(testing::Message() << "matrix " << b);
        EXPECT_EQ(info[sz(b)], 0);
        EXPECT_LT(eig_residual(n, A0.data() + b * n * n, n, wr.data() + b * n, wi.data() + b * n,
                               VR.data() + b * n * n, n),
                  kEigThreshold);
    }
}

}  // namespace
