// Complex precisions (c, z) on the CPU backend: LAPACK's ratios with complex test matrices,
// batches with NaN/Inf members, the range of the data, argument checks, and the `_gpu` forms
// and backend GPU refusing, without changing anything, the complex cases that have no GPU
// kernel (and, without a device, all of them). The GPU kernels' own tests are test_gpu_*.
#ifndef LAPACK_COMPLEX_CPP
#define LAPACK_COMPLEX_CPP
#endif
#include <complex>
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "test_common.hpp"

using namespace gpusvd_util;

namespace {

// ---- the public types ----------------------------------------------------------------------

static_assert(sizeof(gpusvdComplex_t) == 8 && alignof(gpusvdComplex_t) == 8, "as cuComplex");
static_assert(sizeof(gpusvdDoubleComplex_t) == 16 && alignof(gpusvdDoubleComplex_t) == 16,
              "as cuDoubleComplex");
static_assert(offsetof(gpusvdComplex_t, re) == 0 && offsetof(gpusvdComplex_t, im) == 4, "");
static_assert(offsetof(gpusvdDoubleComplex_t, re) == 0 && offsetof(gpusvdDoubleComplex_t, im) == 8,
              "");
static_assert(sizeof(std::complex<double>) == sizeof(gpusvdDoubleComplex_t), "");

TEST(ComplexTypes, SameBytesAsStdComplex) {
    const std::complex<double> z(1.5, -2.25);
    gpusvdDoubleComplex_t p;
    std::memcpy(&p, &z, sizeof p);
    EXPECT_EQ(p.re, 1.5);
    EXPECT_EQ(p.im, -2.25);
    const std::complex<float> c(3.5f, 0.125f);
    gpusvdComplex_t q;
    std::memcpy(&q, &c, sizeof q);
    EXPECT_EQ(q.re, 3.5f);
    EXPECT_EQ(q.im, 0.125f);
}

// ---- c/z dispatch over std::complex ---------------------------------------------------------

template <typename C>
struct Z;

#define COMPLEX_API(X, R, P)                                                                       \
    template <>                                                                                    \
    struct Z<std::complex<R>> {                                                                    \
        using C = std::complex<R>;                                                                 \
        static constexpr const char *prefix = "gpusvd_" #X;                                        \
        static P *p(C *x) { return reinterpret_cast<P *>(x); }                                     \
        static const P *p(const C *x) { return reinterpret_cast<const P *>(x); }                   \
        template <bool Gpu = false>                                                                \
        static gpusvdStatus_t gesvj(gpusvdHandle_t h, gpusvdJob_t ju, gpusvdJob_t jv, int64_t m,   \
                                    int64_t n, C *A, int64_t lda, R *S, C *U, int64_t ldu, C *V,   \
                                    int64_t ldv, int *info) {                                      \
            return (Gpu ? gpusvd_##X##gesvj_gpu : gpusvd_##X##gesvj)(                              \
                h, ju, jv, m, n, p(A), lda, S, p(U), ldu, p(V), ldv, info);                        \
        }                                                                                          \
        template <bool Gpu = false>                                                                \
        static gpusvdStatus_t gesvj_batched(gpusvdHandle_t h, gpusvdJob_t ju, gpusvdJob_t jv,      \
                                            int64_t m, int64_t n, C *A, int64_t lda, int64_t sA,   \
                                            R *S, int64_t sS, C *U, int64_t ldu, int64_t sU, C *V, \
                                            int64_t ldv, int64_t sV, int64_t batch, int *info) {   \
            return (Gpu ? gpusvd_##X##gesvj_batched_gpu : gpusvd_##X##gesvj_batched)(              \
                h, ju, jv, m, n, p(A), lda, sA, S, sS, p(U), ldu, sU, p(V), ldv, sV, batch, info); \
        }                                                                                          \
        template <bool Gpu = false>                                                                \
        static gpusvdStatus_t geqrf(gpusvdHandle_t h, gpusvdOrth_t o, int64_t m, int64_t n, C *A,  \
                                    int64_t lda, C *R_, int64_t ldr, int *info) {                  \
            return (Gpu ? gpusvd_##X##geqrf_mgs_gpu : gpusvd_##X##geqrf_mgs)(                      \
                h, o, m, n, p(A), lda, p(R_), ldr, info);                                          \
        }                                                                                          \
        template <bool Gpu = false>                                                                \
        static gpusvdStatus_t geqrf_batched(gpusvdHandle_t h, gpusvdOrth_t o, int64_t m,           \
                                            int64_t n, C *A, int64_t lda, int64_t sA, C *R_,       \
                                            int64_t ldr, int64_t sR, int64_t batch, int *info) {   \
            return (Gpu ? gpusvd_##X##geqrf_mgs_batched_gpu : gpusvd_##X##geqrf_mgs_batched)(      \
                h, o, m, n, p(A), lda, sA, p(R_), ldr, sR, batch, info);                           \
        }                                                                                          \
        template <bool Gpu = false>                                                                \
        static gpusvdStatus_t geev(gpusvdHandle_t h, gpusvdJob_t jv, int64_t n, C *A, int64_t lda, \
                                   int64_t sA, C *W, int64_t sW, C *VR, int64_t ldvr, int64_t sVR, \
                                   int64_t batch, int *info) {                                     \
            return (Gpu ? gpusvd_##X##geev_batched_gpu : gpusvd_##X##geev_batched)(                \
                h, jv, n, p(A), lda, sA, p(W), sW, p(VR), ldvr, sVR, batch, info);                 \
        }                                                                                          \
        template <bool Gpu = false>                                                                \
        static gpusvdStatus_t pca(gpusvdHandle_t h, int64_t m, int64_t n, const C *X, int64_t ldx, \
                                  int64_t k, C *Cm, int64_t ldc, R *var, C *scores, int64_t lds,   \
                                  C *mean, int *info) {                                            \
            return (Gpu ? gpusvd_##X##pca_gpu : gpusvd_##X##pca)(                                  \
                h, m, n, p(X), ldx, k, p(Cm), ldc, var, p(scores), lds, p(mean), info);            \
        }                                                                                          \
        static constexpr auto gesvj_bufferSize = &gpusvd_##X##gesvj_bufferSize;                    \
        static constexpr auto geqrf_bufferSize = &gpusvd_##X##geqrf_mgs_bufferSize;                \
        static constexpr auto geev_bufferSize = &gpusvd_##X##geev_batched_bufferSize;              \
        static constexpr auto pca_bufferSize = &gpusvd_##X##pca_bufferSize;                        \
    };
COMPLEX_API(c, float, gpusvdComplex_t)
COMPLEX_API(z, double, gpusvdDoubleComplex_t)
#undef COMPLEX_API

template <typename C>
using RealT = typename C::value_type;

// LAPACK references in the same precision.
lapack_int ref_gesdd(int m, int n, std::complex<float> *a, float *s) {
    return LAPACKE_cgesdd(LAPACK_COL_MAJOR, 'N', m, n, a, std::max(1, m), s, nullptr, 1, nullptr,
                          1);
}
lapack_int ref_gesdd(int m, int n, std::complex<double> *a, double *s) {
    return LAPACKE_zgesdd(LAPACK_COL_MAJOR, 'N', m, n, a, std::max(1, m), s, nullptr, 1, nullptr,
                          1);
}
lapack_int ref_geev(int n, std::complex<float> *a, std::complex<float> *w) {
    return LAPACKE_cgeev(LAPACK_COL_MAJOR, 'N', 'N', n, a, std::max(1, n), w, nullptr, 1, nullptr,
                         1);
}
lapack_int ref_geev(int n, std::complex<double> *a, std::complex<double> *w) {
    return LAPACKE_zgeev(LAPACK_COL_MAJOR, 'N', 'N', n, a, std::max(1, n), w, nullptr, 1, nullptr,
                         1);
}

struct Handle {
    gpusvdHandle_t h = nullptr;
    Handle() {
        EXPECT_EQ(gpusvdCreate(&h), GPUSVD_STATUS_SUCCESS);
        EXPECT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS);
    }
    ~Handle() { gpusvdDestroy(h); }
};

template <typename C>
bool all_nan_c(size_t count, const C *x) {
    for (size_t i = 0; i < count; ++i)
        if (!std::isnan(x[i].real()) || !std::isnan(x[i].imag())) return false;
    return true;
}

template <typename C>
class ComplexTest : public ::testing::Test {};
using ComplexTypes = ::testing::Types<std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(ComplexTest, ComplexTypes);

// ---- gesvj -----------------------------------------------------------------------------------

// The SVD of A by gesvj against LAPACK's ratios and ?gesdd's singular values.
template <typename C>
void check_gesvj(gpusvdHandle_t h, int64_t m, int64_t n, const std::vector<C> &A0, const char *what,
                 double sv_bound = 0) {
    using R = RealT<C>;
    SCOPED_TRACE(std::string(what) + " " + std::to_string(m) + "x" + std::to_string(n));
    const int64_t k = std::min(m, n);
    std::vector<C> A = A0, U(static_cast<size_t>(m * k)), V(static_cast<size_t>(n * k));
    std::vector<R> S(static_cast<size_t>(k));
    int info = 99;
    ASSERT_EQ(Z<C>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m, S.data(), U.data(),
                          m, V.data(), n, &info),
              GPUSVD_STATUS_SUCCESS)
        << gpusvdGetErrorMessage(h);
    EXPECT_EQ(info, 0);
    EXPECT_LT(svd_residual_h(m, n, k, A0.data(), m, S.data(), U.data(), m, V.data(), n), 50.0);
    EXPECT_LT(orthogonality_h(m, k, U.data(), m), 50.0);
    EXPECT_LT(orthogonality_h(n, k, V.data(), n), 50.0);
    EXPECT_TRUE(is_sorted_desc_nonneg(k, S.data()));
    std::vector<C> B = A0;
    std::vector<R> Sref(static_cast<size_t>(k));
    ASSERT_EQ(ref_gesdd(int(m), int(n), B.data(), Sref.data()), 0);
    EXPECT_LT(sv_compare(k, S.data(), Sref.data()),
              sv_bound > 0 ? sv_bound : 10.0 * double(std::max(m, n)));
    // values only: the same values
    std::vector<C> A2 = A0;
    std::vector<R> S2(static_cast<size_t>(k));
    ASSERT_EQ(Z<C>::gesvj(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, m, n, A2.data(), m, S2.data(),
                          nullptr, 1, nullptr, 1, &info),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_LT(sv_compare(k, S2.data(), Sref.data()),
              sv_bound > 0 ? sv_bound : 10.0 * double(std::max(m, n)));
}

TYPED_TEST(ComplexTest, GesvjPrescribedSingularValues) {
    using C = TypeParam;
    Handle hd;
    Rng rng(11);
    const double cond = std::is_same<C, std::complex<float>>::value ? 1e4 : 1e12;
    const int64_t shapes[][2] = {{1, 1}, {6, 1}, {1, 6}, {8, 5}, {5, 8}, {17, 17}, {40, 9}};
    for (const auto &s : shapes)
        for (SigmaMode mode :
             {SigmaMode::Geometric, SigmaMode::ClusterOneSmall, SigmaMode::RankDeficient}) {
            const auto A = prescribed_sv_complex<RealT<C>>(rng, s[0], s[1], mode, cond);
            check_gesvj(hd.h, s[0], s[1], A, sigma_mode_name(mode));
        }
    // ?gesvj's statistics (RWORK for complex data) reach gpusvdGetJacobiStats
    const auto A = prescribed_sv_complex<RealT<C>>(rng, 12, 9, SigmaMode::Geometric, 1e3);
    std::vector<C> Aw = A, U(12 * 9), V(9 * 9);
    std::vector<RealT<C>> S(9);
    int info, sweeps = -1;
    double off = -1;
    ASSERT_EQ(Z<C>::gesvj(hd.h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 12, 9, Aw.data(), 12, S.data(),
                          U.data(), 12, V.data(), 9, &info),
              GPUSVD_STATUS_SUCCESS);
    ASSERT_EQ(gpusvdGetJacobiStats(hd.h, &sweeps, &off), GPUSVD_STATUS_SUCCESS);
    EXPECT_GE(sweeps, 2);
    EXPECT_LE(sweeps, 30);
    EXPECT_GE(off, 0.0);
    EXPECT_LE(off, 10 * std::sqrt(12.0) * double(std::numeric_limits<RealT<C>>::epsilon()));
}

TYPED_TEST(ComplexTest, GesvjGradedZeroAndRange) {
    using C = TypeParam;
    using R = RealT<C>;
    Handle hd;
    Rng rng(12);
    check_gesvj(hd.h, 12, 7, graded_complex<R>(rng, 12, 7, 1.0, 1e-6), "column graded");
    check_gesvj(hd.h, 7, 12, graded_complex<R>(rng, 7, 12, 1e-4, 1.0), "row graded");
    check_gesvj(hd.h, 6, 4, std::vector<C>(24, C(0)), "zero");
    // near overflow and underflow: S scales exactly with A, U and V do not change
    const auto A = prescribed_sv_complex<R>(rng, 9, 6, SigmaMode::Geometric, 1e3);
    std::vector<C> A1 = A, U1(54), V1(36);
    std::vector<R> S1(6);
    int info;
    ASSERT_EQ(Z<C>::gesvj(hd.h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 9, 6, A1.data(), 9, S1.data(),
                          U1.data(), 9, V1.data(), 6, &info),
              GPUSVD_STATUS_SUCCESS);
    for (int e :
         {std::numeric_limits<R>::max_exponent - 2, std::numeric_limits<R>::min_exponent + 4}) {
        SCOPED_TRACE(e);
        std::vector<C> As(A.size()), Uo(54), Vo(36);
        for (size_t i = 0; i < A.size(); ++i)
            As[i] = C(std::ldexp(A[i].real(), e), std::ldexp(A[i].imag(), e));
        const std::vector<C> As0 = As;
        std::vector<R> So(6);
        ASSERT_EQ(Z<C>::gesvj(hd.h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 9, 6, As.data(), 9, So.data(),
                              Uo.data(), 9, Vo.data(), 6, &info),
                  GPUSVD_STATUS_SUCCESS);
        EXPECT_EQ(info, 0);
        for (int j = 0; j < 6; ++j) {
            EXPECT_TRUE(std::isfinite(So[j]));
            EXPECT_NEAR(double(std::ldexp(So[j], -e)), double(S1[j]),
                        1e3 * double(std::numeric_limits<R>::epsilon()) * double(S1[0]));
        }
        EXPECT_LT(orthogonality_h(9, 6, Uo.data(), 9), 50.0);
        EXPECT_LT(orthogonality_h(6, 6, Vo.data(), 6), 50.0);
    }
}

TYPED_TEST(ComplexTest, GesvjBatchedNonFiniteMembers) {
    using C = TypeParam;
    using R = RealT<C>;
    Handle hd;
    Rng rng(13);
    const int64_t m = 7, n = 5, k = 5, batch = 6;
    std::vector<C> A(static_cast<size_t>(m * n * batch));
    for (int64_t b = 0; b < batch; ++b) {
        const auto Ab = prescribed_sv_complex<R>(rng, m, n, SigmaMode::Geometric, 1e3);
        std::copy(Ab.begin(), Ab.end(), A.begin() + b * m * n);
    }
    const R nan = std::numeric_limits<R>::quiet_NaN(), inf = std::numeric_limits<R>::infinity();
    A[static_cast<size_t>(1 * m * n + 3)] = C(0, nan);  // NaN imaginary part
    A[static_cast<size_t>(4 * m * n + 0)] = C(inf, 0);
    const std::vector<C> A0 = A;
    std::vector<C> U(static_cast<size_t>(m * k * batch)), V(static_cast<size_t>(n * k * batch));
    std::vector<R> S(static_cast<size_t>(k * batch));
    std::vector<int> info(batch, 99);
    ASSERT_EQ(Z<C>::gesvj_batched(hd.h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m, m * n,
                                  S.data(), k, U.data(), m, m * k, V.data(), n, n * k, batch,
                                  info.data()),
              GPUSVD_STATUS_SUCCESS);
    for (int64_t b = 0; b < batch; ++b) {
        SCOPED_TRACE(b);
        if (b == 1 || b == 4) {
            EXPECT_EQ(info[b], GPUSVD_INFO_NONFINITE);
            EXPECT_TRUE(all_nan(k, 1, S.data() + b * k, k));
            EXPECT_TRUE(all_nan_c(size_t(m * k), U.data() + b * m * k));
            EXPECT_TRUE(all_nan_c(size_t(n * k), V.data() + b * n * k));
            continue;
        }
        EXPECT_EQ(info[b], 0);
        // the same as the single-matrix routine
        std::vector<C> Ab(A0.begin() + b * m * n, A0.begin() + (b + 1) * m * n), Ub(m * k),
            Vb(n * k);
        std::vector<R> Sb(k);
        int ib;
        ASSERT_EQ(Z<C>::gesvj(hd.h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, Ab.data(), m, Sb.data(),
                              Ub.data(), m, Vb.data(), n, &ib),
                  GPUSVD_STATUS_SUCCESS);
        EXPECT_EQ(0, std::memcmp(Sb.data(), S.data() + b * k, sizeof(R) * k));
        EXPECT_EQ(0, std::memcmp(Ub.data(), U.data() + b * m * k, sizeof(C) * m * k));
        EXPECT_LT(svd_residual_h(m, n, k, A0.data() + b * m * n, m, S.data() + b * k,
                                 U.data() + b * m * k, m, V.data() + b * n * k, n),
                  50.0);
    }
}

// ---- geqrf_mgs -------------------------------------------------------------------------------

template <typename C>
void check_qr(gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m, int64_t n, const std::vector<C> &A0,
              int expect_info = 0) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    const int64_t k = std::min(m, n);
    std::vector<C> A = A0, R_(static_cast<size_t>(k * n), C(7, 7));
    int info = 99;
    ASSERT_EQ(Z<C>::geqrf(h, orth, m, n, A.data(), m, R_.data(), k, &info), GPUSVD_STATUS_SUCCESS)
        << gpusvdGetErrorMessage(h);
    EXPECT_EQ(info, expect_info);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < k; ++i) {
            const C r = R_[static_cast<size_t>(i + j * k)];
            if (i > j) {
                EXPECT_EQ(r, C(0));
            }
            if (i == j) {
                EXPECT_EQ(r.imag(), 0) << "R(" << j << "," << j << ") not real";
                EXPECT_GE(r.real(), 0);
            }
        }
    EXPECT_LT(qr_residual_h(m, n, A0.data(), m, A.data(), m, R_.data(), k), 30.0);
    EXPECT_LT(orthogonality_h(m, k, A.data(), m), 30.0);
}

TYPED_TEST(ComplexTest, GeqrfShapesModesAndDependentColumns) {
    using C = TypeParam;
    using R = RealT<C>;
    Handle hd;
    Rng rng(21);
    const double cond = std::is_same<C, std::complex<float>>::value ? 1e4 : 1e10;
    const int64_t shapes[][2] = {{1, 1}, {9, 1}, {1, 5}, {10, 6}, {6, 10}, {16, 16}};
    for (gpusvdOrth_t orth : {GPUSVD_ORTH_MGS, GPUSVD_ORTH_MGS2})
        for (const auto &s : shapes)
            check_qr(hd.h, orth, s[0], s[1],
                     prescribed_sv_complex<R>(rng, s[0], s[1], SigmaMode::Geometric, cond));
    check_qr(hd.h, GPUSVD_ORTH_MGS2, 12, 8, graded_complex<R>(rng, 12, 8, 1.0, 1e-5));
    // tall enough for the ?geqrfp path (R(j,j) real from the Householder vectors themselves)
    check_qr(hd.h, GPUSVD_ORTH_MGS2, 20000, 3,
             prescribed_sv_complex<R>(rng, 20000, 3, SigmaMode::Geometric, 10));
    // column 3 a complex multiple of column 1: found dependent
    auto A = prescribed_sv_complex<R>(rng, 8, 5, SigmaMode::Geometric, 10);
    for (int i = 0; i < 8; ++i)
        A[static_cast<size_t>(i + 2 * 8)] = C(0.5, -2) * A[static_cast<size_t>(i)];
    check_qr(hd.h, GPUSVD_ORTH_MGS2, 8, 5, A, 3);
    // near overflow / underflow
    for (int e :
         {std::numeric_limits<R>::max_exponent - 4, std::numeric_limits<R>::min_exponent + 2}) {
        auto B = prescribed_sv_complex<R>(rng, 9, 6, SigmaMode::Geometric, 100);
        for (auto &x : B) x = C(std::ldexp(x.real(), e), std::ldexp(x.imag(), e));
        check_qr(hd.h, GPUSVD_ORTH_MGS2, 9, 6, B);
    }
}

TYPED_TEST(ComplexTest, GeqrfBatchedAndRowMajor) {
    using C = TypeParam;
    using R = RealT<C>;
    Handle hd;
    Rng rng(22);
    const int64_t m = 6, n = 4, batch = 5;
    std::vector<C> A(static_cast<size_t>(m * n * batch));
    for (auto &x : A) x = C(R(rng.normal()), R(rng.normal()));
    A[static_cast<size_t>(2 * m * n + 5)] = C(std::numeric_limits<R>::quiet_NaN(), 0);
    const std::vector<C> A0 = A;
    std::vector<C> Rb(static_cast<size_t>(n * n * batch));
    std::vector<int> info(batch, 99);
    ASSERT_EQ(Z<C>::geqrf_batched(hd.h, GPUSVD_ORTH_MGS2, m, n, A.data(), m, m * n, Rb.data(), n,
                                  n * n, batch, info.data()),
              GPUSVD_STATUS_SUCCESS);
    for (int64_t b = 0; b < batch; ++b) {
        SCOPED_TRACE(b);
        if (b == 2) {
            EXPECT_EQ(info[b], GPUSVD_INFO_NONFINITE);
            EXPECT_TRUE(all_nan_c(size_t(m * n), A.data() + b * m * n));
            EXPECT_TRUE(all_nan_c(size_t(n * n), Rb.data() + b * n * n));
            continue;
        }
        EXPECT_EQ(info[b], 0);
        EXPECT_LT(qr_residual_h(m, n, A0.data() + b * m * n, m, A.data() + b * m * n, m,
                                Rb.data() + b * n * n, n),
                  30.0);
    }
    // row-major: the factorization of the column-major matrix with the same elements
    std::vector<C> Ac(A0.begin(), A0.begin() + m * n), Ar(static_cast<size_t>(m * n)),
        Rc(static_cast<size_t>(n * n)), Rr(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
            Ar[static_cast<size_t>(i * n + j)] = Ac[static_cast<size_t>(i + j * m)];
    int ic, ir;
    ASSERT_EQ(Z<C>::geqrf(hd.h, GPUSVD_ORTH_MGS2, m, n, Ac.data(), m, Rc.data(), n, &ic),
              GPUSVD_STATUS_SUCCESS);
    ASSERT_EQ(gpusvdSetMatrixLayout(hd.h, GPUSVD_LAYOUT_ROW_MAJOR), GPUSVD_STATUS_SUCCESS);
    ASSERT_EQ(Z<C>::geqrf(hd.h, GPUSVD_ORTH_MGS2, m, n, Ar.data(), n, Rr.data(), n, &ir),
              GPUSVD_STATUS_SUCCESS);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
            EXPECT_EQ(Ar[static_cast<size_t>(i * n + j)], Ac[static_cast<size_t>(i + j * m)]);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j)
            EXPECT_EQ(Rr[static_cast<size_t>(i * n + j)], Rc[static_cast<size_t>(i + j * n)]);
}

// ---- geev_batched ----------------------------------------------------------------------------

template <typename C>
void check_geev(gpusvdHandle_t h, int64_t n, const std::vector<C> &A0, const char *what,
                double match_bound = 0) {
    SCOPED_TRACE(std::string(what) + " n=" + std::to_string(n));
    std::vector<C> A = A0, W(static_cast<size_t>(n)), VR(static_cast<size_t>(n * n));
    int info = 99;
    ASSERT_EQ(Z<C>::geev(h, GPUSVD_JOB_VEC, n, A.data(), n, n * n, W.data(), n, VR.data(), n, n * n,
                         1, &info),
              GPUSVD_STATUS_SUCCESS)
        << gpusvdGetErrorMessage(h);
    EXPECT_EQ(info, 0);
    EXPECT_LT(eig_residual_c(n, A0.data(), n, W.data(), VR.data(), n), 20.0);
    EXPECT_LT(eigvec_normalisation_c(n, VR.data(), n), 10.0 * double(n));
    std::vector<C> B = A0, Wref(static_cast<size_t>(n));
    ASSERT_EQ(ref_geev(int(n), B.data(), Wref.data()), 0);
    EXPECT_LT(eigenvalue_match_c(n, W.data(), Wref.data()),
              match_bound > 0 ? match_bound : 100.0 * double(n));
    // values only: the same values
    std::vector<C> A2 = A0, W2(static_cast<size_t>(n));
    ASSERT_EQ(Z<C>::geev(h, GPUSVD_JOB_NOVEC, n, A2.data(), n, n * n, W2.data(), n, nullptr, 1,
                         n * n, 1, &info),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_LT(eigenvalue_match_c(n, W2.data(), Wref.data()),
              match_bound > 0 ? match_bound : 100.0 * double(n));
}

TYPED_TEST(ComplexTest, GeevRandomHermitianSkewAndCompanion) {
    using C = TypeParam;
    using R = RealT<C>;
    Handle hd;
    Rng rng(31);
    for (int64_t n : {1, 2, 7, 20}) {
        std::vector<C> A(static_cast<size_t>(n * n));
        for (auto &x : A) x = C(R(rng.normal()), R(rng.normal()));
        check_geev(hd.h, n, A, "random");
        std::vector<C> H(A.size()), K(A.size());
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) {
                const C a = A[static_cast<size_t>(i + j * n)],
                        b = std::conj(A[static_cast<size_t>(j + i * n)]);
                H[static_cast<size_t>(i + j * n)] = (a + b) / R(2);
                K[static_cast<size_t>(i + j * n)] = (a - b) / R(2);
            }
        check_geev(hd.h, n, H, "Hermitian");
        check_geev(hd.h, n, K, "skew-Hermitian");
        // Hermitian: real eigenvalues; skew-Hermitian: imaginary ones
        std::vector<C> Hc = H, Kc = K, Wh(static_cast<size_t>(n)), Wk(static_cast<size_t>(n));
        int info;
        ASSERT_EQ(Z<C>::geev(hd.h, GPUSVD_JOB_NOVEC, n, Hc.data(), n, 0, Wh.data(), n, nullptr, 1,
                             0, 1, &info),
                  GPUSVD_STATUS_SUCCESS);
        ASSERT_EQ(Z<C>::geev(hd.h, GPUSVD_JOB_NOVEC, n, Kc.data(), n, 0, Wk.data(), n, nullptr, 1,
                             0, 1, &info),
                  GPUSVD_STATUS_SUCCESS);
        const double tol = 100.0 * double(n) * double(std::numeric_limits<R>::epsilon()) *
                           norm1_h(n, n, A.data(), n);
        for (int64_t j = 0; j < n; ++j) {
            EXPECT_LE(std::abs(double(Wh[static_cast<size_t>(j)].imag())), tol);
            EXPECT_LE(std::abs(double(Wk[static_cast<size_t>(j)].real())), tol);
        }
    }
    // companion matrix of prod (z - r_i) with known complex roots
    const std::vector<std::complex<double>> roots = {
        {1, 1}, {-2, 0.5}, {0.5, -1.5}, {3, 0}, {-1, -1}};
    const int64_t n = int64_t(roots.size());
    std::vector<std::complex<double>> coef = {1};  // monic, highest degree first
    for (const auto &r : roots) {
        coef.push_back(0);
        for (size_t i = coef.size() - 1; i > 0; --i) coef[i] -= r * coef[i - 1];
    }
    std::vector<C> Cm(static_cast<size_t>(n * n), C(0));
    for (int64_t j = 0; j < n; ++j) {
        const auto c = -coef[static_cast<size_t>(j + 1)];
        Cm[static_cast<size_t>(0 + j * n)] = C(R(c.real()), R(c.imag()));
    }
    for (int64_t i = 1; i < n; ++i) Cm[static_cast<size_t>(i + (i - 1) * n)] = C(1);
    check_geev(hd.h, n, Cm, "companion");
    std::vector<C> W(static_cast<size_t>(n)), Rt(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        Rt[static_cast<size_t>(i)] = C(R(roots[i].real()), R(roots[i].imag()));
    std::vector<C> Ac = Cm;
    int info;
    ASSERT_EQ(Z<C>::geev(hd.h, GPUSVD_JOB_NOVEC, n, Ac.data(), n, 0, W.data(), n, nullptr, 1, 0, 1,
                         &info),
              GPUSVD_STATUS_SUCCESS);
    // well separated roots of a modest polynomial: conditioned to a few hundred
    EXPECT_LT(eigenvalue_match_c(n, W.data(), Rt.data()), 1e4);
}

// Near overflow and underflow: the eigenvalues scale exactly with A (?geev scales itself).
TYPED_TEST(ComplexTest, GeevRange) {
    using C = TypeParam;
    using R = RealT<C>;
    Handle hd;
    Rng rng(33);
    const int64_t n = 8;
    std::vector<C> A(static_cast<size_t>(n * n));
    for (auto &x : A) x = C(R(rng.normal()), R(rng.normal()));
    std::vector<C> A1 = A, W1(static_cast<size_t>(n));
    int info;
    ASSERT_EQ(Z<C>::geev(hd.h, GPUSVD_JOB_NOVEC, n, A1.data(), n, 0, W1.data(), n, nullptr, 1, 0, 1,
                         &info),
              GPUSVD_STATUS_SUCCESS);
    for (int e :
         {std::numeric_limits<R>::max_exponent - 5, std::numeric_limits<R>::min_exponent + 3}) {
        SCOPED_TRACE(e);
        std::vector<C> As(A.size()), W(static_cast<size_t>(n)), VR(A.size());
        for (size_t i = 0; i < A.size(); ++i)
            As[i] = C(std::ldexp(A[i].real(), e), std::ldexp(A[i].imag(), e));
        const std::vector<C> As0 = As;
        ASSERT_EQ(Z<C>::geev(hd.h, GPUSVD_JOB_VEC, n, As.data(), n, 0, W.data(), n, VR.data(), n, 0,
                             1, &info),
                  GPUSVD_STATUS_SUCCESS);
        EXPECT_EQ(info, 0);
        std::vector<C> Wb(W.size());
        for (size_t i = 0; i < W.size(); ++i)
            Wb[i] = C(std::ldexp(W[i].real(), -e), std::ldexp(W[i].imag(), -e));
        EXPECT_LT(eigenvalue_match_c(n, Wb.data(), W1.data()), 100.0 * double(n));
        EXPECT_LT(eigvec_normalisation_c(n, VR.data(), n), 10.0 * double(n));
    }
}

TYPED_TEST(ComplexTest, GeevBatchedNaNMember) {
    using C = TypeParam;
    using R = RealT<C>;
    Handle hd;
    Rng rng(32);
    const int64_t n = 6, batch = 4;
    std::vector<C> A(static_cast<size_t>(n * n * batch));
    for (auto &x : A) x = C(R(rng.normal()), R(rng.normal()));
    A[static_cast<size_t>(3 * n * n + 7)] = C(1, std::numeric_limits<R>::infinity());
    const std::vector<C> A0 = A;
    std::vector<C> W(static_cast<size_t>(n * batch)), VR(static_cast<size_t>(n * n * batch));
    std::vector<int> info(batch, 99);
    ASSERT_EQ(Z<C>::geev(hd.h, GPUSVD_JOB_VEC, n, A.data(), n, n * n, W.data(), n, VR.data(), n,
                         n * n, batch, info.data()),
              GPUSVD_STATUS_SUCCESS);
    for (int64_t b = 0; b < batch; ++b) {
        SCOPED_TRACE(b);
        if (b == 3) {
            EXPECT_EQ(info[b], GPUSVD_INFO_NONFINITE);
            EXPECT_TRUE(all_nan_c(size_t(n), W.data() + b * n));
            EXPECT_TRUE(all_nan_c(size_t(n * n), VR.data() + b * n * n));
            continue;
        }
        EXPECT_EQ(info[b], 0);
        EXPECT_LT(
            eig_residual_c(n, A0.data() + b * n * n, n, W.data() + b * n, VR.data() + b * n * n, n),
            20.0);
    }
}

// ---- pca -------------------------------------------------------------------------------------

// The reference: zgesdd of the centred data in complex<double>, components with their largest
// entry made real and positive.
template <typename C>
void check_pca(gpusvdHandle_t h, int64_t m, int64_t n, int64_t k, const std::vector<C> &X) {
    using R = RealT<C>;
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " k=" + std::to_string(k));
    std::vector<C> comp(static_cast<size_t>(n * k)), scores(static_cast<size_t>(m * k)),
        mean(static_cast<size_t>(n));
    std::vector<R> var(static_cast<size_t>(k));
    int info = 99;
    ASSERT_EQ(Z<C>::pca(h, m, n, X.data(), m, k, comp.data(), n, var.data(), scores.data(), m,
                        mean.data(), &info),
              GPUSVD_STATUS_SUCCESS)
        << gpusvdGetErrorMessage(h);
    EXPECT_EQ(info, 0);
    using D = std::complex<double>;
    std::vector<D> mu(static_cast<size_t>(n), 0), Xc(static_cast<size_t>(m * n));
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) mu[j] += D(X[static_cast<size_t>(i + j * m)]);
        mu[j] /= double(m);
        for (int64_t i = 0; i < m; ++i)
            Xc[static_cast<size_t>(i + j * m)] = D(X[static_cast<size_t>(i + j * m)]) - mu[j];
    }
    const int64_t p = std::min(m, n);
    std::vector<D> Xw = Xc, U(static_cast<size_t>(m * p)), VT(static_cast<size_t>(p * n));
    std::vector<double> s(static_cast<size_t>(p));
    ASSERT_EQ(LAPACKE_zgesdd(LAPACK_COL_MAJOR, 'S', int(m), int(n), Xw.data(), int(m), s.data(),
                             U.data(), int(m), VT.data(), int(p)),
              0);
    const double eps = double(std::numeric_limits<R>::epsilon());
    double total_ref = 0;
    for (double x : s) total_ref += x * x / double(m - 1);
    double total = 0;
    ASSERT_EQ(gpusvdGetPcaTotalVariance(h, &total), GPUSVD_STATUS_SUCCESS);
    EXPECT_NEAR(total, total_ref, 100 * eps * total_ref);
    for (int64_t j = 0; j < n; ++j)
        EXPECT_LE(std::abs(D(mean[j]) - mu[j]), 10 * eps * (std::abs(mu[j]) + 1));
    for (int64_t j = 0; j < k; ++j) {
        SCOPED_TRACE(j);
        const double ref = s[j] * s[j] / double(m - 1);
        EXPECT_NEAR(double(var[j]), ref,
                    100 * double(std::max(m, n)) * eps * s[0] * s[0] / double(m - 1));
        std::vector<D> v(static_cast<size_t>(n));
        int64_t arg = 0;
        for (int64_t c = 0; c < n; ++c) {
            v[c] = std::conj(VT[static_cast<size_t>(j + c * p)]);
            if (std::abs(v[c]) > std::abs(v[arg])) arg = c;
        }
        const D phase = std::conj(v[arg]) / std::abs(v[arg]);
        const double gap =
            std::min(j > 0 ? s[j - 1] - s[j] : s[j], j + 1 < p ? s[j] - s[j + 1] : s[j]);
        double err = 0;
        for (int64_t c = 0; c < n; ++c)
            err = std::max(err, std::abs(D(comp[static_cast<size_t>(c + j * n)]) - phase * v[c]));
        EXPECT_LE(err, 100 * double(std::max(m, n)) * eps * s[0] / gap);
        // the convention itself: the largest entry real and positive
        int64_t big = 0;
        for (int64_t c = 0; c < n; ++c)
            if (std::abs(comp[static_cast<size_t>(c + j * n)]) >
                std::abs(comp[static_cast<size_t>(big + j * n)]))
                big = c;
        EXPECT_GT(comp[static_cast<size_t>(big + j * n)].real(), 0);
        EXPECT_LE(std::abs(double(comp[static_cast<size_t>(big + j * n)].imag())), 4 * eps);
        // scores = Xc components
        double serr = 0;
        for (int64_t i = 0; i < m; ++i) {
            D acc = 0;
            for (int64_t c = 0; c < n; ++c)
                acc += Xc[static_cast<size_t>(i + c * m)] * D(comp[static_cast<size_t>(c + j * n)]);
            serr = std::max(serr, std::abs(D(scores[static_cast<size_t>(i + j * m)]) - acc));
        }
        EXPECT_LE(serr, 100 * double(std::max(m, n)) * eps * s[0]);
    }
    EXPECT_LT(orthogonality_h(n, k, comp.data(), n), 50.0);
}

TYPED_TEST(ComplexTest, PcaTallWideAndNonFinite) {
    using C = TypeParam;
    using R = RealT<C>;
    Handle hd;
    Rng rng(41);
    const double sig[] = {5, 2, 1, 0.5, 0.2, 0.1};
    for (auto mn : {std::pair<int64_t, int64_t>{60, 6}, {5, 8}}) {
        const int64_t m = mn.first, n = mn.second;
        std::vector<C> X(static_cast<size_t>(m * n));
        std::vector<double> s(sig, sig + std::min<int64_t>(6, std::min(m, n)));
        s.resize(static_cast<size_t>(std::min(m, n)), 0.05);
        prescribed_sv_complex(rng, m, n, s.data(), X.data(), m);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) X[static_cast<size_t>(i + j * m)] += C(R(j), R(-1));
        check_pca(hd.h, m, n, 3, X);
    }
    // NaN data: info and NaN outputs
    std::vector<C> X(40, C(1, 2)), comp(8), scores(20), mean(4);
    X[11] = C(std::numeric_limits<R>::quiet_NaN(), 0);
    std::vector<R> var(2);
    int info = 0;
    ASSERT_EQ(Z<C>::pca(hd.h, 10, 4, X.data(), 10, 2, comp.data(), 4, var.data(), scores.data(), 10,
                        mean.data(), &info),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(info, GPUSVD_INFO_NONFINITE);
    EXPECT_TRUE(all_nan_c(comp.size(), comp.data()));
    EXPECT_TRUE(all_nan_c(scores.size(), scores.data()));
    EXPECT_TRUE(all_nan_c(mean.size(), mean.data()));
    EXPECT_TRUE(std::isnan(var[0]) && std::isnan(var[1]));
}

// ---- arguments, _gpu forms and backend GPU ---------------------------------------------------

TYPED_TEST(ComplexTest, BadArgumentsChangeNothing) {
    using C = TypeParam;
    using R = RealT<C>;
    Handle hd;
    std::vector<C> A(20, C(1, 2)), U(20, C(3, 4)), V(16, C(5, 6));
    std::vector<R> S(4, R(9));
    int info = 77;
    const auto A0 = A, U0 = U, V0 = V;
    const auto S0 = S;
    auto unchanged = [&] {
        EXPECT_EQ(A, A0);
        EXPECT_EQ(U, U0);
        EXPECT_EQ(V, V0);
        EXPECT_EQ(S, S0);
        EXPECT_EQ(info, 77);
    };
    const std::string zg = std::string(Z<C>::prefix) + "gesvj";
    EXPECT_EQ(Z<C>::gesvj(hd.h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 5, 4, A.data(), 4, S.data(),
                          U.data(), 5, V.data(), 4, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    std::string msg = gpusvdGetErrorMessage(hd.h);
    EXPECT_NE(msg.find(zg + ": argument lda = 4"), std::string::npos) << msg;
    unchanged();
    EXPECT_EQ(Z<C>::gesvj(hd.h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, -1, 4, A.data(), 5, S.data(),
                          U.data(), 5, V.data(), 4, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    unchanged();
    EXPECT_EQ(Z<C>::gesvj(hd.h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 5, 4, A.data(), 5, S.data(),
                          nullptr, 5, V.data(), 4, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    msg = gpusvdGetErrorMessage(hd.h);
    EXPECT_NE(msg.find("argument U = NULL"), std::string::npos) << msg;
    unchanged();
    EXPECT_EQ(Z<C>::gesvj(nullptr, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 5, 4, A.data(), 5, S.data(),
                          U.data(), 5, V.data(), 4, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    unchanged();
    EXPECT_EQ(Z<C>::geqrf(hd.h, GPUSVD_ORTH_MGS2, 5, 4, A.data(), 5, U.data(), 3, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    msg = gpusvdGetErrorMessage(hd.h);
    EXPECT_NE(msg.find(std::string(Z<C>::prefix) + "geqrf_mgs: argument ldr = 3"),
              std::string::npos)
        << msg;
    unchanged();
    EXPECT_EQ(
        Z<C>::geev(hd.h, GPUSVD_JOB_VEC, 4, A.data(), 4, 16, nullptr, 4, V.data(), 4, 16, 1, &info),
        GPUSVD_STATUS_INVALID_VALUE);
    msg = gpusvdGetErrorMessage(hd.h);
    EXPECT_NE(msg.find("argument W = NULL"), std::string::npos) << msg;
    unchanged();
    EXPECT_EQ(Z<C>::geev(hd.h, GPUSVD_JOB_VEC, 4, A.data(), 4, 16, U.data(), 3, V.data(), 4, 16, 2,
                         &info),
              GPUSVD_STATUS_INVALID_VALUE);  // strideW < n
    unchanged();
    EXPECT_EQ(
        Z<C>::pca(hd.h, 5, 4, A.data(), 5, 5, U.data(), 4, S.data(), nullptr, 5, nullptr, &info),
        GPUSVD_STATUS_INVALID_VALUE);  // k > min(m, n)
    unchanged();
    // row-major layout: gesvj takes column-major matrices only
    ASSERT_EQ(gpusvdSetMatrixLayout(hd.h, GPUSVD_LAYOUT_ROW_MAJOR), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(Z<C>::gesvj(hd.h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 5, 4, A.data(), 5, S.data(),
                          U.data(), 5, V.data(), 4, &info),
              GPUSVD_STATUS_NOT_SUPPORTED);
    unchanged();
}

// Every `_gpu` form without complex GPU kernels is refused (NO_DEVICE without a GPU) and changes
// nothing; _bufferSize reports host workspace only.
TYPED_TEST(ComplexTest, GpuFormsRefusedAndChangeNothing) {
    using C = TypeParam;
    using R = RealT<C>;
    gpusvdHandle_t h;
    ASSERT_EQ(gpusvdCreate(&h), GPUSVD_STATUS_SUCCESS);
    std::vector<C> A(20, C(1, 2)), B(20, C(3, 4)), D(20, C(5, 6));
    std::vector<R> S(5, R(9));
    int info = 77;
    const auto A0 = A, B0 = B, D0 = D;
    const auto S0 = S;
    auto refused = [&](gpusvdStatus_t st) {
        EXPECT_TRUE(st == GPUSVD_STATUS_NOT_SUPPORTED || st == GPUSVD_STATUS_NO_DEVICE)
            << gpusvdGetStatusName(st);
        const std::string msg = gpusvdGetErrorMessage(h);
        if (st == GPUSVD_STATUS_NOT_SUPPORTED) {
            EXPECT_NE(msg.find("no GPU kernel for complex"), std::string::npos) << msg;
        }
        EXPECT_EQ(A, A0);
        EXPECT_EQ(B, B0);
        EXPECT_EQ(D, D0);
        EXPECT_EQ(S, S0);
        EXPECT_EQ(info, 77);
    };
    // gesvj has complex GPU kernels for the sizes of its team kernels (test_gpu_gesvj): only the
    // missing device refuses these here
    if (!gpusvd_test::device_present()) {
        EXPECT_EQ(Z<C>::template gesvj<true>(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 4, 4, A.data(), 4,
                                             S.data(), B.data(), 4, D.data(), 4, &info),
                  GPUSVD_STATUS_NO_DEVICE);
        refused(GPUSVD_STATUS_NO_DEVICE);
        EXPECT_EQ(Z<C>::template gesvj_batched<true>(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 2, 2,
                                                     A.data(), 2, 4, S.data(), 2, B.data(), 2, 4,
                                                     D.data(), 2, 4, 2, &info),
                  GPUSVD_STATUS_NO_DEVICE);
        refused(GPUSVD_STATUS_NO_DEVICE);
    }
    // geqrf_mgs has complex GPU kernels (test_gpu_geqrf): only the missing device refuses it here
    if (!gpusvd_test::device_present()) {
        EXPECT_EQ(Z<C>::template geqrf<true>(h, GPUSVD_ORTH_MGS2, 4, 4, A.data(), 4, B.data(), 4,
                                             &info),
                  GPUSVD_STATUS_NO_DEVICE);
        refused(GPUSVD_STATUS_NO_DEVICE);
    }
    // geev_batched has complex GPU kernels (test_gpu_geev): only the missing device refuses it
    if (!gpusvd_test::device_present()) {
        EXPECT_EQ(Z<C>::template geev<true>(h, GPUSVD_JOB_VEC, 4, A.data(), 4, 16, B.data(), 4,
                                            D.data(), 4, 16, 1, &info),
                  GPUSVD_STATUS_NO_DEVICE);
        refused(GPUSVD_STATUS_NO_DEVICE);
    }
    // pca has complex GPU kernels where the Jacobi SVD of R fits a block (test_gpu_pca): only
    // the missing device refuses it here
    if (!gpusvd_test::device_present()) {
        EXPECT_EQ(Z<C>::template pca<true>(h, 5, 4, A.data(), 5, 2, B.data(), 4, S.data(),
                                           D.data(), 5, nullptr, &info),
                  GPUSVD_STATUS_NO_DEVICE);
        refused(GPUSVD_STATUS_NO_DEVICE);
    }
    size_t dev = 1, host = 0;
    ASSERT_EQ(Z<C>::gesvj_bufferSize(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 30, 20, &dev, &host),
              GPUSVD_STATUS_SUCCESS);
    if (!gpusvd_test::device_present()) {
        EXPECT_EQ(dev, 0u);
    }
    EXPECT_GT(host, 0u);
    ASSERT_EQ(Z<C>::gesvj_bufferSize(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 20, 30, &dev, &host),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_GE(host, 30u * 20u * sizeof(C));  // the wide matrix's conjugate transpose
    dev = 1, host = 0;
    ASSERT_EQ(Z<C>::geqrf_bufferSize(h, GPUSVD_ORTH_MGS2, 30, 20, &dev, &host),
              GPUSVD_STATUS_SUCCESS);
    if (!gpusvd_test::device_present()) {
        EXPECT_EQ(dev, 0u);
    }
    EXPECT_GT(host, 0u);
    dev = 1, host = 0;
    ASSERT_EQ(Z<C>::geev_bufferSize(h, GPUSVD_JOB_VEC, 20, 3, &dev, &host), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(dev, 0u);
    EXPECT_GT(host, 0u);
    dev = 1, host = 0;
    ASSERT_EQ(Z<C>::pca_bufferSize(h, 30, 20, 5, &dev, &host), GPUSVD_STATUS_SUCCESS);
    if (!gpusvd_test::device_present()) {
        EXPECT_EQ(dev, 0u);
    }
    EXPECT_GE(host, 30u * 20u * sizeof(C));
    // backend GPU: complex host calls are refused there (never silently run on the CPU); without
    // a device the backend itself cannot be set
    const gpusvdStatus_t set = gpusvdSetBackend(h, GPUSVD_BACKEND_GPU);
    if (set == GPUSVD_STATUS_SUCCESS) {
        // one matrix past the complex Jacobi team kernels' shared memory
        const int64_t nb = 200;
        std::vector<C> Ab(nb * nb, C(1, 2)), Ub(nb * nb, C(3, 4)), Vb(nb * nb, C(5, 6));
        std::vector<R> Sb(nb, R(9));
        const auto Ab0 = Ab, Ub0 = Ub, Vb0 = Vb;
        const auto Sb0 = Sb;
        EXPECT_EQ(Z<C>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, nb, nb, Ab.data(), nb, Sb.data(),
                              Ub.data(), nb, Vb.data(), nb, &info),
                  GPUSVD_STATUS_NOT_SUPPORTED);
        refused(GPUSVD_STATUS_NOT_SUPPORTED);
        EXPECT_TRUE(Ab == Ab0 && Ub == Ub0 && Vb == Vb0 && Sb == Sb0);
        // pca of complex data with fewer samples than features has no GPU path
        EXPECT_EQ(Z<C>::pca(h, 4, 5, A.data(), 4, 2, B.data(), 5, S.data(), D.data(), 4, nullptr,
                            &info),
                  GPUSVD_STATUS_NOT_SUPPORTED);
        refused(GPUSVD_STATUS_NOT_SUPPORTED);
    } else {
        EXPECT_EQ(set, GPUSVD_STATUS_NO_DEVICE);
    }
    // AUTO runs the host forms on the CPU
    ASSERT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_AUTO), GPUSVD_STATUS_SUCCESS);
    Rng rng(51);
    const auto M =
        prescribed_sv_complex<R>(rng, 40, 30, SigmaMode::Geometric, 100);  // > 64 KiB for z
    std::vector<C> Mc = M, U(40 * 30), V(30 * 30);
    std::vector<R> Sm(30);
    ASSERT_EQ(Z<C>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 40, 30, Mc.data(), 40, Sm.data(),
                          U.data(), 40, V.data(), 30, &info),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_LT(svd_residual_h(40, 30, 30, M.data(), 40, Sm.data(), U.data(), 40, V.data(), 30),
              50.0);
    gpusvdDestroy(h);
}

}  // namespace
