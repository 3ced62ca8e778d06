// Two-sided Jacobi on the Gram matrix of one block pair (team code): the inner solver of the
// blocked one-sided Jacobi (cuda/gesvj/blocked*). For the 2nb columns X = [A_I A_J] of a pair,
// G = X^H X; the rotations that diagonalise G, accumulated in V, are the one-sided rotations of
// X's columns (same alpha, beta, gamma, same formula; for complex data the same phase as
// jacobi_pair's), so X V has orthogonal columns and the caller applies V to X (and to the
// accumulated right vectors) with one GEMM.
//
// Why a two-sided Jacobi on G and not a Cholesky of it: G of a rank-deficient pair is only
// semidefinite. Jacobi on a positive (semi)definite matrix with the stopping test
// |g_pq| <= tol sqrt(g_pp g_qq) is relatively accurate (Demmel-Veselic), so graded columns keep
// their relative accuracy, and the outer loop recomputes G from the columns every round anyway.
#pragma once

#include "kernels/jacobi_rotate.hpp"

namespace gpusvd {
namespace kernels {

/// Two consecutive elements; load_two / store_two move them as one access on the GPU (p
/// aligned to 2 * sizeof(T)), as two on the host.
template <class T>
struct Two {
    T a, b;
};
template <class T>
GPUSVD_HD Two<T> load_two(const T *p) {
#if defined(__CUDA_ARCH__)
    if constexpr (kIsComplex<T>) {
        return {p[0], p[1]};
    } else if constexpr (sizeof(T) == 8) {
        const double2 v = *reinterpret_cast<const double2 *>(p);
        return {v.x, v.y};
    } else {
        const float2 v = *reinterpret_cast<const float2 *>(p);
        return {v.x, v.y};
    }
#else
    return {p[0], p[1]};
#endif
}
template <class T>
GPUSVD_HD void store_two(T *p, Two<T> v) {
#if defined(__CUDA_ARCH__)
    if constexpr (kIsComplex<T>) {
        p[0] = v.a;
        p[1] = v.b;
    } else if constexpr (sizeof(T) == 8)
        *reinterpret_cast<double2 *>(p) = make_double2(v.a, v.b);
    else
        *reinterpret_cast<float2 *>(p) = make_float2(v.a, v.b);
#else
    p[0] = v.a;
    p[1] = v.b;
#endif
}

template <class T>
struct GramResult {
    RealOf<T> off;  // largest |g_pq| / sqrt(g_pp g_qq) over p < q on entry
    int rotated;    // 1 if any rotation was applied (V != I)
};

/// Arrays of gram_jacobi's `rot` scratch, each of n2 / 2 values (one per pair): s, tau and the
/// pair's two new diagonal entries, and for complex data the phase of its Gram entry.
template <class T>
inline constexpr int kGramRotArrays = kIsComplex<T> ? 5 : 4;

/// |g| of a Gram entry (complex: scaled, so that |g|^2 cannot overflow) and, for complex g, the
/// phase e = conj(g) / |g| of complex_abs_phase (e = 1 for g = 0).
template <class T>
GPUSVD_HD RealOf<T> gram_abs(T g, T &e) {
    using Rl = RealOf<T>;
    e = T(Rl(1));
    if constexpr (kIsComplex<T>) {
        if (g.re == Rl(0) && g.im == Rl(0)) return Rl(0);
        return complex_abs_phase(g, e);
    } else {
        return Real<Rl>::abs(g);
    }
}

/// |cos| of two columns from their Gram entry g and their squared norms gii, gjj; 0 where either
/// column is zero (orthogonal to everything).
template <class T>
GPUSVD_HD RealOf<T> gram_cos(T g, RealOf<T> gii, RealOf<T> gjj) {
    using Rl = RealOf<T>;
    const Rl d = Real<Rl>::sqrt(gii) * Real<Rl>::sqrt(gjj);
    if (!(d > Rl(0))) return Rl(0);
    T e;
    return gram_abs(g, e) / d;
}

/// Largest |cos| between distinct columns, from their Gram matrix (zero columns count as
/// orthogonal to everything: their row of G is exactly zero).
template <class T, class Team>
GPUSVD_HD RealOf<T> gram_off(const Team &t, const T *G, int ldg, int n2) {
    using Rl = RealOf<T>;
    Rl off = Rl(0);
    for (int idx = t.rank(); idx < n2 * n2; idx += t.size()) {
        const int i = idx % n2, j = idx / n2;
        if (i >= j) continue;
        const Rl c = gram_cos(G[i + j * ldg], real(G[i + i * ldg]), real(G[j + j * ldg]));
        if (c > off) off = c;
    }
    return t.max(off);
}

/// Rutishauser's form of the rotation, as jacobi_pair applies it (see jacobi_rotation); for
/// complex data with the phase e of the pair's Gram entry (complex_abs_phase):
/// x' = x - s (e y + tau x), y' = y + s (conj(e) x - tau y).
template <class T>
GPUSVD_HD void gram_turn(T &x, T &y, RealOf<T> s, RealOf<T> tau, T e) {
    const T x0 = x, y0 = y;
    if constexpr (kIsComplex<T>) {
        x = x0 - s * (e * y0 + tau * x0);
        y = y0 + s * (conj(e) * x0 - tau * y0);
    } else {
        x = x0 - s * (y0 + tau * x0);
        y = y0 + s * (x0 - tau * y0);
    }
}

/// Pair k (p < q) of round `round` of a gram_jacobi sweep: the round-robin tournament of all n2
/// columns, or with `cross` column k of the first half with column n2/2 + (k + round) mod n2/2 of
/// the second, so that a sweep meets only the pairs that straddle the two blocks.
GPUSVD_HD void gram_round_pair(int k, int round, int n2, bool cross, int &p, int &q) {
    if (!cross) {
        round_robin_pair(k, round, n2, p, q);
        return;
    }
    const int half = n2 / 2, j = k + round;
    p = k;
    q = half + (j < half ? j : j - half);
}

/// Rounds of a gram_jacobi sweep.
GPUSVD_HD int gram_rounds(int n2, bool cross) { return cross ? n2 / 2 : n2 - 1; }

/// The accumulated rotations V of gram_jacobi in team-shared memory (any team, host or device):
/// the round's update pass turns V's columns (p_k, q_k) by pair k's rotation, two rows per item
/// (ldv even and V aligned to 2 * sizeof(T), for its two-row accesses). A holder of V tells
/// gram_jacobi how many of the update pass's items are its own (`items`), turns one (`item`), and
/// may instead turn V by itself after the pass (`after_round`; here nothing).
template <class T>
struct GramSharedV {
    T *V;
    int ldv;
    template <class Team>
    GPUSVD_HD void init(const Team &t, int n2) const {
        for (int idx = t.rank(); idx < n2 * n2; idx += t.size()) {
            const int i = idx % n2, j = idx / n2;
            V[i + j * ldv] = i == j ? T(RealOf<T>(1)) : T(RealOf<T>(0));
        }
    }
    GPUSVD_HD int items(int npairs) const { return npairs * npairs; }
    /// Item kl: rows 2l, 2l + 1 of columns (p_k, q_k), k = kl / npairs, l = kl % npairs, so that
    /// consecutive members touch consecutive rows of one column (no shared-memory bank
    /// conflicts).
    GPUSVD_HD void item(int kl, int npairs, int round, int n2, bool cross, const T *rs,
                        const T *rtau, const T *rph) const {
        const int k = kl / npairs, l = kl - k * npairs;
        const RealOf<T> sk = real(rs[k]), tk = real(rtau[k]);
        if (sk == RealOf<T>(0)) return;
        T ek = T(RealOf<T>(1));
        if constexpr (kIsComplex<T>) ek = rph[k];
        int pk, qk;
        gram_round_pair(k, round, n2, cross, pk, qk);
        T *x = V + 2 * l + pk * ldv, *y = V + 2 * l + qk * ldv;
        Two<T> vx = load_two(x), vy = load_two(y);
        gram_turn(vx.a, vy.a, sk, tk, ek);
        gram_turn(vx.b, vy.b, sk, tk, ek);
        store_two(x, vx);
        store_two(y, vy);
    }
    template <class Team>
    GPUSVD_HD void after_round(const Team &, int, int, bool, const T *, const T *,
                               const T *) const {}
};

/// Diagonalises the symmetric (complex: Hermitian) positive semidefinite n2 x n2 G (n2 even;
/// only entries are read, so G may be padded) by parallel rounds of disjoint rotations (complex:
/// unitary, the phase of g_pq first), and sets the holder's V to their product (V starts as I;
/// GramSharedV, or a holder of the same interface). Only G's diagonal and upper triangle
/// are read and kept up to date. A pair rotates when |g_pq| > tol sqrt(g_pp g_qq); stops after
/// a sweep that rotates nothing or after max_sweeps. rot: kGramRotArrays<T> * n2 / 2
/// team-shared scratch values (arrays, so that consecutive members touch consecutive words).
/// On the GPU, an even ldg keeps G's accesses free of shared-memory bank conflicts: a round's
/// items step both indices by +-1 from one member to the next, so their addresses step by
/// ldg + 1 or ldg - 1, odd, and 16 consecutive doubles (32 floats) land in distinct banks.
/// With `cross`, a sweep visits only the pairs across the two halves of G (gram_round_pair) in
/// n2/2 rounds instead of n2 - 1: the blocked Jacobi pairs every block once in the first round of
/// an outer sweep, which meets the pairs inside each block, and its later rounds need only the
/// pairs across (an outer sweep still meets every column pair, so one that rotates nothing still
/// ends the loop).
template <class T, class Team, class VHolder>
GPUSVD_HD GramResult<T> gram_jacobi(const Team &t, T *G, int ldg, VHolder &v, int n2,
                                    RealOf<T> tol, int max_sweeps, T *rot, bool cross = false) {
    using Rl = RealOf<T>;
    using R = Real<Rl>;
    v.init(t, n2);
    GramResult<T> res{gram_off(t, G, ldg, n2), 0};
    t.sync();
    if (!(res.off > tol)) return res;
    const int npairs = n2 / 2;
    // Pair k's s, tau, new diagonal (as T) and, complex, phase.
    T *const rs = rot, *const rtau = rot + npairs, *const rd1 = rot + 2 * npairs,
             *const rd2 = rot + 3 * npairs, *const rph = rot + 4 * npairs;
    auto phase = [&](int k) {
        if constexpr (kIsComplex<T>)
            return rph[k];
        else
            return T(1);
    };
    // G is Hermitian and only its diagonal and upper triangle are kept: entry (i, j) lives at
    // (min, max), conjugated below the diagonal.
    auto at = [&](int i, int j) { return i < j ? G + i + j * ldg : G + j + i * ldg; };
    auto get = [](int i, int j, const T *g) { return i < j ? *g : conj(*g); };
    auto put = [](int i, int j, T *g, T v) { *g = i < j ? v : conj(v); };
    for (int sweep = 0; sweep < max_sweeps; ++sweep) {
        int rotated = 0;
        for (int round = 0; round < gram_rounds(n2, cross); ++round) {
            // Every pair's rotation from the G of the round's start; rotations of disjoint
            // pairs commute, so applying all of them to the columns, then all to the rows, is
            // J^H G J with J their product.
            for (int k = t.rank(); k < npairs; k += t.size()) {
                int p, q;
                gram_round_pair(k, round, n2, cross, p, q);
                const Rl a = real(G[p + p * ldg]), b = real(G[q + q * ldg]);
                const T g = G[p + q * ldg];  // p < q
                // tau finite: a holder of V may apply s = 0 as it is
                rs[k] = rtau[k] = T(Rl(0));
                // The test of gram_off (a zero column is orthogonal to everything).
                const Rl d = R::sqrt(a) * R::sqrt(b);
                T e;
                const Rl ag = gram_abs(g, e);
                if (d > Rl(0) && ag > tol * d) {
                    // Real data: the signed entry (the rotation carries its sign); complex: |g|,
                    // the phase turning the pair's block real.
                    const Rl gt = kIsComplex<T> ? ag : real(g);
                    Rl tt;
                    if constexpr (kIsComplex<T>) {
                        Rl s, tau;
                        tt = jacobi_rotation(a, b, gt, s, tau);
                        rs[k] = T(s);
                        rtau[k] = T(tau);
                        rph[k] = e;
                    } else {
                        tt = jacobi_rotation(a, b, gt, rs[k], rtau[k]);
                    }
                    // the pair's new diagonal, exact in the rotation's model
                    rd1[k] = T(a - tt * gt);
                    rd2[k] = T(b + tt * gt);
                    // An underflowed rotation changes nothing: counting it would keep the outer
                    // loop sweeping to its limit.
                    if (real(rs[k]) != Rl(0)) rotated = 1;
                }
            }
            t.sync();
            // J^H G J (and V J, where V is the holder's items) in one pass over disjoint items,
            // so no member reads or writes what another updates: item (u, d) owns the 2 x 2 block
            // of rows (p_a, q_a) and columns (p_b, q_b) of pairs a = u, b = u + d (mod npairs);
            // it turns the block's columns by pair b's rotation, then its rows by pair a's
            // (conjugate phase: J^H). A rotated pair's own block (d = 0) gets its exact new
            // diagonal and a zero off-diagonal.
            const int gitems = npairs * (npairs / 2 + 1);
            for (int idx = t.rank(); idx < gitems + v.items(npairs); idx += t.size()) {
                if (idx >= gitems) {
                    v.item(idx - gitems, npairs, round, n2, cross, rs, rtau, rph);
                    continue;
                }
                const int u = idx % npairs, d = idx / npairs;
                if (2 * d == npairs && 2 * u >= npairs) continue;  // {u, u + npairs/2} once
                const int a = u, b = u + d < npairs ? u + d : u + d - npairs;
                const Rl sa = real(rs[a]), sb = real(rs[b]);
                const bool turn_b = sb != Rl(0), turn_a = sa != Rl(0);
                if (!turn_a && !turn_b) continue;
                int pa, qa, pb, qb;
                gram_round_pair(a, round, n2, cross, pa, qa);
                if (d == 0) {
                    G[pa + pa * ldg] = rd1[a];
                    G[qa + qa * ldg] = rd2[a];
                    G[pa + qa * ldg] = T(Rl(0));  // pa < qa
                    continue;
                }
                gram_round_pair(b, round, n2, cross, pb, qb);
                T *gw = at(pa, pb), *gx = at(pa, qb), *gy = at(qa, pb), *gz = at(qa, qb);
                T w = get(pa, pb, gw), x = get(pa, qb, gx);
                T y = get(qa, pb, gy), z = get(qa, qb, gz);
                if (turn_b) {
                    const Rl tb = real(rtau[b]);
                    const T eb = phase(b);
                    gram_turn(w, x, sb, tb, eb);
                    gram_turn(y, z, sb, tb, eb);
                }
                if (turn_a) {
                    const Rl ta = real(rtau[a]);
                    const T ea = conj(phase(a));
                    gram_turn(w, y, sa, ta, ea);
                    gram_turn(x, z, sa, ta, ea);
                }
                put(pa, pb, gw, w);
                put(pa, qb, gx, x);
                put(qa, pb, gy, y);
                put(qa, qb, gz, z);
            }
            v.after_round(t, round, n2, cross, rs, rtau, rph);
            t.sync();
        }
        res.rotated |= rotated;
        if (t.max(rotated) == 0) break;
    }
    res.rotated = t.max(res.rotated);
    return res;
}

/// gram_jacobi with V in team-shared memory (GramSharedV).
template <class T, class Team>
GPUSVD_HD GramResult<T> gram_jacobi(const Team &t, T *G, int ldg, T *V, int ldv, int n2,
                                    RealOf<T> tol, int max_sweeps, T *rot, bool cross = false) {
    GramSharedV<T> v{V, ldv};
    return gram_jacobi(t, G, ldg, v, n2, tol, max_sweeps, rot, cross);
}

}  // namespace kernels
}  // namespace gpusvd
