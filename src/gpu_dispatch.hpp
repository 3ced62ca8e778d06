// What the entry points (src/api_*.cpp) call to run a routine on the GPU. CUDA-free: the
// definitions live in cuda/ (cuda/*/dispatch.cpp), or in device_none.cpp for builds without the
// CUDA backend, where they are unreachable because no device is ever usable.
#pragma once

#include <cstdint>

#include "api_common.hpp"
#include "context.hpp"
#include "kernels/complex.hpp"

namespace gpusvd {

/// gesvj / gesvj_batched arguments, validated (batch 1 for the single-matrix routine). T: float,
/// double or kernels::Complex<R> (S real).
template <class T>
struct GesvjArgs {
    bool wantu, wantv;
    int64_t m, n;
    T *A;
    int64_t lda, sA;
    kernels::RealOf<T> *S;
    int64_t sS;
    T *U;
    int64_t ldu, sU;
    T *V;
    int64_t ldv, sV;
    int64_t batch;
    int *info;
    int64_t call_batch = 0;  // a device's part of a split call: the whole call's batch, which
                             // chooses the kernels (0: batch)
};

/// geev_batched arguments, validated.
template <class T>
struct GeevArgs {
    bool wantvr;
    int64_t n;
    T *A;
    int64_t lda, sA;
    T *wr, *wi;  // complex T: the eigenvalues W in wr, wi null
    int64_t sW;
    T *VR;
    int64_t ldvr, sVR;
    int64_t batch;
    int *info;
};

/// geqrf_mgs / geqrf_mgs_batched arguments, validated (batch 1 for the single-matrix routine).
template <class T>
struct GeqrfArgs {
    bool reorth;
    int64_t m, n;
    T *A;
    int64_t lda, sA;
    T *R;
    int64_t ldr, sR;
    int64_t batch;
    int *info;
    bool row_major;  // A and R row-major (gpusvdSetMatrixLayout; batch 1 only)
};

/// pca arguments, validated (GPU path: m >= n, k >= 1), with the method resolved. T: float,
/// double or kernels::Complex<R> (variances real; complex data: the QR method, column-major).
template <class T>
struct PcaArgs {
    int64_t m, n;
    const T *X;
    int64_t ldx, k;
    T *C;
    int64_t ldc;
    kernels::RealOf<T> *var;
    T *scores;
    int64_t lds;
    T *mean;
    int *info;
    bool covariance;  // the covariance method, else the QR method
    bool row_major;   // X, components and scores row-major (gpusvdSetMatrixLayout)
    double *total = nullptr;  // device: the total variance written (set inside gpu::pca)
};

/// bdsvd arguments, validated.
template <class T>
struct BdsvdArgs {
    bool upper, wantv;
    int64_t n;
    T *d, *e, *U;
    int64_t ldu;
    T *VT;
    int64_t ldvt;
    int *info;
};

namespace gpu {

/// Run on the GPU. Form::Host: host pointers, synchronous, data staged through pinned buffers
/// in chunks that overlap transfers with compute. Form::Device: device pointers (info too),
/// enqueued on the handle's stream, asynchronous.
template <class T>
gpusvdStatus_t gesvj(gpusvdHandle_t h, const char *routine, Form form, const GesvjArgs<T> &a);
template <class T>
gpusvdStatus_t geev(gpusvdHandle_t h, const char *routine, Form form, const GeevArgs<T> &a);
template <class T>
gpusvdStatus_t geqrf(gpusvdHandle_t h, const char *routine, Form form, const GeqrfArgs<T> &a);
template <class T>
gpusvdStatus_t pca(gpusvdHandle_t h, const char *routine, Form form, const PcaArgs<T> &a);
template <class T>
gpusvdStatus_t bdsvd(gpusvdHandle_t h, const char *routine, Form form, const BdsvdArgs<T> &a);

/// Whether complex gesvj runs on the GPU. The blocked Jacobi (cuBLAS loaded, where it is wanted)
/// takes any size; the Jacobi team kernels (the QR-first path is real only) take one matrix whose
/// working copy (A or A^H, and V) fits in one block's shared memory, and batches with
/// min(m, n) < kGesvjComplexBatchMaxCols (past shared memory, the one-block global-memory
/// kernel). with_blocked false: the team kernels' rule alone (pca's SVD of R calls them
/// directly). elem: sizeof the complex element. True for m, n or batch 0. Reads the shared
/// memory of h's device (no context is made current or created).
constexpr int64_t kGesvjComplexBatchMaxCols = 128;
bool gesvj_complex_served(gpusvdHandle_t h, size_t elem, bool wantu, bool wantv, int64_t m,
                          int64_t n, int64_t batch, bool with_blocked = true);

/// Device workspace of the `_gpu` forms (what _bufferSize reports as deviceBytes).
template <class T>
size_t gesvj_device_bytes(bool wantu, bool wantv, int64_t m, int64_t n, int64_t batch);
template <class T>
size_t geev_device_bytes(bool wantvr, int64_t n, int64_t batch);
template <class T>
size_t geqrf_device_bytes(int64_t m, int64_t n, int64_t batch, bool row_major);
template <class T>
size_t pca_device_bytes(int64_t m, int64_t n, int64_t k, bool scores, bool covariance);
template <class T>
size_t bdsvd_device_bytes(bool wantv, int64_t n);

/// Reads the Jacobi statistics of the last GPU gesvj call on h into h->last_* (waits for it).
void fetch_jacobi_stats(gpusvdHandle_t h);
/// Reads the total variance of the last pca call on the GPU (host or `_gpu` form) from the
/// handle's device word into h->pca_total, waiting for the call; nothing after a CPU call.
void fetch_pca_total(gpusvdHandle_t h);
/// Queues the total variance of the last pca call on h into dst (device memory reachable from
/// h's device) on the handle's stream, without waiting (gpusvdGetPcaTotalVariance_gpu).
gpusvdStatus_t copy_pca_total(gpusvdHandle_t h, const char *routine, double *dst);

/// Frees the handle's device buffers, pinned buffers and streams (gpusvdDestroy).
void release(gpusvdHandle_t h);

}  // namespace gpu
}  // namespace gpusvd
