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
            // J^T G J and V J in one pass: item (k, l) owns the 2 x 2 block of G at rows
            // (p_l, q_l), columns (p_k, q_k) and the same block of V, so no other member reads
            // or writes what it updates. It turns the block's columns by pair k's rotation, then
            // its rows by pair l's (G only), the order and arithmetic of a column pass followed
            // by a row pass; a rotated pair's diagonal block then gets its exact new diagonal.
            for (int idx = t.rank(); idx < 2 * npairs * npairs; idx += t.size()) {
                const bool inV = idx >= npairs * npairs;
                const int kl = inV ? idx - npairs * npairs : idx;
                const int k = kl / npairs, l = kl - k * npairs;
                const T *rk = rot + 4 * k, *rl = rot + 4 * l;
                const bool turn_k = rk[0] != T(0), turn_l = !inV && rl[0] != T(0);
                if (!turn_k && !turn_l) continue;
                int pk, qk, pl, ql;
                round_robin_pair(k, round, n2, pk, qk);
                round_robin_pair(l, round, n2, pl, ql);
                T *M = inV ? V : G;
                const int ld = inV ? ldv : ldg;
                T &a = M[pl + pk * ld], &b = M[pl + qk * ld], &c = M[ql + pk * ld],
                  &d = M[ql + qk * ld];
                if (turn_k) {
                    turn(a, b, rk[0], rk[1]);
                    turn(c, d, rk[0], rk[1]);
                }
                if (turn_l) {
                    turn(a, c, rl[0], rl[1]);
                    turn(b, d, rl[0], rl[1]);
                }
                if (!inV && k == l) {
                    a = rk[2];
                    d = rk[3];
                    b = c = T(0);
                }
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
