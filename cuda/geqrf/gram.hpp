// The Gram matrix W^T W of a tall matrix (m x w, m >> w) on cuBLAS. Such a product (tiny output,
// huge inner dimension) runs on a handful of thread blocks as one SYRK or GEMM, so the rows are
// cut into chunks, each giving a partial Gram matrix (one strided-batched GEMM, tensor cores),
// and the partials are summed. Enqueued on the cuBLAS handle's stream; no host wait.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "context.hpp"
#include "geqrf/matrix_ld.hpp"

namespace gpusvd {
namespace gpu {

/// Elements of the partial Gram matrices gram_upper needs for m x w (at most about 32 MiB; none
/// when one SYRK does it).
template <class T>
int64_t gram_partials_elements(int64_t m, int w);

/// G (w x w, ld w, upper triangle) = W^T W for W m x w (ldw: either layout); P holds
/// gram_partials_elements<T>(m, w) elements. On failure a status with the routine named.
template <class T>
gpusvdStatus_t gram_upper(gpusvdHandle_t h, const char *routine, cublasHandle_t b, int64_t m,
                          int w, const T *W, MatLd ldw, T *P, T *G, cudaStream_t stream);

}  // namespace gpu
}  // namespace gpusvd
