// GPU one-sided Jacobi SVD: the kernels around the team algorithm of src/kernels/jacobi_team.hpp
// and the launcher that picks one (plan.hpp).
#include <cuda_runtime.h>

#include <cstdlib>

#include "common/launch.cuh"
#include "common/teams.cuh"
#include "gesvj/gesvj.hpp"
#include "gesvj/plan.hpp"
#include "kernels/jacobi_team.hpp"

namespace gpusvd {
namespace gpu {
namespace {

using kernels::BlockTeam;
using kernels::JacobiIO;
using kernels::JacobiResult;
using kernels::JacobiShape;
using kernels::JacobiWork;
using kernels::LaneTeam;
using kernels::WarpTeam;

// Entries of a column per lane kept in registers by the shared-memory kernels (plan.hpp sizes
// the pair teams for it).
constexpr int kCache = 8;

template <class T>
__device__ JacobiIO<T> problem_io(const GesvjProblem<T> &p, int64_t b) {
    JacobiIO<T> io;
    io.m = p.m;
    io.n = p.n;
    io.A = p.A + b * p.sA;
    io.lda = p.lda;
    io.S = p.S + b * p.sS;
    io.U = p.wantu ? p.U + b * p.sU : nullptr;
    io.ldu = p.ldu;
    io.V = p.wantv ? p.V + b * p.sV : nullptr;
    io.ldv = p.ldv;
    return io;
}

template <class T>
__device__ void report(const GesvjProblem<T> &p, int64_t b, const JacobiResult<T> &r) {
    p.info[b] = r.info;
    if (r.info == -1 || !p.stats) return;
    record_jacobi_stats(p.stats, r.sweeps, static_cast<double>(r.off));
}

/// One warp per matrix, `mats` matrices per block, each in its own slice of shared memory.
template <class T>
__global__ void gesvj_warp_kernel(GesvjProblem<T> p, JacobiShape s, int lanes, int mats,
                                  size_t matrix_bytes) {
    extern __shared__ __align__(16) unsigned char smem[];
    const int warp = threadIdx.x >> 5;
    const JacobiWork<T, int> w =
        kernels::jacobi_work<T, int>(s, reinterpret_cast<T *>(smem + warp * matrix_bytes));
    const WarpTeam t;
    const LaneTeam pt(lanes);
    const auto tol = static_cast<kernels::RealOf<T>>(p.tol);
    for (int64_t b = int64_t(blockIdx.x) * mats + warp; b < p.batch;
         b += int64_t(gridDim.x) * mats) {
        const JacobiResult<T> r =
            kernels::jacobi_svd<T, int, kCache>(t, pt, problem_io(p, b), w, tol, p.max_sweeps);
        if (t.rank() == 0) report(p, b, r);
    }
}

/// One block per matrix in shared memory.
template <class T>
__global__ void gesvj_block_kernel(GesvjProblem<T> p, JacobiShape s, int lanes) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ double scratch[32];
    const JacobiWork<T, int> w = kernels::jacobi_work<T, int>(s, reinterpret_cast<T *>(smem));
    const BlockTeam<double> t{scratch};
    const LaneTeam pt(lanes);
    const auto tol = static_cast<kernels::RealOf<T>>(p.tol);
    for (int64_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
        const JacobiResult<T> r =
            kernels::jacobi_svd<T, int, kCache>(t, pt, problem_io(p, b), w, tol, p.max_sweeps);
        if (t.rank() == 0) report(p, b, r);
    }
}

/// One block per matrix in shared memory, pair teams of W lanes with NA / NV slots per lane
/// (FixedSlots): the padding rows are zeroed once and stay zero (see FixedSlots).
template <class T, int W, int NA, int NV>
__global__ void __launch_bounds__(kGesvjFixedMaxThreads)
    gesvj_block_fixed_kernel(GesvjProblem<T> p, JacobiShape s, size_t matrix_bytes) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ double scratch[32];
    for (size_t i = threadIdx.x; i < matrix_bytes / sizeof(T); i += blockDim.x)
        reinterpret_cast<T *>(smem)[i] = T(0);
    __syncthreads();
    const JacobiWork<T, int> w = kernels::jacobi_work<T, int>(s, reinterpret_cast<T *>(smem));
    const BlockTeam<double> t{scratch};
    const kernels::TileTeam<W> pt;
    const auto tol = static_cast<kernels::RealOf<T>>(p.tol);
    for (int64_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
        const JacobiResult<T> r = kernels::jacobi_svd<T, int, kCache, kernels::FixedSlots<NA, NV>>(
            t, pt, problem_io(p, b), w, tol, p.max_sweeps);
        if (t.rank() == 0) report(p, b, r);
    }
}

template <class T, int W, int NA, int NV>
cudaError_t launch_fixed(const GesvjProblem<T> &p, const GesvjPlan &pl, cudaStream_t stream) {
    const auto kernel = gesvj_block_fixed_kernel<T, W, NA, NV>;
    const cudaError_t err = allow_smem(kernel, pl.smem_bytes);
    if (err != cudaSuccess) return err;
    kernel<<<static_cast<unsigned>(pl.grid), pl.threads, pl.smem_bytes, stream>>>(p, pl.shape,
                                                                                  pl.matrix_bytes);
    return cudaGetLastError();
}

template <class T, int W>
cudaError_t launch_fixed(const GesvjProblem<T> &p, const GesvjPlan &pl, cudaStream_t stream) {
    constexpr int kFull = static_cast<int>(kGesvjFixedMaxRows / W), kHalf = kFull / 2;
    const bool v = pl.fixed_nv > 0;
    if (pl.fixed_na == kHalf)
        return v ? launch_fixed<T, W, kHalf, kHalf>(p, pl, stream)
                 : launch_fixed<T, W, kHalf, 0>(p, pl, stream);
    return v ? launch_fixed<T, W, kFull, kFull>(p, pl, stream)
             : launch_fixed<T, W, kFull, 0>(p, pl, stream);
}

/// The fixed kernel compiled for the plan's lanes and slots (gesvj_fixed_slots; V's the same
/// as A's, or 0).
template <class T>
cudaError_t launch_fixed(const GesvjProblem<T> &p, const GesvjPlan &pl, cudaStream_t stream) {
    return pl.lanes == 8 ? launch_fixed<T, 8>(p, pl, stream) : launch_fixed<T, 16>(p, pl, stream);
}

/// One block per matrix, working in its slot of the device workspace; any size.
template <class T>
__global__ void gesvj_global_kernel(GesvjProblem<T> p, JacobiShape s, unsigned char *ws,
                                    size_t matrix_bytes) {
    __shared__ double scratch[32];
    const JacobiWork<T, int64_t> w =
        kernels::jacobi_work<T, int64_t>(s, reinterpret_cast<T *>(ws + blockIdx.x * matrix_bytes));
    const BlockTeam<double> t{scratch};
    const WarpTeam pt;
    const auto tol = static_cast<kernels::RealOf<T>>(p.tol);
    for (int64_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
        const JacobiResult<T> r =
            kernels::jacobi_svd<T, int64_t, 0>(t, pt, problem_io(p, b), w, tol, p.max_sweeps);
        if (t.rank() == 0) report(p, b, r);
    }
}

template <class T>
GesvjPlan plan_for(bool wantu, bool wantv, int64_t m, int64_t n, int64_t batch) {
    static const int block_threads = max_threads(gesvj_block_kernel<T>);
    static const int global_threads = max_threads(gesvj_global_kernel<T>);
    const size_t optin =
        static_cast<size_t>(device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, 48 * 1024));
    // Tuning only: GPUSVD_JACOBI_LANES sets the block path's pair-team width;
    // GPUSVD_JACOBI_FIXED=0 keeps the generic block kernel where the fixed one would run.
    const char *v = std::getenv("GPUSVD_JACOBI_LANES");
    const char *f = std::getenv("GPUSVD_JACOBI_FIXED");
    return gesvj_plan(sizeof(T), wantu, wantv, m, n, batch, optin, block_threads, global_threads,
                      v ? std::atoi(v) : 0, !(f && std::atoi(f) == 0));
}

}  // namespace

template <class T>
size_t gesvj_workspace_bytes(bool wantu, bool wantv, int64_t m, int64_t n, int64_t batch) {
    return plan_for<T>(wantu, wantv, m, n, batch).ws_bytes;
}

template <class T>
cudaError_t gesvj_launch(const GesvjProblem<T> &p, void *ws, size_t ws_bytes, cudaStream_t stream) {
    if (p.batch <= 0) return cudaSuccess;
    cudaError_t err;
    // The kernels (team width above all) as the whole call chooses them; the grid for this
    // launch's matrices (the global path's workspace is sized for them).
    GesvjPlan pl = plan_for<T>(p.wantu, p.wantv, p.m, p.n, p.plan_batch > 0 ? p.plan_batch : p.batch);
    if (p.plan_batch > p.batch) {
        const GesvjPlan own = plan_for<T>(p.wantu, p.wantv, p.m, p.n, p.batch);
        if (pl.path == GesvjPlan::kGlobal) pl.grid = own.grid, pl.ws_bytes = own.ws_bytes;
        else if (pl.path == GesvjPlan::kWarp)
            pl.grid = (p.batch + pl.mats_per_block - 1) / pl.mats_per_block;
        else if (pl.path == GesvjPlan::kBlock)
            pl.grid = p.batch < INT32_MAX ? p.batch : INT32_MAX;
    }
    switch (pl.path) {
        case GesvjPlan::kNothing:
            return cudaMemsetAsync(p.info, 0, static_cast<size_t>(p.batch) * sizeof(int), stream);
        case GesvjPlan::kWarp:
            err = allow_smem(gesvj_warp_kernel<T>, pl.smem_bytes);
            if (err != cudaSuccess) return err;
            gesvj_warp_kernel<T>
                <<<static_cast<unsigned>(pl.grid), pl.threads, pl.smem_bytes, stream>>>(
                    p, pl.shape, pl.lanes, pl.mats_per_block, pl.matrix_bytes);
            break;
        case GesvjPlan::kBlock:
            if (pl.fixed_na > 0) return launch_fixed(p, pl, stream);
            err = allow_smem(gesvj_block_kernel<T>, pl.smem_bytes);
            if (err != cudaSuccess) return err;
            gesvj_block_kernel<T>
                <<<static_cast<unsigned>(pl.grid), pl.threads, pl.smem_bytes, stream>>>(p, pl.shape,
                                                                                        pl.lanes);
            break;
        case GesvjPlan::kGlobal:
            if (!ws || ws_bytes < pl.ws_bytes || pl.ws_bytes == SIZE_MAX)
                return cudaErrorInvalidValue;
            gesvj_global_kernel<T><<<static_cast<unsigned>(pl.grid), pl.threads, 0, stream>>>(
                p, pl.shape, static_cast<unsigned char *>(ws), pl.matrix_bytes);
            break;
    }
    return cudaGetLastError();
}

#define GPUSVD_INSTANTIATE(T)                                                          \
    template size_t gesvj_workspace_bytes<T>(bool, bool, int64_t, int64_t, int64_t); \
    template cudaError_t gesvj_launch<T>(const GesvjProblem<T> &, void *, size_t, cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
