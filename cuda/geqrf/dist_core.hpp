// The distributed tall QR after the ranks have agreed (cuda/geqrf/dist.cpp), for geqrf_mgs_dist
// and pca_dist: this rank's rows through the tall QR with its reductions over the communicator,
// then the completion of the columns the steps zeroed.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "api_common.hpp"
#include "common/runtime.hpp"
#include "comm.hpp"

namespace gpusvd {
namespace gpu {

/// Device workspace of dist_qr_core for rows >= 1 rows.
template <class T>
size_t dist_qr_core_bytes(int64_t rows, int64_t n);

/// A (max(m, 1) x n, ld lda; a rank without rows passes one zero row) -> its rows of Q, R
/// (n x n) the same on every rank, *info (device). dead_host: n ints of host memory; ws:
/// dist_qr_core_bytes; b: the handle's cuBLAS bound to s. Waits on the host once per step.
/// need_q false (a caller that needs R alone): where the first step's Gram matrix shows R final,
/// Q is not formed and A is left as it was.
template <class T>
gpusvdStatus_t dist_qr_core(gpusvdHandle_t h, const char *routine, gpusvdComm_t c,
                            const Agreement &g, int64_t m, int64_t n, T *A, int64_t lda, T *R,
                            int64_t ldr, int *info, void *ws, int *dead_host, cublasHandle_t b,
                            cudaStream_t s, bool need_q = true);

/// This rank's checks before the agreement: the handle's device entered (pointers checked for a
/// `_gpu` form), an NCCL communicator on the handle's device, no stream capture.
gpusvdStatus_t dist_prepare(gpusvdHandle_t h, const char *routine, Form form, gpusvdComm_t c,
                            DeviceScope &dev, std::initializer_list<PtrArg> ptrs);

}  // namespace gpu
}  // namespace gpusvd
