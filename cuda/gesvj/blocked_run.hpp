// The blocked one-sided Jacobi for one large matrix or a batch (blocked_plan.hpp), called by
// dispatch.cpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gesvj/gesvj.hpp"
#include "gpusvd.h"

namespace gpusvd {
namespace gpu {

/// Whether a call goes to the blocked path: one matrix (single) where the team kernels would run
/// it in global memory (team_ws_bytes > 0: it does not fit shared memory), a batch from
/// kBlockedBatchMinCols columns; with cuBLAS loaded. GPUSVD_JACOBI_BLOCKED in the environment
/// forces the choice (comparisons, tests): "0" the team kernels, "1" the blocked path.
bool gesvj_blocked_wanted(int64_t m, int64_t n, size_t team_ws_bytes, bool single);

/// Device workspace of the blocked path for `batch` matrices (a chunk's worth at most).
template <class T>
size_t gesvj_blocked_bytes(bool wantu, bool wantv, int64_t m, int64_t n, int64_t batch,
                           bool single);

/// The whole SVD of p's matrices (p.batch of them, in chunks that fit the workspace). An
/// uncaptured call waits on the stream once per sweep and drops converged matrices from the
/// next sweep; inside a graph capture (and for one matrix, run as a graph of its own) the sweeps
/// are a while node, decided on the device, converged matrices riding along unrotated.
template <class T>
gpusvdStatus_t gesvj_blocked(gpusvdHandle_t h, const char *routine, const GesvjProblem<T> &p,
                             void *ws, size_t ws_bytes, cudaStream_t s, bool single);

}  // namespace gpu
}  // namespace gpusvd
