// GPU one-sided Jacobi SVD: launchers called by src/api_gesvj.cpp through
// cuda/dispatch. All pointers are device pointers; everything is enqueued on `stream`.
#pragma once

#include <cuda_runtime_api.h>

#if defined(__CUDACC__)
#include "common/launch.cuh"
#endif

#include <cstddef>
#include <cstdint>

#include "kernels/complex.hpp"

namespace gpusvd {
namespace gpu {

/// Per-call Jacobi statistics, in device memory: the largest sweep count and the largest final
/// off-norm max|a_i^T a_j| / (||a_i|| ||a_j||) over the batch (the host reads it for
/// gpusvdGetJacobiStats). The caller zeroes it once per API call: the launches of a call (one
/// per chunk of a host-form call, possibly on several streams) only raise it with atomicMax.
struct JacobiStatsDev {
    int sweeps;
    unsigned long long off_bits;  // bit pattern of a non-negative double (atomicMax on it orders)
};

#if defined(__CUDACC__)
/// Raises the call's statistics to one matrix's (the launches of a call only raise them).
__device__ inline void record_jacobi_stats(JacobiStatsDev *s, int sweeps, double off) {
    atomicMax(&s->sweeps, sweeps);
    atomic_max_nonneg(&s->off_bits, off);
}
#endif

/// One batched problem, column-major, strided (batch 1 for the single-matrix routine). T: float,
/// double or kernels::Complex<R> (S real).
template <class T>
struct GesvjProblem {
    bool wantu, wantv;
    int64_t m, n;
    T *A;
    int64_t lda, sA;
    kernels::RealOf<T> *S;
    int64_t sS;
    T *U;  // null when !wantu
    int64_t ldu, sU;
    T *V;  // null when !wantv
    int64_t ldv, sV;
    int64_t batch;
    int *info;              // batch entries, device
    double tol;             // > 0: resolved by the caller (default applied already)
    int max_sweeps;         // >= 1
    JacobiStatsDev *stats;  // device
    int64_t plan_batch = 0;  // the whole call's batch (0: batch), which chooses the kernels: a
                            // pipeline chunk or a device's part computes each matrix as the
                            // whole call would, bit for bit
};

/// Device workspace (bytes) the launcher needs for this problem (0 when everything fits in
/// shared memory). Saturates at SIZE_MAX on overflow.
template <class T>
size_t gesvj_workspace_bytes(bool wantu, bool wantv, int64_t m, int64_t n, int64_t batch);

/// Enqueues the whole computation; returns the first CUDA error (launch errors only: it does not
/// synchronise). `ws` holds gesvj_workspace_bytes bytes.
template <class T>
cudaError_t gesvj_launch(const GesvjProblem<T> &p, void *ws, size_t ws_bytes, cudaStream_t stream);

}  // namespace gpu
}  // namespace gpusvd
