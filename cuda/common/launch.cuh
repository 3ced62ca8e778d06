// Small launch-configuration queries shared by the kernels' launchers, and device helpers
// the kernels share.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace gpusvd {
namespace gpu {

/// Threads per block `kernel` can launch with (its register use limits it); 32 if unknown.
template <class K>
int max_threads(K kernel) {
    cudaFuncAttributes a{};
    if (cudaFuncGetAttributes(&a, kernel) != cudaSuccess) {
        (void)cudaGetLastError();
        return 32;
    }
    return a.maxThreadsPerBlock;
}

/// An attribute of the current device, or `fallback` if the query fails.
inline int device_attribute(cudaDeviceAttr attr, int fallback) {
    int dev = 0, v = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&v, attr, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return fallback;
    }
    return v;
}

/// Lets `kernel` use `bytes` of dynamic shared memory (an opt-in above 48 KiB).
template <class K>
cudaError_t allow_smem(K kernel, size_t bytes) {
    if (bytes <= 48 * 1024) return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(bytes));
}

#if defined(__CUDACC__)
/// atomicMax on a non-negative double kept as its bit pattern (such doubles order like their
/// bits): how kernels reduce a max-abs or an off-norm across blocks.
__device__ inline void atomic_max_nonneg(unsigned long long *at, double v) {
    atomicMax(at, static_cast<unsigned long long>(__double_as_longlong(v)));
}
#endif

}  // namespace gpu
}  // namespace gpusvd
