// Operation counts used for the GFLOP, GFLOP/s and floor columns (nominal; stated once here):
//   geqrf (m >= n)      2mn^2 - 2n^3/3                     (LAWN 41)
//   orgqr (m x k, k)    2mk^2 - 2k^3/3                     (LAWN 41, n = k)
//   Gram-Schmidt QR     passes * 2mn^2 (m >= n; 2nm^2 when wide): column j takes j dot products
//                       and j updates of length m per pass; MGS one pass, MGS2 two
//   gesvj / gesvdj      sweeps * n(n-1)/2 * (8m + 6n)      per column pair: dot 2m, rotation of
//                       the two columns of A 6m, of V 6n; an upper bound, as converged pairs are
//                       skipped. sweeps: the library's own count (LAPACK work(4) or
//                       cusolverDnXgesvdjGetSweeps), mean over a batch
//   tall SVD (m >> n)   geqrf + orgqr + gesvj on R (n x n, the sweeps of cuSOLVER's gesvdj on
//                       the same matrix) + 2mn^2 (U = Q U_R): the QR-preconditioned route of
//                       LAPACK dgejsv, the least work that gives U and V
//   geev                10n^3 values only, 26n^3 with right vectors (Golub & Van Loan: real
//                       Schur form T only 10n^3, T and Q 25n^3; back-substitution ~n^3)
//   bdsdc               values 20n^2 (dqds); vectors 8n^3/3 (divide and conquer, no deflation)
//   bdsvd, GPU floor    values only: 128n^2 = 2n per Sturm count x n values x ~64 counts
//                       (bisection to full precision; bytes negligible); with U and VT: no
//                       count, the floor is the bytes of U and VT written once (2n^2 x 8 bytes)
//   gesdd n x n, U, VT  21n^3 (Golub & Van Loan R-SVD count at m = n)
//   pca, QR             2mn (centre) + geqrf + gesdd(n x n) [+ orgqr + 2mnk for the scores]
//   pca, covariance     2mn (centre) + mn^2 (syrk) + 9n^3 (syevd, vectors: tridiagonal
//                       reduction 4n^3/3, back-transformation 2n^3, divide and conquer ~4n^3
//                       without deflation, rounded up) [+ 2mnk for the scores]
// Complex rows (c, z): the real formula's count times 4 (a complex multiply-add is four real
//                       ones), at the same DGEMM rate in the floor column; bytes count complex
//                       elements at their size, singular values at the real size.
// Bytes: each input read once and each output written once (the bandwidth floor). PCIe bytes
// (host-memory rows of the GPU tables): the larger direction, host-to-device inputs or
// device-to-host outputs, since the two overlap.
#pragma once

#include "bench.hpp"

namespace bench {

/// Real flops per flop of the real formulas: 4 for complex elements, else 1.
template <class T>
constexpr double flop_factor() {
    return is_complex_v<T> ? 4.0 : 1.0;
}

inline double geqrf_flops(double m, double n) {
    return m >= n ? 2 * m * n * n - 2 * n * n * n / 3 : 2 * n * m * m - 2 * m * m * m / 3;
}
inline double orgqr_flops(double m, double k) {
    return 2 * m * k * k - 2 * k * k * k / 3;
}
inline double mgs_flops(double m, double n, int passes) {
    return passes * (m >= n ? 2 * m * n * n : 2 * n * m * m);
}
inline double jacobi_flops(double sweeps, double m, double n, bool v) {
    return sweeps * n * (n - 1) / 2 * (8 * m + (v ? 6 * n : 0));
}
inline double tall_svd_flops(double m, double n, double sweeps) {
    return geqrf_flops(m, n) + orgqr_flops(m, n) + jacobi_flops(sweeps, n, n, true) + 2 * m * n * n;
}
inline double bisection_flops(double n) {
    return 2 * n * n * 64;
}
inline double geev_flops(double n, bool vectors) {
    return (vectors ? 26.0 : 10.0) * n * n * n;
}

}  // namespace bench
