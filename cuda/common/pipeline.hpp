// Host-pointer form of a batched routine on the GPU: the batch is cut into chunks; each chunk is
// packed into pinned memory (all cores), copied to the device, computed and copied back on its
// own stream while the host packs the next one, so PCIe transfers, kernels and host copies
// overlap. Device layouts inside a chunk are compact: ld = rows, stride = rows * cols. An operand
// in page-locked host memory skips the packing: its chunks are DMA'd straight between it and the
// device.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "context.hpp"

namespace gpusvd {
namespace gpu {

/// One batched array of the call: matrix b is rows x cols at host + b * stride, leading dim ld.
struct Operand {
    void *host;
    int64_t rows, cols, ld, stride;
    size_t elem;
    bool in, out;  // copied to the device before / back to the host after the kernel
};

constexpr int kMaxOperands = 6;

/// One chunk as the kernel sees it: compact device copies of the operands, its info entries,
/// the kernel workspace, and the stream to enqueue on.
struct Chunk {
    int64_t first, count;
    void *dev[kMaxOperands];
    int *info;
    void *ws;
    size_t ws_bytes;
    cudaStream_t stream;
};

/// Runs `launch` over the batch chunk by chunk and copies `out` operands and info back.
/// `ws_bytes(count)` is the kernel workspace a chunk of `count` matrices needs.
gpusvdStatus_t run_host_batched(gpusvdHandle_t h, const char *routine, int64_t batch,
                                const Operand *ops, int nops, int *info,
                                const std::function<size_t(int64_t)> &ws_bytes,
                                const std::function<cudaError_t(const Chunk &)> &launch);

/// As run_host_batched, for launches that report a status of their own (their message set on h,
/// kept as it is): paths that wait on the device inside a launch (the tall QR).
gpusvdStatus_t run_host_batched_status(
    gpusvdHandle_t h, const char *routine, int64_t batch, const Operand *ops, int nops, int *info,
    const std::function<size_t(int64_t)> &ws_bytes,
    const std::function<gpusvdStatus_t(const Chunk &)> &launch);

}  // namespace gpu
}  // namespace gpusvd
