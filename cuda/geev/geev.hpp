// GPU batched non-symmetric eigenvalues: launchers called by src/api_geev.cpp through
// cuda/dispatch. All pointers are device pointers; everything is enqueued on `stream`.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace gpusvd {
namespace gpu {

template <class T>
struct GeevProblem {
    bool wantvr;
    int64_t n;
    T *A;  // destroyed
    int64_t lda, sA;
    T *wr, *wi;  // complex T: the eigenvalues W in wr, wi null
    int64_t sW;
    T *VR;  // null when !wantvr
    int64_t ldvr, sVR;
    int64_t batch;
    int *info;  // batch entries, device
};

/// Device workspace (bytes) for this problem (0 when every matrix fits in shared memory).
/// Saturates at SIZE_MAX on overflow.
template <class T>
size_t geev_workspace_bytes(bool wantvr, int64_t n, int64_t batch);

/// Enqueues the computation; returns the first CUDA (launch) error; does not synchronise.
template <class T>
cudaError_t geev_launch(const GeevProblem<T> &p, void *ws, size_t ws_bytes, cudaStream_t stream);

}  // namespace gpu
}  // namespace gpusvd
