// The one-sided Jacobi SVD of the GPU kernels (src/kernels/jacobi_*.hpp) run on the host: with
// SerialTeam (the code a warp or block runs, one member) on the generator's matrices against
// LAPACK and DESIGN.md's ratios, and with ThreadTeam (std::threads as team members, real
// barriers) in the lanes/threads configurations cuda/gesvj/plan.hpp gives the kernels, so the
// concurrent pair rounds, the register cache and the work split are exercised without a GPU.
#include <algorithm>
#include <random>
#include <set>
#include <utility>

#include "gesvj/plan.hpp"
#include "kernels/jacobi_team.hpp"
#include "test_common.hpp"
#include "thread_team.hpp"
#include "worst_ratios.hpp"

using namespace gpusvd_test;
namespace gk = gpusvd::kernels;
namespace gg = gpusvd::gpu;

namespace {

constexpr double kSvdThreshold = 50.0;  // DESIGN.md: SVD ratios < 50
constexpr size_t kH200SmemOptin = 232448;  // 227 KiB

/// The default tolerance the dispatch resolves: sqrt(max(m,n)) * unit roundoff.
template <typename T>
double default_tol(int64_t m, int64_t n) {
    return std::sqrt(double(std::max(m, n))) * double(gk::Real<T>::eps());
}

/// How the team runs: members == 0 is SerialTeam with int64_t indices; otherwise ThreadTeam
/// with `members` threads in pair teams of `lanes` and int indices (the shared-memory kernels').
struct Config {
    int members = 0, lanes = 1;
    int64_t align = 1;  // jacobi_shape's padding of V's offset and ld
    const gk::JacobiShape *shape = nullptr;  // the plan's layout in place of jacobi_shape's
};

template <typename T>
struct Run {
    std::vector<T> S, U, V;  // U: m x k (ld m), V: n x k (ld n); empty when not wanted
    gk::JacobiResult<T> res{};
};

/// Runs jacobi_svd on A0 (m x n, ld m) with padded leading dimensions, checks that nothing
/// outside the outputs is written and that every member returns the same result. Slots:
/// gk::FixedSlots needs cfg.shape (a fixed plan's, whose padding rows this zeroes as the kernel).
template <typename T, int CAP = 0, class Slots = gk::RuntimeSlots>
Run<T> run_jacobi(int64_t m, int64_t n, const std::vector<T> &A0, bool wantu, bool wantv,
                  const Config &cfg = {}, double tol = -1, int max_sweeps = 30) {
    if (tol < 0) tol = default_tol<T>(m, n);
    const int64_t k = std::min(m, n);
    const int64_t lda = m + 2, ldu = m + 1, ldv = n + 3;
    const T pad = sentinel<T>();
    const std::vector<T> A = with_ld(m, n, A0.data(), m, lda, pad);
    std::vector<T> S = sentinels<T>(sz(k + 2)), U = sentinels<T>(sz(ldu * k + 1)),
                   V = sentinels<T>(sz(ldv * k + 1));
    const gk::JacobiShape shape =
        cfg.shape ? *cfg.shape : gk::jacobi_shape(m, n, wantu, wantv, cfg.align);
    // NaN everywhere: a read of storage the algorithm did not write first poisons the result.
    // Only the padding rows of every column are zero (FixedSlots reads them).
    std::vector<T> ws(sz(shape.elems + shape.cols), nan_v<T>());
    for (int64_t j = 0; j < shape.cols; ++j) {
        for (int64_t i = shape.rows; i < shape.voff; ++i) ws[sz(i + j * shape.ld)] = T(0);
        for (int64_t i = shape.voff + shape.vrows; i < shape.ld; ++i)
            ws[sz(i + j * shape.ld)] = T(0);
    }
    const gk::JacobiIO<T> io{m, n, A.data(), lda, S.data(), wantu ? U.data() : nullptr, ldu,
                             wantv ? V.data() : nullptr, ldv};
    Run<T> r;
    if (cfg.members == 0) {
        r.res = gk::jacobi_svd<T, int64_t, CAP>(gk::SerialTeam{}, gk::SerialTeam{}, io,
                                                gk::jacobi_work<T, int64_t>(shape, ws.data()),
                                                T(tol), max_sweeps);
    } else {
        std::vector<gk::JacobiResult<T>> all(sz(cfg.members));
        run_thread_team(
            cfg.members, cfg.lanes, [&](const ThreadTeam &t, const ThreadTeam &pt, int rank) {
                all[sz(rank)] = gk::jacobi_svd<T, int, CAP, Slots>(
                    t, pt, io, gk::jacobi_work<T, int>(shape, ws.data()), T(tol), max_sweeps);
            });
        for (int i = 1; i < cfg.members; ++i) {
            EXPECT_EQ(all[sz(i)].info, all[0].info) << "member " << i;
            EXPECT_EQ(all[sz(i)].sweeps, all[0].sweeps) << "member " << i;
            EXPECT_TRUE(same_bits(std::vector<T>{all[sz(i)].off}, std::vector<T>{all[0].off}));
        }
        r.res = all[0];
    }
    EXPECT_TRUE(same_bits(A, with_ld(m, n, A0.data(), m, lda, pad))) << "A is only read";
    EXPECT_EQ(S[sz(k)], pad) << "S written past k";
    EXPECT_EQ(S[sz(k + 1)], pad) << "S written past k";
    EXPECT_EQ(U.back(), pad) << "U written past its end";
    EXPECT_EQ(V.back(), pad) << "V written past its end";
    r.S.assign(S.begin(), S.begin() + k);
    if (wantu) {
        EXPECT_TRUE(padding_intact(m, k, U.data(), ldu, pad)) << "U written outside m x k";
        r.U = with_ld(m, k, U.data(), ldu, m, T(0));
    } else {
        EXPECT_TRUE(all_equal(U, pad)) << "U referenced without jobu";
    }
    if (wantv) {
        EXPECT_TRUE(padding_intact(n, k, V.data(), ldv, pad)) << "V written outside n x k";
        r.V = with_ld(n, k, V.data(), ldv, n, T(0));
    } else {
        EXPECT_TRUE(all_equal(V, pad)) << "V referenced without jobv";
    }
    return r;
}

const auto *const kPrintWorst = print_worst_at_end<SvdWorst>();

/// EXPECTs DESIGN.md's SVD ratios of a run (info 0, S >= 0 descending, close to LAPACK's,
/// orthonormal U and V, small residual, converged off-norm below tol).
template <typename T>
void expect_svd(int64_t m, int64_t n, const std::vector<T> &A0, const Run<T> &r,
                double tol = -1) {
    if (tol < 0) tol = default_tol<T>(m, n);
    const int64_t k = std::min(m, n);
    EXPECT_EQ(r.res.info, 0);
    EXPECT_GE(r.res.sweeps, 1);
    EXPECT_LE(double(r.res.off), tol) << "converged: every |cos| of the last sweep <= tol";
    EXPECT_TRUE(is_sorted_desc_nonneg(k, r.S.data())) << "S non-negative and descending";
    const std::vector<T> Sref = ref_singular_values(m, n, A0.data(), m);
    SvdWorst &w = worst<SvdWorst, T>();
    ++w.checked;
    const double sv = sv_compare(k, r.S.data(), Sref.data());
    EXPECT_LT(sv, kSvdThreshold) << "|S - S_lapack| / (|S| eps)";
    w.sv = std::max(w.sv, sv);
    if (!r.U.empty()) {
        const double o = orthogonality(m, k, r.U.data(), m);
        EXPECT_LT(o, kSvdThreshold) << "|I - U^T U| / (m eps)";
        w.orth_u = std::max(w.orth_u, o);
    }
    if (!r.V.empty()) {
        const double o = orthogonality(n, k, r.V.data(), n);
        EXPECT_LT(o, kSvdThreshold) << "|I - V^T V| / (n eps)";
        w.orth_v = std::max(w.orth_v, o);
    }
    if (!r.U.empty() && !r.V.empty()) {
        const double res = svd_residual(m, n, A0.data(), m, r.S.data(), r.U.data(), m,
                                        r.V.data(), n);
        EXPECT_LT(res, kSvdThreshold) << "|A - U S V^T| / (|A| max(m,n) eps)";
        w.resid = std::max(w.resid, res);
    }
    if (verbose())
        std::printf("  %lld x %lld: sweeps %d off %.3g sv %.3g\n", (long long)m, (long long)n,
                    r.res.sweeps, double(r.res.off), sv);
}

/// All four job combinations: the vectors-and-values run checked in full, the others give the
/// same S (the rotations do not depend on what is accumulated) and their own vectors.
template <typename T, int CAP = 0>
std::vector<T> check_all_jobs(int64_t m, int64_t n, const std::vector<T> &A0,
                              const Config &cfg = {}) {
    const Run<T> full = run_jacobi<T, CAP>(m, n, A0, true, true, cfg);
    expect_svd(m, n, A0, full);
    for (int job = 0; job < 3; ++job) {
        const bool wu = job & 1, wv = job & 2;
        SCOPED_TRACE(testing::Message() << "jobu=" << wu << " jobv=" << wv);
        const Run<T> r = run_jacobi<T, CAP>(m, n, A0, wu, wv, cfg);
        EXPECT_EQ(r.res.info, 0);
        EXPECT_LT(sv_compare(std::min(m, n), r.S.data(), full.S.data()), kSvdThreshold);
        const int64_t k = std::min(m, n);
        if (wu) {
            EXPECT_LT(orthogonality(m, k, r.U.data(), m), kSvdThreshold);
        }
        if (wv) {
            EXPECT_LT(orthogonality(n, k, r.V.data(), n), kSvdThreshold);
        }
    }
    return full.S;
}

struct Shape {
    int64_t m, n;
};

const Shape kShapes[] = {{1, 1},   {1, 9},   {9, 1},   {2, 2},   {3, 2},   {2, 3},   {16, 16},
                         {32, 32}, {17, 11}, {11, 17}, {33, 31}, {31, 33}, {200, 13}, {13, 200},
                         {64, 64}, {7, 7}};

template <typename T>
class TeamJacobiTest : public ::testing::Test {};
TYPED_TEST_SUITE(TeamJacobiTest, Precisions, PrecisionName);

// ------------------------------------------------------------------------------------------------
// Building blocks
// ------------------------------------------------------------------------------------------------

TEST(TeamJacobiOrdering, RoundRobinMeetsEveryPairOncePerSweep) {
    for (int cols = 1; cols <= 41; ++cols) {
        SCOPED_TRACE(testing::Message() << "cols = " << cols);
        const int N = cols + (cols & 1);
        std::set<std::pair<int, int>> met;
        for (int round = 0; round < N - 1; ++round) {
            std::vector<int> seen(sz(N), 0);
            for (int k = 0; k < N / 2; ++k) {
                int p = -1, q = -1;
                const bool real = gk::round_robin_pair(k, round, cols, p, q);
                ASSERT_LT(p, q);
                ASSERT_GE(p, 0);
                ASSERT_LT(q, N);
                EXPECT_EQ(real, q < cols);
                ++seen[sz(p)];
                ++seen[sz(q)];
                if (real) {
                    EXPECT_TRUE(met.insert({p, q}).second) << p << "," << q << " twice";
                }
            }
            for (int c = 0; c < N; ++c) EXPECT_EQ(seen[sz(c)], 1) << "round " << round;
        }
        EXPECT_EQ(met.size(), sz(cols * (cols - 1) / 2));
    }
}

TYPED_TEST(TeamJacobiTest, RotationEdgeCases) {
    using T = TypeParam;
    T s, tau;
    auto cosine = [&] { return 1.0 - double(s) * double(tau); };  // c = 1 - s tau
    gk::jacobi_rotation(T(2), T(2), T(1), s, tau);  // alpha == beta: t = 1
    EXPECT_NEAR(double(s), std::sqrt(0.5), 2 * eps<T>());
    EXPECT_NEAR(cosine(), std::sqrt(0.5), 4 * eps<T>());
    gk::jacobi_rotation(T(2), T(2), T(-1), s, tau);  // zeta = -0 still gives t = +1
    EXPECT_NEAR(double(s), std::sqrt(0.5), 2 * eps<T>());
    gk::jacobi_rotation(T(1), T(3), T(0), s, tau);  // gamma == 0: identity, no division by it
    EXPECT_EQ(s, T(0));
    EXPECT_EQ(tau, T(0));
    // Large zeta (zeta^2 beyond overflow): t = 1/(2 zeta) = g / (b - a), finite, tau = t / 2.
    const T huge = std::is_same<T, float>::value ? T(1e30) : T(1e300);
    gk::jacobi_rotation(T(1), huge, T(1e-3), s, tau);
    EXPECT_TRUE(std::isfinite(s) && std::isfinite(tau));
    EXPECT_NEAR(double(s), 1e-3 / double(huge), 1e-3 / double(huge) * 4 * eps<T>());
    EXPECT_NEAR(double(tau), 0.5e-3 / double(huge), 0.5e-3 / double(huge) * 4 * eps<T>());
    // The rotation orthogonalises and is orthogonal, in both branches.
    for (double g : {0.3, -0.7, 1e-9}) {
        const double a = 1.0, b = 1.5;
        gk::jacobi_rotation(T(a), T(b), T(g), s, tau);
        const double c = cosine(), sd = s;
        const double off = c * sd * (a - b) + (c * c - sd * sd) * g;
        EXPECT_LT(std::fabs(off), 8 * eps<T>() * std::max(std::fabs(g), eps<T>())) << "g=" << g;
        EXPECT_NEAR(c * c + sd * sd, 1.0, 4 * eps<T>());
    }
}

TYPED_TEST(TeamJacobiTest, RotationUnderflowTruncatesAndInvPow2Range) {
    using T = TypeParam;
    using L = std::numeric_limits<T>;
    // g / (b - a) below the normal range: s is truncated (never rounded up past it, which made
    // g change sign and pairs flip every sweep), tau = s / 2, and it vanishes below denorm_min.
    const T b = T(1), g = L::min() * T(0.3) + L::denorm_min() * T(0.75);
    T s, tau;
    gk::jacobi_rotation(T(0), b, g, s, tau);
    EXPECT_GT(s, T(0));
    EXPECT_LE(s, g);
    EXPECT_GT(s, g - L::denorm_min());
    EXPECT_EQ(tau, s * T(0.5));
    gk::jacobi_rotation(T(0), T(4), L::denorm_min() * T(3), s, tau);  // g / d = 0.75 denorm_min
    EXPECT_EQ(s, T(0));  // rounding to nearest would give denorm_min
    gk::jacobi_rotation(T(0), b, -g, s, tau);
    EXPECT_LT(s, T(0));
    // inv_pow2: x 2^-e in [1, 2) over the normal range, < 2 for subnormals, < 4 at the top.
    for (T x : {T(1), T(1.5), T(3), T(0.75), L::min(), L::max(), L::max() / T(3), L::denorm_min(),
                L::min() / T(3), L::epsilon()}) {
        const T p = gk::Real<T>::inv_pow2(x), v = x * p;
        EXPECT_GT(v, T(0)) << x;
        EXPECT_LT(v, x >= std::ldexp(T(1), L::max_exponent - 2) ? T(4) : T(2)) << x;
        if (x >= L::min() && x < std::ldexp(T(1), L::max_exponent - 2)) {
            EXPECT_GE(v, T(1)) << x;
        }
        int e = 0;
        EXPECT_EQ(std::frexp(p, &e), T(0.5)) << "a power of two";
    }
}

TYPED_TEST(TeamJacobiTest, ScalingKeepsSumsOfSquaresFinite) {
    using T = TypeParam;
    // Largest entries at the overflow threshold's edge and at the subnormal range: the power of
    // two brings max |a_ij| below 2^tex with rows * cols * 2^(2 tex) <= 2^(max_exp - 2).
    const gk::JacobiShape s = gk::jacobi_shape(100, 30, true, true, 1);
    std::vector<T> ws(sz(s.elems + s.cols));
    const auto w = gk::jacobi_work<T, int64_t>(s, ws.data());
    for (T amax : {std::numeric_limits<T>::max(), T(1), std::numeric_limits<T>::denorm_min(),
                   std::numeric_limits<T>::min()}) {
        int e1, e2;
        gk::jacobi_scale_exponents(w, amax, e1, e2);
        const T scaled = amax * gk::Real<T>::ldexp(T(1), e1) * gk::Real<T>::ldexp(T(1), e2);
        EXPECT_TRUE(std::isfinite(scaled));
        const long double frob2 = 100.0L * 30.0L * (long double)scaled * scaled;
        EXPECT_LT(frob2, (long double)std::numeric_limits<T>::max() / 2);
        EXPECT_GT(frob2, (long double)std::numeric_limits<T>::max() / 64 / 3000);
    }
}

// ------------------------------------------------------------------------------------------------
// Accuracy (SerialTeam)
// ------------------------------------------------------------------------------------------------

TYPED_TEST(TeamJacobiTest, RandomShapesAllJobs) {
    using T = TypeParam;
    Rng rng(101);
    for (const Shape &s : kShapes) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        check_all_jobs<T>(s.m, s.n, gaussian<T>(rng, s.m, s.n));
    }
}

TYPED_TEST(TeamJacobiTest, AllSmallShapes) {
    using T = TypeParam;
    Rng rng(102);
    for (int64_t m = 1; m <= 9; ++m)
        for (int64_t n = 1; n <= 9; ++n) {
            SCOPED_TRACE(testing::Message() << m << " x " << n);
            const std::vector<T> A = gaussian<T>(rng, m, n);
            expect_svd(m, n, A, run_jacobi<T>(m, n, A, true, true));
        }
}

TYPED_TEST(TeamJacobiTest, PrescribedSpectra) {
    using T = TypeParam;
    Rng rng(202);
    const Shape shapes[] = {{17, 11}, {11, 17}, {24, 24}, {16, 16}, {32, 32}};
    for (SigmaMode mode : all_sigma_modes())
        for (double cond : {1e2, 1e6, 1e12})
            for (const Shape &s : shapes) {
                SCOPED_TRACE(testing::Message() << sigma_mode_name(mode) << " cond=" << cond << " "
                                                << s.m << " x " << s.n);
                const std::vector<T> A = prescribed_sv<T>(rng, s.m, s.n, mode, cond);
                expect_svd(s.m, s.n, A, run_jacobi<T>(s.m, s.n, A, true, true));
            }
}

TYPED_TEST(TeamJacobiTest, ColumnGradedHighRelativeAccuracy) {
    // A = B D, D = diag(1 .. 1e-10), B well conditioned: every singular value, the ~1e-10 ones
    // included, to relative accuracy O(eps cond(B)) (Demmel & Veselic), against a long double
    // one-sided Jacobi.
    using T = TypeParam;
    Rng rng(303);
    const Shape shapes[] = {{12, 8}, {30, 10}, {8, 12}, {16, 16}, {32, 32}, {40, 33}};
    for (const Shape &s : shapes) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        std::vector<T> A(sz(s.m * s.n));
        // Wide: grade the rows, the columns of the A^T the algorithm works on.
        if (s.m >= s.n)
            graded(rng, s.m, s.n, A.data(), s.m, 1.0, 1e-10);
        else
            graded(rng, s.m, s.n, A.data(), s.m, 1e-10, 1.0);
        std::vector<T> Bn = A;  // B: columns (rows, if wide) normalised
        const bool tall = s.m >= s.n;
        for (int64_t a = 0; a < (tall ? s.n : s.m); ++a) {
            long double nr = 0;
            for (int64_t b = 0; b < (tall ? s.m : s.n); ++b) {
                const T v = tall ? A[sz(b + a * s.m)] : A[sz(a + b * s.m)];
                nr += (long double)v * v;
            }
            for (int64_t b = 0; b < (tall ? s.m : s.n); ++b) {
                T &v = tall ? Bn[sz(b + a * s.m)] : Bn[sz(a + b * s.m)];
                v = T(v / std::sqrt(nr));
            }
        }
        const std::vector<long double> sb = ref_jacobi_long_double(s.m, s.n, Bn.data(), s.m);
        const double condB = double(sb.front() / sb.back());
        ASSERT_LT(condB, 1000.0) << "B should be well conditioned";

        const Run<T> r = run_jacobi<T>(s.m, s.n, A, true, true);
        expect_svd(s.m, s.n, A, r);
        const std::vector<long double> ref = ref_jacobi_long_double(s.m, s.n, A.data(), s.m);
        EXPECT_GT(double(ref.front() / ref.back()), 1e8) << "the grading is real";
        const double rel = sv_relative(std::min(s.m, s.n), r.S.data(), ref.data());
        EXPECT_LT(rel, 50.0 * condB) << "max_i |S_i - S_ref_i| / (S_ref_i eps), cond(B) = "
                                     << condB;
        worst<SvdWorst, T>().rel = std::max(worst<SvdWorst, T>().rel, rel / condB);
    }
}

TYPED_TEST(TeamJacobiTest, TwoSidedGraded) {
    using T = TypeParam;
    Rng rng(304);
    for (const Shape &s : {Shape{17, 11}, Shape{11, 17}, Shape{40, 9}, Shape{32, 32}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        std::vector<T> A(sz(s.m * s.n));
        graded(rng, s.m, s.n, A.data(), s.m, 1e-5, 1e-5);
        expect_svd(s.m, s.n, A, run_jacobi<T>(s.m, s.n, A, true, true));
    }
}

TYPED_TEST(TeamJacobiTest, ZeroMatrixGetsOrthonormalCompletion) {
    using T = TypeParam;
    for (const Shape &s : {Shape{1, 1}, Shape{7, 4}, Shape{4, 7}, Shape{6, 6}, Shape{16, 16}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const std::vector<T> A(sz(s.m * s.n), T(0));
        check_all_jobs<T>(s.m, s.n, A);
        const Run<T> r = run_jacobi<T>(s.m, s.n, A, true, true);
        EXPECT_EQ(r.res.sweeps, 1);
        for (T v : r.S) EXPECT_EQ(v, T(0));
    }
}

TYPED_TEST(TeamJacobiTest, Identity) {
    using T = TypeParam;
    for (const Shape &s : {Shape{1, 1}, Shape{7, 4}, Shape{4, 7}, Shape{9, 9}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        std::vector<T> A(sz(s.m * s.n));
        identity(s.m, s.n, A.data(), s.m);
        const std::vector<T> S = check_all_jobs<T>(s.m, s.n, A);
        for (T v : S) EXPECT_EQ(v, T(1));
    }
}

TYPED_TEST(TeamJacobiTest, RankDeficient) {
    using T = TypeParam;
    Rng rng(404);
    for (const Shape &s : {Shape{20, 10}, Shape{10, 20}, Shape{12, 12}, Shape{32, 32}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const int64_t k = std::min(s.m, s.n);
        const std::vector<T> A = prescribed_sv<T>(rng, s.m, s.n, SigmaMode::RankDeficient, 1e3, 3);
        const std::vector<T> S = check_all_jobs<T>(s.m, s.n, A);
        for (int64_t i = 3; i < k; ++i) EXPECT_LT(double(S[sz(i)]), 50 * s.m * eps<T>());

        // Duplicated columns and exactly zero columns (the completion fills their U columns).
        std::vector<T> D = gaussian<T>(rng, s.m, s.n);
        for (int64_t i = 0; i < s.m; ++i) {
            D[sz(i + 3 * s.m)] = D[sz(i + 1 * s.m)];
            D[sz(i + 5 * s.m)] = D[sz(i + 1 * s.m)];
            D[sz(i + 2 * s.m)] = T(0);
            D[sz(i + 7 * s.m)] = T(0);
        }
        check_all_jobs<T>(s.m, s.n, D);
    }
}

// A column of subnormal floats, correlated with another: after
// the scaling its squared norm is subnormal, the pair's |cos| stays above the tolerance, and the
// rotation's tangent underflows to 0. Counting that no-op as a rotation kept every sweep
// "rotating" until the sweep limit (info = max_sweeps); it must converge like any matrix.
TEST(TeamJacobiUnderflow, UnderflowedRotationDoesNotStallTheSweeps) {
    const int64_t m = 96, n = 64;
    std::mt19937_64 rng(3);
    std::normal_distribution<double> nd;
    std::vector<float> A(sz(m * n));
    for (float &x : A) x = float(nd(rng));
    for (int64_t i = 0; i < m; ++i) A[sz(i)] = float(5e-39 * (double(A[sz(i + m)]) + 0.5 * nd(rng)));
    const auto r = run_jacobi<float>(m, n, A, true, true, {}, -1, 30);
    EXPECT_EQ(r.res.info, 0) << "sweeps " << r.res.sweeps;
    EXPECT_LT(r.res.sweeps, 30);
    const std::vector<float> ref = ref_singular_values(m, n, A.data(), m);
    for (int64_t j = 0; j < n; ++j)
        EXPECT_LE(std::abs(double(r.S[sz(j)]) - double(ref[sz(j)])), 1e-5 * double(ref[0]));
}

TYPED_TEST(TeamJacobiTest, NearOverflowAndUnderflow) {
    using T = TypeParam;
    Rng rng(505);
    for (int which = 0; which < 3; ++which)
        for (const Shape &s : {Shape{17, 11}, Shape{11, 17}, Shape{16, 16}, Shape{1, 5}, Shape{5, 1}}) {
            SCOPED_TRACE(testing::Message() << which << ": " << s.m << " x " << s.n);
            std::vector<T> A = prescribed_sv<T>(rng, s.m, s.n, SigmaMode::Geometric, 1e3);
            // near overflow, near underflow, and largest entry at the overflow threshold / 4 (the
            // sums of squares would overflow a thousand times over without the scaling)
            const T target = which == 0   ? near_overflow_max<T>()
                             : which == 1 ? near_underflow_max<T>()
                                          : std::numeric_limits<T>::max() / 4;
            scale_max_abs(s.m, s.n, A.data(), s.m, target);
            ASSERT_FALSE(has_nonfinite(s.m, s.n, A.data(), s.m));
            const Run<T> r = run_jacobi<T>(s.m, s.n, A, true, true);
            if (which < 2) {
                expect_svd(s.m, s.n, A, r);
            } else {  // |A| itself overflows in the ratios' norms: check scaled copies instead
                EXPECT_EQ(r.res.info, 0);
                const int64_t k = std::min(s.m, s.n);
                EXPECT_LT(orthogonality(s.m, k, r.U.data(), s.m), kSvdThreshold);
                EXPECT_LT(orthogonality(s.n, k, r.V.data(), s.n), kSvdThreshold);
                std::vector<T> As = A, Ss = r.S;
                for (T &v : As) v = T(v / 1024);
                for (T &v : Ss) v = T(v / 1024);
                EXPECT_LT(svd_residual(s.m, s.n, As.data(), s.m, Ss.data(), r.U.data(), s.m,
                                       r.V.data(), s.n),
                          kSvdThreshold);
            }
        }
}

TYPED_TEST(TeamJacobiTest, NonFiniteInputGivesNaNAndInfo) {
    using T = TypeParam;
    Rng rng(606);
    for (const Shape &s : {Shape{9, 6}, Shape{6, 9}, Shape{1, 1}}) {
        for (T bad : {nan_v<T>(), std::numeric_limits<T>::infinity(),
                      -std::numeric_limits<T>::infinity()}) {
            SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " with " << bad);
            std::vector<T> A = gaussian<T>(rng, s.m, s.n);
            A[sz((s.m * s.n) / 2)] = bad;
            const Run<T> r = run_jacobi<T>(s.m, s.n, A, true, true);
            EXPECT_EQ(r.res.info, GPUSVD_INFO_NONFINITE);
            EXPECT_EQ(r.res.sweeps, 0);
            const int64_t k = std::min(s.m, s.n);
            EXPECT_TRUE(all_nan(k, 1, r.S.data(), k));
            EXPECT_TRUE(all_nan(s.m, k, r.U.data(), s.m));
            EXPECT_TRUE(all_nan(s.n, k, r.V.data(), s.n));
        }
    }
}

TYPED_TEST(TeamJacobiTest, SweepLimitGivesPositiveInfoAndAFactorization) {
    using T = TypeParam;
    Rng rng(707);
    const int64_t m = 30, n = 20;
    const std::vector<T> A = gaussian<T>(rng, m, n);
    for (int max_sweeps : {1, 2}) {
        const Run<T> r = run_jacobi<T>(m, n, A, true, true, {}, -1, max_sweeps);
        EXPECT_EQ(r.res.info, max_sweeps);
        EXPECT_EQ(r.res.sweeps, max_sweeps);
        EXPECT_GT(double(r.res.off), default_tol<T>(m, n));
        // Rotations are orthogonal and the columns are the rotated A: still A = U S V^T.
        EXPECT_LT(svd_residual(m, n, A.data(), m, r.S.data(), r.U.data(), m, r.V.data(), n),
                  kSvdThreshold);
        EXPECT_LT(orthogonality(n, n, r.V.data(), n), kSvdThreshold);
        EXPECT_TRUE(is_sorted_desc_nonneg(n, r.S.data()));
    }
}

TYPED_TEST(TeamJacobiTest, LooseToleranceStopsEarlier) {
    using T = TypeParam;
    Rng rng(808);
    const int64_t m = 40, n = 24;
    const std::vector<T> A = gaussian<T>(rng, m, n);
    const Run<T> tight = run_jacobi<T>(m, n, A, true, true);
    const double loose_tol = std::is_same<T, float>::value ? 1e-3 : 1e-6;
    const Run<T> loose = run_jacobi<T>(m, n, A, true, true, {}, loose_tol);
    EXPECT_EQ(loose.res.info, 0);
    EXPECT_LE(double(loose.res.off), loose_tol);
    EXPECT_LE(loose.res.sweeps, tight.res.sweeps);
    EXPECT_GE(tight.res.sweeps, 3);
    EXPECT_LT(orthogonality(n, n, loose.V.data(), n), kSvdThreshold);
    EXPECT_LT(svd_residual(m, n, A.data(), m, loose.S.data(), loose.U.data(), m, loose.V.data(), n),
              kSvdThreshold);
}

// ------------------------------------------------------------------------------------------------
// The kernels' configurations (plan.hpp) on thread teams
// ------------------------------------------------------------------------------------------------

TYPED_TEST(TeamJacobiTest, PlanPicksTheDocumentedPaths) {
    using T = TypeParam;
    const size_t e = sizeof(T);
    auto plan = [&](int64_t m, int64_t n, bool wu, bool wv, int64_t batch = 1000) {
        return gg::gesvj_plan(e, wu, wv, m, n, batch, kH200SmemOptin, 1024, 1024);
    };
    EXPECT_EQ(plan(16, 16, true, true).path, gg::GesvjPlan::kWarp);
    EXPECT_EQ(plan(16, 16, true, true).lanes, 4);
    EXPECT_EQ(plan(32, 32, true, true).path, gg::GesvjPlan::kBlock);
    EXPECT_EQ(plan(32, 32, true, true).threads, 64);
    // A single matrix (latency, not throughput): wider pair teams, on the fixed kernel (8
    // lanes) up to 64 rows, else the generic one (16 lanes).
    EXPECT_EQ(plan(32, 32, true, true, 1).lanes, gg::kGesvjFixedFewLanes);
    EXPECT_EQ(plan(32, 32, true, true, 1).threads, 16 * gg::kGesvjFixedFewLanes);
    EXPECT_EQ(plan(64, 64, true, true, 1).threads, 32 * gg::kGesvjFixedFewLanes);
    EXPECT_EQ(plan(100, 64, true, true, 1).lanes, gg::kGesvjFewLanes);
    EXPECT_EQ(plan(100, 64, true, true, 1).fixed_na, 0);
    EXPECT_EQ(gg::gesvj_plan(e, true, true, 64, 64, 1, kH200SmemOptin, 1024, 1024, 0, false).lanes,
              gg::kGesvjFewLanes);
    EXPECT_EQ(plan(64, 64, true, true, gg::kGesvjFewMatrices).lanes, 8);
    // ... and the kernel compiled for their slots, over rows padded with zeros.
    const gg::GesvjPlan f = plan(40, 24, true, true, 1);
    EXPECT_EQ(f.fixed_na, 8);
    EXPECT_EQ(f.fixed_nv, 8);
    EXPECT_GE(f.shape.voff, 8 * gg::kGesvjFixedFewLanes);
    EXPECT_GE(f.shape.ld, f.shape.voff + 8 * gg::kGesvjFixedFewLanes);
    EXPECT_EQ(plan(32, 32, true, false, 1).fixed_na, 4);
    EXPECT_EQ(plan(32, 32, true, false, 1).fixed_nv, 0);
    const gg::GesvjPlan f16 =
        gg::gesvj_plan(e, true, true, 32, 32, 1, kH200SmemOptin, 1024, 1024, 16);
    EXPECT_EQ(f16.lanes, 16);
    EXPECT_EQ(f16.fixed_na, 2);
    EXPECT_EQ(plan(65, 64, true, true, 1).fixed_na, 0);
    EXPECT_EQ(plan(64, 64, true, true, gg::kGesvjFewMatrices).fixed_na, 8);  // 8 lanes
    EXPECT_EQ(plan(32, 32, true, true, gg::kGesvjFewMatrices).fixed_na, 0);  // 4 lanes
    EXPECT_EQ(
        gg::gesvj_plan(e, true, true, 64, 64, 1, kH200SmemOptin, 1024, 1024, 0, false).fixed_na, 0);
    // The tuning override sets the lanes, and the threads follow.
    const gg::GesvjPlan o =
        gg::gesvj_plan(e, true, true, 64, 64, 1, kH200SmemOptin, 1024, 1024, 4);
    EXPECT_EQ(o.lanes, 4);
    EXPECT_EQ(o.threads, 32 * 4);
    EXPECT_EQ(plan(64, 64, true, true).path, gg::GesvjPlan::kBlock);  // 64x64 double: a block
    EXPECT_EQ(plan(1, 1, true, true).path, gg::GesvjPlan::kWarp);
    EXPECT_EQ(plan(200, 200, true, true).path, gg::GesvjPlan::kGlobal);
    EXPECT_EQ(plan(100000, 32, true, true, 1).path, gg::GesvjPlan::kGlobal);
    EXPECT_EQ(plan(0, 5, true, true).path, gg::GesvjPlan::kNothing);
    EXPECT_EQ(plan(5, 5, true, true, 0).path, gg::GesvjPlan::kNothing);
    EXPECT_EQ(plan(200, 200, true, true).ws_bytes > 0, true);
    EXPECT_EQ(plan(64, 64, true, true).ws_bytes, 0u);
    // The workspace stays bounded for big batches of big matrices: one slot per block.
    const gg::GesvjPlan big = plan(8192, 8192, true, true, 100000);
    EXPECT_EQ(big.grid, 1);
    EXPECT_EQ(big.ws_bytes, big.matrix_bytes);
    EXPECT_LE(plan(256, 256, true, true, 100000).ws_bytes, gg::kGesvjGlobalBudget);
    for (int64_t m : {1, 2, 3, 8, 15, 16, 17, 31, 32, 33, 63, 64, 100, 127, 128, 300, 5000})
        for (int64_t n : {1, 2, 3, 8, 15, 16, 17, 31, 32, 33, 63, 64, 100, 127, 128, 300})
            for (int job = 0; job < 4; ++job) {
                SCOPED_TRACE(testing::Message() << m << " x " << n << " job " << job);
                const gg::GesvjPlan p = plan(m, n, job & 1, job & 2, 3);
                ASSERT_NE(p.path, gg::GesvjPlan::kNothing);
                EXPECT_GT(p.lanes, 0);
                EXPECT_EQ(p.lanes & (p.lanes - 1), 0) << "lanes a power of two";
                EXPECT_LE(p.lanes, 32);
                EXPECT_EQ(p.threads % 32, 0);
                EXPECT_LE(p.threads, 1024);
                EXPECT_GE(p.grid, 1);
                EXPECT_GE(p.matrix_bytes,
                          size_t(p.shape.elems) * e + size_t(p.shape.cols) * sizeof(int));
                EXPECT_GE(p.shape.ld, p.shape.voff + p.shape.vrows);
                EXPECT_GE(p.shape.voff, p.shape.rows);
                if (p.path == gg::GesvjPlan::kGlobal) {
                    EXPECT_GE(p.ws_bytes, p.matrix_bytes * size_t(p.grid));
                    EXPECT_LE(p.ws_bytes, std::max(gg::kGesvjGlobalBudget, p.matrix_bytes));
                } else {
                    EXPECT_EQ(p.ws_bytes, 0u);
                    EXPECT_LE(p.smem_bytes + gg::kGesvjStaticSmemReserve, kH200SmemOptin);
                    EXPECT_EQ(p.smem_bytes, p.matrix_bytes * size_t(p.mats_per_block));
                }
            }
}

/// jacobi_svd with the slots the plan's fixed kernel is compiled for (gesvj.cu's launch_fixed).
template <typename T, int W>
Run<T> run_fixed(int64_t m, int64_t n, const std::vector<T> &A, bool wu, bool wv,
                 const gg::GesvjPlan &p, const Config &cfg) {
    constexpr int kFull = static_cast<int>(gg::kGesvjFixedMaxRows / W), kHalf = kFull / 2;
    const bool v = p.fixed_nv > 0;
    EXPECT_TRUE(p.fixed_na == kHalf || p.fixed_na == kFull);
    EXPECT_EQ(p.fixed_nv, v ? p.fixed_na : 0);
    if (p.fixed_na == kHalf)
        return v ? run_jacobi<T, 8, gk::FixedSlots<kHalf, kHalf>>(m, n, A, wu, wv, cfg)
                 : run_jacobi<T, 8, gk::FixedSlots<kHalf, 0>>(m, n, A, wu, wv, cfg);
    return v ? run_jacobi<T, 8, gk::FixedSlots<kFull, kFull>>(m, n, A, wu, wv, cfg)
             : run_jacobi<T, 8, gk::FixedSlots<kFull, 0>>(m, n, A, wu, wv, cfg);
}

/// jacobi_svd with the slots the plan's fixed kernel is compiled for (gesvj.cu's launch_fixed).
template <typename T>
Run<T> run_fixed(int64_t m, int64_t n, const std::vector<T> &A, bool wu, bool wv,
                 const gg::GesvjPlan &p, const Config &cfg) {
    EXPECT_TRUE(p.lanes == 8 || p.lanes == 16);
    return p.lanes == 8 ? run_fixed<T, 8>(m, n, A, wu, wv, p, cfg)
                        : run_fixed<T, 16>(m, n, A, wu, wv, p, cfg);
}

/// The plan's configuration for a shape and batch, run on threads (the warp path's team is the
/// 32 lanes of one warp), for U and V, U only and V only (each its own plan and layout).
template <typename T>
void check_planned(int64_t m, int64_t n, const std::vector<T> &A, int64_t batch = 1,
                   bool allow_fixed = true, int lanes_override = 0) {
    for (int job = 3; job >= 1; --job) {
        const bool wu = job & 1, wv = job & 2;
        const gg::GesvjPlan p = gg::gesvj_plan(sizeof(T), wu, wv, m, n, batch, kH200SmemOptin, 1024,
                                               1024, lanes_override, allow_fixed);
        Config cfg;
        cfg.members = p.path == gg::GesvjPlan::kWarp ? 32 : p.threads;
        cfg.lanes = p.lanes;
        cfg.shape = &p.shape;
        SCOPED_TRACE(testing::Message()
                     << m << " x " << n << " job " << job << ": " << cfg.members << " threads, "
                     << cfg.lanes << " lanes, fixed slots " << p.fixed_na);
        Run<T> r;
        if (p.path == gg::GesvjPlan::kGlobal)
            r = run_jacobi<T, 0>(m, n, A, wu, wv, cfg);
        else if (p.fixed_na > 0)
            r = run_fixed<T>(m, n, A, wu, wv, p, cfg);
        else
            r = run_jacobi<T, 8>(m, n, A, wu, wv, cfg);
        if (job == 3) {
            expect_svd(m, n, A, r);
            continue;
        }
        // jobu only / jobv only take other layouts (no V part; the V part holding U)
        EXPECT_EQ(r.res.info, 0);
        if (wu) {
            EXPECT_LT(orthogonality(m, std::min(m, n), r.U.data(), m), kSvdThreshold);
        }
        if (wv) {
            EXPECT_LT(orthogonality(n, std::min(m, n), r.V.data(), n), kSvdThreshold);
        }
    }
}

TYPED_TEST(TeamJacobiTest, ThreadTeamsInPlannedConfigurations) {
    using T = TypeParam;
    Rng rng(909);
    for (const Shape &s : {Shape{16, 16}, Shape{32, 32}, Shape{8, 8}, Shape{5, 3}, Shape{3, 5},
                           Shape{17, 11}, Shape{11, 17}, Shape{70, 7}, Shape{1, 1}, Shape{2, 2},
                           Shape{1, 4}, Shape{24, 24}})
        check_planned<T>(s.m, s.n, gaussian<T>(rng, s.m, s.n));
    // Hard cases through the concurrent rounds: graded, rank deficient with zero columns, zero.
    std::vector<T> G(16 * 16);
    graded(rng, 16, 16, G.data(), 16, 1.0, 1e-10);
    check_planned<T>(16, 16, G);
    std::vector<T> D = prescribed_sv<T>(rng, 32, 32, SigmaMode::RankDeficient, 1e3, 5);
    for (int64_t i = 0; i < 32; ++i) D[sz(i + 4 * 32)] = T(0);
    check_planned<T>(32, 32, D);
    check_planned<T>(9, 9, std::vector<T>(81, T(0)));
}

TYPED_TEST(TeamJacobiTest, ThreadTeamsOfTheFixedKernel) {
    // The few-matrix block path's compiled slots (FixedSlots): both slot counts, rows that pad
    // (A part and V part), wide input, hard spectra, and the same shapes on the generic kernel.
    // Narrow shapes (128 threads; fewer columns take the warp path): host threads with real
    // barriers are slow, and the 64 x 64 configuration (512 threads) runs in the GPU tests.
    using T = TypeParam;
    Rng rng(911);
    const int64_t few = gg::kGesvjFewMatrices - 1;
    for (const Shape &s : {Shape{64, 9}, Shape{9, 64}, Shape{40, 12}, Shape{33, 16}})
        for (bool fixed : {true, false}) {
            const gg::GesvjPlan p = gg::gesvj_plan(sizeof(T), true, true, s.m, s.n, few,
                                                   kH200SmemOptin, 1024, 1024, 0, fixed);
            ASSERT_EQ(p.path, gg::GesvjPlan::kBlock);
            EXPECT_EQ(p.fixed_na > 0, fixed) << s.m << " x " << s.n;
            check_planned<T>(s.m, s.n, gaussian<T>(rng, s.m, s.n), few, fixed);
        }
    // Half the slots (rows <= 32), 16-lane teams (the tuning override), hard cases.
    check_planned<T>(20, 17, gaussian<T>(rng, 20, 17), few);
    check_planned<T>(64, 10, gaussian<T>(rng, 64, 10), few, true, 16);
    check_planned<T>(30, 12, gaussian<T>(rng, 30, 12), few, true, 16);
    for (SigmaMode mode : {SigmaMode::Geometric, SigmaMode::RankDeficient})
        check_planned<T>(48, 10, prescribed_sv<T>(rng, 48, 10, mode, 1e10, 4));
    std::vector<T> G(40 * 10);
    graded(rng, 40, 10, G.data(), 40, 1.0, 1e-10);
    check_planned<T>(40, 10, G);
    check_planned<T>(50, 12, std::vector<T>(600, T(0)));
}

TYPED_TEST(TeamJacobiTest, ThreadTeamsLikeTheGlobalKernel) {
    // Warp-wide pair teams and more pairs than pair teams (groups loop over pairs): the
    // configuration of gesvj_global_kernel, shrunk to what host threads manage.
    using T = TypeParam;
    Rng rng(910);
    Config cfg;
    cfg.members = 64;
    cfg.lanes = 32;
    cfg.align = 128 / int64_t(sizeof(T));
    for (const Shape &s : {Shape{40, 9}, Shape{9, 40}, Shape{70, 4}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const std::vector<T> A = gaussian<T>(rng, s.m, s.n);
        expect_svd(s.m, s.n, A, run_jacobi<T, 0>(s.m, s.n, A, true, true, cfg));
    }
    // Narrow pair teams whose lanes hold more than the register cache (the uncached path).
    cfg.members = 8;
    cfg.lanes = 2;
    for (const Shape &s : {Shape{50, 6}, Shape{6, 50}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " uncached");
        const std::vector<T> A = gaussian<T>(rng, s.m, s.n);
        expect_svd(s.m, s.n, A, run_jacobi<T, 8>(s.m, s.n, A, true, true, cfg));
    }
}

}  // namespace

namespace {
// Larger ill-conditioned matrices (cond 1e12, n = 128..300): the GPU's global-memory path
// runs them. The round-robin ordering needs up to about 45 sweeps here (LAPACK's pivoted
// ordering about 20): they must converge within the default limit of 100.
TYPED_TEST(TeamJacobiTest, LargeIllConditionedConverges) {
    using T = TypeParam;
    Rng rng(512);
    for (SigmaMode mode : {SigmaMode::Geometric, SigmaMode::LogUniform, SigmaMode::RankDeficient})
        for (const Shape &s : {Shape{128, 128}, Shape{200, 150}, Shape{300, 300}}) {
            SCOPED_TRACE(testing::Message() << int(mode) << " " << s.m << " x " << s.n);
            const std::vector<T> A = prescribed_sv<T>(rng, s.m, s.n, mode, 1e12, 3);
            const Run<T> r = run_jacobi<T>(s.m, s.n, A, true, true, {}, -1, 100);
            EXPECT_EQ(r.res.info, 0) << r.res.sweeps << " sweeps, off " << r.res.off;
            EXPECT_LE(r.res.sweeps, 60);
            expect_svd<T>(s.m, s.n, A, r);
        }
}
}  // namespace
