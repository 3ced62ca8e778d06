// Two-sided Jacobi on the Gram matrix of one block pair (team code): the inner solver of the
// blocked one-sided Jacobi (cuda/gesvj/blocked*). For the 2nb columns X = [A_I A_J] of a pair,
// G = X^T X; the rotations that diagonalise G, accumulated in V, are the one-sided rotations of
// X's columns (same alpha, beta, gamma, same formula), so X V has orthogonal columns and the
// caller applies V to X (and to the accumulated right vectors) with one GEMM.
//
// Why a two-sided Jacobi on G and not a Cholesky of it: G of a rank-deficient pair is only
// semidefinite. Jacobi on a positive (semi)definite matrix with the stopping test
// |g_pq| <= tol sqrt(g_pp g_qq) is relatively accurate (Demmel-Veselic), so graded columns keep
// their relative accuracy, and the outer loop recomputes G from the columns every round anyway.
#pragma once

#include "kernels/jacobi_rotate.hpp"

namespace gpusvd {
namespace kernels {

template <class T>
struct GramResult {
    T off;        // largest |g_pq| / sqrt(g_pp g_qq) over p < q on entry
    int rotated;  // 1 if any rotation was applied (V != I)
};

/// Largest |cos| between distinct columns, from their Gram matrix (zero columns count as
/// orthogonal to everything: their row of G is exactly zero).
template <class T, class Team>
GPUSVD_HD T gram_off(const Team &t, const T *G, int ldg, int n2) {
    using R = Real<T>;
    T off = T(0);
    for (int idx = t.rank(); idx < n2 * n2; idx += t.size()) {
        const int i = idx % n2, j = idx / n2;
        if (i >= j) continue;
        const T d = R::sqrt(G[i + i * ldg]) * R::sqrt(G[j + j * ldg]);
        if (d > T(0)) {
            const T c = R::abs(G[i + j * ldg]) / d;
            if (c > off) off = c;
        }
    }
    return t.max(off);
}

/// Diagonalises the symmetric positive semidefinite n2 x n2 G (n2 even; only entries are read,
/// so G may be padded) by parallel rounds of disjoint rotations, and sets V to their product
/// (V starts as I). A pair rotates when |g_pq| > tol sqrt(g_pp g_qq); stops after a sweep that
/// rotates nothing or after max_sweeps. rot: 4 * n2 / 2 team-shared scratch values.
template <class T, class Team>
GPUSVD_HD GramResult<T> gram_jacobi(const Team &t, T *G, int ldg, T *V, int ldv, int n2, T tol,
                                    int max_sweeps, T *rot) {
    using R = Real<T>;
    for (int idx = t.rank(); idx < n2 * n2; idx += t.size()) {
        const int i = idx % n2, j = idx / n2;
        V[i + j * ldv] = i == j ? T(1) : T(0);
    }
    GramResult<T> res{gram_off(t, G, ldg, n2), 0};
    t.sync();
    if (!(res.off > tol)) return res;
    const int npairs = n2 / 2;
    // Rutishauser's form of the rotation, as jacobi_pair applies it (see jacobi_rotation).
    auto turn = [](T &x, T &y, T s, T tau) {
        const T x0 = x, y0 = y;
        x = x0 - s * (y0 + tau * x0);
        y = y0 + s * (x0 - tau * y0);
    };
    for (int sweep = 0; sweep < max_sweeps; ++sweep) {
        int rotated = 0;
        for (int round = 0; round < n2 - 1; ++round) {
            // Every pair's rotation from the G of the round's start; rotations of disjoint
            // pairs commute, so applying all of them to the columns, then all to the rows, is
            // J^T G J with J their product.
            for (int k = t.rank(); k < npairs; k += t.size()) {
                int p, q;
                round_robin_pair(k, round, n2, p, q);
                const T a = G[p + p * ldg], b = G[q + q * ldg], g = G[p + q * ldg];
                T *r = rot + 4 * k;
                r[0] = T(0);
                // The test of gram_off (a zero column is orthogonal to everything).
                const T d = R::sqrt(a) * R::sqrt(b);
                if (d > T(0) && R::abs(g) > tol * d) {
                    const T tt = jacobi_rotation(a, b, g, r[0], r[1]);
                    r[2] = a - tt * g;  // the pair's new diagonal, exact in the rotation's model
                    r[3] = b + tt * g;
                    // An underflowed rotation changes nothing: counting it would keep the outer
                    // loop sweeping to its limit.
                    if (r[0] != T(0)) rotated = 1;
                }
            }
            t.sync();
            // f(s, tau, p, q, i) for each index i < n2 of each pair rotating this round.
            auto each_rotated = [&](auto f) {
                for (int idx = t.rank(); idx < npairs * n2; idx += t.size()) {
                    const int k = idx / n2;
                    if (rot[4 * k] == T(0)) continue;
                    int p, q;
                    round_robin_pair(k, round, n2, p, q);
                    f(rot[4 * k], rot[4 * k + 1], p, q, idx % n2);
                }
            };
            each_rotated([&](T s, T tau, int p, int q, int i) {  // columns of G, and V
                turn(G[i + p * ldg], G[i + q * ldg], s, tau);
                turn(V[i + p * ldv], V[i + q * ldv], s, tau);
            });
            t.sync();
            each_rotated([&](T s, T tau, int p, int q, int j) {  // rows of G
                turn(G[p + j * ldg], G[q + j * ldg], s, tau);
            });
            t.sync();
            for (int k = t.rank(); k < npairs; k += t.size()) {
                const T *r = rot + 4 * k;
                if (r[0] == T(0)) continue;
                int p, q;
                round_robin_pair(k, round, n2, p, q);
                G[p + p * ldg] = r[2];
                G[q + q * ldg] = r[3];
                G[p + q * ldg] = G[q + p * ldg] = T(0);
            }
            t.sync();
        }
        res.rotated |= rotated;
        if (t.max(rotated) == 0) break;
    }
    res.rotated = t.max(res.rotated);
    return res;
}

}  // namespace kernels
}  // namespace gpusvd
