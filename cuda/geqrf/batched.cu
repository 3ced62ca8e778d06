// Batched GPU Gram-Schmidt QR: the kernels around the team algorithm of
// src/kernels/qr_team.hpp and the launcher that picks one (plan.hpp). Real and complex elements
// (kernels::Complex); the register path is real only.
#include <cuda_runtime.h>

#include <cstdlib>

#include "common/launch.cuh"
#include "common/teams.cuh"
#include "geqrf/geqrf.hpp"
#include "geqrf/plan.hpp"
#include "kernels/qr_team.hpp"

namespace gpusvd {
namespace gpu {
namespace {

using kernels::BlockTeam;
using kernels::QrIO;
using kernels::QrShape;
using kernels::WarpTeam;

template <class T>
__device__ QrIO<T> problem_io(const GeqrfProblem<T> &p, int64_t b) {
    QrIO<T> io;
    io.m = p.m;
    io.n = p.n;
    io.A = p.A + b * p.sA;
    io.lda = p.lda;
    io.R = p.R + b * p.sR;
    io.ldr = p.ldr;
    return io;
}

/// One warp per matrix, `mats` matrices per block, each in its own slice of shared memory.
template <class T>
__global__ void __launch_bounds__(256)
    geqrf_warp_kernel(GeqrfProblem<T> p, QrShape s, int mats, size_t matrix_bytes) {
    extern __shared__ __align__(16) unsigned char smem[];
    const int warp = threadIdx.x >> 5;
    T *base = reinterpret_cast<T *>(smem + warp * matrix_bytes);
    const WarpTeam t;
    for (int64_t b = int64_t(blockIdx.x) * mats + warp; b < p.batch;
         b += int64_t(gridDim.x) * mats) {
        const int info = kernels::qr_team<T, int>(t, problem_io(p, b), s, base, p.reorth);
        if (t.rank() == 0) p.info[b] = info;
    }
}

/// One block per matrix in shared memory.
template <class T>
__global__ void geqrf_block_kernel(GeqrfProblem<T> p, QrShape s) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ double scratch[32];
    T *base = reinterpret_cast<T *>(smem);
    const BlockTeam<double> t{scratch};
    for (int64_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
        const int info = kernels::qr_team<T, int>(t, problem_io(p, b), s, base, p.reorth);
        if (t.rank() == 0) p.info[b] = info;
    }
}

/// One block per matrix, in place in the caller's A and R, its vectors in its workspace slot;
/// any size.
template <class T>
__global__ void geqrf_global_kernel(GeqrfProblem<T> p, QrShape s, unsigned char *ws,
                                    size_t matrix_bytes) {
    __shared__ double scratch[32];
    T *base = reinterpret_cast<T *>(ws + blockIdx.x * matrix_bytes);
    const BlockTeam<double> t{scratch};
    for (int64_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
        const int info = kernels::qr_team<T, int64_t>(t, problem_io(p, b), s, base, p.reorth);
        if (t.rank() == 0) p.info[b] = info;
    }
}

// ------------------------------------------------------------------------------------------------
// Register path (kWarpReg): m, n <= 32, one warp per matrix, lane c holds column c in registers
// (a[MR], fully unrolled loops, rows >= m kept zero and never touched). The same arithmetic as
// qr_team.hpp, operation for operation (step j projects with the unnormalised v_j and 1/|v_j|, the
// owner scales v_j afterwards), with q_j broadcast through shared memory. Whatever the team code
// treats as rare (NaN/Inf, a dependent column, a norm below safe_min or one whose sum of squares
// needs the scaled recomputation) abandons the fast path: A and R are untouched until the final
// stores, so the warp then runs qr_team in place on the caller's arrays (the same result the
// shared-memory warp path would give).
// ------------------------------------------------------------------------------------------------

template <class T, int MR>
struct alignas(16) RegWarpSmem {
    T tile[(MR + 1) * 32];  // A / Q staging (ld MR + 1, odd); R (k x n) during the passes
    alignas(16) T vec[2][MR + 2];  // broadcast of v_j, |v_j|, |a_j| at pass start (double-buffered)
    T rdiag[MR];            // MGS2: R2's diagonal
};

/// Interleaved partial sums in the register path's dot products and norms: two halve the
/// dependent chain of FMAs (measured faster than one on sm_90 for 32x32 double). The
/// summation order then differs from qr_team's, within the same error bounds.
constexpr int kRegChains = 2;

/// dot(x, y) over all MR rows (rows >= m are zero in both: exact no-ops) in kRegChains
/// interleaved partial sums.
template <class T, int MR>
__device__ __forceinline__ T reg_dot(const T *x, const T (&y)[MR]) {
    T p[kRegChains];
#pragma unroll
    for (int c = 0; c < kRegChains; ++c) p[c] = T(0);
#pragma unroll
    for (int i = 0; i < MR; ++i) p[i % kRegChains] += x[i] * y[i];
#pragma unroll
    for (int c = 1; c < kRegChains; ++c) p[0] += p[c];
    return p[0];
}

/// One MGS pass over columns 0..nc-1 (qr_mgs_pass): pass 1 stores R1(j,c) at tile(j,c), pass 2
/// (second) R2(j,c) at tile(c,j) and R2(j,j) in rdiag. Returns false (warp-uniform) on anything
/// rare. Every lane runs every step's arithmetic (lanes outside j < c < nc with a zero factor:
/// exact no-ops), so the warp never splits into one-lane paths; the owner of column j scales it
/// to unit length after the pass, when nothing reads it any more (as the team code's `pend`).
template <class T, int MR>
__device__ __forceinline__ bool reg_mgs_pass(T (&a)[MR], int lane, int m, int nc, bool second,
                                             RegWarpSmem<T, MR> &S) {
    using R = kernels::Real<T>;
    constexpr int ld = MR + 1;
    const int kk = m < nc ? m : nc;
    const T thresh = static_cast<T>(m) * R::ulp();
    const T ss = reg_dot<T, MR>(a, a);
    const bool ok = kernels::qr_ssq_ok(ss);
    // Only the first kk columns' norms are used (the team code scales the others' too: unused).
    if (__any_sync(0xffffffffu, lane < kk && !ok)) return false;
    T nrm = R::sqrt(ss);
    const T nrm0 = nrm;
    T own_inv = T(1);
    const int rs = second ? ld : 1, cs = second ? 1 : ld;  // coefficient (j,c) at j*rs + c*cs
    __syncwarp();                                          // the previous users of vec are done
    for (int j = 0; j < kk; ++j) {                         // warp-uniform trip count
        T *v = S.vec[j & 1];
        if (lane == j) {
#pragma unroll
            for (int i = 0; i < MR; ++i) v[i] = a[i];
            v[MR] = nrm;  // -1 when its sum of squares was not trusted: rare below
            v[MR + 1] = nrm0;
        }
        __syncwarp();
        const T nj = v[MR];
        // uniform; the second-pass reprojection of qr_mgs_pass is rare too
        if (nj <= thresh * v[MR + 1] || nj < R::safe_min() || (second && nj < T(0.5) * v[MR + 1]))
            return false;
        const T inv = T(1) / nj;
        const bool active = lane > j && lane < nc;
        const T d = reg_dot<T, MR>(v, a) * inv;  // r_jc = q_j^T a_c
        const T f = active ? d * inv : T(0);
        // Read v again below rather than keep all MR entries in registers beside a: the kernel
        // then fits in about half the registers (more warps per SM hide the chains' latency).
        asm volatile("" ::: "memory");
        T s2[kRegChains];
#pragma unroll
        for (int c = 0; c < kRegChains; ++c) s2[c] = T(0);
#pragma unroll
        for (int i = 0; i < MR; ++i) {
            const T x = a[i] - f * v[i];
            a[i] = x;
            s2[i % kRegChains] += x * x;
        }
        if (active) S.tile[j * rs + lane * cs] = d;
        if (lane == j) {
            own_inv = inv;
            if (second)
                S.rdiag[j] = nj;
            else
                S.tile[j + j * ld] = nj;
        }
        if (lane == j + 1 && lane < kk) {  // column j+1 is final: its norm for step j+1
#pragma unroll
            for (int c = 1; c < kRegChains; ++c) s2[0] += s2[c];
            nrm = kernels::qr_ssq_ok(s2[0]) ? R::sqrt(s2[0]) : T(-1);
        }
    }
#pragma unroll
    for (int i = 0; i < MR; ++i) a[i] *= own_inv;
    return true;
}

/// m < n: columns k..n-1 projected once more against the final Q, coefficients added to R
/// (qr_project_rest).
template <class T, int MR>
__device__ __forceinline__ void reg_project_rest(T (&a)[MR], int lane, int m, int n, int k,
                                                 RegWarpSmem<T, MR> &S) {
    constexpr int ld = MR + 1;
    __syncwarp();                  // the previous users of vec are done
    for (int j = 0; j < k; ++j) {  // warp-uniform
        T *v = S.vec[j & 1];
        if (lane == j) {
#pragma unroll
            for (int i = 0; i < MR; ++i)
                if (i < m) v[i] = a[i];
        }
        __syncwarp();
        if (lane >= k && lane < n) {
            T d = T(0);
#pragma unroll
            for (int i = 0; i < MR; ++i)
                if (i < m) d += v[i] * a[i];
#pragma unroll
            for (int i = 0; i < MR; ++i)
                if (i < m) a[i] -= d * v[i];
            S.tile[j + lane * ld] += d;
        }
    }
}

/// The whole fast path of one matrix; false (nothing written) when the matrix is rare.
template <class T, int MR>
__device__ __forceinline__ bool reg_qr(const QrIO<T> &io, bool reorth, int lane,
                                       RegWarpSmem<T, MR> &S) {
    using R = kernels::Real<T>;
    constexpr int ld = MR + 1, cpr = 32 / MR;  // staging: lane = row li of column lj + cpr t
    const int m = static_cast<int>(io.m), n = static_cast<int>(io.n), k = m < n ? m : n;
    const int li = lane % MR, lj = lane / MR;
    const WarpTeam t;
    T big = T(0);
    int bad = 0;
    if (li < m) {
        for (int j = lj; j < n; j += cpr) {
            const T x = io.A[li + j * io.lda];
            bad |= !kernels::is_finite(x);
            if (R::abs(x) > big) big = R::abs(x);
            S.tile[li + j * ld] = x;
        }
    }
    big = t.max(big);
    if (t.max(bad)) return false;  // NaN/Inf: the team code writes the NaN outputs
    __syncwarp();
    T a[MR];
#pragma unroll
    for (int i = 0; i < MR; ++i) a[i] = lane < n && i < m ? S.tile[i + lane * ld] : T(0);
    int e1, e2;
    kernels::qr_scale_exponents<T>(m, n, big, e1, e2);
    if (e1 != 0 || e2 != 0) {
        const T f1 = R::ldexp(T(1), e1), f2 = R::ldexp(T(1), e2);
#pragma unroll
        for (int i = 0; i < MR; ++i) a[i] = a[i] * f1 * f2;  // f1 first: exact for subnormals
    }
    __syncwarp();  // the tile is read: it holds R from here
    if (!reg_mgs_pass<T, MR>(a, lane, m, n, false, S)) return false;
    if (reorth) {
        if (!reg_mgs_pass<T, MR>(a, lane, m, k, true, S)) return false;
        __syncwarp();
        kernels::QrWork<T, int> w{};
        w.m = m;
        w.n = n;
        w.k = k;
        w.r = S.tile;
        w.ldr = ld;
        w.rdiag = S.rdiag;
        kernels::qr_combine(t, w);  // ends with a sync
    }
    if (k < n) reg_project_rest<T, MR>(a, lane, m, n, k, S);
    __syncwarp();
    // R (scaled back, zeros below the diagonal), then Q through the tile.
    const T g1 = R::ldexp(T(1), -e1), g2 = R::ldexp(T(1), -e2);
    if (li < k) {
        for (int j = lj; j < n; j += cpr)
            io.R[li + j * io.ldr] = li <= j ? S.tile[li + j * ld] * g1 * g2 : T(0);
    }
    __syncwarp();
    if (lane < k) {
#pragma unroll
        for (int i = 0; i < MR; ++i)
            if (i < m) S.tile[i + lane * ld] = a[i];
    }
    __syncwarp();
    if (li < m) {
        for (int j = lj; j < k; j += cpr) io.A[li + j * io.lda] = S.tile[li + j * ld];
    }
    return true;
}

/// kQrRegWarps warps per block, one matrix each. A rare matrix gets info = kQrRegRare, for
/// geqrf_rare_kernel next on the stream: the team code in the same kernel would set its register
/// count (about 40 more) and so cost every common matrix occupancy.
template <class T, int MR>
__global__ void __launch_bounds__(32 * kQrRegWarps, kQrRegBlocksPerSm)
    geqrf_warpreg_kernel(GeqrfProblem<T> p) {
    __shared__ RegWarpSmem<T, MR> smem[kQrRegWarps];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    RegWarpSmem<T, MR> &S = smem[warp];
    for (int64_t b = int64_t(blockIdx.x) * kQrRegWarps + warp; b < p.batch;
         b += int64_t(gridDim.x) * kQrRegWarps) {
        const bool done = reg_qr<T, MR>(problem_io(p, b), p.reorth, lane, S);
        if (lane == 0) p.info[b] = done ? 0 : kQrRegRare;
        __syncwarp();  // the tile is free for the next matrix
    }
}

/// The matrices geqrf_warpreg_kernel left (info = kQrRegRare, A and R untouched): qr_team in
/// place, a warp each (s: the in-place shape, its vectors, 2n + 2k <= 128 elements).
template <class T>
__global__ void __launch_bounds__(32 * kQrRegWarps)
    geqrf_rare_kernel(GeqrfProblem<T> p, QrShape s) {
    __shared__ T vecs[kQrRegWarps][kQrRareElems];
    const int warp = threadIdx.x >> 5;
    const WarpTeam t;
    for (int64_t b = int64_t(blockIdx.x) * kQrRegWarps + warp; b < p.batch;
         b += int64_t(gridDim.x) * kQrRegWarps) {
        if (p.info[b] != kQrRegRare) continue;  // warp-uniform
        const int info = kernels::qr_team<T, int64_t>(t, problem_io(p, b), s, vecs[warp], p.reorth);
        __syncwarp();  // every lane has read info[b]
        if (t.rank() == 0) p.info[b] = info;
    }
}

template <class T>
GeqrfBatchedPlan plan_for(int64_t m, int64_t n, int64_t batch) {
    static const int warp_threads = max_threads(geqrf_warp_kernel<T>);
    static const int block_threads = max_threads(geqrf_block_kernel<T>);
    static const int global_threads = max_threads(geqrf_global_kernel<T>);
    const size_t smem_block =
        static_cast<size_t>(device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, 48 * 1024));
    const size_t smem_sm = static_cast<size_t>(
        device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, 64 * 1024));
    // GPUSVD_QR_WARPREG=0: the shared-memory warp path for m, n <= 32 too (comparisons).
    // Complex elements always take the shared-memory warp path: a column of 32 complex entries
    // in registers is twice the register path's budget (it would spill in double).
    static const bool warp_reg = [] {
        const char *e = std::getenv("GPUSVD_QR_WARPREG");
        return !kernels::kIsComplex<T> && !(e && e[0] == '0');
    }();
    return geqrf_batched_plan(sizeof(T), m, n, batch, smem_block, smem_sm, warp_threads,
                              block_threads, global_threads, warp_reg);
}

}  // namespace

template <class T>
size_t geqrf_batched_workspace_bytes(int64_t m, int64_t n, int64_t batch) {
    return plan_for<T>(m, n, batch).ws_bytes;
}

template <class T>
cudaError_t geqrf_batched_launch(const GeqrfProblem<T> &p, void *ws, size_t ws_bytes,
                                 cudaStream_t stream) {
    if (p.batch <= 0) return cudaSuccess;
    const GeqrfBatchedPlan pl = plan_for<T>(p.m, p.n, p.batch);
    const unsigned grid = static_cast<unsigned>(pl.grid);
    cudaError_t err;
    switch (pl.path) {
        case GeqrfBatchedPlan::kNothing:  // m or n is 0: every info is 0
            return cudaMemsetAsync(p.info, 0, sizeof(int) * static_cast<size_t>(p.batch), stream);
        case GeqrfBatchedPlan::kWarpReg: {
            if constexpr (kernels::kIsComplex<T>) {
                return cudaErrorInvalidValue;  // never planned for complex elements
            } else {
                if (pl.reg_rows == 8)
                    geqrf_warpreg_kernel<T, 8><<<grid, pl.threads, 0, stream>>>(p);
                else if (pl.reg_rows == 16)
                    geqrf_warpreg_kernel<T, 16><<<grid, pl.threads, 0, stream>>>(p);
                else
                    geqrf_warpreg_kernel<T, 32><<<grid, pl.threads, 0, stream>>>(p);
                geqrf_rare_kernel<T>
                    <<<grid, pl.threads, 0, stream>>>(p, kernels::qr_shape(p.m, p.n, true));
            }
            break;
        }
        case GeqrfBatchedPlan::kWarp:
            err = allow_smem(geqrf_warp_kernel<T>, pl.smem_bytes);
            if (err != cudaSuccess) return err;
            geqrf_warp_kernel<T><<<grid, pl.threads, pl.smem_bytes, stream>>>(
                p, pl.shape, pl.mats_per_block, pl.matrix_bytes);
            break;
        case GeqrfBatchedPlan::kBlock:
            err = allow_smem(geqrf_block_kernel<T>, pl.smem_bytes);
            if (err != cudaSuccess) return err;
            geqrf_block_kernel<T><<<grid, pl.threads, pl.smem_bytes, stream>>>(p, pl.shape);
            break;
        case GeqrfBatchedPlan::kGlobal:
            if (!ws || ws_bytes < pl.ws_bytes || pl.ws_bytes == SIZE_MAX)
                return cudaErrorInvalidValue;
            geqrf_global_kernel<T><<<grid, pl.threads, 0, stream>>>(
                p, pl.shape, static_cast<unsigned char *>(ws), pl.matrix_bytes);
            break;
    }
    return cudaGetLastError();
}

#define GPUSVD_INSTANTIATE(T)                                                                  \
    template size_t geqrf_batched_workspace_bytes<T>(int64_t, int64_t, int64_t);                 \
    template cudaError_t geqrf_batched_launch<T>(const GeqrfProblem<T> &, void *, size_t,        \
                                                 cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
