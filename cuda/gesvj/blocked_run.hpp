// The blocked one-sided Jacobi for one large matrix (blocked_plan.hpp), called by dispatch.cpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gesvj/gesvj.hpp"
#include "gpusvd.h"

namespace gpusvd {
namespace gpu {

/// Whether one matrix (the call's only one) goes to the blocked path: the team kernels would run
/// it in global memory (team_ws_bytes > 0: it does not fit shared memory), with cuBLAS loaded.
/// GPUSVD_JACOBI_BLOCKED=0 in the environment keeps the team kernel (comparisons).
bool gesvj_blocked_wanted(int64_t m, int64_t n, size_t team_ws_bytes);

template <class T>
size_t gesvj_blocked_bytes(bool wantu, bool wantv, int64_t m, int64_t n);

/// The whole SVD of p's one matrix; waits on the stream once per sweep (inside a graph capture:
/// never, the sweeps being a while node).
template <class T>
gpusvdStatus_t gesvj_blocked(gpusvdHandle_t h, const char *routine, const GesvjProblem<T> &p,
                             void *ws, size_t ws_bytes, cudaStream_t s);

}  // namespace gpu
}  // namespace gpusvd
