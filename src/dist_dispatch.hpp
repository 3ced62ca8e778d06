// What the distributed entry points (src/api_dist.cpp) call on the GPU: defined in
// cuda/common/collective.cpp and cuda/geqrf/dist.cpp, or in src/dist_none.cpp for builds
// without the CUDA backend (where no NCCL communicator can be made and no device is usable).
#pragma once

#include <cstddef>
#include <cstdint>

#include "api_common.hpp"
#include "comm.hpp"

namespace gpusvd {
namespace gpu {

/// Size, rank and device of a caller's NCCL communicator; false with the reason in `why`
/// (NCCL not loadable, a call failing).
bool nccl_query(void *nccl, int *size, int *rank, int *device, char *why, size_t why_size);

/// Host-memory all-reduce over an NCCL communicator, staged through a small device buffer of
/// the communicator (blocking).
gpusvdStatus_t nccl_allreduce_host(gpusvdHandle_t h, const char *routine, const char *what,
                                   gpusvdComm_t c, void *buf, int64_t count, gpusvdDataType_t type,
                                   gpusvdReduceOp_t op);

/// Frees what the communicator holds on the device (gpusvdCommDestroy).
void comm_release(gpusvdComm_t c);

/// geqrf_mgs_dist on the GPU; the arguments validated on this rank but not yet agreed (the
/// GPU path takes its workspace first, then calls agree()).
template <class T>
gpusvdStatus_t geqrf_dist(gpusvdHandle_t h, const char *routine, Form form, gpusvdComm_t c,
                          bool reorth, int64_t m_local, int64_t n, T *A, int64_t lda, T *R,
                          int64_t ldr, int *info);

/// Device workspace of geqrf_dist's `_gpu` form on a rank with m_local rows.
template <class T>
size_t geqrf_dist_device_bytes(int64_t m_local, int64_t n);

/// pca_dist on the GPU (validated on this rank, not yet agreed, as geqrf_dist).
template <class T>
gpusvdStatus_t pca_dist(gpusvdHandle_t h, const char *routine, Form form, gpusvdComm_t c,
                        int64_t m, int64_t n, const T *X, int64_t ldx, int64_t k, T *C, int64_t ldc,
                        T *var, T *scores, int64_t lds, T *mean, int *info);

/// Device workspace of pca_dist's `_gpu` form on a rank with m_local samples.
template <class T>
size_t pca_dist_device_bytes(int64_t m_local, int64_t n, int64_t k);

}  // namespace gpu
}  // namespace gpusvd
