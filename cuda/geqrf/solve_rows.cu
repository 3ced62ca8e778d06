// W <- W Rs^-1 for a tall panel: the triangular solve of each CholeskyQR step (see cholqr.hpp).
// cuBLAS's TRSM moves a 1e5 x 64 panel at a fraction of the memory bandwidth (about 0.4 TB/s on
// sm_90), the step's largest cost; the rows are independent, so a thread per row with the row in
// registers reads and writes W once at full bandwidth, and Rs sits in shared memory, read by all
// lanes at once. A row-major W (gpusvdSetMatrixLayout) is solved in place the same way: a
// thread's row is then contiguous, and its loads of the row's cache lines are reused from L1.
// Complex rows (kernels::Complex) take twice the registers per column, hence solve_rows_max.
#include <cuda_runtime.h>

#include <algorithm>

#include "common/launch.cuh"
#include "geqrf/cholqr.hpp"
#include "kernels/complex.hpp"

namespace gpusvd {
namespace gpu {
namespace {

constexpr int kSolveThreads = 128;

// Column j of the row: x_j = (w_j - sum_{i<j} x_i Rs(i,j)) / Rs(j,j), the order of the reference
// DTRSM (right side, upper, no transpose), with the reciprocal diagonal as it uses. Rs is read
// through a volatile pointer: otherwise the compiler hoists all w^2/2 entries out of the row
// loop into registers and spills (255 registers and a 16 KB stack frame at w = 64).
// A volatile read of shared memory: built-in types directly, complex ones part by part (the
// struct has no volatile copy).
template <class T>
__device__ __forceinline__ T load(const volatile T *p) {
    if constexpr (kernels::kIsComplex<T>)
        return T(p->re, p->im);
    else
        return *p;
}

template <class T, int WMAX, bool ROW>
__global__ void __launch_bounds__(kSolveThreads)
    solve_rows_kernel(int64_t m, int w, const T *__restrict__ Rs, int64_t ldr, T *W, int64_t ld) {
    using RT = kernels::RealOf<T>;
    __shared__ T R[WMAX * WMAX];
    __shared__ RT dinv[WMAX];  // Rs's diagonal is real
    for (int idx = threadIdx.x; idx < WMAX * WMAX; idx += blockDim.x) {
        const int i = idx % WMAX, j = idx / WMAX;
        R[idx] = i < j && j < w ? Rs[i + j * ldr] : T(0);
    }
    for (int j = threadIdx.x; j < w; j += blockDim.x)
        dinv[j] = RT(1) / kernels::real(Rs[j + j * ldr]);
    __syncthreads();
    const volatile T *Rv = R;
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    for (int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < m; r += stride) {
        // Entry j's address is written out in full at the load and again at the store, with the
        // layout a template parameter: a run-time stride, a pointer stepped along the row or an
        // address shared by the two loops keeps all WMAX addresses live across the solve, and
        // at w = 64 in double the kernel spills over a kilobyte per thread.
        const auto at = [&](int j) { return ROW ? r * ld + j : r + j * ld; };
        T x[WMAX];
#pragma unroll
        for (int j = 0; j < WMAX; ++j) x[j] = j < w ? W[at(j)] : T(0);
#pragma unroll
        for (int j = 0; j < WMAX; ++j) {
            T s = x[j];
#pragma unroll
            for (int i = 0; i < j; ++i) s -= x[i] * load(Rv + i + j * WMAX);
            x[j] = s * dinv[j];
        }
#pragma unroll
        for (int j = 0; j < WMAX; ++j)
            if (j < w) W[at(j)] = x[j];
    }
}

template <class T, int WMAX>
cudaError_t launch(int64_t m, int w, const T *Rs, int64_t ldr, T *W, MatLd ldw,
                   cudaStream_t stream) {
    // Enough blocks to fill the device a few times over; each loads Rs once and strides on.
    static const int sms = device_attribute(cudaDevAttrMultiProcessorCount, 132);
    const int64_t need = (m + kSolveThreads - 1) / kSolveThreads;
    const auto grid = static_cast<unsigned>(std::min<int64_t>(need, int64_t(sms) * 8));
    if (ldw.row)
        solve_rows_kernel<T, WMAX, true><<<grid, kSolveThreads, 0, stream>>>(m, w, Rs, ldr, W,
                                                                              ldw.ld);
    else
        solve_rows_kernel<T, WMAX, false><<<grid, kSolveThreads, 0, stream>>>(m, w, Rs, ldr, W,
                                                                               ldw.ld);
    return cudaGetLastError();
}

}  // namespace

template <class T>
cudaError_t solve_right_upper(int64_t m, int w, const T *Rs, int64_t ldr, T *W, MatLd ldw,
                              cudaStream_t stream) {
    if (m <= 0 || w <= 0) return cudaSuccess;
    if (w > solve_rows_max<T>()) return cudaErrorInvalidValue;
    if (w <= 16) return launch<T, 16>(m, w, Rs, ldr, W, ldw, stream);
    if constexpr (solve_rows_max<T>() >= 32)
        if (w <= 32) return launch<T, 32>(m, w, Rs, ldr, W, ldw, stream);
    if constexpr (solve_rows_max<T>() >= kSolveRowsMax)
        return launch<T, kSolveRowsMax>(m, w, Rs, ldr, W, ldw, stream);
    return cudaErrorInvalidValue;
}

#define GPUSVD_INSTANTIATE(T)                                                                   \
    template cudaError_t solve_right_upper<T>(int64_t, int, const T *, int64_t, T *, MatLd,    \
                                              cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
