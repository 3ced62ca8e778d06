// Team implicit double-shift Francis QR on an upper Hessenberg matrix: LAPACK dlahqr (with the
// dhseqr wrapper's handling of the eigenvalues isolated by balancing).
//
// Every member runs the same control flow: deflation tests, shifts and the 3-element
// reflectors are computed redundantly from H (identical inputs give identical decisions);
// members split only the row/column updates. Every write to H is therefore preceded by a sync
// that ends all members' reads of it. A bulge-chasing step costs two syncs: (B) rows k..k+2 by
// a member per column, sync, (C) the new entries of column k-1 (a member each), then columns
// k..k+2 (and Z) by a member per row, sync. Column k-1 is read by everyone before (B) and
// written only in (C), which is what makes one sync per phase enough.
#pragma once

#include <type_traits>

#include "kernels/geev_scalar.hpp"

namespace gpusvd {
namespace kernels {
namespace geev {

/// dlahqr's test of H(k, k-1) for deflation (Ahues & Tisseur's, with dlahqr's tst for a zero
/// diagonal pair), ilo < k <= ihi.
template <class T, class HM>
GPUSVD_HD bool negligible_subdiagonal(HM H, int k, int ilo, int ihi, T smlnum, T ulp) {
    const T hkk1 = std::fabs(H(k, k - 1));
    if (hkk1 <= smlnum) return true;
    T tst = std::fabs(H(k - 1, k - 1)) + std::fabs(H(k, k));
    if (tst == T(0)) {
        if (k - 2 >= ilo) tst += std::fabs(H(k - 1, k - 2));
        if (k + 1 <= ihi) tst += std::fabs(H(k + 1, k));
    }
    if (hkk1 > ulp * tst) return false;
    const T hk1k = std::fabs(H(k - 1, k));
    const T ab = std::fmax(hkk1, hk1k), ba = std::fmin(hkk1, hk1k);
    const T hkk = std::fabs(H(k, k));
    const T hd = std::fabs(H(k - 1, k - 1) - H(k, k));
    const T aa = std::fmax(hkk, hd), bb = std::fmin(hkk, hd);
    const T s = aa + ab;
    return ba * (ab / s) <= std::fmax(smlnum, ulp * (bb * (aa / s)));
}

/// First column of (H - s1)(H - s2) restricted to rows m..m+2, scaled by 1/s for safety
/// (dlahqr's s = |h(m,m) - s2| + |Im s2| + |h(m+1,m)|) but not yet to unit 1-norm.
template <class T, class HM>
GPUSVD_HD void shift_vector_scaled(HM H, int m, T rt1r, T rt1i, T rt2r, T rt2i, T &v1, T &v2,
                                   T &v3) {
    const T hmm = H(m, m), hm1m = H(m + 1, m);
    // m > l or m = l < i - 1, so H(m+1, m) is not negligible: the sum is normal (> smlnum).
    const T rs = rcp_normal(std::fabs(hmm - rt2r) + std::fabs(rt2i) + std::fabs(hm1m));
    const T h21s = hm1m * rs;
    v1 = h21s * H(m, m + 1) + (hmm - rt1r) * ((hmm - rt2r) * rs) - rt1i * (rt2i * rs);
    v2 = h21s * (hmm + H(m + 1, m + 1) - rt1r - rt2r);
    v3 = h21s * H(m + 2, m + 1);
}

/// The double-shift sweep's starting vector at row m: shift_vector_scaled to unit 1-norm.
template <class T, class HM>
GPUSVD_HD void shift_vector(HM H, int m, T rt1r, T rt1i, T rt2r, T rt2i, T &v1, T &v2, T &v3) {
    shift_vector_scaled(H, m, rt1r, rt1i, rt2r, rt2i, v1, v2, v3);
    const T rs = T(1) / (std::fabs(v1) + std::fabs(v2) + std::fabs(v3));
    v1 *= rs, v2 *= rs, v3 *= rs;
}

/// dlahqr's test that H(m, m-1) is small enough for the sweep to start at m > l. Both sides
/// are linear in v, so it needs no unit 1-norm (every member tries several m per search).
template <class T, class HM>
GPUSVD_HD bool sweep_can_start(HM H, int m, T rt1r, T rt1i, T rt2r, T rt2i, T ulp) {
    T v1, v2, v3;
    shift_vector_scaled(H, m, rt1r, rt1i, rt2r, rt2i, v1, v2, v3);
    const T h00 = std::fabs(H(m, m - 1)) * (std::fabs(v2) + std::fabs(v3));
    const T h01 = ulp * std::fabs(v1) *
                  (std::fabs(H(m - 1, m - 1)) + std::fabs(H(m, m)) + std::fabs(H(m + 1, m + 1)));
    return h00 <= h01;
}

/// Applies the reflector I - tau (1, v2, v3)(1, v2, v3)^T of order NR (3, or 2: (1, v2) only,
/// ec unused; t1 = tau, t2 = tau v2, t3 = tau v3) to one triple (ea, eb, ec).
template <int NR, class T>
GPUSVD_HD void reflect_triple(T &ea, T &eb, T &ec, T v2, T v3, T t1, T t2, T t3) {
    const T a = ea, b = eb;
    if constexpr (NR == 3) {
        const T c = ec;
        const T sum = a + v2 * b + v3 * c;
        ea = a - sum * t1;
        eb = b - sum * t2;
        ec = c - sum * t3;
    } else {
        const T sum = a + v2 * b;
        ea = a - sum * t1;
        eb = b - sum * t2;
    }
}

/// reflect_triple on rows k..k+NR-1 of the columns k..last, a member per column: each member's
/// column pointer advances by the team size (HM::advance_cols) rather than being recomputed
/// from j (band columns sit at quadratic offsets). The order is a template parameter so the
/// loop body has no branch on it (on the GPU a branch in the body costs a reconvergence
/// barrier pair per iteration).
template <int NR, class T, class Team, class HM>
GPUSVD_HD void reflect3_rows(const Team &t, HM H, int k, int last, T v2, T v3, T t1, T t2,
                             T t3) {
    const int size = t.size();
    int j = k + t.rank();
    if (j > last) return;
    typename HM::Ptr c = H.col(j) + k;
    GPUSVD_NO_UNROLL
    while (true) {
        reflect_triple<NR>(c[0], c[1], c[NR - 1], v2, v3, t1, t2, t3);
        if (j + size > last) break;
        c = H.advance_cols(c, j, size);
        j += size;
    }
}

/// A lone member (the serial team: the host reference and the GPU's thread-per-matrix QR) has
/// all of a bulge-chase pass's triples, and the compiler, not knowing them disjoint, would keep
/// each triple's loads after the previous one's stores: it loads kReflectBatch triples before
/// storing any. Wider teams have a few triples a member and keep their loops: with 8 lanes even
/// batches of 2 measured slower on sm_90 (the batch and remainder loops diverge).
constexpr int kReflectBatch = 4;
template <class Team>
constexpr bool lone_member() {
    return std::is_same<Team, SerialTeam>::value;
}

/// reflect_triple on `count` triples (q[0], q[d1], q[d2]), q advanced by adv between them (not
/// past the last: that address may lie beyond the matrix).
template <int NR, int C, class T, class P, class Adv>
GPUSVD_HD void reflect_batched(P q, int count, int d1, int d2, Adv adv, T v2, T v3, T t1, T t2,
                               T t3) {
    for (; count >= C; count -= C) {
        P at[C];
        T a[C], b[C], c[C];
        GPUSVD_UNROLL
        for (int u = 0; u < C; ++u) {
            if (u > 0) q = adv(q);
            at[u] = q;
            a[u] = q[0], b[u] = q[d1], c[u] = NR == 3 ? q[d2] : T(0);
        }
        GPUSVD_UNROLL
        for (int u = 0; u < C; ++u) {
            reflect_triple<NR>(a[u], b[u], c[u], v2, v3, t1, t2, t3);
            at[u][0] = a[u], at[u][d1] = b[u];
            if (NR == 3) at[u][d2] = c[u];
        }
        if (count > C) q = adv(q);
    }
    GPUSVD_NO_UNROLL
    for (; count > 0; --count) {
        T a = q[0], b = q[d1], c = NR == 3 ? q[d2] : T(0);
        reflect_triple<NR>(a, b, c, v2, v3, t1, t2, t3);
        q[0] = a, q[d1] = b;
        if (NR == 3) q[d2] = c;
        if (count > 1) q = adv(q);
    }
}

/// dlahqr's loop state for one matrix, advanced a deflation search (with the shifts of the next
/// sweep: lahqr_search) or a sweep (lahqr_sweep) at a time; lahqr_run runs them as dlahqr's
/// nested loops. (Advancing several matrices of a warp in lockstep, a search or bulge step each
/// per round, measured slower at every size on sm_90.) HM: H's storage, Mat<T> or,
/// for eigenvalues only, BandMat<T, S> (geev_band.hpp); both give a column as HM::Ptr (col): a
/// plain pointer, or a strided one for interleaved bands.
template <class T, class HM = Mat<T>>
struct HqrLoop {
    enum Phase { kSearch, kChase, kDone };
    HM H;
    Mat<T> Z;
    T *wr, *wi;
    bool wantt, wantz;
    int ilo, ihi, itmax;
    int phase = kDone;
    int info = 0;        // lahqr's return value once phase is kDone
    int i = 0, l = 0;    // the active block is rows/columns l..i (dlahqr's I and L)
    int its = 0;         // sweeps since the last deflation
    int kdefl = 0;       // sweeps since the last deflation, for the exceptional shifts
    int i1 = 0, i2 = 0;  // columns/rows of H that the sweep updates
    int m = 0;           // the next sweep starts at row m
    T v1 = T(0), v2 = T(0), v3 = T(0);  // with this reflector vector
};

/// Starts the Schur form of the Hessenberg H (rows/columns ilo..ihi active, 0-based inclusive).
/// wantt: H becomes the quasi-triangular T with standardised 2x2 blocks; wantz: the
/// transformations are applied to rows ilo..ihi of Z. wr/wi get all n eigenvalues (pairs
/// positive imaginary part first). itmax > 0 replaces dlahqr's iteration cap (tests use it to
/// reach the failure path).
template <class T, class Team, class HM>
GPUSVD_HD HqrLoop<T, HM> lahqr_start(const Team &t, bool wantt, bool wantz, int n, int ilo, int ihi,
                                     HM H, T *wr, T *wi, Mat<T> Z, int itmax = 0) {
    HqrLoop<T, HM> s;
    s.H = H, s.Z = Z, s.wr = wr, s.wi = wi;
    s.wantt = wantt, s.wantz = wantz;
    s.ilo = ilo, s.ihi = ihi;
    if (n == 0) return s;
    const int rank = t.rank(), size = t.size();
    for (int i = rank; i < n; i += size)
        if (i < ilo || i > ihi) wr[i] = H(i, i), wi[i] = T(0);
    if (ilo == ihi) {
        if (rank == 0) wr[ilo] = H(ilo, ilo), wi[ilo] = T(0);
        return s;
    }
    const int nh = ihi - ilo + 1;
    // dlahqr's cap: 30 * max(10, nh) iterations for each eigenvalue (or pair) to deflate.
    s.itmax = itmax > 0 ? itmax : 30 * (nh > 10 ? nh : 10);
    s.i2 = n - 1;
    s.i = ihi;
    s.l = ilo;
    s.phase = HqrLoop<T, HM>::kSearch;
    return s;
}

/// Deflation at the bottom of the active block (l >= i-1): one real eigenvalue, or a 2x2 block
/// standardised by dlanv2 with the rest of H and Z rotated to match. Then the next block.
template <class T, class HM, class Team>
GPUSVD_HD void lahqr_deflate(const Team &t, HqrLoop<T, HM> &s) {
    const int rank = t.rank(), size = t.size();
    const int i = s.i;
    const HM H = s.H;
    const Mat<T> Z = s.Z;
    if (s.l == i) {
        if (rank == 0) s.wr[i] = H(i, i), s.wi[i] = T(0);
    } else {
        T a = H(i - 1, i - 1), b = H(i - 1, i), c = H(i, i - 1), d = H(i, i);
        T rt1r, rt1i, rt2r, rt2i, cs, sn;
        lanv2(a, b, c, d, rt1r, rt1i, rt2r, rt2i, cs, sn);
        t.sync();  // everyone has read the block
        if (rank == 0) {
            H(i - 1, i - 1) = a, H(i - 1, i) = b, H(i, i - 1) = c, H(i, i) = d;
            s.wr[i - 1] = rt1r, s.wi[i - 1] = rt1i, s.wr[i] = rt2r, s.wi[i] = rt2i;
        }
        if (s.wantt) {
            for (int j = i + 1 + rank; j <= s.i2; j += size) {  // rows i-1, i right of the block
                const T x = H(i - 1, j), y = H(i, j);
                H(i - 1, j) = cs * x + sn * y;
                H(i, j) = cs * y - sn * x;
            }
            for (int j = s.i1 + rank; j < i - 1; j += size) {  // columns i-1, i above it
                const T x = H(j, i - 1), y = H(j, i);
                H(j, i - 1) = cs * x + sn * y;
                H(j, i) = cs * y - sn * x;
            }
        }
        if (s.wantz) {
            for (int j = s.ilo + rank; j <= s.ihi; j += size) {
                const T x = Z(j, i - 1), y = Z(j, i);
                Z(j, i - 1) = cs * x + sn * y;
                Z(j, i) = cs * y - sn * x;
            }
        }
        t.sync();
    }
    s.kdefl = 0;
    s.its = 0;
    s.i = s.l - 1;
    s.l = s.ilo;
    if (s.i < s.ilo) s.phase = HqrLoop<T, HM>::kDone;
}

/// The head of one dlahqr iteration: the deflation search, then either a deflation or the
/// shifts and starting row of the next sweep (phase kChase). Fails the iteration (info = i+1:
/// eigenvalues i+1..n-1, 0-based, have converged) after itmax + 1 sweeps without deflation.
template <class T, class HM, class Team>
GPUSVD_HD void lahqr_search(const Team &t, HqrLoop<T, HM> &s) {
    if (s.its > s.itmax) {
        s.info = s.i + 1;
        s.phase = HqrLoop<T, HM>::kDone;
        return;
    }
    const int rank = t.rank(), size = t.size();
    const HM H = s.H;
    const int i = s.i, ilo = s.ilo, ihi = s.ihi;
    const T ulp = Real<T>::ulp();
    const T smlnum = Real<T>::safe_min() * (T(ihi - ilo + 1) / ulp);
    const T dat1 = T(0.75), dat2 = T(-0.4375);
    const int kexsh = 10;

    // Look for a single small subdiagonal element: the largest such k. Members test their own
    // k's (a serial team: dlahqr's downward scan), then agree on the max.
    int kc = s.l;
    for (int k = i - rank; k > s.l; k -= size)
        if (negligible_subdiagonal(H, k, ilo, ihi, smlnum, ulp)) {
            kc = k;
            break;
        }
    const int l = s.l = t.max(kc);
    if (l > ilo) {  // H(l, l-1) is negligible
        t.sync();
        if (rank == 0) H(l, l - 1) = T(0);
        t.sync();
    }
    if (l >= i - 1) {
        lahqr_deflate(t, s);
        return;
    }
    ++s.kdefl;
    if (!s.wantt) s.i1 = l, s.i2 = i;

    T h11, h12, h21, h22;
    if (s.kdefl % (2 * kexsh) == 0) {  // exceptional shift from the bottom
        const T e = std::fabs(H(i, i - 1)) + std::fabs(H(i - 1, i - 2));
        h11 = dat1 * e + H(i, i);
        h12 = dat2 * e;
        h21 = e;
        h22 = h11;
    } else if (s.kdefl % kexsh == 0) {  // exceptional shift from the top
        const T e = std::fabs(H(l + 1, l)) + std::fabs(H(l + 2, l + 1));
        h11 = dat1 * e + H(l, l);
        h12 = dat2 * e;
        h21 = e;
        h22 = h11;
    } else {  // Francis double shift
        h11 = H(i - 1, i - 1);
        h21 = H(i, i - 1);
        h12 = H(i - 1, i);
        h22 = H(i, i);
    }
    T rt1r, rt1i, rt2r, rt2i;
    {
        const T e = std::fabs(h11) + std::fabs(h12) + std::fabs(h21) + std::fabs(h22);
        if (e == T(0)) {
            rt1r = rt1i = rt2r = rt2i = T(0);
        } else {
            const T re = T(1) / e;
            h11 *= re, h21 *= re, h12 *= re, h22 *= re;
            const T tr = (h11 + h22) * T(0.5);
            const T det = (h11 - tr) * (h22 - tr) - h12 * h21;
            const T rtdisc = std::sqrt(std::fabs(det));
            if (det >= T(0)) {  // complex conjugate shifts
                rt1r = tr * e;
                rt2r = rt1r;
                rt1i = rtdisc * e;
                rt2i = -rt1i;
            } else {  // real shifts: use the one closer to h22 twice
                rt1r = tr + rtdisc;
                rt2r = tr - rtdisc;
                if (std::fabs(rt1r - h22) <= std::fabs(rt2r - h22)) {
                    rt1r *= e;
                    rt2r = rt1r;
                } else {
                    rt2r *= e;
                    rt1r = rt2r;
                }
                rt1i = rt2i = T(0);
            }
        }
    }

    // Look for two consecutive small subdiagonal elements: start the sweep at the largest such
    // m (m = l if none), found as k above; everyone then forms that m's vector.
    int mc = l;
    for (int m = i - 2 - rank; m > l; m -= size)
        if (sweep_can_start(H, m, rt1r, rt1i, rt2r, rt2i, ulp)) {
            mc = m;
            break;
        }
    s.m = t.max(mc);
    shift_vector(H, s.m, rt1r, rt1i, rt2r, rt2i, s.v1, s.v2, s.v3);
    ++s.its;
    s.phase = HqrLoop<T, HM>::kChase;
    // Everyone must be done reading H for the tests and shifts before the sweep writes it.
    t.sync();
}

/// reflect_triple on the rows first..last of three columns given as pointers (c2 unused for
/// NR = 2), a member per row: the entries' addresses advance by the team size rather than being
/// recomputed per row. (The teams' column pass through reflect_batched with batches of 1, one
/// pointer and two offsets, measured slower on sm_90.)
template <int NR, class T, class Team, class P>
GPUSVD_HD void reflect3_columns(const Team &t, P c0, P c1, P c2, int first, int last, T v2, T v3,
                                T t1, T t2, T t3) {
    const int size = t.size();
    int j = first + t.rank();
    P p0 = c0 + j, p1 = c1 + j, p2 = c2 + j;
    GPUSVD_NO_UNROLL
    for (; j <= last; j += size, p0 += size, p1 += size, p2 += size)
        reflect_triple<NR>(*p0, *p1, *p2, v2, v3, t1, t2, t3);
}

/// One bulge-chasing step of the sweep at row k with a reflector of order NR (3, or 2 at
/// k = i-1) built from (v1, v2, v3): the bulge at rows k.. of column k-1 (prev) when kChase,
/// else (k = m) the sweep's starting vector. c0 = H.col(k). Ends with a sync.
template <int NR, bool kChase, class T, class HM, class Team>
GPUSVD_HD void sweep_step(const Team &t, const HqrLoop<T, HM> &s, int k, typename HM::Ptr prev,
                          typename HM::Ptr c0, T v1, T v2, T v3) {
    const HM H = s.H;
    // On the sweep's first step with m > l, H(k, k-1) is scaled by 1 - tau (not set to -beta:
    // that goes wrong when v2 and v3 underflow).
    const bool scale_first = !kChase && s.m > s.l;
    const T hkk1 = scale_first ? prev[k] : T(0);
    T t1;
    larfg3(NR, v1, v2, v3, t1);  // v1 is now beta
    const T t2 = t1 * v2;
    const T t3 = NR == 3 ? t1 * v3 : T(0);
    // (B) rows k..k+NR-1, columns k..i2: a member per column.
    if constexpr (lone_member<Team>()) {
        int j = k;
        const auto adv = [&j, H](typename HM::Ptr x) { return H.next_col(x, j++); };
        reflect_batched<NR, kReflectBatch>(c0 + k, s.i2 - k + 1, 1, 2, adv, v2, v3, t1, t2, t3);
    } else {
        reflect3_rows<NR>(t, H, k, s.i2, v2, v3, t1, t2, t3);
    }
    t.sync();
    // (C) column k-1, which everyone read before (B), a member per entry (not a lone rank-0
    // branch): rows k..k+NR-1 become (beta, 0, 0) when chasing, or H(k, k-1) is scaled on the
    // sweep's first step; then columns k..k+NR-1 of H (rows i1..jmax) and Z: a member per row.
    if (kChase) {
        for (int q = t.rank(); q < NR; q += t.size()) prev[k + q] = q == 0 ? v1 : T(0);
    } else if (scale_first && t.rank() == 0) {
        prev[k] = hkk1 * (T(1) - t1);
    }
    const int i = s.i;
    const int jmax = NR == 3 ? (k + 3 < i ? k + 3 : i) : i;
    const typename HM::Ptr c1 = H.next_col(c0, k), c2 = NR == 3 ? H.next_col(c1, k + 1) : c1;
    if constexpr (lone_member<Team>()) {
        const auto adv = [](typename HM::Ptr x) { return x + 1; };
        reflect_batched<NR, kReflectBatch>(c0 + s.i1, jmax - s.i1 + 1, static_cast<int>(c1 - c0),
                                           static_cast<int>(c2 - c0), adv, v2, v3, t1, t2, t3);
    } else {
        reflect3_columns<NR>(t, c0, c1, c2, s.i1, jmax, v2, v3, t1, t2, t3);
    }
    if (s.wantz) {
        const Mat<T> Z = s.Z;
        T *const z0 = Z.col(k), *const z1 = Z.next_col(z0, k);
        reflect3_columns<NR>(t, z0, z1, NR == 3 ? Z.next_col(z1, k + 1) : z1, s.ilo, s.ihi, v2, v3,
                             t1, t2, t3);
    }
    t.sync();
}

/// The double-shift sweep lahqr_search set up: steps k = m..i-1 (m <= i-2, so the first step's
/// reflector has order 3 and the last, at k = i-1, order 2). The first and last steps are
/// separate calls and the chase between them a plain loop, so the loop body has no branch on
/// the step's kind (on the GPU each costs a reconvergence barrier pair per step); the column
/// pointers advance with k instead of being recomputed. (One body for all order-3 steps, the
/// vector picked at run time, measured slower on sm_90 even for four teams per warp.)
template <class T, class HM, class Team>
GPUSVD_HD void lahqr_sweep(const Team &t, HqrLoop<T, HM> &s) {
    const HM H = s.H;
    const int m = s.m, i = s.i;
    typename HM::Ptr prev = H.col(m > s.l ? m - 1 : m);  // column k-1 (read first only if m > l)
    typename HM::Ptr c0 = H.col(m);                      // column k
    sweep_step<3, false>(t, s, m, prev, c0, s.v1, s.v2, s.v3);
    for (int k = m + 1; k < i - 1; ++k) {
        prev = c0;
        c0 = H.next_col(c0, k - 1);
        sweep_step<3, true>(t, s, k, prev, c0, prev[k], prev[k + 1], prev[k + 2]);
    }
    prev = c0;
    c0 = H.next_col(c0, i - 2);
    sweep_step<2, true>(t, s, i - 1, prev, c0, prev[i - 1], prev[i], T(0));
    s.phase = HqrLoop<T, HM>::kSearch;
}

/// dlahqr's nested loops from lahqr_start to the end: a search (deflation, or the next sweep's
/// shifts), then the sweep.
template <class T, class HM, class Team>
GPUSVD_HD void lahqr_run(const Team &t, HqrLoop<T, HM> &s) {
    while (s.phase == HqrLoop<T, HM>::kSearch) {
        lahqr_search(t, s);
        if (s.phase == HqrLoop<T, HM>::kChase) lahqr_sweep(t, s);
    }
}

}  // namespace geev
}  // namespace kernels
}  // namespace gpusvd
