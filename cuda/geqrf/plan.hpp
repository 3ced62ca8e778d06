// Which batched Gram-Schmidt QR kernel (batched.cu) runs a problem, with how many threads and how
// much shared memory or workspace. Plain C++ (no CUDA): the host tests check it and run the team
// code (src/kernels/qr_team.hpp) with its member counts on CPU threads.
//
// Members own columns (qr_team.hpp), so a team wider than n has idle members: one warp per
// matrix for n <= 32, else one block of about n threads (a multiple of 32).
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include "common/occupancy.hpp"

#include "kernels/qr_team.hpp"

namespace gpusvd {
namespace gpu {

struct GeqrfBatchedPlan {
    enum Path {
        kNothing,  // k = 0 or batch = 0: only info (zeros) is written
        kWarpReg,  // m, n <= 32: a warp per matrix, columns in registers (lane c owns column c),
                   // kQrRegWarps matrices per block, static shared memory; rare matrices
                   // (NaN/Inf, dependent or tiny columns) run the team code in place, in a
                   // second kernel
        kWarp,     // n <= 32: a warp per matrix, mats_per_block matrices per block, shared memory
        kBlock,    // a block per matrix in shared memory
        kGlobal,   // a block per matrix in place in A and R, its vectors in a workspace slot
    } path = kNothing;
    kernels::QrShape shape{};
    int threads = 0;          // per block
    int mats_per_block = 1;   // kWarp, kWarpReg
    int reg_rows = 0;         // kWarpReg: the kernel's compile-time row bound (8, 16 or 32)
    size_t matrix_bytes = 0;  // one matrix's shared memory, or workspace slot (kGlobal)
    size_t smem_bytes = 0;    // dynamic shared memory per block
    int64_t grid = 0;
    size_t ws_bytes = 0;  // device workspace (kGlobal)
};

constexpr int kQrWarpMaxN = 32;                   // columns a warp's lanes own one each
constexpr int kQrRegMaxM = 32;                    // kWarpReg: rows held in registers, at most
constexpr int kQrRegWarps = 4;                    // kWarpReg: matrices (warps) per block
constexpr int kQrRegBlocksPerSm = 4;  // kWarpReg: the register budget (128 per thread at 4)
constexpr int kQrRegRare = INT_MIN;   // kWarpReg: info of a matrix left to the team code
constexpr int kQrRareElems = 4 * kQrWarpMaxN;     // kWarpReg: a rare matrix's in-place vectors
constexpr int kQrWarpMaxMats = 8;                 // matrices (warps) per block, at most
constexpr int64_t kQrMaxGrid = int64_t(1) << 20;  // blocks loop over the rest of the batch
constexpr int64_t kQrGlobalMaxBlocks = 4096;      // bounds the global path's workspace
constexpr size_t kQrReservedSmem = 1024;          // per block, taken by the system on sm_80+
constexpr size_t kQrScratchBytes = 32 * sizeof(double);  // BlockTeam's static reduction slots

inline size_t qr_sat_mul(size_t a, size_t b) {
    size_t r;
    return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

/// Bytes of a shape's working storage rounded up to `align` (SIZE_MAX on overflow).
inline size_t qr_storage_bytes(const kernels::QrShape &s, size_t elem, size_t align) {
    if (s.elems < 0) return SIZE_MAX;
    const size_t b = qr_sat_mul(static_cast<size_t>(s.elems), elem);
    if (b > SIZE_MAX - align) return SIZE_MAX;
    return (b + align - 1) / align * align;
}

/// Threads of a block team for n columns: n rounded up to a multiple of 32, within the kernel's
/// limit (a multiple of 32, at least 32).
inline int qr_block_threads(int64_t n, int limit) {
    int cap = (limit < 1024 ? limit : 1024) / 32 * 32;
    if (cap < 32) cap = 32;
    const int64_t want = (n + 31) / 32 * 32;
    return want < cap ? static_cast<int>(want) : cap;
}

/// Shared memory of one warp of the register path (static in the kernel): a (rows+1) x 32
/// tile (A and Q staging, R), two broadcast vectors of rows + 2, R2's diagonal.
inline size_t qr_reg_warp_bytes(size_t elem, int rows) {
    return elem * static_cast<size_t>((rows + 1) * 32 + 2 * (rows + 2) + rows);
}

/// Plans batch m x n problems of `elem`-byte reals. smem_block: the device's opt-in shared memory
/// per block; smem_sm: shared memory per SM; warp_threads, block_threads, global_threads: the most
/// threads per block each kernel can launch with (cudaFuncGetAttributes; 1024 to plan without).
/// The warp path takes as many matrices per block as maximise the warps resident on an SM
/// (ties: fewer). m, n <= 32 take the register path (kWarpReg) unless `warp_reg` is false (the
/// comparison with the shared-memory warp path).
inline GeqrfBatchedPlan geqrf_batched_plan(size_t elem, int64_t m, int64_t n, int64_t batch,
                                           size_t smem_block, size_t smem_sm, int warp_threads,
                                           int block_threads, int global_threads,
                                           bool warp_reg = true) {
    GeqrfBatchedPlan p;
    const int64_t k = m < n ? m : n;
    if (k <= 0 || batch <= 0) return p;
    const bool small_dims = m <= INT_MAX / 4 && n <= INT_MAX / 4;
    const kernels::QrShape s = kernels::qr_shape(m, n, false);
    const size_t bytes = small_dims ? qr_storage_bytes(s, elem, 16) : SIZE_MAX;
    // int indices in shared memory: guaranteed since everything there is < 2^31 bytes.
    if (warp_reg && m <= kQrRegMaxM && n <= kQrWarpMaxN) {
        p.path = GeqrfBatchedPlan::kWarpReg;
        p.shape = s;
        p.reg_rows = m <= 8 ? 8 : m <= 16 ? 16 : 32;
        p.mats_per_block = kQrRegWarps;
        p.threads = 32 * kQrRegWarps;
        p.matrix_bytes = qr_reg_warp_bytes(elem, p.reg_rows);
        p.smem_bytes = 0;  // static
        p.grid = (batch + kQrRegWarps - 1) / kQrRegWarps;
    } else if (n <= kQrWarpMaxN && bytes <= smem_block) {
        p.path = GeqrfBatchedPlan::kWarp;
        p.shape = s;
        p.matrix_bytes = bytes;
        p.mats_per_block = warp_mats_per_block(bytes, kQrWarpMaxMats, warp_threads, smem_block,
                                               smem_sm, kQrReservedSmem);
        p.threads = 32 * p.mats_per_block;
        p.smem_bytes = bytes * static_cast<size_t>(p.mats_per_block);
        p.grid = (batch + p.mats_per_block - 1) / p.mats_per_block;
    } else if (smem_block >= kQrScratchBytes && bytes <= smem_block - kQrScratchBytes) {
        p.path = GeqrfBatchedPlan::kBlock;
        p.shape = s;
        p.matrix_bytes = p.smem_bytes = bytes;
        p.threads = qr_block_threads(n, block_threads);
        p.grid = batch;
    } else {
        p.path = GeqrfBatchedPlan::kGlobal;
        p.shape = kernels::qr_shape(m, n, true);
        p.matrix_bytes = qr_storage_bytes(p.shape, elem, 256);
        p.threads = qr_block_threads(n, global_threads);
        p.grid = batch < kQrGlobalMaxBlocks ? batch : kQrGlobalMaxBlocks;
        p.ws_bytes = qr_sat_mul(p.matrix_bytes, static_cast<size_t>(p.grid));
    }
    if (p.grid > kQrMaxGrid) p.grid = kQrMaxGrid;
    return p;
}

}  // namespace gpu
}  // namespace gpusvd
