#include <cuda_runtime.h>

#include "gpusvd.h"
#include "kernels/team.hpp"
#include "pca/pca.hpp"

namespace gpusvd {
namespace gpu {
namespace {

using kernels::Real;

constexpr int kRows = 4096;  // rows per block of the column passes

// s = 2^-e, max|X| = f 2^e with f in [0.5, 1); 1 for a zero matrix. Every block computes it
// from the n column maxima (n is small next to m).
template <class T>
__device__ T data_scale(int64_t n, const unsigned long long *amax_bits) {
    double mx = 0;
    for (int64_t j = 0; j < n; ++j)
        mx = fmax(mx, __longlong_as_double(static_cast<long long>(amax_bits[j])));
    if (!(mx > 0) || !(mx < 1e308 * 10)) return T(1);  // zero, or NaN/Inf (the QR reports it)
    int e = 0;
    frexp(mx, &e);
    return Real<T>::ldexp(T(1), -e);
}

template <class T>
__global__ void column_sums(int64_t m, int64_t n, const T *X, int64_t ldx,
                            const unsigned long long *amax_bits, double *sums) {
    __shared__ double red[32];
    const T s = data_scale<T>(n, amax_bits);
    const int64_t j = blockIdx.y, r0 = int64_t(blockIdx.x) * kRows;
    const int64_t r1 = r0 + kRows < m ? r0 + kRows : m;
    double acc = 0;  // double accumulation keeps float means accurate for large m
    for (int64_t i = r0 + threadIdx.x; i < r1; i += blockDim.x)
        acc += static_cast<double>(X[i + j * ldx] * s);
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < static_cast<int>(blockDim.x >> 5); ++w) acc += red[w];
        atomicAdd(&sums[j], acc);
    }
}

template <class T>
__global__ void subtract_means(int64_t m, int64_t n, const T *X, int64_t ldx,
                               const unsigned long long *amax_bits, const double *sums, T *mean_s,
                               T *scale, T *Xc) {
    const T s = data_scale<T>(n, amax_bits);
    const int64_t j = blockIdx.y, r0 = int64_t(blockIdx.x) * kRows;
    const int64_t r1 = r0 + kRows < m ? r0 + kRows : m;
    const T mu = static_cast<T>(sums[j] / static_cast<double>(m));
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        mean_s[j] = mu;
        if (j == 0) *scale = s;
    }
    for (int64_t i = r0 + threadIdx.x; i < r1; i += blockDim.x)
        Xc[i + j * m] = X[i + j * ldx] * s - mu;
}

template <class T>
__global__ void finish_kernel(int64_t m, int64_t n, int64_t k, const T *S, const T *V, const T *UR,
                              const int *jinfo, const T *mean_s, const T *scale, T *C, int64_t ldc,
                              T *var, T *W, T *mean, int *info) {
    const bool nan = *jinfo == GPUSVD_INFO_NONFINITE;
    const T s = *scale, nanv = Real<T>::nan();
    for (int64_t j = threadIdx.x; j < k; j += blockDim.x) {
        const T *v = V + j * n;
        int64_t arg = 0;
        for (int64_t c = 1; c < n; ++c)
            if (Real<T>::abs(v[c]) > Real<T>::abs(v[arg])) arg = c;
        const T sign = v[arg] < 0 ? T(-1) : T(1);
        for (int64_t c = 0; c < n; ++c) C[c + j * ldc] = nan ? nanv : sign * v[c];
        const T sigma = S[j] / s;
        var[j] = nan ? nanv : sigma * sigma / static_cast<T>(m - 1);
        if (UR)
            for (int64_t i = 0; i < n; ++i)
                W[i + j * n] = nan ? nanv : sign * sigma * UR[i + j * n];
    }
    if (mean)
        for (int64_t c = threadIdx.x; c < n; c += blockDim.x) mean[c] = nan ? nanv : mean_s[c] / s;
    if (threadIdx.x == 0) *info = *jinfo;
}

}  // namespace

template <class T>
cudaError_t pca_centre(int64_t m, int64_t n, const T *X, int64_t ldx,
                       const unsigned long long *amax_bits, double *sums, T *mean_s, T *scale,
                       T *Xc, cudaStream_t stream) {
    const dim3 grid(static_cast<unsigned>((m + kRows - 1) / kRows), static_cast<unsigned>(n));
    column_sums<T><<<grid, 256, 0, stream>>>(m, n, X, ldx, amax_bits, sums);
    subtract_means<T><<<grid, 256, 0, stream>>>(m, n, X, ldx, amax_bits, sums, mean_s, scale, Xc);
    return cudaGetLastError();
}

template <class T>
cudaError_t pca_finish(int64_t m, int64_t n, int64_t k, const T *S, const T *V, const T *UR,
                       const int *jinfo, const T *mean_s, const T *scale, T *components,
                       int64_t ldc, T *variance, T *W, T *mean, int *info, cudaStream_t stream) {
    finish_kernel<T><<<1, 256, 0, stream>>>(m, n, k, S, V, UR, jinfo, mean_s, scale, components,
                                            ldc, variance, W, mean, info);
    return cudaGetLastError();
}

#define GPUSVD_INSTANTIATE(T)                                                                      \
    template cudaError_t pca_centre<T>(int64_t, int64_t, const T *, int64_t,                       \
                                       const unsigned long long *, double *, T *, T *, T *,        \
                                       cudaStream_t);                                              \
    template cudaError_t pca_finish<T>(int64_t, int64_t, int64_t, const T *, const T *, const T *, \
                                       const int *, const T *, const T *, T *, int64_t, T *, T *,  \
                                       T *, int *, cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
