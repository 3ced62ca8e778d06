// gpusvd_Xgeqrf_mgs and _batched: QR with explicit Q, R(j,j) >= 0, dependent-column info.
#include "layout_checks.hpp"
#include "test_common.hpp"

using namespace gpusvd_test;

namespace {

constexpr double kQrThreshold = 30.0;  // DESIGN.md: QR ratios < 30

const gpusvdOrth_t kOrths[] = {GPUSVD_ORTH_MGS, GPUSVD_ORTH_MGS2};

const char *orth_name(gpusvdOrth_t o) { return o == GPUSVD_ORTH_MGS ? "MGS" : "MGS2"; }

/// Checks Q (the first min(m,n) columns of A after the call) and R against A0. expect_info < 0:
/// any info >= 0 accepted (not NaN). Returns info.
template <typename T>
int check_qr(gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m, int64_t n, const std::vector<T> &A0,
             int expect_info) {
    const int64_t k = std::min(m, n), lda = m + 1, ldr = k + 2;
    const T pad = sentinel<T>();
    std::vector<T> A = with_ld(m, n, A0.data(), m, lda, pad);
    std::vector<T> R = sentinels<T>(sz(ldr * n));
    int info = -777;
    GPUSVD_EXPECT_OK(h, Api<T>::geqrf_mgs(h, orth, m, n, A.data(), lda, R.data(), ldr, &info));
    if (expect_info >= 0)
        EXPECT_EQ(info, expect_info);
    else
        EXPECT_GE(info, 0);
    EXPECT_TRUE(padding_intact(m, n, A.data(), lda, pad)) << "A written outside m x n";
    EXPECT_TRUE(padding_intact(k, n, R.data(), ldr, pad)) << "R written outside k x n";
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j + 1; i < k; ++i)
            EXPECT_EQ(R[sz(i + j * ldr)], T(0)) << "R(" << i << "," << j << ") below the diagonal";
    for (int64_t j = 0; j < k; ++j) EXPECT_GE(R[sz(j + j * ldr)], T(0)) << "R(j,j) < 0, j=" << j;
    const double resid = qr_residual(m, n, A0.data(), m, A.data(), lda, R.data(), ldr);
    EXPECT_LT(resid, kQrThreshold) << "|A - QR| / (m |A| eps)";
    const double orth_ratio = orthogonality(m, k, A.data(), lda);
    const double c = cond2(m, n, A0.data(), m);
    if (orth == GPUSVD_ORTH_MGS2 || info > 0) {
        EXPECT_LT(orth_ratio, kQrThreshold) << "|I - Q^T Q| / (m eps)";
    } else {
        // MGS: loss of orthogonality ~ eps * cond(A).
        EXPECT_LT(orth_ratio / std::max(1.0, c), kQrThreshold)
            << "|I - Q^T Q| / (m eps cond(A)), cond = " << c;
    }
    if (verbose())
        std::printf("  geqrf %s %lld x %lld: info %d resid %.3g orth %.3g cond %.3g\n",
                    orth_name(orth), (long long)m, (long long)n, info, resid, orth_ratio, c);
    return info;
}

template <typename T>
class GeqrfMgsTest : public ::testing::Test {
protected:
    Handle h;
};
TYPED_TEST_SUITE(GeqrfMgsTest, Precisions, PrecisionName);

struct Shape {
    int64_t m, n;
};

TYPED_TEST(GeqrfMgsTest, RandomShapes) {
    using T = TypeParam;
    Rng rng(21);
    for (const Shape &s : {Shape{1, 1}, Shape{1, 5}, Shape{5, 1}, Shape{2, 2}, Shape{3, 2},
                           Shape{2, 3}, Shape{17, 11}, Shape{11, 17}, Shape{200, 13},
                           Shape{13, 200}, Shape{32, 32}, Shape{33, 31}})
        for (gpusvdOrth_t o : kOrths) {
            SCOPED_TRACE(testing::Message() << orth_name(o) << " " << s.m << " x " << s.n);
            const std::vector<T> A = gaussian<T>(rng, s.m, s.n);
            check_qr<T>(this->h, o, s.m, s.n, A, 0);
        }
}

TYPED_TEST(GeqrfMgsTest, AllSmallShapes) {
    using T = TypeParam;
    Rng rng(29);
    for (int64_t m = 1; m <= 9; ++m)
        for (int64_t n = 1; n <= 9; ++n)
            for (gpusvdOrth_t o : kOrths) {
                SCOPED_TRACE(testing::Message() << orth_name(o) << " " << m << " x " << n);
                const std::vector<T> A = gaussian<T>(rng, m, n);
                check_qr<T>(this->h, o, m, n, A, 0);
            }
}

TYPED_TEST(GeqrfMgsTest, PrescribedConditioning) {
    using T = TypeParam;
    Rng rng(22);
    for (SigmaMode mode : {SigmaMode::Geometric, SigmaMode::Arithmetic, SigmaMode::ClusterOneSmall,
                           SigmaMode::ClusterOneLarge, SigmaMode::OneSmall, SigmaMode::LogUniform})
        for (double cond : {1e2, 1e4, 1e6, 1e12})
            for (const Shape &s : {Shape{17, 11}, Shape{11, 17}, Shape{24, 24}})
                for (gpusvdOrth_t o : kOrths) {
                    SCOPED_TRACE(testing::Message() << orth_name(o) << " " << sigma_mode_name(mode)
                                                    << " cond=" << cond << " " << s.m << " x "
                                                    << s.n);
                    const std::vector<T> A = prescribed_sv<T>(rng, s.m, s.n, mode, cond);
                    // R(j,j) / ||a_j|| >= 1/cond: no column can look dependent while 1/cond is
                    // well above the m eps threshold.
                    const bool full_rank = 1.0 / cond > 100.0 * double(s.m) * eps<T>();
                    check_qr<T>(this->h, o, s.m, s.n, A, full_rank ? 0 : -1);
                }
}

TYPED_TEST(GeqrfMgsTest, GradedColumns) {
    using T = TypeParam;
    Rng rng(23);
    for (const Shape &s : {Shape{20, 10}, Shape{10, 20}})
        for (gpusvdOrth_t o : kOrths) {
            SCOPED_TRACE(testing::Message() << orth_name(o) << " " << s.m << " x " << s.n);
            std::vector<T> A(sz(s.m * s.n));
            graded(rng, s.m, s.n, A.data(), s.m, 1.0, 1e-10);
            // Column scaling does not make columns dependent.
            check_qr<T>(this->h, o, s.m, s.n, A, 0);
        }
}

TYPED_TEST(GeqrfMgsTest, DuplicatedColumn) {
    using T = TypeParam;
    Rng rng(24);
    const int64_t m = 15, n = 8;
    for (gpusvdOrth_t o : kOrths) {
        SCOPED_TRACE(orth_name(o));
        std::vector<T> A0 = gaussian<T>(rng, m, n);
        for (int64_t i = 0; i < m; ++i) A0[sz(i + 4 * m)] = A0[sz(i + 1 * m)];  // col 5 == col 2
        const int64_t k = std::min(m, n), ldr = k;
        std::vector<T> A = A0, R(sz(ldr * n));
        int info = -1;
        GPUSVD_ASSERT_OK(this->h,
                         Api<T>::geqrf_mgs(this->h, o, m, n, A.data(), m, R.data(), ldr, &info));
        EXPECT_EQ(info, 5) << "1-based index of the first dependent column";
        EXPECT_EQ(R[sz(4 + 4 * ldr)], T(0));
        EXPECT_GT(R[sz(5 + 5 * ldr)], T(0));
        EXPECT_LT(orthogonality(m, k, A.data(), m), kQrThreshold) << "Q completed orthonormally";
        EXPECT_LT(qr_residual(m, n, A0.data(), m, A.data(), m, R.data(), ldr), kQrThreshold);
        check_qr<T>(this->h, o, m, n, A0, 5);
    }
}

TYPED_TEST(GeqrfMgsTest, ZeroColumnAndZeroMatrix) {
    using T = TypeParam;
    Rng rng(25);
    for (gpusvdOrth_t o : kOrths) {
        SCOPED_TRACE(orth_name(o));
        const int64_t m = 9, n = 6;
        std::vector<T> A = gaussian<T>(rng, m, n);
        for (int64_t i = 0; i < m; ++i) A[sz(i + 2 * m)] = T(0);
        check_qr<T>(this->h, o, m, n, A, 3);

        std::vector<T> Z(sz(m * n), T(0));
        check_qr<T>(this->h, o, m, n, Z, 1);
        std::vector<T> Zw(sz(n * m), T(0));
        check_qr<T>(this->h, o, n, m, Zw, 1);
        // the R of a zero matrix is zero
        std::vector<T> Zc = Z, R(sz(n * n), T(7));
        int info = -1;
        GPUSVD_ASSERT_OK(this->h,
                         Api<T>::geqrf_mgs(this->h, o, m, n, Zc.data(), m, R.data(), n, &info));
        for (T v : R) EXPECT_EQ(v, T(0));
    }
}

TYPED_TEST(GeqrfMgsTest, OneByOne) {
    using T = TypeParam;
    for (gpusvdOrth_t o : kOrths) {
        T a = T(-3), r = T(0);
        int info = -1;
        GPUSVD_ASSERT_OK(this->h, Api<T>::geqrf_mgs(this->h, o, 1, 1, &a, 1, &r, 1, &info));
        EXPECT_EQ(info, 0);
        EXPECT_EQ(a, T(-1));
        EXPECT_EQ(r, T(3));
        a = T(0);
        GPUSVD_ASSERT_OK(this->h, Api<T>::geqrf_mgs(this->h, o, 1, 1, &a, 1, &r, 1, &info));
        EXPECT_EQ(info, 1);
        EXPECT_EQ(r, T(0));
        EXPECT_EQ(std::fabs(a), T(1)) << "Q still a unit vector";
    }
}

TYPED_TEST(GeqrfMgsTest, NearOverflowAndUnderflow) {
    using T = TypeParam;
    Rng rng(26);
    for (int which = 0; which < 2; ++which)
        for (const Shape &s : {Shape{17, 11}, Shape{11, 17}})
            for (gpusvdOrth_t o : kOrths) {
                SCOPED_TRACE(testing::Message() << (which ? "underflow " : "overflow ")
                                                << orth_name(o) << " " << s.m << " x " << s.n);
                std::vector<T> A = prescribed_sv<T>(rng, s.m, s.n, SigmaMode::Geometric, 1e3);
                scale_max_abs(s.m, s.n, A.data(), s.m,
                              which ? near_underflow_max<T>() : near_overflow_max<T>());
                check_qr<T>(this->h, o, s.m, s.n, A, 0);
            }
}

TYPED_TEST(GeqrfMgsTest, NonFinite) {
    using T = TypeParam;
    Rng rng(27);
    const int64_t m = 6, n = 4;
    for (T bad : {nan_v<T>(), std::numeric_limits<T>::infinity()}) {
        std::vector<T> A = gaussian<T>(rng, m, n), R(sz(n * n), T(5));
        A[7] = bad;
        int info = 0;
        GPUSVD_ASSERT_OK(this->h, Api<T>::geqrf_mgs(this->h, GPUSVD_ORTH_MGS2, m, n, A.data(), m,
                                                    R.data(), n, &info));
        EXPECT_EQ(info, GPUSVD_INFO_NONFINITE);
        EXPECT_TRUE(all_nan(m, n, A.data(), m)) << "Q is NaN";
        EXPECT_TRUE(all_nan(n, n, R.data(), n)) << "R is NaN";
    }
}

TYPED_TEST(GeqrfMgsTest, Batched) {
    using T = TypeParam;
    Rng rng(28);
    for (const Shape &s : {Shape{12, 7}, Shape{7, 12}, Shape{1, 1}})
        for (gpusvdOrth_t o : kOrths) {
            SCOPED_TRACE(testing::Message() << orth_name(o) << " " << s.m << " x " << s.n);
            const int64_t m = s.m, n = s.n, k = std::min(m, n), batch = 6, bad = 3, dup = 4;
            const int64_t lda = m + 1, sA = lda * n + 3, ldr = k + 1, sR = ldr * n + 2;
            const T pad = sentinel<T>();
            std::vector<std::vector<T>> orig;
            std::vector<T> A(sz(sA * batch), pad), R(sz(sR * batch), pad);
            for (int64_t b = 0; b < batch; ++b) {
                orig.push_back(gaussian<T>(rng, m, n));
                if (b == bad) orig.back()[0] = nan_v<T>();
                if (b == dup && n >= 2)
                    for (int64_t i = 0; i < m; ++i) orig.back()[sz(i + m)] = orig.back()[sz(i)];
                for (int64_t j = 0; j < n; ++j)
                    for (int64_t i = 0; i < m; ++i)
                        A[sz(b * sA + i + j * lda)] = orig.back()[sz(i + j * m)];
            }
            std::vector<int> info(batch, -777);
            GPUSVD_ASSERT_OK(this->h, Api<T>::geqrf_mgs_batched(this->h, o, m, n, A.data(), lda, sA,
                                                                R.data(), ldr, sR, batch,
                                                                info.data()));
            for (int64_t b = 0; b < batch; ++b) {
                SCOPED_TRACE(testing::Message() << "matrix " << b);
                const T *Q = A.data() + b * sA, *Rb = R.data() + b * sR;
                if (b == bad) {
                    EXPECT_EQ(info[sz(b)], GPUSVD_INFO_NONFINITE);
                    EXPECT_TRUE(all_nan(m, k, Q, lda));
                    EXPECT_TRUE(all_nan(k, n, Rb, ldr));
                } else {
                    const bool dependent = b == dup && n >= 2 && m >= 2;
                    EXPECT_EQ(info[sz(b)], dependent ? 2 : 0);
                    EXPECT_LT(qr_residual(m, n, orig[sz(b)].data(), m, Q, lda, Rb, ldr),
                              kQrThreshold);
                    EXPECT_LT(orthogonality(m, k, Q, lda),
                              kQrThreshold * (o == GPUSVD_ORTH_MGS && !dependent
                                                  ? std::max(1.0, cond2(m, n, orig[sz(b)].data(), m))
                                                  : 1.0));
                    for (int64_t j = 0; j < k; ++j) EXPECT_GE(Rb[j + j * ldr], T(0));
                }
                EXPECT_TRUE(padding_intact(m, n, Q, lda, pad));
                EXPECT_TRUE(padding_intact(k, n, Rb, ldr, pad));
                for (int64_t i = lda * n; i < sA; ++i) EXPECT_EQ(Q[i], pad);
                for (int64_t i = ldr * n; i < sR; ++i) EXPECT_EQ(Rb[i], pad);
            }
        }
}

// gpusvdSetMatrixLayout: row-major A and R give the factorization of the same matrix. The CPU
// backend factors a column-major copy with the same code, so Q, R and info are those of the
// column-major call bit for bit; the LAPACK ratios are checked on their own as well.
TYPED_TEST(GeqrfMgsTest, RowMajorMatchesColumnMajor) {
    using T = TypeParam;
    Rng rng(29);
    for (const Shape &s : {Shape{12, 7}, Shape{7, 12}, Shape{1, 1}, Shape{50, 50}, Shape{150, 40},
                           Shape{40, 150}, Shape{3, 1}, Shape{1, 5}}) {
        const int64_t m = s.m, n = s.n, k = std::min(m, n);
        std::vector<std::vector<T>> cases = {gaussian<T>(rng, m, n)};
        if (n >= 3 && m >= 3) {  // column 3 = column 1: info 3
            cases.push_back(gaussian<T>(rng, m, n));
            for (int64_t i = 0; i < m; ++i) cases.back()[sz(i + 2 * m)] = cases.back()[sz(i)];
        }
        cases.push_back(gaussian<T>(rng, m, n));
        cases.back()[sz(m * n - 1)] = nan_v<T>();
        for (size_t c = 0; c < cases.size(); ++c)
            for (gpusvdOrth_t o : kOrths) {
                SCOPED_TRACE(testing::Message() << orth_name(o) << " " << m << " x " << n
                                                << " case " << c);
                const std::vector<T> &A0 = cases[c];
                std::vector<T> Ac = A0, Rc(sz(k * n));
                int infoc = -777;
                GPUSVD_ASSERT_OK(this->h, Api<T>::geqrf_mgs(this->h, o, m, n, Ac.data(), m,
                                                            Rc.data(), k, &infoc));
                const RowMajorQr<T> r = row_major_qr(this->h, o, m, n, A0, Api<T>::geqrf_mgs);
                EXPECT_EQ(r.info, infoc);
                std::vector<T> Qr(r.Q.begin(), r.Q.begin() + m * k),
                    Qc(Ac.begin(), Ac.begin() + m * k);
                EXPECT_TRUE(same_bits(Qr, Qc)) << "Q: row-major vs column-major";
                EXPECT_TRUE(same_bits(r.R, Rc)) << "R: row-major vs column-major";
                if (c + 1 == cases.size()) {  // the NaN case
                    EXPECT_EQ(r.info, GPUSVD_INFO_NONFINITE);
                    EXPECT_TRUE(all_nan(m, k, r.Q.data(), m));
                    EXPECT_TRUE(all_nan(k, n, r.R.data(), k));
                    continue;
                }
                EXPECT_EQ(r.info, c == 1 ? 3 : 0);
                EXPECT_LT(qr_residual(m, n, A0.data(), m, r.Q.data(), m, r.R.data(), k),
                          kQrThreshold);
                EXPECT_LT(orthogonality(m, k, r.Q.data(), m), kQrThreshold);
                for (int64_t j = 0; j < k; ++j) EXPECT_GE(r.R[sz(j + j * k)], T(0));
            }
    }
}

// Row-major leading dimensions count columns (lda, ldr >= n); a rejected call changes nothing.
// The batched forms and the routines without a row-major form answer NOT_SUPPORTED.
TYPED_TEST(GeqrfMgsTest, RowMajorArguments) {
    using T = TypeParam;
    gpusvdHandle_t h = this->h;
    Rng rng(30);
    const int64_t m = 3, n = 5, k = 3;  // wide: lda = 3 and ldr = 3 valid column-major only
    const std::vector<T> A0 = to_row_major<T>(m, n, gaussian<T>(rng, m, n).data(), m, n, T(0));
    auto call = [&](int64_t lda, int64_t ldr, const char *name, gpusvdStatus_t expect) {
        SCOPED_TRACE(testing::Message() << "lda " << lda << " ldr " << ldr);
        std::vector<T> A(sz(m * std::max(lda, n) + 8), T(7)), R(sz(k * std::max(ldr, n) + 8), T(9));
        std::copy(A0.begin(), A0.end(), A.begin());
        const std::vector<T> A1 = A, R1 = R;
        int info = -777;
        const gpusvdStatus_t st =
            Api<T>::geqrf_mgs(h, GPUSVD_ORTH_MGS2, m, n, A.data(), lda, R.data(), ldr, &info);
        EXPECT_EQ(st, expect) << gpusvdGetErrorMessage(h);
        if (expect == GPUSVD_STATUS_SUCCESS) return;
        EXPECT_NE(std::strstr(gpusvdGetErrorMessage(h), name), nullptr) << gpusvdGetErrorMessage(h);
        EXPECT_TRUE(same_bits(A, A1) && same_bits(R, R1)) << "a rejected call wrote";
        EXPECT_EQ(info, -777);
    };
    {
        RowMajorScope row(h);
        call(n, n, "", GPUSVD_STATUS_SUCCESS);
        call(n + 2, n + 1, "", GPUSVD_STATUS_SUCCESS);
        call(n - 1, n, "lda", GPUSVD_STATUS_INVALID_VALUE);
        call(m, n, "lda", GPUSVD_STATUS_INVALID_VALUE);
        call(n, k, "ldr", GPUSVD_STATUS_INVALID_VALUE);
        call(n, 0, "ldr", GPUSVD_STATUS_INVALID_VALUE);
    }
    // the same leading dimensions as column-major ones: lda >= m, ldr >= min(m, n)
    call(m, k, "", GPUSVD_STATUS_SUCCESS);
    call(m - 1, k, "lda", GPUSVD_STATUS_INVALID_VALUE);

    // Workspace: the row-major CPU path factors a column-major copy of A and R.
    size_t hc = 0, hr = 0, dummy = 0;
    GPUSVD_EXPECT_OK(h, Api<T>::geqrf_mgs_bufferSize(h, GPUSVD_ORTH_MGS, 400, 30, &dummy, &hc));
    {
        RowMajorScope row(h);
        GPUSVD_EXPECT_OK(h, Api<T>::geqrf_mgs_bufferSize(h, GPUSVD_ORTH_MGS, 400, 30, &dummy, &hr));
        EXPECT_GE(hr, hc + (400 * 30 + 30 * 30) * sizeof(T));

        // Column-major-only routines: NOT_SUPPORTED, nothing written.
        std::vector<T> A(sz(m * n), T(1)), R(sz(k * n), T(2)), S(3, T(3));
        const std::vector<T> A1 = A, R1 = R, S1 = S;
        std::vector<int> info(2, -777);
        EXPECT_EQ(Api<T>::geqrf_mgs_batched(h, GPUSVD_ORTH_MGS, m, n, A.data(), n, m * n, R.data(),
                                            n, k * n, 1, info.data()),
                  GPUSVD_STATUS_NOT_SUPPORTED);
        EXPECT_NE(std::strstr(gpusvdGetErrorMessage(h), "GPUSVD_LAYOUT_ROW_MAJOR"), nullptr)
            << gpusvdGetErrorMessage(h);
        EXPECT_EQ(Api<T>::geqrf_mgs_batched_bufferSize(h, GPUSVD_ORTH_MGS, m, n, 1, &dummy, &hr),
                  GPUSVD_STATUS_NOT_SUPPORTED);
        EXPECT_EQ(Api<T>::gesvj(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, m, n, A.data(), m, S.data(),
                                nullptr, 1, nullptr, 1, info.data()),
                  GPUSVD_STATUS_NOT_SUPPORTED);
        EXPECT_TRUE(same_bits(A, A1) && same_bits(R, R1) && same_bits(S, S1));
        EXPECT_EQ(info[0], -777);
    }
    // and they run again once the layout is column-major
    std::vector<T> S(3);
    std::vector<T> A = gaussian<T>(rng, m, n);
    int info = -777;
    GPUSVD_EXPECT_OK(h, Api<T>::gesvj(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, m, n, A.data(), m,
                                      S.data(), nullptr, 1, nullptr, 1, &info));
}

TEST(MatrixLayout, SetterValidatesAndGetterReports) {
    Handle h;
    gpusvdLayout_t l = GPUSVD_LAYOUT_ROW_MAJOR;
    ASSERT_EQ(gpusvdGetMatrixLayout(h, &l), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(l, GPUSVD_LAYOUT_COL_MAJOR) << "default";
    for (int bad : {2, -1, 100}) {
        EXPECT_EQ(gpusvdSetMatrixLayout(h, static_cast<gpusvdLayout_t>(bad)),
                  GPUSVD_STATUS_INVALID_VALUE);
        EXPECT_NE(std::strstr(gpusvdGetErrorMessage(h), "layout"), nullptr);
        ASSERT_EQ(gpusvdGetMatrixLayout(h, &l), GPUSVD_STATUS_SUCCESS);
        EXPECT_EQ(l, GPUSVD_LAYOUT_COL_MAJOR) << "unchanged by a rejected value";
    }
    ASSERT_EQ(gpusvdSetMatrixLayout(h, GPUSVD_LAYOUT_ROW_MAJOR), GPUSVD_STATUS_SUCCESS);
    ASSERT_EQ(gpusvdGetMatrixLayout(h, &l), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(l, GPUSVD_LAYOUT_ROW_MAJOR);
    EXPECT_EQ(gpusvdSetMatrixLayout(h, static_cast<gpusvdLayout_t>(2)), GPUSVD_STATUS_INVALID_VALUE);
    ASSERT_EQ(gpusvdGetMatrixLayout(h, &l), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(l, GPUSVD_LAYOUT_ROW_MAJOR) << "unchanged by a rejected value";
    EXPECT_EQ(gpusvdGetMatrixLayout(h, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdSetMatrixLayout(nullptr, GPUSVD_LAYOUT_ROW_MAJOR), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdGetMatrixLayout(nullptr, &l), GPUSVD_STATUS_INVALID_VALUE);
}

}  // namespace
