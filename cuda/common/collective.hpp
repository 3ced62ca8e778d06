// All-reduces of device memory over a gpusvdComm_t, in stream order: NCCL's (loaded at run time,
// like cuBLAS) enqueued with no host wait; a host communicator's staged through host memory
// (the stream waited for, the caller's function called, the result copied back).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "comm.hpp"

namespace gpusvd {
namespace gpu {

/// In-place all-reduce of `count` elements at device pointer `buf`, ordered on `stream` (which
/// must belong to the communicator's device for NCCL). On failure a status naming the routine
/// and `what`.
gpusvdStatus_t allreduce_device(gpusvdHandle_t h, const char *routine, const char *what,
                                gpusvdComm_t c, void *buf, int64_t count, gpusvdDataType_t type,
                                gpusvdReduceOp_t op, cudaStream_t stream);

}  // namespace gpu
}  // namespace gpusvd
