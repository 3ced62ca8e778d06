// The batched Gram-Schmidt QR of the GPU kernels (src/kernels/qr_team.hpp) run on the host: with
// SerialTeam (the code a warp or block runs, one member) on the generator's matrices against
// DESIGN.md's QR ratios and the CPU backend's info, and with ThreadTeam (std::threads as team
// members, real barriers) in the member counts cuda/geqrf/plan.hpp gives the kernels (32 for the
// warp path, n rounded up to a multiple of 32 for the block paths), in both storage layouts
// (shared-memory copy with int indices, in place with int64_t indices as the global path).
#include <algorithm>
#include <functional>

#include "geqrf/plan.hpp"
#include "qr_team_run.hpp"
#include "test_common.hpp"
#include "worst_ratios.hpp"

using namespace gpusvd_test;
namespace gk = gpusvd::kernels;
namespace gg = gpusvd::gpu;

namespace {

constexpr double kQrThreshold = 30.0;  // DESIGN.md: QR ratios < 30
// The residual ratio this algorithm gives on every matrix here is below 1 (it prints the worst):
// a regression guard, well under DESIGN.md's 30, that catches a lost term of R (R = R1 instead
// of R2 R1, columns j >= m not projected again) which the loose bound lets through.
constexpr double kTightResid = 3.0;
constexpr size_t kH200SmemOptin = 232448;  // 227 KiB per block
constexpr size_t kH200SmemSM = 233472;     // 228 KiB per SM

using Config = QrTeamConfig;
template <typename T>
using Run = QrTeamRun<T>;

/// info of the CPU backend (Householder, LAPACK) on the same matrix and mode.
template <typename T>
int cpu_info(gpusvdOrth_t orth, int64_t m, int64_t n, const std::vector<T> &A0) {
    Handle h;
    EXPECT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS);
    const int64_t k = std::min(m, n);
    std::vector<T> A = A0, R(sz(k * n));
    int info = -777;
    GPUSVD_EXPECT_OK(h, Api<T>::geqrf_mgs(h, orth, m, n, A.data(), m, R.data(), k, &info));
    return info;
}

/// Worst ratios met per precision, printed when the run ends.
struct Worst {
    double resid = 0, orth2 = 0, orth1 = 0;  // orth1: MGS, divided by max(1, cond)
    int checked = 0;
    static void print(const Worst &w, const char *name) {
        std::printf(
            "[team qr %s] %d QRs checked; worst ratios: resid %.3g, MGS2 orth %.3g, "
            "MGS orth/cond %.3g\n",
            name, w.checked, w.resid, w.orth2, w.orth1);
    }
};
const auto *const kPrintWorst = print_worst_at_end<Worst>();

/// EXPECTs DESIGN.md's QR ratios of a run: R upper trapezoidal with R(j,j) >= 0,
/// |A - QR| / (m |A| eps) < 30, and |I - Q^T Q| / (m eps) < 30 for MGS2, < 30 max(1, cond) for
/// MGS (cond of A's first k columns, which Q comes from). expect_info >= 0: that info; else any
/// info >= 0.
template <typename T>
void expect_qr(int64_t m, int64_t n, const std::vector<T> &A0, const Run<T> &r, bool reorth,
               int expect_info = 0) {
    const int64_t k = std::min(m, n);
    if (expect_info >= 0)
        EXPECT_EQ(r.info, expect_info);
    else
        EXPECT_GE(r.info, 0);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j + 1; i < k; ++i)
            EXPECT_EQ(r.R[sz(i + j * k)], T(0)) << "R(" << i << "," << j << ") below the diagonal";
    for (int64_t j = 0; j < k; ++j) {
        EXPECT_GE(r.R[sz(j + j * k)], T(0)) << "R(j,j) < 0, j=" << j;
        EXPECT_FALSE(std::signbit(r.R[sz(j + j * k)])) << "R(j,j) = -0, j=" << j;
    }
    EXPECT_FALSE(has_nonfinite(m, k, r.Q.data(), m));
    EXPECT_FALSE(has_nonfinite(k, n, r.R.data(), k));
    Worst &w = worst<Worst, T>();
    ++w.checked;
    const double resid = qr_residual(m, n, A0.data(), m, r.Q.data(), m, r.R.data(), k);
    EXPECT_LT(resid, kQrThreshold) << "|A - QR| / (m |A| eps)";
    EXPECT_LT(resid, kTightResid) << "|A - QR| / (m |A| eps): above what the algorithm gives";
    w.resid = std::max(w.resid, resid);
    const double orth = orthogonality(m, k, r.Q.data(), m);
    if (reorth) {
        EXPECT_LT(orth, kQrThreshold) << "|I - Q^T Q| / (m eps)";
        w.orth2 = std::max(w.orth2, orth);
    } else {
        // Q comes from the first k columns (all of them unless m < n): their condition number.
        const double c = std::max(1.0, cond2(m, k, A0.data(), m));
        EXPECT_LT(orth / c, kQrThreshold) << "|I - Q^T Q| / (m eps cond(A(:,0:k))), cond = " << c;
        if (std::isfinite(c)) w.orth1 = std::max(w.orth1, orth / c);
    }
    if (verbose())
        std::printf("  %s %lld x %lld: info %d resid %.3g orth %.3g cond(A(:,0:k)) %.3g\n",
                    reorth ? "MGS2" : "MGS", (long long)m, (long long)n, r.info, resid, orth,
                    cond2(m, k, A0.data(), m));
}

/// Both modes, serially, in both layouts; returns the MGS2 run of the shared layout.
template <typename T>
Run<T> check_both(int64_t m, int64_t n, const std::vector<T> &A, int expect_info = 0) {
    Run<T> keep;
    for (bool reorth : {false, true})
        for (bool in_place : {false, true}) {
            SCOPED_TRACE(testing::Message() << (reorth ? "MGS2" : "MGS")
                                            << (in_place ? " in place" : " shared layout"));
            Config cfg;
            cfg.in_place = in_place;
            const Run<T> r = run_qr(m, n, A, reorth, cfg);
            expect_qr(m, n, A, r, reorth, expect_info);
            if (reorth && !in_place) keep = r;
        }
    return keep;
}

struct Shape {
    int64_t m, n;
};

template <typename T>
class TeamQrTest : public ::testing::Test {};
TYPED_TEST_SUITE(TeamQrTest, Precisions, PrecisionName);

// ------------------------------------------------------------------------------------------------
// Accuracy (SerialTeam)
// ------------------------------------------------------------------------------------------------

TYPED_TEST(TeamQrTest, RandomShapes) {
    using T = TypeParam;
    Rng rng(31);
    for (const Shape &s :
         {Shape{1, 1}, Shape{1, 7}, Shape{7, 1}, Shape{2, 2}, Shape{3, 2}, Shape{2, 3},
          Shape{16, 16}, Shape{32, 32}, Shape{17, 11}, Shape{11, 17}, Shape{33, 31}, Shape{31, 33},
          Shape{200, 13}, Shape{13, 200}, Shape{64, 64}, Shape{7, 7}, Shape{100, 70}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        check_both<T>(s.m, s.n, gaussian<T>(rng, s.m, s.n));
    }
}

TYPED_TEST(TeamQrTest, AllSmallShapes) {
    using T = TypeParam;
    Rng rng(32);
    for (int64_t m = 1; m <= 9; ++m)
        for (int64_t n = 1; n <= 9; ++n)
            for (bool reorth : {false, true}) {
                SCOPED_TRACE(testing::Message() << (reorth ? "MGS2 " : "MGS ") << m << " x " << n);
                const std::vector<T> A = gaussian<T>(rng, m, n);
                expect_qr(m, n, A, run_qr(m, n, A, reorth), reorth, 0);
            }
}

TYPED_TEST(TeamQrTest, PrescribedConditioning) {
    using T = TypeParam;
    Rng rng(33);
    for (SigmaMode mode : {SigmaMode::Geometric, SigmaMode::Arithmetic, SigmaMode::ClusterOneSmall,
                           SigmaMode::ClusterOneLarge, SigmaMode::OneSmall, SigmaMode::LogUniform})
        for (double cond : {1e2, 1e4, 1e6, 1e8, 1e10, 1e12})
            for (const Shape &s : {Shape{17, 11}, Shape{11, 17}, Shape{24, 24}, Shape{32, 32}}) {
                SCOPED_TRACE(testing::Message() << sigma_mode_name(mode) << " cond=" << cond << " "
                                                << s.m << " x " << s.n);
                const std::vector<T> A = prescribed_sv<T>(rng, s.m, s.n, mode, cond);
                // R(j,j) / |a_j| >= 1/cond: no column can look dependent while 1/cond is well
                // above the m eps threshold; else any info (a float matrix of cond 1e12 is
                // numerically singular).
                const bool full_rank = 1.0 / cond > 100.0 * double(s.m) * eps<T>();
                check_both<T>(s.m, s.n, A, full_rank ? 0 : -1);
            }
}

TYPED_TEST(TeamQrTest, GradedColumnsAndRows) {
    using T = TypeParam;
    Rng rng(34);
    for (const Shape &s : {Shape{20, 10}, Shape{10, 20}, Shape{32, 32}, Shape{16, 16}})
        for (int which = 0; which < 3; ++which) {
            SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " grading " << which);
            std::vector<T> A(sz(s.m * s.n));
            // column grading keeps the columns independent; row and two-sided grading make A
            // ill-conditioned (any info there)
            const double row_lo = which == 0 ? 1.0 : 1e-6, col_lo = which == 1 ? 1.0 : 1e-10;
            graded(rng, s.m, s.n, A.data(), s.m, row_lo, col_lo);
            check_both<T>(s.m, s.n, A, which == 0 ? 0 : -1);
        }
}

TYPED_TEST(TeamQrTest, RankDeficientMatchesCpuInfo) {
    using T = TypeParam;
    Rng rng(35);
    for (const Shape &s :
         {Shape{20, 10}, Shape{10, 20}, Shape{12, 12}, Shape{32, 32}, Shape{15, 8}, Shape{70, 40}})
        for (int variant = 0; variant < 4; ++variant) {
            SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " variant " << variant);
            const int64_t m = s.m, n = s.n;
            std::vector<T> A;
            if (variant == 0) {  // rank 3: columns 3.. in the span of the first three
                A = prescribed_sv<T>(rng, m, n, SigmaMode::RankDeficient, 1e3, 3);
            } else {
                A = gaussian<T>(rng, m, n);
                for (int64_t i = 0; i < m; ++i) {
                    if (variant == 1) A[sz(i + 4 * m)] = A[sz(i + 1 * m)];  // duplicate
                    if (variant == 2) A[sz(i + 2 * m)] = T(0);              // zero column
                    if (variant == 3) {  // a combination of two earlier columns, then a zero one
                        A[sz(i + 5 * m)] = T(0.5) * A[sz(i)] - T(2) * A[sz(i + 3 * m)];
                        A[sz(i + 6 * m)] = T(0);
                    }
                }
            }
            const int expected = variant == 0 ? 4 : variant == 1 ? 5 : variant == 2 ? 3 : 6;
            for (bool reorth : {false, true}) {
                SCOPED_TRACE(reorth ? "MGS2" : "MGS");
                const gpusvdOrth_t orth = reorth ? GPUSVD_ORTH_MGS2 : GPUSVD_ORTH_MGS;
                EXPECT_EQ(cpu_info(orth, m, n, A), expected) << "the CPU backend's info";
                for (bool in_place : {false, true}) {
                    Config cfg;
                    cfg.in_place = in_place;
                    const Run<T> r = run_qr(m, n, A, reorth, cfg);
                    EXPECT_EQ(r.info, expected);
                    EXPECT_EQ(r.R[sz((expected - 1) * (std::min(m, n) + 1))], T(0))
                        << "R(j,j) = 0 for the dependent column";
                    // Residual always; orthogonality: MGS2 always; MGS only for exact
                    // dependencies (zero columns, exact duplicates), where the completion is
                    // orthogonal to what stayed orthonormal.
                    const double resid =
                        qr_residual(m, n, A.data(), m, r.Q.data(), m, r.R.data(), std::min(m, n));
                    EXPECT_LT(resid, kQrThreshold);
                    const double orth_ratio = orthogonality(m, std::min(m, n), r.Q.data(), m);
                    if (reorth || variant == 2) {
                        EXPECT_LT(orth_ratio, kQrThreshold);
                    }
                    if (verbose())
                        std::printf("  rankdef %lld x %lld v%d %s: resid %.3g orth %.3g\n",
                                    (long long)m, (long long)n, variant, reorth ? "MGS2" : "MGS",
                                    resid, orth_ratio);
                    for (int64_t j = 0; j < std::min(m, n); ++j)
                        EXPECT_GE(r.R[sz(j + j * std::min(m, n))], T(0));
                }
            }
        }
}

TYPED_TEST(TeamQrTest, ZeroMatrixAndIdentity) {
    using T = TypeParam;
    for (const Shape &s : {Shape{1, 1}, Shape{9, 6}, Shape{6, 9}, Shape{16, 16}, Shape{32, 32}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const int64_t k = std::min(s.m, s.n);
        const std::vector<T> Z(sz(s.m * s.n), T(0));
        EXPECT_EQ(cpu_info(GPUSVD_ORTH_MGS2, s.m, s.n, Z), 1);
        const Run<T> z = check_both<T>(s.m, s.n, Z, 1);
        for (T v : z.R) EXPECT_EQ(v, T(0)) << "R of a zero matrix";
        // The completion picks e_0, e_1, ...: an exact identity-like Q.
        for (int64_t j = 0; j < k; ++j)
            for (int64_t i = 0; i < s.m; ++i)
                EXPECT_EQ(z.Q[sz(i + j * s.m)], T(i == j ? 1 : 0)) << i << "," << j;

        std::vector<T> I(sz(s.m * s.n));
        identity(s.m, s.n, I.data(), s.m);
        const Run<T> id = check_both<T>(s.m, s.n, I, 0);
        EXPECT_TRUE(same_bits(id.Q, with_ld(s.m, k, I.data(), s.m, s.m, T(0))));
        for (int64_t j = 0; j < s.n; ++j)
            for (int64_t i = 0; i < k; ++i) EXPECT_EQ(id.R[sz(i + j * k)], T(i == j ? 1 : 0));
    }
}

TYPED_TEST(TeamQrTest, OneByOneAndSingleColumn) {
    using T = TypeParam;
    for (bool reorth : {false, true}) {
        SCOPED_TRACE(reorth ? "MGS2" : "MGS");
        Run<T> r = run_qr<T>(1, 1, {T(-3)}, reorth);
        EXPECT_EQ(r.info, 0);
        EXPECT_EQ(r.Q[0], T(-1));
        EXPECT_EQ(r.R[0], T(3));
        r = run_qr<T>(1, 1, {T(0)}, reorth);
        EXPECT_EQ(r.info, 1);
        EXPECT_EQ(r.Q[0], T(1));
        EXPECT_EQ(r.R[0], T(0));
        // a single column: R = its norm, Q = it normalised
        r = run_qr<T>(2, 1, {T(3), T(-4)}, reorth);
        EXPECT_EQ(r.info, 0);
        EXPECT_NEAR(double(r.R[0]), 5.0, 5 * eps<T>());
        EXPECT_NEAR(double(r.Q[0]), 0.6, 2 * eps<T>());
        EXPECT_NEAR(double(r.Q[1]), -0.8, 2 * eps<T>());
        // a single row: Q = sign, R = the row times it
        r = run_qr<T>(1, 3, {T(-2), T(5), T(0.5)}, reorth);
        EXPECT_EQ(r.info, 0);
        EXPECT_EQ(r.Q[0], T(-1));
        EXPECT_EQ(r.R[0], T(2));
        EXPECT_EQ(r.R[1], T(-5));
        EXPECT_EQ(r.R[2], T(-0.5));
    }
}

TYPED_TEST(TeamQrTest, NearOverflowAndUnderflow) {
    using T = TypeParam;
    Rng rng(36);
    for (int which = 0; which < 4; ++which)
        for (const Shape &s :
             {Shape{17, 11}, Shape{11, 17}, Shape{16, 16}, Shape{1, 5}, Shape{5, 1}}) {
            SCOPED_TRACE(testing::Message() << which << ": " << s.m << " x " << s.n);
            std::vector<T> A = prescribed_sv<T>(rng, s.m, s.n, SigmaMode::Geometric, 1e3);
            // near overflow, near underflow, the largest entry at the overflow threshold / 64
            // (sums of squares would overflow many times over without the scaling), and the
            // largest at the smallest normal number (most entries subnormal).
            const T target = which == 0   ? near_overflow_max<T>()
                             : which == 1 ? near_underflow_max<T>()
                             : which == 2 ? std::numeric_limits<T>::max() / 64
                                          : std::numeric_limits<T>::min();
            scale_max_abs(s.m, s.n, A.data(), s.m, target);
            ASSERT_FALSE(has_nonfinite(s.m, s.n, A.data(), s.m));
            if (which < 2) {
                check_both<T>(s.m, s.n, A, 0);
                continue;
            }
            for (bool reorth : {false, true}) {
                const Run<T> r = run_qr(s.m, s.n, A, reorth);
                const int64_t k = std::min(s.m, s.n);
                EXPECT_FALSE(has_nonfinite(k, s.n, r.R.data(), k));
                EXPECT_LT(orthogonality(s.m, k, r.Q.data(), s.m),
                          kQrThreshold * (reorth ? 1 : 1e3));
                // The norms in the residual overflow/lose accuracy at these scales: compare
                // copies brought back to 1 by the same power of two.
                const int e = std::ilogb(double(target));
                std::vector<T> As = A, Rs = r.R;
                for (T &v : As) v = std::ldexp(v, -e);
                for (T &v : Rs) v = std::ldexp(v, -e);
                // Subnormal inputs (which 3) scale up exactly; R scaled back into the subnormal
                // range rounds to its grid, spacing 2 ulp of the smallest normal: O(eps |A|).
                EXPECT_LT(qr_residual(s.m, s.n, As.data(), s.m, r.Q.data(), s.m, Rs.data(), k),
                          kQrThreshold);
                EXPECT_EQ(r.info, 0);
            }
        }
}

TYPED_TEST(TeamQrTest, NonFiniteInputGivesNaNAndInfo) {
    using T = TypeParam;
    Rng rng(37);
    for (const Shape &s : {Shape{9, 6}, Shape{6, 9}, Shape{1, 1}, Shape{32, 32}})
        for (T bad :
             {nan_v<T>(), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity()})
            for (bool reorth : {false, true})
                for (bool in_place : {false, true}) {
                    SCOPED_TRACE(testing::Message()
                                 << s.m << " x " << s.n << " with " << bad
                                 << (reorth ? " MGS2" : " MGS") << (in_place ? " in place" : ""));
                    std::vector<T> A = gaussian<T>(rng, s.m, s.n);
                    A[sz((s.m * s.n) / 2)] = bad;
                    Config cfg;
                    cfg.in_place = in_place;
                    const Run<T> r = run_qr(s.m, s.n, A, reorth, cfg);
                    EXPECT_EQ(r.info, GPUSVD_INFO_NONFINITE);
                    const int64_t k = std::min(s.m, s.n);
                    EXPECT_TRUE(all_nan(s.m, k, r.Q.data(), s.m)) << "Q is NaN";
                    EXPECT_TRUE(all_nan(k, s.n, r.R.data(), k)) << "R is NaN";
                }
}

TYPED_TEST(TeamQrTest, MgsLosesOrthogonalityLikeCond) {
    // The MGS bound is real: single-pass orthogonality degrades with cond(A), MGS2 does not.
    using T = TypeParam;
    Rng rng(38);
    const double cond = std::is_same<T, float>::value ? 1e5 : 1e12;
    const std::vector<T> A = prescribed_sv<T>(rng, 40, 20, SigmaMode::Geometric, cond);
    const Run<T> r1 = run_qr(40, 20, A, false), r2 = run_qr(40, 20, A, true);
    const double o1 = orthogonality(40, 20, r1.Q.data(), 40),
                 o2 = orthogonality(40, 20, r2.Q.data(), 40);
    EXPECT_GT(o1, 100.0) << "MGS without reorthogonalisation loses orthogonality";
    EXPECT_LT(o1, kQrThreshold * cond);
    EXPECT_LT(o2, kQrThreshold);
}

TYPED_TEST(TeamQrTest, ScaleExponentsKeepSumsOfSquaresFinite) {
    using T = TypeParam;
    for (T amax : {std::numeric_limits<T>::max(), T(1), std::numeric_limits<T>::denorm_min(),
                   std::numeric_limits<T>::min()}) {
        int e1, e2;
        gk::qr_scale_exponents<T>(100, 30, amax, e1, e2);
        const T scaled = amax * gk::Real<T>::ldexp(T(1), e1) * gk::Real<T>::ldexp(T(1), e2);
        EXPECT_TRUE(std::isfinite(scaled));
        const long double frob2 = 100.0L * 30.0L * (long double)scaled * scaled;
        EXPECT_LT(frob2, (long double)std::numeric_limits<T>::max() / 2);
        EXPECT_GT(frob2, (long double)std::numeric_limits<T>::max() / 64 / 3000);
    }
    int e1 = 7, e2 = 7;
    gk::qr_scale_exponents<T>(5, 5, T(0), e1, e2);
    EXPECT_EQ(e1 + e2, 0) << "a zero matrix is not scaled";
}

// ------------------------------------------------------------------------------------------------
// The kernels' configurations (plan.hpp) on thread teams
// ------------------------------------------------------------------------------------------------

template <typename T>
gg::GeqrfBatchedPlan plan(int64_t m, int64_t n, int64_t batch = 1000, int limit = 1024) {
    return gg::geqrf_batched_plan(sizeof(T), m, n, batch, kH200SmemOptin, kH200SmemSM, 256, limit,
                                  limit);
}

TYPED_TEST(TeamQrTest, PlanPicksTheDocumentedPaths) {
    using T = TypeParam;
    const bool dbl = sizeof(T) == 8;
    EXPECT_EQ(plan<T>(16, 16).path, gg::GeqrfBatchedPlan::kWarpReg);
    EXPECT_EQ(plan<T>(32, 32).path, gg::GeqrfBatchedPlan::kWarpReg);
    EXPECT_EQ(plan<T>(32, 32).threads, 32 * plan<T>(32, 32).mats_per_block);
    EXPECT_EQ(plan<T>(32, 32).reg_rows, 32);
    EXPECT_EQ(plan<T>(17, 5).reg_rows, 32);
    EXPECT_EQ(plan<T>(16, 30).reg_rows, 16);
    EXPECT_EQ(plan<T>(9, 1).reg_rows, 16);
    EXPECT_EQ(plan<T>(8, 32).reg_rows, 8);
    EXPECT_EQ(plan<T>(1, 1).reg_rows, 8);
    EXPECT_EQ(plan<T>(32, 33).path, gg::GeqrfBatchedPlan::kBlock);
    EXPECT_EQ(plan<T>(33, 32).path, gg::GeqrfBatchedPlan::kWarp);
    // The shared-memory warp path on request (comparisons).
    const auto nowr = [](int64_t m, int64_t n) {
        return gg::geqrf_batched_plan(sizeof(T), m, n, 1000, kH200SmemOptin, kH200SmemSM, 256, 1024,
                                      1024, false);
    };
    EXPECT_EQ(nowr(32, 32).path, gg::GeqrfBatchedPlan::kWarp);
    EXPECT_EQ(nowr(16, 16).path, gg::GeqrfBatchedPlan::kWarp);
    for (int64_t s : {4, 16, 32}) {  // small matrices fill an SM with warps (64 at most)
        const gg::GeqrfBatchedPlan p = nowr(s, s);
        const int64_t blocks =
            std::min<int64_t>(32, int64_t(kH200SmemSM / (p.smem_bytes + gg::kQrReservedSmem)));
        // at least as many as one matrix per block would give
        const int64_t single =
            std::min<int64_t>(32, int64_t(kH200SmemSM / (p.matrix_bytes + gg::kQrReservedSmem)));
        EXPECT_GE(blocks * p.mats_per_block, single) << s;
        EXPECT_GE(blocks * p.mats_per_block, 12) << s;
    }
    EXPECT_EQ(plan<T>(1, 1).path, gg::GeqrfBatchedPlan::kWarpReg);
    EXPECT_EQ(plan<T>(1000, 8).path, gg::GeqrfBatchedPlan::kWarp);
    EXPECT_EQ(plan<T>(33, 33).path, gg::GeqrfBatchedPlan::kBlock);
    EXPECT_EQ(plan<T>(33, 33).threads, 64);
    EXPECT_EQ(plan<T>(64, 64).path, gg::GeqrfBatchedPlan::kBlock);
    EXPECT_EQ(plan<T>(64, 64).threads, 64);
    EXPECT_EQ(plan<T>(100, 100).path, gg::GeqrfBatchedPlan::kBlock);
    EXPECT_EQ(plan<T>(100, 100).threads, 128);
    EXPECT_EQ(plan<T>(20, 100).threads, 128) << "members own columns: threads follow n";
    EXPECT_EQ(plan<T>(dbl ? 120 : 170, dbl ? 120 : 170).path, gg::GeqrfBatchedPlan::kGlobal);
    EXPECT_EQ(plan<T>(200, 200).path, gg::GeqrfBatchedPlan::kGlobal);
    EXPECT_EQ(plan<T>(200, 200).threads, 224);
    EXPECT_EQ(plan<T>(100000, 32, 1).path, gg::GeqrfBatchedPlan::kGlobal);
    EXPECT_EQ(plan<T>(100000, 32, 1).threads, 32);
    EXPECT_EQ(plan<T>(100, 5000, 3).threads, 1024);
    EXPECT_EQ(plan<T>(100, 5000, 3, 768).threads, 768) << "the kernel's own limit";
    EXPECT_EQ(plan<T>(100, 5000, 3, 700).threads, 672);
    EXPECT_EQ(plan<T>(0, 5).path, gg::GeqrfBatchedPlan::kNothing);
    EXPECT_EQ(plan<T>(5, 0).path, gg::GeqrfBatchedPlan::kNothing);
    EXPECT_EQ(plan<T>(5, 5, 0).path, gg::GeqrfBatchedPlan::kNothing);
    EXPECT_EQ(plan<T>(64, 64).ws_bytes, 0u);
    EXPECT_GT(plan<T>(200, 200).ws_bytes, 0u);
    // A tiny workspace: only the vectors, one slot per block, bounded blocks.
    const gg::GeqrfBatchedPlan big = plan<T>(300, 300, 1000000);
    EXPECT_EQ(big.grid, gg::kQrGlobalMaxBlocks);
    EXPECT_EQ(big.ws_bytes, big.matrix_bytes * size_t(big.grid));
    EXPECT_GE(big.matrix_bytes, size_t(4 * 300) * sizeof(T));
    EXPECT_LE(big.matrix_bytes, size_t(4 * 300) * sizeof(T) + 256);
    // A huge single matrix still has a plan (no size limit).
    const gg::GeqrfBatchedPlan huge = plan<T>(int64_t(1) << 20, int64_t(1) << 16, 1);
    EXPECT_EQ(huge.path, gg::GeqrfBatchedPlan::kGlobal);
    EXPECT_EQ(huge.grid, 1);
    // Batches beyond the grid limit loop inside the kernels.
    EXPECT_EQ(plan<T>(4, 4, int64_t(1) << 40).grid, gg::kQrMaxGrid);
    for (int64_t m : {1, 2, 3, 8, 15, 16, 17, 31, 32, 33, 63, 64, 100, 127, 128, 300, 5000})
        for (int64_t n : {1, 2, 3, 8, 15, 16, 17, 31, 32, 33, 63, 64, 100, 127, 128, 300}) {
            SCOPED_TRACE(testing::Message() << m << " x " << n);
            const gg::GeqrfBatchedPlan p = plan<T>(m, n, 3);
            ASSERT_NE(p.path, gg::GeqrfBatchedPlan::kNothing);
            EXPECT_EQ(p.threads % 32, 0);
            EXPECT_GE(p.threads, 32);
            EXPECT_LE(p.threads, 1024);
            EXPECT_GE(p.grid, 1);
            EXPECT_EQ(p.shape.m, m);
            EXPECT_EQ(p.shape.n, n);
            if (p.path == gg::GeqrfBatchedPlan::kWarpReg) {
                EXPECT_LE(m, 32);
                EXPECT_LE(n, 32);
                EXPECT_GE(p.reg_rows, m);
                EXPECT_EQ(p.threads, 32 * gg::kQrRegWarps);
                EXPECT_EQ(p.mats_per_block, gg::kQrRegWarps);
                EXPECT_EQ(p.smem_bytes, 0u) << "static shared memory";
                EXPECT_EQ(p.ws_bytes, 0u);
                // The rare kernel's in-place vectors fit in its per-warp array.
                EXPECT_LE(gk::qr_shape(m, n, true).elems, int64_t(gg::kQrRareElems));
                EXPECT_LE(p.matrix_bytes * size_t(p.mats_per_block), size_t(48 * 1024));
                continue;
            }
            EXPECT_GE(p.matrix_bytes, size_t(p.shape.elems) * sizeof(T));
            if (p.path == gg::GeqrfBatchedPlan::kWarp) {
                EXPECT_LE(n, 32);
                EXPECT_EQ(p.threads, 32 * p.mats_per_block);
                EXPECT_LE(p.threads, 256) << "the warp kernel's launch bound";
            } else {
                EXPECT_GE(p.threads, std::min<int64_t>((n + 31) / 32 * 32, 1024));
                EXPECT_LT(p.threads, n + 32) << "no more than a warp of idle members";
            }
            if (p.path == gg::GeqrfBatchedPlan::kGlobal) {
                EXPECT_TRUE(p.shape.in_place);
                EXPECT_EQ(p.smem_bytes, 0u);
                EXPECT_GE(p.ws_bytes, p.matrix_bytes * size_t(p.grid));
            } else {
                EXPECT_FALSE(p.shape.in_place);
                EXPECT_EQ(p.ws_bytes, 0u);
                EXPECT_EQ(p.shape.ld % 2, 1) << "odd leading dimensions (banks)";
                EXPECT_EQ(p.shape.ldr % 2, 1);
                EXPECT_GE(p.shape.ld, m);
                EXPECT_GE(p.shape.ldr, std::min(m, n));
                EXPECT_EQ(p.smem_bytes, p.matrix_bytes * size_t(p.mats_per_block));
                EXPECT_LE(p.smem_bytes +
                              (p.path == gg::GeqrfBatchedPlan::kBlock ? gg::kQrScratchBytes : 0),
                          kH200SmemOptin);
            }
        }
}

/// The plan's configuration for a shape, run on threads (one matrix: the warp path's team is the
/// 32 lanes of one warp), in both modes.
template <typename T>
void check_planned(int64_t m, int64_t n, const std::vector<T> &A, int expect_info = 0) {
    const gg::GeqrfBatchedPlan p = plan<T>(m, n, 1);
    Config cfg;
    const bool reg = p.path == gg::GeqrfBatchedPlan::kWarpReg;  // rare matrices: a warp in place
    cfg.members = p.path == gg::GeqrfBatchedPlan::kWarp || reg ? 32 : p.threads;
    cfg.in_place = p.shape.in_place || reg;
    for (bool reorth : {false, true}) {
        SCOPED_TRACE(testing::Message()
                     << m << " x " << n << ": " << cfg.members << " threads"
                     << (cfg.in_place ? " in place" : "") << (reorth ? " MGS2" : " MGS"));
        const Run<T> r = run_qr(m, n, A, reorth, cfg);
        expect_qr(m, n, A, r, reorth, expect_info);
        // Members split the work, nothing else: the serial run gives the same bits.
        Config serial;
        serial.in_place = cfg.in_place;
        const Run<T> s = run_qr(m, n, A, reorth, serial);
        EXPECT_TRUE(same_bits(r.Q, s.Q)) << "Q differs from SerialTeam's";
        EXPECT_TRUE(same_bits(r.R, s.R)) << "R differs from SerialTeam's";
        EXPECT_EQ(r.info, s.info);
    }
}

TYPED_TEST(TeamQrTest, ThreadTeamsInPlannedConfigurations) {
    using T = TypeParam;
    Rng rng(39);
    for (const Shape &s : {Shape{16, 16}, Shape{32, 32}, Shape{8, 8}, Shape{5, 3}, Shape{3, 5},
                           Shape{17, 11}, Shape{11, 17}, Shape{70, 7}, Shape{1, 1}, Shape{2, 2},
                           Shape{1, 4}, Shape{40, 40}, Shape{33, 64}, Shape{100, 70}})
        check_planned<T>(s.m, s.n, gaussian<T>(rng, s.m, s.n));
    // Hard cases through the concurrent phases: ill-conditioned, graded, rank deficient with a
    // zero column and a duplicate (completions), zero.
    check_planned<T>(32, 32,
                     prescribed_sv<T>(rng, 32, 32, SigmaMode::Geometric,
                                      std::is_same<T, float>::value ? 1e5 : 1e10));
    std::vector<T> G(16 * 16);
    graded(rng, 16, 16, G.data(), 16, 1.0, 1e-10);
    check_planned<T>(16, 16, G);
    std::vector<T> D = gaussian<T>(rng, 32, 32);
    for (int64_t i = 0; i < 32; ++i) {
        D[sz(i + 4 * 32)] = T(0);
        D[sz(i + 9 * 32)] = D[sz(i + 2 * 32)];
    }
    check_planned<T>(32, 32, D, 5);
    std::vector<T> D2 = gaussian<T>(rng, 50, 45);
    for (int64_t i = 0; i < 50; ++i) D2[sz(i + 40 * 50)] = D2[sz(i + 3 * 50)];
    check_planned<T>(50, 45, D2, 41);
    check_planned<T>(9, 9, std::vector<T>(81, T(0)), 1);
    check_planned<T>(6, 40, std::vector<T>(240, T(0)), 1);
}

TYPED_TEST(TeamQrTest, ThreadTeamsLikeTheGlobalKernel) {
    // In place with more columns than members (members own several columns) and with more
    // members than columns: the global kernel's team, shrunk to what host threads manage.
    using T = TypeParam;
    Rng rng(40);
    const std::pair<Shape, int> cases[] = {{Shape{200, 130}, 64},
                                           {Shape{130, 200}, 96},
                                           {Shape{40, 9}, 32},
                                           {Shape{9, 40}, 64},
                                           {Shape{300, 33}, 64}};
    for (const auto &c : cases) {
        const Shape s = c.first;
        Config cfg;
        cfg.members = c.second;
        cfg.in_place = true;
        const std::vector<T> A = gaussian<T>(rng, s.m, s.n);
        for (bool reorth : {false, true}) {
            SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " on " << cfg.members
                                            << (reorth ? " MGS2" : " MGS"));
            expect_qr(s.m, s.n, A, run_qr(s.m, s.n, A, reorth, cfg), reorth, 0);
        }
    }
    // The planned global configuration of a shape too big for shared memory.
    const int64_t m = 400, n = 200;
    ASSERT_EQ(plan<T>(m, n, 1).path, gg::GeqrfBatchedPlan::kGlobal);
    check_planned<T>(m, n, prescribed_sv<T>(rng, m, n, SigmaMode::LogUniform, 1e4));
}

}  // namespace

// Integer matrices of exact rank 3 (entries in -3..3): every column past the third leaves a
// rounding-level residual at the dependence threshold, some just above it. MGS2 must still give
// an orthonormal Q on every one of many such matrices (found on the GPU's large batch test: a
// float 32x32 at ratio 35 before the second pass's reprojection).
TYPED_TEST(TeamQrTest, ManyIntegerRank3StayOrthonormal) {
    using T = TypeParam;
    Rng rng(77);
    const int64_t m = 32, n = 32;
    for (int trial = 0; trial < 3000; ++trial) {
        const std::vector<T> A = integer_rank3<T>(rng, m, n);
        const Run<T> r = run_qr(m, n, A, true);
        ASSERT_LT(orthogonality(m, n, r.Q.data(), m), kQrThreshold) << "trial " << trial;
        ASSERT_LT(qr_residual(m, n, A.data(), m, r.Q.data(), m, r.R.data(), n), kQrThreshold)
            << "trial " << trial;
        ASSERT_GT(r.info, 0) << "trial " << trial;
    }
}
