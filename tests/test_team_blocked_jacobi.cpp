// The blocked one-sided Jacobi of one large matrix (cuda/gesvj/blocked*), on the host: the block
// ordering and workspace layout of blocked_plan.hpp, the per-pair Gram solver gram_jacobi
// (src/kernels/jacobi_gram.hpp; SerialTeam and ThreadTeam with the kernel's thread counts), and
// the whole sweep loop modelled with plain loops for the GEMMs (same slots, same padding, same
// stopping rule) against LAPACK's singular values.
#include <algorithm>
#include <random>
#include <set>
#include <utility>

#include "gesvj/blocked_plan.hpp"
#include "kernels/jacobi_gram.hpp"
#include "test_common.hpp"
#include "thread_team.hpp"

using namespace gpusvd_test;
namespace gk = gpusvd::kernels;
namespace gg = gpusvd::gpu;

namespace {

template <typename T>
class TeamBlockedJacobiTest : public ::testing::Test {};
TYPED_TEST_SUITE(TeamBlockedJacobiTest, Precisions, PrecisionName);

TEST(BlockedJacobiOrdering, EveryBlockPairMeetsOncePerSweepAndBlocksReturnHome) {
    for (int nblocks = 2; nblocks <= 64; nblocks += 2) {
        SCOPED_TRACE(testing::Message() << "nblocks = " << nblocks);
        std::vector<int> at(sz(nblocks));  // at[slot] = block there
        for (int s = 0; s < nblocks; ++s) at[sz(s)] = s;
        std::set<std::pair<int, int>> met;
        for (int round = 0; round < nblocks - 1; ++round) {
            for (int k = 0; k < nblocks / 2; ++k) {
                const int a = std::min(at[sz(2 * k)], at[sz(2 * k + 1)]);
                const int b = std::max(at[sz(2 * k)], at[sz(2 * k + 1)]);
                EXPECT_TRUE(met.insert({a, b}).second) << a << "," << b << " twice";
            }
            std::vector<int> next(sz(nblocks), -1);
            for (int s = 0; s < nblocks; ++s) {
                const int d = gg::blocked_next_slot(s, nblocks);
                ASSERT_GE(d, 0);
                ASSERT_LT(d, nblocks);
                EXPECT_EQ(next[sz(d)], -1) << "two blocks move to slot " << d;
                next[sz(d)] = at[sz(s)];
            }
            at = next;
        }
        EXPECT_EQ(met.size(), sz(nblocks * (nblocks - 1) / 2));
        for (int s = 0; s < nblocks; ++s) EXPECT_EQ(at[sz(s)], s) << "block not back home";
    }
}

TEST(BlockedJacobiPlan, LayoutHoldsEveryPartAligned) {
    for (size_t e : {sizeof(float), sizeof(double)})
        for (int64_t n : {2, 17, 129, 1000, 1024, 1025, 4099}) {
            for (bool wantv : {false, true}) {
                const gg::BlockedPlan pl = gg::blocked_plan(e, true, wantv, n + 7, n);
                SCOPED_TRACE(testing::Message()
                             << "n = " << n << " wantv = " << wantv << " elem " << e);
                EXPECT_EQ(pl.shape.cols, n);
                EXPECT_EQ(pl.nblocks % 2, 0);
                EXPECT_GE(pl.cols_padded, n);
                EXPECT_LT(pl.cols_padded - n, 2 * int64_t(pl.nb));
                EXPECT_EQ(pl.shape.ld % 32, 0);
                EXPECT_GE(pl.shape.ld, pl.shape.voff + pl.shape.vrows);
                EXPECT_EQ(pl.shape.vrows, wantv ? n : 0);
                const size_t w = e * size_t(pl.shape.ld) * size_t(pl.cols_padded);
                EXPECT_GE(pl.off_w[1] - pl.off_w[0], w);
                EXPECT_GE(pl.off_gram - pl.off_w[1], w);
                const size_t block = e * 4 * size_t(pl.nb) * pl.nb * (pl.nblocks / 2);
                const size_t split = size_t(pl.gram_split), pairs = size_t(pl.nblocks / 2);
                EXPECT_GE(pl.off_rot - pl.off_gram, block * split) << "a partial Gram per chunk";
                EXPECT_GE(pl.off_ptr - pl.off_rot, block);
                EXPECT_GE(pl.off_gptr - pl.off_ptr, 6 * sizeof(void *) * size_t(pl.nblocks));
                EXPECT_GE(pl.off_norm - pl.off_gptr, 3 * sizeof(void *) * pairs * split);
                // Equal row chunks of the A part, each at least kBlockedMinGramChunk rows.
                EXPECT_GE(pl.gram_split, 1);
                EXPECT_LE(pl.gram_split, gg::kBlockedMaxGramSplit);
                EXPECT_EQ(pl.shape.voff % (32 * pl.gram_split), 0);
                if (pl.gram_split > 1) {
                    EXPECT_GE(pl.shape.voff / pl.gram_split, gg::kBlockedMinGramChunk);
                    EXPECT_LT(int64_t(pairs) * pl.gram_split / 2, gg::kBlockedGramCtas);
                }
                EXPECT_GE(pl.off_ctl - pl.off_norm, (2 * e + sizeof(int)) * size_t(n));
                EXPECT_GE(pl.bytes - pl.off_ctl, sizeof(gg::BlockedControl));
                for (size_t off : {pl.off_w[1], pl.off_gram, pl.off_rot, pl.off_ptr, pl.off_gptr,
                                   pl.off_norm, pl.off_ctl})
                    EXPECT_EQ(off % 256, 0u);
            }
        }
    // Few pairs split the Gram GEMM's rows (float): n = 1024 (32 pairs) in 8 chunks of 128
    // rows; many pairs (n = 8192, nb = 32: 128 pairs) in 2; rows not a multiple of 64 cannot
    // split; double never does.
    EXPECT_EQ(gg::blocked_plan(sizeof(float), true, true, 1024, 1024).gram_split, 8);
    EXPECT_EQ(gg::blocked_plan(sizeof(float), true, true, 8192, 8192).gram_split, 2);
    EXPECT_EQ(gg::blocked_plan(sizeof(float), true, true, 1056, 1024).gram_split, 1);
    EXPECT_EQ(gg::blocked_plan(sizeof(double), true, true, 1024, 1024).gram_split, 1);
    EXPECT_EQ(gg::blocked_plan(sizeof(float), true, true, 500, 500, 24).nb, 24);
    EXPECT_EQ(gg::blocked_plan(sizeof(float), true, true, 500, 500, 3).nb, 8);
    EXPECT_EQ(gg::blocked_plan(sizeof(float), true, true, 500, 500, 99).nb, 32);
}

/// X (m x n2, ld m) with columns of norm ~ scale[j] (random directions).
template <typename T>
std::vector<T> columns(std::mt19937_64 &rng, int64_t m, const std::vector<double> &scale) {
    std::normal_distribution<double> nd;
    std::vector<T> X(sz(m) * scale.size());
    for (size_t j = 0; j < scale.size(); ++j)
        for (int64_t i = 0; i < m; ++i) X[sz(i) + j * sz(m)] = T(nd(rng) * scale[j]);
    return X;
}

/// G = X^T X in double, rounded to T (ld n2).
template <typename T>
std::vector<T> gram(const std::vector<T> &X, int64_t m, int n2) {
    std::vector<T> G(sz(n2) * sz(n2));
    for (int i = 0; i < n2; ++i)
        for (int j = 0; j < n2; ++j) {
            double s = 0;
            for (int64_t r = 0; r < m; ++r)
                s += double(X[sz(r + i * m)]) * double(X[sz(r + j * m)]);
            G[sz(i + j * n2)] = T(s);
        }
    return G;
}

/// Largest |cos| between distinct columns of X V, and |V^T V - I|_max.
template <typename T>
std::pair<double, double> rotated_quality(const std::vector<T> &X, int64_t m, int n2,
                                          const std::vector<T> &V) {
    std::vector<double> Y(sz(m) * sz(n2), 0.0);
    for (int j = 0; j < n2; ++j)
        for (int l = 0; l < n2; ++l)
            for (int64_t r = 0; r < m; ++r)
                Y[sz(r + j * m)] += double(X[sz(r + l * m)]) * double(V[sz(l + j * n2)]);
    double off = 0, orth = 0;
    for (int i = 0; i < n2; ++i)
        for (int j = 0; j < n2; ++j) {
            double d = 0, a = 0, b = 0, vv = 0;
            for (int64_t r = 0; r < m; ++r) {
                d += Y[sz(r + i * m)] * Y[sz(r + j * m)];
                a += Y[sz(r + i * m)] * Y[sz(r + i * m)];
                b += Y[sz(r + j * m)] * Y[sz(r + j * m)];
            }
            for (int l = 0; l < n2; ++l)
                vv += double(V[sz(l + i * n2)]) * double(V[sz(l + j * n2)]);
            orth = std::max(orth, std::abs(vv - (i == j ? 1.0 : 0.0)));
            if (i != j && a > 0 && b > 0) off = std::max(off, std::abs(d) / std::sqrt(a * b));
        }
    return {off, orth};
}

TYPED_TEST(TeamBlockedJacobiTest, GramJacobiOrthogonalisesThePair) {
    using T = TypeParam;
    const double eps = double(gk::Real<T>::eps());
    std::mt19937_64 rng(7);
    const int64_t m = 300;
    for (int n2 : {16, 32, 64}) {
        // Plain, graded over 1e-6 (the relative accuracy case), and with exact zero columns
        // (padding and rank deficiency) in the middle.
        std::vector<std::vector<double>> scales(3, std::vector<double>(sz(n2), 1.0));
        for (int j = 0; j < n2; ++j) scales[1][sz(j)] = std::pow(1e-6, double(j) / (n2 - 1));
        for (int j = n2 / 3; j < n2 / 2; ++j) scales[2][sz(j)] = 0;
        for (const auto &sc : scales) {
            const std::vector<T> X = columns<T>(rng, m, sc);
            const std::vector<T> G0 = gram(X, m, n2);
            const T tol = T(std::sqrt(double(m)) * eps);
            for (int members : {0, 5, 32}) {
                SCOPED_TRACE(testing::Message() << "n2 = " << n2 << " members = " << members);
                std::vector<T> G = G0, V(sz(n2) * sz(n2), nan_v<T>()), rot(sz(2 * n2), nan_v<T>());
                gk::GramResult<T> r{};
                if (members == 0) {
                    r = gk::gram_jacobi(gk::SerialTeam{}, G.data(), n2, V.data(), n2, n2, tol, 30,
                                        rot.data());
                } else {
                    std::vector<gk::GramResult<T>> all(sz(members));
                    run_thread_team(members, 1,
                                    [&](const ThreadTeam &t, const ThreadTeam &, int i) {
                                        all[sz(i)] = gk::gram_jacobi(t, G.data(), n2, V.data(), n2,
                                                                     n2, tol, 30, rot.data());
                                    });
                    for (const auto &a : all) {
                        EXPECT_EQ(a.rotated, all[0].rotated);
                        EXPECT_EQ(a.off, all[0].off);
                    }
                    r = all[0];
                }
                EXPECT_EQ(r.rotated, 1);
                EXPECT_GT(double(r.off), 1e-3);  // random columns are far from orthogonal
                const auto q = rotated_quality(X, m, n2, V);
                // X V's columns orthogonal to a small multiple of the tolerance (G carries the
                // rounding of its own formation: a few n2 eps relative per entry).
                EXPECT_LT(q.first, 8 * n2 * eps + 8 * double(tol)) << "columns of X V";
                EXPECT_LT(q.second, 8 * n2 * eps) << "V^T V - I";
                // Diagonal of G ends as the squared column norms of X V, zero columns exactly 0.
                for (int j = 0; j < n2; ++j)
                    if (sc[sz(j)] == 0) {
                        EXPECT_EQ(G[sz(j + j * n2)], T(0));
                        EXPECT_EQ(V[sz(j + j * n2)], T(1)) << "a zero column never rotates";
                    }
            }
        }
    }
}

TYPED_TEST(TeamBlockedJacobiTest, GramJacobiLeavesOrthogonalColumnsAlone) {
    using T = TypeParam;
    const int n2 = 32;
    std::vector<T> G(sz(n2) * sz(n2), T(0)), V(sz(n2) * sz(n2)), rot(sz(2 * n2));
    for (int j = 0; j < n2; ++j) G[sz(j + j * n2)] = T(1 + j);
    G[1] = G[n2] = T(1e-3) * gk::Real<T>::eps();  // below any tolerance
    const gk::GramResult<T> r =
        gk::gram_jacobi(gk::SerialTeam{}, G.data(), n2, V.data(), n2, n2, T(1e-6), 30, rot.data());
    EXPECT_EQ(r.rotated, 0);
    for (int i = 0; i < n2; ++i)
        for (int j = 0; j < n2; ++j) EXPECT_EQ(V[sz(i + j * n2)], T(i == j ? 1 : 0));
}

/// The sweep loop of blocked.cpp with loops for its GEMMs: W = [A; I] in slots of nb columns,
/// every round Gram blocks, gram_jacobi per pair, the update writing halves to the next slots.
/// Returns the singular values (descending) and the sweeps used.
template <typename T>
std::pair<std::vector<double>, int> blocked_model(const std::vector<T> &A, int64_t m, int64_t n,
                                                  int nb, T tol, int max_sweeps) {
    const gg::BlockedPlan pl = gg::blocked_plan(sizeof(T), false, true, m, n, nb);
    const int64_t ld = pl.shape.ld, rows = pl.shape.rows, n2 = 2 * pl.nb;
    std::vector<T> W(sz(ld) * sz(pl.cols_padded), T(0)), Wn = W;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) W[sz(i + j * ld)] = A[sz(i + j * m)];
        W[sz(pl.shape.voff + j + j * ld)] = T(1);
    }
    std::vector<T> G(sz(n2 * n2)), V(sz(n2 * n2)), rot(sz(2 * n2));
    int sweeps = 0;
    while (sweeps < max_sweeps) {
        ++sweeps;
        int rotated = 0;
        for (int round = 0; round < pl.nblocks - 1; ++round) {
            for (int k = 0; k < pl.nblocks / 2; ++k) {
                const T *X = W.data() + sz(2 * k * pl.nb * ld);
                for (int64_t i = 0; i < n2; ++i)
                    for (int64_t j = 0; j < n2; ++j) {
                        T s = 0;
                        for (int64_t r = 0; r < rows; ++r)
                            s += X[sz(r + i * ld)] * X[sz(r + j * ld)];
                        G[sz(i + j * n2)] = s;
                    }
                rotated += gk::gram_jacobi(gk::SerialTeam{}, G.data(), int(n2), V.data(), int(n2),
                                           int(n2), tol, pl.inner_sweeps, rot.data())
                               .rotated;
                for (int h = 0; h < 2; ++h) {
                    T *C = Wn.data() +
                           sz(int64_t(gg::blocked_next_slot(2 * k + h, pl.nblocks)) * pl.nb * ld);
                    for (int64_t j = 0; j < pl.nb; ++j)
                        for (int64_t r = 0; r < ld; ++r) {
                            T s = 0;
                            for (int64_t l = 0; l < n2; ++l)
                                s += X[sz(r + l * ld)] * V[sz(l + (h * pl.nb + j) * n2)];
                            C[sz(r + j * ld)] = s;
                        }
                }
            }
            std::swap(W, Wn);
        }
        if (rotated == 0) break;
    }
    // Padding columns stay exactly zero (they never rotate) and the blocks are back home.
    for (int64_t j = n; j < pl.cols_padded; ++j)
        for (int64_t r = 0; r < ld; ++r) EXPECT_EQ(W[sz(r + j * ld)], T(0)) << "padding column";
    std::vector<double> s(sz(n));
    for (int64_t j = 0; j < n; ++j) {
        double ss = 0;
        for (int64_t r = 0; r < rows; ++r)
            ss += double(W[sz(r + j * ld)]) * double(W[sz(r + j * ld)]);
        s[sz(j)] = std::sqrt(ss);
    }
    std::sort(s.begin(), s.end(), std::greater<double>());
    return {s, sweeps};
}

TYPED_TEST(TeamBlockedJacobiTest, SweepModelMatchesLapack) {
    using T = TypeParam;
    const double eps = double(gk::Real<T>::eps());
    std::mt19937_64 rng(11);
    // n not a multiple of the block width: padded slots; 2 blocks (one pair, one round) too.
    for (auto mn : {std::pair<int64_t, int64_t>{70, 61}, {40, 16}, {90, 90}}) {
        for (int nb : {8, 16}) {
            const int64_t m = mn.first, n = mn.second;
            SCOPED_TRACE(testing::Message() << m << "x" << n << " nb = " << nb);
            std::vector<double> sc(sz(n));
            for (int64_t j = 0; j < n; ++j) sc[sz(j)] = std::pow(1e-4, double(j) / double(n));
            std::shuffle(sc.begin(), sc.end(), rng);  // graded columns, in no order
            const std::vector<T> A = columns<T>(rng, m, sc);
            const T tol = T(std::sqrt(double(m)) * eps);
            const auto got = blocked_model(A, m, n, nb, tol, 30);
            EXPECT_LT(got.second, 30) << "converged";
            EXPECT_GE(got.second, 2);
            const std::vector<T> ref = ref_singular_values(m, n, A.data(), m);
            for (int64_t j = 0; j < n; ++j)
                EXPECT_LT(std::abs(got.first[sz(j)] - double(ref[sz(j)])),
                          50 * n * eps * double(ref[0]))
                    << "s_" << j;
        }
    }
}

}  // namespace
