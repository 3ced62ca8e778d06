// Matrices per block of the warp-per-matrix kernels (plain C++: the plans and their host tests).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpusvd {
namespace gpu {

/// The power of two w <= max_mats (32 w <= max_threads, w matrices of `bytes` within smem_block)
/// that puts the most warps on an SM (capped at 64 warps and 32 blocks per SM), given smem_sm
/// bytes of shared memory per SM and `reserved` bytes per block beyond the matrices. At least 1.
inline int warp_mats_per_block(size_t bytes, int max_mats, int max_threads, size_t smem_block,
                               size_t smem_sm, size_t reserved) {
    int best = 1, best_warps = 0;
    for (int w = 1; w <= max_mats && 32 * w <= max_threads; w *= 2) {
        const size_t b = bytes * static_cast<size_t>(w);
        if (b > smem_block) break;
        int64_t blocks = static_cast<int64_t>(smem_sm / (b + reserved));
        if (blocks > 32) blocks = 32;
        int64_t warps = blocks * w;
        if (warps > 64) warps = 64;
        if (warps > best_warps) {
            best_warps = static_cast<int>(warps);
            best = w;
        }
    }
    return best;
}

}  // namespace gpu
}  // namespace gpusvd
