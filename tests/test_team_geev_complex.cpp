// The team geev algorithm of the GPU kernels (src/kernels/geev_*.hpp) for complex matrices, run
// on the host: with SerialTeam (exactly the code a warp or block runs, one member) against
// LAPACK ?geevx, and with std::threads as team members (tests/thread_team.hpp) to check that the
// work split and the redundant scalar decisions hold up with more than one member. zgeev's
// conventions: one complex eigenvalue array, right eigenvectors of unit 2-norm with the
// component of largest modulus real, info -1 for NaN/Inf input and i > 0 for a failed QR.
#include <complex>
#include <cstring>
#include <thread>

#include "geev/plan.hpp"
#include "geev_checks.hpp"
#include "kernels/geev_band.hpp"
#include "kernels/geev_team.hpp"
#include "thread_team.hpp"

using namespace gpusvd_test;
namespace kg = gpusvd::kernels::geev;

namespace {

template <typename R>
using Kx = gpusvd::kernels::Complex<R>;

static_assert(sizeof(Kx<float>) == sizeof(Cx<float>) && sizeof(Kx<double>) == sizeof(Cx<double>),
              "the team's complex type has std::complex's layout");

template <typename R>
using Result = EigOutC<R>;

/// Runs fn(team) with SerialTeam (members = 0) or on `members` threads; expects the members to
/// agree on the returned info, which it returns.
template <typename Fn>
int run_members(int members, const Fn &fn) {
    if (members == 0) return fn(gpusvd::kernels::SerialTeam{});
    ThreadGroup group(members);
    std::vector<int> infos(sz(members), -777);
    std::vector<std::thread> threads;
    for (int m = 0; m < members; ++m)
        threads.emplace_back([&, m] { infos[sz(m)] = fn(ThreadTeam(&group, m)); });
    for (auto &th : threads) th.join();
    for (int m = 1; m < members; ++m) EXPECT_EQ(infos[sz(m)], infos[0]) << "member " << m;
    return infos[0];
}

/// Runs kg::geev_team on a copy of A (n x n, ld n) with `members` threads (0: SerialTeam). H and
/// Z get padded leading dimensions; the padding of Z and the entry after w must stay untouched;
/// scale and work are exactly sized so ASan sees overruns; wi is null (complex: unused).
template <typename R>
Result<R> run_team(int64_t n, const std::vector<Cx<R>> &A, bool vectors, int members = 0,
                   int qr_itmax = 0) {
    const int ni = static_cast<int>(n);
    const int ldh = ni + 1, ldz = ni + 3;
    const Cx<R> pad(sentinel<R>(), -sentinel<R>());
    std::vector<Cx<R>> H(sz(std::max<int64_t>(int64_t(ldh) * n, 1)), pad);
    std::vector<Cx<R>> Z(sz(std::max<int64_t>(int64_t(ldz) * n, 1)), pad);
    std::vector<Cx<R>> w(sz(n + 1), pad), work(sz(3 * n));
    std::vector<R> scale(sz(n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) H[sz(i + j * ldh)] = A[sz(i + j * n)];
    const auto K = [](Cx<R> *p) { return reinterpret_cast<Kx<R> *>(p); };
    kg::GeevWork<Kx<R>> gw{{K(H.data()), ldh}, {vectors ? K(Z.data()) : nullptr, ldz},
                           K(w.data()),        nullptr,
                           scale.data(),       K(work.data())};
    Result<R> r;
    r.info = run_members(
        members, [&](const auto &t) { return kg::geev_team(t, vectors, ni, gw, qr_itmax); });
    EXPECT_EQ(w[sz(n)], pad) << "w written past n";
    r.w.assign(w.begin(), w.begin() + n);
    if (vectors) {
        EXPECT_TRUE(padding_intact(n, n, Z.data(), ldz, pad)) << "Z written outside n x n";
        r.VR.resize(sz(n * n));
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) r.VR[sz(i + j * n)] = Z[sz(i + j * ldz)];
    } else {
        EXPECT_TRUE(std::all_of(Z.begin(), Z.end(), [&](Cx<R> z) { return z == pad; }))
            << "Z referenced without vectors";
    }
    return r;
}

/// Eigenvalues in two stages (geev_band.hpp, the GPU's band kernels): the reduction writes H into
/// the caller's A (leading dimension n + 2: the padding must stay untouched) and its scalars into
/// w, the QR iteration runs on a band copy (a sentinel entry after it) with w written in place;
/// interleaved: the thread-per-matrix QR's layout, this matrix's band in one slot of
/// kGeevBandInterleave (the others must stay untouched).
template <typename R>
Result<R> run_band_stages(int64_t n, const std::vector<Cx<R>> &A, int members, int qr_itmax,
                          bool interleaved) {
    using K = Kx<R>;
    const int ni = static_cast<int>(n), lda = ni + 2, ldh = ni | 1;
    const Cx<R> pad(sentinel<R>(), -sentinel<R>());
    constexpr int S = gpusvd::gpu::kGeevBandInterleave, kSlot = 5;
    const int stride = interleaved ? S : 1, slot = interleaved ? kSlot : 0;
    std::vector<Cx<R>> U(sz(int64_t(lda) * n), pad), H(sz(int64_t(ldh) * n), pad);
    std::vector<Cx<R>> B(sz((kg::band_elems(n) + 1) * stride), pad);
    std::vector<Cx<R>> w(sz(n + 1), pad), work(sz(3 * n));
    std::vector<R> scale(sz(n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            U[sz(i + j * lda)] = A[sz(i + j * n)];
            H[sz(i + j * ldh)] = A[sz(i + j * n)];
        }
    const auto k = [](Cx<R> *p) { return reinterpret_cast<K *>(p); };
    const kg::GeevWork<K> gw{{k(H.data()), ldh}, {nullptr, 0},  k(w.data()), nullptr,
                             scale.data(),       k(work.data())};
    const kg::Mat<K> UA{k(U.data()), lda};
    // Each member runs both stages, as the two kernels' teams do (the reduction's outputs are
    // read back only through A and w, the caller's arrays in both kernels).
    auto both = [&](const auto &t) {
        const int info1 = kg::geev_reduce_stage(t, ni, gw, UA);
        if (info1 != 0) return info1;
        if (interleaved)
            return kg::geev_band_stage(t, ni, UA, kg::BandMat<K, S>{k(B.data()) + kSlot},
                                       k(w.data()), static_cast<K *>(nullptr), qr_itmax);
        return kg::geev_band_stage(t, ni, UA, kg::BandMat<K>{k(B.data())}, k(w.data()),
                                   static_cast<K *>(nullptr), qr_itmax);
    };
    Result<R> r;
    r.info = run_members(members, both);
    EXPECT_EQ(w[sz(n)], pad) << "w written past n";
    expect_own_band_only(B, sz(kg::band_elems(n)), stride, slot, pad);
    EXPECT_TRUE(padding_intact(n, n, U.data(), lda, pad)) << "A written outside n x n";
    r.w.assign(w.begin(), w.begin() + n);
    return r;
}

const auto *const kPrintWorst = print_worst_at_end<EigWorst>("complex<float>", "complex<double>");

/// eig_ratios_c's checks (info 0, eigenvalues against LAPACK's and `exact`, with vectors the
/// residual and zgeev's normalisation); the ratios of a successful run go to the worst ones.
template <typename R>
void check(int64_t n, const std::vector<Cx<R>> &A0, const Result<R> &o, bool vectors,
           const std::vector<Cx<R>> *exact = nullptr) {
    const EigRatios r = eig_ratios_c(n, A0, o, vectors, exact);
    if (o.info == 0) worst<EigWorst, R>().record(r, vectors);
}

template <typename R>
std::vector<Cx<R>> random_complex(Rng &rng, int64_t n) {
    std::vector<Cx<R>> A(sz(n * n));
    for (auto &x : A) x = Cx<R>(R(rng.normal()), R(rng.normal()));
    return A;
}

/// A scaled so that its largest modulus is near the overflow threshold (underflow: near the
/// smallest normal), in two steps: target / max|a| alone may leave the range.
template <typename R>
std::vector<Cx<R>> scaled_near_limit(std::vector<Cx<R>> A, bool underflow) {
    double amax = 0;
    for (const auto &x : A) amax = std::max(amax, double(std::abs(x)));
    const double target =
        underflow ? double(near_underflow_max<R>()) : double(near_overflow_max<R>());
    for (auto &x : A)
        x = Cx<R>(R(double(x.real()) / amax * target), R(double(x.imag()) / amax * target));
    return A;
}

/// (A + A^H) / 2 or (A - A^H) / 2.
template <typename R>
std::vector<Cx<R>> hermitian_part(int64_t n, const std::vector<Cx<R>> &A, bool skew) {
    std::vector<Cx<R>> H(A.size());
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            const Cx<R> a = A[sz(i + j * n)], b = std::conj(A[sz(j + i * n)]);
            H[sz(i + j * n)] = skew ? (a - b) / R(2) : (a + b) / R(2);
        }
    return H;
}

template <typename R>
class TeamGeevComplexTest : public ::testing::Test {};
TYPED_TEST_SUITE(TeamGeevComplexTest, Precisions, PrecisionName);

TYPED_TEST(TeamGeevComplexTest, RandomAllSizes) {
    using R = TypeParam;
    Rng rng(501);
    for (int64_t n = 1; n <= 64; ++n) {
        if (n > 20 && n % 4 != 0 && n != 31 && n != 33 && n != 63) continue;
        SCOPED_TRACE(testing::Message() << "n = " << n);
        const std::vector<Cx<R>> A = random_complex<R>(rng, n);
        check<R>(n, A, run_team<R>(n, A, true), true);
        check<R>(n, A, run_team<R>(n, A, false), false);
    }
}

TYPED_TEST(TeamGeevComplexTest, EmptyAndOneByOne) {
    using R = TypeParam;
    EXPECT_EQ(run_team<R>(0, {}, true).info, 0);
    for (Cx<R> a : {Cx<R>(-2.5, 1), Cx<R>(0, 0), Cx<R>(0, -7)}) {
        const Result<R> r = run_team<R>(1, {a}, true);
        EXPECT_EQ(r.info, 0);
        EXPECT_EQ(r.w[0], a);
        EXPECT_EQ(r.VR[0], Cx<R>(1)) << "unit vector, real";
    }
}

TYPED_TEST(TeamGeevComplexTest, HermitianAndSkewHermitian) {
    using R = TypeParam;
    Rng rng(502);
    for (int64_t n : {2, 3, 8, 17, 32, 64}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        const std::vector<Cx<R>> A = random_complex<R>(rng, n);
        const double anorm = norm1_h(n, n, A.data(), n);
        for (bool skew : {false, true}) {
            SCOPED_TRACE(skew ? "skew-Hermitian" : "Hermitian");
            const std::vector<Cx<R>> H = hermitian_part(n, A, skew);
            const Result<R> r = run_team<R>(n, H, true);
            check<R>(n, H, r, true);
            // Hermitian: real eigenvalues; skew-Hermitian: imaginary ones (normal matrices:
            // perturbed by O(eps |A|)).
            for (const Cx<R> &x : r.w)
                EXPECT_LE(std::abs(double(skew ? x.real() : x.imag())),
                          20.0 * double(n) * eps<R>() * anorm);
            // Normal matrices: the eigenvectors are orthonormal.
            EXPECT_LT(orthogonality_h(n, n, r.VR.data(), n), 20.0 * double(n));
        }
    }
}

TYPED_TEST(TeamGeevComplexTest, CompanionKnownRoots) {
    using R = TypeParam;
    const std::vector<std::vector<Cx<double>>> cases = {
        {{1, 1}, {-2, 0.5}, {0.5, -1.5}, {3, 0}, {-1, -1}},
        {{0.5, 0}, {-1, 0.25}, {2, -0.5}, {0.3, 0.4}, {0.3, -0.9}, {-0.7, 1.1}, {1.5, 0.2}},
        {{0, 1}, {0, -1}, {1, 0}},
        {{2, 0}}};
    for (const auto &roots : cases) {
        const int64_t n = int64_t(roots.size());
        SCOPED_TRACE(testing::Message() << "degree " << n);
        std::vector<Cx<double>> coef = {1};  // monic, highest degree first, exact in double
        for (const auto &z : roots) {
            coef.push_back(0);
            for (size_t i = coef.size() - 1; i > 0; --i) coef[i] -= z * coef[i - 1];
        }
        std::vector<Cx<R>> A(sz(n * n), Cx<R>(0)), exact(sz(n));
        for (int64_t j = 0; j < n; ++j) {
            const Cx<double> c = -coef[sz(j + 1)];
            A[sz(0 + j * n)] = Cx<R>(R(c.real()), R(c.imag()));
        }
        for (int64_t i = 1; i < n; ++i) A[sz(i + (i - 1) * n)] = Cx<R>(1);
        for (int64_t i = 0; i < n; ++i)
            exact[sz(i)] = Cx<R>(R(roots[sz(i)].real()), R(roots[sz(i)].imag()));
        for (bool vectors : {true, false}) {
            const Result<R> r = run_team<R>(n, A, vectors);
            check<R>(n, A, r, vectors, &exact);
        }
    }
}

TYPED_TEST(TeamGeevComplexTest, DiagonalAndTriangular) {
    using R = TypeParam;
    Rng rng(503);
    for (int64_t n : {5, 9, 32}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        std::vector<Cx<R>> D(sz(n * n), Cx<R>(0)), U(sz(n * n), Cx<R>(0)), L(sz(n * n), Cx<R>(0));
        std::vector<Cx<R>> dw(sz(n)), uw(sz(n));
        for (int64_t i = 0; i < n; ++i) {
            D[sz(i + i * n)] = dw[sz(i)] = Cx<R>(R(i + 1), R(i % 3) - R(1));
            for (int64_t j = i; j < n; ++j)
                U[sz(i + j * n)] = Cx<R>(R(rng.normal()), R(rng.normal()));
            U[sz(i + i * n)] = uw[sz(i)] = Cx<R>(R(0.5 * double(i) - 2.0), R(0.25 * double(i % 4)));
        }
        for (int64_t j = 0; j < n; ++j)  // lower triangular: the transpose of U
            for (int64_t i = 0; i < n; ++i) L[sz(i + j * n)] = U[sz(j + i * n)];
        const Result<R> d = run_team<R>(n, D, true);
        check<R>(n, D, d, true, &dw);
        // Balancing isolates every diagonal entry: exact eigenvalues, unit-vector eigenvectors.
        EXPECT_EQ(eig_match_c(n, d.w.data(), dw.data(), 1.0), 0.0);
        for (int64_t j = 0; j < n; ++j) {
            int nonzero = 0;
            for (int64_t i = 0; i < n; ++i) nonzero += d.VR[sz(i + j * n)] != Cx<R>(0);
            EXPECT_EQ(nonzero, 1) << "eigenvector " << j << " of a diagonal matrix";
        }
        const Result<R> u = run_team<R>(n, U, true);
        check<R>(n, U, u, true, &uw);
        EXPECT_EQ(eig_match_c(n, u.w.data(), uw.data(), 1.0), 0.0)
            << "triangular input: the diagonal, exactly";
        const Result<R> l = run_team<R>(n, L, true);
        check<R>(n, L, l, true, &uw);
    }
}

TYPED_TEST(TeamGeevComplexTest, RepeatedDiagonalTriangular) {
    // Triangular with one eigenvalue repeated: balancing isolates it all, and every pivot of the
    // back-substitution is perturbed to smin, so the vectors' entries grow like (|U| / smin)^k
    // and the overflow scaling must step in. The vectors stay finite, unit and backward stable
    // (they are nearly parallel: the matrix is defective).
    using R = TypeParam;
    Rng rng(512);
    for (int64_t n : {6, 24, 48}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        std::vector<Cx<R>> U(sz(n * n), Cx<R>(0));
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < j; ++i)
                U[sz(i + j * n)] = Cx<R>(R(rng.normal()), R(rng.normal()));
            U[sz(j + j * n)] = Cx<R>(1, 1);
        }
        const Result<R> r = run_team<R>(n, U, true);
        ASSERT_EQ(r.info, 0);
        for (const Cx<R> &x : r.w) EXPECT_EQ(x, Cx<R>(1, 1));
        for (const Cx<R> &x : r.VR) EXPECT_TRUE(std::isfinite(x.real()) && std::isfinite(x.imag()));
        EXPECT_LT(eig_residual_c(n, U.data(), n, r.w.data(), r.VR.data(), n), kEigThreshold);
        EXPECT_LT(normalisation_c(n, r.VR.data()), kNormThreshold);
    }
}

TYPED_TEST(TeamGeevComplexTest, ZeroMatrix) {
    using R = TypeParam;
    for (int64_t n : {1, 2, 5, 64}) {
        const std::vector<Cx<R>> Z(sz(n * n), Cx<R>(0));
        const Result<R> r = run_team<R>(n, Z, true);
        ASSERT_EQ(r.info, 0);
        for (const Cx<R> &x : r.w) EXPECT_EQ(x, Cx<R>(0));
        EXPECT_EQ(eig_residual_c(n, Z.data(), n, r.w.data(), r.VR.data(), n), 0.0);
        EXPECT_LT(normalisation_c(n, r.VR.data()), kNormThreshold);
    }
}

TYPED_TEST(TeamGeevComplexTest, BadlyScaledNeedsBalancing) {
    // S = D A D^-1 has A's eigenvalues; without balancing |S| is ~span larger and the computed
    // eigenvalues would be off by ~span eps |A|.
    using R = TypeParam;
    Rng rng(504);
    const double span = std::is_same<R, float>::value ? 1e3 : 1e6;
    for (int64_t n : {4, 10, 31}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        const std::vector<Cx<R>> A0 = random_complex<R>(rng, n);
        std::vector<Cx<R>> S(sz(n * n));
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) {
                const double di = std::pow(span, double(i) / double(n - 1) - 0.5);
                const double dj = std::pow(span, double(j) / double(n - 1) - 0.5);
                S[sz(i + j * n)] = A0[sz(i + j * n)] * R(di / dj);
            }
        const EigRefC<R> ref = ref_eig_c(n, A0);
        const Result<R> r = run_team<R>(n, S, true);
        check<R>(n, S, r, true);
        EXPECT_LE(eig_match_c(n, r.w.data(), ref.w.data(), norm1_h(n, n, A0.data(), n)),
                  20.0 * double(n) * ref.kappa * 10.0);
    }
}

TYPED_TEST(TeamGeevComplexTest, NearOverflowAndUnderflow) {
    using R = TypeParam;
    Rng rng(505);
    for (int64_t n : {3, 8, 33}) {
        for (int which = 0; which < 2; ++which) {
            SCOPED_TRACE(testing::Message()
                         << "n = " << n << (which ? " near underflow" : " near overflow"));
            const std::vector<Cx<R>> A = scaled_near_limit<R>(random_complex<R>(rng, n), which);
            const Result<R> r = run_team<R>(n, A, true);
            check<R>(n, A, r, true);
        }
    }
}

TYPED_TEST(TeamGeevComplexTest, NonFiniteInput) {
    using R = TypeParam;
    Rng rng(506);
    const R inf = std::numeric_limits<R>::infinity(), nan = nan_v<R>();
    for (int64_t n : {1, 4, 17}) {
        for (Cx<R> bad : {Cx<R>(nan, 0), Cx<R>(0, inf), Cx<R>(-inf, nan)}) {
            SCOPED_TRACE(testing::Message() << "n = " << n << " bad " << bad);
            std::vector<Cx<R>> A = random_complex<R>(rng, n);
            A[sz(n * n / 2)] = bad;
            for (bool vectors : {true, false}) {
                const Result<R> r = run_team<R>(n, A, vectors);
                EXPECT_EQ(r.info, GPUSVD_INFO_NONFINITE);
                for (const Cx<R> &x : r.w)
                    EXPECT_TRUE(std::isnan(x.real()) && std::isnan(x.imag()));
                for (const Cx<R> &x : r.VR)
                    EXPECT_TRUE(std::isnan(x.real()) && std::isnan(x.imag()));
            }
        }
    }
}

TYPED_TEST(TeamGeevComplexTest, IterationCapReached) {
    // With the QR capped at one sweep per eigenvalue most of them cannot converge: info i > 0,
    // the eigenvalues i..n-1 (0-based) converged and are eigenvalues of A, the others and the
    // vectors NaN, as zgeev's info > 0 (which leaves the unconverged ones undefined).
    using R = TypeParam;
    Rng rng(507);
    for (int64_t n : {6, 20, 40}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        const std::vector<Cx<R>> A = random_complex<R>(rng, n);
        const EigRefC<R> ref = ref_eig_c(n, A);
        const double anorm = norm1_h(n, n, A.data(), n);
        for (bool vectors : {true, false}) {
            const Result<R> r = run_team<R>(n, A, vectors, 0, 1);
            ASSERT_GT(r.info, 0);
            ASSERT_LE(r.info, n);
            for (int64_t i = 0; i < n; ++i) {
                const Cx<R> x = r.w[sz(i)];
                if (i < r.info) {
                    EXPECT_TRUE(std::isnan(x.real()) && std::isnan(x.imag())) << "i = " << i;
                    continue;
                }
                double d = std::numeric_limits<double>::infinity();
                for (const Cx<R> &y : ref.w) d = std::min(d, double(std::abs(x - y)));
                EXPECT_LE(d / (anorm * eps<R>()), 20.0 * double(n) * ref.kappa) << "i = " << i;
            }
            for (const Cx<R> &x : r.VR) EXPECT_TRUE(std::isnan(x.real()));
        }
    }
}

TYPED_TEST(TeamGeevComplexTest, ClusteredAndGraded) {
    // Eigenvalues clustered around a point (a small perturbation of a multiple of I) and
    // Hessenberg-like grading (tiny subdiagonal entries, which the QR's split and start tests
    // act on).
    using R = TypeParam;
    Rng rng(508);
    for (int64_t n : {7, 24, 48}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        std::vector<Cx<R>> A = random_complex<R>(rng, n);
        for (auto &x : A) x *= R(1e-3);
        for (int64_t i = 0; i < n; ++i) A[sz(i + i * n)] += Cx<R>(R(2), R(-1));
        check<R>(n, A, run_team<R>(n, A, true), true);
        std::vector<Cx<R>> G = random_complex<R>(rng, n);
        const double tiny = std::is_same<R, float>::value ? 1e-5 : 1e-11;
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = j + 1; i < n; ++i)
                G[sz(i + j * n)] *= R(i == j + 1 ? (j % 3 == 1 ? tiny : 1.0) : 0.0);
        check<R>(n, G, run_team<R>(n, G, true), true);
        check<R>(n, G, run_team<R>(n, G, false), false);
    }
}

/// zlahqr on its own, on a complex upper Hessenberg matrix with complex subdiagonal entries
/// (which the Householder reduction never leaves): H0 = Z T Z^H with T upper triangular and Z
/// unitary, T's diagonal LAPACK's eigenvalues.
TYPED_TEST(TeamGeevComplexTest, HessenbergWithComplexSubdiagonal) {
    using R = TypeParam;
    using K = Kx<R>;
    Rng rng(509);
    for (int members : {0, 3, 8}) {
        for (int64_t n : {2, 5, 16, 33}) {
            SCOPED_TRACE(testing::Message() << "n = " << n << " members " << members);
            std::vector<Cx<R>> H0 = random_complex<R>(rng, n);
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = j + 2; i < n; ++i) H0[sz(i + j * n)] = 0;
            std::vector<Cx<R>> H = H0, Z(sz(n * n), Cx<R>(0)), w(sz(n));
            for (int64_t i = 0; i < n; ++i) Z[sz(i + i * n)] = 1;
            const int ni = int(n);
            const kg::Mat<K> Hm{reinterpret_cast<K *>(H.data()), ni};
            const kg::Mat<K> Zm{reinterpret_cast<K *>(Z.data()), ni};
            K *wp = reinterpret_cast<K *>(w.data());
            const int info = run_members(members, [&](const auto &t) {
                auto s = kg::zlahqr_start(t, true, true, ni, 0, ni - 1, Hm, wp, Zm);
                kg::zlahqr_run(t, s);
                t.sync();
                return s.info;
            });
            ASSERT_EQ(info, 0);
            // T upper triangular with T(i, i) = w(i)
            for (int64_t j = 0; j < n; ++j) {
                EXPECT_EQ(H[sz(j + j * n)], w[sz(j)]);
                for (int64_t i = j + 1; i < n; ++i) EXPECT_EQ(H[sz(i + j * n)], Cx<R>(0));
            }
            EXPECT_LT(orthogonality_h(n, n, Z.data(), n), 20.0 * double(n));
            // |H0 - Z T Z^H| / (n |H0| eps)
            std::vector<Cx<double>> ZT(sz(n * n));
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i) {
                    Cx<double> acc = 0;
                    for (int64_t k = 0; k <= j; ++k)
                        acc += Cx<double>(Z[sz(i + k * n)]) * Cx<double>(H[sz(k + j * n)]);
                    ZT[sz(i + j * n)] = acc;
                }
            std::vector<Cx<R>> D(sz(n * n));
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i) {
                    Cx<double> acc = Cx<double>(H0[sz(i + j * n)]);
                    for (int64_t k = 0; k < n; ++k)
                        acc -= ZT[sz(i + k * n)] * std::conj(Cx<double>(Z[sz(j + k * n)]));
                    D[sz(i + j * n)] = Cx<R>(R(acc.real()), R(acc.imag()));
                }
            const double ratio =
                norm1_h(n, n, D.data(), n) / (double(n) * norm1_h(n, n, H0.data(), n) * eps<R>());
            EXPECT_LT(ratio, 20.0) << "Schur factorisation residual";
            const EigRefC<R> ref = ref_eig_c(n, H0);
            EXPECT_LE(eig_match_c(n, w.data(), ref.w.data(), norm1_h(n, n, H0.data(), n)),
                      20.0 * double(n) * ref.kappa);
        }
    }
}

TYPED_TEST(TeamGeevComplexTest, ThreadTeamsAgreeWithLapack) {
    // Several members, some idle in short loops: the work split and the redundant decisions.
    using R = TypeParam;
    Rng rng(510);
    for (int members : {2, 3, 4, 7}) {
        for (int64_t n : {1, 2, 3, 5, 8, 13, 24}) {
            SCOPED_TRACE(testing::Message() << members << " members, n = " << n);
            const std::vector<Cx<R>> A = random_complex<R>(rng, n);
            check<R>(n, A, run_team<R>(n, A, true, members), true);
            check<R>(n, A, run_team<R>(n, A, false, members), false);
        }
        SCOPED_TRACE(testing::Message() << members << " members, structured");
        const std::vector<Cx<R>> A = random_complex<R>(rng, 10);
        const std::vector<Cx<R>> H = hermitian_part(10, A, false);
        check<R>(10, H, run_team<R>(10, H, true, members), true);
        std::vector<Cx<R>> D(sz(7 * 7), Cx<R>(0));
        for (int64_t i = 0; i < 7; ++i) D[sz(i + i * 7)] = Cx<R>(R(3 - i), R(i % 2));
        D[sz(1 + 4 * 7)] = Cx<R>(2, -1);  // upper triangular, not diagonal
        check<R>(7, D, run_team<R>(7, D, true, members), true);
        std::vector<Cx<R>> Q = random_complex<R>(rng, 9);  // partly permutable (ilo > 0, ihi < n-1)
        for (int64_t j = 0; j < 9; ++j) {
            if (j != 2) Q[sz(2 + j * 9)] = 0;
            if (j != 6) Q[sz(j + 6 * 9)] = 0;
        }
        check<R>(9, Q, run_team<R>(9, Q, true, members), true);
        std::vector<Cx<R>> S = random_complex<R>(rng, 12);  // badly scaled
        for (int64_t j = 0; j < 12; ++j)
            for (int64_t i = 0; i < 12; ++i) S[sz(i + j * 12)] *= R(std::pow(4.0, double(i - j)));
        check<R>(12, S, run_team<R>(12, S, true, members), true);
        std::vector<Cx<R>> N = random_complex<R>(rng, 5);
        N[7] = Cx<R>(0, nan_v<R>());
        const Result<R> nr = run_team<R>(5, N, true, members);
        EXPECT_EQ(nr.info, GPUSVD_INFO_NONFINITE);
        for (const Cx<R> &x : nr.VR) EXPECT_TRUE(std::isnan(x.real()) && std::isnan(x.imag()));
        const Result<R> capped = run_team<R>(13, random_complex<R>(rng, 13), true, members, 1);
        EXPECT_GT(capped.info, 0);
        EXPECT_TRUE(std::isnan(capped.w[0].real()));
    }
}

lapack_int ref_larfg(int n, Cx<float> *alpha, Cx<float> *x, Cx<float> *tau) {
    return LAPACKE_clarfg(n, alpha, x, 1, tau);
}
lapack_int ref_larfg(int n, Cx<double> *alpha, Cx<double> *x, Cx<double> *tau) {
    return LAPACKE_zlarfg(n, alpha, x, 1, tau);
}

/// The complex reflectors (the Hessenberg reduction's larfg and the QR sweep's order-2
/// larfg2_complex) against LAPACK ?larfg, at scales from near underflow to near overflow, alpha
/// real or complex, x zero or not: beta real, the same tau and vector.
TYPED_TEST(TeamGeevComplexTest, ReflectorsMatchLapack) {
    using R = TypeParam;
    using K = Kx<R>;
    Rng rng(511);
    const double lo = double(std::numeric_limits<R>::min()),
                 hi = double(std::numeric_limits<R>::max());
    for (double scale : {1.0, lo * 4, lo / eps<R>(), hi / 8, std::sqrt(hi)}) {
        for (int n : {1, 2, 3, 7}) {
            for (int kind = 0; kind < 3; ++kind) {  // complex alpha; real alpha; x = 0
                SCOPED_TRACE(testing::Message()
                             << "scale " << scale << " n " << n << " kind " << kind);
                std::vector<Cx<R>> x(sz(n));
                for (auto &v : x)
                    v = kind == 2 ? Cx<R>(0)
                                  : Cx<R>(R(rng.normal() * scale), R(rng.normal() * scale));
                const Cx<R> alpha0(R(rng.normal() * scale),
                                   kind == 1 ? R(0) : R(rng.normal() * scale));
                Cx<R> ra = alpha0, rtau;
                std::vector<Cx<R>> rx = x;
                ASSERT_EQ(ref_larfg(n, &ra, rx.data(), &rtau), 0);
                K ka{alpha0.real(), alpha0.imag()};
                std::vector<Cx<R>> kx = x;
                const K ktau = kg::larfg(gpusvd::kernels::SerialTeam{}, n, ka,
                                         reinterpret_cast<K *>(kx.data()));
                const double tol = 8 * eps<R>();
                EXPECT_EQ(ka.im, R(0)) << "beta real";
                EXPECT_LE(std::abs(double(ka.re) - double(ra.real())),
                          tol * std::abs(double(ra.real())));
                EXPECT_LE(std::abs(Cx<double>(ktau.re, ktau.im) - Cx<double>(rtau)), tol * 2);
                for (int i = 0; i + 1 < n; ++i)
                    EXPECT_LE(std::abs(Cx<double>(kx[sz(i)]) - Cx<double>(rx[sz(i)])),
                              tol * (1 + std::abs(Cx<double>(rx[sz(i)]))));
                if (n == 2) {
                    K a2{alpha0.real(), alpha0.imag()}, x2{x[0].real(), x[0].imag()}, t2;
                    kg::larfg2_complex(a2, x2, t2);
                    EXPECT_EQ(a2.im, R(0));
                    EXPECT_LE(std::abs(double(a2.re) - double(ra.real())),
                              tol * std::abs(double(ra.real())));
                    EXPECT_LE(std::abs(Cx<double>(t2.re, t2.im) - Cx<double>(rtau)), tol * 2);
                    EXPECT_LE(std::abs(Cx<double>(x2.re, x2.im) - Cx<double>(rx[0])),
                              tol * (1 + std::abs(Cx<double>(rx[0]))));
                }
            }
        }
    }
}

TYPED_TEST(TeamGeevComplexTest, KernelPlanByElementBytes) {
    // cuda/geev/plan.hpp for complex elements (8 and 16 bytes), as geev.cu calls it by default:
    // shared memory and team widths from the element's bytes, every n served; without vectors
    // the band kernels by the real rule (n >= 3 with 8-lane teams or n >= 16), their stage 2 in
    // band storage (a thread per matrix for 8-lane teams' small n). H100's limits: 227 KiB a
    // block (opt-in), 228 KiB an SM.
    namespace gg = gpusvd::gpu;
    const size_t elem = 2 * sizeof(TypeParam), optin = 232448, per_sm = 233472;
    for (bool v : {false, true}) {
        for (int64_t n : {1, 2, 5, 12, 13, 20, 21, 30, 33, 64, 65, 100, 200, 1000}) {
            SCOPED_TRACE(testing::Message() << "n = " << n << (v ? " VEC" : " NOVEC"));
            const gg::GeevPlan p = gg::geev_plan(elem, true, v, n, 1000, optin, per_sm, 1024);
            const size_t bytes = gg::geev_shared_elems(v, n) * elem;
            if (n <= gg::kGeevWarpMaxN && bytes <= optin) {
                ASSERT_EQ(p.path, gg::GeevPlan::kWarp);
                const int width = gg::geev_team_width(elem, true, v, n);
                EXPECT_TRUE(p.team == width || p.team == 32);
                EXPECT_EQ(p.z_global, v) << "complex vectors keep Z in VR";
                EXPECT_GE(p.matrix_bytes, gg::geev_shared_elems(false, n) * elem);
                EXPECT_LE(p.smem_bytes, optin);
                EXPECT_EQ(p.mats_per_block % (32 / p.team), 0);
                EXPECT_EQ(p.smem_bytes, p.matrix_bytes * size_t(p.mats_per_block));
                EXPECT_EQ(p.band, !v && n >= 3 && (p.team == 8 || n >= 16));
                if (p.band) {
                    EXPECT_GE(p.reduce.matrix_bytes, gg::geev_reduce_bytes(elem, n));
                    EXPECT_LE(p.reduce.smem_bytes, optin);
                    EXPECT_LE(p.qr.smem_bytes, optin);
                    EXPECT_EQ(p.qr.team == 1, p.team == 8 && gg::geev_small_n(elem, n));
                    if (p.qr.team != 1) {
                        EXPECT_EQ(p.qr.team, p.team);
                        EXPECT_GE(p.qr.matrix_bytes, gg::geev_band_bytes(elem, n));
                        // the band's smaller footprint keeps more matrices resident
                        EXPECT_GT(per_sm / p.qr.matrix_bytes, per_sm / p.matrix_bytes);
                    }
                }
            } else if (bytes <= optin - gg::kGeevScratchBytes) {
                EXPECT_EQ(p.path, gg::GeevPlan::kBlock);
                EXPECT_EQ(p.smem_bytes, bytes);
            } else {
                EXPECT_EQ(p.path, gg::GeevPlan::kGlobal);
                EXPECT_EQ(p.ws_bytes, 4 * size_t(n) * elem * size_t(p.grid));
            }
        }
    }
    // Both complex precisions take the complex rule: values 8 lanes up to n = 30, then 32;
    // vectors 8 up to 24, 16 up to 32, then 32 (real double: values 16 lanes at 30).
    for (size_t e : {size_t(8), size_t(16)}) {
        EXPECT_EQ(gg::geev_team_width(e, true, false, 30), 8);
        EXPECT_EQ(gg::geev_team_width(e, true, false, 31), 32);
        EXPECT_EQ(gg::geev_team_width(e, true, true, 24), 8);
        EXPECT_EQ(gg::geev_team_width(e, true, true, 25), 16);
        EXPECT_EQ(gg::geev_team_width(e, true, true, 32), 16);
        EXPECT_EQ(gg::geev_team_width(e, true, true, 33), 32);
    }
    EXPECT_EQ(gg::geev_team_width(8, false, false, 30), 16);
    // Z in VR is the complex default; forced off (GPUSVD_GEEV_Z_GLOBAL=0) it is in shared memory
    // again, and real types keep it there by default.
    const gg::GeevPlan zs =
        gg::geev_plan(elem, true, true, 30, 1000, optin, per_sm, 1024, 0, -1, 0, -1, 2048, 0);
    EXPECT_FALSE(zs.z_global);
    EXPECT_GE(zs.matrix_bytes, gg::geev_shared_elems(true, 30) * elem);
    EXPECT_FALSE(gg::geev_plan(elem, false, true, 30, 1000, optin, per_sm, 1024).z_global);
    // A forced 8-lane stage 1 that would put more matrices in a block than fit (complex double
    // n = 64: four 64x65 H a warp) falls back to the team's width.
    const gg::GeevPlan r8 =
        gg::geev_plan(elem, true, false, 64, 1000, optin, per_sm, 1024, 8, -1, 8);
    ASSERT_TRUE(r8.band);
    EXPECT_LE(r8.reduce.smem_bytes, optin);
    EXPECT_GT(r8.reduce.threads, 0);
}

/// The two band stages give bitwise the eigenvalues and info of geev_team without vectors (same
/// arithmetic, H in band storage): sizes around the GPU's band range, balancing permutations,
/// scaling near over/underflow, zero, triangular, Hermitian, NaN/Inf, forced QR failure; one
/// member and several (against geev_team with as many), one member also on the GPU
/// thread-per-matrix QR's interleaved bands.
TYPED_TEST(TeamGeevComplexTest, BandStagesMatchOneStage) {
    using R = TypeParam;
    Rng rng(413);
    std::vector<std::pair<int64_t, std::vector<Cx<R>>>> mats;
    for (int64_t n : {3, 4, 5, 8, 13, 16, 20, 21, 30, 33, 64})
        mats.emplace_back(n, random_complex<R>(rng, n));
    for (int which = 0; which < 2; ++which) {
        mats.emplace_back(20, scaled_near_limit<R>(random_complex<R>(rng, 20), which));
    }
    {
        const int64_t n = 17;  // isolated eigenvalues at both ends: ilo > 0, ihi < n-1
        std::vector<Cx<R>> A = random_complex<R>(rng, n);
        for (int64_t j = 0; j < n; ++j)
            if (j != 2) A[sz(2 + j * n)] = Cx<R>(0);
        for (int64_t i = 0; i < n; ++i)
            if (i != 12) A[sz(i + 12 * n)] = Cx<R>(0);
        mats.emplace_back(n, A);
    }
    mats.emplace_back(10, std::vector<Cx<R>>(100, Cx<R>(0)));
    {
        std::vector<Cx<R>> A = random_complex<R>(rng, 12);
        for (int64_t j = 0; j < 12; ++j)
            for (int64_t i = j + 1; i < 12; ++i) A[sz(i + j * 12)] = Cx<R>(0);
        mats.emplace_back(12, A);
    }
    mats.emplace_back(15, hermitian_part<R>(15, random_complex<R>(rng, 15), false));
    for (R bad : {std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::infinity()}) {
        std::vector<Cx<R>> A = random_complex<R>(rng, 9);
        A[sz(3 + 7 * 9)] = Cx<R>(R(1), bad);
        mats.emplace_back(9, A);
    }
    const int failed = compare_band_stages(
        mats,
        [](int64_t n, const std::vector<Cx<R>> &A, int members, int itmax) {
            return run_team<R>(n, A, false, members, itmax);
        },
        run_band_stages<R>,
        [](int64_t n, const Result<R> &one, const Result<R> &two) {
            for (int64_t i = 0; i < n; ++i)  // bitwise, NaN included (NaN != NaN)
                EXPECT_EQ(std::memcmp(&two.w[sz(i)], &one.w[sz(i)], sizeof(Cx<R>)), 0)
                    << i << ": " << two.w[sz(i)] << " vs " << one.w[sz(i)];
        });
    EXPECT_GT(failed, 0) << "a cap of 2 iterations should make some runs fail";
}

}  // namespace
