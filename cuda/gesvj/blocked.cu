// Kernels of the blocked one-sided Jacobi (see blocked_plan.hpp): loading and scaling W, the
// per-pair Gram solves (team code of src/kernels/jacobi_gram.hpp), and the finish, which runs
// jacobi_finish.hpp's steps on slices of W's columns, one thread block per slice.
#include <cuda_runtime.h>

#include "common/launch.cuh"
#include "common/teams.cuh"
#include "gesvj/blocked.hpp"
#include "kernels/jacobi_finish.hpp"
#include "kernels/jacobi_gram.hpp"
#include "kernels/jacobi_team.hpp"

namespace gpusvd {
namespace gpu {
namespace {

using kernels::BlockTeam;
using kernels::JacobiWork;
using kernels::Real;
using kernels::WarpTeam;

constexpr int kTile = 32;
constexpr int kSliceCols = 8;  // columns per block in the finish (a warp each)

/// W's A part from A (tr: from A^T, through a shared tile so both sides stay coalesced), with
/// max |a_ij| and the NaN/Inf flag. Block (32, 8) per 32 x 32 tile of W; grid.y strides over
/// the column tiles.
template <class T>
__global__ void load_kernel(const T *A, int64_t lda, bool tr, T *W, int64_t ld, int64_t rows,
                            int64_t cols, BlockedControl *ctl) {
    __shared__ T tile[kTile][kTile + 1];
    const int64_t i0 = int64_t(blockIdx.x) * kTile;
    T big = T(0);
    int bad = 0;
    for (int64_t j0 = int64_t(blockIdx.y) * kTile; j0 < cols; j0 += int64_t(gridDim.y) * kTile) {
        for (int y = threadIdx.y; y < kTile; y += blockDim.y) {
            // Source entry: W(i0 + x, j0 + y), or A(j0 + x, i0 + y) = W(i0 + y, j0 + x) when
            // transposed (A's rows are W's columns).
            const int64_t si = tr ? j0 + threadIdx.x : i0 + threadIdx.x;
            const int64_t sj = tr ? i0 + y : j0 + y;
            const bool in = tr ? (si < cols && sj < rows) : (si < rows && sj < cols);
            const T v = in ? A[si + sj * lda] : T(0);
            bad |= !isfinite(v);
            if (Real<T>::abs(v) > big) big = Real<T>::abs(v);
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
        const T w = __shfl_xor_sync(0xffffffffu, big, o);
        big = w > big ? w : big;
        bad |= __shfl_xor_sync(0xffffffffu, bad, o);
    }
    if (threadIdx.x == 0) {
        atomic_max_nonneg(&ctl->amax_bits, static_cast<double>(big));
        if (bad) atomicOr(&ctl->nonfinite, 1);
    }
}

/// The power-of-two scaling of jacobi_svd (same exponents) on W's A part; the V part's identity.
template <class T>
__global__ void scale_kernel(JacobiWork<T, int64_t> w, const BlockedControl *ctl) {
    int e1 = 0, e2 = 0;
    if (!ctl->nonfinite)
        kernels::jacobi_scale_exponents(w, static_cast<T>(__longlong_as_double(ctl->amax_bits)), e1,
                                        e2);
    const T f1 = Real<T>::ldexp(T(1), e1), f2 = Real<T>::ldexp(T(1), e2);
    for (int64_t j = blockIdx.y; j < w.cols; j += gridDim.y) {
        T *x = w.w + j * w.ld;
        if (blockIdx.x == 0 && threadIdx.x == 0 && w.vrows > 0) x[w.voff + j] = T(1);
        if (e1 == 0 && e2 == 0) continue;
        for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < w.rows;
             i += int64_t(gridDim.x) * blockDim.x)
            x[i] = x[i] * f1 * f2;  // f1 first, as jacobi_apply_scale
    }
}

/// Pointer arrays of the update GEMM for both directions of the ping-pong: slot s's half of pair
/// s / 2 goes to the slot its block moves to.
template <class T>
__global__ void pointers_kernel(BlockedWork<T> bw, int64_t ld, int nb, int nblocks) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nblocks) return;
    const int64_t n2 = 2 * nb, k = s / 2, h = s % 2;
    for (int c = 0; c < 2; ++c) {
        T **a = bw.ptr[c];
        a[s] = bw.w[c] + 2 * k * nb * ld;
        a[nblocks + s] = bw.rot + k * n2 * n2 + h * nb * n2;
        a[2 * nblocks + s] = bw.w[1 - c] + int64_t(blocked_next_slot(s, nblocks)) * nb * ld;
    }
}

/// Pointer arrays of the split Gram GEMM: chunk s of pair k (rows [s*chunk, (s+1)*chunk) of its
/// 2nb columns) in either copy, and its partial Gram block.
template <class T>
__global__ void gram_pointers_kernel(BlockedWork<T> bw, int64_t ld, int n2, int pairs, int split,
                                     int64_t chunk) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pairs * split) return;
    const int64_t k = i / split, c0 = (i % split) * chunk;
    bw.gptr[0][i] = bw.w[0] + k * n2 * ld + c0;
    bw.gptr[1][i] = bw.w[1] + k * n2 * ld + c0;
    bw.gptr[2][i] = bw.gram + int64_t(i) * n2 * n2;
}

/// Shared memory of one pair's solve: G and V with padded columns (no bank conflicts on the
/// row updates), the rotation scratch.
template <class T>
__host__ __device__ size_t pair_smem(int n2) {
    return sizeof(T) * (2 * size_t(n2) * (n2 + 1) + 2 * size_t(n2));
}

/// Pair k's Gram block into shared memory, gram_jacobi by team t, V out for the update GEMM.
template <class T, class Team>
__device__ void gram_pair(const Team &t, const BlockedWork<T> &bw, int64_t k, int n2, int split,
                          T tol, int max_sweeps, T *smem) {
    const int ld = n2 + 1;
    T *G = smem, *V = G + n2 * ld, *rot = V + n2 * ld;
    const T *g = bw.gram + k * split * n2 * n2;
    T *v = bw.rot + k * n2 * n2;
    if (bw.ctl->nonfinite) {  // NaN/Inf: no sweep is meaningful; keep the GEMMs harmless
        for (int idx = t.rank(); idx < n2 * n2; idx += t.size())
            v[idx] = idx % n2 == idx / n2 ? T(1) : T(0);
        return;
    }
    for (int idx = t.rank(); idx < n2 * n2; idx += t.size()) {
        T sum = g[idx];
        for (int c = 1; c < split; ++c) sum += g[c * n2 * n2 + idx];  // fixed order
        G[idx % n2 + idx / n2 * ld] = sum;
    }
    t.sync();
    const kernels::GramResult<T> r =
        kernels::gram_jacobi(t, G, ld, V, ld, n2, tol, max_sweeps, rot);
    for (int idx = t.rank(); idx < n2 * n2; idx += t.size()) v[idx] = V[idx % n2 + idx / n2 * ld];
    if (t.rank() == 0) {
        if (r.rotated) atomicAdd(&bw.ctl->rotated, 1);
        atomic_max_nonneg(&bw.ctl->off_bits, static_cast<double>(r.off));
    }
}

/// A block per pair. (A warp per pair at 2nb = 32 measured about twice as slow on sm_90: its
/// lanes each rotate 4x the entries per round.)
template <class T>
__global__ void gram_block_kernel(BlockedWork<T> bw, int n2, int split, T tol, int max_sweeps) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ double scratch[32];
    gram_pair(BlockTeam<double>{scratch}, bw, blockIdx.x, n2, split, tol, max_sweeps,
              reinterpret_cast<T *>(smem));
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
__global__ void norms_kernel(JacobiWork<T, int64_t> w, bool normalise, const BlockedControl *gate) {
    if (gate && gate->nonfinite) return;
    __shared__ double scratch[32];
    const BlockTeam<double> t{scratch};
    const int c0 = blockIdx.x * kSliceCols;
    kernels::jacobi_column_norms(t, WarpTeam{}, slice(w, c0, slice_count(w.cols)), normalise);
}

/// One block: completion of zero columns (where U is wanted), the descending order, info and
/// the statistics.
template <class T>
__global__ void __launch_bounds__(1024)
    rank_kernel(JacobiWork<T, int64_t> w, bool complete, int *info, int info_value,
                JacobiStatsDev *stats, int sweeps, double off, const BlockedControl *dev) {
    if (dev) {  // the loop's outcome as the graph path left it
        if (dev->nonfinite) return;
        if (!dev->converged) info_value = dev->sweeps;
        sweeps = dev->sweeps;
        off = __longlong_as_double(static_cast<long long>(dev->off_last));
    }
    __shared__ double scratch[32];
    const BlockTeam<double> t{scratch};
    if (complete) kernels::jacobi_complete(t, w);
    kernels::jacobi_rank_columns(t, w);
    if (threadIdx.x == 0) {
        info[0] = info_value;
        if (stats) record_jacobi_stats(stats, sweeps, off);
    }
}

template <class T>
__global__ void store_kernel(JacobiWork<T, int64_t> w, const BlockedControl *ctl, bool gated,
                             T *S, T *uw, int64_t lduw, T *vw, int64_t ldvw) {
    if (gated && ctl->nonfinite) return;
    __shared__ double scratch[32];
    const BlockTeam<double> t{scratch};
    int e1, e2;
    kernels::jacobi_scale_exponents(w, static_cast<T>(__longlong_as_double(ctl->amax_bits)), e1,
                                    e2);
    const int c0 = blockIdx.x * kSliceCols;
    kernels::jacobi_store(t, WarpTeam{}, slice(w, c0, slice_count(w.cols)), e1, e2, S, uw, lduw, vw,
                          ldvw);
}

/// NaN outputs (jacobi_store_nan, the team paths' own) and info; one block: a rare case.
template <class T>
__global__ void nan_kernel(GesvjProblem<T> p, const BlockedControl *gate) {
    if (gate && !gate->nonfinite) return;
    __shared__ double scratch[32];
    kernels::JacobiIO<T> io{p.m, p.n, p.A, p.lda, p.S, p.U, p.ldu, p.V, p.ldv};
    kernels::jacobi_store_nan(BlockTeam<double>{scratch}, WarpTeam{}, io);
    if (threadIdx.x == 0) p.info[0] = -1;
}

__global__ void sweep_end_kernel(BlockedControl *ctl, int max_sweeps) {
    const int sweeps = ctl->sweeps + 1;
    ctl->sweeps = sweeps;
    ctl->converged = ctl->rotated == 0;
    ctl->cont = !ctl->nonfinite && ctl->rotated != 0 && sweeps < max_sweeps;
    ctl->off_last = ctl->off_bits;
    ctl->off_bits = 0;
    ctl->rotated = 0;
}

unsigned grid_y(int64_t v) {
    return static_cast<unsigned>(v < 65535 ? v : 65535);
}

/// Blocks of `threads` covering v, at most cap.
unsigned grid_x(int64_t v, int threads, int64_t cap) {
    const int64_t b = (v + threads - 1) / threads;
    return static_cast<unsigned>(b < cap ? b : cap);
}

}  // namespace

template <class T>
cudaError_t blocked_prepare(const BlockedPlan &pl, const GesvjProblem<T> &p,
                            const BlockedWork<T> &bw, cudaStream_t s) {
    const kernels::JacobiShape &sh = pl.shape;
    cudaError_t e = cudaMemsetAsync(bw.w[0], 0, sizeof(T) * sh.ld * pl.cols_padded, s);
    if (e == cudaSuccess) e = cudaMemsetAsync(bw.ctl, 0, sizeof(BlockedControl), s);
    if (e != cudaSuccess) return e;
    const dim3 tiles(static_cast<unsigned>((sh.rows + kTile - 1) / kTile),
                     grid_y((sh.cols + kTile - 1) / kTile));
    load_kernel<T><<<tiles, dim3(kTile, 8), 0, s>>>(p.A, p.lda, p.m < p.n, bw.w[0], sh.ld, sh.rows,
                                                    sh.cols, bw.ctl);
    scale_kernel<T><<<dim3(grid_x(sh.rows, 256, 64), grid_y(sh.cols)), 256, 0, s>>>(
        bw.finish_view(pl, 0), bw.ctl);
    pointers_kernel<T><<<(pl.nblocks + 127) / 128, 128, 0, s>>>(bw, sh.ld, pl.nb, pl.nblocks);
    if (pl.gram_split > 1) {
        const int chunks = pl.nblocks / 2 * pl.gram_split;
        gram_pointers_kernel<T><<<(chunks + 127) / 128, 128, 0, s>>>(
            bw, sh.ld, 2 * pl.nb, pl.nblocks / 2, pl.gram_split, sh.voff / pl.gram_split);
    }
    return cudaGetLastError();
}

template <class T>
cudaError_t blocked_rotations(const BlockedPlan &pl, const BlockedWork<T> &bw, T tol,
                              cudaStream_t s) {
    const int n2 = 2 * pl.nb;
    const int64_t pairs = pl.nblocks / 2;
    const size_t smem = pair_smem<T>(n2);
    const cudaError_t e = allow_smem(gram_block_kernel<T>, smem);
    if (e != cudaSuccess) return e;
    gram_block_kernel<T><<<static_cast<unsigned>(pairs), pl.inner_threads, smem, s>>>(
        bw, n2, pl.gram_split, tol, pl.inner_sweeps);
    return cudaGetLastError();
}

template <class T>
cudaError_t blocked_finish(const BlockedPlan &pl, const GesvjProblem<T> &p,
                           const BlockedWork<T> &bw, int c, const SweepOutcome &o,
                           cudaStream_t s) {
    const bool tr = p.m < p.n;
    T *uw = tr ? p.V : p.U, *vw = tr ? p.U : p.V;
    const int64_t lduw = tr ? p.ldv : p.ldu, ldvw = tr ? p.ldu : p.ldv;
    const JacobiWork<T, int64_t> w = bw.finish_view(pl, c);
    const unsigned slices = static_cast<unsigned>((w.cols + kSliceCols - 1) / kSliceCols);
    const BlockedControl *dev = o.on_device ? bw.ctl : nullptr;
    norms_kernel<T><<<slices, 32 * kSliceCols, 0, s>>>(w, uw != nullptr, dev);
    rank_kernel<T><<<1, 1024, 0, s>>>(w, uw != nullptr, p.info, o.info, p.stats, o.sweeps, o.off,
                                      dev);
    store_kernel<T><<<slices, 32 * kSliceCols, 0, s>>>(w, bw.ctl, o.on_device, p.S, uw, lduw, vw,
                                                       ldvw);
    return cudaGetLastError();
}

template <class T>
cudaError_t blocked_nan(const GesvjProblem<T> &p, const BlockedWork<T> &bw, bool gated,
                        cudaStream_t s) {
    nan_kernel<T><<<1, 256, 0, s>>>(p, gated ? bw.ctl : nullptr);
    return cudaGetLastError();
}

template <class T>
cudaError_t blocked_sweep_end(const BlockedPlan &pl, const BlockedWork<T> &bw, int max_sweeps,
                              cudaStream_t s) {
    sweep_end_kernel<<<1, 1, 0, s>>>(bw.ctl, max_sweeps);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    return cudaMemcpyAsync(bw.w[0], bw.w[1], sizeof(T) * pl.shape.ld * pl.cols_padded,
                           cudaMemcpyDeviceToDevice, s);
}

#define GPUSVD_INSTANTIATE(T)                                                                 \
    template cudaError_t blocked_prepare<T>(const BlockedPlan &, const GesvjProblem<T> &,     \
                                            const BlockedWork<T> &, cudaStream_t);            \
    template cudaError_t blocked_rotations<T>(const BlockedPlan &, const BlockedWork<T> &, T, \
                                              cudaStream_t);                                  \
    template cudaError_t blocked_finish<T>(const BlockedPlan &, const GesvjProblem<T> &,      \
                                           const BlockedWork<T> &, int, const SweepOutcome &, \
                                           cudaStream_t);                                     \
    template cudaError_t blocked_nan<T>(const GesvjProblem<T> &, const BlockedWork<T> &, bool, \
                                        cudaStream_t);                                        \
    template cudaError_t blocked_sweep_end<T>(const BlockedPlan &, const BlockedWork<T> &, int, \
                                              cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
