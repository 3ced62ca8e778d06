// Team implicit double-shift Francis QR on an upper Hessenberg matrix: LAPACK dlahqr (with the
// dhseqr wrapper's handling of the eigenvalues isolated by balancing).
//
// Every member runs the same control flow: deflation tests, shifts and the 3-element
// reflectors are computed redundantly from H (identical inputs give identical decisions);
// members split only the row/column updates. Every write to H is therefore preceded by a sync
// that ends all members' reads of it. A bulge-chasing step costs two syncs: (B) rows k..k+2 by
// a member per column, sync, (C) columns k..k+2 (and Z) by a member per row plus the rank-0
// write of column k-1, sync. Column k-1 is read by everyone before (B) and written only in
// (C), which is what makes one sync per phase enough.
#pragma once

#include "kernels/geev_scalar.hpp"

namespace gpusvd {
namespace kernels {
namespace geev {

/// dlahqr's test of H(k, k-1) for deflation (Ahues & Tisseur's, with dlahqr's tst for a zero
/// diagonal pair), ilo < k <= ihi.
template <class T>
GPUSVD_HD bool negligible_subdiagonal(Mat<T> H, int k, int ilo, int ihi, T smlnum, T ulp) {
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

/// First column of (H - s1)(H - s2) restricted to rows m..m+2, scaled to unit 1-norm: the
/// double-shift sweep's starting vector at row m.
template <class T>
GPUSVD_HD void shift_vector(Mat<T> H, int m, T rt1r, T rt1i, T rt2r, T rt2i, T &v1, T &v2, T &v3) {
    const T hmm = H(m, m), hm1m = H(m + 1, m);
    T s = std::fabs(hmm - rt2r) + std::fabs(rt2i) + std::fabs(hm1m);
    const T h21s = hm1m / s;
    v1 = h21s * H(m, m + 1) + (hmm - rt1r) * ((hmm - rt2r) / s) - rt1i * (rt2i / s);
    v2 = h21s * (hmm + H(m + 1, m + 1) - rt1r - rt2r);
    v3 = h21s * H(m + 2, m + 1);
    s = std::fabs(v1) + std::fabs(v2) + std::fabs(v3);
    v1 /= s, v2 /= s, v3 /= s;
}

/// dlahqr's test that H(m, m-1) is small enough for the sweep to start at m > l.
template <class T>
GPUSVD_HD bool sweep_can_start(Mat<T> H, int m, T rt1r, T rt1i, T rt2r, T rt2i, T ulp) {
    T v1, v2, v3;
    shift_vector(H, m, rt1r, rt1i, rt2r, rt2i, v1, v2, v3);
    const T h00 = std::fabs(H(m, m - 1)) * (std::fabs(v2) + std::fabs(v3));
    const T h01 = ulp * std::fabs(v1) *
                  (std::fabs(H(m - 1, m - 1)) + std::fabs(H(m, m)) + std::fabs(H(m + 1, m + 1)));
    return h00 <= h01;
}

/// Schur form of the Hessenberg H (rows/columns ilo..ihi active, 0-based inclusive). wantt: H
/// becomes the quasi-triangular T with standardised 2x2 blocks; wantz: the transformations are
/// applied to rows ilo..ihi of Z. wr/wi get all n eigenvalues (pairs positive imaginary part
/// first). Returns 0, or i+1 > 0 when the iteration failed at active index i (dlahqr's INFO:
/// eigenvalues i+1..n-1, 0-based, have converged). itmax > 0 replaces dlahqr's iteration cap
/// (tests use it to reach the failure path). Ends with a sync.
template <class T, class Team>
GPUSVD_HD int lahqr(const Team &t, bool wantt, bool wantz, int n, int ilo, int ihi, Mat<T> H,
                    T *wr, T *wi, Mat<T> Z, int itmax = 0) {
    if (n == 0) return 0;
    const int rank = t.rank(), size = t.size();
    for (int i = rank; i < n; i += size)
        if (i < ilo || i > ihi) wr[i] = H(i, i), wi[i] = T(0);
    if (ilo == ihi) {
        if (rank == 0) wr[ilo] = H(ilo, ilo), wi[ilo] = T(0);
        t.sync();
        return 0;
    }
    const int nh = ihi - ilo + 1;
    const T ulp = Real<T>::ulp();
    const T smlnum = Real<T>::safe_min() * (T(nh) / ulp);
    const T dat1 = T(0.75), dat2 = T(-0.4375);
    const int kexsh = 10;
    const int iloz = ilo, ihiz = ihi;
    int i1 = 0, i2 = n - 1;
    // dlahqr's cap: 30 * max(10, nh) iterations for each eigenvalue (or pair) to deflate.
    if (itmax <= 0) itmax = 30 * (nh > 10 ? nh : 10);
    int kdefl = 0;

    int i = ihi;
    while (i >= ilo) {
        int l = ilo;
        bool split = false;
        for (int its = 0; its <= itmax; ++its) {
            // Look for a single small subdiagonal element: the largest such k. Members test
            // their own k's (a serial team: dlahqr's downward scan), then agree on the max.
            int kc = l;
            for (int k = i - rank; k > l; k -= size)
                if (negligible_subdiagonal(H, k, ilo, ihi, smlnum, ulp)) {
                    kc = k;
                    break;
                }
            l = t.max(kc);
            if (l > ilo) {  // H(l, l-1) is negligible
                t.sync();
                if (rank == 0) H(l, l - 1) = T(0);
                t.sync();
            }
            if (l >= i - 1) {
                split = true;
                break;
            }
            ++kdefl;
            if (!wantt) i1 = l, i2 = i;

            T h11, h12, h21, h22;
            if (kdefl % (2 * kexsh) == 0) {  // exceptional shift from the bottom
                const T s = std::fabs(H(i, i - 1)) + std::fabs(H(i - 1, i - 2));
                h11 = dat1 * s + H(i, i);
                h12 = dat2 * s;
                h21 = s;
                h22 = h11;
            } else if (kdefl % kexsh == 0) {  // exceptional shift from the top
                const T s = std::fabs(H(l + 1, l)) + std::fabs(H(l + 2, l + 1));
                h11 = dat1 * s + H(l, l);
                h12 = dat2 * s;
                h21 = s;
                h22 = h11;
            } else {  // Francis double shift
                h11 = H(i - 1, i - 1);
                h21 = H(i, i - 1);
                h12 = H(i - 1, i);
                h22 = H(i, i);
            }
            T rt1r, rt1i, rt2r, rt2i;
            {
                const T s = std::fabs(h11) + std::fabs(h12) + std::fabs(h21) + std::fabs(h22);
                if (s == T(0)) {
                    rt1r = rt1i = rt2r = rt2i = T(0);
                } else {
                    h11 /= s, h21 /= s, h12 /= s, h22 /= s;
                    const T tr = (h11 + h22) / T(2);
                    const T det = (h11 - tr) * (h22 - tr) - h12 * h21;
                    const T rtdisc = std::sqrt(std::fabs(det));
                    if (det >= T(0)) {  // complex conjugate shifts
                        rt1r = tr * s;
                        rt2r = rt1r;
                        rt1i = rtdisc * s;
                        rt2i = -rt1i;
                    } else {  // real shifts: use the one closer to h22 twice
                        rt1r = tr + rtdisc;
                        rt2r = tr - rtdisc;
                        if (std::fabs(rt1r - h22) <= std::fabs(rt2r - h22)) {
                            rt1r *= s;
                            rt2r = rt1r;
                        } else {
                            rt2r *= s;
                            rt1r = rt2r;
                        }
                        rt1i = rt2i = T(0);
                    }
                }
            }

            // Look for two consecutive small subdiagonal elements: start the sweep at the largest
            // such m (m = l if none), found as k above; everyone then forms that m's vector.
            int mc = l;
            for (int m = i - 2 - rank; m > l; m -= size)
                if (sweep_can_start(H, m, rt1r, rt1i, rt2r, rt2i, ulp)) {
                    mc = m;
                    break;
                }
            const int m = t.max(mc);
            T v1, v2, v3;
            shift_vector(H, m, rt1r, rt1i, rt2r, rt2i, v1, v2, v3);

            // Double-shift QR sweep: chase the bulge from row m down to row i. Everyone must
            // be done reading H for the tests and shifts above before (B) writes it.
            t.sync();
            for (int k = m; k <= i - 1; ++k) {
                const int nr = (i - k + 1) < 3 ? (i - k + 1) : 3;
                if (k > m) {
                    v1 = H(k, k - 1);
                    v2 = H(k + 1, k - 1);
                    v3 = nr == 3 ? H(k + 2, k - 1) : T(0);
                }
                T t1;
                larfg3(nr, v1, v2, v3, t1);  // v1 is now beta
                const T t2 = t1 * v2;
                const T t3 = nr == 3 ? t1 * v3 : T(0);
                // (B) rows k..k+nr-1, columns k..i2: a member per column.
                for (int j = k + rank; j <= i2; j += size) {
                    if (nr == 3) {
                        const T sum = H(k, j) + v2 * H(k + 1, j) + v3 * H(k + 2, j);
                        H(k, j) -= sum * t1;
                        H(k + 1, j) -= sum * t2;
                        H(k + 2, j) -= sum * t3;
                    } else {
                        const T sum = H(k, j) + v2 * H(k + 1, j);
                        H(k, j) -= sum * t1;
                        H(k + 1, j) -= sum * t2;
                    }
                }
                t.sync();
                // (C) column k-1 (rank 0), columns k..k+nr-1 of H and Z: a member per row.
                if (rank == 0) {
                    if (k > m) {
                        H(k, k - 1) = v1;
                        H(k + 1, k - 1) = T(0);
                        if (k < i - 1) H(k + 2, k - 1) = T(0);
                    } else if (m > l) {
                        // Not -H(k,k-1): that goes wrong when v2 and v3 underflow.
                        H(k, k - 1) *= (T(1) - t1);
                    }
                }
                const int jmax = nr == 3 ? (k + 3 < i ? k + 3 : i) : i;
                for (int j = i1 + rank; j <= jmax; j += size) {
                    if (nr == 3) {
                        const T sum = H(j, k) + v2 * H(j, k + 1) + v3 * H(j, k + 2);
                        H(j, k) -= sum * t1;
                        H(j, k + 1) -= sum * t2;
                        H(j, k + 2) -= sum * t3;
                    } else {
                        const T sum = H(j, k) + v2 * H(j, k + 1);
                        H(j, k) -= sum * t1;
                        H(j, k + 1) -= sum * t2;
                    }
                }
                if (wantz) {
                    for (int j = iloz + rank; j <= ihiz; j += size) {
                        if (nr == 3) {
                            const T sum = Z(j, k) + v2 * Z(j, k + 1) + v3 * Z(j, k + 2);
                            Z(j, k) -= sum * t1;
                            Z(j, k + 1) -= sum * t2;
                            Z(j, k + 2) -= sum * t3;
                        } else {
                            const T sum = Z(j, k) + v2 * Z(j, k + 1);
                            Z(j, k) -= sum * t1;
                            Z(j, k + 1) -= sum * t2;
                        }
                    }
                }
                t.sync();
            }
        }
        if (!split) {  // no deflation within itmax iterations
            t.sync();
            return i + 1;
        }

        if (l == i) {  // one real eigenvalue has converged
            if (rank == 0) wr[i] = H(i, i), wi[i] = T(0);
        } else {  // l == i-1: a 2x2 block; standardise it (dlanv2) and rotate the rest
            T a = H(i - 1, i - 1), b = H(i - 1, i), c = H(i, i - 1), d = H(i, i);
            T rt1r, rt1i, rt2r, rt2i, cs, sn;
            lanv2(a, b, c, d, rt1r, rt1i, rt2r, rt2i, cs, sn);
            t.sync();  // everyone has read the block
            if (rank == 0) {
                H(i - 1, i - 1) = a, H(i - 1, i) = b, H(i, i - 1) = c, H(i, i) = d;
                wr[i - 1] = rt1r, wi[i - 1] = rt1i, wr[i] = rt2r, wi[i] = rt2i;
            }
            if (wantt) {
                for (int j = i + 1 + rank; j <= i2; j += size) {  // rows i-1, i right of the block
                    const T x = H(i - 1, j), y = H(i, j);
                    H(i - 1, j) = cs * x + sn * y;
                    H(i, j) = cs * y - sn * x;
                }
                for (int j = i1 + rank; j < i - 1; j += size) {  // columns i-1, i above it
                    const T x = H(j, i - 1), y = H(j, i);
                    H(j, i - 1) = cs * x + sn * y;
                    H(j, i) = cs * y - sn * x;
                }
            }
            if (wantz) {
                for (int j = iloz + rank; j <= ihiz; j += size) {
                    const T x = Z(j, i - 1), y = Z(j, i);
                    Z(j, i - 1) = cs * x + sn * y;
                    Z(j, i) = cs * y - sn * x;
                }
            }
            t.sync();
        }
        kdefl = 0;
        i = l - 1;
    }
    t.sync();
    return 0;
}

}  // namespace geev
}  // namespace kernels
}  // namespace gpusvd
