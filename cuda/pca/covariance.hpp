// pca's covariance method on the GPU (samples >= features): see covariance.cpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gpu_dispatch.hpp"

namespace gpusvd {
namespace gpu {

/// Device workspace (bytes) of the covariance method for m x n data.
template <class T>
size_t pca_covariance_bytes(int64_t m, int64_t n);

/// Enqueues the whole computation on s (ws: pca_covariance_bytes bytes); never waits on the
/// host, so a `_gpu` call can be captured into a CUDA graph.
template <class T>
gpusvdStatus_t pca_covariance_run(gpusvdHandle_t h, const char *routine, const PcaArgs<T> &a,
                                  void *ws, cudaStream_t s);

}  // namespace gpu
}  // namespace gpusvd
