// Kernels of the blocked one-sided Jacobi (see blocked_plan.hpp), for one matrix or a chunk of a
// batch: loading and scaling W, the per-pair Gram solves (team code of
// src/kernels/jacobi_gram.hpp), the schedule of the sweeps, and the finish, which runs
// jacobi_finish.hpp's steps on slices of each matrix's columns, one thread block per slice.
// Grids stride over the matrices in y or z (at most 65535 blocks there).
#include <cuda_runtime.h>

#include <type_traits>

#include "common/launch.cuh"
#include "common/teams.cuh"
#include "gesvj/blocked.hpp"
#include "gesvj/gram_register_v.cuh"
#include "kernels/jacobi_finish.hpp"
#include "kernels/jacobi_gram.hpp"
#include "kernels/jacobi_team.hpp"

namespace gpusvd {
namespace gpu {
namespace {

using kernels::BlockTeam;
using kernels::JacobiWork;
using kernels::Real;
using kernels::RealOf;
using kernels::WarpTeam;

constexpr int kTile = 32;
constexpr int kSliceCols = 8;  // columns per block in the finish (a warp each)

/// W's A part from A (tr: from A^T, through a shared tile so both sides stay coalesced), with
/// each matrix's max |a_ij| and NaN/Inf flag. Block (32, 8) per 32 x 32 tile of W; grid.y strides
/// over the column tiles, grid.z over the matrices.
template <class T>
__global__ void load_kernel(GesvjProblem<T> p, BlockedWork<T> bw, BlockedPlan pl) {
    __shared__ T tile[kTile][kTile + 1];
    const bool tr = p.m < p.n;
    const int64_t ld = pl.shape.ld, rows = pl.shape.rows, cols = pl.shape.cols;
    const int64_t i0 = int64_t(blockIdx.x) * kTile;
    for (int64_t b = blockIdx.z; b < bw.count; b += gridDim.z) {
        const T *A = p.A + b * p.sA;
        T *W = bw.w[0] + b * pl.mat_elems;
        RealOf<T> big = RealOf<T>(0);
        int bad = 0;
        for (int64_t j0 = int64_t(blockIdx.y) * kTile; j0 < cols;
             j0 += int64_t(gridDim.y) * kTile) {
            for (int y = threadIdx.y; y < kTile; y += blockDim.y) {
                // Source entry: W(i0 + x, j0 + y), or A(j0 + x, i0 + y) = W(i0 + y, j0 + x) when
                // transposed (A's rows are W's columns).
                const int64_t si = tr ? j0 + threadIdx.x : i0 + threadIdx.x;
                const int64_t sj = tr ? i0 + y : j0 + y;
                const bool in = tr ? (si < cols && sj < rows) : (si < rows && sj < cols);
                // A^H when transposed (conj: the identity for real data)
                const T v = in ? (tr ? kernels::conj(A[si + sj * p.lda]) : A[si + sj * p.lda])
                               : T(0);
                bad |= !kernels::is_finite(v);
                if (kernels::part_abs_max(v) > big) big = kernels::part_abs_max(v);
                tile[y][threadIdx.x] = v;
            }
            __syncthreads();
            for (int y = threadIdx.y; y < kTile; y += blockDim.y) {
                const int64_t i = i0 + threadIdx.x, j = j0 + y;
                if (i < rows && j < cols)
                    W[i + j * ld] = tr ? tile[threadIdx.x][y] : tile[y][threadIdx.x];
            }
            __syncthreads();
        }
        for (int o = 16; o > 0; o >>= 1) {
            const RealOf<T> w = __shfl_xor_sync(0xffffffffu, big, o);
            big = w > big ? w : big;
            bad |= __shfl_xor_sync(0xffffffffu, bad, o);
        }
        if (threadIdx.x == 0) {
            atomic_max_nonneg(&bw.ctl[b].amax_bits, static_cast<double>(big));
            if (bad) atomicOr(&bw.ctl[b].nonfinite, 1);
        }
    }
}

/// The power-of-two scaling of jacobi_svd (same exponents) on W's A part; the V part's identity.
template <class T>
__global__ void scale_kernel(BlockedWork<T> bw, BlockedPlan pl) {
    for (int64_t b = blockIdx.z; b < bw.count; b += gridDim.z) {
        const BlockedControl &c = bw.ctl[b];
        const JacobiWork<T, int64_t> w = bw.view(pl, b, 0);
        int e1 = 0, e2 = 0;
        if (!c.nonfinite)
            kernels::jacobi_scale_exponents(
                w,
                static_cast<RealOf<T>>(blocked_bits_value(c.amax_bits)),
                e1, e2);
        using R = Real<RealOf<T>>;
        const RealOf<T> f1 = R::ldexp(RealOf<T>(1), e1), f2 = R::ldexp(RealOf<T>(1), e2);
        for (int64_t j = blockIdx.y; j < w.cols; j += gridDim.y) {
            T *x = w.w + j * w.ld;
            if (blockIdx.x == 0 && threadIdx.x == 0 && w.vrows > 0) x[w.voff + j] = T(1);
            if (e1 == 0 && e2 == 0) continue;
            for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < w.rows;
                 i += int64_t(gridDim.x) * blockDim.x)
                x[i] = x[i] * f1 * f2;  // f1 first, as jacobi_apply_scale
        }
    }
}

/// The pointer arrays of the listed matrices (every matrix of the chunk with `all`, else the
/// loop's active ones): the update GEMM's for both directions of the ping-pong (slot s's half of
/// pair s / 2 goes to the slot its block moves to), and the Gram GEMM's row chunks in either
/// copy with their partial blocks.
template <class T>
__global__ void pointers_kernel(BlockedWork<T> bw, BlockedPlan pl, bool all) {
    const int64_t listed = all ? bw.count : bw.loop->active;
    const int nblocks = pl.nblocks, pairs = nblocks / 2, split = pl.gram_split;
    const int64_t slots = pl.batch * nblocks;  // each array's capacity
    const int64_t chunk_rows = split == 1 ? pl.shape.rows : pl.shape.voff / split;
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    for (int64_t idx = first; idx < listed * nblocks; idx += stride) {
        const int64_t i = idx / nblocks;
        const int s = static_cast<int>(idx % nblocks);
        const BlockedUpdateOffsets o = blocked_update_offsets(
            pl.shape.ld, pl.nb, nblocks, pl.mat_elems, i, bw.list[i], s);
        for (int c = 0; c < 2; ++c) {
            T **a = bw.ptr[c];
            a[idx] = bw.w[c] + o.src;
            a[slots + idx] = bw.rot + o.rot;
            a[2 * slots + idx] = bw.w[1 - c] + o.dst;
        }
    }
    const int64_t per = int64_t(pairs) * split;
    for (int64_t idx = first; idx < listed * per; idx += stride) {
        const int64_t i = idx / per;
        const int k = static_cast<int>(idx % per) / split, chunk = static_cast<int>(idx % split);
        const BlockedGramOffsets o =
            blocked_gram_offsets(pl.shape.ld, pl.nb, nblocks, pl.mat_elems, split, chunk_rows, i,
                                 bw.list[i], k, chunk);
        bw.gptr[0][idx] = bw.w[0] + o.src;
        bw.gptr[1][idx] = bw.w[1] + o.src;
        bw.gptr[2][idx] = bw.gram + o.gram;
    }
}

/// Threads of the Gram solve with V in registers (GramRegisterV): the plans' 256 at 2nb = 64.
constexpr int kGramRegisterThreads = 256;

/// Shared memory of one pair's solve: G and V, each n2 x n2 with leading dimension n2 (even: no
/// bank conflicts in gram_jacobi; V starts 16-byte aligned for its two-row accesses), the
/// rotation scratch. With V in registers: G and the scratch, and room for V's staging at the
/// end (n2 x (n2 + 1) from G's start).
template <class T>
__host__ __device__ size_t pair_smem(int n2, bool register_v) {
    const size_t rot = kernels::kGramRotArrays<T> * size_t(n2 / 2);
    if (!register_v) return sizeof(T) * (2 * size_t(n2) * n2 + rot);
    const size_t g = size_t(n2) * n2 + rot, stage = size_t(n2) * (n2 + 1);
    return sizeof(T) * (g > stage ? g : stage);
}

/// Pair g of the round (pair g % pairs of the list's matrix g / pairs) into shared memory,
/// gram_jacobi by team t, V out for the update GEMM. With RegisterV (2nb = 64, blocks of
/// kGramRegisterThreads) V lives in registers (GramRegisterV) and the shared memory holds G,
/// the rotation scratch and, at the end, V's staging for its coalesced store.
template <class T, bool RegisterV, class Team>
__device__ __forceinline__ void gram_pair(const Team &t, const BlockedWork<T> &bw, int64_t g,
                                          int pairs, int n2, int split, RealOf<T> tol, int max_sweeps,
                                          bool cross, T *smem) {
    const int ld = n2;  // even: no bank conflicts in gram_jacobi (see there)
    T *G = smem, *V = G + n2 * ld, *rot = V + (RegisterV ? 0 : n2 * n2);
    const T *gb = bw.gram + g * split * n2 * n2;
    T *v = bw.rot + g * n2 * n2;
    BlockedControl *ctl = bw.ctl + bw.list[g / pairs];
    // Out of the loop (the graph path still moves it) or NaN/Inf (no sweep is meaningful): V = I
    // keeps the GEMMs harmless.
    if (ctl->done || ctl->nonfinite) {
        for (int idx = t.rank(); idx < n2 * n2; idx += t.size())
            v[idx] = idx % n2 == idx / n2 ? T(1) : T(0);
        return;
    }
    for (int idx = t.rank(); idx < n2 * n2; idx += t.size()) {
        T sum = gb[idx];
        for (int c = 1; c < split; ++c) sum += gb[c * n2 * n2 + idx];  // fixed order
        G[idx % n2 + idx / n2 * ld] = sum;
    }
    t.sync();
    kernels::GramResult<T> r;
    if constexpr (RegisterV) {
        GramRegisterV<T, kGramRegisterThreads> vr(cross);
        r = kernels::gram_jacobi(t, G, ld, vr, n2, tol, max_sweeps, rot, cross);
        vr.store(t, G, v);  // G is done with (gram_jacobi ends on a team-wide max)
    } else {
        r = kernels::gram_jacobi(t, G, ld, V, n2, n2, tol, max_sweeps, rot, cross);
        for (int idx = t.rank(); idx < n2 * n2; idx += t.size()) v[idx] = V[idx];
    }
    if (t.rank() == 0) {
        if (r.rotated) atomicAdd(&ctl->rotated, 1);
        atomic_max_nonneg(&ctl->off_bits, static_cast<double>(r.off));
    }
}

/// A block per pair. (A warp per pair at 2nb = 32 measured about twice as slow on sm_90: its
/// lanes each rotate 4x the entries per round.) N2 > 0 fixes 2nb at compile time, and Cross the
/// ordering: the solve's index arithmetic (divisions by the pair count, the round-robin
/// positions) then folds into shifts and masks, and it is the busiest pipe of this kernel.
template <class T, int N2, bool Cross>
__global__ void gram_block_kernel(BlockedWork<T> bw, int pairs, int n2, int split, RealOf<T> tol,
                                  int max_sweeps) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ double scratch[32];
    gram_pair<T, false>(BlockTeam<double>{scratch}, bw, blockIdx.x, pairs, N2 > 0 ? N2 : n2, split,
                        tol, max_sweeps, Cross, reinterpret_cast<T *>(smem));
}

/// 2nb = 64 with V in registers (real data), four blocks per SM: with V out of shared memory the
/// registers bound the occupancy, and capping them at 64 a thread (a few bytes spill for double)
/// for a fourth block measured faster on sm_90 than three blocks without spills.
template <class T, bool Cross>
__global__ void __launch_bounds__(kGramRegisterThreads, 4)
    gram_register_kernel(BlockedWork<T> bw, int pairs, int split, RealOf<T> tol, int max_sweeps) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ double scratch[32];
    gram_pair<T, true>(BlockTeam<double>{scratch}, bw, blockIdx.x, pairs, 64, split, tol,
                       max_sweeps, Cross, reinterpret_cast<T *>(smem));
}

template <class T, int N2, bool Cross>
cudaError_t launch_gram(const BlockedPlan &pl, const BlockedWork<T> &bw, int64_t listed, RealOf<T> tol,
                        cudaStream_t s) {
    const int n2 = 2 * pl.nb, pairs = pl.nblocks / 2;
    const unsigned grid = static_cast<unsigned>(listed * pairs);
    // GramRegisterV holds real data only; complex data keep V in shared memory.
    if constexpr (N2 == 64 && !kernels::kIsComplex<T>) {
        if (pl.inner_threads == kGramRegisterThreads) {
            const size_t smem = pair_smem<T>(n2, true);
            const cudaError_t e = allow_smem(gram_register_kernel<T, Cross>, smem);
            if (e != cudaSuccess) return e;
            gram_register_kernel<T, Cross><<<grid, kGramRegisterThreads, smem, s>>>(
                bw, pairs, pl.gram_split, tol, pl.inner_sweeps);
            return cudaGetLastError();
        }
    }
    const size_t smem = pair_smem<T>(n2, false);
    const cudaError_t e = allow_smem(gram_block_kernel<T, N2, Cross>, smem);
    if (e != cudaSuccess) return e;
    gram_block_kernel<T, N2, Cross><<<grid, pl.inner_threads, smem, s>>>(
        bw, pairs, n2, pl.gram_split, tol, pl.inner_sweeps);
    return cudaGetLastError();
}

/// The block widths the plans choose (16 and 32) get their own kernels.
template <class T, bool Cross>
cudaError_t launch_gram(const BlockedPlan &pl, const BlockedWork<T> &bw, int64_t listed, RealOf<T> tol,
                        cudaStream_t s) {
    switch (pl.nb) {
        case 32: return launch_gram<T, 64, Cross>(pl, bw, listed, tol, s);
        case 16: return launch_gram<T, 32, Cross>(pl, bw, listed, tol, s);
        default: return launch_gram<T, 0, Cross>(pl, bw, listed, tol, s);
    }
}

/// blocked_schedule for every matrix of the chunk, then the list of those that sweep again (in
/// order; with all_move the list stays every matrix, written at the first step) and the loop's
/// totals. One block: a block-wide count per 1024 matrices.
template <class T>
__global__ void __launch_bounds__(1024)
    schedule_kernel(BlockedWork<T> bw, int max_sweeps, int end_copy, bool all_move, bool first,
                    double tol) {
    __shared__ int warp_count[32];
    __shared__ int base;
    if (threadIdx.x == 0) base = 0;
    __syncthreads();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    for (int64_t b0 = 0; b0 < bw.count; b0 += blockDim.x) {
        const int64_t b = b0 + threadIdx.x;
        bool act = false;
        if (b < bw.count)
            act = blocked_schedule(bw.ctl[b], max_sweeps, end_copy, all_move, first, tol);
        const unsigned mask = __ballot_sync(0xffffffffu, act);
        if (lane == 0) warp_count[warp] = __popc(mask);
        __syncthreads();
        int before = __popc(mask & ((1u << lane) - 1u)), total = 0;
        for (int w = 0; w < warps; ++w) {
            if (w < warp) before += warp_count[w];
            total += warp_count[w];
        }
        if (all_move) {
            if (first && b < bw.count) bw.list[b] = static_cast<int>(b);
        } else if (act) {
            bw.list[base + before] = static_cast<int>(b);
        }
        __syncthreads();
        if (threadIdx.x == 0) base += total;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        bw.loop->active = base;
        bw.loop->cont = base > 0;
        bw.loop->sweeps = first ? 0 : bw.loop->sweeps + 1;
    }
}

/// The update of a round for double data at 2nb = 64, in place of cuBLAS's pointer-array GEMM.
/// That GEMM computes each 32-column half of a pair's result on its own, so it reads the pair's
/// 64 source columns twice; here a thread block takes a pair's rows in tiles of kUpdateRows,
/// reads each tile once for both halves, multiplies it by the pair's rotation block (in shared
/// memory once per block) with FP64 tensor-core MMAs (m8n8k4, k in increasing order: on sm_90
/// the sums cuBLAS forms, bit for bit) and writes the halves to the slots their blocks move to.
/// The next tile arrives (cp.async) while this one is multiplied and stored.
constexpr int kUpdateRows = 64, kUpdateThreads = 256;
// Row tiles per block: up to 8 (measured on sm_90 at 128-512 columns: 2% faster than 4 at 512,
// level with 16), fewer where the blocks would not fill the device several times over (one
// matrix of 1024 columns has 16 pairs of 32 tiles).
constexpr int kUpdateTilesMax = 8;
constexpr int64_t kUpdateMinBlocks = 1024;
constexpr int kUpdateLdX = kUpdateRows + 8;  // a warp's A-fragment loads in two wavefronts
constexpr int kUpdateLdR = 64 + 4;           // likewise its B-fragment loads
constexpr size_t kUpdateSmem = sizeof(double) * (2 * 64 * kUpdateLdX + 64 * kUpdateLdR);

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
__device__ __forceinline__ void dmma_8x8x4(double (&d)[2], double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a), "d"(b));
}

__device__ __forceinline__ void copy16_async(double *dst, const double *src) {
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src));
}
#endif

/// ptr: the update's pointer arrays of one copy (`slots` entries each: sources, rotation halves,
/// destinations); grid.x: groups of per_block row tiles, grid.y strides over the `pairs`.
__global__ void __launch_bounds__(kUpdateThreads, 2)
    update_kernel(double *const *ptr, int64_t slots, int64_t pairs, int64_t ld, int per_block) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800  // cp.async, FP64 MMA (blocked_own_update)
    constexpr int kUpdateLdO = kUpdateRows + 4;  // the accumulators' stores in two wavefronts
    extern __shared__ __align__(16) double sm_upd[];
    double *const sR = sm_upd, *const sX0 = sm_upd + 64 * kUpdateLdR;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const int fr = lane >> 2, fk = lane & 3;
    // Warp w: rows 16 (w / 2) .. + 15 (two 8-row tiles) of columns 32 (w % 2) .. + 31 (four
    // 8-column tiles): one half of the result, one destination.
    const int wr = 16 * (warp >> 1), wc = 32 * (warp & 1);
    const int64_t first = int64_t(blockIdx.x) * per_block * kUpdateRows;
    const int64_t left = (ld - first + kUpdateRows - 1) / kUpdateRows;
    const int tiles = static_cast<int>(left < per_block ? left : per_block);
    for (int64_t g = blockIdx.y; g < pairs; g += gridDim.y) {
        const double *const src = ptr[2 * g], *const R = ptr[slots + 2 * g];
        double *const dst0 = ptr[2 * slots + 2 * g], *const dst1 = ptr[2 * slots + 2 * g + 1];
        // Tile i's rows (ld is a multiple of 32: every 16-byte piece is in or out whole).
        auto fetch = [&](int i) {
            const int64_t r0 = first + int64_t(i) * kUpdateRows;
            double *const sX = sX0 + (i & 1) * 64 * kUpdateLdX;
            for (int e = t; e < 64 * kUpdateRows / 2; e += kUpdateThreads) {
                const int c = e / (kUpdateRows / 2), r = 2 * (e % (kUpdateRows / 2));
                if (r0 + r < ld) copy16_async(sX + c * kUpdateLdX + r, src + r0 + r + c * ld);
            }
            asm volatile("cp.async.commit_group;");
        };
        fetch(0);
        for (int e = t; e < 64 * 64 / 2; e += kUpdateThreads) {
            const int c = e / 32, k = 2 * (e % 32);
            *reinterpret_cast<double2 *>(sR + c * kUpdateLdR + k) =
                *reinterpret_cast<const double2 *>(R + k + c * 64);
        }
        for (int i = 0; i < tiles; ++i) {
            asm volatile("cp.async.wait_group 0;");
            __syncthreads();  // tile i (and R) in; tile i - 1's stores done with the other buffer
            if (i + 1 < tiles) fetch(i + 1);
            const double *const sX = sX0 + (i & 1) * 64 * kUpdateLdX;
            double acc[2][4][2] = {};
#pragma unroll 4
            for (int k0 = 0; k0 < 64; k0 += 4) {
                const double a0 = sX[(k0 + fk) * kUpdateLdX + wr + fr];
                const double a1 = sX[(k0 + fk) * kUpdateLdX + wr + 8 + fr];
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    const double b = sR[(wc + 8 * j + fr) * kUpdateLdR + k0 + fk];
                    dmma_8x8x4(acc[0][j], a0, b);
                    dmma_8x8x4(acc[1][j], a1, b);
                }
            }
            __syncthreads();  // every warp is done with tile i: its output stages in its place
            double *const sO = sX0 + (i & 1) * 64 * kUpdateLdX;
#pragma unroll
            for (int h = 0; h < 2; ++h)
#pragma unroll
                for (int j = 0; j < 4; ++j)
#pragma unroll
                    for (int v = 0; v < 2; ++v)
                        sO[(wc + 8 * j + 2 * fk + v) * kUpdateLdO + wr + 8 * h + fr] = acc[h][j][v];
            __syncthreads();
            const int64_t r0 = first + int64_t(i) * kUpdateRows;
            for (int e = t; e < 64 * kUpdateRows / 2; e += kUpdateThreads) {
                const int c = e / (kUpdateRows / 2), r = 2 * (e % (kUpdateRows / 2));
                if (r0 + r < ld)
                    *reinterpret_cast<double2 *>((c < 32 ? dst0 : dst1) + r0 + r + (c % 32) * ld) =
                        *reinterpret_cast<const double2 *>(sO + c * kUpdateLdO + r);
            }
        }
        __syncthreads();  // the next pair reuses the shared memory
    }
#endif
}

/// Tiles of the full-Gram test: 64 x 64 entries of the Gram matrix per block of 256 threads
/// (4 x 4 each, 16 apart), through the rows in steps of kCheckRows (128 bytes of each column a
/// step: longer steps' prefetched rows spill registers at two blocks per SM).
constexpr int kCheckTile = 64, kCheckThreads = 256;
template <class T>
constexpr int kCheckRows = static_cast<int>(128 / sizeof(T));

/// The full-Gram test (blocked_check_near) of the listed matrices that want it: block x is one
/// tile pair (I <= J) of the matrix at list position y, whose largest |cos| between distinct
/// columns of W's A part (in copy `copy`) goes into check_bits. Each tile's column norms come from
/// the same loads, so the test needs no pass of its own over the norms. Every thread sums its
/// entries in row order; the next step's rows are loaded into registers while this step's are
/// summed.
template <class T>
__global__ void __launch_bounds__(kCheckThreads, 2)
    check_kernel(BlockedWork<T> bw, BlockedPlan pl, int64_t listed, int copy, double near) {
    using Rl = RealOf<T>;
    // Column-major tiles with an odd leading dimension: the columns a warp reads at one row, 16
    // apart, fall in distinct banks.
    constexpr int kRows = kCheckRows<T>, kLd = kRows + 1;
    constexpr int kPer = kRows * kCheckTile / kCheckThreads;  // a thread's loads per tile
    __shared__ T ta[kCheckTile][kLd], tb[kCheckTile][kLd];
    __shared__ Rl na[kCheckTile], nb[kCheckTile];
    __shared__ double scratch[32];
    const int cols = static_cast<int>(pl.shape.cols);
    const int64_t rows = pl.shape.rows, ld = pl.shape.ld;
    // Tile pair x = J (J + 1) / 2 + I, I <= J.
    int J = static_cast<int>((::sqrt(8.0 * blockIdx.x + 1.0) - 1.0) / 2.0);
    while ((J + 1) * (J + 2) / 2 <= static_cast<int>(blockIdx.x)) ++J;
    while (J * (J + 1) / 2 > static_cast<int>(blockIdx.x)) --J;
    const int I = static_cast<int>(blockIdx.x) - J * (J + 1) / 2;
    const int i0 = I * kCheckTile, j0 = J * kCheckTile;
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    for (int64_t pos = blockIdx.y; pos < listed; pos += gridDim.y) {
        const int64_t b = bw.list[pos];
        BlockedControl *ctl = bw.ctl + b;
        if (!blocked_check_wanted(*ctl, near)) continue;  // the whole block
        const T *W = (copy ? bw.w[1] : bw.w[0]) + b * pl.mat_elems;  // no local copy of bw
        T la[kPer], lb[kPer];
        auto load = [&](int64_t k0) {
#pragma unroll
            for (int e = 0; e < kPer; ++e) {
                const int idx = threadIdx.x + e * kCheckThreads;
                const int kk = idx % kRows, col = idx / kRows;
                const bool in = k0 + kk < rows;
                la[e] = in && i0 + col < cols ? W[(i0 + col) * ld + k0 + kk] : T(Rl(0));
                lb[e] = in && j0 + col < cols ? W[(j0 + col) * ld + k0 + kk] : T(Rl(0));
            }
        };
        T acc[4][4];
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int c = 0; c < 4; ++c) acc[r][c] = T(Rl(0));
        Rl norm = Rl(0);  // threads < 64: column i0 + t's, 64..127: column j0 + t - 64's
        load(0);
        for (int64_t k0 = 0; k0 < rows; k0 += kRows) {
#pragma unroll
            for (int e = 0; e < kPer; ++e) {
                const int idx = threadIdx.x + e * kCheckThreads;
                ta[idx / kRows][idx % kRows] = la[e];
                tb[idx / kRows][idx % kRows] = lb[e];
            }
            __syncthreads();
            if (k0 + kRows < rows) load(k0 + kRows);
            if (threadIdx.x < 2 * kCheckTile) {
                const T *col =
                    threadIdx.x < kCheckTile ? ta[threadIdx.x] : tb[threadIdx.x - kCheckTile];
                for (int kk = 0; kk < kRows; ++kk)
                    norm += kernels::real(kernels::conj(col[kk]) * col[kk]);
            }
#pragma unroll 4
            for (int kk = 0; kk < kRows; ++kk) {
                T av[4], bv[4];
#pragma unroll
                for (int r = 0; r < 4; ++r) av[r] = kernels::conj(ta[ty + 16 * r][kk]);
#pragma unroll
                for (int c = 0; c < 4; ++c) bv[c] = tb[tx + 16 * c][kk];
#pragma unroll
                for (int r = 0; r < 4; ++r)
#pragma unroll
                    for (int c = 0; c < 4; ++c) acc[r][c] = acc[r][c] + av[r] * bv[c];
            }
            __syncthreads();
        }
        if (threadIdx.x < kCheckTile) na[threadIdx.x] = norm;
        else if (threadIdx.x < 2 * kCheckTile) nb[threadIdx.x - kCheckTile] = norm;
        __syncthreads();
        Rl off = Rl(0);
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                const int i = ty + 16 * r, j = tx + 16 * c;
                if (i0 + i >= j0 + j || j0 + j >= cols) continue;  // distinct pairs, once each
                const Rl cs = kernels::gram_cos(acc[r][c], na[i], nb[j]);
                if (cs > off) off = cs;
            }
        off = BlockTeam<double>{scratch}.max(off);
        if (threadIdx.x == 0) {
            atomic_max_nonneg(&ctl->check_bits, static_cast<double>(off));
            ctl->checked = 1;
        }
        __syncthreads();  // the tiles and norms are reused by the next matrix
    }
}

/// w restricted to columns [c0, c0 + count): the finish's per-column steps run on such slices.
template <class T>
__device__ JacobiWork<T, int64_t> slice(JacobiWork<T, int64_t> w, int c0, int count) {
    w.w += int64_t(c0) * w.ld;
    w.norm += c0;
    w.dot += c0;
    w.pos += c0;
    w.cols = count;
    return w;
}

__device__ int slice_count(int cols) {
    const int c0 = blockIdx.x * kSliceCols;
    return cols - c0 < kSliceCols ? cols - c0 : kSliceCols;
}

template <class T>
__global__ void norms_kernel(BlockedWork<T> bw, BlockedPlan pl, bool normalise) {
    __shared__ double scratch[32];
    const BlockTeam<double> t{scratch};
    const int c0 = blockIdx.x * kSliceCols;
    for (int64_t b = blockIdx.y; b < bw.count; b += gridDim.y) {
        const BlockedControl &c = bw.ctl[b];
        if (c.nonfinite) continue;
        const JacobiWork<T, int64_t> w = bw.view(pl, b, c.copy);
        kernels::jacobi_column_norms(t, WarpTeam{}, slice(w, c0, slice_count(w.cols)), normalise);
    }
}

/// A block per matrix: completion of zero columns (where U is wanted), the descending order,
/// info and the statistics.
template <class T>
__global__ void __launch_bounds__(1024)
    rank_kernel(BlockedWork<T> bw, BlockedPlan pl, bool complete, int *info,
                JacobiStatsDev *stats) {
    __shared__ double scratch[32];
    const BlockTeam<double> t{scratch};
    for (int64_t b = blockIdx.x; b < bw.count; b += gridDim.x) {
        const BlockedControl &c = bw.ctl[b];
        if (c.nonfinite) continue;
        const JacobiWork<T, int64_t> w = bw.view(pl, b, c.copy);
        if (complete) kernels::jacobi_complete(t, w);
        kernels::jacobi_rank_columns(t, w);
        if (threadIdx.x == 0) {
            info[b] = c.converged ? 0 : c.sweeps;
            if (stats)
                record_jacobi_stats(stats, c.sweeps,
                                    blocked_bits_value(c.off_last));
        }
        t.sync();  // the next matrix reuses the scratch
    }
}

template <class T>
__global__ void store_kernel(BlockedWork<T> bw, BlockedPlan pl, GesvjProblem<T> p) {
    __shared__ double scratch[32];
    const BlockTeam<double> t{scratch};
    const bool tr = p.m < p.n;
    const int c0 = blockIdx.x * kSliceCols;
    for (int64_t b = blockIdx.y; b < bw.count; b += gridDim.y) {
        const BlockedControl &c = bw.ctl[b];
        if (c.nonfinite) continue;
        const JacobiWork<T, int64_t> w = bw.view(pl, b, c.copy);
        T *U = p.wantu ? p.U + b * p.sU : nullptr, *V = p.wantv ? p.V + b * p.sV : nullptr;
        T *uw = tr ? V : U, *vw = tr ? U : V;
        const int64_t lduw = tr ? p.ldv : p.ldu, ldvw = tr ? p.ldu : p.ldv;
        int e1, e2;
        kernels::jacobi_scale_exponents(
            w, static_cast<RealOf<T>>(blocked_bits_value(c.amax_bits)),
            e1, e2);
        kernels::jacobi_store(t, WarpTeam{}, slice(w, c0, slice_count(w.cols)), e1, e2,
                              p.S + b * p.sS, uw, lduw, vw, ldvw);
    }
}

/// NaN outputs (jacobi_store_nan, the team paths' own) and info of the matrices holding NaN or
/// Inf; a block per matrix.
template <class T>
__global__ void nan_kernel(GesvjProblem<T> p, BlockedWork<T> bw) {
    __shared__ double scratch[32];
    for (int64_t b = blockIdx.x; b < bw.count; b += gridDim.x) {
        if (!bw.ctl[b].nonfinite) continue;
        kernels::JacobiIO<T> io{p.m,
                                p.n,
                                p.A + b * p.sA,
                                p.lda,
                                p.S + b * p.sS,
                                p.wantu ? p.U + b * p.sU : nullptr,
                                p.ldu,
                                p.wantv ? p.V + b * p.sV : nullptr,
                                p.ldv};
        kernels::jacobi_store_nan(BlockTeam<double>{scratch}, WarpTeam{}, io);
        if (threadIdx.x == 0) p.info[b] = -1;
        __syncthreads();
    }
}

unsigned grid_y(int64_t v) {
    return static_cast<unsigned>(v < 1 ? 1 : v < 65535 ? v : 65535);
}

/// Blocks of `threads` covering v, at most cap.
unsigned grid_x(int64_t v, int threads, int64_t cap) {
    const int64_t b = (v + threads - 1) / threads;
    return static_cast<unsigned>(b < 1 ? 1 : b < cap ? b : cap);
}

template <class T>
cudaError_t launch_pointers(const BlockedPlan &pl, const BlockedWork<T> &bw, bool all,
                            cudaStream_t s) {
    const int64_t most = bw.count * (pl.nblocks > pl.nblocks / 2 * pl.gram_split
                                         ? pl.nblocks
                                         : pl.nblocks / 2 * pl.gram_split);
    pointers_kernel<T><<<grid_x(most, 256, 4096), 256, 0, s>>>(bw, pl, all);
    return cudaGetLastError();
}

template <class T>
cudaError_t launch_schedule(const BlockedWork<T> &bw, int max_sweeps, int end_copy, bool all_move,
                            bool first, double tol, cudaStream_t s) {
    const int threads = bw.count >= 1024 ? 1024 : static_cast<int>((bw.count + 31) / 32 * 32);
    schedule_kernel<T><<<1, threads, 0, s>>>(bw, max_sweeps, end_copy, all_move, first, tol);
    return cudaGetLastError();
}

}  // namespace

template <class T>
cudaError_t blocked_update(const BlockedPlan &pl, const BlockedWork<T> &bw, int64_t listed, int c,
                           cudaStream_t s) {
    if constexpr (std::is_same_v<T, double>) {
        const cudaError_t e = allow_smem(update_kernel, kUpdateSmem);
        if (e != cudaSuccess) return e;
        const int64_t pairs = listed * (pl.nblocks / 2);
        const int64_t tiles = (pl.shape.ld + kUpdateRows - 1) / kUpdateRows;
        int per = static_cast<int>(pairs * tiles / kUpdateMinBlocks);
        per = per < 1 ? 1 : per > kUpdateTilesMax ? kUpdateTilesMax : per;
        const dim3 grid(static_cast<unsigned>((tiles + per - 1) / per), grid_y(pairs));
        update_kernel<<<grid, kUpdateThreads, kUpdateSmem, s>>>(bw.ptr[c], pl.batch * pl.nblocks,
                                                                 pairs, pl.shape.ld, per);
        return cudaGetLastError();
    } else {
        return cudaErrorNotSupported;
    }
}

template <class T>
cudaError_t blocked_prepare(const BlockedPlan &pl, const GesvjProblem<T> &p,
                            const BlockedWork<T> &bw, bool all_move, cudaStream_t s) {
    const kernels::JacobiShape &sh = pl.shape;
    cudaError_t e =
        cudaMemsetAsync(bw.w[0], 0, sizeof(T) * static_cast<size_t>(pl.mat_elems * bw.count), s);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(bw.ctl, 0, sizeof(BlockedControl) * static_cast<size_t>(bw.count), s);
    if (e == cudaSuccess) e = cudaMemsetAsync(bw.loop, 0, sizeof(BlockedLoop), s);
    if (e != cudaSuccess) return e;
    const dim3 tiles(static_cast<unsigned>((sh.rows + kTile - 1) / kTile),
                     grid_y((sh.cols + kTile - 1) / kTile), grid_y(bw.count));
    load_kernel<T><<<tiles, dim3(kTile, 8), 0, s>>>(p, bw, pl);
    scale_kernel<T><<<dim3(grid_x(sh.rows, 256, 64), grid_y(sh.cols), grid_y(bw.count)), 256, 0,
                      s>>>(bw, pl);
    e = launch_schedule<T>(bw, p.max_sweeps, 0, all_move, true, p.tol, s);
    if (e == cudaSuccess) e = launch_pointers<T>(pl, bw, all_move, s);
    return e;
}

template <class T>
cudaError_t blocked_rotations(const BlockedPlan &pl, const BlockedWork<T> &bw, int64_t listed,
                              RealOf<T> tol, bool cross, cudaStream_t s) {
    return cross ? launch_gram<T, true>(pl, bw, listed, tol, s)
                 : launch_gram<T, false>(pl, bw, listed, tol, s);
}

template <class T>
cudaError_t blocked_sweep_end(const BlockedPlan &pl, const BlockedWork<T> &bw, int64_t listed,
                              RealOf<T> tol, int max_sweeps, int data_copy, int end_copy,
                              bool all_move, cudaStream_t s) {
    cudaError_t e = cudaSuccess;
    if (pl.check) {
        const int tiles = static_cast<int>((pl.shape.cols + kCheckTile - 1) / kCheckTile);
        check_kernel<T><<<dim3(static_cast<unsigned>(tiles * (tiles + 1) / 2), grid_y(listed)),
                          kCheckThreads, 0, s>>>(bw, pl, listed, data_copy,
                                                 blocked_check_near(static_cast<double>(tol)));
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = launch_schedule<T>(bw, max_sweeps, end_copy, all_move, false,
                               static_cast<double>(tol), s);
    if (e != cudaSuccess) return e;
    if (!all_move) return launch_pointers<T>(pl, bw, false, s);
    return cudaMemcpyAsync(bw.w[0], bw.w[1], sizeof(T) * static_cast<size_t>(pl.mat_elems * bw.count),
                           cudaMemcpyDeviceToDevice, s);
}

template <class T>
cudaError_t blocked_finish(const BlockedPlan &pl, const GesvjProblem<T> &p,
                           const BlockedWork<T> &bw, cudaStream_t s) {
    const bool tr = p.m < p.n;
    const bool complete = (tr ? p.V : p.U) != nullptr;  // U's working copy is wanted
    const unsigned slices = static_cast<unsigned>((pl.shape.cols + kSliceCols - 1) / kSliceCols);
    const dim3 grid(slices, grid_y(bw.count));
    norms_kernel<T><<<grid, 32 * kSliceCols, 0, s>>>(bw, pl, complete);
    rank_kernel<T><<<grid_x(bw.count, 1, INT32_MAX), 1024, 0, s>>>(bw, pl, complete, p.info,
                                                                     p.stats);
    store_kernel<T><<<grid, 32 * kSliceCols, 0, s>>>(bw, pl, p);
    nan_kernel<T><<<grid_x(bw.count, 1, 65535), 256, 0, s>>>(p, bw);
    return cudaGetLastError();
}

#define GPUSVD_INSTANTIATE(T)                                                                  \
    template cudaError_t blocked_prepare<T>(const BlockedPlan &, const GesvjProblem<T> &,      \
                                            const BlockedWork<T> &, bool, cudaStream_t);       \
    template cudaError_t blocked_update<T>(const BlockedPlan &, const BlockedWork<T> &, int64_t,  \
                                           int, cudaStream_t);                                 \
    template cudaError_t blocked_rotations<T>(const BlockedPlan &, const BlockedWork<T> &,     \
                                              int64_t, RealOf<T>, bool, cudaStream_t);         \
    template cudaError_t blocked_sweep_end<T>(const BlockedPlan &, const BlockedWork<T> &,     \
                                              int64_t, RealOf<T>, int, int, int, bool,         \
                                              cudaStream_t);                                   \
    template cudaError_t blocked_finish<T>(const BlockedPlan &, const GesvjProblem<T> &,       \
                                           const BlockedWork<T> &, cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
