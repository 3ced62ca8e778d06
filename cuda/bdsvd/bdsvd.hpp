// GPU bidiagonal SVD: launchers of the passes of src/kernels/bdsvd_steps.hpp, called by
// cuda/bdsvd/dispatch.cpp. One thread per item (value, vector, group or block); all pointers
// are device pointers; everything is enqueued on `stream` without synchronisation.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/bdsvd_steps.hpp"

namespace gpusvd {
namespace gpu {

/// max(|d|, |e|) as ordered bits into *amax and 1 into *flag if any entry is NaN/Inf (both
/// cleared first), then *scale = its exponent (bd::scale_exponent).
template <class T>
cudaError_t bdsvd_screen(int64_t n, const T *d, const T *e, unsigned long long *amax, int *flag,
                         int *scale, cudaStream_t stream);

/// t, t2 from d, e (q.scale_at set; nothing when *flag is set).
template <class T>
cudaError_t bdsvd_prepare(const kernels::bd::Problem<T> &q, const int *flag, cudaStream_t stream);

/// Every value (NaN when *flag is set).
template <class T>
cudaError_t bdsvd_values(const kernels::bd::Problem<T> &q, const int *flag, cudaStream_t stream);

/// The vector passes: twisted solves, group refinement (nslots scratch slots), unit parts,
/// null vectors of the nzero zero values, completion of the rest (cols: n entries of scratch).
template <class T>
cudaError_t bdsvd_vectors(const kernels::bd::Problem<T> &q, int64_t ngroups, int64_t nslots,
                          int64_t nzero, int64_t nzero_blocks, int64_t *cols, cudaStream_t stream);

/// d[pos[p]] = the values unscaled; info = 0, or GPUSVD_INFO_NONFINITE with NaN everywhere
/// (U and VT too when set) when *flag is set.
template <class T>
cudaError_t bdsvd_store(const kernels::bd::Problem<T> &q, const int *flag, int *info,
                        cudaStream_t stream);

}  // namespace gpu
}  // namespace gpusvd
