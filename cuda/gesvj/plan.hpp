// Which gesvj kernel runs a problem, with how many threads and how much shared memory or
// workspace. Plain C++ (no CUDA): the host tests check it and run the team code with its
// lanes/threads on CPU threads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/jacobi_types.hpp"

namespace gpusvd {
namespace gpu {

struct GesvjPlan {
    enum Path {
        kNothing,  // k = 0 or batch = 0: only info (zeros) is written
        kWarp,     // one warp per matrix, mats_per_block matrices per block, all in shared memory
        kBlock,    // one block per matrix, in shared memory
        kGlobal,   // one block per matrix, in the device workspace (any size)
    } path = kNothing;
    kernels::JacobiShape shape{};
    int lanes = 0;            // pair team width (a power of two <= 32)
    int fixed_na = 0;         // kBlock: > 0 runs the kernel compiled for these slots per lane
    int fixed_nv = 0;         // (A part, V part; rows padded with zeros); 0: the generic one
    int threads = 0;          // per block
    int mats_per_block = 1;   // kWarp
    size_t matrix_bytes = 0;  // one matrix's storage (shared memory or workspace slot)
    size_t smem_bytes = 0;    // dynamic shared memory per block
    int64_t grid = 0;
    size_t ws_bytes = 0;  // device workspace (kGlobal)
};

constexpr int kGesvjWarpMatsPerBlock = 4;
// Fewer matrices than this leave most multiprocessors idle: the block path then widens its pair
// teams to kGesvjFewLanes lanes, trading throughput for each round's latency (measured faster
// on sm_90 for single 32x32 and 64x64 matrices; 32 lanes were slower than 16).
constexpr int64_t kGesvjFewMatrices = 64;
constexpr int kGesvjFewLanes = 16;
// The global path's workspace holds one slot per block (blocks loop over the matrices): at most
// this many blocks, and no more slots than fit in the budget (but always one).
constexpr int64_t kGesvjGlobalMaxBlocks = 2048;
constexpr size_t kGesvjGlobalBudget = size_t(1) << 30;
constexpr size_t kGesvjStaticSmemReserve =
    1024;  // the block kernels' reduction scratch, rounded up
// The block path's compiled pair teams (FixedSlots): 8 or 16 lanes with 64 / lanes or half as
// many slots of each part per lane, so rows and cols up to 64 (the tall path's R, small
// matrices in small batches). With the slot counts and team width constant, a round's index
// arithmetic, guards and reductions compile to straight-line code (in the generic kernel they
// are most of a round's instructions on a 64x64 matrix).
constexpr int64_t kGesvjFixedMaxRows = 64;
// The fixed kernel's pair teams for few matrices: 8 lanes (measured faster than 16 on sm_90 from
// 32x32 to 64x64, the tall path's R included): each warp then carries four pairs' scalar work at
// once instead of two.
constexpr int kGesvjFixedFewLanes = 8;
constexpr int kGesvjFixedMaxThreads = 512;  // the fixed kernel's launch bounds

inline int64_t gesvj_pow2_ceil(int64_t v) {
    int64_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

/// The largest power of two <= limit, at least 32 (a warp).
inline int64_t gesvj_thread_cap(int limit) {
    const int64_t p = gesvj_pow2_ceil(int64_t(limit) + 1) / 2;
    return p < 32 ? 32 : p;
}

inline size_t gesvj_sat_mul(size_t a, size_t b) {
    size_t r;
    return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

/// Slots per lane of the fixed kernels for `rows` entries and pair teams of `lanes`: 64 / lanes
/// or half that (0: no fixed kernel).
inline int gesvj_fixed_slots(int64_t rows, int64_t lanes) {
    if (lanes != 8 && lanes != 16) return 0;
    const int full = static_cast<int>(kGesvjFixedMaxRows / lanes);
    return rows <= full / 2 * lanes ? full / 2 : rows <= kGesvjFixedMaxRows ? full : 0;
}

/// Bytes of one matrix's storage: the shape's T elements, the cols ints, rounded up to `align`.
inline size_t gesvj_matrix_bytes(const kernels::JacobiShape &s, size_t elem, size_t align) {
    size_t b = gesvj_sat_mul(static_cast<size_t>(s.elems), elem);
    const size_t ints = static_cast<size_t>(s.cols) * sizeof(int);
    if (b > SIZE_MAX - ints - align) return SIZE_MAX;
    b += ints;
    return (b + align - 1) / align * align;
}

/// Plans an m x n problem of `elem`-byte reals. smem_optin: the device's opt-in shared memory
/// per block; block_threads / global_threads: the most threads per block the block and global
/// kernels can launch with (cudaFuncGetAttributes; 1024 to plan without them).
///
/// Shared-memory paths (the matrix, oriented rows >= cols, with V below it, fits): a pair team of
/// `lanes` lanes per column pair, lanes ~ rows / 8 so each lane holds at most 8 entries of a
/// column (the register cache of jacobi_pair), as many pair teams as pairs, rounded up to a power
/// of two. 32 threads or fewer: one warp per matrix (lanes widened to fill it), several warps per
/// block (16x16: 8 pairs x 4 lanes); else one block per matrix (32x32: 16 pairs x 4 lanes = 64
/// threads, 64x64: 256 threads; 16 lanes for fewer than kGesvjFewMatrices matrices). Everything
/// else: warp-wide pair teams on the workspace. lanes_override (2..32, a power of two; tuning)
/// replaces the block path's lanes. A block path with 8 or 16 lanes (kGesvjFewLanes: few matrices)
/// and rows <= 64 runs the fixed kernel (allow_fixed; false: the generic one, for comparison): the
/// A part's rows padded to fixed_na * lanes and the V part's to fixed_nv * lanes.
inline GesvjPlan gesvj_plan(size_t elem, bool wantu, bool wantv, int64_t m, int64_t n,
                            int64_t batch, size_t smem_optin, int block_threads, int global_threads,
                            int lanes_override = 0, bool allow_fixed = true) {
    GesvjPlan pl;
    const int64_t k = m < n ? m : n;
    if (k <= 0 || batch <= 0) return pl;
    const int64_t bank_align = static_cast<int64_t>(128 / elem);
    const size_t smem_limit =
        smem_optin > kGesvjStaticSmemReserve ? smem_optin - kGesvjStaticSmemReserve : 0;
    kernels::JacobiShape s = kernels::jacobi_shape(m, n, wantu, wantv, bank_align);
    size_t bytes = gesvj_matrix_bytes(s, elem, 16);
    if (bytes > smem_limit) {
        s = kernels::jacobi_shape(m, n, wantu, wantv, 1);
        bytes = gesvj_matrix_bytes(s, elem, 16);
    }
    const int64_t npairs = (s.cols + 1) / 2;
    const int64_t np2 = gesvj_pow2_ceil(npairs);
    if (bytes <= smem_limit) {
        int64_t lanes = gesvj_pow2_ceil((s.rows + 7) / 8);
        if (lanes > 32) lanes = 32;
        pl.shape = s;
        pl.matrix_bytes = bytes;
        if (np2 * lanes <= 32) {
            pl.path = GesvjPlan::kWarp;
            pl.lanes = static_cast<int>(32 / np2);
            pl.threads = 32 * kGesvjWarpMatsPerBlock;
            pl.mats_per_block = kGesvjWarpMatsPerBlock;
            while (pl.mats_per_block > 1 && pl.mats_per_block * bytes > smem_limit) {
                --pl.mats_per_block;
                pl.threads -= 32;
            }
            pl.smem_bytes = pl.mats_per_block * bytes;
            pl.grid = (batch + pl.mats_per_block - 1) / pl.mats_per_block;
        } else {
            pl.path = GesvjPlan::kBlock;
            if (batch < kGesvjFewMatrices && lanes < kGesvjFewLanes)
                lanes = allow_fixed && gesvj_fixed_slots(s.rows, kGesvjFixedFewLanes) > 0
                            ? kGesvjFixedFewLanes
                            : kGesvjFewLanes;
            if (lanes_override >= 2 && lanes_override <= 32 &&
                (lanes_override & (lanes_override - 1)) == 0)
                lanes = lanes_override;
            pl.lanes = static_cast<int>(lanes);
            const int64_t cap = gesvj_thread_cap(block_threads);
            pl.threads = static_cast<int>(np2 * lanes < cap ? np2 * lanes : cap);
            pl.smem_bytes = bytes;
            pl.grid = batch;
            const int na = gesvj_fixed_slots(s.rows, lanes);
            if (allow_fixed && na > 0 && np2 * lanes <= kGesvjFixedMaxThreads) {
                kernels::JacobiShape f = s;
                const int nv = s.vrows > 0 ? na : 0;
                const int64_t pa = int64_t(na) * lanes, pv = int64_t(nv) * lanes;
                f.voff = ((f.voff > pa ? f.voff : pa) + bank_align - 1) / bank_align * bank_align;
                f.ld = (f.voff + (f.vrows > pv ? f.vrows : pv) + bank_align - 1) / bank_align *
                       bank_align;
                f.elems = f.ld * f.cols + 2 * int64_t(f.cols);
                const size_t fb = gesvj_matrix_bytes(f, elem, 16);
                if (fb <= smem_limit) {
                    pl.fixed_na = na;
                    pl.fixed_nv = nv;
                    pl.shape = f;
                    pl.matrix_bytes = pl.smem_bytes = fb;
                    pl.threads = static_cast<int>(np2 * lanes);
                }
            }
        }
        if (pl.grid > INT32_MAX) pl.grid = INT32_MAX;  // the kernels loop over the rest
        return pl;
    }
    pl.path = GesvjPlan::kGlobal;
    pl.shape = kernels::jacobi_shape(m, n, wantu, wantv, bank_align);
    pl.matrix_bytes = gesvj_matrix_bytes(pl.shape, elem, 256);
    pl.lanes = 32;
    const int64_t cap = gesvj_thread_cap(global_threads);
    pl.threads = static_cast<int>(np2 * 32 < cap ? np2 * 32 : cap);
    int64_t slots = static_cast<int64_t>(kGesvjGlobalBudget / pl.matrix_bytes);
    if (slots > kGesvjGlobalMaxBlocks) slots = kGesvjGlobalMaxBlocks;
    if (slots < 1) slots = 1;
    pl.grid = batch < slots ? batch : slots;
    pl.ws_bytes = gesvj_sat_mul(pl.matrix_bytes, static_cast<size_t>(pl.grid));
    return pl;
}

}  // namespace gpu
}  // namespace gpusvd
