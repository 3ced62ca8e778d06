// One-sided Jacobi SVD (team code): the rotation of one column pair by its pair team.
#pragma once

#include "kernels/jacobi_types.hpp"

namespace gpusvd {
namespace kernels {

/// Rotation making columns x, y with Gram matrix [a g; g b] orthogonal, in Rutishauser's form
/// x' = x - s (y + tau x) = c x - s y, y' = y + s (x - tau y) = s x + c y, tau = s / (1 + c):
/// t = tan is the smaller root of t^2 + 2 zeta t - 1 = 0, zeta = (b - a) / (2 g) (then
/// a' = a - t g, b' = b + t g: the larger column grows). Applying c = 1/sqrt(1+t^2) itself would
/// bias every late, tiny rotation: c rounds to 1 once t^2 < eps, and the pair's norms then grow by
/// sqrt(1 + t^2) each time, a drift of O(n eps) per sweep in the singular values. The updates
/// above carry the t^2/2 shrink inside the correction instead. a == b gives t = 1; g == 0 gives
/// the identity (s = tau = 0). Returns t (0 for g == 0): the two-sided Gram solver updates the
/// pair's diagonal with it.
///
/// Every pair of every round waits on this, so it is written for latency: with k = |d| / 2 and
/// h = |(d / 2, g)| (d = b - a), |t| = |g| / w for w = k + h, and 1 + t^2 = 2 h w / w^2, so one
/// reciprocal square root z = (2 h w)^(-1/2) gives c = w z and |s| = |g| z; tau takes one
/// reciprocal. No division and no square root proper (three reciprocal estimates in a row instead
/// of four divisions and two roots), and no cancellation: every sum adds like signs. k and g are
/// first scaled by a power of two so that the larger is in [1, 2): the squares cannot overflow
/// (a, b reach 2^(max_exp - 2)) and the smaller one underflows only where it no longer matters.
template <class T>
GPUSVD_HD T jacobi_rotation(T a, T b, T g, T &s, T &tau) {
    using R = Real<T>;
    if (g == T(0)) {
        s = tau = T(0);
        return T(0);
    }
    const T d = b - a;
    const T p = R::inv_pow2(R::abs(d) > R::abs(g) ? R::abs(d) : R::abs(g));
    const T k = T(0.5) * (R::abs(d) * p), gs = R::abs(g) * p;
    const T q = k * k + gs * gs;
    const T h = q * R::rsqrt(q);
    const T w = k + h;
    const T z = R::rsqrt(T(2) * h * w);
    const T c = w * z;
    // sign(t) = sign(zeta); zeta = +-0 (a == b) gives t = +1.
    const bool neg = d != T(0) && ((d < T(0)) != (g < T(0)));
    // |g| times the scale undone (z p and p / w are normal): one rounding where s underflows.
    T sa = R::abs(g) * (z * p);
    if (!(sa >= R::safe_min())) {
        // Subnormal s (a column near the underflow threshold next to a large one; c = 1): it has
        // few digits, and one rounded up overshoots, g changes sign and the pair can flip back
        // and forth every sweep. Truncated instead, |g| only shrinks, and the rotation vanishes
        // (s = 0: jacobi_pair's no-op) once it is below the format's reach. Rare: the division
        // is off the common path.
        const T ad = R::abs(d);  // nonzero: |g| / |d| underflowed
        sa = R::abs(g) / ad;
        if (sa * ad > R::abs(g)) sa -= R::denorm_min();
        s = neg ? -sa : sa;
        tau = s * T(0.5);
        return s;
    }
    s = neg ? -sa : sa;
    tau = s * R::rcp(T(1) + c);
    const T t = R::abs(g) * (p / w);  // not on the critical path: jacobi_pair does not use it
    return neg ? -t : t;
}

/// |g| and the phase e = conj(g) / |g| of a nonzero complex Gram entry g = x^H y: with
/// y~ = e y the pair's Gram block [a |g|; |g| b] is real, jacobi_rotation's rotation of x and y~
/// orthogonalises them, and y' = conj(e) y~' turns it back into
///   x' = x - s (e y + tau x),  y' = y + s (conj(e) x - tau y),
/// a unitary map with x'^H y' = conj(e) x'^H y~' = 0. g's parts are first scaled by a power of
/// two so that the larger is in [1, 4): |g| reaches 2^(max_exp - 2), its square would overflow.
template <class R>
GPUSVD_HD R complex_abs_phase(Complex<R> g, Complex<R> &e) {
    using F = Real<R>;
    const R ar = F::abs(g.re), ai = F::abs(g.im);
    const R p = F::inv_pow2(ar > ai ? ar : ai);
    const R gr = g.re * p, gi = g.im * p;
    const R z = F::rsqrt(gr * gr + gi * gi);
    e = Complex<R>(gr * z, -gi * z);
    return (gr * gr + gi * gi) * z * F::rcp(p);  // 1 / p: an exact power of two
}

/// A pair team's view of one matrix: lane r of a team of W handles the entries r + W s of each
/// part, s < na slots in the A part [0, rows), s < nv in the V part [voff, voff + vrows). A lane
/// visits its slots cyclically from a start (sa, sv) that the caller staggers between the pair
/// teams side by side in a warp, so that they touch different shared-memory banks when ld is a
/// multiple of 128 bytes.
template <class I>
struct PairSlots {
    static constexpr bool kCacheV = false;  // see FixedSlots
    I rows, voff, vrows, na, nv;
    GPUSVD_HD I a_slots() const { return na; }
    GPUSVD_HD I v_slots() const { return nv; }
    GPUSVD_HD bool in_a(I i) const { return i < rows; }
    GPUSVD_HD bool in_v(I i) const { return i < voff + vrows; }
    /// Row of the A part (V part: of the whole column) in lane r's j-th visit.
    GPUSVD_HD I a_row(int r, int W, I j, I sa) const {
        I s = j + sa;
        if (s >= na) s -= na;
        return static_cast<I>(r) + static_cast<I>(W) * s;
    }
    GPUSVD_HD I v_row(int r, int W, I j, I sv) const {
        I s = j + sv;
        if (s >= nv) s -= nv;
        return voff + static_cast<I>(r) + static_cast<I>(W) * s;
    }
};

template <class I>
GPUSVD_HD PairSlots<I> pair_slots(I rows, I voff, I vrows, int W) {
    return PairSlots<I>{rows, voff, vrows, (rows + W - 1) / W, (vrows + W - 1) / W};
}

/// The slot counts of any shape, known at run time (every entry guarded by its row count).
struct RuntimeSlots {
    template <class I>
    GPUSVD_HD static PairSlots<I> make(I rows, I voff, I vrows, int W, int, int) {
        return pair_slots(rows, voff, vrows, W);
    }
};

/// Slot counts fixed at compile time, for storage whose rows are padded to NA W (A part) and
/// NV W (V part) with zeros: zero rows add nothing to the dot products and stay zero under
/// rotations, so no entry needs a guard and the compiler unrolls every loop. Each lane's rows
/// are a table made once (staggered by the lane's group g, whatever pair it rotates: any order
/// of a lane's own rows is correct), so a round does no index arithmetic. The caller zeroes the
/// padding once and checks that the shape fits (gesvj_plan's fixed path).
template <int NA, int NV>
struct FixedSlots {
    template <class I>
    struct View {
        // Load the V entries with A's, before the reductions, so the V update does not wait
        // for them after the rotation (NV <= NA: at most as many registers again as A's).
        static constexpr bool kCacheV = NV > 0;
        I ra[NA > 0 ? NA : 1], rv[NV > 0 ? NV : 1];
        GPUSVD_HD static constexpr I a_slots() { return NA; }
        GPUSVD_HD static constexpr I v_slots() { return NV; }
        GPUSVD_HD static constexpr bool in_a(I) { return true; }
        GPUSVD_HD static constexpr bool in_v(I) { return true; }
        GPUSVD_HD I a_row(int, int, I j, I) const { return ra[j]; }
        GPUSVD_HD I v_row(int, int, I j, I) const { return rv[j]; }
    };
    template <class I>
    GPUSVD_HD static View<I> make(I, I voff, I, int W, int r, int g) {
        View<I> v;
        GPUSVD_UNROLL
        for (int j = 0; j < NA; ++j)
            v.ra[j] = static_cast<I>(r) + static_cast<I>(W) * static_cast<I>((j + g) % NA);
        constexpr int kNV = NV > 0 ? NV : 1;  // (no visits when NV = 0)
        GPUSVD_UNROLL
        for (int j = 0; j < NV; ++j)
            v.rv[j] = voff + static_cast<I>(r) + static_cast<I>(W) * static_cast<I>((j + g) % kNV);
        return v;
    }
};

/// f(j, i) for each slot j < min(N, count) whose row i = index(j) passes in(i), unrolled: the
/// visits of a lane's register-cached entries (j a constant after unrolling, so the arrays that
/// f indexes with it stay in registers).
template <int N, class I, class Index, class In, class F>
GPUSVD_HD void for_cached_slots(I count, Index index, In in, F f) {
    GPUSVD_UNROLL
    for (int j = 0; j < N; ++j) {
        if (j < count) {
            const I i = index(j);
            if (in(i)) f(j, i);
        }
    }
}

/// Tests and, where |cos(x, y)| > tol, rotates the columns x and y with pair team pt (complex T:
/// the unitary rotation of complex_abs_phase). Inactive
/// pairs (past the last pair, or the dummy) still join the reductions. The lane visits its slots
/// as ps says, from sa (A part) and sv (V part) on. With na <= CAP the lane's A entries (and,
/// where Slots::kCacheV, its V entries) stay in registers between the loads and the rotation; a
/// 16-byte element (double complex) caches A's entries only: four registers each, V's as well
/// would spill under the fixed kernels' 512-thread bound.
/// Updates off (largest |cos| seen) and rotated (1 if it rotated).
template <class T, class I, int CAP, class PairTeam, class Slots>
GPUSVD_HD void jacobi_pair(const PairTeam &pt, bool active, T *x, T *y, const Slots &ps, I sa, I sv,
                           RealOf<T> tol, RealOf<T> &off, int &rotated) {
    using Rl = RealOf<T>;
    using R = Real<Rl>;
    constexpr int kCache = CAP > 0 ? CAP : 1;
    constexpr bool kCacheV = Slots::kCacheV && sizeof(T) <= 8;
    constexpr int kVCache = kCacheV ? kCache : 1;
    const int W = pt.size(), r = pt.rank();
    const I na = ps.a_slots(), nv = ps.v_slots();
    auto a_index = [&](I j) { return ps.a_row(r, W, j, sa); };
    auto v_index = [&](I j) { return ps.v_row(r, W, j, sv); };
    auto in_a = [&](I i) { return ps.in_a(i); };
    auto in_v = [&](I i) { return ps.in_v(i); };
    const bool cached = CAP > 0 && na <= CAP;
    T xc[kCache] = {}, yc[kCache] = {}, xv[kVCache] = {}, yv[kVCache] = {};
    // Two partial sums each: half as long a chain of dependent adds.
    Rl a = Rl(0), b = Rl(0);
    T g = T(0);
    Rl a1 = Rl(0), b1 = Rl(0);
    T g1 = T(0);
    if (active) {
        if (cached) {
            for_cached_slots<kCache>(na, a_index, in_a, [&](int j, I i) {
                xc[j] = x[i];
                yc[j] = y[i];
            });
            if (kCacheV)
                for_cached_slots<kVCache>(nv, v_index, in_v, [&](int j, I i) {
                    xv[j] = x[i];
                    yv[j] = y[i];
                });
            GPUSVD_UNROLL
            for (int j = 0; j < kCache; j += 2) {
                if (j >= na) break;
                a += abs2(xc[j]);
                b += abs2(yc[j]);
                g += mul_conj(xc[j], yc[j]);
                if (j + 1 < kCache && j + 1 < na) {
                    a1 += abs2(xc[j + 1]);
                    b1 += abs2(yc[j + 1]);
                    g1 += mul_conj(xc[j + 1], yc[j + 1]);
                }
            }
        } else {
            for (I j = 0; j < na; ++j) {
                const I i = a_index(j);
                if (ps.in_a(i)) {
                    const T xi = x[i], yi = y[i];
                    a += abs2(xi);
                    b += abs2(yi);
                    g += mul_conj(xi, yi);
                }
            }
        }
    }
    a = pt.sum(a + a1);
    b = pt.sum(b + b1);
    g = team_sum(pt, g + g1);
    if (!active) return;

    // |cos| = |g| / (|x| |y|) <= 1 up to rounding, by reciprocal square roots: no division on
    // the round's critical path (|g| / |x| <= |y| cannot overflow; a zero column never rotates).
    if (!(a > Rl(0) && b > Rl(0))) return;
    [[maybe_unused]] T e = T(1);  // complex: the phase (complex_abs_phase)
    Rl ag;
    if constexpr (kIsComplex<T>) {
        if (g == T(0)) return;  // orthogonal (and no phase)
        ag = complex_abs_phase(g, e);
    } else {
        ag = R::abs(g);
    }
    const Rl cosv = ag * R::rsqrt(a) * R::rsqrt(b);
    if (cosv > off) off = cosv;
    if (!(cosv > tol)) return;
    Rl s, tau;
    if constexpr (kIsComplex<T>)
        jacobi_rotation(a, b, ag, s, tau);
    else
        jacobi_rotation(a, b, g, s, tau);
    if (s == Rl(0)) return;  // underflowed (a column near the underflow threshold): a no-op
    rotated = 1;

    auto turn = [&](I i, T xi, T yi) {
        if constexpr (kIsComplex<T>) {
            x[i] = xi - s * (e * yi + tau * xi);
            y[i] = yi + s * (conj(e) * xi - tau * yi);
        } else {
            x[i] = xi - s * (yi + tau * xi);
            y[i] = yi + s * (xi - tau * yi);
        }
    };
    if (cached) {
        for_cached_slots<kCache>(na, a_index, in_a, [&](int j, I i) { turn(i, xc[j], yc[j]); });
    } else {
        for (I j = 0; j < na; ++j) {
            const I i = a_index(j);
            if (ps.in_a(i)) turn(i, x[i], y[i]);
        }
    }
    if (kCacheV && cached) {
        for_cached_slots<kVCache>(nv, v_index, in_v, [&](int j, I i) { turn(i, xv[j], yv[j]); });
    } else {
        for (I j = 0; j < nv; ++j) {
            const I i = v_index(j);
            if (ps.in_v(i)) turn(i, x[i], y[i]);
        }
    }
}

}  // namespace kernels
}  // namespace gpusvd
