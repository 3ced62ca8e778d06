// The blocked one-sided Jacobi of one large matrix or a batch (cuda/gesvj/blocked*), on the host:
// the block ordering, workspace layout, chunking and per-sweep schedule of blocked_plan.hpp, the
// per-pair Gram solver gram_jacobi (src/kernels/jacobi_gram.hpp; SerialTeam and ThreadTeam with
// the kernel's thread counts), and the whole sweep loop modelled with plain loops for the GEMMs
// (same slots, same padding, same stopping rule; for a batch the same operand offsets, list and
// schedule as the kernels) against LAPACK's singular values.
#include <algorithm>
#include <complex>
#include <cstring>
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

TEST(BlockedJacobiOrdering, CrossRoundsMeetEveryPairAcrossTheBlocksOnce) {
    for (int n2 = 2; n2 <= 64; n2 += 2) {
        SCOPED_TRACE(testing::Message() << "n2 = " << n2);
        const int half = n2 / 2;
        ASSERT_EQ(gk::gram_rounds(n2, true), half);
        ASSERT_EQ(gk::gram_rounds(n2, false), n2 - 1);
        std::set<std::pair<int, int>> met;
        for (int round = 0; round < half; ++round) {
            std::vector<int> used(sz(n2), 0);
            for (int k = 0; k < half; ++k) {
                int p = -1, q = -1;
                gk::gram_round_pair(k, round, n2, true, p, q);
                ASSERT_GE(p, 0);
                ASSERT_LT(p, half) << "p in the first block";
                ASSERT_GE(q, half) << "q in the second block";
                ASSERT_LT(q, n2);
                EXPECT_EQ(used[sz(p)]++, 0) << "column " << p << " twice in a round";
                EXPECT_EQ(used[sz(q)]++, 0) << "column " << q << " twice in a round";
                EXPECT_TRUE(met.insert({p, q}).second) << p << "," << q << " twice";
            }
        }
        EXPECT_EQ(met.size(), sz(half * half));
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
    // Default widths: one matrix 16 up to 1024 columns (float) or 1023 (double), then 32; a
    // batch 32.
    EXPECT_EQ(gg::blocked_plan(sizeof(float), true, true, 1024, 1024).nb, 16);
    EXPECT_EQ(gg::blocked_plan(sizeof(float), true, true, 1025, 1025).nb, 32);
    EXPECT_EQ(gg::blocked_plan(sizeof(double), true, true, 1023, 1023).nb, 16);
    EXPECT_EQ(gg::blocked_plan(sizeof(double), true, true, 2000, 1024).nb, 32);
    EXPECT_EQ(gg::blocked_plan(sizeof(double), true, true, 128, 128, 0, 5, true).nb, 32);
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

/// gk::gram_jacobi (up to 30 sweeps) on G (n2 x n2, ld n2) into V by SerialTeam (members 0) or
/// by `members` threads, which must agree on the result they return.
template <typename T>
gk::GramResult<T> team_gram_jacobi(int members, std::vector<T> &G, int n2, std::vector<T> &V,
                                   gpusvd::kernels::RealOf<T> tol, std::vector<T> &rot) {
    if (members == 0)
        return gk::gram_jacobi(gk::SerialTeam{}, G.data(), n2, V.data(), n2, n2, tol, 30,
                               rot.data());
    std::vector<gk::GramResult<T>> all(sz(members));
    run_thread_team(members, 1, [&](const ThreadTeam &t, const ThreadTeam &, int i) {
        all[sz(i)] = gk::gram_jacobi(t, G.data(), n2, V.data(), n2, n2, tol, 30, rot.data());
    });
    for (const auto &a : all) {
        EXPECT_EQ(a.rotated, all[0].rotated);
        EXPECT_EQ(a.off, all[0].off);
    }
    return all[0];
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
                const gk::GramResult<T> r = team_gram_jacobi(members, G, n2, V, tol, rot);
                EXPECT_EQ(r.rotated, 1);
                EXPECT_GT(double(r.off), 1e-3);  // random columns are far from orthogonal
                const auto q = rotated_quality(X, m, n2, V);
                // X V's columns orthogonal to a small multiple of the tolerance (G carries the
                // rounding of its own formation: a few n2 eps relative per entry).
                EXPECT_LT(q.first, 8 * n2 * eps + 8 * double(tol)) << "columns of X V";
                EXPECT_LT(q.second, 8 * n2 * eps) << "V^T V - I";
                // G's upper triangle (the part kept) ends as X V's Gram matrix, off-diagonal
                // entries small against the diagonal.
                for (int j = 0; j < n2; ++j)
                    for (int i = 0; i < j; ++i) {
                        const double d = std::sqrt(double(G[sz(i + i * n2)]) *
                                                   double(G[sz(j + j * n2)]));
                        EXPECT_LE(std::abs(double(G[sz(i + j * n2)])),
                                  8 * n2 * eps * d + 8 * double(tol) * d)
                            << i << ", " << j;
                    }
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

TYPED_TEST(TeamBlockedJacobiTest, GramJacobiCrossLeavesPairsInsideTheBlocksAlone) {
    // X = [Q_I M_I, Q_J M_J] with [Q_I Q_J] orthonormal: the blocks are orthogonal to each other,
    // their own columns are not. A cross sweep finds nothing to rotate; a full one does.
    using T = TypeParam;
    std::mt19937_64 rng(9);
    std::normal_distribution<double> nd;
    const int64_t m = 200;
    for (int n2 : {16, 64}) {
        SCOPED_TRACE(testing::Message() << "n2 = " << n2);
        const int half = n2 / 2;
        std::vector<double> Q(sz(m) * sz(n2));
        for (auto &x : Q) x = nd(rng);
        for (int j = 0; j < n2; ++j) {  // modified Gram-Schmidt, twice
            double *qj = Q.data() + sz(j) * sz(m);
            for (int pass = 0; pass < 2; ++pass)
                for (int i = 0; i < j; ++i) {
                    const double *qi = Q.data() + sz(i) * sz(m);
                    double d = 0;
                    for (int64_t r = 0; r < m; ++r) d += qi[r] * qj[r];
                    for (int64_t r = 0; r < m; ++r) qj[r] -= d * qi[r];
                }
            double nrm = 0;
            for (int64_t r = 0; r < m; ++r) nrm += qj[r] * qj[r];
            for (int64_t r = 0; r < m; ++r) qj[r] /= std::sqrt(nrm);
        }
        std::vector<T> X(sz(m) * sz(n2));
        for (int j = 0; j < n2; ++j) {
            const int b0 = j < half ? 0 : half;  // the block of column j
            std::vector<double> mix(sz(half));
            for (auto &x : mix) x = nd(rng);
            for (int64_t r = 0; r < m; ++r) {
                double v = 0;
                for (int l = 0; l < half; ++l) v += Q[sz(r + (b0 + l) * m)] * mix[sz(l)];
                X[sz(r + j * m)] = T(v);
            }
        }
        const std::vector<T> G0 = gram(X, m, n2);
        const T tol = T(1e-4);  // far above the rounding of G's cross entries, far below the rest
        for (bool cross : {true, false}) {
            std::vector<T> G = G0, V(sz(n2) * sz(n2), nan_v<T>()), rot(sz(2 * n2), nan_v<T>());
            const gk::GramResult<T> r = gk::gram_jacobi(gk::SerialTeam{}, G.data(), n2, V.data(),
                                                        n2, n2, tol, 30, rot.data(), cross);
            EXPECT_EQ(r.rotated, cross ? 0 : 1) << (cross ? "cross" : "full");
            if (cross) {
                for (int j = 0; j < n2; ++j)
                    for (int i = 0; i < n2; ++i)
                        EXPECT_EQ(V[sz(i + j * n2)], T(i == j ? 1 : 0)) << i << ", " << j;
            }
        }
    }
}

/// The bits of a non-negative double, as the control words hold it (their maxima order alike).
unsigned long long bits_of(double v) {
    unsigned long long b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

/// check_kernel's full-Gram test in serial loops, after a sweep that left the matrix's W
/// (rows x cols of A, leading dimension ld) at W, if the matrix wants it.
template <typename T>
void model_check(gg::BlockedControl &c, const T *W, int64_t ld, int64_t rows, int64_t cols,
                 double near) {
    if (!gg::blocked_check_wanted(c, near)) return;
    auto dot = [&](int64_t i, int64_t j) {
        T s = 0;
        for (int64_t r = 0; r < rows; ++r) s += W[sz(r + i * ld)] * W[sz(r + j * ld)];
        return s;
    };
    T off = 0;
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < j; ++i)
            off = std::max(off, gk::gram_cos(dot(i, j), dot(i, i), dot(j, j)));
    c.check_bits = bits_of(double(off));
    c.checked = 1;
}

/// The sweep loop of blocked.cpp with loops for its GEMMs: W = [A; I] in slots of nb columns,
/// every round Gram blocks, gram_jacobi per pair, the update writing halves to the next slots,
/// the full-Gram test from `near` (blocked_check_near; 0: never) and blocked_schedule after
/// each sweep. Returns the singular values (descending) and the sweeps used.
template <typename T>
std::pair<std::vector<double>, int> blocked_model(const std::vector<T> &A, int64_t m, int64_t n,
                                                  int nb, T tol, int max_sweeps, double near = -1) {
    if (near < 0) near = gg::blocked_check_near(double(tol));
    const gg::BlockedPlan pl = gg::blocked_plan(sizeof(T), false, true, m, n, nb);
    const int64_t ld = pl.shape.ld, rows = pl.shape.rows, n2 = 2 * pl.nb;
    std::vector<T> W(sz(ld) * sz(pl.cols_padded), T(0)), Wn = W;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) W[sz(i + j * ld)] = A[sz(i + j * m)];
        W[sz(pl.shape.voff + j + j * ld)] = T(1);
    }
    std::vector<T> G(sz(n2 * n2)), V(sz(n2 * n2)), rot(sz(2 * n2));
    gg::BlockedControl ctl{};
    gg::blocked_schedule(ctl, max_sweeps, 0, false, true, double(tol));
    while (!ctl.done) {
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
                const gk::GramResult<T> r =
                    gk::gram_jacobi(gk::SerialTeam{}, G.data(), int(n2), V.data(), int(n2), int(n2),
                                    tol, pl.inner_sweeps, rot.data(), round > 0);
                ctl.rotated += r.rotated;
                ctl.off_bits = std::max(ctl.off_bits, bits_of(double(r.off)));
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
        model_check(ctl, W.data(), ld, rows, n, near);
        gg::blocked_schedule(ctl, max_sweeps, 0, false, false, double(tol));
    }
    const int sweeps = ctl.sweeps;
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

TEST(BlockedJacobiPlan, BatchLayoutHoldsEveryMatrixAndChunksFitTheBudget) {
    for (size_t e : {sizeof(float), sizeof(double)})
        for (int64_t n : {128, 200, 512}) {
            const gg::BlockedPlan one = gg::blocked_plan(e, true, true, n, n, 0, 1, true);
            for (int64_t batch : {int64_t(1), int64_t(3), int64_t(1000)}) {
                SCOPED_TRACE(testing::Message() << "n = " << n << " batch = " << batch);
                const gg::BlockedPlan pl = gg::blocked_plan(e, true, true, n, n, 0, batch, true);
                EXPECT_EQ(pl.nb, 32) << "a batch takes the widest blocks";
                EXPECT_EQ(pl.nb, one.nb);
                EXPECT_EQ(pl.batch, batch);
                EXPECT_EQ(pl.mat_elems, pl.shape.ld * pl.cols_padded);
                const size_t B = sz(batch), w = e * sz(pl.mat_elems) * B;
                const size_t pairs = sz(pl.nblocks / 2), n2 = 2 * sz(pl.nb);
                const size_t split = sz(pl.gram_split);
                EXPECT_GE(pl.off_w[1] - pl.off_w[0], w);
                EXPECT_GE(pl.off_gram - pl.off_w[1], w);
                EXPECT_GE(pl.off_rot - pl.off_gram, e * n2 * n2 * pairs * split * B);
                EXPECT_GE(pl.off_ptr - pl.off_rot, e * n2 * n2 * pairs * B);
                EXPECT_GE(pl.off_gptr - pl.off_ptr, 6 * sizeof(void *) * sz(pl.nblocks) * B);
                EXPECT_GE(pl.off_norm - pl.off_gptr, 3 * sizeof(void *) * pairs * split * B);
                EXPECT_GE(pl.off_list - pl.off_norm, (2 * e + sizeof(int)) * sz(n) * B);
                EXPECT_GE(pl.off_ctl - pl.off_list, sizeof(int) * B);
                EXPECT_GE(pl.off_loop - pl.off_ctl, sizeof(gg::BlockedControl) * B);
                EXPECT_GE(pl.bytes - pl.off_loop, sizeof(gg::BlockedLoop));
                for (size_t off : {pl.off_w[1], pl.off_gram, pl.off_rot, pl.off_ptr, pl.off_gptr,
                                   pl.off_norm, pl.off_list, pl.off_ctl, pl.off_loop})
                    EXPECT_EQ(off % 256, 0u);
                // Chunks: all the batch where it fits, else equal chunks within the budget.
                const int64_t chunk = gg::blocked_chunk(e, true, true, n, n, batch, true);
                EXPECT_GE(chunk, 1);
                EXPECT_LE(chunk, batch);
                if (pl.bytes <= gg::kBlockedBatchBudget) {
                    EXPECT_EQ(chunk, batch);
                }
                const int64_t chunks = (batch + chunk - 1) / chunk;
                EXPECT_LE(chunks * chunk - batch, chunks - 1) << "chunks of (nearly) equal size";
                if (chunk > 1) {
                    EXPECT_LE(gg::blocked_plan(e, true, true, n, n, 0, chunk, true).bytes,
                              gg::kBlockedBatchBudget + 4096 * sz(chunk));
                }
            }
        }
    // 1000 matrices of 512 x 512 (U and V) do not fit 2 GiB at once; one matrix never splits.
    EXPECT_LT(gg::blocked_chunk(sizeof(double), true, true, 512, 512, 1000, true), 1000);
    EXPECT_EQ(gg::blocked_chunk(sizeof(double), true, true, 512, 512, 1, true), 1);
    // Overflowing sizes fail the request instead of wrapping.
    EXPECT_EQ(gg::blocked_plan(sizeof(double), true, true, 1 << 20, 1 << 20, 0, 1 << 20, true).bytes,
              SIZE_MAX);
}

TEST(BlockedJacobiSchedule, MatricesLeaveTheLoopAndTheirCopyIsKnown) {
    gg::BlockedControl c{};
    c.nonfinite = 1;
    EXPECT_FALSE(gg::blocked_schedule(c, 5, 0, false, true, 1e-15)) << "NaN/Inf never sweeps";
    EXPECT_EQ(c.done, 1);
    EXPECT_FALSE(gg::blocked_schedule(c, 5, 1, false, false, 1e-15));
    EXPECT_EQ(c.sweeps, 0);
    EXPECT_EQ(c.copy, 0) << "not swept: stays where it was";

    gg::BlockedControl d{};
    EXPECT_TRUE(gg::blocked_schedule(d, 3, 0, false, true, 1e-15));
    d.rotated = 4;
    d.off_bits = 77;
    EXPECT_TRUE(gg::blocked_schedule(d, 3, 1, false, false, 1e-15));
    EXPECT_EQ(d.sweeps, 1);
    EXPECT_EQ(d.copy, 1);
    EXPECT_EQ(d.converged, 0);
    EXPECT_EQ(d.off_last, 77u);
    EXPECT_EQ(d.rotated, 0) << "counters reset for the next sweep";
    EXPECT_EQ(d.off_bits, 0u);
    d.off_bits = 5;  // converges: nothing rotated
    EXPECT_FALSE(gg::blocked_schedule(d, 3, 0, false, false, 1e-15));
    EXPECT_EQ(d.converged, 1);
    EXPECT_EQ(d.sweeps, 2);
    EXPECT_EQ(d.copy, 0);
    EXPECT_FALSE(gg::blocked_schedule(d, 3, 1, false, false, 1e-15));
    EXPECT_EQ(d.sweeps, 2) << "a done matrix is not swept";
    EXPECT_EQ(d.copy, 0) << "host path: frozen in its copy";
    EXPECT_FALSE(gg::blocked_schedule(d, 3, 1, true, false, 1e-15));
    EXPECT_EQ(d.copy, 1) << "graph path: moved with everyone";

    gg::BlockedControl f{};  // out of sweeps
    gg::blocked_schedule(f, 2, 0, false, true, 1e-15);
    f.rotated = 1;
    EXPECT_TRUE(gg::blocked_schedule(f, 2, 1, false, false, 1e-15));
    f.rotated = 1;
    EXPECT_FALSE(gg::blocked_schedule(f, 2, 0, false, false, 1e-15));
    EXPECT_EQ(f.converged, 0);
    EXPECT_EQ(f.sweeps, 2);
}

TEST(BlockedJacobiSchedule, FullGramTestEndsTheLoopWithoutTheSweepThatRotatesNothing) {
    const double tol = 1e-14, near = gg::blocked_check_near(tol);
    EXPECT_GT(near, tol);
    gg::BlockedControl c{};
    EXPECT_TRUE(gg::blocked_schedule(c, 30, 0, false, true, tol));
    c.rotated = 3;
    c.off_bits = bits_of(0.5);
    EXPECT_FALSE(gg::blocked_check_wanted(c, near)) << "far from converged";
    c.off_bits = bits_of(near / 2);
    EXPECT_TRUE(gg::blocked_check_wanted(c, near));
    c.checked = 1;
    c.check_bits = bits_of(4 * tol);  // a pair still above tol: sweep again
    EXPECT_TRUE(gg::blocked_schedule(c, 30, 1, false, false, tol));
    EXPECT_EQ(c.converged, 0);
    EXPECT_EQ(c.off_last, bits_of(near / 2)) << "the sweep's own largest |cos|";
    EXPECT_EQ(c.checked, 0) << "reset for the next sweep";
    EXPECT_EQ(c.check_bits, 0u);
    c.rotated = 1;
    c.off_bits = bits_of(1e-9);
    c.checked = 1;
    c.check_bits = bits_of(tol / 2);
    EXPECT_FALSE(gg::blocked_schedule(c, 30, 0, false, false, tol)) << "converged by the test";
    EXPECT_EQ(c.converged, 1);
    EXPECT_EQ(c.sweeps, 2);
    EXPECT_EQ(c.copy, 0);
    EXPECT_EQ(c.off_last, bits_of(tol / 2)) << "the test's largest |cos|";
    EXPECT_FALSE(gg::blocked_check_wanted(c, near)) << "done";

    gg::BlockedControl d{};  // nothing rotated: converged without a test
    gg::blocked_schedule(d, 30, 0, false, true, tol);
    d.off_bits = bits_of(tol / 4);
    EXPECT_FALSE(gg::blocked_check_wanted(d, near));
    EXPECT_FALSE(gg::blocked_schedule(d, 30, 1, false, false, tol));
    EXPECT_EQ(d.converged, 1);

    gg::BlockedControl e{};  // a NaN largest |cos| never passes
    gg::blocked_schedule(e, 30, 0, false, true, tol);
    e.rotated = 1;
    e.off_bits = bits_of(1e-9);
    e.checked = 1;
    e.check_bits = bits_of(std::nan(""));
    EXPECT_TRUE(gg::blocked_schedule(e, 30, 1, false, false, tol));
    EXPECT_EQ(e.converged, 0);
}

/// The batched sweep loop of blocked.cpp / blocked.cu with loops for its GEMMs and kernels: every
/// matrix's W in two copies, the list of matrices still sweeping (schedule_kernel's order), the
/// Gram blocks and the update through blocked_gram_offsets / blocked_update_offsets, the Gram
/// solves by list position, blocked_schedule after every sweep; all_move: the graph path (every
/// matrix listed, V = I for the done ones, copy 1 back to copy 0 after a sweep).
template <typename T>
struct BatchModel {
    std::vector<std::vector<double>> s;  // per matrix: singular values, descending (finite ones)
    std::vector<gg::BlockedControl> ctl;
    int64_t pair_solves = 0;     // Gram solves run (done matrices' V = I not counted)
    int64_t matrix_rounds = 0;   // matrices listed, summed over the rounds (the GEMMs' work)
};

template <typename T>
BatchModel<T> batch_model(const std::vector<std::vector<T>> &As, int64_t m, int64_t n, int nb,
                          T tol, int max_sweeps, bool all_move, double near = -1) {
    if (near < 0) near = gg::blocked_check_near(double(tol));
    const int64_t B = int64_t(As.size());
    const gg::BlockedPlan pl = gg::blocked_plan(sizeof(T), false, true, m, n, nb, B, true);
    const int64_t ld = pl.shape.ld, rows = pl.shape.rows, n2 = 2 * pl.nb, mat = pl.mat_elems;
    const int pairs = pl.nblocks / 2;
    std::vector<T> w[2] = {std::vector<T>(sz(B * mat), T(0)), std::vector<T>(sz(B * mat), T(0))};
    BatchModel<T> out;
    out.ctl.assign(sz(B), gg::BlockedControl{});
    for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < m; ++i) {
                const T v = As[sz(b)][sz(i + j * m)];
                if (!std::isfinite(double(v))) out.ctl[sz(b)].nonfinite = 1;
                w[0][sz(b * mat + i + j * ld)] = v;
            }
            w[0][sz(b * mat + pl.shape.voff + j + j * ld)] = T(1);
        }
    std::vector<int> list(sz(B), -1);
    int64_t active = 0;
    auto schedule = [&](int end_copy, bool first) {
        active = 0;
        for (int64_t b = 0; b < B; ++b) {
            const bool act = gg::blocked_schedule(out.ctl[sz(b)], max_sweeps, end_copy, all_move,
                                                  first, double(tol));
            if (all_move) {
                if (first) list[sz(b)] = int(b);
            } else if (act) {
                list[sz(active)] = int(b);
            }
            active += act;
        }
    };
    schedule(0, true);
    std::vector<T> gram(sz(B * pairs * n2 * n2)), rot(sz(B * pairs * n2 * n2));
    std::vector<T> G(sz(n2 * (n2 + 1))), V(sz(n2 * (n2 + 1))), scratch(sz(2 * n2));
    int c = 0;
    while (active > 0) {
        const int64_t listed = all_move ? B : active;
        for (int round = 0; round < pl.nblocks - 1; ++round, c ^= 1) {
            out.matrix_rounds += listed;
            for (int64_t i = 0; i < listed; ++i)
                for (int k = 0; k < pairs; ++k) {
                    const gg::BlockedGramOffsets o = gg::blocked_gram_offsets(
                        ld, pl.nb, pl.nblocks, mat, 1, rows, i, list[sz(i)], k, 0);
                    const T *X = w[c].data() + o.src;
                    for (int64_t p = 0; p < n2; ++p)
                        for (int64_t q = 0; q < n2; ++q) {
                            T acc = 0;
                            for (int64_t r = 0; r < rows; ++r)
                                acc += X[sz(r + p * ld)] * X[sz(r + q * ld)];
                            gram[sz(o.gram + p + q * n2)] = acc;
                        }
                }
            for (int64_t g = 0; g < listed * pairs; ++g) {
                gg::BlockedControl &ct = out.ctl[sz(list[sz(g / pairs)])];
                T *v = rot.data() + g * n2 * n2;
                if (ct.done || ct.nonfinite) {
                    for (int64_t idx = 0; idx < n2 * n2; ++idx)
                        v[idx] = idx % n2 == idx / n2 ? T(1) : T(0);
                    continue;
                }
                const int ldg = int(n2) + 1;
                for (int64_t idx = 0; idx < n2 * n2; ++idx)
                    G[sz(idx % n2 + idx / n2 * ldg)] = gram[sz(g * n2 * n2 + idx)];
                const gk::GramResult<T> r = gk::gram_jacobi(
                    gk::SerialTeam{}, G.data(), ldg, V.data(), ldg, int(n2), tol, pl.inner_sweeps,
                    scratch.data(), round > 0);
                for (int64_t idx = 0; idx < n2 * n2; ++idx)
                    v[idx] = V[sz(idx % n2 + idx / n2 * ldg)];
                ct.rotated += r.rotated;
                ct.off_bits = std::max(ct.off_bits, bits_of(double(r.off)));
                ++out.pair_solves;
            }
            for (int64_t i = 0; i < listed; ++i)
                for (int s = 0; s < pl.nblocks; ++s) {
                    const gg::BlockedUpdateOffsets o = gg::blocked_update_offsets(
                        ld, pl.nb, pl.nblocks, mat, i, list[sz(i)], s);
                    const T *X = w[c].data() + o.src;
                    T *C = w[c ^ 1].data() + o.dst;
                    for (int64_t j = 0; j < pl.nb; ++j)
                        for (int64_t r = 0; r < ld; ++r) {
                            T acc = 0;
                            for (int64_t l = 0; l < n2; ++l)
                                acc += X[sz(r + l * ld)] * rot[sz(o.rot + l + j * n2)];
                            C[sz(r + j * ld)] = acc;
                        }
                }
        }
        for (int64_t i = 0; i < listed; ++i)  // the sweep left every listed matrix in copy c
            model_check(out.ctl[sz(list[sz(i)])], w[c].data() + list[sz(i)] * mat, ld, rows, n,
                        near);
        if (all_move) {
            schedule(0, false);
            w[0] = w[1];
            c = 0;
        } else {
            schedule(c, false);
        }
    }
    out.s.resize(sz(B));
    for (int64_t b = 0; b < B; ++b) {
        if (out.ctl[sz(b)].nonfinite) continue;
        const T *W = w[out.ctl[sz(b)].copy].data() + b * mat;
        for (int64_t j = 0; j < n; ++j) {
            double ss = 0;
            for (int64_t r = 0; r < rows; ++r) ss += double(W[sz(r + j * ld)]) * double(W[sz(r + j * ld)]);
            out.s[sz(b)].push_back(std::sqrt(ss));
        }
        std::sort(out.s[sz(b)].begin(), out.s[sz(b)].end(), std::greater<double>());
        // Padding columns stay exactly zero, in either copy's layout.
        for (int64_t j = n; j < pl.cols_padded; ++j)
            for (int64_t r = 0; r < ld; ++r) EXPECT_EQ(W[sz(r + j * ld)], T(0)) << "padding";
    }
    return out;
}

TYPED_TEST(TeamBlockedJacobiTest, BatchModelMatchesLapackPerMatrixAndSkipsDoneOnes) {
    // A batch of graded, orthogonal (converges at once), zero, NaN, rank-deficient and random
    // members: each finite one's values match LAPACK's to the one-matrix model's accuracy and
    // its sweep count is the one-matrix model's on it alone (the batch does not change it); the
    // NaN member is never swept; the host path's GEMMs cover fewer matrices than the graph path's
    // (done matrices drop out of the list) with bitwise the same values (V = I moves them
    // exactly).
    using T = TypeParam;
    const double eps = double(gk::Real<T>::eps());
    std::mt19937_64 rng(13);
    const int64_t m = 52, n = 45;
    const int nb = 8;
    std::vector<std::vector<T>> As;
    std::vector<double> sc(sz(n));
    for (int64_t j = 0; j < n; ++j) sc[sz(j)] = std::pow(1e-5, double(j) / double(n));
    std::shuffle(sc.begin(), sc.end(), rng);
    As.push_back(columns<T>(rng, m, sc));  // graded columns
    std::vector<T> I(sz(m * n), T(0));
    for (int64_t j = 0; j < n; ++j) I[sz(j + j * m)] = T(j + 1);
    As.push_back(I);                           // orthogonal columns: one sweep, no rotation
    As.push_back(std::vector<T>(sz(m * n)));   // zero
    std::vector<T> bad = columns<T>(rng, m, std::vector<double>(sz(n), 1.0));
    bad[sz(m * n / 2)] = nan_v<T>();
    As.push_back(bad);  // NaN
    std::vector<double> rk(sz(n), 0.0);
    for (int j = 0; j < 5; ++j) rk[sz(3 * j)] = 1.0 + j;
    As.push_back(columns<T>(rng, m, rk));  // rank 5 with zero columns between
    As.push_back(columns<T>(rng, m, std::vector<double>(sz(n), 1.0)));  // random
    const T tol = T(std::sqrt(double(m)) * eps);
    const BatchModel<T> host = batch_model(As, m, n, nb, tol, 30, false);
    const BatchModel<T> graph = batch_model(As, m, n, nb, tol, 30, true);
    EXPECT_LT(host.matrix_rounds, graph.matrix_rounds) << "done matrices left the host path's list";
    EXPECT_EQ(host.pair_solves, graph.pair_solves) << "the graph path solves no done matrix";
    for (size_t b = 0; b < As.size(); ++b) {
        SCOPED_TRACE(testing::Message() << "member " << b);
        const gg::BlockedControl &c = host.ctl[b];
        if (b == 3) {
            EXPECT_EQ(c.nonfinite, 1);
            EXPECT_EQ(c.sweeps, 0) << "never swept";
            EXPECT_EQ(graph.ctl[b].sweeps, 0);
            continue;
        }
        EXPECT_EQ(c.converged, 1);
        EXPECT_EQ(c.sweeps, graph.ctl[b].sweeps);
        const auto alone = blocked_model(As[b], m, n, nb, tol, 30);
        EXPECT_EQ(c.sweeps, alone.second) << "sweeps as if alone";
        if (b == 1 || b == 2) {
            EXPECT_EQ(c.sweeps, 1) << "nothing to rotate";
        }
        const std::vector<T> ref = ref_singular_values(m, n, As[b].data(), m);
        ASSERT_EQ(host.s[b].size(), sz(n));
        for (int64_t j = 0; j < n; ++j) {
            EXPECT_EQ(host.s[b][sz(j)], graph.s[b][sz(j)]) << "host vs graph path, s_" << j;
            EXPECT_EQ(host.s[b][sz(j)], alone.first[sz(j)]) << "batch vs alone, s_" << j;
            // LAPACK's values are accurate relative to the largest (its bidiagonal SVD is not
            // relatively accurate on graded columns): the one-matrix model's bound.
            EXPECT_LE(std::abs(host.s[b][sz(j)] - double(ref[sz(j)])), 50 * n * eps * double(ref[0]))
                << "s_" << j;
        }
    }
    // Without the full-Gram test every member ends with a sweep that rotates nothing. The test
    // saves that sweep, and nothing else changes (W is the same, bit for bit), wherever it is
    // tried. The graded and the random member's last rotating sweep converged quadratically
    // (tested, saved); the zero and orthogonal members never rotate (no test). The rank-5
    // member's last rotating sweep may end above the test's threshold and still leave nothing
    // to rotate (double here): then nothing is saved.
    const BatchModel<T> untested = batch_model(As, m, n, nb, tol, 30, false, 0.0);
    for (size_t b : {size_t(0), size_t(1), size_t(2), size_t(4), size_t(5)}) {
        SCOPED_TRACE(testing::Message() << "member " << b << " with and without the test");
        const int saved = untested.ctl[b].sweeps - host.ctl[b].sweeps;
        if (b == 4)
            EXPECT_TRUE(saved == 0 || saved == 1) << saved;
        else
            EXPECT_EQ(saved, b == 0 || b == 5 ? 1 : 0);
        EXPECT_LE(gg::blocked_bits_value(host.ctl[b].off_last), double(tol));
        EXPECT_EQ(host.s[b], untested.s[b]);
    }
    // A sweep limit: members stop at it, not converged, the converged ones unaffected.
    const BatchModel<T> capped = batch_model(As, m, n, nb, tol, 2, false);
    EXPECT_EQ(capped.ctl[0].sweeps, 2);
    EXPECT_EQ(capped.ctl[0].converged, 0);
    EXPECT_EQ(capped.ctl[1].sweeps, 1);
    EXPECT_EQ(capped.ctl[1].converged, 1);
}

}  // namespace

// ---- complex data: gram_jacobi on a Hermitian Gram block ------------------------------------

namespace complex_gram {

template <typename R>
using K = gk::Complex<R>;
using C = std::complex<double>;

template <typename R>
C wide(K<R> z) {
    return {double(z.re), double(z.im)};
}

/// X (m x n2, ld m): complex columns of norm ~ scale[j] in random directions, in std::complex.
std::vector<C> columns(std::mt19937_64 &rng, int64_t m, const std::vector<double> &scale) {
    std::normal_distribution<double> nd;
    std::vector<C> X(sz(m) * scale.size());
    for (size_t j = 0; j < scale.size(); ++j)
        for (int64_t i = 0; i < m; ++i) X[sz(i) + j * sz(m)] = C(nd(rng), nd(rng)) * scale[j];
    return X;
}

/// Largest |cos| between distinct columns of Y = X V, and |V^H V - I|_max (all in double).
std::pair<double, double> quality(const std::vector<C> &X, int64_t m, int n2,
                                  const std::vector<C> &V) {
    std::vector<C> Y(sz(m) * sz(n2));
    for (int j = 0; j < n2; ++j)
        for (int l = 0; l < n2; ++l)
            for (int64_t r = 0; r < m; ++r)
                Y[sz(r + j * m)] += X[sz(r + l * m)] * V[sz(l + j * n2)];
    double off = 0, orth = 0;
    for (int i = 0; i < n2; ++i)
        for (int j = 0; j < n2; ++j) {
            C d = 0, vv = 0;
            double a = 0, b = 0;
            for (int64_t r = 0; r < m; ++r) {
                d += std::conj(Y[sz(r + i * m)]) * Y[sz(r + j * m)];
                a += std::norm(Y[sz(r + i * m)]);
                b += std::norm(Y[sz(r + j * m)]);
            }
            for (int l = 0; l < n2; ++l) vv += std::conj(V[sz(l + i * n2)]) * V[sz(l + j * n2)];
            orth = std::max(orth, std::abs(vv - (i == j ? 1.0 : 0.0)));
            if (i != j && a > 0 && b > 0) off = std::max(off, std::abs(d) / std::sqrt(a * b));
        }
    return {off, orth};
}

}  // namespace complex_gram

// The complex form of the pair solver (the blocked Jacobi's inner solve for complex data): the
// Hermitian Gram block, only its upper triangle read, diagonalised by unitary rotations (the
// phase of each entry, then the real rotation), V unitary and X V's columns orthogonal, for
// plain, graded and zero columns, on one member and on teams.
TYPED_TEST(TeamBlockedJacobiTest, GramJacobiComplexOrthogonalisesThePair) {
    using R = TypeParam;
    using T = complex_gram::K<R>;
    using complex_gram::C;
    const double eps = double(gk::Real<R>::eps());
    std::mt19937_64 rng(17);
    const int64_t m = 200;
    for (int n2 : {8, 32}) {
        std::vector<std::vector<double>> scales(3, std::vector<double>(sz(n2), 1.0));
        for (int j = 0; j < n2; ++j) scales[1][sz(j)] = std::pow(1e-5, double(j) / (n2 - 1));
        for (int j = n2 / 3; j < n2 / 2; ++j) scales[2][sz(j)] = 0;
        for (const auto &sc : scales) {
            const std::vector<C> X = complex_gram::columns(rng, m, sc);
            // G = X^H X in double, rounded to T; the strict lower triangle holds NaN: it must
            // never be read.
            std::vector<T> G0(sz(n2) * sz(n2), T(nan_v<R>(), nan_v<R>()));
            for (int j = 0; j < n2; ++j)
                for (int i = 0; i <= j; ++i) {
                    C s = 0;
                    for (int64_t r = 0; r < m; ++r)
                        s += std::conj(X[sz(r + i * m)]) * X[sz(r + j * m)];
                    G0[sz(i + j * n2)] = i == j ? T(R(s.real())) : T(R(s.real()), R(s.imag()));
                }
            // X as the data G was formed from, rounded to T's precision.
            std::vector<C> Xr(X.size());
            for (size_t i = 0; i < X.size(); ++i)
                Xr[i] = C(double(R(X[i].real())), double(R(X[i].imag())));
            const R tol = R(std::sqrt(double(m)) * eps);
            for (int members : {0, 5, 32}) {
                SCOPED_TRACE(testing::Message() << "n2 = " << n2 << " members = " << members);
                std::vector<T> G = G0, V(sz(n2) * sz(n2), T(nan_v<R>(), nan_v<R>()));
                std::vector<T> rot(sz(gk::kGramRotArrays<T> * n2 / 2), T(nan_v<R>(), nan_v<R>()));
                const gk::GramResult<T> r = team_gram_jacobi(members, G, n2, V, tol, rot);
                EXPECT_EQ(r.rotated, 1);
                EXPECT_GT(double(r.off), 1e-3);
                std::vector<C> Vc(V.size());
                for (size_t i = 0; i < V.size(); ++i) Vc[i] = complex_gram::wide(V[i]);
                const auto q = complex_gram::quality(Xr, m, n2, Vc);
                EXPECT_LT(q.first, 8 * n2 * eps + 8 * double(tol)) << "columns of X V";
                EXPECT_LT(q.second, 8 * n2 * eps) << "V^H V - I";
                for (int j = 0; j < n2; ++j) {
                    EXPECT_EQ(G[sz(j + j * n2)].im, R(0)) << "real diagonal";
                    for (int i = 0; i < j; ++i) {
                        const double d = std::sqrt(double(G[sz(i + i * n2)].re) *
                                                   double(G[sz(j + j * n2)].re));
                        EXPECT_LE(std::abs(complex_gram::wide(G[sz(i + j * n2)])),
                                  8 * n2 * eps * d + 8 * double(tol) * d)
                            << i << ", " << j;
                    }
                    if (sc[sz(j)] == 0) {
                        EXPECT_EQ(G[sz(j + j * n2)].re, R(0));
                        EXPECT_EQ(V[sz(j + j * n2)].re, R(1)) << "a zero column never rotates";
                        EXPECT_EQ(V[sz(j + j * n2)].im, R(0));
                    }
                }
            }
        }
    }
}
