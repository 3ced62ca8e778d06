// Kernels of the GPU bidiagonal SVD: thin grid-stride loops around the passes of
// src/kernels/bdsvd_steps.hpp (the CPU test, tests/test_team_bdsvd.cpp, runs the same passes).
#include <cuda_runtime.h>

#include <algorithm>

#include "bdsvd/bdsvd.hpp"
#include "common/launch.cuh"
#include "common/teams.cuh"

namespace gpusvd {
namespace gpu {
namespace {

namespace bd = kernels::bd;

// Small blocks spread the per-value threads, each a long serial recurrence, over every SM.
constexpr int kThreads = 64;

inline int blocks_for(int64_t items) {
    return static_cast<int>(
        std::max<int64_t>(1, std::min<int64_t>((items + kThreads - 1) / kThreads, 65535)));
}

#define GRID_STRIDE(i, count)                                                     \
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (count); \
         i += int64_t(gridDim.x) * blockDim.x)

template <class T>
__global__ void screen_kernel(int64_t n, const T *d, const T *e, unsigned long long *amax,
                              int *flag) {
    double big = 0;
    int bad = 0;
    GRID_STRIDE(k, 2 * n - 1) {
        const T x = (k & 1) ? e[k >> 1] : d[k >> 1];
        bad |= !kernels::is_finite(x);
        big = fmax(big, fabs(static_cast<double>(x)));
    }
    if (bad) atomicOr(flag, 1);
    if (big > 0) atomic_max_nonneg(amax, big);
}

template <class T>
__global__ void scale_kernel(const unsigned long long *amax, int *scale) {
    *scale =
        bd::scale_exponent(static_cast<T>(__longlong_as_double(static_cast<long long>(*amax))));
}

template <class T>
__global__ void prepare_kernel(bd::Problem<T> q, const int *flag) {
    if (*flag) return;
    GRID_STRIDE(k, 2 * q.n - 1) bd::prepare(q, k);
}

template <class T>
__global__ void value_kernel(bd::Problem<T> q, const int *flag) {
    GRID_STRIDE(p, q.n) {
        if (*flag)
            q.sig[p] = kernels::Real<T>::nan();
        else
            bd::value(q, p);
    }
}

template <class T>
__global__ void twisted_kernel(bd::Problem<T> q) {
    GRID_STRIDE(p, q.n) bd::twisted(q, p);
}

/// One warp per group (slot = the warp's index in the grid).
template <class T>
__global__ void group_kernel(bd::Problem<T> q, int64_t ngroups, int64_t nslots) {
    const int64_t slot = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5;
    if (slot >= nslots) return;  // whole warps leave together
    const kernels::WarpTeam tm;
    for (int64_t g = slot; g < ngroups; g += nslots) bd::group(tm, q, g, slot);
}

template <class T>
__global__ void finish_kernel(bd::Problem<T> q) {
    GRID_STRIDE(p, q.n) bd::finish(q, p);
}

template <class T>
__global__ void null_kernel(bd::Problem<T> q, int64_t nzero) {
    GRID_STRIDE(z, nzero) bd::null_pair(q, z);
}

template <class T>
__global__ void complete_kernel(bd::Problem<T> q, int64_t nzb, int64_t *cols) {
    GRID_STRIDE(z, nzb) bd::complete(q, z, cols + q.lo[q.zero_blocks[z]]);
}

template <class T>
__global__ void store_kernel(bd::Problem<T> q, const int *flag, int *info) {
    const bool bad = *flag != 0;
    GRID_STRIDE(p, q.n) {
        if (!bad) {
            bd::store(q, p);
            continue;
        }
        q.dout[p] = kernels::Real<T>::nan();
        if (!q.U) continue;
        for (int64_t i = 0; i < q.n; ++i) {
            q.U[i + p * q.ldu] = kernels::Real<T>::nan();
            q.VT[p + i * q.ldvt] = kernels::Real<T>::nan();
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) *info = bad ? -1 : 0;  // GPUSVD_INFO_NONFINITE
}

}  // namespace

template <class T>
cudaError_t bdsvd_screen(int64_t n, const T *d, const T *e, unsigned long long *amax, int *flag,
                         int *scale, cudaStream_t s) {
    cudaError_t err = cudaMemsetAsync(amax, 0, sizeof(*amax), s);
    if (err == cudaSuccess) err = cudaMemsetAsync(flag, 0, sizeof(*flag), s);
    if (err != cudaSuccess) return err;
    screen_kernel<T>
        <<<std::min(blocks_for(2 * n), 1024), kThreads * 4, 0, s>>>(n, d, e, amax, flag);
    scale_kernel<T><<<1, 1, 0, s>>>(amax, scale);
    return cudaGetLastError();
}

template <class T>
cudaError_t bdsvd_prepare(const bd::Problem<T> &q, const int *flag, cudaStream_t s) {
    prepare_kernel<T><<<blocks_for(2 * q.n), kThreads, 0, s>>>(q, flag);
    return cudaGetLastError();
}

template <class T>
cudaError_t bdsvd_values(const bd::Problem<T> &q, const int *flag, cudaStream_t s) {
    value_kernel<T><<<blocks_for(q.n), kThreads, 0, s>>>(q, flag);
    return cudaGetLastError();
}

template <class T>
cudaError_t bdsvd_vectors(const bd::Problem<T> &q, int64_t ngroups, int64_t nslots, int64_t nzero,
                          int64_t nzb, int64_t *cols, cudaStream_t s) {
    twisted_kernel<T><<<blocks_for(q.n), kThreads, 0, s>>>(q);
    if (ngroups > 0)
        group_kernel<T><<<blocks_for(32 * nslots), kThreads, 0, s>>>(q, ngroups, nslots);
    finish_kernel<T><<<blocks_for(q.n), kThreads, 0, s>>>(q);
    if (nzero > 0) null_kernel<T><<<blocks_for(nzero), kThreads, 0, s>>>(q, nzero);
    if (nzb > 0) complete_kernel<T><<<blocks_for(nzb), kThreads, 0, s>>>(q, nzb, cols);
    return cudaGetLastError();
}

template <class T>
cudaError_t bdsvd_store(const bd::Problem<T> &q, const int *flag, int *info, cudaStream_t s) {
    store_kernel<T><<<blocks_for(q.n), kThreads, 0, s>>>(q, flag, info);
    return cudaGetLastError();
}

#define GPUSVD_INSTANTIATE(T)                                                                 \
    template cudaError_t bdsvd_screen<T>(int64_t, const T *, const T *, unsigned long long *, \
                                         int *, int *, cudaStream_t);                         \
    template cudaError_t bdsvd_prepare<T>(const bd::Problem<T> &, const int *, cudaStream_t); \
    template cudaError_t bdsvd_values<T>(const bd::Problem<T> &, const int *, cudaStream_t);  \
    template cudaError_t bdsvd_vectors<T>(const bd::Problem<T> &, int64_t, int64_t, int64_t,  \
                                          int64_t, int64_t *, cudaStream_t);                  \
    template cudaError_t bdsvd_store<T>(const bd::Problem<T> &, const int *, int *, cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
