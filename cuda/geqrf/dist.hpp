// Kernels of the distributed tall QR's completion (cuda/geqrf/dist.cpp). On `stream`, no
// synchronisation.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpusvd {
namespace gpu {

/// q[i] = the start entry of (global row offset + i, column col), i < m.
template <class T>
cudaError_t dist_fill_start(int64_t m, T *q, int64_t offset, int64_t col, cudaStream_t stream);

/// q[i] /= sqrt(*ss), i < m (ss on the device).
template <class T>
cudaError_t dist_scale_rsqrt(int64_t m, T *q, const T *ss, cudaStream_t stream);

/// stats[0] = max |X| (the bits of a double, non-negative: they order as int64), stats[1] = 1
/// if X holds NaN/Inf; stats zeroed by the caller. X m x n, ld ldx.
template <class T>
cudaError_t dist_data_stats(int64_t m, int64_t n, const T *X, int64_t ldx, long long *stats,
                            cudaStream_t stream);

/// sums[j] += sum_i X(i,j) 2^-e in double (sums zeroed by the caller).
template <class T>
cudaError_t dist_scaled_sums(int64_t m, int64_t n, const T *X, int64_t ldx, int e, double *sums,
                             cudaStream_t stream);

/// mean_s[j] = sums[j] / M (in T); Xc(i,j) = X(i,j) 2^-e - mean_s[j] (Xc m x n, ld ldc).
template <class T>
cudaError_t dist_centre(int64_t m, int64_t n, const T *X, int64_t ldx, int e, const double *sums,
                        int64_t M, T *Xc, int64_t ldc, T *mean_s, cudaStream_t stream);

}  // namespace gpu
}  // namespace gpusvd
