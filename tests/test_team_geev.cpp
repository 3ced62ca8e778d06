// The team geev algorithm of the GPU kernels (src/kernels/geev_*.hpp), run on the host: with
// SerialTeam (exactly the code a warp or block runs, one member) against LAPACK ?geevx, and with
// ThreadTeam (std::threads acting as team members with real barriers, up to the 32 of a warp
// and the block sizes cuda/geev/plan.hpp picks) to check that the work split and the redundant
// scalar decisions hold up with more than one member. Also the kernel choice of plan.hpp.
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <utility>
#include <thread>

#include "geev/plan.hpp"
#include "geev_checks.hpp"
#include "kernels/geev_band.hpp"
#include "kernels/geev_team.hpp"
#include "test_common.hpp"

using namespace gpusvd_test;
namespace kg = gpusvd::kernels::geev;

namespace {

constexpr double kEigThreshold = 20.0;  // DESIGN.md: |A VR - VR W| / (n |A| eps) < 20

/// Team members as threads: barrier on a mutex/condition variable, reductions through slots
/// every member reads in the same order (so all get bitwise the same result, as on the GPU).
/// The barrier also checks that all members arrive from the same call site (the redundant
/// decisions agree); on a mismatch or a member that never arrives it records the failure and
/// stops synchronising, so a broken algorithm fails the test instead of hanging it.
class ThreadTeam {
public:
    struct Shared {
        explicit Shared(int members) : size(members), slots(static_cast<size_t>(members)) {}
        std::mutex m;
        std::condition_variable cv;
        int size, arrived = 0;
        long generation = 0;
        const char *file = "";
        int line = 0;
        bool broken = false;
        std::vector<double> slots;
    };
    ThreadTeam(Shared *s, int r) : sh_(s), rank_(r) {}
    int rank() const { return rank_; }
    int size() const { return sh_->size; }
    // The defaults are evaluated at the caller: the source line of the t.sync() in team code.
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        barrier(file, line);
    }
    template <class V>
    V sum(V v, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return reduce(file, line, v, [](V a, V b) { return a + b; });
    }
    template <class V>
    V max(V v, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return reduce(file, line, v, [](V a, V b) { return a > b ? a : b; });
    }

private:
    void barrier(const char *file, int line) const {
        std::unique_lock<std::mutex> lk(sh_->m);
        if (sh_->broken) return;
        const long g = sh_->generation;
        if (sh_->arrived == 0) sh_->file = file, sh_->line = line;
        if (line != sh_->line || std::strcmp(file, sh_->file) != 0)
            sh_->broken = true;  // members took different paths
        if (++sh_->arrived == sh_->size) {
            sh_->arrived = 0;
            ++sh_->generation;
            sh_->cv.notify_all();
        } else if (!sh_->cv.wait_for(lk, std::chrono::seconds(20),
                                     [&] { return sh_->generation != g || sh_->broken; })) {
            sh_->broken = true;  // someone never arrived
        }
        if (sh_->broken) sh_->cv.notify_all();
    }
    template <class V, class Op>
    V reduce(const char *file, int line, V v, Op op) const {
        barrier(file, line);  // the previous readers are done with the slots
        sh_->slots[static_cast<size_t>(rank_)] = double(v);  // exact for float, double, int
        barrier(file, line);
        V r = V(sh_->slots[0]);
        for (int i = 1; i < sh_->size; ++i) r = op(r, V(sh_->slots[static_cast<size_t>(i)]));
        return r;
    }
    Shared *sh_;
    int rank_;
};

template <typename T>
struct Result {
    std::vector<T> wr, wi, VR;  // VR: n x n, leading dimension n
    int info = -777;
};

/// Runs fn(team) with SerialTeam (members = 0) or on `members` threads as a ThreadTeam; expects
/// the members to agree on the returned info, which it returns.
template <typename Fn>
int run_members(int members, const Fn &fn) {
    if (members == 0) return fn(gpusvd::kernels::SerialTeam{});
    ThreadTeam::Shared shared(members);
    std::vector<int> infos(sz(members), -777);
    std::vector<std::thread> threads;
    for (int m = 0; m < members; ++m)
        threads.emplace_back([&, m] { infos[sz(m)] = fn(ThreadTeam(&shared, m)); });
    for (auto &th : threads) th.join();
    EXPECT_FALSE(shared.broken) << "team members diverged or a barrier timed out";
    for (int m = 1; m < members; ++m) EXPECT_EQ(infos[sz(m)], infos[0]) << "member " << m;
    return infos[0];
}

/// Runs kg::geev_team on a copy of A (n x n, ld n) with `members` threads (0: SerialTeam).
/// H and Z get padded leading dimensions; the padding of Z and the entries after wr/wi must
/// stay untouched; scale and work are exactly sized so ASan sees overruns.
template <typename T>
Result<T> run_team(int64_t n, const std::vector<T> &A, bool vectors, int members = 0,
                   int qr_itmax = 0) {
    const int ni = static_cast<int>(n);
    const int ldh = ni + 1, ldz = ni + 3;
    const T pad = sentinel<T>();
    std::vector<T> H(sz(std::max<int64_t>(int64_t(ldh) * n, 1)), pad);
    std::vector<T> Z(sz(std::max<int64_t>(int64_t(ldz) * n, 1)), pad);
    std::vector<T> wr(sz(n + 1), pad), wi(sz(n + 1), pad);
    std::vector<T> scale(sz(n)), work(sz(3 * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) H[sz(i + j * ldh)] = A[sz(i + j * n)];
    kg::GeevWork<T> w{{H.data(), ldh}, {vectors ? Z.data() : nullptr, ldz},
                      wr.data(),       wi.data(),
                      scale.data(),    work.data()};
    Result<T> r;
    r.info = run_members(members,
                         [&](const auto &t) { return kg::geev_team(t, vectors, ni, w, qr_itmax); });
    EXPECT_EQ(wr[sz(n)], pad) << "wr written past n";
    EXPECT_EQ(wi[sz(n)], pad) << "wi written past n";
    r.wr.assign(wr.begin(), wr.begin() + n);
    r.wi.assign(wi.begin(), wi.begin() + n);
    if (vectors) {
        EXPECT_TRUE(padding_intact(n, n, Z.data(), ldz, pad)) << "Z written outside n x n";
        r.VR.resize(sz(n * n));
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) r.VR[sz(i + j * n)] = Z[sz(i + j * ldz)];
    } else {
        EXPECT_TRUE(all_equal(Z, pad)) << "Z referenced without vectors";
    }
    return r;
}

const auto *const kPrintWorst = print_worst_at_end<EigWorst>();

/// Checks one result: info 0, ?geev layout, eigenvalues matched to LAPACK (and to `exact` if
/// given) within 20 n kappa |A| eps, and with vectors the residual and normalisation.
template <typename T>
void check(int64_t n, const std::vector<T> &A0, const Result<T> &o, bool vectors,
           const double *exact_re = nullptr, const double *exact_im = nullptr) {
    ASSERT_EQ(o.info, 0);
    EXPECT_TRUE(eig_pairs_ok(n, o.wr.data(), o.wi.data()))
        << "complex pairs adjacent, positive imaginary part first";
    const double anorm = double(norm1(n, n, A0.data(), n));
    const EigRef<T> ref = ref_eig(n, A0);
    const double tol = 20.0 * double(std::max<int64_t>(n, 1)) * ref.kappa;
    const double match =
        eig_match(n, o.wr.data(), o.wi.data(), ref.wr.data(), ref.wi.data(), anorm);
    EXPECT_LE(match, tol) << "eigenvalues vs LAPACK: max |lambda - lambda_ref| / (|A| eps), kappa "
                          << ref.kappa;
    if (exact_re) {
        const double me = eig_match(n, o.wr.data(), o.wi.data(), exact_re, exact_im, anorm);
        EXPECT_LE(me, tol) << "eigenvalues vs the exact ones";
    }
    EigRatios r;
    r.match = match;
    r.kappa = ref.kappa;
    if (vectors) {
        const double resid =
            eig_residual(n, A0.data(), n, o.wr.data(), o.wi.data(), o.VR.data(), n);
        EXPECT_LT(resid, kEigThreshold) << "|A VR - VR W| / (n |A| eps)";
        const double nrm = eigvec_normalization(n, o.wi.data(), o.VR.data(), n);
        EXPECT_LT(nrm, kNormThreshold) << "unit 2-norm, largest component real";
        r.resid = resid;
        r.norm = nrm;
        if (verbose())
            std::printf("  n=%lld match %.3g (tol %.3g) resid %.3g norm %.3g\n", (long long)n,
                        match, tol, resid, nrm);
    }
    worst<EigWorst, T>().record(r, vectors);
}

template <typename T>
class TeamGeevTest : public ::testing::Test {};
TYPED_TEST_SUITE(TeamGeevTest, Precisions, PrecisionName);

TYPED_TEST(TeamGeevTest, RandomAllSizes) {
    using T = TypeParam;
    Rng rng(401);
    for (int64_t n = 1; n <= 65; ++n) {
        if (n > 20 && n % 4 != 0 && n != 31 && n != 33 && n != 63 && n != 65) continue;
        SCOPED_TRACE(testing::Message() << "n = " << n);
        for (int b = 0; b < 2; ++b) {
            const std::vector<T> A = gaussian<T>(rng, n, n);
            const Result<T> v = run_team<T>(n, A, true);
            check<T>(n, A, v, true);
            const Result<T> e = run_team<T>(n, A, false);
            check<T>(n, A, e, false);
        }
    }
}

TYPED_TEST(TeamGeevTest, EmptyMatrix) {
    using T = TypeParam;
    const Result<T> r = run_team<T>(0, {}, true);
    EXPECT_EQ(r.info, 0);
}

TYPED_TEST(TeamGeevTest, OneByOneAndTwoByTwo) {
    using T = TypeParam;
    for (T a : {T(-2.5), T(0), T(7)}) {
        const Result<T> r = run_team<T>(1, {a}, true);
        EXPECT_EQ(r.info, 0);
        EXPECT_EQ(r.wr[0], a);
        EXPECT_EQ(r.wi[0], T(0));
        EXPECT_EQ(std::fabs(r.VR[0]), T(1));
    }
    // Rotation-like (complex pair), real distinct, repeated, and already triangular 2x2s.
    const std::vector<std::vector<T>> mats = {{T(1), T(-2), T(3), T(1)}, {T(4), T(1), T(2), T(3)},
                                              {T(2), T(0), T(1), T(2)},  {T(0), T(1), T(-1), T(0)},
                                              {T(1), T(0), T(5), T(-3)}, {T(0), T(0), T(0), T(0)}};
    for (const auto &A : mats) {
        SCOPED_TRACE(testing::Message()
                     << "A = [" << A[0] << " " << A[2] << "; " << A[1] << " " << A[3] << "]");
        const Result<T> r = run_team<T>(2, A, true);
        check<T>(2, A, r, true);
    }
    // x^2 + 1 as a companion matrix: exactly +-i, positive imaginary part first.
    const Result<T> r = run_team<T>(2, {T(0), T(1), T(-1), T(0)}, false);
    EXPECT_EQ(r.wr[0], T(0));
    EXPECT_EQ(r.wi[0], T(1));
    EXPECT_EQ(r.wi[1], T(-1));
}

TYPED_TEST(TeamGeevTest, CompanionKnownRoots) {
    using T = TypeParam;
    const double re1[] = {0.5, -1.0, 2.0, 0.3, 0.3, -0.7, -0.7, 1.5, 1.5};
    const double im1[] = {0.0, 0.0, 0.0, 0.4, -0.4, 1.1, -1.1, 0.2, -0.2};
    const double re2[] = {1.0, -2.0, 3.0, -4.0};
    const double im2[] = {0.0, 0.0, 0.0, 0.0};
    const double re3[] = {0.0, 0.0, 1.0};
    const double im3[] = {1.0, -1.0, 0.0};  // (x^2 + 1)(x - 1)
    struct Case {
        int64_t n;
        const double *re, *im;
    };
    for (const Case &c : {Case{9, re1, im1}, Case{4, re2, im2}, Case{3, re3, im3}}) {
        SCOPED_TRACE(testing::Message() << "degree " << c.n);
        std::vector<T> A(sz(c.n * c.n));
        companion(c.n, c.re, c.im, A.data(), c.n);
        for (bool vectors : {true, false}) {
            const Result<T> r = run_team<T>(c.n, A, vectors);
            check<T>(c.n, A, r, vectors, c.re, c.im);
        }
    }
}

TYPED_TEST(TeamGeevTest, ComplexPairsOnly) {
    using T = TypeParam;
    Rng rng(402);
    for (int64_t n : {2, 6, 7, 10, 16, 33, 64}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        std::vector<T> A(sz(n * n));
        std::vector<double> re(sz(n)), im(sz(n));
        complex_pairs(rng, n, A.data(), n, re.data(), im.data(), 4.0);
        const Result<T> r = run_team<T>(n, A, true);
        check<T>(n, A, r, true, re.data(), im.data());
        int complex_count = 0;
        for (T v : r.wi) complex_count += v != T(0);
        EXPECT_EQ(complex_count, n - n % 2);
    }
}

TYPED_TEST(TeamGeevTest, JordanBlock) {
    // Defective: the eigenvalues move by ~(eps |A|)^(1/n) and the vectors are nearly parallel;
    // only the backward error is meaningful.
    using T = TypeParam;
    for (int64_t n : {2, 4, 6, 9}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        std::vector<T> J(sz(n * n));
        jordan_block(n, 2.0, J.data(), n);
        const Result<T> r = run_team<T>(n, J, true);
        ASSERT_EQ(r.info, 0);
        EXPECT_TRUE(eig_pairs_ok(n, r.wr.data(), r.wi.data()));
        EXPECT_LT(eig_residual(n, J.data(), n, r.wr.data(), r.wi.data(), r.VR.data(), n),
                  kEigThreshold);
        EXPECT_LT(eigvec_normalization(n, r.wi.data(), r.VR.data(), n), kNormThreshold);
        const double bound = 10.0 * std::pow(eps<T>() * 3.0, 1.0 / double(n));
        for (int64_t i = 0; i < n; ++i)
            EXPECT_LT(std::hypot(double(r.wr[sz(i)]) - 2.0, double(r.wi[sz(i)])), bound);
    }
}

TYPED_TEST(TeamGeevTest, DiagonalAndTriangular) {
    using T = TypeParam;
    Rng rng(403);
    for (int64_t n : {5, 9, 32}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        std::vector<T> D(sz(n * n), T(0)), U(sz(n * n), T(0)), L(sz(n * n), T(0));
        std::vector<double> dre(sz(n)), zim(sz(n), 0.0), ure(sz(n));
        for (int64_t i = 0; i < n; ++i) {
            D[sz(i + i * n)] = T(double(i + 1) * (i % 2 ? -1 : 1));
            dre[sz(i)] = double(D[sz(i + i * n)]);
            for (int64_t j = i; j < n; ++j) U[sz(i + j * n)] = T(rng.normal());
            U[sz(i + i * n)] = T(0.5 * double(i) - 2.0);
            ure[sz(i)] = double(U[sz(i + i * n)]);
        }
        for (int64_t j = 0; j < n; ++j)  // lower triangular: the transpose of U
            for (int64_t i = 0; i < n; ++i) L[sz(i + j * n)] = U[sz(j + i * n)];
        const Result<T> d = run_team<T>(n, D, true);
        check<T>(n, D, d, true, dre.data(), zim.data());
        // Balancing isolates every diagonal entry: exact eigenvalues, unit-vector eigenvectors.
        EXPECT_EQ(eig_match(n, d.wr.data(), d.wi.data(), dre.data(), zim.data(), 1.0), 0.0);
        for (int64_t j = 0; j < n; ++j) {
            int nonzero = 0;
            for (int64_t i = 0; i < n; ++i) nonzero += d.VR[sz(i + j * n)] != T(0);
            EXPECT_EQ(nonzero, 1) << "eigenvector " << j << " of a diagonal matrix";
        }
        const Result<T> u = run_team<T>(n, U, true);
        check<T>(n, U, u, true, ure.data(), zim.data());
        EXPECT_EQ(eig_match(n, u.wr.data(), u.wi.data(), ure.data(), zim.data(), 1.0), 0.0)
            << "triangular input: the diagonal, exactly";
        const Result<T> l = run_team<T>(n, L, true);
        check<T>(n, L, l, true, ure.data(), zim.data());
    }
}

TYPED_TEST(TeamGeevTest, ZeroMatrix) {
    using T = TypeParam;
    for (int64_t n : {1, 2, 5, 64}) {
        std::vector<T> Z(sz(n * n), T(0));
        const Result<T> r = run_team<T>(n, Z, true);
        ASSERT_EQ(r.info, 0);
        for (int64_t i = 0; i < n; ++i) {
            EXPECT_EQ(r.wr[sz(i)], T(0));
            EXPECT_EQ(r.wi[sz(i)], T(0));
        }
        EXPECT_EQ(eig_residual(n, Z.data(), n, r.wr.data(), r.wi.data(), r.VR.data(), n), 0.0);
        EXPECT_LT(eigvec_normalization(n, r.wi.data(), r.VR.data(), n), kNormThreshold);
    }
}

TYPED_TEST(TeamGeevTest, BadlyScaledNeedsBalancing) {
    // S = D A D^-1 has A's eigenvalues; without balancing |S| is ~span larger and the computed
    // eigenvalues would be off by ~span eps |A|.
    using T = TypeParam;
    Rng rng(404);
    const double span = std::is_same<T, float>::value ? 1e3 : 1e6;
    for (int64_t n : {4, 10, 31}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        const std::vector<T> A0 = gaussian<T>(rng, n, n);
        std::vector<T> S(sz(n * n));
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) {
                const double di = std::pow(span, double(i) / double(n - 1) - 0.5);
                const double dj = std::pow(span, double(j) / double(n - 1) - 0.5);
                S[sz(i + j * n)] = T(double(A0[sz(i + j * n)]) * di / dj);
            }
        const EigRef<T> ref = ref_eig(n, A0);
        std::vector<double> re(ref.wr.begin(), ref.wr.end()), im(ref.wi.begin(), ref.wi.end());
        const Result<T> r = run_team<T>(n, S, true);
        check<T>(n, S, r, true);
        // The eigenvalues of the unscaled A, to the accuracy A itself determines them (a
        // balancing-free algorithm would need a tolerance ~span times larger).
        EXPECT_LE(eig_match(n, r.wr.data(), r.wi.data(), re.data(), im.data(),
                            double(norm1(n, n, A0.data(), n))),
                  20.0 * double(n) * ref.kappa * 10.0);
    }
}

TYPED_TEST(TeamGeevTest, NearOverflowAndUnderflow) {
    using T = TypeParam;
    Rng rng(405);
    for (int64_t n : {3, 8, 33}) {
        for (int which = 0; which < 2; ++which) {
            SCOPED_TRACE(testing::Message()
                         << "n = " << n << (which ? " near underflow" : " near overflow"));
            std::vector<T> A = gaussian<T>(rng, n, n);
            scale_max_abs(n, n, A.data(), n,
                          which ? near_underflow_max<T>() : near_overflow_max<T>());
            const Result<T> r = run_team<T>(n, A, true);
            check<T>(n, A, r, true);
        }
    }
}

TYPED_TEST(TeamGeevTest, SymmetricRealSpectrum) {
    using T = TypeParam;
    Rng rng(406);
    const int64_t n = 12;
    std::vector<double> lam(sz(n)), zeros(sz(n), 0.0);
    for (int64_t i = 0; i < n; ++i) lam[sz(i)] = double(i) - 5.5;
    std::vector<T> A(sz(n * n));
    symmetric_with_eigenvalues(rng, n, lam.data(), A.data(), n);
    const Result<T> r = run_team<T>(n, A, true);
    check<T>(n, A, r, true, lam.data(), zeros.data());
    for (T v : r.wi) EXPECT_EQ(v, T(0));
    EXPECT_LT(orthogonality(n, n, r.VR.data(), n), kEigThreshold * 10);
}

TYPED_TEST(TeamGeevTest, PermutableStructure) {
    // Rows and columns that isolate eigenvalues after permutation (ilo > 0, ihi < n-1), mixed
    // with a dense block: exercises gebal's searches and gebak's swaps.
    using T = TypeParam;
    Rng rng(407);
    const int64_t n = 9;
    std::vector<T> A = gaussian<T>(rng, n, n);
    for (int64_t j = 0; j < n; ++j) {
        if (j != 2) A[sz(2 + j * n)] = T(0);  // row 2 isolates A(2,2)
        if (j != 6) A[sz(j + 6 * n)] = T(0);  // column 6 isolates A(6,6)
    }
    for (int64_t i = 0; i < n; ++i)
        if (i != 4 && i != 2) A[sz(i + 4 * n)] = T(0);  // column 4: only A(2,4), A(4,4)
    for (bool vectors : {true, false}) {
        const Result<T> r = run_team<T>(n, A, vectors);
        check<T>(n, A, r, vectors);
    }
}

TYPED_TEST(TeamGeevTest, NonFiniteGivesNaN) {
    using T = TypeParam;
    Rng rng(408);
    const int64_t n = 6;
    for (T bad :
         {nan_v<T>(), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity()}) {
        for (bool vectors : {true, false}) {
            std::vector<T> A = gaussian<T>(rng, n, n);
            A[sz(4 + 5 * n)] = bad;
            const Result<T> r = run_team<T>(n, A, vectors);
            EXPECT_EQ(r.info, GPUSVD_INFO_NONFINITE);
            EXPECT_TRUE(all_nan(n, 1, r.wr.data(), n));
            EXPECT_TRUE(all_nan(n, 1, r.wi.data(), n));
            if (vectors) {
                EXPECT_TRUE(all_nan(n, n, r.VR.data(), n));
            }
        }
    }
    // A 1x1 NaN too.
    const Result<T> r = run_team<T>(1, {nan_v<T>()}, true);
    EXPECT_EQ(r.info, GPUSVD_INFO_NONFINITE);
}

/// QR failure (forced by a tiny iteration cap): info = i > 0 as dgeev, eigenvalues i..n-1
/// (0-based) are eigenvalues of A, the unconverged ones and all vectors are NaN.
TYPED_TEST(TeamGeevTest, NonConvergenceReportsInfo) {
    using T = TypeParam;
    Rng rng(411);
    const int64_t n = 12;
    int failures = 0, partial = 0;
    for (int trial = 0; trial < 8; ++trial) {
        const int itmax = 2 + trial % 4;
        std::vector<T> A = gaussian<T>(rng, n, n);
        const EigRef<T> ref = ref_eig(n, A);
        const double anorm = double(norm1(n, n, A.data(), n));
        for (int members : {0, 3}) {
            for (bool vectors : {true, false}) {
                SCOPED_TRACE(testing::Message() << "itmax " << itmax << ", " << members
                                                << " members" << (vectors ? " VEC" : " NOVEC"));
                const Result<T> r = run_team<T>(n, A, vectors, members, itmax);
                if (r.info == 0) {
                    check<T>(n, A, r, vectors);
                    continue;
                }
                ++failures;
                ASSERT_GT(r.info, 0);
                ASSERT_LE(r.info, n);
                const int64_t conv = n - r.info;
                partial += conv > 0;
                EXPECT_TRUE(all_nan(r.info, 1, r.wr.data(), r.info)) << "unconverged: NaN";
                EXPECT_TRUE(all_nan(r.info, 1, r.wi.data(), r.info));
                // Each converged value is one of A's eigenvalues.
                for (int64_t i = r.info; i < n; ++i) {
                    double best = std::numeric_limits<double>::infinity();
                    for (int64_t j = 0; j < n; ++j)
                        best =
                            std::min(best, std::hypot(double(r.wr[sz(i)]) - double(ref.wr[sz(j)]),
                                                      double(r.wi[sz(i)]) - double(ref.wi[sz(j)])));
                    EXPECT_LE(best / (anorm * eps<T>()), 20.0 * double(n) * ref.kappa) << i;
                }
                if (vectors) {
                    EXPECT_TRUE(all_nan(n, n, r.VR.data(), n));
                }
            }
        }
    }
    EXPECT_GT(failures, 0) << "caps of 2..5 iterations should make some runs fail";
    EXPECT_GT(partial, 0) << "and some fail after converging a few eigenvalues";
}

/// Eigenvalues in two stages (geev_band.hpp, the GPU's band kernels): the reduction writes H into
/// the caller's A (leading dimension n + 2: the padding must stay untouched), the QR iteration
/// runs on a band copy (a sentinel entry after it) with wr/wi written in place.
template <typename T>
Result<T> run_band_stages(int64_t n, const std::vector<T> &A, int members, int qr_itmax = 0,
                          bool interleaved = false) {
    const int ni = static_cast<int>(n), lda = ni + 2, ldh = ni | 1;
    const T pad = sentinel<T>();
    // interleaved: the thread-per-matrix QR's layout, this matrix's band in slot kSlot of
    // kGeevBandInterleave (the others must stay untouched).
    constexpr int S = gpusvd::gpu::kGeevBandInterleave, kSlot = 5;
    std::vector<T> U(sz(int64_t(lda) * n), pad), H(sz(int64_t(ldh) * n), pad);
    // One more entry row than the band: this matrix's entry past its end is the sentinel.
    const int stride = interleaved ? S : 1, slot = interleaved ? kSlot : 0;
    std::vector<T> B(sz((kg::band_elems(n) + 1) * stride), pad);
    std::vector<T> wr(sz(n + 1), pad), wi(sz(n + 1), pad);
    std::vector<T> scale(sz(n)), work(sz(3 * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            U[sz(i + j * lda)] = A[sz(i + j * n)];
            H[sz(i + j * ldh)] = A[sz(i + j * n)];
        }
    const kg::GeevWork<T> w{{H.data(), ldh}, {nullptr, 0}, wr.data(),
                            wi.data(),       scale.data(), work.data()};
    const kg::Mat<T> UA{U.data(), lda};
    // Each member runs both stages, as the two kernels' teams do (the reduction's outputs are
    // read back only through A and wr/wi, the caller's arrays in both kernels).
    auto both = [&](const auto &t) {
        const int info1 = kg::geev_reduce_stage(t, ni, w, UA);
        if (info1 != 0) return info1;
        if (interleaved)
            return kg::geev_band_stage(t, ni, UA, kg::BandMat<T, S>{B.data() + kSlot}, wr.data(),
                                       wi.data(), qr_itmax);
        return kg::geev_band_stage(t, ni, UA, kg::BandMat<T>{B.data()}, wr.data(), wi.data(),
                                   qr_itmax);
    };
    Result<T> r;
    r.info = run_members(members, both);
    EXPECT_EQ(wr[sz(n)], pad) << "wr written past n";
    EXPECT_EQ(wi[sz(n)], pad) << "wi written past n";
    expect_own_band_only(B, sz(kg::band_elems(n)), stride, slot, pad);
    EXPECT_TRUE(padding_intact(n, n, U.data(), lda, pad)) << "A written outside n x n";
    r.wr.assign(wr.begin(), wr.begin() + n);
    r.wi.assign(wi.begin(), wi.begin() + n);
    return r;
}

/// The two band stages give bitwise the eigenvalues and info of geev_team without vectors (same
/// arithmetic, H in band storage): random sizes around the GPU's band range, balancing
/// permutations, scaling near over/underflow, zero, triangular, NaN/Inf, forced QR failure; one
/// member and several (against geev_team with as many), one member also on the GPU
/// thread-per-matrix QR's interleaved bands.
TYPED_TEST(TeamGeevTest, BandStagesMatchOneStage) {
    using T = TypeParam;
    Rng rng(412);
    std::vector<std::pair<int64_t, std::vector<T>>> mats;
    for (int64_t n : {3, 4, 5, 6, 7, 8, 16, 20, 25, 30, 33, 40, 64})
        mats.emplace_back(n, gaussian<T>(rng, n, n));
    for (int which = 0; which < 2; ++which) {
        std::vector<T> A = gaussian<T>(rng, 20, 20);
        scale_max_abs(20, 20, A.data(), 20,
                      which ? near_underflow_max<T>() : near_overflow_max<T>());
        mats.emplace_back(20, A);
    }
    {
        const int64_t n = 17;  // isolated eigenvalues at both ends: ilo > 0, ihi < n-1
        std::vector<T> A = gaussian<T>(rng, n, n);
        for (int64_t j = 0; j < n; ++j)
            if (j != 2) A[sz(2 + j * n)] = T(0);
        for (int64_t i = 0; i < n; ++i)
            if (i != 12) A[sz(i + 12 * n)] = T(0);
        mats.emplace_back(n, A);
    }
    mats.emplace_back(10, std::vector<T>(100, T(0)));
    {
        std::vector<T> A = gaussian<T>(rng, 12, 12);
        for (int64_t j = 0; j < 12; ++j)
            for (int64_t i = j + 1; i < 12; ++i) A[sz(i + j * 12)] = T(0);
        mats.emplace_back(12, A);
    }
    for (T bad : {nan_v<T>(), std::numeric_limits<T>::infinity()}) {
        std::vector<T> A = gaussian<T>(rng, 9, 9);
        A[sz(3 + 7 * 9)] = bad;
        mats.emplace_back(9, A);
    }
    const int failed = compare_band_stages(
        mats,
        [](int64_t n, const std::vector<T> &A, int members, int itmax) {
            return run_team<T>(n, A, false, members, itmax);
        },
        run_band_stages<T>,
        [](int64_t n, const Result<T> &one, const Result<T> &two) {
            for (int64_t i = 0; i < n; ++i) {  // bitwise, NaN included (NaN != NaN)
                EXPECT_EQ(std::memcmp(&two.wr[sz(i)], &one.wr[sz(i)], sizeof(T)), 0) << i;
                EXPECT_EQ(std::memcmp(&two.wi[sz(i)], &one.wi[sz(i)], sizeof(T)), 0) << i;
            }
        });
    EXPECT_GT(failed, 0) << "a cap of 2 sweeps should make some QR runs fail";
}

/// Several members with real barriers: each thread runs the whole algorithm on its share, on
/// matrices that take every branch (balancing permutations and scaling, 2x2 blocks, defective,
/// scaled into range, NaN). Also more members than rows.
TYPED_TEST(TeamGeevTest, ThreadTeamsMatchLapack) {
    using T = TypeParam;
    Rng rng(409);
    for (int members : {2, 3, 4, 7}) {
        for (int64_t n : {1, 2, 3, 5, 8, 13, 24}) {
            SCOPED_TRACE(testing::Message() << members << " members, n = " << n);
            const std::vector<T> A = gaussian<T>(rng, n, n);
            check<T>(n, A, run_team<T>(n, A, true, members), true);
            check<T>(n, A, run_team<T>(n, A, false, members), false);
        }
        SCOPED_TRACE(testing::Message() << members << " members, structured");
        std::vector<T> P(sz(10 * 10));
        std::vector<double> re(10), im(10);
        complex_pairs(rng, 10, P.data(), 10, re.data(), im.data(), 4.0);
        check<T>(10, P, run_team<T>(10, P, true, members), true, re.data(), im.data());
        const double cre[] = {0.5, -1.0, 2.0, 0.3, 0.3, -0.7, -0.7};
        const double cim[] = {0.0, 0.0, 0.0, 0.4, -0.4, 1.1, -1.1};
        std::vector<T> C(sz(7 * 7));
        companion(7, cre, cim, C.data(), 7);
        check<T>(7, C, run_team<T>(7, C, true, members), true, cre, cim);
        std::vector<T> D(sz(7 * 7), T(0));
        for (int64_t i = 0; i < 7; ++i) D[sz(i + i * 7)] = T(3 - i);
        D[sz(1 + 4 * 7)] = T(2);  // upper triangular, not diagonal
        check<T>(7, D, run_team<T>(7, D, true, members), true);
        std::vector<T> Q = gaussian<T>(rng, 9, 9);  // partly permutable (ilo > 0, ihi < n-1)
        for (int64_t j = 0; j < 9; ++j) {
            if (j != 2) Q[sz(2 + j * 9)] = T(0);
            if (j != 6) Q[sz(j + 6 * 9)] = T(0);
        }
        check<T>(9, Q, run_team<T>(9, Q, true, members), true);
        std::vector<T> S = gaussian<T>(rng, 12, 12);  // badly scaled
        for (int64_t j = 0; j < 12; ++j)
            for (int64_t i = 0; i < 12; ++i) S[sz(i + j * 12)] *= T(std::pow(4.0, double(i - j)));
        check<T>(12, S, run_team<T>(12, S, true, members), true);
        // A row and a column far below the rest (2^(-0.7 max_exp)): their squares underflow, so
        // gebal's norms take the scaled second pass. Values only: LAPACK's own vectors of such a
        // matrix have residuals ~1e14 n |A| eps.
        std::vector<T> G = gaussian<T>(rng, 10, 10);
        const T tiny = T(std::pow(2.0, -0.7 * double(gpusvd::kernels::Real<T>::max_exp())));
        for (int64_t q = 0; q < 10; ++q) G[sz(3 + q * 10)] *= tiny, G[sz(q + 6 * 10)] *= tiny;
        check<T>(10, G, run_team<T>(10, G, false, members), false);
        std::vector<T> O = gaussian<T>(rng, 6, 6);  // scaled into range first
        scale_max_abs(6, 6, O.data(), 6, near_overflow_max<T>());
        check<T>(6, O, run_team<T>(6, O, true, members), true);
        std::vector<T> J(sz(6 * 6));
        jordan_block(6, -1.0, J.data(), 6);
        const Result<T> jr = run_team<T>(6, J, true, members);
        EXPECT_LT(eig_residual(6, J.data(), 6, jr.wr.data(), jr.wi.data(), jr.VR.data(), 6),
                  kEigThreshold);
        std::vector<T> Zm(sz(5 * 5), T(0));
        const Result<T> zr = run_team<T>(5, Zm, true, members);
        EXPECT_EQ(zr.info, 0);
        EXPECT_EQ(eig_residual(5, Zm.data(), 5, zr.wr.data(), zr.wi.data(), zr.VR.data(), 5), 0.0);
        std::vector<T> N = gaussian<T>(rng, 5, 5);
        N[7] = nan_v<T>();
        const Result<T> nr = run_team<T>(5, N, true, members);
        EXPECT_EQ(nr.info, GPUSVD_INFO_NONFINITE);
        EXPECT_TRUE(all_nan(5, 5, nr.VR.data(), 5));
    }
}

inline lapack_int lapacke_larfg(lapack_int n, double *alpha, double *x, double *tau) {
    return LAPACKE_dlarfg(n, alpha, x, 1, tau);
}
inline lapack_int lapacke_larfg(lapack_int n, float *alpha, float *x, float *tau) {
    return LAPACKE_slarfg(n, alpha, x, 1, tau);
}

/// larfg3 (the bulge chase's reflector) against LAPACK ?larfg, order 2 and 3, at scales from
/// near underflow to near overflow: its one-square-root path where the sum of squares is safe,
/// dlapy2 and rescaling elsewhere, the thresholds between them included. Also checks what the
/// reflector does: H (alpha, x2, x3)^T = (beta, 0, 0)^T.
TYPED_TEST(TeamGeevTest, Larfg3MatchesLapack) {
    using T = TypeParam;
    namespace kg = gpusvd::kernels::geev;
    using R = gpusvd::kernels::Real<T>;
    Rng rng(77);
    const T ovf = kg::Limits<T>::overflow();
    const T edge = std::sqrt(R::safe_min() / R::ulp());  // |x| where the fast path starts
    const std::vector<T> scales = {R::safe_min(),  T(0.5) * edge, edge,   T(2) * edge,
                                   T(1e-5),        T(1),          T(1e5), std::sqrt(ovf) / T(2),
                                   std::sqrt(ovf), ovf / T(8)};
    for (int order : {2, 3})
        for (T scale : scales)
            for (int rep = 0; rep < 20; ++rep) {
                SCOPED_TRACE(testing::Message() << "order " << order << " scale " << scale);
                std::vector<T> x = gaussian<T>(rng, 3, 1);
                for (T &v : x) v *= scale / T(4);
                if (order == 2) x[2] = T(0);
                if (rep == 0) x[0] = T(0);  // alpha = 0
                T a = x[0], x2 = x[1], x3 = x[2], tau;
                kg::larfg3(order, a, x2, x3, tau);
                T ra = x[0], rtau;
                T rx[2] = {x[1], x[2]};
                ASSERT_EQ(lapacke_larfg(order, &ra, rx, &rtau), 0);
                const double tol = 8.0 * double(R::ulp());
                EXPECT_LE(std::fabs(double(a) - double(ra)), tol * std::fabs(double(ra))) << "beta";
                EXPECT_LE(std::fabs(double(tau) - double(rtau)),
                          tol * std::fabs(double(rtau)) + 1e-300)
                    << "tau";
                const double vmax =
                    std::max({std::fabs(double(rx[0])), std::fabs(double(rx[1])), 1e-300});
                EXPECT_LE(std::fabs(double(x2) - double(rx[0])), tol * vmax) << "v2";
                if (order == 3) {
                    EXPECT_LE(std::fabs(double(x3) - double(rx[1])), tol * vmax) << "v3";
                }
                // H x with v = (1, x2, x3): x - tau v (v^T x), in long double for the check.
                const long double v[3] = {1.0L, x2, order == 3 ? x3 : 0.0L};
                const long double in[3] = {x[0], x[1], x[2]};
                long double d = 0;
                for (int i = 0; i < 3; ++i) d += v[i] * (in[i] / (long double)scale);
                const long double b = (long double)a / scale;
                const double e0 = double(std::fabs(in[0] / scale - tau * v[0] * d - b));
                const double e1 = double(std::fabs(in[1] / scale - tau * v[1] * d));
                const double e2 = double(std::fabs(in[2] / scale - tau * v[2] * d));
                EXPECT_LE(std::max({e0, e1, e2}), 16.0 * double(R::ulp())) << "H x = beta e1";
            }
}

/// The team sizes the kernels use: 8, 16 and 32 lanes (the warp path's TileTeam) and the block
/// path's threads (plan.hpp).
TYPED_TEST(TeamGeevTest, KernelTeamSizes) {
    using T = TypeParam;
    Rng rng(410);
    const gpusvd::gpu::GeevPlan bp =
        gpusvd::gpu::geev_plan(sizeof(T), false, true, 100, 10, 232448, 233472, 1024);
    ASSERT_EQ(bp.path, gpusvd::gpu::GeevPlan::kBlock);
    for (int members : {8, 16, 32, bp.threads}) {
        for (int64_t n : {3, 7, 12}) {
            if (members > 32 && n > 7) continue;  // a thread per member: keep it quick
            SCOPED_TRACE(testing::Message() << members << " members, n = " << n);
            std::vector<T> A = gaussian<T>(rng, n, n);
            check<T>(n, A, run_team<T>(n, A, true, members), true);
        }
    }
}

TEST(TeamGeevPlan, PicksTheDocumentedPaths) {
    namespace gg = gpusvd::gpu;
    const size_t optin = 232448, per_sm = 233472;  // H100/H200: 227 KiB per block, 228 per SM
    auto plan = [&](size_t e, bool v, int64_t n, int64_t batch = 1000, size_t block = 0) {
        return gg::geev_plan(e, false, v, n, batch, block ? block : optin, per_sm, 1024);
    };
    for (size_t e : {sizeof(float), sizeof(double)})
        for (bool v : {false, true}) {
            for (int64_t n : {1, 2, 5, 30, 33, 64}) {
                const gg::GeevPlan p = plan(e, v, n);
                EXPECT_EQ(p.path, gg::GeevPlan::kWarp) << n;
                EXPECT_EQ(p.team, gg::geev_team_width(e, false, v, n)) << n;
                EXPECT_EQ(p.threads % 32, 0);
                EXPECT_EQ(p.mats_per_block, p.threads / p.team) << "a team per matrix";
                EXPECT_EQ(p.ld % 2, 1) << "odd shared leading dimension";
                EXPECT_GE(p.matrix_bytes, gg::geev_shared_elems(v, n) * e);
                EXPECT_LE(p.smem_bytes, optin);
                EXPECT_EQ(p.ws_bytes, 0u);
                EXPECT_EQ(p.grid, (1000 + p.mats_per_block - 1) / p.mats_per_block);
            }
            EXPECT_EQ(plan(e, v, 65).path, gg::GeevPlan::kBlock);
            EXPECT_EQ(plan(e, v, 65).ws_bytes, 0u);
            const gg::GeevPlan g = plan(e, v, 300, 5000);
            EXPECT_EQ(g.path, gg::GeevPlan::kGlobal);
            EXPECT_EQ(g.grid, gg::kGeevGlobalMaxBlocks);
            EXPECT_EQ(g.ws_bytes, size_t(g.grid) * 4 * 300 * e);
            EXPECT_EQ(plan(e, v, 0).path, gg::GeevPlan::kNothing);
            EXPECT_EQ(plan(e, v, 5, 0).path, gg::GeevPlan::kNothing);
        }
    // Small matrices share a warp; the team width can be forced (tuning), anything else ignored.
    EXPECT_EQ(plan(8, false, 5).team, 8);
    EXPECT_EQ(plan(8, false, 15).team, 8);
    EXPECT_EQ(plan(8, false, 29).team, 8);
    EXPECT_EQ(plan(8, false, 30).team, 16);
    EXPECT_EQ(plan(8, false, 32).team, 16);
    EXPECT_EQ(plan(8, false, 33).team, 32);
    EXPECT_EQ(plan(4, false, 15).team, 8);
    EXPECT_EQ(plan(4, false, 32).team, 8);
    EXPECT_EQ(plan(4, false, 33).team, 32);
    EXPECT_EQ(plan(8, true, 30).team, 8) << "vectors: 8 lanes up to 30";
    EXPECT_EQ(plan(4, true, 30).team, 8);
    EXPECT_EQ(plan(8, true, 31).team, 32);
    EXPECT_EQ(plan(4, true, 31).team, 16);
    for (int w : {8, 16, 32}) {
        const gg::GeevPlan p = gg::geev_plan(8, false, false, 30, 1000, optin, per_sm, 1024, w);
        EXPECT_EQ(p.team, w);
        EXPECT_EQ(p.mats_per_block, p.threads / w);
        EXPECT_EQ(p.smem_bytes, p.matrix_bytes * size_t(p.mats_per_block));
    }
    EXPECT_EQ(gg::geev_plan(8, false, false, 30, 1000, optin, per_sm, 1024, 12).team,
              gg::geev_team_width(8, false, false, 30));
    // Values only with 16 lanes: two kernels. Stage 1 holds H, scale and tau (no wr, wi or the
    // vectors' work); the QR on band storage holds twice the matrices per SM (30x30 double: 48
    // instead of 24); forced on for 32 lanes, off by GPUSVD_GEEV_BAND=0.
    auto resident = [&](size_t smem, int mats) { return int(per_sm / (smem + 1024)) * mats; };
    auto check_shape = [&](const gg::GeevWarpShape &s, int team, size_t min_bytes) {
        EXPECT_EQ(s.team, team);
        EXPECT_GE(s.matrix_bytes, min_bytes);
        EXPECT_EQ(s.matrix_bytes % 16, 0u);
        EXPECT_EQ(s.threads % 32, 0);
        EXPECT_EQ(s.mats_per_block, s.threads / team);
        EXPECT_EQ(s.smem_bytes, s.matrix_bytes * size_t(s.mats_per_block));
        EXPECT_LE(s.smem_bytes, optin);
        EXPECT_EQ(s.grid, (1000 + s.mats_per_block - 1) / s.mats_per_block);
    };
    // Both band kernels' shapes: the QR on the band, stage 1 on H (n x ld), scales and tau.
    auto check_band = [&](const gg::GeevPlan &p, int64_t n, size_t e, int qr_team, int rt) {
        ASSERT_TRUE(p.band);
        check_shape(p.qr, qr_team, size_t(kg::band_elems(n)) * e);
        check_shape(p.reduce, rt, (size_t(n) * size_t(gg::geev_shared_ld(n)) + 2 * size_t(n)) * e);
    };
    for (size_t e : {sizeof(float), sizeof(double)})
        for (int64_t n : {16, 20, 25, 30, 32}) {
            for (int rt : {0, 16, 32}) {
                const gg::GeevPlan p =  // the QR's thread per matrix (small n) off
                    gg::geev_plan(e, false, false, n, 1000, optin, per_sm, 1024, 16, -1, rt, 0);
                SCOPED_TRACE(testing::Message() << "n = " << n << ", elem " << e << ", " << rt);
                check_band(p, n, e, 16, rt ? rt : 16);
                EXPECT_LT(p.reduce.matrix_bytes, p.matrix_bytes);
                if (e == 8 && n == 30) {
                    EXPECT_GE(resident(p.qr.smem_bytes, p.qr.mats_per_block),
                              2 * resident(p.smem_bytes, p.mats_per_block));
                    EXPECT_GT(resident(p.reduce.smem_bytes, p.reduce.mats_per_block),
                              resident(p.smem_bytes, p.mats_per_block));
                }
            }
        }
    EXPECT_TRUE(plan(8, false, 30).band);
    // The QR a thread per matrix: kGeevBandInterleave bands interleaved in each region, whole
    // warps a block wherever two regions fit.
    auto check_thread = [&](const gg::GeevWarpShape &s, int64_t n, size_t e) {
        size_t rows = size_t(kg::band_elems(n));
        if (e == 4 && rows % 2 == 0) ++rows;  // odd entry rows per region for 4-byte entries
        const size_t region = rows * e * gg::kGeevBandInterleave;
        EXPECT_EQ(s.team, 1);
        EXPECT_EQ(s.matrix_bytes, region);
        EXPECT_EQ(s.mats_per_block % gg::kGeevBandInterleave, 0);
        EXPECT_EQ(s.threads, s.mats_per_block);
        EXPECT_EQ(s.smem_bytes, region * size_t(s.mats_per_block / gg::kGeevBandInterleave));
        EXPECT_LE(s.smem_bytes, optin);
        if (2 * region <= optin) {
            EXPECT_EQ(s.threads % 32, 0) << "whole warps";
            // The most matrices per SM, in the smallest blocks that hold that many.
            auto per_sm_mats = [&](int64_t regions) {  // at most 32 blocks, 2048 threads
                int64_t blocks = int64_t(per_sm / (size_t(regions) * region + 1024));
                const int64_t by_threads = 2048 / (regions * gg::kGeevBandInterleave);
                blocks = blocks < 32 ? blocks : 32;
                blocks = blocks < by_threads ? blocks : by_threads;
                return blocks * regions * gg::kGeevBandInterleave;
            };
            const int64_t mine = s.mats_per_block / gg::kGeevBandInterleave;
            for (int64_t r = 2; r * 16 <= 1024 && size_t(r) * region <= optin; r += 2)
                if (r < mine)
                    EXPECT_LT(per_sm_mats(r), per_sm_mats(mine)) << r;
                else
                    EXPECT_LE(per_sm_mats(r), per_sm_mats(mine)) << r;
        }
        EXPECT_EQ(s.grid, (1000 + s.mats_per_block - 1) / s.mats_per_block);
    };
    // 8 lanes (values only up to 29 double, 32 float): the band from n = 3, stage 1 with 8 up to
    // n = 20 (double) or 25 (float), then 16; the QR a thread per matrix up to 15 or 19.
    for (size_t e : {sizeof(float), sizeof(double)})
        for (int64_t n : {3, 4, 5, 7, 10, 14, 15, 18, 19, 20, 21, 25, 26}) {
            const int rt = n <= (e == 4 ? 25 : 20) ? 8 : 16;
            const gg::GeevPlan p = plan(e, false, n);
            SCOPED_TRACE(testing::Message() << "8 lanes, n = " << n << ", elem " << e);
            if (n <= (e == 4 ? 19 : 15)) {
                EXPECT_TRUE(p.band);
                check_thread(p.qr, n, e);
                check_shape(p.reduce, rt,
                            (size_t(n) * size_t(gg::geev_shared_ld(n)) + 2 * size_t(n)) * e);
            } else {
                check_band(p, n, e, 8, rt);
            }
        }
    // Forced on (where a region fits), or off.
    auto forced = [&](int64_t n, int qr_thread) {
        return gg::geev_plan(8, false, false, n, 1000, optin, per_sm, 1024, 0, -1, 0, qr_thread);
    };
    // Registers bound the thread kernel's resident threads: the smallest blocks reaching them
    // (5x5 double: 19 blocks of a warp for 608 threads; bigger blocks without that bound).
    EXPECT_EQ(gg::geev_thread_shape(8, 5, 1000, optin, per_sm, 1024, 608).threads, 32);
    EXPECT_GT(gg::geev_thread_shape(8, 5, 1000, optin, per_sm, 1024).threads, 32);
    EXPECT_EQ(
        gg::geev_plan(8, false, false, 5, 1000, optin, per_sm, 1024, 0, -1, 0, -1, 608).qr.threads,
        32);
    check_thread(forced(30, 1).qr, 30, 8);
    EXPECT_EQ(forced(30, 1).reduce.team, 16);
    EXPECT_EQ(forced(64, 1).qr.team, 32) << "16 bands of 64x64 double exceed a block";
    EXPECT_EQ(forced(5, 0).qr.team, 8);
    EXPECT_EQ(forced(16, -1).qr.team, 8);
    EXPECT_EQ(forced(16, -1).reduce.team, 8);
    EXPECT_EQ(forced(21, -1).reduce.team, 16);
    EXPECT_EQ(gg::geev_plan(4, false, false, 16, 1000, optin, per_sm, 1024, 16).qr.team, 16)
        << "small n with 16 lanes forced: the 16-lane QR";
    EXPECT_EQ(gg::geev_plan(4, false, false, 16, 1000, optin, per_sm, 1024, 16).reduce.team, 16);
    EXPECT_EQ(gg::geev_plan(8, false, false, 10, 1000, optin, per_sm, 1024, 0, -1, 16).reduce.team,
              16)
        << "stage 1's lanes forced";
    EXPECT_EQ(plan(4, false, 32).qr.team, 8);
    EXPECT_TRUE(plan(8, false, 3).band);
    EXPECT_FALSE(plan(8, false, 2).band) << "below kGeevBandMinN";
    for (size_t e : {sizeof(float), sizeof(double)})
        for (int64_t n : {33, 40, 64}) {
            const gg::GeevPlan p = plan(e, false, n);
            SCOPED_TRACE(testing::Message() << "32 lanes, n = " << n << ", elem " << e);
            check_band(p, n, e, 32, 32);
            EXPECT_GE(2 * resident(p.qr.smem_bytes, p.qr.mats_per_block),
                      3 * resident(p.smem_bytes, p.mats_per_block))
                << "the band holds at least 1.5x the matrices per SM";
        }
    EXPECT_FALSE(plan(8, true, 20).band) << "vectors need the full Schur form";
    EXPECT_TRUE(gg::geev_plan(8, false, false, 30, 1000, optin, per_sm, 1024, 0, 1).band);
    EXPECT_FALSE(gg::geev_plan(8, false, false, 20, 1000, optin, per_sm, 1024, 0, 0).band);
    EXPECT_FALSE(gg::geev_plan(8, false, false, 2, 1000, optin, per_sm, 1024, 16, 1).band)
        << "stage 1 hands five scalars over in wr[0..2] and wi[0..1]";
    // n = 64 double with vectors needs ~70 KB: without the opt-in it goes global.
    EXPECT_EQ(plan(8, true, 64, 10, 48 * 1024).path, gg::GeevPlan::kGlobal);
    // Small matrices share blocks; 64x64 double with vectors fits three per SM, one per block.
    EXPECT_GT(plan(8, false, 5).mats_per_block, 1);
    EXPECT_EQ(plan(8, true, 64).mats_per_block, 1);
    EXPECT_EQ(plan(8, true, 2000, 1).ws_bytes, 4 * 2000 * 8u);
    EXPECT_EQ(plan(8, true, int64_t(1) << 60, 1 << 20).ws_bytes, SIZE_MAX) << "saturates";
}

// geev_plan's z_global (GPUSVD_GEEV_Z_GLOBAL): with Z in the user's VR the warp path's vectors
// kernel needs the shared memory of values only, so more matrices fit an SM; values-only plans,
// and the block and global paths, are unchanged. By default complex types keep Z in VR and real
// types in shared memory.
TEST(TeamGeevPlan, ZInGlobalMemoryHalvesTheVectorsWorkingSet) {
    namespace gg = gpusvd::gpu;
    const size_t optin = 232448, per_sm = 233472;
    const std::pair<size_t, bool> types[] = {
        {sizeof(float), false}, {sizeof(double), false}, {8, true}, {16, true}};
    for (const auto &[e, cplx] : types)
        for (int64_t n : {5, 20, 30, 64, 100}) {
            SCOPED_TRACE(testing::Message() << "elem " << e << (cplx ? " complex" : " real")
                                            << ", n = " << n);
            auto plan = [&, e = e, cplx = cplx](bool v, int z_global) {
                return gg::geev_plan(e, cplx, v, n, 1000, optin, per_sm, 1024, 0, -1, 0, -1, 2048,
                                     z_global);
            };
            const gg::GeevPlan z = plan(true, 1), s = plan(true, 0), d = plan(true, -1);
            EXPECT_FALSE(s.z_global);
            EXPECT_EQ(z.path, s.path);
            EXPECT_EQ(d.z_global, cplx ? z.z_global : false) << "the element type's default";
            if (s.path != gg::GeevPlan::kWarp) {
                EXPECT_FALSE(z.z_global);
                EXPECT_EQ(z.smem_bytes, s.smem_bytes);
                continue;
            }
            EXPECT_TRUE(z.z_global);
            EXPECT_EQ(z.matrix_bytes, (gg::geev_shared_elems(false, n) * e + 15) / 16 * 16);
            EXPECT_LT(z.matrix_bytes, s.matrix_bytes);
            EXPECT_LE(z.smem_bytes, optin);
            EXPECT_GE(z.mats_per_block, s.mats_per_block);
            EXPECT_FALSE(plan(false, 1).z_global);
        }
}

}  // namespace
