// One large QR on the GPU (device pointers, on `stream`): CholeskyQR repeated until the columns
// are orthonormal, with a shifted Cholesky when the Gram matrix is too ill-conditioned to
// factor, in column panels of kCholPanel joined by block Gram-Schmidt with reorthogonalisation
// (BCGS2). See tall.cpp for the algorithm and its cost.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "comm.hpp"
#include "context.hpp"
#include "geqrf/matrix_ld.hpp"

namespace gpusvd {
namespace gpu {

/// Device workspace (bytes) of geqrf_tall for an m x n matrix: O(n * min(n, kCholPanel)); for a
/// row-major A, m*n + k*n elements more (R's column-major form, A's copy for the rare
/// rank-deficient rebuild).
template <class T>
size_t tall_workspace_bytes(int64_t m, int64_t n, bool row_major = false);

/// A (m x n, ld lda) -> Q in A(:, 0:k), R (k x n, ld ldr), *info (device), k = min(m, n).
/// A and R both column-major, or both row-major (lda.row; ldr.row is taken to be the same).
/// T: float, double, or kernels::Complex of either (column-major only: NOT_SUPPORTED otherwise;
/// R(j,j) real and non-negative).
/// reorth: MGS2 semantics for the rank-deficient fallback (the CholeskyQR path gives O(eps)
/// orthogonality in both modes).
/// Waits on the host once per CholeskyQR step for the step's flags (a few bytes), so it
/// returns after the last step is enqueued; the closing kernels are still in flight.
/// q_formed (optional): a caller that can use R alone passes it, and where the first step's
/// Gram matrix says A is well conditioned after column scaling (||G~ - I||_F <= 0.5, nothing
/// dropped: R is final after that step) the solve for Q is skipped, A is left as it was and
/// *q_formed = false. Then Q = A R^-1 to O(eps cond(A D^-1)) = O(eps) (D: A's column norms),
/// so a caller's A (R^-1 X) is as accurate as Q X. Otherwise *q_formed = true.
template <class T>
gpusvdStatus_t geqrf_tall(gpusvdHandle_t h, const char *routine, bool reorth, int64_t m, int64_t n,
                          T *A, MatLd lda, T *R, MatLd ldr, int *info, void *ws, size_t ws_bytes,
                          cudaStream_t stream, bool *q_formed = nullptr);

/// A tall QR over the rows of several ranks (geqrf_mgs_dist, cuda/geqrf/dist.cpp).
struct TallDist {
    gpusvdComm_t comm;
    int64_t m_global;  // rows over all ranks: what the shift and the dependence test scale with
    const int *dead = nullptr;  // set by the call: n device flags, the columns the steps zeroed
                                // (valid until the workspace is reused)
};

/// Device workspace of geqrf_tall_dist for this rank's m x n rows.
template <class T>
size_t tall_dist_workspace_bytes(int64_t m, int64_t n);

/// geqrf_tall on this rank's rows A (m x n, column-major, m >= 1) of a matrix whose rows are
/// spread over d->comm's ranks (d->m_global >= n rows in all): the Gram matrices, the column
/// maxima and the panel projections are all-reduced, so every rank takes the same steps and
/// forms the same R (n x n). Dependent columns get R(j,j) = 0 and *info as in geqrf_tall, but
/// are not rebuilt: the columns the steps zeroed (d->dead) are for the caller to complete.
/// Never captured (the caller refuses capture). q_formed: as geqrf_tall's (every rank decides
/// alike: the flags come from the same Gram matrix).
template <class T>
gpusvdStatus_t geqrf_tall_dist(gpusvdHandle_t h, const char *routine, TallDist *d, int64_t m,
                               int64_t n, T *A, int64_t lda, T *R, int64_t ldr, int *info, void *ws,
                               size_t ws_bytes, cudaStream_t stream, bool *q_formed = nullptr);

}  // namespace gpu
}  // namespace gpusvd
