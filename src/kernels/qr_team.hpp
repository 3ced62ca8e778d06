// QR by modified Gram-Schmidt of one matrix by one team (see team.hpp): the host reference
// (SerialTeam, ThreadTeam in the tests) and the GPU kernels of cuda/geqrf/batched.cu run this
// same code.
//
// A (m x n) = Q R, k = min(m,n): Q (m x k) overwrites A's first k columns, R (k x n) upper
// trapezoidal with R(j,j) >= 0 and zeros below the diagonal.
//
// Column-oriented, right-looking MGS. Member r owns columns r, r + size, ...: a dot product
// q_j^T a_c and an update a_c -= r_jc q_j are sequential loops over the rows inside the owner of
// column c, with q_j read by every member (a broadcast), so no reduction per dot product. Step j
// is one phase between two t.sync(): the owners of the columns c > j project them against q_j;
// the owner of column j+1 also takes its norm (it is final after step j), for step j+1; the
// owner of column j-1 scales it to unit length (nobody reads it during step j: step j uses
// v_j / |v_j| on the fly, the same products the stored q_j holds).
//
//  - MGS2 (reorth): MGS applied twice, [Q1, R1] = MGS(A), [Q, R2] = MGS(Q1), R = R2 R1. R2's
//    strictly upper part lives in the strictly lower part of R's leading k x k block (transposed;
//    it is zeroed at the end), its diagonal in a k-vector: no extra k x k storage.
//  - Dependent column (as the CPU backend): |v_j| <= m ulp |a_j| after the projections (ulp =
//    LAPACK's dlamch('P') = std::numeric_limits<T>::epsilon(), the CPU backend's constant; |a_j|
//    the column's norm at the start of the pass). R(j,j) = 0, info = j + 1 (the first such), and
//    q_j = e_i (i the row of least norm of Q(:,0:j)) projected twice against q_0..q_{j-1} and
//    normalised: Q stays orthonormal (a zero matrix gets an identity-like Q and R = 0).
//  - m < n: Q is m x m from the first m columns; columns j >= m are only projected (R(0:m,j) are
//    the coefficients; MGS2 combines both passes' through R2 R1), then projected once more
//    against the final Q, whose coefficients are added (qr_project_rest).
//  - NaN/Inf anywhere in A: no factorisation; info = GPUSVD_INFO_NONFINITE (-1), Q and R NaN.
//  - Complex T (kernels::Complex): the same steps with r_jc = q_j^H a_c (mul_conj) and real
//    norms, so R(j,j) comes out real and non-negative as zgeqrf + zungqr's convention asks
//    (LAPACK's zgeqrf leaves a phase there; MGS never puts one in). Real T compiles to the
//    operations it always did.
//  - Scaling: A is multiplied by a power of two that brings max |a_ij| to where no sum of squares
//    can overflow (as jacobi_scale_exponents), R scaled back at the end (exact unless R itself
//    under/overflows). A norm whose sum of squares may have lost to underflow (columns far below
//    the largest) is recomputed with the column scaled by a power of two.
#pragma once

#include <cstdint>

#include "kernels/complex.hpp"
#include "kernels/team.hpp"

namespace gpusvd {
namespace kernels {

/// Where one matrix's working storage lives, in elements of T (the real vectors of a complex T
/// take a T slot per entry, half of it unused: one layout and one size for every element type).
/// Shared-memory layout
/// (in_place false): the vectors, then the m x n working matrix (leading dimension ld), then R
/// (k x n, leading dimension ldr). In place (the global path): only the vectors; the team works
/// on the caller's A and R directly.
struct QrShape {
    int64_t m, n, k;
    int64_t ld, ldr;  // odd: members walking their columns row by row hit distinct banks
    bool in_place;
    int64_t elems;  // T elements of the working storage
};

inline QrShape qr_shape(int64_t m, int64_t n, bool in_place) {
    QrShape s;
    s.m = m;
    s.n = n;
    s.k = m < n ? m : n;
    s.ld = m | 1;
    s.ldr = s.k | 1;
    s.in_place = in_place;
    s.elems = 2 * n + 2 * s.k + (in_place ? 0 : (s.ld + s.ldr) * n);
    return s;
}

/// One problem as the caller gave it (column-major, m, n >= 1; R is k x n).
template <class T>
struct QrIO {
    int64_t m, n;
    T *A;
    int64_t lda;
    T *R;
    int64_t ldr;
};

/// The data a team works on. I: the index type (int in shared memory, int64_t in place).
template <class T, class I>
struct QrWork {
    using R = RealOf<T>;
    I m, n, k;
    T *a;  // the matrix being factored, m x n
    I lda;
    T *r;  // R, k x n
    I ldr;
    R *nrm;    // n: norm of each column's current residual (written by its owner)
    R *nrm0;   // n: column norms at the start of the pass
    R *rdiag;  // k: diagonal of the second pass's R2
    T *coef;   // k: coefficients of the completion's projections
};

template <class T, class I>
GPUSVD_HD QrWork<T, I> qr_work(const QrShape &s, T *base, const QrIO<T> &io) {
    QrWork<T, I> w;
    w.m = static_cast<I>(s.m);
    w.n = static_cast<I>(s.n);
    w.k = static_cast<I>(s.k);
    using R = RealOf<T>;
    w.nrm = reinterpret_cast<R *>(base);
    w.nrm0 = reinterpret_cast<R *>(base + s.n);
    w.rdiag = reinterpret_cast<R *>(base + 2 * s.n);
    w.coef = base + 2 * s.n + s.k;
    if (s.in_place) {
        w.a = io.A;
        w.lda = static_cast<I>(io.lda);
        w.r = io.R;
        w.ldr = static_cast<I>(io.ldr);
    } else {
        w.a = w.coef + s.k;
        w.lda = static_cast<I>(s.ld);
        w.r = w.a + s.ld * s.n;
        w.ldr = static_cast<I>(s.ldr);
    }
    return w;
}

/// f(i, j) for every entry of an m x n matrix, consecutive ranks on consecutive rows (coalesced
/// on the caller's column-major arrays).
template <class I, class Team, class F>
GPUSVD_HD void qr_for_entries(const Team &t, I m, I n, F &&f) {
    const int P = t.size();
    if (m >= P) {
        for (I j = 0; j < n; ++j)
            for (I i = t.rank(); i < m; i += P) f(i, j);
    } else {
        const I total = m * n;
        for (I e = t.rank(); e < total; e += P) f(e % m, e / m);
    }
}

/// First column c > j owned by member `me` of P (c = me mod P).
template <class I>
GPUSVD_HD I qr_first_owned_after(I j, int me, int P) {
    I off = (static_cast<I>(me) - (j + 1)) % P;
    if (off < 0) off += P;
    return j + 1 + off;
}

/// max(|re x|, |im x|): within sqrt(2) of |x|, enough for the power-of-two scalings; |x| for
/// real x.
template <class T>
GPUSVD_HD RealOf<T> qr_mag(T x) {
    if constexpr (kIsComplex<T>) {
        using R = Real<RealOf<T>>;
        const RealOf<T> a = R::abs(x.re), b = R::abs(x.im);
        return a > b ? a : b;
    } else {
        return Real<T>::abs(x);
    }
}

/// x 2^e (exact unless the result under/overflows).
template <class T>
GPUSVD_HD T qr_ldexp(T x, int e) {
    if constexpr (kIsComplex<T>) {
        using R = Real<RealOf<T>>;
        return T(R::ldexp(x.re, e), R::ldexp(x.im, e));
    } else {
        return Real<T>::ldexp(x, e);
    }
}

/// NaN (both parts of a complex T, as the CPU backend fills its outputs).
template <class T>
GPUSVD_HD T qr_nan() {
    if constexpr (kIsComplex<T>) {
        const RealOf<T> v = Real<RealOf<T>>::nan();
        return T(v, v);
    } else {
        return Real<T>::nan();
    }
}

/// A sum of squares is trusted when it is far enough above underflow that squares lost to it
/// cannot matter (each loses at most safe_min * ulp) and finite.
template <class T>
GPUSVD_HD bool qr_ssq_ok(T ss) {
    return ss >= Real<T>::safe_min() / Real<T>::ulp() && is_finite(ss);
}

/// 2-norm of x (m entries) scaled by a power of two (exact): the rare path of qr_ssq_ok.
template <class T, class I>
GPUSVD_HD RealOf<T> qr_norm_scaled(const T *x, I m) {
    using RT = RealOf<T>;
    using R = Real<RT>;
    RT amax = RT(0);
    for (I i = 0; i < m; ++i)
        if (qr_mag(x[i]) > amax) amax = qr_mag(x[i]);
    if (!(amax > RT(0))) return amax;
    const int e = R::exponent(amax);
    RT ss = RT(0);
    for (I i = 0; i < m; ++i) ss += abs2(qr_ldexp(x[i], -e));
    return R::ldexp(R::sqrt(ss), e);
}

template <class T, class I>
GPUSVD_HD RealOf<T> qr_norm(const T *x, I m) {
    RealOf<T> ss = RealOf<T>(0);
    for (I i = 0; i < m; ++i) ss += abs2(x[i]);
    return qr_ssq_ok(ss) ? Real<RealOf<T>>::sqrt(ss) : qr_norm_scaled(x, m);
}

/// x /= nrm (nrm > 0), by the reciprocal; below safe_min (1/nrm could overflow) through a power
/// of two.
template <class T, class I>
GPUSVD_HD void qr_normalize(T *x, I m, RealOf<T> nrm) {
    using RT = RealOf<T>;
    using R = Real<RT>;
    if (nrm >= R::safe_min()) {
        const RT inv = RT(1) / nrm;
        for (I i = 0; i < m; ++i) x[i] *= inv;
    } else {
        const int e = R::exponent(nrm);
        const RT inv = RT(1) / R::ldexp(nrm, -e);
        for (I i = 0; i < m; ++i) x[i] = qr_ldexp(x[i], -e) * inv;
    }
}

/// Column j := a unit vector orthogonal to columns 0..j-1 (orthonormal, normalised): e_i for the
/// row i of least norm of Q(:,0:j) (the first such), projected twice (classical GS) and
/// normalised. |v|^2 = 1 - |Q(i,0:j)|^2 >= 1 - j/m > 0 before rounding, so no scaling is needed.
/// Team-wide; starts and ends with everything synchronised. Every value is computed in one fixed
/// order whatever the team's size, so all teams give the same bits as SerialTeam.
template <class T, class I, class Team>
GPUSVD_HD void qr_complete(const Team &t, const QrWork<T, I> &w, I j) {
    using RT = RealOf<T>;
    const int P = t.size(), me = t.rank();
    T *v = w.a + j * w.lda;
    // The least row norm and its first row.
    RT best = RT(j + 2);  // above any row norm^2 of j unit columns
    I at = w.m;
    for (I i = me; i < w.m; i += P) {
        RT s = RT(0);
        for (I l = 0; l < j; ++l) s += abs2(w.a[i + l * w.lda]);
        if (s < best) {
            best = s;
            at = i;
        }
    }
    const RT least = -t.max(-best);
    const I row = -static_cast<I>(t.max(static_cast<int64_t>(best == least ? -at : -w.m)));
    for (I i = me; i < w.m; i += P) v[i] = i == row ? T(1) : T(0);
    t.sync();
    for (int pass = 0; pass < 2; ++pass) {
        for (I l = me; l < j; l += P) {
            const T *q = w.a + l * w.lda;
            T d = T(0);
            for (I i = 0; i < w.m; ++i) d += mul_conj(q[i], v[i]);
            w.coef[l] = d;
        }
        t.sync();
        for (I i = me; i < w.m; i += P) {
            T x = v[i];
            for (I l = 0; l < j; ++l) x -= w.coef[l] * w.a[i + l * w.lda];
            v[i] = x;
        }
        t.sync();
    }
    // The norm by every member over all rows (not a team sum): the same bits for any team size.
    RT ss = RT(0);
    for (I i = 0; i < w.m; ++i) ss += abs2(v[i]);
    const RT inv = RT(1) / Real<RT>::sqrt(ss);
    t.sync();  // everyone has read v
    for (I i = me; i < w.m; i += P) v[i] *= inv;
    t.sync();
}

/// One right-looking MGS pass over the first nc columns of w.a (all of them, or the k of Q1 in
/// the second pass): columns 0..kk-1 (kk = min(m, nc)) become orthonormal, columns kk..nc-1 are
/// projected. Coefficients: pass 1 stores R1(j,c) at R(j,c) and R1(j,j) on the diagonal; pass 2
/// (second) R2(j,c) at R(c,j) (c < k) and R2(j,j) in rdiag. Returns the first dependent column
/// (1-based) or 0. Starts after a sync; ends synchronised.
template <class T, class I, class Team>
GPUSVD_HD int qr_mgs_pass(const Team &t, const QrWork<T, I> &w, I nc, bool second) {
    using RT = RealOf<T>;
    const int P = t.size(), me = t.rank();
    const I m = w.m, kk = m < nc ? m : nc;
    const RT thresh = static_cast<RT>(m) * Real<RT>::ulp();
    for (I c = me; c < nc; c += P) {
        const RT nr = qr_norm(w.a + c * w.lda, m);
        w.nrm0[c] = nr;
        w.nrm[c] = nr;
    }
    t.sync();
    const I rs = second ? w.ldr : 1, cs = second ? 1 : w.ldr;  // coefficient (j,c) at j*rs + c*cs
    int info = 0;
    I pend = -1;  // column whose scaling to unit length is pending (by its owner)
    RT pend_inv = RT(0);
    for (I j = 0; j < kk; ++j) {
        RT nj = w.nrm[j];
        const bool dep = nj <= thresh * w.nrm0[j];
        // Second pass: a unit column of Q1 that lost more than half its length to the previous
        // ones was a rounding-level residual of the first pass (a nearly dependent column just
        // above the threshold); normalising what is left would leave it far from orthogonal, so
        // it is projected once more ("twice is enough", Kahan-Parlett) before.
        const bool again = second && !dep && nj < RT(0.5) * w.nrm0[j];
        const bool owner = j % P == me;
        T *qj = w.a + j * w.lda;
        RT inv = RT(1);
        if (dep || again || nj < Real<RT>::safe_min()) {
            // Rare: column j made a unit vector in place first (the completion reads every
            // previous column, so the pending one is scaled first).
            if (pend >= 0 && pend % P == me) {
                T *x = w.a + pend * w.lda;
                for (I i = 0; i < m; ++i) x[i] *= pend_inv;
            }
            pend = -1;
            t.sync();
            if (dep) {
                if (!info) info = static_cast<int>(j) + 1;
                qr_complete(t, w, j);
            } else if (again) {
                for (I l = me; l < j; l += P) {
                    const T *q = w.a + l * w.lda;
                    T d = T(0);
                    for (I i = 0; i < m; ++i) d += mul_conj(q[i], qj[i]);
                    w.coef[l] = d;
                }
                t.sync();
                for (I i = me; i < m; i += P) {
                    T x = qj[i];
                    for (I l = 0; l < j; ++l) x -= w.coef[l] * w.a[i + l * w.lda];
                    qj[i] = x;
                }
                for (I l = me; l < j; l += P) w.r[l * rs + j * cs] += w.coef[l];
                t.sync();
                RT ss = RT(0);  // by every member over all rows: the same bits for any team size
                for (I i = 0; i < m; ++i) ss += abs2(qj[i]);
                nj = Real<RT>::sqrt(ss);
                t.sync();  // everyone has read qj
                if (owner) qr_normalize(qj, m, nj);
                t.sync();
            } else {
                if (owner) qr_normalize(qj, m, nj);
                t.sync();
            }
        } else {
            inv = RT(1) / nj;
            if (pend >= 0 && pend % P == me) {
                T *x = w.a + pend * w.lda;
                for (I i = 0; i < m; ++i) x[i] *= pend_inv;
            }
            pend = j;
            pend_inv = inv;
        }
        if (owner) {
            if (second)
                w.rdiag[j] = dep ? RT(0) : nj;
            else
                w.r[j + j * w.ldr] = T(dep ? RT(0) : nj);
        }
        // Project the owned columns c > j against q_j = v_j * inv.
        for (I c = qr_first_owned_after(j, me, P); c < nc; c += P) {
            T *ac = w.a + c * w.lda;
            T d = T(0);
            for (I i = 0; i < m; ++i) d += mul_conj(qj[i], ac[i]);
            d *= inv;  // r_jc = q_j^H a_c
            w.r[j * rs + c * cs] = d;
            const T f = d * inv;
            if (c == j + 1 && c < kk) {  // column j+1 is final: its norm for step j+1
                RT ss = RT(0);
                for (I i = 0; i < m; ++i) {
                    const T x = ac[i] - f * qj[i];
                    ac[i] = x;
                    ss += abs2(x);
                }
                w.nrm[c] = qr_ssq_ok(ss) ? Real<RT>::sqrt(ss) : qr_norm_scaled(ac, m);
            } else {
                for (I i = 0; i < m; ++i) ac[i] -= f * qj[i];
            }
        }
        t.sync();
    }
    if (pend >= 0 && pend % P == me) {
        T *x = w.a + pend * w.lda;
        for (I i = 0; i < m; ++i) x[i] *= pend_inv;
    }
    t.sync();
    return info;
}

/// R = R2 R1 in place (after both passes): column c of R by its owner, top to bottom (R(i,c)
/// reads R1(l,c) for l >= i, not yet overwritten, and R2(i,l) = R(l,i) below the diagonal).
template <class T, class I, class Team>
GPUSVD_HD void qr_combine(const Team &t, const QrWork<T, I> &w) {
    for (I c = t.rank(); c < w.n; c += t.size()) {
        const I top = c < w.k ? c : w.k - 1;
        T *rc = w.r + c * w.ldr;
        for (I i = 0; i <= top; ++i) {
            const T *r2 = w.r + i * w.ldr;
            T s = w.rdiag[i] * rc[i];
            for (I l = i + 1; l <= top; ++l) s += r2[l] * rc[l];
            rc[i] = s;
        }
    }
    t.sync();
}

/// m < n: columns c >= k hold what the projections left of a_c; in exact arithmetic nothing, in
/// floating point about eps |a_c| times Q's loss of orthogonality in the pass that projected them
/// (eps cond(A(:,0:k)) for MGS). One more MGS projection against the final Q adds its
/// coefficients to R(:,c), so |A - QR| stays O(eps |A|) in both modes. After qr_combine (MGS2) or
/// the pass (MGS).
template <class T, class I, class Team>
GPUSVD_HD void qr_project_rest(const Team &t, const QrWork<T, I> &w) {
    if (w.k >= w.n) return;
    const int P = t.size();
    for (I c = qr_first_owned_after(w.k - 1, t.rank(), P); c < w.n; c += P) {
        T *ac = w.a + c * w.lda;
        T *rc = w.r + c * w.ldr;
        for (I j = 0; j < w.k; ++j) {
            const T *q = w.a + j * w.lda;
            T d = T(0);
            for (I i = 0; i < w.m; ++i) d += mul_conj(q[i], ac[i]);
            for (I i = 0; i < w.m; ++i) ac[i] -= d * q[i];
            rc[j] += d;
        }
    }
    t.sync();
}

/// Copies A into the working matrix (unless in place), screening for NaN/Inf; *amax = max |a_ij|.
/// Returns whether A holds NaN/Inf. Ends synchronised.
template <class T, class I, class Team>
GPUSVD_HD bool qr_load(const Team &t, const QrIO<T> &io, const QrWork<T, I> &w,
                       RealOf<T> *amax) {
    RealOf<T> big = RealOf<T>(0);
    int bad = 0;
    const bool copy = w.a != io.A;
    qr_for_entries(t, w.m, w.n, [&](I i, I j) {
        const T v = io.A[static_cast<int64_t>(i) + static_cast<int64_t>(j) * io.lda];
        bad |= !is_finite(v);
        if (qr_mag(v) > big) big = qr_mag(v);
        if (copy) w.a[i + j * w.lda] = v;
    });
    *amax = t.max(big);
    const bool nonfinite = t.max(bad) != 0;
    t.sync();
    return nonfinite;
}

/// Power-of-two scaling 2^(e1+e2) bringing max |a_ij| just below 2^tex with
/// m n 2^(2 tex) <= 2^(max_exp - 2): no column's sum of squares (nor any |v_j| |a_c|) can
/// overflow, and small columns sit as far above underflow as that allows (complex: amax bounds
/// the parts, so |a_ij|^2 <= 2 amax^2, within the bound's margin of 2). Two factors, each a
/// normal number, so that subnormal inputs scale up exactly. T: the real type.
template <class T>
GPUSVD_HD void qr_scale_exponents(int64_t m, int64_t n, T amax, int &e1, int &e2) {
    e1 = e2 = 0;
    if (!(amax > T(0))) return;
    int lg = 0;
    while ((int64_t(1) << lg) < m * n && lg < 62) ++lg;
    const int tex = (Real<T>::max_exp() - 2 - lg) / 2;
    const int e = tex - Real<T>::exponent(amax);
    e1 = e / 2;
    e2 = e - e1;
}

template <class T, class I, class Team>
GPUSVD_HD void qr_apply_scale(const Team &t, const QrWork<T, I> &w, int e1, int e2) {
    using RT = RealOf<T>;
    if (e1 == 0 && e2 == 0) return;
    const RT f1 = Real<RT>::ldexp(RT(1), e1), f2 = Real<RT>::ldexp(RT(1), e2);
    qr_for_entries(t, w.m, w.n, [&](I i, I j) {
        T &x = w.a[i + j * w.lda];
        x = x * f1 * f2;  // f1 first: exact for subnormal x
    });
    t.sync();
}

/// Writes Q (unless in place) and R (scaled back, zeros below the diagonal) to the caller's
/// arrays. Ends synchronised.
template <class T, class I, class Team>
GPUSVD_HD void qr_store(const Team &t, const QrIO<T> &io, const QrWork<T, I> &w, int e1, int e2) {
    if (w.a != io.A) {
        qr_for_entries(t, w.m, w.k, [&](I i, I j) {
            io.A[static_cast<int64_t>(i) + static_cast<int64_t>(j) * io.lda] = w.a[i + j * w.lda];
        });
    }
    using RT = RealOf<T>;
    const RT g1 = Real<RT>::ldexp(RT(1), -e1), g2 = Real<RT>::ldexp(RT(1), -e2);
    qr_for_entries(t, w.k, w.n, [&](I i, I j) {
        const T v = i <= j ? w.r[i + j * w.ldr] * g1 * g2 : T(0);
        io.R[static_cast<int64_t>(i) + static_cast<int64_t>(j) * io.ldr] = v;
    });
    t.sync();
}

/// NaN into Q's part of A and all of R.
template <class T, class I, class Team>
GPUSVD_HD void qr_store_nan(const Team &t, const QrIO<T> &io, const QrWork<T, I> &w) {
    const T nan = qr_nan<T>();
    qr_for_entries(t, w.m, w.k, [&](I i, I j) {
        io.A[static_cast<int64_t>(i) + static_cast<int64_t>(j) * io.lda] = nan;
    });
    qr_for_entries(t, w.k, w.n, [&](I i, I j) {
        io.R[static_cast<int64_t>(i) + static_cast<int64_t>(j) * io.ldr] = nan;
    });
    t.sync();
}

/// The whole QR of io's matrix (m, n >= 1) with working storage `base` laid out by s (qr_shape
/// of the same m, n). reorth: MGS2. Returns info (0, the first dependent column 1-based, or
/// GPUSVD_INFO_NONFINITE = -1). Every member returns the same info.
template <class T, class I, class Team>
GPUSVD_HD int qr_team(const Team &t, const QrIO<T> &io, const QrShape &s, T *base, bool reorth) {
    const QrWork<T, I> w = qr_work<T, I>(s, base, io);
    RealOf<T> amax;
    if (qr_load(t, io, w, &amax)) {
        qr_store_nan(t, io, w);
        return -1;
    }
    int e1, e2;
    qr_scale_exponents(io.m, io.n, amax, e1, e2);
    qr_apply_scale(t, w, e1, e2);
    int info = qr_mgs_pass(t, w, w.n, false);
    if (reorth) {
        const int info2 = qr_mgs_pass(t, w, w.k, true);
        if (info2 && (!info || info2 < info)) info = info2;
        qr_combine(t, w);
    }
    qr_project_rest(t, w);
    qr_store(t, io, w, e1, e2);
    return info;
}

}  // namespace kernels
}  // namespace gpusvd
