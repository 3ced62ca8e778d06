// GPU Gram-Schmidt QR: launchers called by cuda/geqrf/dispatch.cpp. All pointers are
// device pointers; everything is enqueued on `stream`.
//  - batched.cu: one team (warp or block) per matrix, column-oriented MGS / MGS2 of
//    src/kernels/qr_team.hpp (many small matrices; any size still correct).
//  - tall.cpp + cholqr.cu: one large matrix, CholeskyQR with reorthogonalisation (Gram matrices
//    and triangular solves by cuBLAS, the small Cholesky in one block).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace gpusvd {
namespace gpu {

/// One batched problem, column-major, strided (batch 1 for the single-matrix routine).
/// A (m x n) -> Q in its first min(m,n) columns; R (min(m,n) x n) upper triangular, R(j,j) >= 0.
template <class T>
struct GeqrfProblem {
    bool reorth;  // GPUSVD_ORTH_MGS2
    int64_t m, n;
    T *A;
    int64_t lda, sA;
    T *R;
    int64_t ldr, sR;
    int64_t batch;
    int *info;  // batch entries, device
};

/// Device workspace (bytes) of the batched team kernels for this problem (0 when everything fits
/// in shared memory). Saturates at SIZE_MAX on overflow.
template <class T>
size_t geqrf_batched_workspace_bytes(int64_t m, int64_t n, int64_t batch);

/// Enqueues the batched team kernels; returns the first CUDA launch error (no synchronisation).
template <class T>
cudaError_t geqrf_batched_launch(const GeqrfProblem<T> &p, void *ws, size_t ws_bytes,
                                 cudaStream_t stream);

}  // namespace gpu
}  // namespace gpusvd
