// Team right eigenvectors of a complex upper-triangular Schur form (LAPACK ztrevc 'R','B':
// each vector back-substituted, then back-transformed by Z in place) and zgeev's final
// normalisation. The complex counterpart of geev_trevc.hpp, with the same team pattern:
// back-substitution is sequential in j, each step a redundant 1x1 complex solve plus a parallel
// update of the right-hand side, with two syncs.
#pragma once

#include "kernels/geev_scalar.hpp"

namespace gpusvd {
namespace kernels {
namespace geev {

/// Right eigenvectors of the upper-triangular S (n x n), multiplied by the Schur vectors in Z:
/// on return column j of Z is the eigenvector of S(j,j), scaled so its largest |re|+|im|
/// component is 1. Each diagonal solve (S(j,j) - S(ki,ki)) x = scale b perturbs a pivot below
/// smin = max(ulp |S(ki,ki)|_1, smlnum) to smin (ztrevc) and scales against overflow as dtrevc
/// does (dlaln2's complex 1x1 solve, then the growth bound from the column 1-norms).
/// work: 2n entries. Ends with a sync.
template <class T, class Team>
GPUSVD_HD void trevc_complex(const Team &t, int n, Mat<T> S, Mat<T> Z, T *work) {
    using R = RealOf<T>;
    const int rank = t.rank(), size = t.size();
    T *x = work, *cn = work + n;  // cn: the 1-norms, in the real parts
    const R ulp = Real<R>::ulp();
    const R smlnum = Real<R>::safe_min() * (R(n) / ulp);
    const R bignum = (R(1) - ulp) / smlnum;
    // 1-norms (|re| + |im|, as dzasum) of the strictly upper columns bound the growth of the
    // right-hand side.
    for (int j = rank; j < n; j += size) {
        R s = R(0);
        for (int i = 0; i < j; ++i) s += cabs1(S(i, j));
        cn[j] = T(s);
    }
    t.sync();

    for (int ki = n - 1; ki >= 0; --ki) {
        const T w = S(ki, ki);
        const R smin = std::fmax(ulp * cabs1(w), smlnum);
        for (int k = rank; k <= ki; k += size) x[k] = k == ki ? T(R(1)) : -S(k, ki);
        t.sync();
        // Solve (S(0:ki-1, 0:ki-1) - w) x = scale * rhs from the bottom.
        for (int j = ki - 1; j >= 0; --j) {
            const T sj = S(j, j), b = x[j];
            // (sj - w) as dlaln2's a11 - (wr + i wi) with a11 = re sj, wi = im w - im sj
            Laln2Out<R> o = laln2(1, 2, smin, sj.re, R(0), R(0), R(0), b.re, R(0), b.im, R(0), w.re,
                                  w.im - sj.im);
            if (o.xnorm > R(1) && cn[j].re > bignum / o.xnorm) {
                o.x11 /= o.xnorm, o.x12 /= o.xnorm, o.scale /= o.xnorm;
            }
            const T xj(o.x11, o.x12);
            t.sync();  // everyone has read x[j]
            for (int k = rank; k <= ki; k += size) {
                if (k < j)
                    x[k] = x[k] * o.scale - xj * S(k, j);
                else if (k == j)
                    x[k] = xj;
                else if (o.scale != R(1))
                    x[k] *= o.scale;
            }
            t.sync();
        }
        // Z(:, ki) := Z(:, 0:ki-1) x(0:ki-1) + x(ki) Z(:, ki); a member per row.
        R emax = R(0);
        for (int r = rank; r < n; r += size) {
            T s = x[ki] * Z(r, ki);
            for (int k = 0; k < ki; ++k) s += Z(r, k) * x[k];
            Z(r, ki) = s;
            emax = std::fmax(emax, cabs1(s));
        }
        const R remax = R(1) / t.max(emax);
        for (int r = rank; r < n; r += size) Z(r, ki) *= remax;
        t.sync();
    }
}

/// 2-norm of column c of V (rows 0..n-1), accumulated relative to the largest part (dznrm2).
/// Serial: one member owns the column.
template <class T>
GPUSVD_HD RealOf<T> column_norm_complex(int n, Mat<T> V, int c) {
    using R = RealOf<T>;
    R m = R(0);
    for (int r = 0; r < n; ++r) m = std::fmax(m, max_part(V(r, c)));
    if (m == R(0)) return R(0);
    R s = R(0);
    for (int r = 0; r < n; ++r) s += abs2(div_real(V(r, c), m));
    return m * std::sqrt(s);
}

/// zgeev's normalisation: unit 2-norm, then each vector multiplied by the phase that makes its
/// component of largest modulus (the first such) real and positive. A member owns whole vectors.
/// Ends with a sync.
template <class T, class Team>
GPUSVD_HD void normalize_vectors_complex(const Team &t, int n, Mat<T> V) {
    using R = RealOf<T>;
    for (int c = t.rank(); c < n; c += t.size()) {
        const R scl = R(1) / column_norm_complex(n, V, c);
        int kmax = 0;
        R best = R(-1);
        for (int r = 0; r < n; ++r) {
            const T v = V(r, c) * scl;
            V(r, c) = v;
            const R m2 = abs2(v);  // <= 1 after the normalisation: no overflow
            if (m2 > best) best = m2, kmax = r;
        }
        const T phase = div_real(conj(V(kmax, c)), std::sqrt(best));
        for (int r = 0; r < n; ++r) V(r, c) = phase * V(r, c);
        V(kmax, c) = T(V(kmax, c).re);
    }
    t.sync();
}

}  // namespace geev
}  // namespace kernels
}  // namespace gpusvd
