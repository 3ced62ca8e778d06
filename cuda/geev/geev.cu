// GPU batched geev: the kernels around the team algorithm of src/kernels/geev_team.hpp and the
// launcher that picks one (plan.hpp). Real and complex (kernels::Complex) elements; complex
// matrices keep their eigenvalues in p.wr (p.wi is null).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <type_traits>

#include "common/launch.cuh"
#include "common/teams.cuh"
#include "geev/geev.hpp"
#include "geev/plan.hpp"
#include "kernels/geev_band.hpp"
#include "kernels/geev_team.hpp"

namespace gpusvd {
namespace gpu {
namespace {

using kernels::BlockTeam;
using kernels::kIsComplex;
using kernels::RealOf;
using kernels::geev::GeevWork;
using kernels::geev::Mat;

/// One matrix's working set carved from `base` (shared memory): H, Z, then the vectors.
template <class T>
__device__ GeevWork<T> shared_work(T *base, bool wantvr, int n, int ld) {
    GeevWork<T> w;
    w.H = Mat<T>{base, ld};
    T *next = base + n * ld;
    w.Z = Mat<T>{wantvr ? next : nullptr, ld};
    if (wantvr) next += n * ld;
    w.wr = next;
    w.wi = next + n;  // unused for complex T
    w.scale = reinterpret_cast<RealOf<T> *>(next + 2 * n);
    w.work = next + 3 * n;
    return w;
}

/// The band path's stage 1 working set (plan.hpp's geev_reduce_bytes): H, scale and the
/// Householder scalars in shared memory; wr and wi point at the caller's arrays per matrix
/// (written for NaN/Inf input, isolated eigenvalues and the scalars stage 2 reads, which stage 2
/// then overwrites).
template <class T>
__device__ GeevWork<T> reduce_work(T *base, int n, int ld) {
    GeevWork<T> w{};
    w.H = Mat<T>{base, ld};
    w.Z = Mat<T>{nullptr, ld};
    T *const next = base + n * ld;
    w.scale = reinterpret_cast<RealOf<T> *>(next);  // n elements' room (complex: twice that)
    w.work = next + n;
    return w;
}

/// The working set of geev_warp_kernel: shared_work, or reduce_work for the band path's stage 1.
template <bool kReduce, class T>
__device__ GeevWork<T> kernel_work(T *base, bool wantvr, int n, int ld) {
    if constexpr (kReduce)
        return reduce_work(base, n, ld);
    else
        return shared_work<T>(base, wantvr, n, ld);
}

/// Copies matrix b of the user's strided A into H (a team member per element), each member
/// with kBatch loads in flight (one at a time, every element costs a member a memory latency;
/// 4 in the band path's stage 1, measured faster on sm_90; the other kernels keep 1, as 4 made
/// the one-stage double kernels spill). Element e = rank + q size
/// sits at (e % n, e / n), stepped without a division.
template <int kBatch, class T, class Team>
__device__ void load(const Team &t, const GeevProblem<T> &p, int64_t b, Mat<T> H) {
    const int n = static_cast<int>(p.n), size = t.size();
    const T *A = p.A + b * p.sA;
    int i = t.rank(), j = 0;
    while (i >= n) i -= n, ++j;
    while (j < n) {
        T v[kBatch];
        int r[kBatch], c[kBatch];
        GPUSVD_UNROLL
        for (int u = 0; u < kBatch; ++u) {
            r[u] = i, c[u] = j;
            if (j < n) v[u] = A[i + j * p.lda];
            for (i += size; i >= n; i -= n) ++j;
        }
        GPUSVD_UNROLL
        for (int u = 0; u < kBatch; ++u)
            if (c[u] < n) H(r[u], c[u]) = v[u];
    }
    t.sync();
}

/// Writes matrix b's results from the working set to the user's arrays (VR when `vectors`).
template <class T, class Team>
__device__ void store(const Team &t, const GeevProblem<T> &p, int64_t b, const GeevWork<T> &w,
                      int info, bool vectors) {
    const int n = static_cast<int>(p.n);
    T *wr = p.wr + b * p.sW, *wi = kIsComplex<T> ? nullptr : p.wi + b * p.sW;
    for (int i = t.rank(); i < n; i += t.size()) {
        wr[i] = w.wr[i];
        if constexpr (!kIsComplex<T>) wi[i] = w.wi[i];
    }
    if (vectors) {
        T *VR = p.VR + b * p.sVR;
        for (int j = 0; j < n; ++j)
            for (int i = t.rank(); i < n; i += t.size()) VR[i + j * p.ldvr] = w.Z(i, j);
    }
    if (t.rank() == 0) p.info[b] = info;
    t.sync();  // the next matrix may overwrite the working set
}

/// Blocks of 256 per SM the register allocation must allow, where shared memory leaves room for
/// more warps than registers would (small n): values-only 3 blocks (80 registers), except 4 (64)
/// for float's 8 lanes (small n, where up to 32 warps fit in shared memory: its band kernel has
/// 52 registers; float's 16 lanes spilled at 64); a warp per matrix 3, so all 25 double 30x30
/// matrices that fit in shared memory run.
/// With vectors 2 (128 registers). Complex float as real double (3 and 2: no spills at 80 and
/// 128 registers); complex double 2 for values (119 registers) and 1 with vectors (141).
template <class T, bool kVec, int W>
constexpr int geev_warp_min_blocks() {
    if (kIsComplex<T>) return kVec ? (sizeof(T) == 8 ? 2 : 1) : (sizeof(T) == 8 ? 3 : 2);
    if (kVec) return 2;
    return sizeof(T) == 4 && W == 8 ? 4 : 3;
}

/// W lanes per matrix (a warp or a part of one), mats matrices per block, each in its own slice
/// of shared memory. kVec: p.wantvr at compile time, so the values-only kernel carries none of
/// the vector phases' registers (double: 80 instead of 118, so 25 warps per SM instead of 16).
/// kZGlobal (with kVec): Z is the user's VR in global memory, not a second matrix in shared
/// memory, so about twice the matrices stay resident per SM while each of Z's updates (a column
/// pair per bulge step) goes to the L1/L2 caches instead of shared memory.
/// The teams of one warp run their own loops; the scheduler interleaves the diverged teams.
/// (Advancing a warp's matrices in lockstep, a search or bulge step each per round, measured
/// slower at every size on sm_90.) kReduce: the band path's stage 1 instead
/// (kernels/geev_band.hpp, values only): the working set up to the Hessenberg form, which goes
/// back to A; info 0 marks the matrices stage 2 takes.
template <class T, bool kVec, int W, bool kReduce = false, bool kZGlobal = false>
__global__ void __launch_bounds__(256, geev_warp_min_blocks<T, kVec, W>())
    geev_warp_kernel(GeevProblem<T> p, int ld, int mats, size_t matrix_bytes) {
    static_assert(!(kVec && kReduce), "the band path is values-only");
    static_assert(kVec || !kZGlobal, "Z in global memory is the vectors' kernel's");
    extern __shared__ __align__(16) unsigned char smem[];
    const int group = threadIdx.x / W;
    const int n = static_cast<int>(p.n);
    T *const base = reinterpret_cast<T *>(smem + group * matrix_bytes);
    GeevWork<T> w = kernel_work<kReduce>(base, kVec && !kZGlobal, n, ld);
    const kernels::TileTeam<W> t;
    for (int64_t b = int64_t(blockIdx.x) * mats + group; b < p.batch;
         b += int64_t(gridDim.x) * mats) {
        load<kReduce ? 4 : 1>(t, p, b, w.H);
        if constexpr (kReduce) {
            const Mat<T> A{p.A + b * p.sA, static_cast<int>(p.lda)};
            w.wr = p.wr + b * p.sW;
            w.wi = kIsComplex<T> ? nullptr : p.wi + b * p.sW;
            const int info = kernels::geev::geev_reduce_stage(t, n, w, A);
            if (t.rank() == 0) p.info[b] = info;
        } else {
            if constexpr (kZGlobal) w.Z = Mat<T>{p.VR + b * p.sVR, static_cast<int>(p.ldvr)};
            store(t, p, b, w, kernels::geev::geev_team(t, kVec, n, w), kVec && !kZGlobal);
        }
    }
}

template <class T, bool kVec, bool kZGlobal = false>
decltype(&geev_warp_kernel<T, kVec, 32>) warp_kernel(int team) {
    return team == 8    ? geev_warp_kernel<T, kVec, 8, false, kZGlobal>
           : team == 16 ? geev_warp_kernel<T, kVec, 16, false, kZGlobal>
                        : geev_warp_kernel<T, kVec, 32, false, kZGlobal>;
}

template <class T>
decltype(&geev_warp_kernel<T, false, 32>) warp_kernel(bool vectors, int team,
                                                      bool z_global = false) {
    if (vectors && z_global) return warp_kernel<T, true, true>(team);
    return vectors ? warp_kernel<T, true>(team) : warp_kernel<T, false>(team);
}

/// Band path, stage 2: the QR iteration on a band copy of stage 1's H in shared memory, the
/// eigenvalues straight to the user's wr/wi. W lanes per matrix, each matrix in its own
/// matrix_bytes; or W = 1, a thread per matrix (small n, where the band is small enough for many
/// matrices per SM: the serial team's chase wastes no lanes on a short row and needs no syncs),
/// each matrix_bytes then holding kGeevBandInterleave matrices' bands interleaved entry by entry
/// (plan.hpp's geev_thread_shape), so a warp's threads, each at its own entry of its own matrix,
/// spread over the banks.
template <class T, int W>
__global__ void __launch_bounds__(256, W == 1 ? 1 : geev_warp_min_blocks<T, false, W>())
    geev_band_kernel(GeevProblem<T> p, int mats, size_t matrix_bytes) {
    extern __shared__ __align__(16) unsigned char smem[];
    constexpr int S = W == 1 ? kGeevBandInterleave : 1;
    const int group = threadIdx.x / W;
    const int n = static_cast<int>(p.n);
    const kernels::geev::BandMat<T, S> B{reinterpret_cast<T *>(smem + group / S * matrix_bytes) +
                                         group % S};
    const typename std::conditional<W == 1, kernels::SerialTeam, kernels::TileTeam<W>>::type t;
    for (int64_t b = int64_t(blockIdx.x) * mats + group; b < p.batch;
         b += int64_t(gridDim.x) * mats) {
        if (p.info[b] != 0) continue;  // NaN/Inf: stage 1 wrote the outputs
        const Mat<T> A{p.A + b * p.sA, static_cast<int>(p.lda)};
        const int info = kernels::geev::geev_band_stage(t, n, A, B, p.wr + b * p.sW,
                                                        kIsComplex<T> ? nullptr : p.wi + b * p.sW);
        if (t.rank() == 0 && info != 0) p.info[b] = info;
    }
}

static_assert(kGeevBandMinN >= kernels::geev::kBandMinN, "the plan's band threshold");

template <class T>
decltype(&geev_warp_kernel<T, false, 32>) reduce_kernel(int team) {
    return team == 8    ? geev_warp_kernel<T, false, 8, true>
           : team == 16 ? geev_warp_kernel<T, false, 16, true>
                        : geev_warp_kernel<T, false, 32, true>;
}

template <class T>
decltype(&geev_band_kernel<T, 32>) band_kernel(int team) {
    return team == 1    ? geev_band_kernel<T, 1>
           : team == 8  ? geev_band_kernel<T, 8>
           : team == 16 ? geev_band_kernel<T, 16>
                        : geev_band_kernel<T, 32>;
}

/// A block per matrix in shared memory.
template <class T>
__global__ void __launch_bounds__(256) geev_block_kernel(GeevProblem<T> p, int ld) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ double scratch[32];
    const int n = static_cast<int>(p.n);
    const GeevWork<T> w = shared_work<T>(reinterpret_cast<T *>(smem), p.wantvr, n, ld);
    const BlockTeam<double> t{scratch};
    for (int64_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
        load<1>(t, p, b, w.H);
        const int info = kernels::geev::geev_team(t, p.wantvr, n, w);
        store(t, p, b, w, info, p.wantvr);
    }
}

/// A block per matrix, in place: H is the user's A, Z the user's VR, wr/wi the user's arrays;
/// scale and work come from the block's workspace slot. Any n (within int indexing).
template <class T>
__global__ void __launch_bounds__(256) geev_global_kernel(GeevProblem<T> p, T *ws) {
    __shared__ double scratch[32];
    const int n = static_cast<int>(p.n);
    const BlockTeam<double> t{scratch};
    T *slot = ws + int64_t(blockIdx.x) * 4 * n;
    for (int64_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
        GeevWork<T> w;
        w.H = Mat<T>{p.A + b * p.sA, static_cast<int>(p.lda)};
        w.Z = Mat<T>{p.wantvr ? p.VR + b * p.sVR : nullptr, static_cast<int>(p.ldvr)};
        w.wr = p.wr + b * p.sW;
        w.wi = kIsComplex<T> ? nullptr : p.wi + b * p.sW;
        w.scale = reinterpret_cast<RealOf<T> *>(slot);  // n of the slot's 4n elements
        w.work = slot + n;
        const int info = kernels::geev::geev_team(t, p.wantvr, n, w);
        if (t.rank() == 0) p.info[b] = info;
        t.sync();  // the slot is reused by the next matrix
    }
}

/// Sets info = 0 for every matrix (n = 0: nothing to compute).
__global__ void geev_zero_info_kernel(int *info, int64_t batch) {
    for (int64_t b = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b < batch;
         b += int64_t(gridDim.x) * blockDim.x)
        info[b] = 0;
}

/// z_ok: Z may be the user's VR (its leading dimension fits the team code's int indexing).
template <class T>
GeevPlan plan_for(bool wantvr, int64_t n, int64_t batch, bool z_ok = true) {
    static const int warp_threads = [] {
        int m = 1024;
        for (int w : {8, 16, 32}) {
            m = std::min(m, max_threads(warp_kernel<T>(false, w)));
            for (bool z_global : {false, true})
                m = std::min(m, max_threads(warp_kernel<T>(true, w, z_global)));
        }
        for (int w : {1, 8, 16, 32}) m = std::min(m, max_threads(band_kernel<T>(w)));
        for (int w : {8, 16, 32}) m = std::min(m, max_threads(reduce_kernel<T>(w)));
        return m;
    }();
    // GPUSVD_GEEV_TEAM=8|16|32: lanes per matrix of the warp path (tuning; default by n).
    static const int team = [] {
        const char *e = std::getenv("GPUSVD_GEEV_TEAM");
        return e ? std::atoi(e) : 0;
    }();
    // GPUSVD_GEEV_BAND=0|1: the two-kernel band path off, or on wherever it applies (tuning).
    static const int band = [] {
        const char *e = std::getenv("GPUSVD_GEEV_BAND");
        return e ? std::atoi(e) : -1;
    }();
    // GPUSVD_GEEV_Z_GLOBAL=0|1: the warp path's vectors kernel with Z in the user's VR in global
    // memory (1) or in shared memory (0); unset, by element type (geev_plan; tuning).
    static const int z_global = [] {
        const char *e = std::getenv("GPUSVD_GEEV_Z_GLOBAL");
        return e ? std::atoi(e) : -1;
    }();
    static const int block_threads = max_threads(geev_block_kernel<T>);
    static const int global_threads = max_threads(geev_global_kernel<T>);
    const size_t smem_block =
        static_cast<size_t>(device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, 48 * 1024));
    const size_t smem_sm = static_cast<size_t>(
        device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, 64 * 1024));
    // GPUSVD_GEEV_REDUCE_TEAM=8|16|32: lanes per matrix of the band path's stage 1 (tuning).
    static const int reduce_team = [] {
        const char *e = std::getenv("GPUSVD_GEEV_REDUCE_TEAM");
        return e ? std::atoi(e) : 0;
    }();
    // GPUSVD_GEEV_QR_THREAD=0|1: the band path's QR a thread per matrix off, or on wherever the
    // band path runs and its shared memory fits (tuning; default by n).
    static const int qr_thread = [] {
        const char *e = std::getenv("GPUSVD_GEEV_QR_THREAD");
        return e ? std::atoi(e) : -1;
    }();
    // The thread-per-matrix QR's resident threads per SM, as its registers allow.
    static const int thread_sm_threads = [] {
        int blocks = 0;
        const cudaError_t e =
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, geev_band_kernel<T, 1>, 32, 0);
        if (e != cudaSuccess) blocks = 0;
        return blocks > 0 ? 32 * blocks : 2048;
    }();
    GeevPlan p =
        geev_plan(sizeof(T), kIsComplex<T>, wantvr, n, batch, smem_block, smem_sm, warp_threads,
                  team, band, reduce_team, qr_thread, thread_sm_threads, z_ok ? z_global : 0);
    const int limit = p.path == GeevPlan::kBlock    ? block_threads
                      : p.path == GeevPlan::kGlobal ? global_threads
                                                    : warp_threads;
    if (p.threads > limit) p.threads = limit / 32 * 32;
    return p;
}

/// The team code indexes with int: in place (global path), every offset i + j*ld of the
/// n x n matrix must fit.
bool fits_int(int64_t n, int64_t ld) {
    return n <= INT_MAX && ld <= INT_MAX && (n - 1) * ld + n <= INT_MAX;
}

}  // namespace

template <class T>
size_t geev_workspace_bytes(bool wantvr, int64_t n, int64_t batch) {
    return plan_for<T>(wantvr, n, batch).ws_bytes;  // z_ok makes no difference to it
}

template <class T>
cudaError_t geev_launch(const GeevProblem<T> &p, void *ws, size_t ws_bytes, cudaStream_t stream) {
    if (p.batch <= 0) return cudaSuccess;
    const GeevPlan plan = plan_for<T>(p.wantvr, p.n, p.batch, fits_int(p.n, p.ldvr));
    cudaError_t err = cudaSuccess;
    switch (plan.path) {
        case GeevPlan::kNothing: {
            const int64_t blocks = (p.batch + 255) / 256;
            geev_zero_info_kernel<<<static_cast<unsigned>(blocks < kGeevMaxGrid ? blocks
                                                                                : kGeevMaxGrid),
                                    256, 0, stream>>>(p.info, p.batch);
            break;
        }
        case GeevPlan::kWarp: {
            if (plan.band && fits_int(p.n, p.lda)) {  // stage 2 indexes A with int
                const GeevWarpShape &r = plan.reduce, &q = plan.qr;
                const auto reduce = reduce_kernel<T>(r.team);
                const auto qr = band_kernel<T>(q.team);
                err = allow_smem(reduce, r.smem_bytes);
                if (err == cudaSuccess) err = allow_smem(qr, q.smem_bytes);
                if (err != cudaSuccess) return err;
                reduce<<<static_cast<unsigned>(r.grid), r.threads, r.smem_bytes, stream>>>(
                    p, plan.ld, r.mats_per_block, r.matrix_bytes);
                qr<<<static_cast<unsigned>(q.grid), q.threads, q.smem_bytes, stream>>>(
                    p, q.mats_per_block, q.matrix_bytes);
                break;
            }
            const auto kernel = warp_kernel<T>(p.wantvr, plan.team, plan.z_global);
            err = allow_smem(kernel, plan.smem_bytes);
            if (err != cudaSuccess) return err;
            kernel<<<static_cast<unsigned>(plan.grid), plan.threads, plan.smem_bytes, stream>>>(
                p, plan.ld, plan.mats_per_block, plan.matrix_bytes);
            break;
        }
        case GeevPlan::kBlock:
            err = allow_smem(geev_block_kernel<T>, plan.smem_bytes);
            if (err != cudaSuccess) return err;
            geev_block_kernel<T>
                <<<static_cast<unsigned>(plan.grid), plan.threads, plan.smem_bytes, stream>>>(
                    p, plan.ld);
            break;
        case GeevPlan::kGlobal:
            if (!fits_int(p.n, p.lda) || (p.wantvr && !fits_int(p.n, p.ldvr)))
                return cudaErrorInvalidValue;
            if (ws_bytes < plan.ws_bytes || (plan.ws_bytes > 0 && ws == nullptr))
                return cudaErrorInvalidValue;
            geev_global_kernel<T><<<static_cast<unsigned>(plan.grid), plan.threads, 0, stream>>>(
                p, static_cast<T *>(ws));
            break;
    }
    return cudaGetLastError();
}

#define GPUSVD_INSTANTIATE(T)                                        \
    template size_t geev_workspace_bytes<T>(bool, int64_t, int64_t); \
    template cudaError_t geev_launch<T>(const GeevProblem<T> &, void *, size_t, cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
