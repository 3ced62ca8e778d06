// The one-sided Jacobi SVD of the GPU kernels (src/kernels/jacobi_*.hpp) on complex data, run on
// the host: with SerialTeam against LAPACK's ?gesvj and the ratios of DESIGN.md (|A - U S V^H|,
// |U^H U - I|, |V^H V - I|, singular values), and with ThreadTeam in the lanes/threads
// configurations cuda/gesvj/plan.hpp gives the kernels for complex elements. The matrices are
// std::complex on the test's side and kernels::Complex (the same layout) in the team code.
#include <algorithm>
#include <complex>
#include <cstring>
#include <random>

#include "gesvj/plan.hpp"
#include "kernels/jacobi_team.hpp"
#include "test_common.hpp"
#include "thread_team.hpp"
#include "worst_ratios.hpp"

using namespace gpusvd_test;
namespace gk = gpusvd::kernels;
namespace gg = gpusvd::gpu;

namespace {

constexpr double kSvdThreshold = 50.0;     // DESIGN.md: SVD ratios < 50
constexpr size_t kH200SmemOptin = 232448;  // 227 KiB

template <typename R>
using C = std::complex<R>;
template <typename R>
using K = gk::Complex<R>;

static_assert(sizeof(C<float>) == sizeof(K<float>) && sizeof(C<double>) == sizeof(K<double>),
              "the same layout");

// Copies between the two types (the bytes; no pointer of one type reads the other's objects).
template <typename R>
std::vector<K<R>> to_k(const std::vector<C<R>> &v) {
    std::vector<K<R>> out(v.size());
    if (!v.empty()) std::memcpy(static_cast<void *>(out.data()), v.data(), v.size() * sizeof(K<R>));
    return out;
}
template <typename R>
std::vector<C<R>> to_c(const std::vector<K<R>> &v) {
    std::vector<C<R>> out(v.size());
    if (!v.empty()) std::memcpy(static_cast<void *>(out.data()), v.data(), v.size() * sizeof(K<R>));
    return out;
}

template <typename R>
double default_tol(int64_t m, int64_t n) {
    return std::sqrt(double(std::max(m, n))) * double(gk::Real<R>::eps());
}

template <typename R>
C<R> csentinel() {
    return C<R>(R(-12345.6875), R(3.5));
}

template <typename R>
std::vector<C<R>> cgauss(Rng &rng, int64_t m, int64_t n) {
    std::vector<C<R>> A(sz(m * n));
    for (auto &v : A) v = C<R>(R(rng.normal()), R(rng.normal()));
    return A;
}

template <typename R>
bool all_nan_c(const std::vector<C<R>> &v) {
    return std::all_of(v.begin(), v.end(),
                       [](C<R> x) { return std::isnan(x.real()) && std::isnan(x.imag()); });
}

/// How the team runs: members == 0 is SerialTeam with int64_t indices; otherwise ThreadTeam
/// with `members` threads in pair teams of `lanes` and int indices (the shared-memory kernels').
struct Config {
    int members = 0, lanes = 1;
    int64_t align = 1;
    const gk::JacobiShape *shape = nullptr;  // the plan's layout in place of jacobi_shape's
};

template <typename R>
struct Run {
    std::vector<R> S;
    std::vector<C<R>> U, V;  // U: m x k (ld m), V: n x k (ld n); empty when not wanted
    gk::JacobiResult<K<R>> res{};
};

/// jacobi_svd of A0 (m x n, ld m) with padded leading dimensions; checks that nothing outside the
/// outputs is written, A is only read and every member returns the same result.
template <typename R, int CAP = 0, class Slots = gk::RuntimeSlots>
Run<R> run_jacobi(int64_t m, int64_t n, const std::vector<C<R>> &A0, bool wantu, bool wantv,
                  const Config &cfg = {}, double tol = -1, int max_sweeps = 30) {
    using T = K<R>;
    if (tol < 0) tol = default_tol<R>(m, n);
    const int64_t k = std::min(m, n);
    const int64_t lda = m + 2, ldu = m + 1, ldv = n + 3;
    const C<R> pad = csentinel<R>();
    const std::vector<C<R>> A = with_ld(m, n, A0.data(), m, lda, pad);
    std::vector<R> S = sentinels<R>(sz(k + 2));
    const std::vector<K<R>> Ak = to_k(A);
    std::vector<K<R>> Uk = to_k(std::vector<C<R>>(sz(ldu * k + 1), pad)),
                      Vk = to_k(std::vector<C<R>>(sz(ldv * k + 1), pad));
    const gk::JacobiShape shape =
        cfg.shape ? *cfg.shape : gk::jacobi_shape(m, n, wantu, wantv, cfg.align);
    // NaN everywhere but the padding rows: a read of storage not written first poisons the result.
    const R rn = nan_v<R>();
    std::vector<T> ws(sz(shape.elems + shape.cols), T(rn, rn));
    for (int64_t j = 0; j < shape.cols; ++j) {
        for (int64_t i = shape.rows; i < shape.voff; ++i) ws[sz(i + j * shape.ld)] = T(0);
        for (int64_t i = shape.voff + shape.vrows; i < shape.ld; ++i)
            ws[sz(i + j * shape.ld)] = T(0);
    }
    const gk::JacobiIO<T> io{m,         n,
                             Ak.data(), lda,
                             S.data(),  wantu ? Uk.data() : nullptr,
                             ldu,       wantv ? Vk.data() : nullptr,
                             ldv};
    Run<R> r;
    if (cfg.members == 0) {
        r.res = gk::jacobi_svd<T, int64_t, CAP>(gk::SerialTeam{}, gk::SerialTeam{}, io,
                                                gk::jacobi_work<T, int64_t>(shape, ws.data()),
                                                R(tol), max_sweeps);
    } else {
        std::vector<gk::JacobiResult<T>> all(sz(cfg.members));
        run_thread_team(
            cfg.members, cfg.lanes, [&](const ThreadTeam &t, const ThreadTeam &pt, int rank) {
                all[sz(rank)] = gk::jacobi_svd<T, int, CAP, Slots>(
                    t, pt, io, gk::jacobi_work<T, int>(shape, ws.data()), R(tol), max_sweeps);
            });
        for (int i = 1; i < cfg.members; ++i) {
            EXPECT_EQ(all[sz(i)].info, all[0].info) << "member " << i;
            EXPECT_EQ(all[sz(i)].sweeps, all[0].sweeps) << "member " << i;
            EXPECT_TRUE(same_bits(std::vector<R>{all[sz(i)].off}, std::vector<R>{all[0].off}));
        }
        r.res = all[0];
    }
    const std::vector<C<R>> U = to_c(Uk), V = to_c(Vk);
    EXPECT_TRUE(same_bits(to_c(Ak), A)) << "A is only read";
    EXPECT_EQ(S[sz(k)], sentinel<R>()) << "S written past k";
    EXPECT_EQ(S[sz(k + 1)], sentinel<R>()) << "S written past k";
    EXPECT_EQ(U.back(), pad) << "U written past its end";
    EXPECT_EQ(V.back(), pad) << "V written past its end";
    r.S.assign(S.begin(), S.begin() + k);
    if (wantu) {
        EXPECT_TRUE(padding_intact(m, k, U.data(), ldu, pad)) << "U written outside m x k";
        r.U = with_ld(m, k, U.data(), ldu, m, C<R>(0));
    } else {
        EXPECT_TRUE(all_equal(U, pad)) << "U referenced without jobu";
    }
    if (wantv) {
        EXPECT_TRUE(padding_intact(n, k, V.data(), ldv, pad)) << "V written outside n x k";
        r.V = with_ld(n, k, V.data(), ldv, n, C<R>(0));
    } else {
        EXPECT_TRUE(all_equal(V, pad)) << "V referenced without jobv";
    }
    return r;
}

// LAPACK ?gesvj (values only) of an m x n complex matrix, in its own precision (a copy; m < n:
// of A^H, ?gesvj needs rows >= cols), scaled by its stat(1) and in descending order.
lapack_int lapack_gesvj(lapack_int m, lapack_int n, C<float> *a, float *sva, float *stat) {
    return LAPACKE_cgesvj(LAPACK_COL_MAJOR, 'G', 'N', 'N', m, n, a, m, sva, 0, nullptr, 1, stat);
}
lapack_int lapack_gesvj(lapack_int m, lapack_int n, C<double> *a, double *sva, double *stat) {
    return LAPACKE_zgesvj(LAPACK_COL_MAJOR, 'G', 'N', 'N', m, n, a, m, sva, 0, nullptr, 1, stat);
}

template <typename R>
std::vector<R> ref_gesvj(int64_t m, int64_t n, const std::vector<C<R>> &A) {
    const bool tr = m < n;
    const int64_t rows = tr ? n : m, cols = tr ? m : n;
    std::vector<C<R>> B(sz(rows * cols));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            const C<R> v = A[sz(i + j * m)];
            if (tr)
                B[sz(j + i * rows)] = std::conj(v);
            else
                B[sz(i + j * rows)] = v;
        }
    std::vector<R> s(sz(cols)), stat(6);
    EXPECT_EQ(lapack_gesvj(lapack_int(rows), lapack_int(cols), B.data(), s.data(), stat.data()), 0)
        << "reference ?gesvj";
    for (R &v : s) v *= stat[0];
    std::sort(s.begin(), s.end(), [](R a, R b) { return a > b; });
    return s;
}

const auto *const kPrintWorst =
    print_worst_at_end<SvdWorst>("complex<float>", "complex<double>");

/// DESIGN.md's SVD ratios of a run: info 0, converged, S >= 0 descending and close to LAPACK
/// ?gesvj's, unitary U and V, small residual |A - U S V^H|.
template <typename R>
void expect_svd(int64_t m, int64_t n, const std::vector<C<R>> &A0, const Run<R> &r,
                double tol = -1) {
    if (tol < 0) tol = default_tol<R>(m, n);
    const int64_t k = std::min(m, n);
    EXPECT_EQ(r.res.info, 0);
    EXPECT_GE(r.res.sweeps, 1);
    EXPECT_LE(double(r.res.off), tol) << "converged: every |cos| of the last sweep <= tol";
    EXPECT_TRUE(is_sorted_desc_nonneg(k, r.S.data())) << "S non-negative and descending";
    const std::vector<R> Sref = ref_gesvj(m, n, A0);
    SvdWorst &w = worst<SvdWorst, R>();
    ++w.checked;
    const double sv = sv_compare(k, r.S.data(), Sref.data());
    EXPECT_LT(sv, kSvdThreshold) << "|S - S_lapack| / (|S| eps)";
    w.sv = std::max(w.sv, sv);
    if (!r.U.empty()) {
        const double o = orthogonality_h(m, k, r.U.data(), m);
        EXPECT_LT(o, kSvdThreshold) << "|I - U^H U| / (m eps)";
        w.orth_u = std::max(w.orth_u, o);
    }
    if (!r.V.empty()) {
        const double o = orthogonality_h(n, k, r.V.data(), n);
        EXPECT_LT(o, kSvdThreshold) << "|I - V^H V| / (n eps)";
        w.orth_v = std::max(w.orth_v, o);
    }
    if (!r.U.empty() && !r.V.empty()) {
        const double res =
            svd_residual_h(m, n, k, A0.data(), m, r.S.data(), r.U.data(), m, r.V.data(), n);
        EXPECT_LT(res, kSvdThreshold) << "|A - U S V^H| / (|A| max(m,n) eps)";
        w.resid = std::max(w.resid, res);
    }
    if (verbose())
        std::printf("  %lld x %lld: sweeps %d off %.3g sv %.3g\n", (long long)m, (long long)n,
                    r.res.sweeps, double(r.res.off), sv);
}

/// All four job combinations: the full run checked in full, the others give the same S and
/// unitary vectors of their own.
template <typename R, int CAP = 0>
std::vector<R> check_all_jobs(int64_t m, int64_t n, const std::vector<C<R>> &A0,
                              const Config &cfg = {}) {
    const Run<R> full = run_jacobi<R, CAP>(m, n, A0, true, true, cfg);
    expect_svd(m, n, A0, full);
    const int64_t k = std::min(m, n);
    for (int job = 0; job < 3; ++job) {
        const bool wu = job & 1, wv = job & 2;
        SCOPED_TRACE(testing::Message() << "jobu=" << wu << " jobv=" << wv);
        const Run<R> r = run_jacobi<R, CAP>(m, n, A0, wu, wv, cfg);
        EXPECT_EQ(r.res.info, 0);
        EXPECT_LT(sv_compare(k, r.S.data(), full.S.data()), kSvdThreshold);
        if (wu) {
            EXPECT_LT(orthogonality_h(m, k, r.U.data(), m), kSvdThreshold);
        }
        if (wv) {
            EXPECT_LT(orthogonality_h(n, k, r.V.data(), n), kSvdThreshold);
        }
    }
    return full.S;
}

struct Shape {
    int64_t m, n;
};

template <typename R>
class TeamJacobiComplexTest : public ::testing::Test {};
TYPED_TEST_SUITE(TeamJacobiComplexTest, Precisions, PrecisionName);

// ------------------------------------------------------------------------------------------------
// The rotation
// ------------------------------------------------------------------------------------------------

TYPED_TEST(TeamJacobiComplexTest, PhaseAndRotationOrthogonaliseTwoColumns) {
    // complex_abs_phase + jacobi_rotation on |g| as jacobi_pair applies them, computed in R,
    // checked in long double: x'^H y' = 0 to rounding, the map unitary (|x'|^2 + |y'|^2 = |x|^2 +
    // |y|^2), and the phase of unit modulus with e g = |g| real. Gram entries of every magnitude
    // and phase, both orders of |x| and |y|.
    using R = TypeParam;
    using LC = std::complex<long double>;
    Rng rng(11);
    const int64_t m = 7;
    for (int trial = 0; trial < 60; ++trial) {
        std::vector<C<R>> X = cgauss<R>(rng, m, 2);
        const double sx = std::pow(10.0, double(trial % 7) - 3), sy = trial % 2 ? 1.0 : 1e-2;
        const C<R> ph(R(std::cos(0.37 * trial)), R(std::sin(0.37 * trial)));
        for (int64_t i = 0; i < m; ++i) {
            X[sz(i)] *= R(sx);
            // y partly along x, with a phase: g far from real
            X[sz(i + m)] = R(sy) * X[sz(i + m)] + R(trial % 3 ? 0.5 : 1e-4) * ph * X[sz(i)];
        }
        const std::vector<K<R>> Xk = to_k(X);
        R a = 0, b = 0;
        K<R> g(0);
        for (int64_t i = 0; i < m; ++i) {
            a += gk::abs2(Xk[sz(i)]);
            b += gk::abs2(Xk[sz(i + m)]);
            g += gk::mul_conj(Xk[sz(i)], Xk[sz(i + m)]);
        }
        K<R> e;
        const R ag = gk::complex_abs_phase(g, e);
        const long double lg = std::abs(LC(g.re, g.im));
        EXPECT_NEAR(double(ag / lg), 1.0, 4 * eps<R>()) << "|g|";
        EXPECT_NEAR(double(std::abs(LC(e.re, e.im))), 1.0, 4 * eps<R>()) << "|e| = 1";
        const LC eg = LC(e.re, e.im) * LC(g.re, g.im);
        EXPECT_LT(double(std::fabs(eg.imag()) / lg), 4 * eps<R>()) << "e g real";
        EXPECT_GT(double(eg.real()), 0.0);
        R s, tau;
        gk::jacobi_rotation(a, b, ag, s, tau);
        ASSERT_NE(s, R(0));
        std::vector<K<R>> Yk = Xk;
        for (int64_t i = 0; i < m; ++i) {
            const K<R> xi = Xk[sz(i)], yi = Xk[sz(i + m)];
            Yk[sz(i)] = xi - s * (e * yi + tau * xi);
            Yk[sz(i + m)] = yi + s * (gk::conj(e) * xi - tau * yi);
        }
        const std::vector<C<R>> Y = to_c(Yk);
        LC dot = 0;
        long double na = 0, nb = 0, n0 = 0;
        for (int64_t i = 0; i < m; ++i) {
            const LC x(Y[sz(i)].real(), Y[sz(i)].imag()),
                y(Y[sz(i + m)].real(), Y[sz(i + m)].imag());
            dot += std::conj(x) * y;
            na += std::norm(x);
            nb += std::norm(y);
            n0 += std::norm(LC(X[sz(i)].real(), X[sz(i)].imag())) +
                  std::norm(LC(X[sz(i + m)].real(), X[sz(i + m)].imag()));
        }
        SCOPED_TRACE(testing::Message() << "trial " << trial << " |cos| before "
                                        << double(lg / std::sqrt((long double)a * b)));
        // rounding's bound: relative to the pair's norms before the rotation (a nearly parallel
        // pair leaves one column small, its direction only that accurate)
        EXPECT_LT(double(std::abs(dot) / std::sqrt((long double)a * b)), 20 * eps<R>())
            << "x'^H y' = 0";
        EXPECT_NEAR(double((na + nb) / n0), 1.0, 20 * eps<R>()) << "unitary";
    }
}

TYPED_TEST(TeamJacobiComplexTest, TwoColumnMatrix) {
    // One pair: the first sweep's single rotation makes the columns orthogonal, so the next sweep
    // (at most one more, for rounding) rotates nothing.
    using R = TypeParam;
    Rng rng(12);
    for (const Shape &s : {Shape{2, 2}, Shape{9, 2}, Shape{2, 9}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        std::vector<C<R>> A = cgauss<R>(rng, s.m, s.n);
        const Run<R> r = run_jacobi<R>(s.m, s.n, A, true, true);
        expect_svd(s.m, s.n, A, r);
        EXPECT_LE(r.res.sweeps, 3);  // a second rotation only if rounding left |cos| > tol
        // g purely imaginary: the real rotation alone (phase 1) would not orthogonalise
        std::vector<C<R>> B(sz(s.m * s.n));
        for (int64_t i = 0; i < s.m * s.n; ++i) B[sz(i)] = C<R>(R(rng.normal()), 0);
        if (s.m >= s.n)
            for (int64_t i = 0; i < s.m; ++i)
                B[sz(i + s.m)] = C<R>(0, 1) * B[sz(i)] + B[sz(i + s.m)];
        expect_svd(s.m, s.n, B, run_jacobi<R>(s.m, s.n, B, true, true));
    }
}

// ------------------------------------------------------------------------------------------------
// Accuracy (SerialTeam)
// ------------------------------------------------------------------------------------------------

TYPED_TEST(TeamJacobiComplexTest, RandomShapesAllJobs) {
    using R = TypeParam;
    Rng rng(101);
    const Shape shapes[] = {{1, 1},   {1, 9},   {9, 1},    {2, 2},    {3, 2},
                            {2, 3},   {16, 16}, {32, 32},  {17, 11},  {11, 17},
                            {33, 31}, {31, 33}, {200, 13}, {13, 200}, {7, 7}};
    for (const Shape &s : shapes) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        check_all_jobs<R>(s.m, s.n, cgauss<R>(rng, s.m, s.n));
    }
}

TYPED_TEST(TeamJacobiComplexTest, AllSmallShapes) {
    using R = TypeParam;
    Rng rng(102);
    for (int64_t m = 1; m <= 8; ++m)
        for (int64_t n = 1; n <= 8; ++n) {
            SCOPED_TRACE(testing::Message() << m << " x " << n);
            const std::vector<C<R>> A = cgauss<R>(rng, m, n);
            expect_svd(m, n, A, run_jacobi<R>(m, n, A, true, true));
        }
}

TYPED_TEST(TeamJacobiComplexTest, PrescribedSpectraBetweenUnitaryFactors) {
    using R = TypeParam;
    Rng rng(202);
    const Shape shapes[] = {{17, 11}, {11, 17}, {24, 24}, {16, 16}};
    for (SigmaMode mode : all_sigma_modes())
        for (double cond : {1e2, 1e6, 1e12})
            for (const Shape &s : shapes) {
                SCOPED_TRACE(testing::Message() << sigma_mode_name(mode) << " cond=" << cond << " "
                                                << s.m << " x " << s.n);
                const std::vector<C<R>> A = prescribed_sv_complex<R>(rng, s.m, s.n, mode, cond);
                expect_svd(s.m, s.n, A, run_jacobi<R>(s.m, s.n, A, true, true));
            }
}

TYPED_TEST(TeamJacobiComplexTest, RealDataAsTheRealAlgorithm) {
    // Complex input with zero imaginary parts, and the same times a unit phase: the singular
    // values of the real instantiation on the real data.
    using R = TypeParam;
    Rng rng(203);
    for (const Shape &s : {Shape{15, 9}, Shape{9, 15}, Shape{12, 12}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        std::vector<R> Ar(sz(s.m * s.n));
        for (R &v : Ar) v = R(rng.normal());
        std::vector<R> Sr(sz(std::min(s.m, s.n)));
        std::vector<R> ws;
        const gk::JacobiShape sh = gk::jacobi_shape(s.m, s.n, false, false, 1);
        ws.assign(sz(sh.elems + sh.cols), R(0));
        const gk::JacobiIO<R> io{s.m, s.n, Ar.data(), s.m, Sr.data(), nullptr, 1, nullptr, 1};
        const auto rr = gk::jacobi_svd<R, int64_t, 0>(gk::SerialTeam{}, gk::SerialTeam{}, io,
                                                      gk::jacobi_work<R, int64_t>(sh, ws.data()),
                                                      R(default_tol<R>(s.m, s.n)), 30);
        ASSERT_EQ(rr.info, 0);
        std::vector<C<R>> A(sz(s.m * s.n)), P(sz(s.m * s.n));
        const C<R> ph(R(0.6), R(-0.8));
        for (size_t i = 0; i < A.size(); ++i) A[i] = C<R>(Ar[i], 0), P[i] = ph * A[i];
        for (const auto *M : {&A, &P}) {
            const Run<R> r = run_jacobi<R>(s.m, s.n, *M, true, true);
            expect_svd(s.m, s.n, *M, r);
            EXPECT_LT(sv_compare(std::min(s.m, s.n), r.S.data(), Sr.data()), kSvdThreshold);
        }
    }
}

TYPED_TEST(TeamJacobiComplexTest, ColumnGradedHighRelativeAccuracy) {
    // A = B D, D = diag(1 .. 1e-10), B complex and well conditioned: every singular value, the
    // ~1e-10 ones included, to relative accuracy O(eps cond(B)), against LAPACK zgesvj in double
    // (of the same data, exactly widened).
    using R = TypeParam;
    Rng rng(303);
    for (const Shape &s :
         {Shape{12, 8}, Shape{30, 10}, Shape{8, 12}, Shape{16, 16}, Shape{40, 33}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const bool tall = s.m >= s.n;
        // wide: grade the rows, the columns of the A^H the algorithm works on
        const std::vector<C<R>> A = tall ? graded_complex<R>(rng, s.m, s.n, 1.0, 1e-10)
                                         : graded_complex<R>(rng, s.m, s.n, 1e-10, 1.0);
        std::vector<C<double>> Aw(A.size()), Bn(A.size());
        for (size_t i = 0; i < A.size(); ++i) Aw[i] = C<double>(A[i].real(), A[i].imag());
        Bn = Aw;
        for (int64_t a = 0; a < (tall ? s.n : s.m); ++a) {
            double nr = 0;
            for (int64_t b = 0; b < (tall ? s.m : s.n); ++b)
                nr += std::norm(tall ? Aw[sz(b + a * s.m)] : Aw[sz(a + b * s.m)]);
            for (int64_t b = 0; b < (tall ? s.m : s.n); ++b)
                (tall ? Bn[sz(b + a * s.m)] : Bn[sz(a + b * s.m)]) /= std::sqrt(nr);
        }
        const std::vector<double> sb = ref_gesvj(s.m, s.n, Bn);
        const double condB = sb.front() / sb.back();
        ASSERT_LT(condB, 1000.0) << "B should be well conditioned";
        const Run<R> r = run_jacobi<R>(s.m, s.n, A, true, true);
        expect_svd(s.m, s.n, A, r);
        const std::vector<double> ref = ref_gesvj(s.m, s.n, Aw);
        EXPECT_GT(ref.front() / ref.back(), 1e8) << "the grading is real";
        const double rel = sv_relative(std::min(s.m, s.n), r.S.data(), ref.data());
        EXPECT_LT(rel, 50.0 * condB)
            << "max_i |S_i - S_ref_i| / (S_ref_i eps), cond(B) = " << condB;
        worst<SvdWorst, R>().rel = std::max(worst<SvdWorst, R>().rel, rel / condB);
    }
}

TYPED_TEST(TeamJacobiComplexTest, TwoSidedGraded) {
    using R = TypeParam;
    Rng rng(304);
    for (const Shape &s : {Shape{17, 11}, Shape{11, 17}, Shape{40, 9}, Shape{24, 24}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const std::vector<C<R>> A = graded_complex<R>(rng, s.m, s.n, 1e-5, 1e-5);
        expect_svd(s.m, s.n, A, run_jacobi<R>(s.m, s.n, A, true, true));
    }
}

TYPED_TEST(TeamJacobiComplexTest, ZeroMatrixGetsOrthonormalCompletion) {
    using R = TypeParam;
    for (const Shape &s : {Shape{1, 1}, Shape{7, 4}, Shape{4, 7}, Shape{6, 6}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const std::vector<C<R>> A(sz(s.m * s.n), C<R>(0));
        check_all_jobs<R>(s.m, s.n, A);
        const Run<R> r = run_jacobi<R>(s.m, s.n, A, true, true);
        EXPECT_EQ(r.res.sweeps, 1);
        for (R v : r.S) EXPECT_EQ(v, R(0));
    }
}

TYPED_TEST(TeamJacobiComplexTest, RankDeficientAndZeroColumns) {
    using R = TypeParam;
    Rng rng(404);
    for (const Shape &s : {Shape{20, 10}, Shape{10, 20}, Shape{12, 12}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const int64_t k = std::min(s.m, s.n);
        const std::vector<C<R>> A =
            prescribed_sv_complex<R>(rng, s.m, s.n, SigmaMode::RankDeficient, 1e3, 3);
        const std::vector<R> S = check_all_jobs<R>(s.m, s.n, A);
        for (int64_t i = 3; i < k; ++i) EXPECT_LT(double(S[sz(i)]), 50 * s.m * eps<R>());

        // Columns that are complex multiples of another (rank deficient only through the
        // phase), and exactly zero columns (the completion fills their U columns).
        std::vector<C<R>> D = cgauss<R>(rng, s.m, s.n);
        const C<R> i1(0, 1), ph(R(std::cos(0.7)), R(std::sin(0.7)));
        for (int64_t i = 0; i < s.m; ++i) {
            D[sz(i + 3 * s.m)] = i1 * D[sz(i + 1 * s.m)];
            D[sz(i + 5 * s.m)] = R(2) * ph * D[sz(i + 1 * s.m)];
            D[sz(i + 2 * s.m)] = C<R>(0);
            D[sz(i + 7 * s.m)] = C<R>(0);
        }
        const std::vector<R> SD = check_all_jobs<R>(s.m, s.n, D);
        const int64_t zeros = s.m >= s.n ? 4 : 0;  // tall: 4 of the n columns are dependent
        for (int64_t i = k - zeros; i < k; ++i)
            EXPECT_LT(double(SD[sz(i)]), 50 * s.m * eps<R>() * SD[0]);
    }
}

TYPED_TEST(TeamJacobiComplexTest, NearOverflowAndUnderflow) {
    // Parts near overflow (|a_ij| up to sqrt(2) times the largest part, the largest singular value
    // a few times more: max / 64 in the third case) and near underflow: the power-of-two scaling
    // keeps every sum of squares finite.
    using R = TypeParam;
    Rng rng(505);
    for (int which = 0; which < 3; ++which)
        for (const Shape &s :
             {Shape{17, 11}, Shape{11, 17}, Shape{16, 16}, Shape{1, 5}, Shape{5, 1}}) {
            SCOPED_TRACE(testing::Message() << which << ": " << s.m << " x " << s.n);
            std::vector<C<R>> A =
                prescribed_sv_complex<R>(rng, s.m, s.n, SigmaMode::Geometric, 1e3);
            double amax = 0;
            for (const C<R> &v : A)
                amax = std::max({amax, double(std::fabs(v.real())), double(std::fabs(v.imag()))});
            const long double target = which == 0 ? (long double)near_overflow_max<R>()
                                       : which == 1
                                           ? (long double)near_underflow_max<R>()
                                           : (long double)std::numeric_limits<R>::max() / 64;
            const long double f = target / amax;
            for (C<R> &v : A) v = C<R>(R((long double)v.real() * f), R((long double)v.imag() * f));
            const Run<R> r = run_jacobi<R>(s.m, s.n, A, true, true);
            if (which < 2) {
                expect_svd(s.m, s.n, A, r);
            } else {  // |A| itself overflows in the ratios' norms: check scaled copies instead
                EXPECT_EQ(r.res.info, 0);
                const int64_t k = std::min(s.m, s.n);
                for (R v : r.S) EXPECT_TRUE(std::isfinite(v));
                EXPECT_LT(orthogonality_h(s.m, k, r.U.data(), s.m), kSvdThreshold);
                EXPECT_LT(orthogonality_h(s.n, k, r.V.data(), s.n), kSvdThreshold);
                std::vector<C<R>> As = A;
                std::vector<R> Ss = r.S;
                for (C<R> &v : As) v /= R(1024);
                for (R &v : Ss) v /= R(1024);
                EXPECT_LT(svd_residual_h(s.m, s.n, k, As.data(), s.m, Ss.data(), r.U.data(), s.m,
                                         r.V.data(), s.n),
                          kSvdThreshold);
            }
        }
}

TYPED_TEST(TeamJacobiComplexTest, NonFiniteInputGivesNaNAndInfo) {
    using R = TypeParam;
    Rng rng(606);
    const R nan = nan_v<R>(), inf = std::numeric_limits<R>::infinity();
    for (const Shape &s : {Shape{9, 6}, Shape{6, 9}, Shape{1, 1}})
        for (const C<R> bad : {C<R>(nan, 0), C<R>(0, nan), C<R>(1, inf), C<R>(-inf, 0)}) {
            SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " with " << bad);
            std::vector<C<R>> A = cgauss<R>(rng, s.m, s.n);
            A[sz((s.m * s.n) / 2)] = bad;
            const Run<R> r = run_jacobi<R>(s.m, s.n, A, true, true);
            EXPECT_EQ(r.res.info, GPUSVD_INFO_NONFINITE);
            EXPECT_EQ(r.res.sweeps, 0);
            for (R v : r.S) EXPECT_TRUE(std::isnan(v));
            EXPECT_TRUE(all_nan_c(r.U));
            EXPECT_TRUE(all_nan_c(r.V));
        }
}

TYPED_TEST(TeamJacobiComplexTest, SweepLimitGivesPositiveInfoAndAFactorization) {
    using R = TypeParam;
    Rng rng(707);
    const int64_t m = 30, n = 20;
    const std::vector<C<R>> A = cgauss<R>(rng, m, n);
    for (int max_sweeps : {1, 2}) {
        const Run<R> r = run_jacobi<R>(m, n, A, true, true, {}, -1, max_sweeps);
        EXPECT_EQ(r.res.info, max_sweeps);
        EXPECT_EQ(r.res.sweeps, max_sweeps);
        EXPECT_GT(double(r.res.off), default_tol<R>(m, n));
        // the rotations are unitary and the columns are the rotated A: still A = U S V^H
        EXPECT_LT(svd_residual_h(m, n, n, A.data(), m, r.S.data(), r.U.data(), m, r.V.data(), n),
                  kSvdThreshold);
        EXPECT_LT(orthogonality_h(n, n, r.V.data(), n), kSvdThreshold);
        EXPECT_TRUE(is_sorted_desc_nonneg(n, r.S.data()));
    }
}

// ------------------------------------------------------------------------------------------------
// The kernels' configurations (plan.hpp, complex element sizes) on thread teams
// ------------------------------------------------------------------------------------------------

template <typename R, int W>
Run<R> run_fixed(int64_t m, int64_t n, const std::vector<C<R>> &A, bool wu, bool wv,
                 const gg::GesvjPlan &p, const Config &cfg) {
    constexpr int kFull = static_cast<int>(gg::kGesvjFixedMaxRows / W), kHalf = kFull / 2;
    const bool v = p.fixed_nv > 0;
    EXPECT_TRUE(p.fixed_na == kHalf || p.fixed_na == kFull);
    EXPECT_EQ(p.fixed_nv, v ? p.fixed_na : 0);
    if (p.fixed_na == kHalf)
        return v ? run_jacobi<R, 8, gk::FixedSlots<kHalf, kHalf>>(m, n, A, wu, wv, cfg)
                 : run_jacobi<R, 8, gk::FixedSlots<kHalf, 0>>(m, n, A, wu, wv, cfg);
    return v ? run_jacobi<R, 8, gk::FixedSlots<kFull, kFull>>(m, n, A, wu, wv, cfg)
             : run_jacobi<R, 8, gk::FixedSlots<kFull, 0>>(m, n, A, wu, wv, cfg);
}

/// The plan's configuration for a complex shape and batch on threads, for U and V, U only and
/// V only (each its own plan and layout).
template <typename R>
void check_planned(int64_t m, int64_t n, const std::vector<C<R>> &A, int64_t batch = 1,
                   bool allow_fixed = true, int lanes_override = 0) {
    for (int job = 3; job >= 1; --job) {
        const bool wu = job & 1, wv = job & 2;
        const gg::GesvjPlan p = gg::gesvj_plan(sizeof(K<R>), wu, wv, m, n, batch, kH200SmemOptin,
                                               1024, 1024, lanes_override, allow_fixed);
        Config cfg;
        cfg.members = p.path == gg::GesvjPlan::kWarp ? 32 : p.threads;
        cfg.lanes = p.lanes;
        cfg.shape = &p.shape;
        SCOPED_TRACE(testing::Message()
                     << m << " x " << n << " job " << job << ": " << cfg.members << " threads, "
                     << cfg.lanes << " lanes, fixed slots " << p.fixed_na);
        Run<R> r;
        if (p.path == gg::GesvjPlan::kGlobal)
            r = run_jacobi<R, 0>(m, n, A, wu, wv, cfg);
        else if (p.fixed_na > 0)
            r = p.lanes == 8 ? run_fixed<R, 8>(m, n, A, wu, wv, p, cfg)
                             : run_fixed<R, 16>(m, n, A, wu, wv, p, cfg);
        else
            r = run_jacobi<R, 8>(m, n, A, wu, wv, cfg);
        if (job == 3) {
            expect_svd(m, n, A, r);
            continue;
        }
        EXPECT_EQ(r.res.info, 0);
        if (wu) {
            EXPECT_LT(orthogonality_h(m, std::min(m, n), r.U.data(), m), kSvdThreshold);
        }
        if (wv) {
            EXPECT_LT(orthogonality_h(n, std::min(m, n), r.V.data(), n), kSvdThreshold);
        }
    }
}

TYPED_TEST(TeamJacobiComplexTest, PlanSizesSharedMemoryByTheElement) {
    // A complex element is twice the bytes of its real: the shared-memory paths end at about
    // 1/sqrt(2) of the real sizes, and every plan still fits the budget it was given.
    using R = TypeParam;
    const size_t e = sizeof(K<R>);
    auto plan = [&](int64_t m, int64_t n, int64_t batch = 1000) {
        return gg::gesvj_plan(e, true, true, m, n, batch, kH200SmemOptin, 1024, 1024);
    };
    EXPECT_EQ(plan(16, 16).path, gg::GesvjPlan::kWarp);
    EXPECT_EQ(plan(32, 32).path, gg::GesvjPlan::kBlock);
    EXPECT_EQ(plan(64, 64, 1).path, gg::GesvjPlan::kBlock);
    EXPECT_GT(plan(64, 64, 1).fixed_na, 0);
    EXPECT_EQ(plan(200, 200).path, gg::GesvjPlan::kGlobal);
    // the largest square matrix whose working copy fits one block's shared memory
    int64_t largest = 0;
    for (int64_t n = 1; n <= 200; ++n)
        if (plan(n, n, 1).path != gg::GesvjPlan::kGlobal) largest = n;
    const int64_t real_largest = [&] {
        int64_t l = 0;
        for (int64_t n = 1; n <= 300; ++n)
            if (gg::gesvj_plan(sizeof(R), true, true, n, n, 1, kH200SmemOptin, 1024, 1024).path !=
                gg::GesvjPlan::kGlobal)
                l = n;
        return l;
    }();
    EXPECT_LT(largest, real_largest);
    EXPECT_GT(double(largest), 0.6 * double(real_largest));
    const int64_t need = int64_t(2 * largest * largest * int64_t(e));  // A and V, at least
    EXPECT_LE(need, int64_t(kH200SmemOptin));
    for (int64_t m : {1, 2, 3, 8, 16, 17, 31, 32, 33, 63, 64, 100, 128, 300})
        for (int64_t n : {1, 2, 3, 8, 16, 17, 31, 32, 33, 63, 64, 100, 128})
            for (int64_t batch : {1, 3, 1000}) {
                SCOPED_TRACE(testing::Message() << m << " x " << n << " batch " << batch);
                const gg::GesvjPlan p = plan(m, n, batch);
                ASSERT_NE(p.path, gg::GesvjPlan::kNothing);
                EXPECT_GE(p.matrix_bytes, size_t(p.shape.elems) * e + size_t(p.shape.cols) * 4);
                if (p.path != gg::GesvjPlan::kGlobal) {
                    EXPECT_LE(p.smem_bytes + gg::kGesvjStaticSmemReserve, kH200SmemOptin);
                    EXPECT_EQ(p.smem_bytes, p.matrix_bytes * size_t(p.mats_per_block));
                }
            }
}

TYPED_TEST(TeamJacobiComplexTest, ThreadTeamsInPlannedConfigurations) {
    // (host threads with real barriers are slow: the shapes of each path, few of them)
    using R = TypeParam;
    Rng rng(909);
    for (const Shape &s : {Shape{5, 3}, Shape{11, 17}, Shape{70, 7}, Shape{1, 1}, Shape{1, 4}})
        check_planned<R>(s.m, s.n, cgauss<R>(rng, s.m, s.n));
    // 16 x 16 (warp) and 32 x 32 (block) with hard cases through the concurrent rounds: graded,
    // rank deficient with a zero column, zero
    check_planned<R>(16, 16, graded_complex<R>(rng, 16, 16, 1.0, 1e-10));
    std::vector<C<R>> D = prescribed_sv_complex<R>(rng, 32, 32, SigmaMode::RankDeficient, 1e3, 5);
    for (int64_t i = 0; i < 32; ++i) D[sz(i + 4 * 32)] = C<R>(0);
    check_planned<R>(32, 32, D);
    check_planned<R>(9, 9, std::vector<C<R>>(81, C<R>(0)));
}

TYPED_TEST(TeamJacobiComplexTest, ThreadTeamsOfTheFixedKernel) {
    using R = TypeParam;
    Rng rng(911);
    const int64_t few = gg::kGesvjFewMatrices - 1;
    for (const Shape &s : {Shape{64, 9}, Shape{9, 64}, Shape{33, 16}})
        for (bool fixed : {true, false}) {
            if (!fixed && s.n != 16) continue;  // the generic kernel: one shape
            const gg::GesvjPlan p = gg::gesvj_plan(sizeof(K<R>), true, true, s.m, s.n, few,
                                                   kH200SmemOptin, 1024, 1024, 0, fixed);
            ASSERT_EQ(p.path, gg::GesvjPlan::kBlock);
            EXPECT_EQ(p.fixed_na > 0, fixed) << s.m << " x " << s.n;
            check_planned<R>(s.m, s.n, cgauss<R>(rng, s.m, s.n), few, fixed);
        }
    check_planned<R>(20, 17, cgauss<R>(rng, 20, 17), few);
    check_planned<R>(30, 12, cgauss<R>(rng, 30, 12), few, true, 16);
    check_planned<R>(48, 10,
                     prescribed_sv_complex<R>(rng, 48, 10, SigmaMode::RankDeficient, 1e10, 4));
    check_planned<R>(40, 10, graded_complex<R>(rng, 40, 10, 1.0, 1e-10));
}

TYPED_TEST(TeamJacobiComplexTest, ThreadTeamsLikeTheGlobalKernel) {
    using R = TypeParam;
    Rng rng(910);
    Config cfg;
    cfg.members = 64;
    cfg.lanes = 32;
    cfg.align = 128 / int64_t(sizeof(K<R>));
    for (const Shape &s : {Shape{40, 9}, Shape{9, 40}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const std::vector<C<R>> A = cgauss<R>(rng, s.m, s.n);
        expect_svd(s.m, s.n, A, run_jacobi<R, 0>(s.m, s.n, A, true, true, cfg));
    }
    // narrow pair teams whose lanes hold more than the register cache (the uncached path)
    cfg.members = 8;
    cfg.lanes = 2;
    for (const Shape &s : {Shape{50, 6}, Shape{6, 50}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " uncached");
        const std::vector<C<R>> A = cgauss<R>(rng, s.m, s.n);
        expect_svd(s.m, s.n, A, run_jacobi<R, 8>(s.m, s.n, A, true, true, cfg));
    }
}

TYPED_TEST(TeamJacobiComplexTest, LargeIllConditionedConverges) {
    using R = TypeParam;
    Rng rng(512);
    for (SigmaMode mode : {SigmaMode::Geometric, SigmaMode::RankDeficient}) {
        const Shape s = mode == SigmaMode::Geometric ? Shape{100, 100} : Shape{150, 90};
        SCOPED_TRACE(testing::Message() << sigma_mode_name(mode) << " " << s.m << " x " << s.n);
        const std::vector<C<R>> A = prescribed_sv_complex<R>(rng, s.m, s.n, mode, 1e12, 3);
        const Run<R> r = run_jacobi<R>(s.m, s.n, A, true, true, {}, -1, 100);
        EXPECT_EQ(r.res.info, 0) << r.res.sweeps << " sweeps, off " << r.res.off;
        EXPECT_LE(r.res.sweeps, 60);
        expect_svd<R>(s.m, s.n, A, r);
    }
}

}  // namespace
