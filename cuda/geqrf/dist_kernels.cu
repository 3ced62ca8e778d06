#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "geqrf/dist.hpp"
#include "kernels/dist_start.hpp"

namespace gpusvd {
namespace gpu {
namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void fill_start_kernel(int64_t m, T *q, int64_t offset, int64_t col) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < m;
         i += int64_t(gridDim.x) * blockDim.x)
        q[i] = kernels::dist_start_entry<T>(offset + i, col);
}

template <class T>
__global__ void scale_rsqrt_kernel(int64_t m, T *q, const T *ss) {
    const T inv = T(1) / sqrt(*ss);
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < m;
         i += int64_t(gridDim.x) * blockDim.x)
        q[i] *= inv;
}

// A block per (row chunk, column): the largest magnitude (as double bits) and a NaN/Inf flag.
template <class T>
__global__ void stats_kernel(int64_t m, const T *X, int64_t ldx, long long *stats) {
    const int64_t j = blockIdx.y;
    double mx = 0;
    int bad = 0;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < m;
         i += int64_t(gridDim.x) * blockDim.x) {
        const double v = fabs(double(X[i + j * ldx]));
        if (!isfinite(v)) bad = 1;
        else mx = fmax(mx, v);
    }
    for (int o = 16; o > 0; o >>= 1) {
        mx = fmax(mx, __shfl_xor_sync(0xffffffffu, mx, o));
        bad |= __shfl_xor_sync(0xffffffffu, bad, o);
    }
    if ((threadIdx.x & 31) == 0) {
        if (mx > 0)
            atomicMax(reinterpret_cast<unsigned long long *>(stats),
                      static_cast<unsigned long long>(__double_as_longlong(mx)));
        if (bad) atomicMax(reinterpret_cast<unsigned long long *>(stats + 1), 1ull);
    }
}

// The scaling by 2^-e is two exact multiplications in double (s1 s2 = 2^-e, each representable
// where 2^-e alone is not).
template <class T>
__global__ void scaled_sums_kernel(int64_t m, const T *X, int64_t ldx, double s1, double s2,
                                   double *sums) {
    __shared__ double red[32];
    const int64_t j = blockIdx.y;
    double s = 0;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < m;
         i += int64_t(gridDim.x) * blockDim.x)
        s += double(X[i + j * ldx]) * s1 * s2;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0;
        for (int w = 0; w < int(blockDim.x >> 5); ++w) t += red[w];
        atomicAdd(sums + j, t);
    }
}

template <class T>
__global__ void centre_kernel(int64_t m, const T *X, int64_t ldx, double s1, double s2,
                              const double *sums, int64_t M, T *Xc, int64_t ldc, T *mean_s) {
    const int64_t j = blockIdx.y;
    const T mu = static_cast<T>(sums[j] / double(M));
    if (blockIdx.x == 0 && threadIdx.x == 0) mean_s[j] = mu;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < m;
         i += int64_t(gridDim.x) * blockDim.x)
        Xc[i + j * ldc] = static_cast<T>(double(X[i + j * ldx]) * s1 * s2) - mu;
}

// s1 s2 = 2^-e, both representable in double.
void split_scale(int e, double *s1, double *s2) {
    const int h = -e / 2;
    *s1 = std::ldexp(1.0, h);
    *s2 = std::ldexp(1.0, -e - h);
}

dim3 column_grid(int64_t m, int64_t n) {
    const int64_t chunks = std::min<int64_t>((m + kThreads * 8 - 1) / (kThreads * 8), 128);
    return dim3(static_cast<unsigned>(std::max<int64_t>(chunks, 1)), static_cast<unsigned>(n));
}

unsigned blocks_for(int64_t m) {
    return static_cast<unsigned>(std::min<int64_t>((m + kThreads - 1) / kThreads, 4096));
}

}  // namespace

template <class T>
cudaError_t dist_fill_start(int64_t m, T *q, int64_t offset, int64_t col, cudaStream_t stream) {
    if (m <= 0) return cudaSuccess;
    fill_start_kernel<T><<<blocks_for(m), kThreads, 0, stream>>>(m, q, offset, col);
    return cudaGetLastError();
}

template <class T>
cudaError_t dist_scale_rsqrt(int64_t m, T *q, const T *ss, cudaStream_t stream) {
    if (m <= 0) return cudaSuccess;
    scale_rsqrt_kernel<T><<<blocks_for(m), kThreads, 0, stream>>>(m, q, ss);
    return cudaGetLastError();
}

template <class T>
cudaError_t dist_data_stats(int64_t m, int64_t n, const T *X, int64_t ldx, long long *stats,
                            cudaStream_t stream) {
    if (m <= 0 || n <= 0) return cudaSuccess;
    stats_kernel<T><<<column_grid(m, n), kThreads, 0, stream>>>(m, X, ldx, stats);
    return cudaGetLastError();
}

template <class T>
cudaError_t dist_scaled_sums(int64_t m, int64_t n, const T *X, int64_t ldx, int e, double *sums,
                             cudaStream_t stream) {
    if (m <= 0 || n <= 0) return cudaSuccess;
    double s1, s2;
    split_scale(e, &s1, &s2);
    scaled_sums_kernel<T><<<column_grid(m, n), kThreads, 0, stream>>>(m, X, ldx, s1, s2, sums);
    return cudaGetLastError();
}

template <class T>
cudaError_t dist_centre(int64_t m, int64_t n, const T *X, int64_t ldx, int e, const double *sums,
                        int64_t M, T *Xc, int64_t ldc, T *mean_s, cudaStream_t stream) {
    if (n <= 0) return cudaSuccess;
    double s1, s2;
    split_scale(e, &s1, &s2);
    centre_kernel<T><<<column_grid(m, n), kThreads, 0, stream>>>(m, X, ldx, s1, s2, sums, M, Xc,
                                                                 ldc, mean_s);
    return cudaGetLastError();
}

#define GPUSVD_INSTANTIATE(T)                                                                    \
    template cudaError_t dist_data_stats<T>(int64_t, int64_t, const T *, int64_t, long long *,  \
                                            cudaStream_t);                                      \
    template cudaError_t dist_scaled_sums<T>(int64_t, int64_t, const T *, int64_t, int,         \
                                             double *, cudaStream_t);                           \
    template cudaError_t dist_centre<T>(int64_t, int64_t, const T *, int64_t, int,              \
                                        const double *, int64_t, T *, int64_t, T *, cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

template cudaError_t dist_fill_start<float>(int64_t, float *, int64_t, int64_t, cudaStream_t);
template cudaError_t dist_fill_start<double>(int64_t, double *, int64_t, int64_t, cudaStream_t);
template cudaError_t dist_scale_rsqrt<float>(int64_t, float *, const float *, cudaStream_t);
template cudaError_t dist_scale_rsqrt<double>(int64_t, double *, const double *, cudaStream_t);

}  // namespace gpu
}  // namespace gpusvd
