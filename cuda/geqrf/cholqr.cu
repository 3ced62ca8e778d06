// Kernels of the tall QR: see cholqr.hpp. The Cholesky step runs in one thread block: the Gram
// matrix is at most kCholPanel wide, so its O(w^3) work is small next to the O(m w^2) GEMMs.
// Real and complex elements (kernels::Complex): a complex Gram matrix is Hermitian, its diagonal
// (read as the real part) and the Cholesky factor's diagonal real.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>

#include "common/launch.cuh"
#include "geqrf/cholqr.hpp"
#include "geqrf/tile.cuh"
#include "gpusvd.h"
#include "kernels/complex.hpp"
#include "kernels/qr_team.hpp"
#include "kernels/team.hpp"

namespace gpusvd {
namespace gpu {
namespace {

using kernels::is_finite;
using kernels::Real;
using kernels::RealOf;

template <class T>
__device__ T block_sum(T v, T *red) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
    __syncthreads();
    T r = 0;
    for (int i = 0; i < static_cast<int>(blockDim.x >> 5); ++i) r += red[i];
    return r;
}

// Right-looking Cholesky of the upper triangle of M (w x w, ld w) in place; columns with dd[j]
// set get the row e_j (no contribution to the columns after them). A pivot not above tau fails
// the factorisation (false, uniformly over the block), or with allow_drop marks the column
// dd[j] = 2: on a later step the columns before it are orthonormal, so its part orthogonal to
// them is at rounding level; the step leaves that part unnormalised (the next step decides whether
// it is a new direction or vanishes) instead of blowing rounding noise up to a unit column.
// The pivot row is also kept in rowj (contiguous, unlike M's rows): the trailing update runs a
// warp per column with its lanes down the column, so neither side has bank conflicts (an
// update flattened over (i, k) with a division per entry measured slower on sm_90).
template <class T>
__device__ bool cholesky_upper(T *M, int w, int *dd, T *rowj, RealOf<T> tau, bool allow_drop) {
    const int t = threadIdx.x, nt = blockDim.x, lane = t & 31, warp = t >> 5, nwarps = nt >> 5;
    for (int j = 0; j < w; ++j) {
        __syncthreads();
        const RealOf<T> p = kernels::real(M[j + j * w]);
        bool drop = dd[j] != 0;
        if (!drop && !(p > tau)) {
            if (!allow_drop) return false;
            drop = true;
        }
        __syncthreads();  // everyone has read the pivot and dd[j]
        if (drop) {
            if (t == 0 && !dd[j]) dd[j] = 2;
            for (int k = j + t; k < w; k += nt) M[j + k * w] = k == j ? T(1) : T(0);
            continue;
        }
        const RealOf<T> r = Real<RealOf<T>>::sqrt(p);
        for (int k = j + t; k < w; k += nt) {
            const T v = k == j ? T(r) : M[j + k * w] / r;
            M[j + k * w] = v;
            rowj[k] = v;
        }
        __syncthreads();
        // M(i,k) -= conj(Rs(j,i)) Rs(j,k): the trailing part of Rs^H Rs
        for (int k = j + 1 + warp; k < w; k += nwarps) {
            const T b = rowj[k];
            for (int i = j + 1 + lane; i <= k; i += 32) M[i + k * w] -= kernels::mul_conj(rowj[i], b);
        }
    }
    __syncthreads();
    return true;
}

constexpr int kCholThreads = 512;

template <class T>
__global__ void __launch_bounds__(kCholThreads)
    chol_step_kernel(const T *G, int w, int64_t m, int max_steps, bool screened, T *Rs, T *S,
                     int64_t lds, int *dead, CholStepFlags *flags, CholStepCtl *ctl, T *Mg) {
    using RT = RealOf<T>;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ RT sc[kCholPanel];
    __shared__ int dd[kCholPanel];
    __shared__ T rowj[kCholPanel];
    __shared__ RT red[32];
    __shared__ int s_bad, s_dead, s_drop;
    T *M = Mg ? Mg : reinterpret_cast<T *>(smem);
    const int t = threadIdx.x, nt = blockDim.x;
    using R = Real<RT>;
    if (t == 0) s_bad = 0, s_dead = 0, s_drop = 0;
    const int step = ctl->step;
    const bool first = step == 0, last = step == max_steps - 1;
    __syncthreads();  // every thread has read the step before thread 0 advances it

    // Diagonal: column scales, vanished columns, and whether the Gram matrix can be trusted
    // (no NaN/Inf, no diagonal near overflow, and on an unscreened first step none that may
    // have underflowed, zero included: the caller screens the matrix then).
    const RT lo = R::safe_min() / R::eps();
    const RT hi = R::ldexp(RT(1), R::max_exp() - 4) / RT(w);
    // After the first step the live columns have unit norm or are a dropped column's residual:
    // one below eps^2 of the largest has vanished (zeroed, completed at the end).
    RT dmax = 0;
    for (int j = t; j < w; j += nt) {
        const RT d = kernels::real(G[j + j * w]);
        if (is_finite(d)) dmax = fmax(dmax, d);
    }
    for (int o = 16; o > 0; o >>= 1) dmax = fmax(dmax, __shfl_xor_sync(0xffffffffu, dmax, o));
    if ((t & 31) == 0) red[t >> 5] = dmax;
    __syncthreads();
    for (int i = 0; i < (nt >> 5); ++i) dmax = fmax(dmax, red[i]);
    const RT vanish = first ? RT(0) : dmax * R::eps() * R::eps();
    for (int j = t; j < w; j += nt) {
        const RT d = kernels::real(G[j + j * w]);
        int isdead = 0;
        if (!is_finite(d) || d > hi || d < 0 || (first && !screened && d < lo))
            atomicOr(&s_bad, 1);
        else if (d <= vanish || dead[j])
            isdead = 1;
        dd[j] = isdead;
        sc[j] = isdead ? RT(1) : RT(1) / R::sqrt(d);
    }
    for (int idx = t; idx < w * w; idx += nt)
        if (idx % w <= idx / w && !is_finite(G[idx])) atomicOr(&s_bad, 1);
    __syncthreads();
    if (s_bad) {
        for (int idx = t; idx < w * w; idx += nt) Rs[idx] = idx % w == idx / w ? T(1) : T(0);
        if (t == 0) {
            *flags = CholStepFlags{1, 0, 0, 0, 0.f};
            ctl->step = step + 1;
            ctl->cont = 0;
        }
        return;
    }
    // Scaled Gram matrix (unit diagonal) and its distance from the identity.
    RT off = 0;
    for (int idx = t; idx < w * w; idx += nt) {
        const int i = idx % w, j = idx / w;
        if (i > j) continue;
        const T v = i == j ? (dd[j] ? T(0) : T(1)) : G[idx] * sc[i] * sc[j];
        M[idx] = v;
        if (i != j) off += kernels::abs2(v);
    }
    off = R::sqrt(2 * block_sum(off, red));

    // Unshifted first; on breakdown shift the diagonal by about the Gram matrix's rounding
    // error (shifted CholeskyQR, Fukaya et al. 2020), growing it if that is not enough.
    const RT tau = RT(w) * R::eps();
    RT shift = 0;
    int shifted = 0;
    for (int attempt = 0;; ++attempt) {
        if (attempt > 0) {
            __syncthreads();
            for (int idx = t; idx < w * w; idx += nt) {
                const int i = idx % w, j = idx / w;
                if (i > j) continue;
                M[idx] = i == j ? (dd[j] ? T(0) : T(RT(1) + shift)) : G[idx] * sc[i] * sc[j];
            }
        }
        if (cholesky_upper(M, w, dd, rowj, tau, !first) || attempt == 6) break;
        shifted = 1;
        shift = attempt == 0
                    ? RT(10) * (RT(w) + R::sqrt(RT(m))) * R::eps() * R::sqrt(RT(w) + off * off)
                    : shift * 100;
    }

    // Columns found vanished this step (the caller zeroes them in W after the solve and
    // completes Q at the end); a dropped pivot asks for another step.
    for (int j = t; j < w; j += nt) {
        // On the last allowed step a column still dropped is given up as vanished.
        if ((dd[j] == 1 || (dd[j] == 2 && last)) && !dead[j]) {
            atomicAdd(&s_dead, 1);
            dead[j] = 1;
        }
        if (dd[j] == 2) atomicAdd(&s_drop, 1);
        if (dd[j] == 2 && !last) shifted = 1;
    }

    // Rs = R~ D^-1 (D = diag(sc)), lower part zero. A dropped column keeps its coefficients on
    // the columns before it and Rs(j,j) = its norm, so its residual stays in W unnormalised.
    for (int idx = t; idx < w * w; idx += nt) {
        const int i = idx % w, j = idx / w;
        Rs[idx] = i <= j ? M[idx] / sc[j] : T(0);
    }
    __syncthreads();
    if (first) {
        for (int idx = t; idx < w * w; idx += nt) {
            const int i = idx % w, j = idx / w;
            S[i + j * lds] = Rs[idx];
        }
    } else {  // S <- Rs * S through M (free again)
        for (int idx = t; idx < w * w; idx += nt) {
            const int i = idx % w, j = idx / w;
            T v = T(0);
            for (int l = i; l <= j; ++l) v += Rs[i + l * w] * S[l + j * lds];
            M[idx] = v;
        }
        __syncthreads();
        for (int idx = t; idx < w * w; idx += nt) S[idx % w + (idx / w) * lds] = M[idx];
    }
    shifted = __syncthreads_or(shifted);
    if (t == 0) {
        const float offf = static_cast<float>(off);
        *flags = CholStepFlags{0, shifted, s_dead, s_drop, offf};
        // The same decision the host path takes from the flags (tall.cpp).
        ctl->step = step + 1;
        ctl->cont = (shifted || offf > 0.5f) && step + 1 < max_steps;
        if (s_dead > 0 || s_drop > 0) ctl->rankdef = 1;
    }
}

// A warp per column, 32 of them: each column is a few dependent round trips to memory, so the
// pass is latency-bound (a thread per column with serial loops, or 8 warps, measured slower on
// sm_90). The column's norm is taken scaled by a power of two (no division per entry).
constexpr int kFinishThreads = 1024;

template <class T>
__global__ void __launch_bounds__(kFinishThreads)
    finish_kernel(int64_t m, int64_t k, T *R, int64_t ldr, const int *dead, const int *exps,
                  int *info) {
    __shared__ int first;
    if (threadIdx.x == 0) first = INT_MAX;
    __syncthreads();
    using RT = RealOf<T>;
    const RT thresh = RT(m) * Real<RT>::eps();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    for (int64_t j = warp; j < k; j += warps) {
        T *c = R + j * ldr;
        RT amax = 0;
        for (int64_t i = lane; i <= j; i += 32) amax = fmax(amax, kernels::qr_mag(c[i]));
        for (int o = 16; o > 0; o >>= 1) amax = fmax(amax, __shfl_xor_sync(0xffffffffu, amax, o));
        const RT p = amax > RT(0) ? Real<RT>::inv_pow2(amax) : RT(1);
        RT ssq = 0;
        for (int64_t i = lane; i <= j; i += 32) ssq += kernels::abs2(c[i] * p);
        for (int o = 16; o > 0; o >>= 1) ssq += __shfl_xor_sync(0xffffffffu, ssq, o);
        // R(j,j) is real (the steps' Cholesky factors have real diagonals); complex: its
        // imaginary part is exactly zero on every path, cleared here all the same.
        const RT cjj = kernels::real(c[j]);
        const bool drop = dead[j] || cjj * p <= thresh * Real<RT>::sqrt(ssq);
        __syncwarp();  // every lane has read c[j]
        if (lane == 0 && drop) atomicMin(&first, static_cast<int>(j));
        const int e = exps ? -exps[j] : 0;
        for (int64_t i = lane; i < k; i += 32) {
            if (i > j || (i == j && drop))
                c[i] = T(0);
            else if (kernels::kIsComplex<T> && i == j)
                c[i] = T(Real<RT>::ldexp(cjj, e));
            else if (e != 0)
                c[i] = kernels::qr_ldexp(c[i], e);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) *info = first == INT_MAX ? 0 : first + 1;
}

constexpr int kScreenRows = 4096;

template <class T>
__global__ void screen_kernel(int64_t m, const T *A, int64_t lda, unsigned long long *amax_bits,
                              int *nonfinite) {
    __shared__ double red[32];
    const int64_t j = blockIdx.y;
    const int64_t r0 = static_cast<int64_t>(blockIdx.x) * kScreenRows;
    const int64_t r1 = r0 + kScreenRows < m ? r0 + kScreenRows : m;
    double mx = 0;
    int bad = 0;
    for (int64_t i = r0 + threadIdx.x; i < r1; i += blockDim.x) {
        const T v = A[i + j * lda];
        if (!is_finite(v)) bad = 1;
        mx = fmax(mx, static_cast<double>(kernels::qr_mag(v)));
    }
    if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr(nonfinite, 1);
    for (int o = 16; o > 0; o >>= 1) mx = fmax(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = mx;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int i = 1; i < static_cast<int>(blockDim.x >> 5); ++i) mx = fmax(mx, red[i]);
        mx = fmax(mx, red[0]);
        atomic_max_nonneg(&amax_bits[j], mx);
    }
}

// Row-major A: 32-column tiles of kScreenRows rows per block, read coalesced through shared
// memory; each thread keeps the maximum of one column of the tile.
template <class T>
__global__ void __launch_bounds__(kTileThreads)
    screen_tiles_kernel(int64_t m, int64_t n, const T *A, MatLd lda,
                        unsigned long long *amax_bits, int *nonfinite) {
    __shared__ T t[kTile][kTile + 1];
    __shared__ double red[kTileThreads / 32][kTile];
    const int lane = threadIdx.x & 31, g = threadIdx.x >> 5;
    const int64_t c = static_cast<int64_t>(blockIdx.y) * kTile;
    const int64_t r0 = static_cast<int64_t>(blockIdx.x) * kScreenRows;
    const int64_t r1 = r0 + kScreenRows < m ? r0 + kScreenRows : m;
    double mx = 0;
    int bad = 0;
    for (int64_t r = r0; r < r1; r += kTile) {
        load_tile(A, lda, r1, n, r, c, t, T(0));
        __syncthreads();
        for (int q = g; q < kTile; q += kTileThreads / 32) {
            const T v = t[q][lane];
            if (!is_finite(v)) bad = 1;
            mx = fmax(mx, static_cast<double>(kernels::qr_mag(v)));
        }
        __syncthreads();
    }
    if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr(nonfinite, 1);
    red[g][lane] = mx;
    __syncthreads();
    if (g == 0 && c + lane < n) {
        for (int i = 1; i < kTileThreads / 32; ++i) mx = fmax(mx, red[i][lane]);
        atomic_max_nonneg(&amax_bits[c + lane], mx);
    }
}

template <class T>
__device__ int scale_exponent_of(const unsigned long long *amax_bits, int64_t j) {
    const double mx = __longlong_as_double(static_cast<long long>(amax_bits[j]));
    int e = 0;
    if (mx > 0) {
        frexp(mx, &e);
        e = -e;
    }
    return e;
}

// Row-major A: the elements in memory order (a column at a time would touch every row's cache
// line once per column).
template <class T>
__global__ void scale_rows_kernel(int64_t m, int64_t n, T *A, MatLd lda,
                                  const unsigned long long *amax_bits, int *exps) {
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < m * n; idx += stride) {
        int64_t i, j;
        lda.element(idx, m, n, &i, &j);
        const int e = scale_exponent_of<T>(amax_bits, j);
        if (i == 0) exps[j] = e;
        if (e != 0) A[lda.at(i, j)] = kernels::qr_ldexp(A[lda.at(i, j)], e);
    }
}

template <class T>
__global__ void copy_kernel(int64_t rows, int64_t cols, const T *A, MatLd lda, T *B, MatLd ldb) {
    __shared__ T t[kTile][kTile + 1];
    for (int64_t tile = blockIdx.x; tile < ((rows + kTile - 1) / kTile) * ((cols + kTile - 1) / kTile);
         tile += gridDim.x) {
        const int64_t tr = (rows + kTile - 1) / kTile;
        const int64_t r = (tile % tr) * kTile, c = (tile / tr) * kTile;
        load_tile(A, lda, rows, cols, r, c, t, T(0));
        __syncthreads();
        store_tile(B, ldb, rows, cols, r, c, t);
        __syncthreads();
    }
}

template <class T>
__global__ void scale_kernel(int64_t m, T *A, int64_t lda, const unsigned long long *amax_bits,
                             int *exps) {
    const int64_t j = blockIdx.y;
    const double mx = __longlong_as_double(static_cast<long long>(amax_bits[j]));
    int e = 0;
    if (mx > 0) {
        frexp(mx, &e);
        e = -e;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) exps[j] = e;
    if (e == 0) return;
    const int64_t r0 = static_cast<int64_t>(blockIdx.x) * kScreenRows;
    const int64_t r1 = r0 + kScreenRows < m ? r0 + kScreenRows : m;
    for (int64_t i = r0 + threadIdx.x; i < r1; i += blockDim.x)
        A[i + j * lda] = kernels::qr_ldexp(A[i + j * lda], e);
}

template <class T>
__global__ void fill_nan_kernel(int64_t rows, int64_t cols, T *X, MatLd ld, const int *gate) {
    if (gate && !*gate) return;
    const int64_t total = rows * cols;
    for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < total;
         idx += int64_t(gridDim.x) * blockDim.x) {
        int64_t i, j;
        ld.element(idx, rows, cols, &i, &j);
        X[ld.at(i, j)] = kernels::qr_nan<T>();
    }
}

__global__ void set_info_kernel(int *info, int v, const int *gate) {
    if (!gate || *gate) *info = v;
}

template <class T>
__global__ void zero_dead_kernel(int64_t m, T *W, MatLd ldw, const int *dead) {
    const int64_t j = blockIdx.y;
    if (!dead[j]) return;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < m;
         i += int64_t(gridDim.x) * blockDim.x)
        W[ldw.at(i, j)] = T(0);
}

// A block sums 32 entries: its 8 warps take every 8th partial each (coalesced rows of 32), then
// warp 0 adds the 8 sums. ww / 32 blocks; a thread per entry over all partials (16 blocks at
// w = 64) ran at 1/7 of the bandwidth.
constexpr int kSumSlices = 8;

template <class T>
__global__ void __launch_bounds__(32 * kSumSlices)
    sum_partials_kernel(int w, int parts, const T *P, T *G) {
    __shared__ T part[kSumSlices][32];
    const int64_t ww = int64_t(w) * w;
    const int lane = threadIdx.x & 31, slice = threadIdx.x >> 5;
    const int64_t idx = blockIdx.x * int64_t(32) + lane;
    T v = T(0);
    if (idx < ww)
        for (int b = slice; b < parts; b += kSumSlices) v += P[b * ww + idx];
    part[slice][lane] = v;
    __syncthreads();
    if (slice != 0 || idx >= ww || idx % w > idx / w) return;  // Cholesky reads the upper part
    for (int s = 1; s < kSumSlices; ++s) v += part[s][lane];
    G[idx] = v;
}

int grid_for(int64_t work, int threads) {
    const int64_t g = (work + threads - 1) / threads;
    return static_cast<int>(g < 1 ? 1 : g > 4096 ? 4096 : g);
}

// Shared memory the Cholesky step may use for its w x w matrix (the static arrays take ~4 KiB).
constexpr size_t kCholSmem = 160 * 1024;

template <class T>
bool chol_in_smem(int w) {
    return size_t(w) * w * sizeof(T) <= kCholSmem;
}

}  // namespace

template <class T>
size_t chol_step_scratch_bytes(int w) {
    return chol_in_smem<T>(w) ? 0 : size_t(w) * w * sizeof(T);
}

template <class T>
cudaError_t chol_step(const T *G, int w, int64_t m, int max_steps, bool screened, T *Rs, T *S,
                      int64_t lds, int *dead, CholStepFlags *flags, CholStepCtl *ctl,
                      void *scratch, cudaStream_t stream) {
    const bool in_smem = chol_in_smem<T>(w);
    const size_t smem = in_smem ? size_t(w) * w * sizeof(T) : 0;
    cudaError_t e = allow_smem(chol_step_kernel<T>, smem);
    if (e != cudaSuccess) return e;
    const int threads = w <= 64 ? 256 : kCholThreads;
    chol_step_kernel<T><<<1, threads, smem, stream>>>(
        G, w, m, max_steps, screened, Rs, S, lds, dead, flags, ctl,
        in_smem ? nullptr : static_cast<T *>(scratch));
    return cudaGetLastError();
}

template <class T>
cudaError_t finish_r(int64_t m, int64_t k, T *R, int64_t ldr, const int *dead, const int *exps,
                     int *info, cudaStream_t stream) {
    finish_kernel<T><<<1, kFinishThreads, 0, stream>>>(m, k, R, ldr, dead, exps, info);
    return cudaGetLastError();
}

template <class T>
cudaError_t screen(int64_t m, int64_t n, const T *A, MatLd lda, unsigned long long *amax_bits,
                   int *nonfinite, cudaStream_t stream) {
    if (m == 0 || n == 0) return cudaSuccess;
    const auto row_blocks = static_cast<unsigned>((m + kScreenRows - 1) / kScreenRows);
    if (lda.row) {
        const dim3 grid(row_blocks, static_cast<unsigned>((n + kTile - 1) / kTile));
        screen_tiles_kernel<T><<<grid, kTileThreads, 0, stream>>>(m, n, A, lda, amax_bits,
                                                                  nonfinite);
    } else {
        const dim3 grid(row_blocks, static_cast<unsigned>(n));
        screen_kernel<T><<<grid, 256, 0, stream>>>(m, A, lda.ld, amax_bits, nonfinite);
    }
    return cudaGetLastError();
}

template <class T>
cudaError_t scale_columns(int64_t m, int64_t n, T *A, MatLd lda,
                          const unsigned long long *amax_bits, int *exps, cudaStream_t stream) {
    if (m == 0 || n == 0) return cudaSuccess;
    if (lda.row) {
        scale_rows_kernel<T><<<grid_for(m * n, 256), 256, 0, stream>>>(m, n, A, lda, amax_bits,
                                                                        exps);
        return cudaGetLastError();
    }
    const dim3 grid(static_cast<unsigned>((m + kScreenRows - 1) / kScreenRows),
                    static_cast<unsigned>(n));
    scale_kernel<T><<<grid, 256, 0, stream>>>(m, A, lda.ld, amax_bits, exps);
    return cudaGetLastError();
}

template <class T>
cudaError_t copy_matrix(int64_t rows, int64_t cols, const T *A, MatLd lda, T *B, MatLd ldb,
                        cudaStream_t stream) {
    if (rows <= 0 || cols <= 0) return cudaSuccess;
    const int64_t tiles = ((rows + kTile - 1) / kTile) * ((cols + kTile - 1) / kTile);
    const auto grid = static_cast<unsigned>(std::min<int64_t>(tiles, 65536));
    copy_kernel<T><<<grid, kTileThreads, 0, stream>>>(rows, cols, A, lda, B, ldb);
    return cudaGetLastError();
}

template <class T>
cudaError_t fill_nonfinite(int64_t m, int64_t k, int64_t n, T *A, MatLd lda, T *R, MatLd ldr,
                           int *info, const int *gate, cudaStream_t stream) {
    if (m > 0 && k > 0)
        fill_nan_kernel<T><<<grid_for(m * k, 256), 256, 0, stream>>>(m, k, A, lda, gate);
    if (k > 0 && n > 0)
        fill_nan_kernel<T><<<grid_for(k * n, 256), 256, 0, stream>>>(k, n, R, ldr, gate);
    set_info_kernel<<<1, 1, 0, stream>>>(info, GPUSVD_INFO_NONFINITE, gate);
    return cudaGetLastError();
}

template <class T>
cudaError_t zero_dead_columns(int64_t m, int w, T *W, MatLd ldw, const int *dead,
                              cudaStream_t stream) {
    const dim3 grid(static_cast<unsigned>(std::min<int64_t>((m + 1023) / 1024, 64)),
                    static_cast<unsigned>(w));
    zero_dead_kernel<T><<<grid, 256, 0, stream>>>(m, W, ldw, dead);
    return cudaGetLastError();
}

template <class T>
cudaError_t sum_partials(int w, int parts, const T *P, T *G, cudaStream_t stream) {
    const unsigned blocks = static_cast<unsigned>((int64_t(w) * w + 31) / 32);
    sum_partials_kernel<T><<<blocks, 32 * kSumSlices, 0, stream>>>(w, parts, P, G);
    return cudaGetLastError();
}

#define GPUSVD_INSTANTIATE(T)                                                                     \
    template size_t chol_step_scratch_bytes<T>(int);                                              \
    template cudaError_t chol_step<T>(const T *, int, int64_t, int, bool, T *, T *, int64_t,      \
                                      int *, CholStepFlags *, CholStepCtl *, void *,              \
                                      cudaStream_t);                                              \
    template cudaError_t finish_r<T>(int64_t, int64_t, T *, int64_t, const int *, const int *,    \
                                     int *, cudaStream_t);                                        \
    template cudaError_t screen<T>(int64_t, int64_t, const T *, MatLd, unsigned long long *,      \
                                   int *, cudaStream_t);                                          \
    template cudaError_t scale_columns<T>(int64_t, int64_t, T *, MatLd,                           \
                                          const unsigned long long *, int *, cudaStream_t);       \
    template cudaError_t fill_nonfinite<T>(int64_t, int64_t, int64_t, T *, MatLd, T *, MatLd,     \
                                           int *, const int *, cudaStream_t);                     \
    template cudaError_t copy_matrix<T>(int64_t, int64_t, const T *, MatLd, T *, MatLd,           \
                                        cudaStream_t);                                            \
    template cudaError_t zero_dead_columns<T>(int64_t, int, T *, MatLd, const int *,              \
                                              cudaStream_t);                                      \
    template cudaError_t sum_partials<T>(int, int, const T *, T *, cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
