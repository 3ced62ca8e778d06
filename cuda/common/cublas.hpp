// cuBLAS, loaded with dlopen on first use: libgpusvd.so keeps no NEEDED entry on CUDA libraries
// (it loads on machines without CUDA), and only the routines that need a large GEMM, SYRK or TRSM
// (the tall QR) pay for loading it. cuBLAS shares the process's primary context with the static
// runtime, so streams and device pointers cross freely.
#pragma once

#include <cublas_v2.h>

#include <cstdint>

#include "context.hpp"

namespace gpusvd {
namespace gpu {

/// The handle's cuBLAS handle bound to `stream` (created on first use). nullptr with a message
/// set on h (routine named) and *st set when cuBLAS cannot be loaded or initialised.
cublasHandle_t blas_handle(gpusvdHandle_t h, const char *routine, cudaStream_t stream,
                           gpusvdStatus_t *st);

/// cuBLAS's workspace set to `bytes` at `ws` until the next blas_handle call (which resets it to
/// cuBLAS's own pool): conditional-node bodies of a graph may hold no memory allocation, and
/// cuBLAS allocates its workspace in the capture otherwise.
constexpr size_t kBlasGraphWorkspace = size_t(4) << 20;
gpusvdStatus_t blas_set_workspace(gpusvdHandle_t h, const char *routine, cublasHandle_t b,
                                  void *ws, size_t bytes);

/// Whether cuBLAS loads (paths that only prefer it check this and take another way otherwise).
bool blas_available();

/// Destroys the handle's cuBLAS handle (gpusvdDestroy, through release()).
void blas_release(void *handle);

/// Maps a cuBLAS error to a status with the routine and step named.
gpusvdStatus_t blas_fail(gpusvdHandle_t h, const char *routine, const char *step, cublasStatus_t s);

/// Typed wrappers over the loaded functions (column-major, 64-bit sizes, host scalars), for T in
/// float, double, kernels::Complex<float>, kernels::Complex<double>.
namespace blas {
/// C = alpha op(A) op(A)^H + beta C (?syrk; ?herk for complex T, whose alpha and beta are real:
/// their real parts are taken). op is CUBLAS_OP_T or CUBLAS_OP_N for real T, CUBLAS_OP_C or
/// CUBLAS_OP_N for complex T.
template <class T>
cublasStatus_t syrk(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int64_t n, int64_t k,
                    T alpha, const T *A, int64_t lda, T beta, T *C, int64_t ldc);
template <class T>
cublasStatus_t gemm(cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                    int64_t n, int64_t k, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb,
                    T beta, T *C, int64_t ldc);
/// C_b = op(A_b) op(B_b) for b < batch, A_b = A + b sA etc.
template <class T>
cublasStatus_t gemm_strided(cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                            int64_t n, int64_t k, const T *A, int64_t lda, int64_t sA, const T *B,
                            int64_t ldb, int64_t sB, T *C, int64_t ldc, int64_t sC, int64_t batch);
/// C_b = op(A_b) op(B_b) for b < batch, from device arrays of device pointers.
template <class T>
cublasStatus_t gemm_batched(cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                            int64_t n, int64_t k, const T *const *A, int64_t lda,
                            const T *const *B, int64_t ldb, T *const *C, int64_t ldc,
                            int64_t batch);
/// B <- B * inv(op(R)) (side right) or inv(op(R)) * B (side left), R upper triangular,
/// non-unit; B is m x n, in place.
template <class T>
cublasStatus_t trsm_upper(cublasHandle_t, cublasSideMode_t side, int64_t m, int64_t n, const T *R,
                          int64_t ldr, T *B, int64_t ldb, cublasOperation_t op = CUBLAS_OP_N);
/// B <- B * R, R upper triangular (right side), in place.
template <class T>
cublasStatus_t trmm_right_upper_inplace(cublasHandle_t, int64_t m, int64_t n, const T *R,
                                        int64_t ldr, T *B, int64_t ldb);
/// C <- R * B, R upper triangular (left side), C and B may not alias.
template <class T>
cublasStatus_t trmm_left_upper(cublasHandle_t, int64_t m, int64_t n, const T *R, int64_t ldr,
                               const T *B, int64_t ldb, T *C, int64_t ldc);
}  // namespace blas

}  // namespace gpu
}  // namespace gpusvd
