// Scalar building blocks of the team geev (LAPACK dlapy2, dlapy3, dladiv, dlartg, dlanv2,
// dlaln2, a short dlarfg) and the element-type helpers that let one team code serve real and
// complex matrices (for real T each is the plain operation the real code always did). Every
// team member calls them redundantly on the same inputs, so they must be pure functions of their
// arguments: no team calls, no memory other than their parameters.
#pragma once

#include <cmath>

#include "kernels/complex.hpp"
#include "kernels/team.hpp"

namespace gpusvd {
namespace kernels {
namespace geev {

/// Column-major view of a matrix in shared or global memory.
template <class T>
struct Mat {
    using Ptr = T *;  // a column (HqrLoop's HM interface; BandMat may interleave)
    T *p;
    int ld;
    GPUSVD_HD T &operator()(int i, int j) const { return p[i + j * ld]; }
    GPUSVD_HD T *col(int j) const { return p + j * ld; }  // column j is contiguous
    GPUSVD_HD T *advance_cols(T *c, int, int count) const { return c + count * ld; }
    GPUSVD_HD T *next_col(T *c, int j) const { return advance_cols(c, j, 1); }  // col(j + 1)
};

/// Constants beyond team.hpp's Real<T>: overflow threshold, and the power-of-two thresholds
/// dlanv2 and dlartg scale by (2^(+-e) with e about half the exponent range of safmin/ulp).
template <class T>
struct Limits;
template <>
struct Limits<float> {
    GPUSVD_HD static float overflow() { return 3.40282347e+38f; }
    GPUSVD_HD static float safmn2() { return 0x1p-51f; }  // 2^int(log2(safmin/ulp)/2)
};
template <>
struct Limits<double> {
    GPUSVD_HD static double overflow() { return 1.7976931348623157e+308; }
    GPUSVD_HD static double safmn2() { return 0x1p-485; }
};

template <class T>
GPUSVD_HD T sign(T a, T b) {  // Fortran SIGN(a, b): |a| with the sign of b
    const T x = std::fabs(a);
    return b >= T(0) ? x : -x;
}

/// sqrt(x^2 + y^2) without needless overflow (dlapy2).
template <class T>
GPUSVD_HD T lapy2(T x, T y) {
    const T xa = std::fabs(x), ya = std::fabs(y);
    const T w = std::fmax(xa, ya), z = std::fmin(xa, ya);
    if (z == T(0) || w > Limits<T>::overflow()) return w;
    const T q = z / w;
    return w * std::sqrt(T(1) + q * q);
}

/// sqrt(x^2 + y^2 + z^2) without needless overflow (dlapy3).
template <class T>
GPUSVD_HD T lapy3(T x, T y, T z) {
    const T xa = std::fabs(x), ya = std::fabs(y), za = std::fabs(z);
    const T w = std::fmax(xa, std::fmax(ya, za));
    if (w == T(0) || w > Limits<T>::overflow()) return xa + ya + za;
    const T p = xa / w, q = ya / w, r = za / w;
    return w * std::sqrt(p * p + q * q + r * r);
}

// Element-type helpers: for real x the operation the real code performs; for complex x its
// LAPACK z-routine counterpart.

/// The scale of a 2-norm: |x|, or max(|re x|, |im x|) (dznrm2 scales by the parts).
template <class T>
GPUSVD_HD T max_part(T x) {
    return std::fabs(x);
}
template <class R>
GPUSVD_HD R max_part(Complex<R> x) {
    return std::fmax(std::fabs(x.re), std::fabs(x.im));
}

/// x / d for a real d (part by part for complex x).
template <class T>
GPUSVD_HD T div_real(T x, T d) {
    return x / d;
}
template <class R>
GPUSVD_HD Complex<R> div_real(Complex<R> x, R d) {
    return {x.re / d, x.im / d};
}

/// |x|: fabs, or the modulus by dlapy2 of the parts (no overflow of the squares).
template <class T>
GPUSVD_HD T abs_elem(T x) {
    return std::fabs(x);
}
template <class R>
GPUSVD_HD R abs_elem(Complex<R> x) {
    return lapy2(x.re, x.im);
}

/// |re x| + |im x| (LAPACK's CABS1); |x| for real x.
template <class T>
GPUSVD_HD T cabs1(T x) {
    return std::fabs(x);
}
template <class R>
GPUSVD_HD R cabs1(Complex<R> x) {
    return std::fabs(x.re) + std::fabs(x.im);
}

/// NaN in every part of an element.
template <class T>
GPUSVD_HD T nan_elem() {
    using R = RealOf<T>;
    if constexpr (kIsComplex<T>)
        return T(Real<R>::nan(), Real<R>::nan());
    else
        return Real<R>::nan();
}

namespace detail {
template <class T>
GPUSVD_HD T ladiv2(T a, T b, T c, T d, T r, T t) {
    if (r != T(0)) {
        const T br = b * r;
        if (br != T(0)) return (a + br) * t;
        return a * t + (b * t) * r;
    }
    return (a + d * (b / c)) * t;
}
template <class T>
GPUSVD_HD void ladiv1(T a, T b, T c, T d, T &p, T &q) {
    const T r = d / c;
    const T t = T(1) / (c + d * r);
    p = ladiv2(a, b, c, d, r, t);
    q = ladiv2(b, -a, c, d, r, t);
}
}  // namespace detail

/// (p + i q) = (a + i b) / (c + i d), robust against overflow (dladiv, Baudin & Smith).
template <class T>
GPUSVD_HD void ladiv(T a, T b, T c, T d, T &p, T &q) {
    const T ov = Limits<T>::overflow(), un = Real<T>::safe_min(), eps = Real<T>::eps();
    const T bs = T(2), be = bs / (eps * eps);
    T aa = a, bb = b, cc = c, dd = d, s = T(1);
    const T ab = std::fmax(std::fabs(a), std::fabs(b));
    const T cd = std::fmax(std::fabs(c), std::fabs(d));
    if (ab >= T(0.5) * ov) aa *= T(0.5), bb *= T(0.5), s *= T(2);
    if (cd >= T(0.5) * ov) cc *= T(0.5), dd *= T(0.5), s *= T(0.5);
    if (ab <= un * bs / eps) aa *= be, bb *= be, s /= be;
    if (cd <= un * bs / eps) cc *= be, dd *= be, s *= be;
    if (std::fabs(d) <= std::fabs(c)) {
        detail::ladiv1(aa, bb, cc, dd, p, q);
    } else {
        detail::ladiv1(bb, aa, dd, cc, p, q);
        q = -q;
    }
    p *= s;
    q *= s;
}

/// a / b, robust against overflow (zladiv by dladiv).
template <class R>
GPUSVD_HD Complex<R> cdiv(Complex<R> a, Complex<R> b) {
    Complex<R> q;
    ladiv(a.re, a.im, b.re, b.im, q.re, q.im);
    return q;
}

/// Principal square root of a complex number (branch cut on the negative real axis, as
/// Fortran's SQRT): from |z| by dlapy2 and one real square root.
template <class R>
GPUSVD_HD Complex<R> csqrt(Complex<R> z) {
    if (z.re == R(0) && z.im == R(0)) return Complex<R>(R(0), z.im);
    // half of |z| + |re z| without overflow (both can be near the overflow threshold)
    const R h = R(0.5) * lapy2(z.re, z.im) + R(0.5) * std::fabs(z.re);
    const R t = std::sqrt(h);  // > 0: h >= |z| / 2 > 0
    const R o = (R(0.5) * z.im) / t;
    if (z.re >= R(0)) return Complex<R>(t, o);
    return Complex<R>(std::fabs(o), z.im >= R(0) ? t : -t);
}

/// Plane rotation [c s; -s c] [f; g] = [r; 0] with c >= 0 and r of the sign of f (LAPACK 3.10
/// dlartg).
template <class T>
GPUSVD_HD void lartg(T f, T g, T &c, T &s, T &r) {
    const T safmin = Real<T>::safe_min(), safmax = T(1) / safmin;
    const T rtmin = std::sqrt(safmin), rtmax = std::sqrt(safmax / T(2));
    if (g == T(0)) {
        c = T(1), s = T(0), r = f;
    } else if (f == T(0)) {
        c = T(0), s = sign(T(1), g), r = std::fabs(g);
    } else {
        const T f1 = std::fabs(f), g1 = std::fabs(g);
        if (f1 > rtmin && f1 < rtmax && g1 > rtmin && g1 < rtmax) {
            const T d = std::sqrt(f * f + g * g);
            c = f1 / d;
            r = sign(d, f);
            s = g / r;
        } else {
            const T u = std::fmin(safmax, std::fmax(safmin, std::fmax(f1, g1)));
            const T fs = f / u, gs = g / u;
            const T d = std::sqrt(fs * fs + gs * gs);
            c = std::fabs(fs) / d;
            r = sign(d, f);
            s = gs / r;
            r *= u;
        }
    }
}

/// Householder reflector of order 2 or 3 on registers (dlarfg with n <= 3): on return alpha is
/// beta, (x2, x3) the vector tail v(2:n), tau the scalar. n == 2: x3 is set to zero.
template <class T>
GPUSVD_HD void larfg3(int n, T &alpha, T &x2, T &x3, T &tau) {
    if (n <= 1) {
        tau = T(0);
        return;
    }
    if (n == 2) x3 = T(0);
    // Common case: the sum of squares neither overflows (inf fails the test) nor sits near
    // underflow (squares lost to underflow, each below safe_min * ulp, then change it by less
    // than ulp^2 relative). Then one reciprocal square root r = 1/|(alpha, x2, x3)| gives
    // everything: beta = -sign(alpha) |x| and tau = (beta - alpha) / beta = 1 + |alpha| r, and
    // 1 / (alpha - beta) = sign(alpha) / (|alpha| + |x|) takes one reciprocal. The bulge chase
    // waits on this every step: dlapy2 twice and dlarfg's two divisions cost three divisions and
    // two square roots in a row. Same values up to a few ulps, which leave H - tau v v^T
    // orthogonal to O(eps).
    // (One branch for this and the zero test below: every bulge step waits on it.)
    const T ss = alpha * alpha + x2 * x2 + x3 * x3;
    const bool zero = x2 == T(0) && x3 == T(0);
    if (!zero && ss >= Real<T>::safe_min() / Real<T>::ulp() && ss < Limits<T>::overflow()) {
        const T r = rsqrt_normal(ss), aa = std::fabs(alpha);
        const T xn = ss * r;
        tau = T(1) + aa * r;
        // sign() of the positive rcp and xn without its fabs (a GPU step costs fewer instructions)
        const T p = rcp_normal(aa + xn);  // aa + xn >= sqrt(ss): normal
        const bool neg = alpha < T(0);
        const T scal = neg ? -p : p;
        x2 *= scal;
        x3 *= scal;
        alpha = neg ? xn : -xn;
        return;
    }
    if (zero) {
        tau = T(0);
        return;
    }
    T xnorm = n == 3 ? lapy2(x2, x3) : std::fabs(x2);
    T beta = -sign(lapy2(alpha, xnorm), alpha);
    const T safmin = Real<T>::safe_min() / Real<T>::eps(), rsafmn = T(1) / safmin;
    int knt = 0;
    if (std::fabs(beta) < safmin) {
        do {  // xnorm and beta may be inaccurate: scale x and recompute them
            ++knt;
            x2 *= rsafmn;
            x3 *= rsafmn;
            beta *= rsafmn;
            alpha *= rsafmn;
        } while (std::fabs(beta) < safmin && knt < 20);
        xnorm = n == 3 ? lapy2(x2, x3) : std::fabs(x2);
        beta = -sign(lapy2(alpha, xnorm), alpha);
    }
    tau = (beta - alpha) / beta;
    const T scal = T(1) / (alpha - beta);
    x2 *= scal;
    x3 *= scal;
    for (int j = 0; j < knt; ++j) beta *= safmin;
    alpha = beta;
}

/// Schur factorisation of a real 2x2 [a b; c d] = [cs -sn; sn cs] [aa bb; cc dd] [cs sn; -sn cs]
/// in standard form (dlanv2): either cc = 0 (real eigenvalues) or aa = dd and bb*cc < 0
/// (complex pair (rt1r, rt1i) with rt1i > 0, and its conjugate).
template <class T>
GPUSVD_HD void lanv2(T &a, T &b, T &c, T &d, T &rt1r, T &rt1i, T &rt2r, T &rt2i, T &cs, T &sn) {
    const T multpl = T(4), eps = Real<T>::ulp();
    const T safmn2 = Limits<T>::safmn2(), safmx2 = T(1) / safmn2;
    if (c == T(0)) {
        cs = T(1), sn = T(0);
    } else if (b == T(0)) {  // swap rows and columns
        cs = T(0), sn = T(1);
        const T temp = d;
        d = a;
        a = temp;
        b = -c;
        c = T(0);
    } else if ((a - d) == T(0) && sign(T(1), b) != sign(T(1), c)) {
        cs = T(1), sn = T(0);
    } else {
        T temp = a - d;
        T p = T(0.5) * temp;
        const T bcmax = std::fmax(std::fabs(b), std::fabs(c));
        const T bcmis = std::fmin(std::fabs(b), std::fabs(c)) * sign(T(1), b) * sign(T(1), c);
        T scale = std::fmax(std::fabs(p), bcmax);
        T z = (p / scale) * p + (bcmax / scale) * bcmis;
        if (z >= multpl * eps) {  // real eigenvalues
            z = p + sign(std::sqrt(scale) * std::sqrt(z), p);
            a = d + z;
            d = d - (bcmax / z) * bcmis;
            const T tau = lapy2(c, z);
            cs = z / tau;
            sn = c / tau;
            b = b - c;
            c = T(0);
        } else {  // complex or (almost) equal real eigenvalues: make the diagonal equal
            T sigma = b + c;
            for (int count = 1; count <= 21; ++count) {
                scale = std::fmax(std::fabs(temp), std::fabs(sigma));
                if (scale >= safmx2) {
                    sigma *= safmn2, temp *= safmn2;
                    continue;
                }
                if (scale <= safmn2) {
                    sigma *= safmx2, temp *= safmx2;
                    continue;
                }
                break;
            }
            p = T(0.5) * temp;
            T tau = lapy2(sigma, temp);
            cs = std::sqrt(T(0.5) * (T(1) + std::fabs(sigma) / tau));
            sn = -(p / (tau * cs)) * sign(T(1), sigma);
            // [aa bb; cc dd] = [a b; c d] [cs -sn; sn cs]
            const T aa = a * cs + b * sn, bb = -a * sn + b * cs;
            const T cc = c * cs + d * sn, dd = -c * sn + d * cs;
            // [a b; c d] = [cs sn; -sn cs] [aa bb; cc dd]
            a = aa * cs + cc * sn;
            b = bb * cs + dd * sn;
            c = -aa * sn + cc * cs;
            d = -bb * sn + dd * cs;
            temp = T(0.5) * (a + d);
            a = temp;
            d = temp;
            if (c != T(0)) {
                if (b != T(0)) {
                    if (sign(T(1), b) == sign(T(1), c)) {  // real eigenvalues after all
                        const T sab = std::sqrt(std::fabs(b)), sac = std::sqrt(std::fabs(c));
                        p = sign(sab * sac, c);
                        tau = T(1) / std::sqrt(std::fabs(b + c));
                        a = temp + p;
                        d = temp - p;
                        b = b - c;
                        c = T(0);
                        const T cs1 = sab * tau, sn1 = sac * tau;
                        temp = cs * cs1 - sn * sn1;
                        sn = cs * sn1 + sn * cs1;
                        cs = temp;
                    }
                } else {
                    b = -c;
                    c = T(0);
                    temp = cs;
                    cs = -sn;
                    sn = temp;
                }
            }
        }
    }
    rt1r = a;
    rt2r = d;
    if (c == T(0)) {
        rt1i = T(0), rt2i = T(0);
    } else {
        rt1i = std::sqrt(std::fabs(b)) * std::sqrt(std::fabs(c));
        rt2i = -rt1i;
    }
}

/// Result of laln2: X (x11, x21 real parts; x12, x22 imaginary parts), the scale applied to the
/// right-hand side, and the max-norm of X.
template <class T>
struct Laln2Out {
    T x11, x21, x12, x22, scale, xnorm;
};

/// Solves (A - (wr + i wi) I) X = scale * B for a 1x1 or 2x2 block A = [a11 a12; a21 a22]
/// (na = 1 uses a11 only), real (nw = 1: B = (b11, b21)) or complex (nw = 2: B = (b11 + i b12,
/// b21 + i b22)), perturbing near-singular systems to smin and scaling against overflow
/// (dlaln2 with ltrans = false, ca = d1 = d2 = 1).
template <class T>
GPUSVD_HD Laln2Out<T> laln2(int na, int nw, T smin, T a11, T a21, T a12, T a22, T b11, T b21,
                            T b12, T b22, T wr, T wi) {
    const T smlnum = T(2) * Real<T>::safe_min(), bignum = T(1) / smlnum;
    const T smini = std::fmax(smin, smlnum);
    Laln2Out<T> o{T(0), T(0), T(0), T(0), T(1), T(0)};
    if (na == 1) {
        if (nw == 1) {
            T csr = a11 - wr, cnorm = std::fabs(csr);
            if (cnorm < smini) csr = smini, cnorm = smini;
            const T bnorm = std::fabs(b11);
            if (cnorm < T(1) && bnorm > T(1) && bnorm > bignum * cnorm) o.scale = T(1) / bnorm;
            o.x11 = (b11 * o.scale) / csr;
            o.xnorm = std::fabs(o.x11);
        } else {
            T csr = a11 - wr, csi = -wi, cnorm = std::fabs(csr) + std::fabs(csi);
            if (cnorm < smini) csr = smini, csi = T(0), cnorm = smini;
            const T bnorm = std::fabs(b11) + std::fabs(b12);
            if (cnorm < T(1) && bnorm > T(1) && bnorm > bignum * cnorm) o.scale = T(1) / bnorm;
            ladiv(o.scale * b11, o.scale * b12, csr, csi, o.x11, o.x12);
            o.xnorm = std::fabs(o.x11) + std::fabs(o.x12);
        }
        return o;
    }
    // 2x2: C = A - w I as the vector (c11, c21, c12, c22). dlaln2's pivot table is
    // ipivot(k, icmax) = icmax ^ k (0-based); its row swap is icmax odd, its solution swap
    // icmax >= 2. Selects instead of indexed arrays keep everything in registers on the GPU.
    const T c0 = a11 - wr, c1 = a21, c2 = a12, c3 = a22 - wr;
    const T ci0 = -wi, ci3 = -wi;
    auto crv = [&](int k) { return k == 0 ? c0 : k == 1 ? c1 : k == 2 ? c2 : c3; };
    auto civ = [&](int k) { return k == 0 ? ci0 : k == 3 ? ci3 : T(0); };
    T cmax = T(0);
    int icmax = 0;
    if (nw == 1) {
        for (int j = 0; j < 4; ++j)
            if (std::fabs(crv(j)) > cmax) cmax = std::fabs(crv(j)), icmax = j;
        if (cmax < smini) {  // use smini * I
            const T bnorm = std::fmax(std::fabs(b11), std::fabs(b21));
            if (smini < T(1) && bnorm > T(1) && bnorm > bignum * smini) o.scale = T(1) / bnorm;
            const T temp = o.scale / smini;
            o.x11 = temp * b11, o.x21 = temp * b21, o.xnorm = temp * bnorm;
            return o;
        }
        // Gaussian elimination with complete pivoting
        const T ur11 = crv(icmax), cr21 = crv(icmax ^ 1);
        const T ur12 = crv(icmax ^ 2), cr22 = crv(icmax ^ 3);
        const T ur11r = T(1) / ur11, lr21 = ur11r * cr21;
        T ur22 = cr22 - ur12 * lr21;
        if (std::fabs(ur22) < smini) ur22 = smini;
        const bool rswap = icmax & 1;
        T br1 = rswap ? b21 : b11, br2 = rswap ? b11 : b21;
        br2 = br2 - lr21 * br1;
        const T bbnd = std::fmax(std::fabs(br1 * (ur22 * ur11r)), std::fabs(br2));
        if (bbnd > T(1) && std::fabs(ur22) < T(1) && bbnd >= bignum * std::fabs(ur22))
            o.scale = T(1) / bbnd;
        const T xr2 = (br2 * o.scale) / ur22;
        const T xr1 = (o.scale * br1) * ur11r - xr2 * (ur11r * ur12);
        o.x11 = icmax >= 2 ? xr2 : xr1;
        o.x21 = icmax >= 2 ? xr1 : xr2;
        o.xnorm = std::fmax(std::fabs(xr1), std::fabs(xr2));
        if (o.xnorm > T(1) && cmax > T(1) && o.xnorm > bignum / cmax) {
            const T temp = cmax / bignum;
            o.x11 *= temp, o.x21 *= temp, o.xnorm *= temp, o.scale *= temp;
        }
        return o;
    }
    for (int j = 0; j < 4; ++j) {
        const T v = std::fabs(crv(j)) + std::fabs(civ(j));
        if (v > cmax) cmax = v, icmax = j;
    }
    if (cmax < smini) {
        const T bnorm = std::fmax(std::fabs(b11) + std::fabs(b12), std::fabs(b21) + std::fabs(b22));
        if (smini < T(1) && bnorm > T(1) && bnorm > bignum * smini) o.scale = T(1) / bnorm;
        const T temp = o.scale / smini;
        o.x11 = temp * b11, o.x21 = temp * b21, o.x12 = temp * b12, o.x22 = temp * b22;
        o.xnorm = temp * bnorm;
        return o;
    }
    const T ur11 = crv(icmax), ui11 = civ(icmax);
    const T cr21 = crv(icmax ^ 1), ci21 = civ(icmax ^ 1);
    const T ur12 = crv(icmax ^ 2), ui12 = civ(icmax ^ 2);
    const T cr22 = crv(icmax ^ 3), ci22 = civ(icmax ^ 3);
    T ur11r, ui11r, lr21, li21, ur12s, ui12s, ur22, ui22;
    if (icmax == 0 || icmax == 3) {  // off-diagonals of the pivoted C are real
        if (std::fabs(ur11) > std::fabs(ui11)) {
            const T temp = ui11 / ur11;
            ur11r = T(1) / (ur11 * (T(1) + temp * temp));
            ui11r = -temp * ur11r;
        } else {
            const T temp = ur11 / ui11;
            ui11r = -T(1) / (ui11 * (T(1) + temp * temp));
            ur11r = -temp * ui11r;
        }
        lr21 = cr21 * ur11r;
        li21 = cr21 * ui11r;
        ur12s = ur12 * ur11r;
        ui12s = ur12 * ui11r;
        ur22 = cr22 - ur12 * lr21;
        ui22 = ci22 - ur12 * li21;
    } else {  // diagonals of the pivoted C are real
        ur11r = T(1) / ur11;
        ui11r = T(0);
        lr21 = cr21 * ur11r;
        li21 = ci21 * ur11r;
        ur12s = ur12 * ur11r;
        ui12s = ui12 * ur11r;
        ur22 = cr22 - ur12 * lr21 + ui12 * li21;
        ui22 = -ur12 * li21 - ui12 * lr21;
    }
    const T u22abs = std::fabs(ur22) + std::fabs(ui22);
    if (u22abs < smini) ur22 = smini, ui22 = T(0);
    T br1, br2, bi1, bi2;
    if (icmax & 1) {
        br2 = b11, br1 = b21, bi2 = b12, bi1 = b22;
    } else {
        br1 = b11, br2 = b21, bi1 = b12, bi2 = b22;
    }
    br2 = br2 - lr21 * br1 + li21 * bi1;
    bi2 = bi2 - li21 * br1 - lr21 * bi1;
    const T bbnd = std::fmax((std::fabs(br1) + std::fabs(bi1)) *
                                 (u22abs * (std::fabs(ur11r) + std::fabs(ui11r))),
                             std::fabs(br2) + std::fabs(bi2));
    if (bbnd > T(1) && u22abs < T(1) && bbnd >= bignum * u22abs) {
        o.scale = T(1) / bbnd;
        br1 *= o.scale, bi1 *= o.scale, br2 *= o.scale, bi2 *= o.scale;
    }
    T xr2, xi2;
    ladiv(br2, bi2, ur22, ui22, xr2, xi2);
    const T xr1 = ur11r * br1 - ui11r * bi1 - ur12s * xr2 + ui12s * xi2;
    const T xi1 = ui11r * br1 + ur11r * bi1 - ui12s * xr2 - ur12s * xi2;
    if (icmax >= 2) {
        o.x11 = xr2, o.x21 = xr1, o.x12 = xi2, o.x22 = xi1;
    } else {
        o.x11 = xr1, o.x21 = xr2, o.x12 = xi1, o.x22 = xi2;
    }
    o.xnorm = std::fmax(std::fabs(xr1) + std::fabs(xi1), std::fabs(xr2) + std::fabs(xi2));
    if (o.xnorm > T(1) && cmax > T(1) && o.xnorm > bignum / cmax) {
        const T temp = cmax / bignum;
        o.x11 *= temp, o.x21 *= temp, o.x12 *= temp, o.x22 *= temp;
        o.xnorm *= temp, o.scale *= temp;
    }
    return o;
}

}  // namespace geev
}  // namespace kernels
}  // namespace gpusvd
