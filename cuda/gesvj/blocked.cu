// Kernels of the blocked one-sided Jacobi (see blocked_plan.hpp), for one matrix or a chunk of a
// batch: loading and scaling W, the per-pair Gram solves (team code of
// src/kernels/jacobi_gram.hpp), the schedule of the sweeps, and the finish, which runs
// jacobi_finish.hpp's steps on slices of each matrix's columns, one thread block per slice.
// Grids stride over the matrices in y or z (at most 65535 blocks there).
#include <cuda_runtime.h>

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
                static_cast<RealOf<T>>(__longlong_as_double(static_cast<long long>(c.amax_bits))),
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
    schedule_kernel(BlockedWork<T> bw, int max_sweeps, int end_copy, bool all_move, bool first) {
    __shared__ int warp_count[32];
    __shared__ int base;
    if (threadIdx.x == 0) base = 0;
    __syncthreads();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    for (int64_t b0 = 0; b0 < bw.count; b0 += blockDim.x) {
        const int64_t b = b0 + threadIdx.x;
        bool act = false;
        if (b < bw.count) act = blocked_schedule(bw.ctl[b], max_sweeps, end_copy, all_move, first);
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
                                    __longlong_as_double(static_cast<long long>(c.off_last)));
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
            w, static_cast<RealOf<T>>(__longlong_as_double(static_cast<long long>(c.amax_bits))),
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
                            bool first, cudaStream_t s) {
    const int threads = bw.count >= 1024 ? 1024 : static_cast<int>((bw.count + 31) / 32 * 32);
    schedule_kernel<T><<<1, threads, 0, s>>>(bw, max_sweeps, end_copy, all_move, first);
    return cudaGetLastError();
}

}  // namespace

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
    e = launch_schedule<T>(bw, p.max_sweeps, 0, all_move, true, s);
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
cudaError_t blocked_sweep_end(const BlockedPlan &pl, const BlockedWork<T> &bw, int max_sweeps,
                              int end_copy, bool all_move, cudaStream_t s) {
    cudaError_t e = launch_schedule<T>(bw, max_sweeps, end_copy, all_move, false, s);
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
    template cudaError_t blocked_rotations<T>(const BlockedPlan &, const BlockedWork<T> &,     \
                                              int64_t, RealOf<T>, bool, cudaStream_t);         \
    template cudaError_t blocked_sweep_end<T>(const BlockedPlan &, const BlockedWork<T> &, int, \
                                              int, bool, cudaStream_t);                        \
    template cudaError_t blocked_finish<T>(const BlockedPlan &, const GesvjProblem<T> &,       \
                                           const BlockedWork<T> &, cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
