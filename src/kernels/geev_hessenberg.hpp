// Team Householder reduction to upper Hessenberg form (LAPACK dgehd2 / zgehd2) and the
// accumulation of its orthogonal or unitary factor (dorghr / zunghr), for real or complex
// elements: complex reflectors are zlarfg's, H = I - tau v v^H with beta real and tau complex.
#pragma once

#include <type_traits>

#include "kernels/geev_scalar.hpp"

namespace gpusvd {
namespace kernels {
namespace geev {

/// 2-norm of x[0:len] (contiguous), accumulated relative to the largest entry (complex: the
/// largest part) so it neither overflows nor underflows. Members read only their own entries
/// (i = rank + k*size).
template <class T, class Team>
GPUSVD_HD RealOf<T> norm2(const Team &t, int len, const T *x) {
    using R = RealOf<T>;
    R m = R(0);
    GPUSVD_NO_UNROLL
    for (int i = t.rank(); i < len; i += t.size()) m = std::fmax(m, max_part(x[i]));
    m = t.max(m);
    if (m == R(0)) return R(0);
    R s = R(0);
    GPUSVD_NO_UNROLL
    for (int i = t.rank(); i < len; i += t.size()) s += abs2(div_real(x[i], m));
    return m * std::sqrt(t.sum(s));
}

/// zlarfg on (alpha, x[0:n-1]) (complex alpha, x): tau = 0 only when x = 0 and alpha is real,
/// so n = 1 still makes a complex alpha real.
template <class T, class Team>
GPUSVD_HD T larfg_complex(const Team &t, int n, T &alpha, T *x) {
    using R = RealOf<T>;
    if (n <= 0) return T(0);
    R xnorm = norm2(t, n - 1, x);
    R alphr = alpha.re, alphi = alpha.im;
    if (xnorm == R(0) && alphi == R(0)) return T(0);
    R beta = -sign(lapy3(alphr, alphi, xnorm), alphr);
    const R safmin = Real<R>::safe_min() / Real<R>::eps();
    int knt = 0;
    if (std::fabs(beta) < safmin) {  // xnorm, beta may be inaccurate: scale up and recompute
        const R rsafmn = R(1) / safmin;
        do {
            ++knt;
            for (int i = t.rank(); i < n - 1; i += t.size()) x[i] *= rsafmn;
            beta *= rsafmn;
            alphi *= rsafmn;
            alphr *= rsafmn;
        } while (std::fabs(beta) < safmin && knt < 20);
        xnorm = norm2(t, n - 1, x);
        beta = -sign(lapy3(alphr, alphi, xnorm), alphr);
    }
    const T tau((beta - alphr) / beta, -alphi / beta);
    const T scal = cdiv(T(R(1)), T(alphr - beta, alphi));
    for (int i = t.rank(); i < n - 1; i += t.size()) x[i] = scal * x[i];
    for (int j = 0; j < knt; ++j) beta *= safmin;
    alpha = T(beta);
    return tau;
}

/// dlarfg on (alpha, x[0:n-1]): returns tau, overwrites x with v(2:n) and alpha with beta.
/// Members touch only their own entries of x; alpha is a register every member holds.
template <class T, class Team>
GPUSVD_HD T larfg_real(const Team &t, int n, T &alpha, T *x) {
    if (n <= 1) return T(0);
    T xnorm = norm2(t, n - 1, x);
    if (xnorm == T(0)) return T(0);
    T beta = -sign(lapy2(alpha, xnorm), alpha);
    const T safmin = Real<T>::safe_min() / Real<T>::eps();
    int knt = 0;
    if (std::fabs(beta) < safmin) {  // xnorm, beta may be inaccurate: scale up and recompute
        const T rsafmn = T(1) / safmin;
        do {
            ++knt;
            for (int i = t.rank(); i < n - 1; i += t.size()) x[i] *= rsafmn;
            beta *= rsafmn;
            alpha *= rsafmn;
        } while (std::fabs(beta) < safmin && knt < 20);
        xnorm = norm2(t, n - 1, x);
        beta = -sign(lapy2(alpha, xnorm), alpha);
    }
    const T tau = (beta - alpha) / beta;
    const T scal = T(1) / (alpha - beta);
    for (int i = t.rank(); i < n - 1; i += t.size()) x[i] *= scal;
    for (int j = 0; j < knt; ++j) beta *= safmin;
    alpha = beta;
    return tau;
}

/// Householder reflector of either element type (dlarfg / zlarfg).
template <class T, class Team>
GPUSVD_HD T larfg(const Team &t, int n, T &alpha, T *x) {
    if constexpr (kIsComplex<T>)
        return larfg_complex(t, n, alpha, x);
    else
        return larfg_real(t, n, alpha, x);
}

/// x := x (I - tau u u^T) for one vector xa (orghr's columns), or two at once (kTwo: xa and xb, one
/// member's two rows or columns of gehd2's updates), u = (1, v(first+1..last)) on indices
/// first..last: w = x(first) + sum_k x(k) v(k), then x(first) -= tau w, x(k) -= tau w v(k).
/// Complex: a column x := (I - tau u u^H) x (w = u^H x, kRow false) or a row x := x (I - tau u u^H)
/// (w = x u, x(k) -= tau w conj(v(k)), kRow true); for real elements both are the above. With kTwo,
/// xb is only written when `two` (else it aliases xa). Two vectors per pass share the loads of v
/// and give two independent dependency chains; the updates load each pair of entries before storing
/// it (the compiler cannot move a load of v above a store to x: for all it knows they alias). Same
/// arithmetic per entry as one vector at a time.
template <bool kTwo, bool kRow = false, class T, class Xa, class Xb>
GPUSVD_HD void apply_reflector(Xa xa, Xb xb, bool two, const T *v, int first, int last, T tau) {
    constexpr bool kColumnConj = kIsComplex<T> && !kRow;  // w = u^H x
    T wa = xa(first), wb = kTwo ? xb(first) : T(0);
    for (int k = first + 1; k <= last; ++k) {
        const T vk = v[k];
        if constexpr (kColumnConj) {
            wa += mul_conj(vk, xa(k));
            if (kTwo) wb += mul_conj(vk, xb(k));
        } else {
            wa += xa(k) * vk;
            if (kTwo) wb += xb(k) * vk;
        }
    }
    wa = wa * tau;
    wb = wb * tau;
    xa(first) -= wa;
    if (kTwo && two) xb(first) -= wb;
    // Chunks of C entries, loaded before any of them is stored.
    const auto chunk = [&](auto c, int k) {
        constexpr int C = decltype(c)::value;
        T vk[C], a[C], b[C];
        GPUSVD_UNROLL
        for (int q = 0; q < C; ++q) {
            vk[q] = kRow ? conj(v[k + q]) : v[k + q];
            a[q] = xa(k + q);
            b[q] = kTwo ? xb(k + q) : T(0);
        }
        GPUSVD_UNROLL
        for (int q = 0; q < C; ++q) {
            xa(k + q) = a[q] - wa * vk[q];
            if (kTwo && two) xb(k + q) = b[q] - wb * vk[q];
        }
    };
    int k = first + 1;
    for (; k + 3 <= last; k += 4) chunk(std::integral_constant<int, 4>{}, k);
    if (k + 1 <= last) chunk(std::integral_constant<int, 2>{}, k), k += 2;
    if (k <= last) chunk(std::integral_constant<int, 1>{}, k);
}

/// gehd2's two updates with reflector u (column i of A, tau ti): A(0:ihi, i+1:ihi) :=
/// A (I - tau v v^T), a member per row, then A(i+1:ihi, i+1:n-1) := (I - tau v v^T) A, a member
/// per column (complex: A (I - tau v v^H), then (I - tau v v^H)^H A with conj(tau)). kTwo: two
/// rows (columns) per member at a time (see apply_reflector), for when some member has more
/// than one. Ends with a sync.
template <bool kTwo, class T, class Team>
GPUSVD_HD void gehd2_update(const Team &t, int n, int i, int ihi, Mat<T> A, T ti) {
    const int size = t.size(), step = kTwo ? 2 * size : size;
    const T *const u = A.col(i);
    for (int r = t.rank(); r <= ihi; r += step) {
        const int r2 = kTwo && r + size <= ihi ? r + size : r;
        apply_reflector<kTwo, true>([=](int k) -> T & { return A(r, k); },
                                    [=](int k) -> T & { return A(r2, k); }, r2 != r, u, i + 1,
                                    ihi, ti);
    }
    t.sync();
    const T tl = conj(ti);
    for (int c = i + 1 + t.rank(); c < n; c += step) {
        T *const x = A.col(c), *const y = A.col(kTwo && c + size < n ? c + size : c);
        apply_reflector<kTwo>([=](int k) -> T & { return x[k]; },
                              [=](int k) -> T & { return y[k]; }, x != y, u, i + 1, ihi, tl);
    }
    t.sync();
}

/// dgehd2 / zgehd2: reduces rows/columns ilo..ihi (0-based, inclusive) of the n x n A to upper
/// Hessenberg form by H = Q^H A Q. Reflector i has v = (1, A(i+2:ihi, i)) on rows i+1..ihi and
/// scalar tau[i] (complex: the subdiagonal comes out real). Ends with a sync.
template <class T, class Team>
GPUSVD_HD void gehd2(const Team &t, int n, int ilo, int ihi, Mat<T> A, T *tau) {
    for (int i = ilo; i < ihi; ++i) {
        T alpha = A(i + 1, i);
        T *v = &A(i + 2, i);  // v(2:m); v(1) = 1 is implicit
        const int m = ihi - i;
        const T ti = larfg(t, m, alpha, v);
        t.sync();  // v is final and everyone has read A(i+1, i)
        if (t.rank() == 0) {
            A(i + 1, i) = alpha;
            tau[i] = ti;
        }
        if (ti == T(0)) continue;  // nothing else changes; the next column is not touched
        if (ihi + 1 > t.size() || n - 1 - i > t.size())
            gehd2_update<true>(t, n, i, ihi, A, ti);
        else
            gehd2_update<false>(t, n, i, ihi, A, ti);
    }
    t.sync();
}

/// dorghr / zunghr: Z = Q = H(ilo) ... H(ihi-1) from the reflectors gehd2 left in A and tau,
/// accumulated backwards. A member owns the same columns of Z throughout, so successive reflectors
/// need no sync. Ends with a sync.
template <class T, class Team>
GPUSVD_HD void orghr(const Team &t, int n, int ilo, int ihi, Mat<T> A, const T *tau, Mat<T> Z) {
    GPUSVD_NO_UNROLL
    for (int c = t.rank(); c < n; c += t.size())
        for (int r = 0; r < n; ++r) Z(r, c) = r == c ? T(1) : T(0);
    for (int j = ihi - 1; j >= ilo; --j) {
        const T tj = tau[j];
        if (tj == T(0)) continue;
        // Columns <= j of the partial product are still unit vectors on rows j+1..ihi.
        GPUSVD_NO_UNROLL
        for (int c = t.rank(); c <= ihi; c += t.size()) {
            if (c <= j) continue;
            T *const z = Z.col(c);
            const auto x = [=](int k) -> T & { return z[k]; };
            apply_reflector<false>(x, x, false, A.col(j), j + 1, ihi, tj);
        }
    }
    t.sync();
}

/// Zeroes A below the first subdiagonal (the reflectors), as dhseqr does before dtrevc reads the
/// Schur form. Ends with a sync.
template <class T, class Team>
GPUSVD_HD void clear_below_subdiagonal(const Team &t, int n, Mat<T> A) {
    for (int c = 0; c + 2 < n; ++c)
        GPUSVD_NO_UNROLL
        for (int r = c + 2 + t.rank(); r < n; r += t.size()) A(r, c) = T(0);
    t.sync();
}

}  // namespace geev
}  // namespace kernels
}  // namespace gpusvd
