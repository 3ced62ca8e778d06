// Batched GPU Gram-Schmidt QR: the kernels around the team algorithm of
// src/kernels/qr_team.hpp and the launcher that picks one (plan.hpp).
#include <cuda_runtime.h>

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
__global__ void __launch_bounds__(256) geqrf_warp_kernel(GeqrfProblem<T> p, QrShape s, int mats,
                                                         size_t matrix_bytes) {
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

__global__ void geqrf_zero_info_kernel(int *info, int64_t batch) {
    for (int64_t b = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b < batch;
         b += int64_t(gridDim.x) * blockDim.x)
        info[b] = 0;
}

template <class T>
GeqrfBatchedPlan plan_for(int64_t m, int64_t n, int64_t batch) {
    static const int warp_threads = max_threads(geqrf_warp_kernel<T>);
    static const int block_threads = max_threads(geqrf_block_kernel<T>);
    static const int global_threads = max_threads(geqrf_global_kernel<T>);
    const size_t smem_block = static_cast<size_t>(
        device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, 48 * 1024));
    const size_t smem_sm = static_cast<size_t>(
        device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, 64 * 1024));
    return geqrf_batched_plan(sizeof(T), m, n, batch, smem_block, smem_sm, warp_threads,
                              block_threads, global_threads);
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
        case GeqrfBatchedPlan::kNothing: {
            const int64_t blocks = (p.batch + 255) / 256;
            geqrf_zero_info_kernel<<<static_cast<unsigned>(blocks < kQrMaxGrid ? blocks
                                                                                : kQrMaxGrid),
                                     256, 0, stream>>>(p.info, p.batch);
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

template size_t geqrf_batched_workspace_bytes<float>(int64_t, int64_t, int64_t);
template size_t geqrf_batched_workspace_bytes<double>(int64_t, int64_t, int64_t);
template cudaError_t geqrf_batched_launch<float>(const GeqrfProblem<float> &, void *, size_t,
                                                 cudaStream_t);
template cudaError_t geqrf_batched_launch<double>(const GeqrfProblem<double> &, void *, size_t,
                                                  cudaStream_t);

}  // namespace gpu
}  // namespace gpusvd
