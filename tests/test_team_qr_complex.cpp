// The batched Gram-Schmidt QR of the GPU kernels (src/kernels/qr_team.hpp) on complex data, run
// on the host as test_team_qr runs it on real data: SerialTeam in both storage layouts, and
// ThreadTeam in the member counts cuda/geqrf/plan.hpp gives the kernels for complex elements.
// Checked against zgeqrf + zungqr's convention (R upper trapezoidal with a real non-negative
// diagonal), LAPACK's ratios |A - QR| / (|A| m eps) and |Q^H Q - I| / (m eps), LAPACK's Q and R
// themselves (?geqrf + ?ungqr with R's diagonal phases moved into Q) on well-conditioned
// matrices, and the CPU backend's info on rank-deficient ones.
#include <algorithm>
#include <complex>

#include "geqrf/plan.hpp"
#include "qr_team_run.hpp"
#include "test_common.hpp"

using namespace gpusvd_test;
namespace gk = gpusvd::kernels;
namespace gg = gpusvd::gpu;

namespace {

static_assert(sizeof(gk::Complex<float>) == sizeof(std::complex<float>) &&
                  sizeof(gk::Complex<double>) == sizeof(std::complex<double>),
              "the team code reads std::complex arrays in place");

constexpr double kQrThreshold = 30.0;  // DESIGN.md: QR ratios < 30
constexpr double kTightResid = 3.0;    // as test_team_qr: what the algorithm gives, with margin
constexpr size_t kH200SmemOptin = 232448;
constexpr size_t kH200SmemSM = 233472;

template <typename R>
using Cx = std::complex<R>;

using Config = QrTeamConfig;
template <typename R>
using Run = QrTeamRun<Cx<R>>;

template <typename R>
bool any_nonfinite(const std::vector<Cx<R>> &x) {
    return std::any_of(x.begin(), x.end(), [](Cx<R> v) {
        return !std::isfinite(v.real()) || !std::isfinite(v.imag());
    });
}

template <typename R>
bool every_nan(const std::vector<Cx<R>> &x) {
    return std::all_of(x.begin(), x.end(),
                       [](Cx<R> v) { return std::isnan(v.real()) && std::isnan(v.imag()); });
}

/// 2-norm condition number of the m x n complex matrix (LAPACK zgesdd in double).
template <typename R>
double cond_c(int64_t m, int64_t n, const std::vector<Cx<R>> &A) {
    const int64_t k = std::min(m, n);
    if (k == 0) return 1.0;
    // Padded: OpenBLAS's AVX-512 zgemv (inside zgesdd's bidiagonalisation) reads a few hundred
    // bytes past the matrix's last column, which crosses into unmapped memory under ASan's
    // allocator.
    std::vector<Cx<double>> B(sz(m * n) + 256);
    for (size_t i = 0; i < sz(m * n); ++i) B[i] = Cx<double>(A[i].real(), A[i].imag());
    std::vector<double> s(sz(k));
    if (LAPACKE_zgesdd(LAPACK_COL_MAJOR, 'N', int(m), int(n), B.data(), int(m), s.data(), nullptr,
                       1, nullptr, 1) != 0)
        return INFINITY;
    return s[sz(k - 1)] > 0 ? s[0] / s[sz(k - 1)] : INFINITY;
}

/// LAPACK's factorization in double: zgeqrf + zungqr, the phase of R(j,j) moved into Q(:,j).
struct RefQr {
    std::vector<Cx<double>> Q, R;
};
template <typename R>
RefQr lapack_qr(int64_t m, int64_t n, const std::vector<Cx<R>> &A) {
    const int64_t k = std::min(m, n);
    std::vector<Cx<double>> B(sz(m * n)), tau(sz(k));
    for (size_t i = 0; i < B.size(); ++i) B[i] = Cx<double>(A[i].real(), A[i].imag());
    EXPECT_EQ(LAPACKE_zgeqrf(LAPACK_COL_MAJOR, int(m), int(n), B.data(), int(m), tau.data()), 0);
    RefQr ref;
    ref.R.assign(sz(k * n), 0.0);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= std::min(j, k - 1); ++i) ref.R[sz(i + j * k)] = B[sz(i + j * m)];
    EXPECT_EQ(LAPACKE_zungqr(LAPACK_COL_MAJOR, int(m), int(k), int(k), B.data(), int(m),
                             tau.data()),
              0);
    ref.Q.assign(B.begin(), B.begin() + m * k);
    for (int64_t j = 0; j < k; ++j) {
        const Cx<double> d = ref.R[sz(j + j * k)];
        const Cx<double> ph = std::abs(d) > 0 ? d / std::abs(d) : 1.0;
        for (int64_t c = 0; c < n; ++c) ref.R[sz(j + c * k)] *= std::conj(ph);
        for (int64_t i = 0; i < m; ++i) ref.Q[sz(i + j * m)] *= ph;
    }
    return ref;
}

/// max |X - Y| over the entries, relative to max |Y|.
template <typename R>
double rel_diff(const std::vector<Cx<R>> &X, const std::vector<Cx<double>> &Y) {
    double d = 0, y = 0;
    for (size_t i = 0; i < X.size(); ++i) {
        d = std::max(d, std::abs(Cx<double>(X[i].real(), X[i].imag()) - Y[i]));
        y = std::max(y, std::abs(Y[i]));
    }
    return y > 0 ? d / y : d;
}

/// EXPECTs the QR conventions and ratios of a run (as test_team_qr's expect_qr); expect_info < 0:
/// any info >= 0.
template <typename R>
void expect_qr(int64_t m, int64_t n, const std::vector<Cx<R>> &A0, const Run<R> &r, bool reorth,
               int expect_info = 0) {
    const int64_t k = std::min(m, n);
    if (expect_info >= 0)
        EXPECT_EQ(r.info, expect_info);
    else
        EXPECT_GE(r.info, 0);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j + 1; i < k; ++i)
            EXPECT_EQ(r.R[sz(i + j * k)], Cx<R>(0)) << "R(" << i << "," << j << ")";
    for (int64_t j = 0; j < k; ++j) {
        const Cx<R> d = r.R[sz(j + j * k)];
        EXPECT_EQ(d.imag(), R(0)) << "R(j,j) not real, j=" << j;
        EXPECT_GE(d.real(), R(0)) << "R(j,j) < 0, j=" << j;
        EXPECT_FALSE(std::signbit(d.real())) << "R(j,j) = -0, j=" << j;
    }
    EXPECT_FALSE(any_nonfinite(r.Q));
    EXPECT_FALSE(any_nonfinite(r.R));
    const double resid = qr_residual_h(m, n, A0.data(), m, r.Q.data(), m, r.R.data(), k);
    EXPECT_LT(resid, kQrThreshold) << "|A - QR| / (m |A| eps)";
    EXPECT_LT(resid, kTightResid) << "|A - QR| / (m |A| eps): above what the algorithm gives";
    const double orth = orthogonality_h(m, k, r.Q.data(), m);
    double c = 1;
    if (reorth) {
        EXPECT_LT(orth, kQrThreshold) << "|I - Q^H Q| / (m eps)";
    } else {
        std::vector<Cx<R>> lead(A0.begin(), A0.begin() + m * k);
        c = std::max(1.0, cond_c(m, k, lead));
        EXPECT_LT(orth / c, kQrThreshold) << "|I - Q^H Q| / (m eps cond(A(:,0:k))), cond = " << c;
    }
    if (verbose())
        std::printf("  %s %lld x %lld: info %d resid %.3g orth %.3g cond %.3g\n",
                    reorth ? "MGS2" : "MGS", (long long)m, (long long)n, r.info, resid, orth, c);
}

/// Both modes, serially, in both layouts; returns the MGS2 run of the shared layout.
template <typename R>
Run<R> check_both(int64_t m, int64_t n, const std::vector<Cx<R>> &A, int expect_info = 0) {
    Run<R> keep;
    for (bool reorth : {false, true})
        for (bool in_place : {false, true}) {
            SCOPED_TRACE(testing::Message() << (reorth ? "MGS2" : "MGS")
                                            << (in_place ? " in place" : " shared layout"));
            Config cfg;
            cfg.in_place = in_place;
            const Run<R> r = run_qr(m, n, A, reorth, cfg);
            expect_qr(m, n, A, r, reorth, expect_info);
            if (reorth && !in_place) keep = r;
        }
    return keep;
}

/// The CPU backend's info (LAPACK ?geqrf + ?ungqr) on the same matrix and mode.
template <typename R>
int cpu_info(gpusvdOrth_t orth, int64_t m, int64_t n, const std::vector<Cx<R>> &A0) {
    using P = PublicComplex<R>;
    Handle h;
    EXPECT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS);
    const int64_t k = std::min(m, n);
    std::vector<Cx<R>> A = A0, Rv(sz(k * n));
    int info = -777;
    GPUSVD_EXPECT_OK(h, Api<P>::geqrf_mgs(h, orth, m, n, reinterpret_cast<P *>(A.data()), m,
                                          reinterpret_cast<P *>(Rv.data()), k, &info));
    return info;
}

struct Shape {
    int64_t m, n;
};

template <typename R>
class TeamQrComplexTest : public ::testing::Test {};
TYPED_TEST_SUITE(TeamQrComplexTest, Precisions, ComplexPrecisionName);

TYPED_TEST(TeamQrComplexTest, ShapesAgainstLapack) {
    using R = TypeParam;
    Rng rng(131);
    for (const Shape &s : {Shape{1, 1}, Shape{1, 7}, Shape{7, 1}, Shape{2, 2}, Shape{3, 2},
                           Shape{2, 3}, Shape{16, 16}, Shape{32, 32}, Shape{17, 11}, Shape{11, 17},
                           Shape{33, 31}, Shape{31, 33}, Shape{200, 13}, Shape{13, 90},
                           Shape{64, 64}, Shape{100, 70}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const auto A = prescribed_sv_complex<R>(rng, s.m, s.n, SigmaMode::LogUniform, 10.0);
        const Run<R> r = check_both<R>(s.m, s.n, A);
        // Q and R are unique (R(j,j) > 0): LAPACK's, to the perturbation bound of a
        // well-conditioned QR.
        const RefQr ref = lapack_qr(s.m, s.n, A);
        const double tol = 100.0 * double(std::max(s.m, s.n)) * eps<R>() * 10.0;
        EXPECT_LT(rel_diff(r.Q, ref.Q), tol) << "Q against zgeqrf + zungqr";
        EXPECT_LT(rel_diff(r.R, ref.R), tol) << "R against zgeqrf";
    }
}

TYPED_TEST(TeamQrComplexTest, AllSmallShapes) {
    using R = TypeParam;
    Rng rng(132);
    for (int64_t m = 1; m <= 8; ++m)
        for (int64_t n = 1; n <= 8; ++n)
            for (bool reorth : {false, true}) {
                SCOPED_TRACE(testing::Message() << (reorth ? "MGS2 " : "MGS ") << m << " x " << n);
                const auto A = prescribed_sv_complex<R>(rng, m, n, SigmaMode::Geometric, 100.0);
                expect_qr(m, n, A, run_qr(m, n, A, reorth), reorth, 0);
            }
}

TYPED_TEST(TeamQrComplexTest, PrescribedConditioning) {
    using R = TypeParam;
    Rng rng(133);
    for (SigmaMode mode : {SigmaMode::Geometric, SigmaMode::Arithmetic, SigmaMode::ClusterOneSmall,
                           SigmaMode::ClusterOneLarge, SigmaMode::OneSmall, SigmaMode::LogUniform})
        for (double cond : {1e2, 1e5, 1e8, 1e12})
            for (const Shape &s : {Shape{17, 11}, Shape{11, 17}, Shape{24, 24}}) {
                SCOPED_TRACE(testing::Message() << sigma_mode_name(mode) << " cond=" << cond << " "
                                                << s.m << " x " << s.n);
                const auto A = prescribed_sv_complex<R>(rng, s.m, s.n, mode, cond);
                const bool full_rank = 1.0 / cond > 100.0 * double(s.m) * eps<R>();
                check_both<R>(s.m, s.n, A, full_rank ? 0 : -1);
            }
}

TYPED_TEST(TeamQrComplexTest, Graded) {
    using R = TypeParam;
    Rng rng(134);
    for (const Shape &s : {Shape{20, 10}, Shape{10, 20}, Shape{16, 16}})
        for (int which = 0; which < 3; ++which) {
            SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " grading " << which);
            const double row_lo = which == 0 ? 1.0 : 1e-6, col_lo = which == 1 ? 1.0 : 1e-10;
            check_both<R>(s.m, s.n, graded_complex<R>(rng, s.m, s.n, row_lo, col_lo),
                          which == 0 ? 0 : -1);
        }
}

TYPED_TEST(TeamQrComplexTest, RankDeficientMatchesCpuInfo) {
    using R = TypeParam;
    Rng rng(135);
    for (const Shape &s : {Shape{20, 10}, Shape{10, 20}, Shape{12, 12}, Shape{32, 32}, Shape{70, 40}})
        for (int variant = 0; variant < 4; ++variant) {
            SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " variant " << variant);
            const int64_t m = s.m, n = s.n, k = std::min(m, n);
            std::vector<Cx<R>> A;
            if (variant == 0) {  // rank 3
                A = prescribed_sv_complex<R>(rng, m, n, SigmaMode::RankDeficient, 1e3, 3);
            } else {
                A = prescribed_sv_complex<R>(rng, m, n, SigmaMode::LogUniform, 10.0);
                for (int64_t i = 0; i < m; ++i) {
                    // a complex multiple of an earlier column (a pure phase: i times it)
                    if (variant == 1) A[sz(i + 4 * m)] = Cx<R>(0, 1) * A[sz(i + 1 * m)];
                    if (variant == 2) A[sz(i + 2 * m)] = Cx<R>(0);
                    if (variant == 3) {
                        A[sz(i + 5 * m)] =
                            Cx<R>(R(0.5), R(-1)) * A[sz(i)] - Cx<R>(2, R(0.25)) * A[sz(i + 3 * m)];
                        A[sz(i + 6 * m)] = Cx<R>(0);
                    }
                }
            }
            const int expected = variant == 0 ? 4 : variant == 1 ? 5 : variant == 2 ? 3 : 6;
            for (bool reorth : {false, true}) {
                SCOPED_TRACE(reorth ? "MGS2" : "MGS");
                EXPECT_EQ(cpu_info(reorth ? GPUSVD_ORTH_MGS2 : GPUSVD_ORTH_MGS, m, n, A), expected)
                    << "the CPU backend's info";
                for (bool in_place : {false, true}) {
                    Config cfg;
                    cfg.in_place = in_place;
                    const Run<R> r = run_qr(m, n, A, reorth, cfg);
                    EXPECT_EQ(r.info, expected);
                    EXPECT_EQ(r.R[sz((expected - 1) * (k + 1))], Cx<R>(0))
                        << "R(j,j) = 0 for the dependent column";
                    for (int64_t j = 0; j < k; ++j) {
                        EXPECT_EQ(r.R[sz(j * (k + 1))].imag(), R(0));
                        EXPECT_GE(r.R[sz(j * (k + 1))].real(), R(0));
                    }
                    EXPECT_LT(qr_residual_h(m, n, A.data(), m, r.Q.data(), m, r.R.data(), k),
                              kQrThreshold);
                    // Q completed to orthonormal columns: MGS2 always, MGS where the dependence
                    // is exact (a zero column)
                    if (reorth || variant == 2) {
                        EXPECT_LT(orthogonality_h(m, k, r.Q.data(), m), kQrThreshold);
                    }
                }
            }
        }
}

TYPED_TEST(TeamQrComplexTest, ZeroMatrixAndIdentity) {
    using R = TypeParam;
    for (const Shape &s : {Shape{1, 1}, Shape{9, 6}, Shape{6, 9}, Shape{16, 16}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const int64_t k = std::min(s.m, s.n);
        const std::vector<Cx<R>> Z(sz(s.m * s.n), Cx<R>(0));
        EXPECT_EQ(cpu_info(GPUSVD_ORTH_MGS2, s.m, s.n, Z), 1);
        const Run<R> z = check_both<R>(s.m, s.n, Z, 1);
        for (const Cx<R> &v : z.R) EXPECT_EQ(v, Cx<R>(0)) << "R of a zero matrix";
        for (int64_t j = 0; j < k; ++j)
            for (int64_t i = 0; i < s.m; ++i)
                EXPECT_EQ(z.Q[sz(i + j * s.m)], Cx<R>(i == j ? 1 : 0)) << i << "," << j;
        // i times the identity: Q = i I, R = I
        std::vector<Cx<R>> I(sz(s.m * s.n), Cx<R>(0));
        for (int64_t j = 0; j < k; ++j) I[sz(j + j * s.m)] = Cx<R>(0, 1);
        const Run<R> id = check_both<R>(s.m, s.n, I, 0);
        EXPECT_TRUE(same_bits(id.Q, with_ld(s.m, k, I.data(), s.m, s.m, Cx<R>(0))));
        for (int64_t j = 0; j < s.n; ++j)
            for (int64_t i = 0; i < k; ++i)
                EXPECT_EQ(id.R[sz(i + j * k)], Cx<R>(i == j ? 1 : 0));
    }
}

TYPED_TEST(TeamQrComplexTest, OneByOneAndSingleColumnOrRow) {
    using R = TypeParam;
    for (bool reorth : {false, true}) {
        SCOPED_TRACE(reorth ? "MGS2" : "MGS");
        Run<R> r = run_qr<Cx<R>>(1, 1, {Cx<R>(0, -3)}, reorth);
        EXPECT_EQ(r.info, 0);
        EXPECT_EQ(r.Q[0], Cx<R>(0, -1));
        EXPECT_EQ(r.R[0], Cx<R>(3));
        // a single column (3, 4i): R = 5, Q = (0.6, 0.8i)
        r = run_qr<Cx<R>>(2, 1, {Cx<R>(3), Cx<R>(0, 4)}, reorth);
        EXPECT_EQ(r.info, 0);
        EXPECT_NEAR(double(r.R[0].real()), 5.0, 5 * eps<R>());
        EXPECT_EQ(r.R[0].imag(), R(0));
        EXPECT_NEAR(std::abs(Cx<double>(r.Q[0]) - Cx<double>(0.6)), 0.0, 2 * eps<R>());
        EXPECT_NEAR(std::abs(Cx<double>(r.Q[1]) - Cx<double>(0, 0.8)), 0.0, 2 * eps<R>());
        // a single row: Q = the first entry's phase, R = conj(phase) times the row
        r = run_qr<Cx<R>>(1, 3, {Cx<R>(0, 2), Cx<R>(5), Cx<R>(R(0.5), -1)}, reorth);
        EXPECT_EQ(r.info, 0);
        EXPECT_EQ(r.Q[0], Cx<R>(0, 1));
        EXPECT_EQ(r.R[0], Cx<R>(2));
        EXPECT_EQ(r.R[1], Cx<R>(0, -5));
        EXPECT_EQ(r.R[2], Cx<R>(-1, R(-0.5)));
    }
}

TYPED_TEST(TeamQrComplexTest, NearOverflowAndUnderflow) {
    using R = TypeParam;
    Rng rng(136);
    for (int which = 0; which < 3; ++which)
        for (const Shape &s : {Shape{17, 11}, Shape{11, 17}, Shape{5, 1}, Shape{1, 5}}) {
            SCOPED_TRACE(testing::Message() << which << ": " << s.m << " x " << s.n);
            const auto A0 = prescribed_sv_complex<R>(rng, s.m, s.n, SigmaMode::Geometric, 1e3);
            double amax = 0;
            for (const auto &x : A0)
                amax = std::max({amax, double(std::abs(x.real())), double(std::abs(x.imag()))});
            // the largest part near overflow (sums of squares overflow without the scaling),
            // near underflow, and at the smallest normal number (most parts subnormal)
            const int target = which == 0   ? std::numeric_limits<R>::max_exponent - 3
                               : which == 1 ? std::numeric_limits<R>::min_exponent + 8
                                            : std::numeric_limits<R>::min_exponent;
            const int e = target - std::ilogb(amax) - 1;
            std::vector<Cx<R>> A = A0;
            for (auto &x : A) x = Cx<R>(std::ldexp(x.real(), e), std::ldexp(x.imag(), e));
            ASSERT_FALSE(any_nonfinite(A));
            for (bool reorth : {false, true}) {
                const Run<R> r = run_qr(s.m, s.n, A, reorth);
                const int64_t k = std::min(s.m, s.n);
                EXPECT_EQ(r.info, 0);
                EXPECT_FALSE(any_nonfinite(r.R));
                EXPECT_LT(orthogonality_h(s.m, k, r.Q.data(), s.m),
                          kQrThreshold * (reorth ? 1 : 1e3));
                // Compare copies brought back by the same power of two (the ratio's norms lose
                // accuracy at these scales); subnormal R entries lose some bits when scaled back.
                std::vector<Cx<R>> As = A, Rs = r.R;
                for (auto &x : As) x = Cx<R>(std::ldexp(x.real(), -e), std::ldexp(x.imag(), -e));
                for (auto &x : Rs) x = Cx<R>(std::ldexp(x.real(), -e), std::ldexp(x.imag(), -e));
                EXPECT_LT(qr_residual_h(s.m, s.n, As.data(), s.m, r.Q.data(), s.m, Rs.data(), k),
                          which == 2 ? 1e3 * kQrThreshold : kQrThreshold);
            }
        }
}

TYPED_TEST(TeamQrComplexTest, NonFiniteMemberGivesNaNAndInfo) {
    using R = TypeParam;
    Rng rng(137);
    const R nan = nan_v<R>(), inf = std::numeric_limits<R>::infinity();
    // A batch as the kernels see it: each member factored alone, the bad ones NaN.
    for (const Shape &s : {Shape{9, 6}, Shape{6, 9}, Shape{1, 1}, Shape{32, 32}})
        for (bool reorth : {false, true})
            for (bool in_place : {false, true}) {
                Config cfg;
                cfg.in_place = in_place;
                for (int member = 0; member < 4; ++member) {
                    SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " member " << member
                                                    << (reorth ? " MGS2" : " MGS")
                                                    << (in_place ? " in place" : ""));
                    auto A = prescribed_sv_complex<R>(rng, s.m, s.n, SigmaMode::Geometric, 10.0);
                    const size_t at = sz((s.m * s.n) / 2);
                    if (member == 1) A[at] = Cx<R>(A[at].real(), nan);  // NaN imaginary part
                    if (member == 2) A[at] = Cx<R>(inf, A[at].imag());
                    if (member == 3) A[at] = Cx<R>(-inf, nan);
                    const Run<R> r = run_qr(s.m, s.n, A, reorth, cfg);
                    if (member == 0) {
                        expect_qr(s.m, s.n, A, r, reorth, 0);
                        continue;
                    }
                    EXPECT_EQ(r.info, GPUSVD_INFO_NONFINITE);
                    EXPECT_TRUE(every_nan(r.Q)) << "Q is NaN";
                    EXPECT_TRUE(every_nan(r.R)) << "R is NaN";
                }
            }
}

TYPED_TEST(TeamQrComplexTest, MgsLosesOrthogonalityLikeCond) {
    using R = TypeParam;
    Rng rng(138);
    const double cond = std::is_same<R, float>::value ? 1e5 : 1e12;
    const auto A = prescribed_sv_complex<R>(rng, 40, 20, SigmaMode::Geometric, cond);
    const Run<R> r1 = run_qr(40, 20, A, false), r2 = run_qr(40, 20, A, true);
    const double o1 = orthogonality_h(40, 20, r1.Q.data(), 40),
                 o2 = orthogonality_h(40, 20, r2.Q.data(), 40);
    EXPECT_GT(o1, 100.0) << "MGS without reorthogonalisation loses orthogonality";
    EXPECT_LT(o1, kQrThreshold * cond);
    EXPECT_LT(o2, kQrThreshold);
}

// ---- The kernels' configurations for complex elements on thread teams -----------------------

/// What cuda/geqrf/batched.cu plans for complex elements: the register path is real only.
template <typename R>
gg::GeqrfBatchedPlan plan(int64_t m, int64_t n, int64_t batch = 1000) {
    return gg::geqrf_batched_plan(sizeof(gk::Complex<R>), m, n, batch, kH200SmemOptin, kH200SmemSM,
                                  256, 1024, 1024, false);
}

TYPED_TEST(TeamQrComplexTest, PlanForComplexElements) {
    using R = TypeParam;
    EXPECT_EQ(plan<R>(32, 32).path, gg::GeqrfBatchedPlan::kWarp);
    EXPECT_EQ(plan<R>(1, 1).path, gg::GeqrfBatchedPlan::kWarp);
    EXPECT_EQ(plan<R>(33, 33).path, gg::GeqrfBatchedPlan::kBlock);
    EXPECT_EQ(plan<R>(400, 200).path, gg::GeqrfBatchedPlan::kGlobal);
    for (int64_t m : {1, 5, 16, 32, 33, 64, 100, 300})
        for (int64_t n : {1, 5, 16, 32, 33, 64, 100, 300}) {
            const gg::GeqrfBatchedPlan p = plan<R>(m, n, 3);
            EXPECT_NE(p.path, gg::GeqrfBatchedPlan::kWarpReg);
            EXPECT_GE(p.matrix_bytes, size_t(p.shape.elems) * sizeof(Cx<R>));
            if (p.path != gg::GeqrfBatchedPlan::kGlobal) {
                EXPECT_LE(p.smem_bytes +
                              (p.path == gg::GeqrfBatchedPlan::kBlock ? gg::kQrScratchBytes : 0),
                          kH200SmemOptin);
            }
        }
}

/// The planned configuration of a shape on threads, both modes; bitwise SerialTeam's result.
template <typename R>
void check_planned(int64_t m, int64_t n, const std::vector<Cx<R>> &A, int expect_info = 0) {
    const gg::GeqrfBatchedPlan p = plan<R>(m, n, 1);
    Config cfg;
    cfg.members = p.path == gg::GeqrfBatchedPlan::kWarp ? 32 : p.threads;
    cfg.in_place = p.shape.in_place;
    for (bool reorth : {false, true}) {
        SCOPED_TRACE(testing::Message()
                     << m << " x " << n << ": " << cfg.members << " threads"
                     << (cfg.in_place ? " in place" : "") << (reorth ? " MGS2" : " MGS"));
        const Run<R> r = run_qr(m, n, A, reorth, cfg);
        expect_qr(m, n, A, r, reorth, expect_info);
        Config serial;
        serial.in_place = cfg.in_place;
        const Run<R> s = run_qr(m, n, A, reorth, serial);
        EXPECT_TRUE(same_bits(r.Q, s.Q)) << "Q differs from SerialTeam's";
        EXPECT_TRUE(same_bits(r.R, s.R)) << "R differs from SerialTeam's";
        EXPECT_EQ(r.info, s.info);
    }
}

TYPED_TEST(TeamQrComplexTest, ThreadTeamsInPlannedConfigurations) {
    using R = TypeParam;
    Rng rng(139);
    for (const Shape &s : {Shape{16, 16}, Shape{32, 32}, Shape{5, 3}, Shape{3, 5}, Shape{17, 11},
                           Shape{11, 17}, Shape{70, 7}, Shape{1, 1}, Shape{40, 40}, Shape{33, 64}})
        check_planned<R>(s.m, s.n,
                         prescribed_sv_complex<R>(rng, s.m, s.n, SigmaMode::LogUniform, 100.0));
    check_planned<R>(32, 32,
                     prescribed_sv_complex<R>(rng, 32, 32, SigmaMode::Geometric,
                                              std::is_same<R, float>::value ? 1e5 : 1e10));
    auto D = prescribed_sv_complex<R>(rng, 32, 32, SigmaMode::LogUniform, 10.0);
    for (int64_t i = 0; i < 32; ++i) {
        D[sz(i + 4 * 32)] = Cx<R>(0);
        D[sz(i + 9 * 32)] = Cx<R>(0, -1) * D[sz(i + 2 * 32)];
    }
    check_planned<R>(32, 32, D, 5);
    check_planned<R>(9, 9, std::vector<Cx<R>>(81, Cx<R>(0)), 1);
    check_planned<R>(6, 40, std::vector<Cx<R>>(240, Cx<R>(0)), 1);
    // the global kernel's layout: a shape too big for shared memory
    ASSERT_EQ(plan<R>(400, 200, 1).path, gg::GeqrfBatchedPlan::kGlobal);
    check_planned<R>(400, 200, prescribed_sv_complex<R>(rng, 400, 200, SigmaMode::LogUniform, 1e4));
}

}  // namespace
