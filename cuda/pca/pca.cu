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
using kernels::RealOf;

// x 2^e for real or complex x (ldexp of each part).
template <class T>
__device__ T scale2(T x, int e) {
    if constexpr (kernels::kIsComplex<T>)
        return T(Real<RealOf<T>>::ldexp(x.re, e), Real<RealOf<T>>::ldexp(x.im, e));
    else
        return Real<T>::ldexp(x, e);
}

// A column's sum in double: one accumulator, two for complex data.
template <class T>
struct DoubleSum {
    double re = 0, im = 0;
    __device__ void add(T x) {
        if constexpr (kernels::kIsComplex<T>) {
            re += static_cast<double>(x.re);
            im += static_cast<double>(x.im);
        } else {
            re += static_cast<double>(x);
        }
    }
};

constexpr int kRows = 4096;  // rows per block of the column passes

// The data is scaled by 2^-e, max|X| = f 2^e with f in [0.5, 1) (e = 0 for a zero matrix), as
// two factors each representable: 2^-e alone overflows for subnormal data. Every block computes
// it from the n column maxima (n is small next to m).
template <class T>
struct DataScale {
    RealOf<T> f1, f2;
    int e;
};

template <class T>
__device__ DataScale<T> data_scale(int64_t n, const unsigned long long *amax_bits) {
    using R = RealOf<T>;
    double mx = 0;
    for (int64_t j = 0; j < n; ++j)
        mx = fmax(mx, __longlong_as_double(static_cast<long long>(amax_bits[j])));
    if (!(mx > 0) || !(mx < 1e308 * 10)) return {R(1), R(1), 0};  // zero, or NaN/Inf (the QR reports it)
    int e = 0;
    frexp(mx, &e);
    const int a = -e / 2;
    return {Real<R>::ldexp(R(1), a), Real<R>::ldexp(R(1), -e - a), e};
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
    constexpr int parts = kernels::kIsComplex<T> ? 2 : 1;
    __shared__ double red[parts][32];
    const DataScale<T> s = data_scale<T>(n, amax_bits);
    const int64_t j = blockIdx.y, r0 = int64_t(blockIdx.x) * kRows;
    const int64_t r1 = r0 + kRows < m ? r0 + kRows : m;
    DoubleSum<T> acc;  // double accumulation keeps float means accurate for large m
    for (int64_t i = r0 + threadIdx.x; i < r1; i += blockDim.x) acc.add(X[i + j * ldx] * s.f1 * s.f2);
    double v[parts] = {acc.re};
    if constexpr (parts == 2) v[1] = acc.im;
    for (int c = 0; c < parts; ++c) {
        for (int o = 16; o > 0; o >>= 1) v[c] += __shfl_xor_sync(0xffffffffu, v[c], o);
        if ((threadIdx.x & 31) == 0) red[c][threadIdx.x >> 5] = v[c];
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int c = 0; c < parts; ++c) {
            for (int w = 1; w < static_cast<int>(blockDim.x >> 5); ++w) v[c] += red[c][w];
            atomicAdd(&sums[parts * j + c], v[c]);
        }
}

// The column mean of X * 2^-e from column_sums' double sums.
template <class T>
__device__ T column_mean(const double *sums, int64_t j, int64_t m) {
    if constexpr (kernels::kIsComplex<T>)
        return T(static_cast<RealOf<T>>(sums[2 * j] / static_cast<double>(m)),
                 static_cast<RealOf<T>>(sums[2 * j + 1] / static_cast<double>(m)));
    else
        return static_cast<T>(sums[j] / static_cast<double>(m));
}

template <class T>
__global__ void subtract_means(int64_t m, int64_t n, const T *X, int64_t ldx,
                               const unsigned long long *amax_bits, const double *sums, T *mean_s,
                               int *scale_exp, T *Xc) {
    const DataScale<T> s = data_scale<T>(n, amax_bits);
    const int64_t j = blockIdx.y, r0 = int64_t(blockIdx.x) * kRows;
    const int64_t r1 = r0 + kRows < m ? r0 + kRows : m;
    const T mu = column_mean<T>(sums, j, m);
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
// The unit factor that makes x real and positive: its sign for real x, conj(x) / |x| for
// complex x; 1 for x = 0.
template <class T>
__device__ T unit_phase(T x) {
    if constexpr (kernels::kIsComplex<T>) {
        const RealOf<T> mag = Real<RealOf<T>>::sqrt(kernels::abs2(x));
        return mag > 0 ? kernels::conj(x) / mag : T(1);
    } else {
        return x < 0 ? T(-1) : T(1);
    }
}

template <class T>
__device__ T nan_value() {
    const RealOf<T> q = Real<RealOf<T>>::nan();
    if constexpr (kernels::kIsComplex<T>)
        return T(q, q);
    else
        return q;
}

// A key ordered as |x|: |x| itself for real x, |x|^2 for complex x (no square root per entry).
template <class T>
__device__ RealOf<T> magnitude_order(T x) {
    if constexpr (kernels::kIsComplex<T>)
        return kernels::abs2(x);
    else
        return Real<T>::abs(x);
}

template <class T>
__global__ void finish_kernel(int64_t m, int64_t n, int64_t k, const RealOf<T> *S, bool eigen,
                              const T *V, const T *UR, const int *jinfo, const int *bad,
                              const T *mean_s, const int *scale_exp, T *C, MatLd ldc,
                              RealOf<T> *var, T *W, T *mean, int *info, double *total) {
    using R = RealOf<T>;
    const bool nan = *jinfo == GPUSVD_INFO_NONFINITE || (bad && *bad);
    const int e = *scale_exp, ew = folded_exponent<R>(e);
    const R nanr = Real<R>::nan();
    const T nanv = nan_value<T>();
    for (int64_t j = threadIdx.x; j < k; j += blockDim.x) {
        const T *v = V + j * n;
        int64_t arg = 0;
        for (int64_t c = 1; c < n; ++c)
            if (magnitude_order(v[c]) > magnitude_order(v[arg])) arg = c;
        const T phase = unit_phase(v[arg]);
        for (int64_t c = 0; c < n; ++c) C[ldc.at(c, j)] = nan ? nanv : phase * v[c];
        const R square = eigen ? S[j] : S[j] * S[j];
        var[j] = nan ? nanr : Real<R>::ldexp(square / static_cast<R>(m - 1), 2 * e);
        if (UR)
            for (int64_t i = 0; i < n; ++i)
                W[i + j * n] = nan ? nanv : scale2(phase * S[j] * UR[i + j * n], ew);
    }
    if (mean)
        for (int64_t c = threadIdx.x; c < n; c += blockDim.x)
            mean[c] = nan ? nanv : scale2(mean_s[c], e);
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
    const int r = *scale_exp - (folded ? folded_exponent<RealOf<T>>(*scale_exp) : 0);
    if (r == 0) return;
    for (int64_t j = blockIdx.y; j < k; j += gridDim.y)
        for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < m;
             i += int64_t(gridDim.x) * blockDim.x)
            scores[lds.at(i, j)] = scale2(scores[lds.at(i, j)], r);
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
        if constexpr (kernels::kIsComplex<T>) {
            return cudaErrorInvalidValue;  // complex data: column-major only
        } else {
            const dim3 grid(row_blocks, static_cast<unsigned>((n + kTile - 1) / kTile));
            column_sums_tiles<T>
                <<<grid, kTileThreads, 0, stream>>>(m, n, X, ldx, amax_bits, sums);
            subtract_means_tiles<T><<<grid, kTileThreads, 0, stream>>>(
                m, n, X, ldx, amax_bits, sums, mean_s, scale_exp, Xc);
            return cudaGetLastError();
        }
    }
    const dim3 grid(row_blocks, static_cast<unsigned>(n));
    column_sums<T><<<grid, 256, 0, stream>>>(m, n, X, ldx.ld, amax_bits, sums);
    subtract_means<T><<<grid, 256, 0, stream>>>(m, n, X, ldx.ld, amax_bits, sums, mean_s,
                                                 scale_exp, Xc);
    return cudaGetLastError();
}

template <class T>
cudaError_t pca_finish(int64_t m, int64_t n, int64_t k, const RealOf<T> *S, bool eigen,
                       const T *V, const T *UR, const int *jinfo, const int *bad,
                       const T *mean_s, const int *scale_exp, T *components, MatLd ldc,
                       RealOf<T> *variance, T *W, T *mean, int *info, double *total,
                       cudaStream_t stream) {
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

__global__ void store_double_kernel(double *dst, double value) { *dst = value; }

cudaError_t store_double(double *dst, double value, cudaStream_t stream) {
    store_double_kernel<<<1, 1, 0, stream>>>(dst, value);
    return cudaGetLastError();
}

#define GPUSVD_INSTANTIATE(T)                                                                      \
    template cudaError_t pca_centre<T>(int64_t, int64_t, const T *, MatLd,                         \
                                       const unsigned long long *, double *, T *, int *, T *,      \
                                       cudaStream_t);                                              \
    template cudaError_t pca_finish<T>(int64_t, int64_t, int64_t, const RealOf<T> *, bool,         \
                                       const T *, const T *, const int *, const int *, const T *,  \
                                       const int *, T *, MatLd, RealOf<T> *, T *, T *, int *,      \
                                       double *, cudaStream_t);                                    \
    template cudaError_t pca_scale_scores<T>(int64_t, int64_t, T *, MatLd, const int *, bool,      \
                                             cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE
template cudaError_t mirror_upper<float>(int64_t, float *, cudaStream_t);
template cudaError_t mirror_upper<double>(int64_t, double *, cudaStream_t);

}  // namespace gpu
}  // namespace gpusvd
