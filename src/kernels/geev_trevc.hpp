// Team right eigenvectors of a quasi-triangular Schur form (LAPACK dtrevc3 'R','B' on its
// non-blocked path: each vector back-substituted, then back-transformed by Z in place) and
// dgeev's final normalisation.
//
// Back-substitution is sequential in j; each step is a redundant 1x1/2x2 solve (dlaln2) plus a
// parallel update of the right-hand side, with two syncs: everyone must read x(j) before its
// owner overwrites it, and the update must land before the next solve reads it.
#pragma once

#include "kernels/geev_scalar.hpp"

namespace gpusvd {
namespace kernels {
namespace geev {

/// Right eigenvectors of the quasi-triangular S (n x n, standardised 2x2 blocks), multiplied by
/// the Schur vectors in Z: on return column j of Z is the eigenvector of S(j,j) (a pair j, j+1
/// holds real and imaginary parts), scaled so its largest |re|+|im| component is 1.
/// work: 3n entries. Ends with a sync.
template <class T, class Team>
GPUSVD_HD void trevc(const Team &t, int n, Mat<T> S, Mat<T> Z, T *work) {
    const int rank = t.rank(), size = t.size();
    T *cn = work, *xr = work + n, *xi = work + 2 * n;
    const T ulp = Real<T>::ulp();
    const T smlnum = Real<T>::safe_min() * (T(n) / ulp);
    const T bignum = (T(1) - ulp) / smlnum;
    // 1-norms of the strictly upper columns bound the growth of the right-hand side.
    for (int j = rank; j < n; j += size) {
        T s = T(0);
        for (int i = 0; i < j; ++i) s += std::fabs(S(i, j));
        cn[j] = s;
    }
    t.sync();

    for (int ki = n - 1; ki >= 0; --ki) {
        const bool pair = ki > 0 && S(ki, ki - 1) != T(0);  // ki is the second of a pair
        const T wr = S(ki, ki);
        const T wi = pair ? std::sqrt(std::fabs(S(ki, ki - 1))) * std::sqrt(std::fabs(S(ki - 1, ki)))
                          : T(0);
        const T smin = std::fmax(ulp * (std::fabs(wr) + std::fabs(wi)), smlnum);
        if (!pair) {
            for (int k = rank; k <= ki; k += size) xr[k] = k == ki ? T(1) : -S(k, ki);
            t.sync();
            // Solve (S(0:ki-1, 0:ki-1) - wr) x = scale * rhs, block by block from the bottom.
            for (int j = ki - 1; j >= 0; --j) {
                if (j > 0 && S(j, j - 1) != T(0)) {  // 2x2 block (j-1, j)
                    Laln2Out<T> o = laln2(2, 1, smin, S(j - 1, j - 1), S(j, j - 1), S(j - 1, j),
                                          S(j, j), xr[j - 1], xr[j], T(0), T(0), wr, T(0));
                    if (o.xnorm > T(1) && std::fmax(cn[j - 1], cn[j]) > bignum / o.xnorm) {
                        o.x11 /= o.xnorm, o.x21 /= o.xnorm, o.scale /= o.xnorm;
                    }
                    t.sync();
                    for (int k = rank; k <= ki; k += size) {
                        if (k < j - 1)
                            xr[k] = xr[k] * o.scale - o.x11 * S(k, j - 1) - o.x21 * S(k, j);
                        else if (k == j - 1)
                            xr[k] = o.x11;
                        else if (k == j)
                            xr[k] = o.x21;
                        else if (o.scale != T(1))
                            xr[k] *= o.scale;
                    }
                    t.sync();
                    --j;
                } else {
                    Laln2Out<T> o = laln2(1, 1, smin, S(j, j), T(0), T(0), T(0), xr[j], T(0),
                                          T(0), T(0), wr, T(0));
                    if (o.xnorm > T(1) && cn[j] > bignum / o.xnorm) {
                        o.x11 /= o.xnorm, o.scale /= o.xnorm;
                    }
                    t.sync();
                    for (int k = rank; k <= ki; k += size) {
                        if (k < j)
                            xr[k] = xr[k] * o.scale - o.x11 * S(k, j);
                        else if (k == j)
                            xr[k] = o.x11;
                        else if (o.scale != T(1))
                            xr[k] *= o.scale;
                    }
                    t.sync();
                }
            }
            // Z(:, ki) := Z(:, 0:ki-1) x(0:ki-1) + x(ki) Z(:, ki); a member per row.
            T emax = T(0);
            for (int r = rank; r < n; r += size) {
                T s = xr[ki] * Z(r, ki);
                for (int k = 0; k < ki; ++k) s += Z(r, k) * xr[k];
                Z(r, ki) = s;
                emax = std::fmax(emax, std::fabs(s));
            }
            const T remax = T(1) / t.max(emax);
            for (int r = rank; r < n; r += size) Z(r, ki) *= remax;
            t.sync();
        } else {
            // Complex pair (ki-1, ki): x = xr + i xi, starting from the 2x2 block's vector.
            T xr0, xi1;
            if (std::fabs(S(ki - 1, ki)) >= std::fabs(S(ki, ki - 1))) {
                xr0 = T(1);
                xi1 = wi / S(ki - 1, ki);
            } else {
                xr0 = -wi / S(ki, ki - 1);
                xi1 = T(1);
            }
            for (int k = rank; k <= ki; k += size) {
                if (k < ki - 1) {
                    xr[k] = -xr0 * S(k, ki - 1);
                    xi[k] = -xi1 * S(k, ki);
                } else if (k == ki - 1) {
                    xr[k] = xr0;
                    xi[k] = T(0);
                } else {
                    xr[k] = T(0);
                    xi[k] = xi1;
                }
            }
            t.sync();
            for (int j = ki - 2; j >= 0; --j) {
                if (j > 0 && S(j, j - 1) != T(0)) {  // 2x2 block (j-1, j)
                    Laln2Out<T> o = laln2(2, 2, smin, S(j - 1, j - 1), S(j, j - 1), S(j - 1, j),
                                          S(j, j), xr[j - 1], xr[j], xi[j - 1], xi[j], wr, wi);
                    if (o.xnorm > T(1) && std::fmax(cn[j - 1], cn[j]) > bignum / o.xnorm) {
                        const T rec = T(1) / o.xnorm;
                        o.x11 *= rec, o.x12 *= rec, o.x21 *= rec, o.x22 *= rec, o.scale *= rec;
                    }
                    t.sync();
                    for (int k = rank; k <= ki; k += size) {
                        if (k < j - 1) {
                            xr[k] = xr[k] * o.scale - o.x11 * S(k, j - 1) - o.x21 * S(k, j);
                            xi[k] = xi[k] * o.scale - o.x12 * S(k, j - 1) - o.x22 * S(k, j);
                        } else if (k == j - 1) {
                            xr[k] = o.x11, xi[k] = o.x12;
                        } else if (k == j) {
                            xr[k] = o.x21, xi[k] = o.x22;
                        } else if (o.scale != T(1)) {
                            xr[k] *= o.scale, xi[k] *= o.scale;
                        }
                    }
                    t.sync();
                    --j;
                } else {
                    Laln2Out<T> o = laln2(1, 2, smin, S(j, j), T(0), T(0), T(0), xr[j], T(0),
                                          xi[j], T(0), wr, wi);
                    if (o.xnorm > T(1) && cn[j] > bignum / o.xnorm) {
                        o.x11 /= o.xnorm, o.x12 /= o.xnorm, o.scale /= o.xnorm;
                    }
                    t.sync();
                    for (int k = rank; k <= ki; k += size) {
                        if (k < j) {
                            xr[k] = xr[k] * o.scale - o.x11 * S(k, j);
                            xi[k] = xi[k] * o.scale - o.x12 * S(k, j);
                        } else if (k == j) {
                            xr[k] = o.x11, xi[k] = o.x12;
                        } else if (o.scale != T(1)) {
                            xr[k] *= o.scale, xi[k] *= o.scale;
                        }
                    }
                    t.sync();
                }
            }
            // Back-transform both parts; xr(ki) = xi(ki-1) = 0 by construction.
            T emax = T(0);
            for (int r = rank; r < n; r += size) {
                T sr = xr[ki - 1] * Z(r, ki - 1), si = xi[ki] * Z(r, ki);
                for (int k = 0; k < ki - 1; ++k) {
                    const T z = Z(r, k);
                    sr += z * xr[k];
                    si += z * xi[k];
                }
                Z(r, ki - 1) = sr;
                Z(r, ki) = si;
                emax = std::fmax(emax, std::fabs(sr) + std::fabs(si));
            }
            const T remax = T(1) / t.max(emax);
            for (int r = rank; r < n; r += size) {
                Z(r, ki - 1) *= remax;
                Z(r, ki) *= remax;
            }
            t.sync();
            --ki;
        }
    }
}

/// 2-norm of column c of V (rows 0..n-1), accumulated relative to the largest entry. Serial:
/// one member owns the column.
template <class T>
GPUSVD_HD T column_norm(int n, Mat<T> V, int c) {
    T m = T(0);
    for (int r = 0; r < n; ++r) m = std::fmax(m, std::fabs(V(r, c)));
    if (m == T(0)) return T(0);
    T s = T(0);
    for (int r = 0; r < n; ++r) {
        const T y = V(r, c) / m;
        s += y * y;
    }
    return m * std::sqrt(s);
}

/// dgeev's normalisation: unit 2-norm; a complex pair (wi[j] > 0: columns j, j+1) is rotated so
/// that its component of largest modulus is real. A member owns whole vectors. Ends with a sync.
template <class T, class Team>
GPUSVD_HD void normalize_vectors(const Team &t, int n, const T *wi, Mat<T> V) {
    for (int c = t.rank(); c < n; c += t.size()) {
        if (wi[c] == T(0)) {
            const T scl = T(1) / column_norm(n, V, c);
            for (int r = 0; r < n; ++r) V(r, c) *= scl;
        } else if (wi[c] > T(0) && c + 1 < n) {
            const T scl = T(1) / lapy2(column_norm(n, V, c), column_norm(n, V, c + 1));
            int kmax = 0;
            T best = T(-1);
            for (int r = 0; r < n; ++r) {
                const T x = V(r, c) * scl, y = V(r, c + 1) * scl;
                V(r, c) = x;
                V(r, c + 1) = y;
                const T m2 = x * x + y * y;
                if (m2 > best) best = m2, kmax = r;
            }
            T cs, sn, rr;
            lartg(V(kmax, c), V(kmax, c + 1), cs, sn, rr);
            for (int r = 0; r < n; ++r) {
                const T x = V(r, c), y = V(r, c + 1);
                V(r, c) = cs * x + sn * y;
                V(r, c + 1) = cs * y - sn * x;
            }
            V(kmax, c + 1) = T(0);
        }
    }
    t.sync();
}

}  // namespace geev
}  // namespace kernels
}  // namespace gpusvd
