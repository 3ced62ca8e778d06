// GPU PCA kernels: centring and the closing pass that turns the SVD of R (QR method) or the
// eigendecomposition of the Gram matrix (covariance method) into components, explained variance
// and the scores' small factor. cuda/pca/dispatch.cpp strings them together with the tall QR
// (geqrf/tall.hpp) and the Jacobi SVD of R (gesvj/gesvj.hpp); cuda/pca/covariance.cpp with the
// Gram matrix (geqrf/gram.hpp) and the Jacobi SVD of that.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "geqrf/matrix_ld.hpp"
#include "kernels/complex.hpp"

namespace gpusvd {
namespace gpu {

/// Xc = X * 2^-e - mean_s (m x n, ld m; X in either layout) with 2^-e the power of two that brings max|X| (from
/// amax_bits, cholqr.hpp's screen) into [0.5, 1), whatever the data's range (subnormal data
/// included): no overflow or harmful underflow in the sums or the factorisation. mean_s[n] =
/// column means of X * 2^-e; *scale_exp = e. sums[n] (double; 2n for complex data, the real and
/// imaginary parts of each column's sum) zeroed by the caller. Complex X: column-major only.
template <class T>
cudaError_t pca_centre(int64_t m, int64_t n, const T *X, MatLd ldx,
                       const unsigned long long *amax_bits, double *sums, T *mean_s,
                       int *scale_exp, T *Xc, cudaStream_t stream);

/// From the SVD of R (S, V n x n, UR n x n or null, *jinfo): components (n x k, largest |entry|
/// of each positive; complex: each column times the unit phase that makes that entry real and
/// positive, W's column by the same phase), variance[k] = (S_j 2^e)^2 / (m - 1), W = sign * S_j * UR(:, 0:k) * 2^f
/// (n x k, ld n; scores = Q W 2^(e - f), f = e clamped to half the exponent range so that W
/// neither overflows nor loses accuracy to underflow), mean = mean_s 2^e (if not null);
/// everything NaN when *jinfo is GPUSVD_INFO_NONFINITE or *bad (if not null) is non-zero,
/// *info = GPUSVD_INFO_NONFINITE then, else *jinfo. eigen: S holds the eigenvalues of the Gram
/// matrix (covariance method), variance[k] = S_j 2^2e / (m - 1). *total (if not null, double) =
/// the sum of all n variances, ||Xc||_F^2 / (m - 1) (NaN with the outputs).
template <class T>
cudaError_t pca_finish(int64_t m, int64_t n, int64_t k, const kernels::RealOf<T> *S, bool eigen,
                       const T *V, const T *UR, const int *jinfo, const int *bad,
                       const T *mean_s, const int *scale_exp, T *components, MatLd ldc,
                       kernels::RealOf<T> *variance, T *W, T *mean, int *info, double *total,
                       cudaStream_t stream);

/// scores (m x k) *= 2^(e - f), the part of the data's scale pca_finish left out of W (folded),
/// or 2^e (scores formed from the scaled centred data and the components): a launch that does
/// nothing unless the data lies near overflow or underflow.
template <class T>
cudaError_t pca_scale_scores(int64_t m, int64_t k, T *scores, MatLd lds, const int *scale_exp,
                             bool folded, cudaStream_t stream);

/// G(j, i) = G(i, j) for i < j: the full symmetric matrix (n x n, ld n) from its upper triangle.
template <class T>
cudaError_t mirror_upper(int64_t n, T *G, cudaStream_t stream);

/// *dst = value, in stream order: a launch rather than a copy from host memory, so that it can
/// be captured into a CUDA graph (the value is the launch's argument).
cudaError_t store_double(double *dst, double value, cudaStream_t stream);

}  // namespace gpu
}  // namespace gpusvd
