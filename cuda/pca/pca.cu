#include <cuda_runtime.h>

#include <algorithm>
#include <limits>

#include "geqrf/tile.cuh"
#include "gpusvd.h"
#include "kernels/team.hpp"
#include "pca/pca.hpp"

namespace gpusvd {
namespace gpu {
namespace {

using kernels::Real;

constexpr int kRows = 4096;  // rows per block of the column passes

// The data is scaled by 2^-e, max|X| = f 2^e with f in [0.5, 1) (e = 0 for a zero matrix), as
// two factors each representable: 2^-e alone overflows for subnormal data. Every block computes
// it from the n column maxima (n is small next to m).
template <class T>
struct DataScale {
    T f1, f2;
    int e;
};

template <class T>
__device__ DataScale<T> data_scale(int64_t n, const unsigned long long *amax_bits) {
    double mx = 0;
    for (int64_t j = 0; j < n; ++j)
        mx = fmax(mx, __longlong_as_double(static_cast<long long>(amax_bits[j])));
    if (!(mx > 0) || !(mx < 1e308 * 10)) return {T(1), T(1), 0};  // zero, or NaN/Inf (the QR reports it)
    int e = 0;
    frexp(mx, &e);
    const int a = -e / 2;
    return {Real<T>::ldexp(T(1), a), Real<T>::ldexp(T(1), -e - a), e};
}

// The part of 2^e folded into the scores' small factor W (the rest scales the scores after the
// GEMM): W's entries stay far from overflow, and from underflow where they matter.
template <class T>
__host__ __device__ int folded_exponent(int e) {
    constexpr int lim = (std::numeric_limits<T>::max_exponent - 1) / 2;
    return e < -lim ? -lim : (e > lim ? lim : e);
}

template <class T>
__global__ void column_sums(int64_t m, int64_t n, const T *X, int64_t ldx,
                            const unsigned long long *amax_bits, double *sums) {
    __shared__ double red[32];
    const DataScale<T> s = data_scale<T>(n, amax_bits);
    const int64_t j = blockIdx.y, r0 = int64_t(blockIdx.x) * kRows;
    const int64_t r1 = r0 + kRows < m ? r0 + kRows : m;
    double acc = 0;  // double accumulation keeps float means accurate for large m
    for (int64_t i = r0 + threadIdx.x; i < r1; i += blockDim.x)
        acc += static_cast<double>(X[i + j * ldx] * s.f1 * s.f2);
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
                               int *scale_exp, T *Xc) {
    const DataScale<T> s = data_scale<T>(n, amax_bits);
    const int64_t j = blockIdx.y, r0 = int64_t(blockIdx.x) * kRows;
    const int64_t r1 = r0 + kRows < m ? r0 + kRows : m;
    const T mu = static_cast<T>(sums[j] / static_cast<double>(m));
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        mean_s[j] = mu;
        if (j == 0) *scale_exp = s.e;
    }
    for (int64_t i = r0 + threadIdx.x; i < r1; i += blockDim.x)
        Xc[i + j * m] = X[i + j * ldx] * s.f1 * s.f2 - mu;
}

// Row-major X (gpusvdSetMatrixLayout): the same two passes over 32-column tiles of kRows rows,
// read along X's rows through shared memory (geqrf/tile.cuh); the centred copy is written
// column-major, as from column-major X, so everything after the centring is the same.
template <class T>
__global__ void __launch_bounds__(kTileThreads)
    column_sums_tiles(int64_t m, int64_t n, const T *X, MatLd ldx,
                      const unsigned long long *amax_bits, double *sums) {
    __shared__ T t[kTile][kTile + 1];
    __shared__ double red[kTileThreads / 32][kTile];
    const DataScale<T> s = data_scale<T>(n, amax_bits);
    const int lane = threadIdx.x & 31, g = threadIdx.x >> 5;
    const int64_t c = int64_t(blockIdx.y) * kTile, r0 = int64_t(blockIdx.x) * kRows;
    const int64_t r1 = r0 + kRows < m ? r0 + kRows : m;
    double acc = 0;
    for (int64_t r = r0; r < r1; r += kTile) {
        load_tile(X, ldx, r1, n, r, c, t, T(0));
        __syncthreads();
        for (int q = g; q < kTile; q += kTileThreads / 32)
            acc += static_cast<double>(t[q][lane] * s.f1 * s.f2);
        __syncthreads();
    }
    red[g][lane] = acc;
    __syncthreads();
    if (g == 0 && c + lane < n) {
        for (int i = 1; i < kTileThreads / 32; ++i) acc += red[i][lane];
        atomicAdd(&sums[c + lane], acc);
    }
}

template <class T>
__global__ void __launch_bounds__(kTileThreads)
    subtract_means_tiles(int64_t m, int64_t n, const T *X, MatLd ldx,
                         const unsigned long long *amax_bits, const double *sums, T *mean_s,
                         int *scale_exp, T *Xc) {
    __shared__ T t[kTile][kTile + 1];
    __shared__ T mu[kTile];
    const DataScale<T> s = data_scale<T>(n, amax_bits);
    const int lane = threadIdx.x & 31, g = threadIdx.x >> 5;
    const int64_t c = int64_t(blockIdx.y) * kTile, r0 = int64_t(blockIdx.x) * kRows;
    const int64_t r1 = r0 + kRows < m ? r0 + kRows : m;
    if (threadIdx.x < kTile) {
        const int64_t j = c + threadIdx.x;
        mu[threadIdx.x] = j < n ? static_cast<T>(sums[j] / static_cast<double>(m)) : T(0);
        if (blockIdx.x == 0 && j < n) {
            mean_s[j] = mu[threadIdx.x];
            if (j == 0) *scale_exp = s.e;
        }
    }
    __syncthreads();
    for (int64_t r = r0; r < r1; r += kTile) {
        load_tile(X, ldx, r1, n, r, c, t, T(0));
        __syncthreads();
        for (int q = g; q < kTile; q += kTileThreads / 32)
            t[q][lane] = t[q][lane] * s.f1 * s.f2 - mu[lane];
        __syncthreads();
        store_tile(Xc, MatLd(m), r1, n, r, c, t);
        __syncthreads();
    }
}

// Outputs of the data's scale are the scaled ones times 2^e (2^2e for variances), by ldexp:
// each is its exact value rounded, +Inf only where that exceeds the largest finite value.
template <class T>
__global__ void finish_kernel(int64_t m, int64_t n, int64_t k, const T *S, bool eigen, const T *V,
                              const T *UR, const int *jinfo, const int *bad, const T *mean_s,
                              const int *scale_exp, T *C, MatLd ldc, T *var, T *W, T *mean,
                              int *info, double *total) {
    const bool nan = *jinfo == GPUSVD_INFO_NONFINITE || (bad && *bad);
    const int e = *scale_exp, ew = folded_exponent<T>(e);
    const T nanv = Real<T>::nan();
    for (int64_t j = threadIdx.x; j < k; j += blockDim.x) {
        const T *v = V + j * n;
        int64_t arg = 0;
        for (int64_t c = 1; c < n; ++c)
            if (Real<T>::abs(v[c]) > Real<T>::abs(v[arg])) arg = c;
        const T sign = v[arg] < 0 ? T(-1) : T(1);
        for (int64_t c = 0; c < n; ++c) C[ldc.at(c, j)] = nan ? nanv : sign * v[c];
        const T square = eigen ? S[j] : S[j] * S[j];
        var[j] = nan ? nanv : Real<T>::ldexp(square / static_cast<T>(m - 1), 2 * e);
        if (UR)
            for (int64_t i = 0; i < n; ++i)
                W[i + j * n] = nan ? nanv : Real<T>::ldexp(sign * S[j] * UR[i + j * n], ew);
    }
    if (mean)
        for (int64_t c = threadIdx.x; c < n; c += blockDim.x)
            mean[c] = nan ? nanv : Real<T>::ldexp(mean_s[c], e);
    if (threadIdx.x == 0) *info = nan ? GPUSVD_INFO_NONFINITE : *jinfo;
    if (threadIdx.x == 0 && total) {  // all n values are there: ||Xc||_F^2 (n is small)
        double s = 0;
        for (int64_t j = 0; j < n; ++j) s += eigen ? double(S[j]) : double(S[j]) * double(S[j]);
        *total = nan ? Real<double>::nan() : ldexp(s / double(m - 1), 2 * e);
    }
}

// The part of 2^e not folded into W (all of it when nothing was): nothing to do but for data
// near overflow or underflow.
template <class T>
__global__ void scale_scores(int64_t m, int64_t k, T *scores, MatLd lds, const int *scale_exp,
                             bool folded) {
    const int r = *scale_exp - (folded ? folded_exponent<T>(*scale_exp) : 0);
    if (r == 0) return;
    for (int64_t j = blockIdx.y; j < k; j += gridDim.y)
        for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < m;
             i += int64_t(gridDim.x) * blockDim.x)
            scores[lds.at(i, j)] = Real<T>::ldexp(scores[lds.at(i, j)], r);
}

template <class T>
__global__ void mirror_kernel(int64_t n, T *G) {
    for (int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < n * n;
         idx += int64_t(gridDim.x) * blockDim.x) {
        const int64_t i = idx % n, j = idx / n;
        if (i > j) G[idx] = G[j + i * n];
    }
}

}  // namespace

template <class T>
cudaError_t pca_centre(int64_t m, int64_t n, const T *X, MatLd ldx,
                       const unsigned long long *amax_bits, double *sums, T *mean_s,
                       int *scale_exp, T *Xc, cudaStream_t stream) {
    const auto row_blocks = static_cast<unsigned>((m + kRows - 1) / kRows);
    if (ldx.row) {
        const dim3 grid(row_blocks, static_cast<unsigned>((n + kTile - 1) / kTile));
        column_sums_tiles<T><<<grid, kTileThreads, 0, stream>>>(m, n, X, ldx, amax_bits, sums);
        subtract_means_tiles<T><<<grid, kTileThreads, 0, stream>>>(m, n, X, ldx, amax_bits, sums,
                                                                   mean_s, scale_exp, Xc);
        return cudaGetLastError();
    }
    const dim3 grid(row_blocks, static_cast<unsigned>(n));
    column_sums<T><<<grid, 256, 0, stream>>>(m, n, X, ldx.ld, amax_bits, sums);
    subtract_means<T><<<grid, 256, 0, stream>>>(m, n, X, ldx.ld, amax_bits, sums, mean_s,
                                                 scale_exp, Xc);
    return cudaGetLastError();
}

template <class T>
cudaError_t pca_finish(int64_t m, int64_t n, int64_t k, const T *S, bool eigen, const T *V,
                       const T *UR, const int *jinfo, const int *bad, const T *mean_s,
                       const int *scale_exp, T *components, MatLd ldc, T *variance, T *W,
                       T *mean, int *info, double *total, cudaStream_t stream) {
    finish_kernel<T><<<1, 256, 0, stream>>>(m, n, k, S, eigen, V, UR, jinfo, bad, mean_s,
                                            scale_exp, components, ldc, variance, W, mean, info,
                                            total);
    return cudaGetLastError();
}

template <class T>
cudaError_t pca_scale_scores(int64_t m, int64_t k, T *scores, MatLd lds, const int *scale_exp,
                             bool folded, cudaStream_t stream) {
    const dim3 grid(static_cast<unsigned>(std::min<int64_t>((m + 255) / 256, 1024)),
                    static_cast<unsigned>(std::min<int64_t>(k, 64)));
    scale_scores<T><<<grid, 256, 0, stream>>>(m, k, scores, lds, scale_exp, folded);
    return cudaGetLastError();
}

template <class T>
cudaError_t mirror_upper(int64_t n, T *G, cudaStream_t stream) {
    const unsigned blocks = static_cast<unsigned>(std::min<int64_t>((n * n + 255) / 256, 4096));
    mirror_kernel<T><<<blocks, 256, 0, stream>>>(n, G);
    return cudaGetLastError();
}

#define GPUSVD_INSTANTIATE(T)                                                                      \
    template cudaError_t pca_centre<T>(int64_t, int64_t, const T *, MatLd,                         \
                                       const unsigned long long *, double *, T *, int *, T *,      \
                                       cudaStream_t);                                              \
    template cudaError_t pca_finish<T>(int64_t, int64_t, int64_t, const T *, bool, const T *,      \
                                       const T *, const int *, const int *, const T *,             \
                                       const int *, T *, MatLd, T *, T *, T *, int *, double *,    \
                                       cudaStream_t);                                              \
    template cudaError_t pca_scale_scores<T>(int64_t, int64_t, T *, MatLd, const int *, bool,      \
                                             cudaStream_t);                                        \
    template cudaError_t mirror_upper<T>(int64_t, T *, cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
