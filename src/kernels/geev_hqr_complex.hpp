// Team single-shift QR on a complex upper Hessenberg matrix: LAPACK zlahqr (with the zhseqr
// wrapper's handling of the eigenvalues isolated by balancing). The complex counterpart of
// geev_hqr.hpp's double-shift dlahqr, organised the same way: every member runs the same
// control flow (deflation tests and shifts computed redundantly from H), members split only the
// row/column updates, and every write to H follows a sync that ends all members' reads of it.
//
// zlahqr keeps the subdiagonal real (a diagonal unitary scaling first, and after each sweep),
// which makes every bulge-chasing reflector's second entry and tau*v(2) real. A bulge step
// costs two syncs as the real sweep's: (B) rows k, k+1 by a member per column, sync, (C) the
// new entries of column k-1, then columns k, k+1 of H and Z by a member per row, sync.
#pragma once

#include "kernels/geev_scalar.hpp"

namespace gpusvd {
namespace kernels {
namespace geev {

/// zlahqr's test of H(k, k-1) (real, by the scaling) for deflation: Ahues & Tisseur's, with
/// the neighbours for a zero diagonal pair; ilo < k <= ihi.
template <class T, class HM>
GPUSVD_HD bool negligible_subdiagonal_complex(HM H, int k, int ilo, int ihi, RealOf<T> smlnum,
                                              RealOf<T> ulp) {
    using R = RealOf<T>;
    const T hkk1c = H(k, k - 1);
    const R hkk1 = cabs1(hkk1c);
    if (hkk1 <= smlnum) return true;
    const T hkk = H(k, k), hk1k1 = H(k - 1, k - 1);
    R tst = cabs1(hk1k1) + cabs1(hkk);
    if (tst == R(0)) {
        if (k - 2 >= ilo) tst += std::fabs(H(k - 1, k - 2).re);
        if (k + 1 <= ihi) tst += std::fabs(H(k + 1, k).re);
    }
    if (std::fabs(hkk1c.re) > ulp * tst) return false;
    const R hk1k = cabs1(H(k - 1, k));
    const R ab = std::fmax(hkk1, hk1k), ba = std::fmin(hkk1, hk1k);
    const R a1 = cabs1(hkk), a2 = cabs1(hk1k1 - hkk);
    const R aa = std::fmax(a1, a2), bb = std::fmin(a1, a2);
    const R s = aa + ab;
    return ba * (ab / s) <= std::fmax(smlnum, ulp * (bb * (aa / s)));
}

/// The sweep's starting vector at row m for the shift sh: (h11s, h21) scaled by the 1-norm.
template <class T, class HM>
GPUSVD_HD void single_shift_vector(HM H, int m, T sh, T &v1, RealOf<T> &v2) {
    using R = RealOf<T>;
    const T h11s = H(m, m) - sh;
    const R h21 = H(m + 1, m).re;
    const R s = cabs1(h11s) + std::fabs(h21);
    v1 = div_real(h11s, s);
    v2 = h21 / s;
}

/// zlahqr's test that H(m, m-1) is small enough for the sweep to start at m > l.
template <class T, class HM>
GPUSVD_HD bool single_sweep_can_start(HM H, int m, T sh, RealOf<T> ulp) {
    using R = RealOf<T>;
    T v1;
    R v2;
    single_shift_vector(H, m, sh, v1, v2);
    const R h10 = H(m, m - 1).re;
    return std::fabs(h10) * std::fabs(v2) <=
           ulp * (cabs1(v1) * (cabs1(H(m, m)) + cabs1(H(m + 1, m + 1))));
}

/// zlarfg of order 2 on registers (alpha, x): on return alpha is beta (real), x the vector's
/// tail, tau the (complex) scalar; tau = 0 when x = 0 and alpha is real.
template <class R>
GPUSVD_HD void larfg2_complex(Complex<R> &alpha, Complex<R> &x, Complex<R> &tau) {
    R alphr = alpha.re, alphi = alpha.im;
    R xnorm = abs_elem(x);
    if (xnorm == R(0) && alphi == R(0)) {
        tau = Complex<R>(R(0));
        return;
    }
    R beta = -sign(lapy3(alphr, alphi, xnorm), alphr);
    const R safmin = Real<R>::safe_min() / Real<R>::eps(), rsafmn = R(1) / safmin;
    int knt = 0;
    if (std::fabs(beta) < safmin) {
        do {  // xnorm and beta may be inaccurate: scale x and recompute them
            ++knt;
            x *= rsafmn;
            beta *= rsafmn;
            alphi *= rsafmn;
            alphr *= rsafmn;
        } while (std::fabs(beta) < safmin && knt < 20);
        xnorm = abs_elem(x);
        beta = -sign(lapy3(alphr, alphi, xnorm), alphr);
    }
    tau = Complex<R>((beta - alphr) / beta, -alphi / beta);
    x = cdiv(Complex<R>(R(1)), Complex<R>(alphr - beta, alphi)) * x;
    for (int j = 0; j < knt; ++j) beta *= safmin;
    alpha = Complex<R>(beta);
}

/// zlahqr's loop state for one matrix, advanced a search (deflation, or the next sweep's shift
/// and starting row: zlahqr_search) or a sweep (zlahqr_sweep) at a time, as HqrLoop.
template <class T, class HM = Mat<T>>
struct HqrLoopComplex {
    enum Phase { kSearch, kChase, kDone };
    HM H;
    Mat<T> Z;
    T *w;  // the eigenvalues
    bool wantt, wantz;
    int ilo, ihi, itmax;
    int phase = kDone;
    int info = 0;        // zlahqr's return value once phase is kDone
    int i = 0, l = 0;    // the active block is rows/columns l..i
    int its = 0;         // sweeps since the last deflation
    int kdefl = 0;       // sweeps since the last deflation, for the exceptional shifts
    int i1 = 0, i2 = 0;  // columns/rows of H that the sweep updates
    int m = 0;           // the next sweep starts at row m
    T v1 = T(0);         // with this reflector vector (v1, v2), v2 real
    RealOf<T> v2 = RealOf<T>(0);
};

/// H(r, c) *= f for the entries of row `row` in columns c0..c1 and of column `col` in rows
/// r0..r1 (disjoint entries, a member each), and Z(ilo..ihi, col) *= g. Ends with a sync.
template <class T, class HM, class Team>
GPUSVD_HD void scale_row_col(const Team &t, HM H, int row, int c0, int c1, T f, int col, int r0,
                             int r1, T fc, Mat<T> Z, bool wantz, int ilo, int ihi, T g) {
    const int rank = t.rank(), size = t.size();
    for (int c = c0 + rank; c <= c1; c += size) H(row, c) = f * H(row, c);
    for (int r = r0 + rank; r <= r1; r += size) H(r, col) = fc * H(r, col);
    if (wantz)
        for (int r = ilo + rank; r <= ihi; r += size) Z(r, col) = g * Z(r, col);
    t.sync();
}

/// Starts the Schur form of the complex Hessenberg H (rows/columns ilo..ihi active, 0-based
/// inclusive; zeros below the subdiagonal): the eigenvalues outside ilo..ihi to w, then zlahqr's
/// diagonal scaling that makes the subdiagonal real (applied to rows ilo..ihi of Z). wantt: H
/// becomes the triangular Schur factor; wantz: the transformations go to Z. itmax > 0 replaces
/// the iteration cap (tests use it to reach the failure path).
template <class T, class Team, class HM>
GPUSVD_HD HqrLoopComplex<T, HM> zlahqr_start(const Team &t, bool wantt, bool wantz, int n, int ilo,
                                             int ihi, HM H, T *w, Mat<T> Z, int itmax = 0) {
    using R = RealOf<T>;
    HqrLoopComplex<T, HM> s;
    s.H = H, s.Z = Z, s.w = w;
    s.wantt = wantt, s.wantz = wantz;
    s.ilo = ilo, s.ihi = ihi;
    if (n == 0) return s;
    const int rank = t.rank(), size = t.size();
    for (int i = rank; i < n; i += size)
        if (i < ilo || i > ihi) w[i] = H(i, i);
    if (ilo == ihi) {
        if (rank == 0) w[ilo] = H(ilo, ilo);
        return s;
    }
    // Real subdiagonal, one entry at a time (each scaling changes the next entry). After the
    // Householder reduction it is real already; this serves any Hessenberg input.
    const int jlo = wantt ? 0 : ilo, jhi = wantt ? n - 1 : ihi;
    for (int i = ilo + 1; i <= ihi; ++i) {
        const T h = H(i, i - 1);
        if (h.im == R(0)) continue;
        T sc = div_real(h, cabs1(h));  // first normalised: |h| may underflow or overflow
        sc = div_real(conj(sc), abs_elem(sc));
        const R habs = abs_elem(h);
        t.sync();  // everyone has read H(i, i-1)
        if (rank == 0) H(i, i - 1) = T(habs);
        for (int c = i + rank; c <= jhi; c += size) H(i, c) = sc * H(i, c);
        t.sync();
        const T cs = conj(sc);
        const int r1 = jhi < i + 1 ? jhi : i + 1;
        for (int r = jlo + rank; r <= r1; r += size) H(r, i) = cs * H(r, i);
        if (wantz)
            for (int r = ilo + rank; r <= ihi; r += size) Z(r, i) = cs * Z(r, i);
        t.sync();
    }
    const int nh = ihi - ilo + 1;
    // zlahqr's cap: 30 * max(10, nh) iterations for each eigenvalue to deflate.
    s.itmax = itmax > 0 ? itmax : 30 * (nh > 10 ? nh : 10);
    if (wantt) s.i1 = 0, s.i2 = n - 1;
    s.i = ihi;
    s.l = ilo;
    s.phase = HqrLoopComplex<T, HM>::kSearch;
    return s;
}

/// zlahqr's shift for the active block l..i: Wilkinson's (the eigenvalue of the trailing 2x2
/// closer to H(i, i)), or an exceptional shift after 10 (from the top) and 20 (from the bottom)
/// sweeps without deflation.
template <class T, class HM>
GPUSVD_HD T zlahqr_shift(HM H, int l, int i, int kdefl) {
    using R = RealOf<T>;
    const R dat1 = R(0.75);
    const int kexsh = 10;
    if (kdefl % (2 * kexsh) == 0) return T(dat1 * std::fabs(H(i, i - 1).re)) + H(i, i);
    if (kdefl % kexsh == 0) return T(dat1 * std::fabs(H(l + 1, l).re)) + H(l, l);
    T sh = H(i, i);
    const T u = csqrt(H(i - 1, i)) * csqrt(H(i, i - 1));
    R s = cabs1(u);
    if (s != R(0)) {
        const T x = R(0.5) * (H(i - 1, i - 1) - sh);
        const R sx = cabs1(x);
        s = std::fmax(s, sx);
        const T xs = div_real(x, s), us = div_real(u, s);
        T y = s * csqrt(xs * xs + us * us);
        if (sx > R(0)) {
            const T xu = div_real(x, sx);
            if (xu.re * y.re + xu.im * y.im < R(0)) y = -y;
        }
        sh = sh - u * cdiv(u, x + y);
    }
    return sh;
}

/// The head of one zlahqr iteration: the deflation search, then either a deflation (one
/// eigenvalue) or the shift and starting row of the next sweep (phase kChase). Fails the
/// iteration (info = i+1: eigenvalues i+1..n-1, 0-based, have converged) after itmax + 1 sweeps
/// without deflation.
template <class T, class HM, class Team>
GPUSVD_HD void zlahqr_search(const Team &t, HqrLoopComplex<T, HM> &s) {
    using R = RealOf<T>;
    if (s.its > s.itmax) {
        s.info = s.i + 1;
        s.phase = HqrLoopComplex<T, HM>::kDone;
        return;
    }
    const int rank = t.rank(), size = t.size();
    const HM H = s.H;
    const int i = s.i, ilo = s.ilo, ihi = s.ihi;
    const R ulp = Real<R>::ulp();
    const R smlnum = Real<R>::safe_min() * (R(ihi - ilo + 1) / ulp);

    // The largest k with a negligible H(k, k-1) (members test their own k's, then agree).
    int kc = s.l;
    for (int k = i - rank; k > s.l; k -= size)
        if (negligible_subdiagonal_complex<T>(H, k, ilo, ihi, smlnum, ulp)) {
            kc = k;
            break;
        }
    const int l = s.l = t.max(kc);
    if (l > ilo) {
        t.sync();
        if (rank == 0) H(l, l - 1) = T(R(0));
        t.sync();
    }
    if (l >= i) {  // a 1x1 block split off at the bottom: one eigenvalue has converged
        if (rank == 0) s.w[i] = H(i, i);
        s.kdefl = 0;
        s.its = 0;
        s.i = l - 1;
        s.l = ilo;
        if (s.i < ilo) s.phase = HqrLoopComplex<T, HM>::kDone;
        return;
    }
    ++s.kdefl;
    if (!s.wantt) s.i1 = l, s.i2 = i;
    const T sh = zlahqr_shift<T>(H, l, i, s.kdefl);

    // The largest m > l where the sweep may start (m = l if none), found as k above.
    int mc = l;
    for (int m = i - 1 - rank; m > l; m -= size)
        if (single_sweep_can_start(H, m, sh, ulp)) {
            mc = m;
            break;
        }
    s.m = t.max(mc);
    single_shift_vector(H, s.m, sh, s.v1, s.v2);
    ++s.its;
    s.phase = HqrLoopComplex<T, HM>::kChase;
    t.sync();  // everyone is done reading H before the sweep writes it
}

/// zlahqr's extra scaling after the first step of a sweep started at m > l, which keeps
/// H(m, m-1) real: with d = (1 - tau) / |1 - tau|, H(m+1, m) *= conj(d), H(m+2, m+1) *= d, and
/// for each j in m..i other than m+1, row j right of the diagonal (to i2) *= d, then column j
/// above it (from i1) *= conj(d), in zlahqr's order (an entry in such a row and column gets
/// both factors, row first). A member per column of H, per row of Z. Ends with a sync.
template <class T, class HM, class Team>
GPUSVD_HD void zlahqr_scale_start(const Team &t, const HqrLoopComplex<T, HM> &s, T tau) {
    const int rank = t.rank(), size = t.size();
    const int m = s.m, i = s.i;
    const HM H = s.H;
    T d = T(RealOf<T>(1)) - tau;
    d = div_real(d, abs_elem(d));
    const T dc = conj(d);
    const auto in_set = [m, i](int j) { return j >= m && j <= i && j != m + 1; };
    for (int c = m + rank; c <= s.i2; c += size) {
        if (c == m) H(m + 1, m) = H(m + 1, m) * dc;
        if (c == m + 1 && m + 2 <= i) H(m + 2, m + 1) = H(m + 2, m + 1) * d;
        const bool col = in_set(c);
        const int r0 = col ? s.i1 : m;
        for (int r = r0; r < c; ++r) {
            T x = H(r, c);
            if (in_set(r)) x = d * x;
            if (col) x = dc * x;
            H(r, c) = x;
        }
    }
    if (s.wantz)
        for (int r = s.ilo + rank; r <= s.ihi; r += size)
            for (int j = m; j <= i; ++j)
                if (j != m + 1) s.Z(r, j) = dc * s.Z(r, j);
    t.sync();
}

/// One step of the single-shift sweep at row k: the reflector from (v1, v2) (for k > m the
/// bulge H(k, k-1), H(k+1, k-1), which it annihilates), applied from the left to rows k, k+1
/// and from the right to columns k, k+1 of H and Z. Ends with a sync.
template <class T, class HM, class Team>
GPUSVD_HD void zlahqr_step(const Team &t, HqrLoopComplex<T, HM> &s, int k, T v1, T v2) {
    using R = RealOf<T>;
    const int rank = t.rank(), size = t.size();
    const HM H = s.H;
    T t1;
    larfg2_complex(v1, v2, t1);  // v1 is now beta
    const R t2 = (t1 * v2).re;   // real: v2 was real before the reflector
    const T t1c = conj(t1), v2c = conj(v2);
    // (B) rows k, k+1, columns k..i2: a member per column.
    for (int j = k + rank; j <= s.i2; j += size) {
        const T a = H(k, j), b = H(k + 1, j);
        const T sum = t1c * a + t2 * b;
        H(k, j) = a - sum;
        H(k + 1, j) = b - sum * v2;
    }
    t.sync();
    // (C) column k-1 (read by everyone before (B)), then columns k, k+1 in rows i1..min(k+2, i)
    // and Z: a member per row.
    if (k > s.m) {
        if (rank == 0) H(k, k - 1) = v1;
        if (rank == (size > 1 ? 1 : 0)) H(k + 1, k - 1) = T(R(0));
    }
    const int jmax = k + 2 < s.i ? k + 2 : s.i;
    for (int j = s.i1 + rank; j <= jmax; j += size) {
        const T a = H(j, k), b = H(j, k + 1);
        const T sum = t1 * a + t2 * b;
        H(j, k) = a - sum;
        H(j, k + 1) = b - sum * v2c;
    }
    if (s.wantz) {
        const Mat<T> Z = s.Z;
        for (int j = s.ilo + rank; j <= s.ihi; j += size) {
            const T a = Z(j, k), b = Z(j, k + 1);
            const T sum = t1 * a + t2 * b;
            Z(j, k) = a - sum;
            Z(j, k + 1) = b - sum * v2c;
        }
    }
    t.sync();
    if (k == s.m && s.m > s.l) zlahqr_scale_start(t, s, t1);
}

/// The single-shift sweep zlahqr_search set up (steps k = m..i-1), then H(i, i-1) made real
/// again by scaling row i and column i (and Z's column i).
template <class T, class HM, class Team>
GPUSVD_HD void zlahqr_sweep(const Team &t, HqrLoopComplex<T, HM> &s) {
    using R = RealOf<T>;
    const HM H = s.H;
    const int i = s.i;
    zlahqr_step(t, s, s.m, s.v1, T(s.v2));
    for (int k = s.m + 1; k < i; ++k) zlahqr_step(t, s, k, H(k, k - 1), H(k + 1, k - 1));
    const T h = H(i, i - 1);
    if (h.im != R(0)) {
        const R habs = abs_elem(h);
        const T d = div_real(h, habs);
        t.sync();  // everyone has read H(i, i-1)
        if (t.rank() == 0) H(i, i - 1) = T(habs);
        scale_row_col(t, H, i, i + 1, s.i2, conj(d), i, s.i1, i - 1, d, s.Z, s.wantz, s.ilo, s.ihi,
                      d);
    }
    s.phase = HqrLoopComplex<T, HM>::kSearch;
}

/// zlahqr's loops from zlahqr_start to the end.
template <class T, class HM, class Team>
GPUSVD_HD void zlahqr_run(const Team &t, HqrLoopComplex<T, HM> &s) {
    while (s.phase == HqrLoopComplex<T, HM>::kSearch) {
        zlahqr_search(t, s);
        if (s.phase == HqrLoopComplex<T, HM>::kChase) zlahqr_sweep(t, s);
    }
}

}  // namespace geev
}  // namespace kernels
}  // namespace gpusvd
