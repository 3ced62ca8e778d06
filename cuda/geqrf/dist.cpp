// geqrf_mgs_dist on the GPU: this rank's rows through the tall QR with its reductions over the
// communicator (geqrf/tall.cpp), then the completion of the columns the steps zeroed. All that
// can fail on this rank alone (device, stream, workspace, cuBLAS) is had before the ranks agree
// (api_dist.cpp's agree), so a rank that cannot run fails the call on every rank instead of
// leaving them waiting in a reduction.
#include <algorithm>

#include "common/collective.hpp"
#include "common/cublas.hpp"
#include "common/graph.hpp"
#include "common/runtime.hpp"
#include "dist_dispatch.hpp"
#include "geqrf/dist.hpp"
#include "geqrf/dist_core.hpp"
#include "geqrf/tall.hpp"
#include "workspace.hpp"

namespace gpusvd {
namespace gpu {
namespace {

template <class T>
class DistRun {
public:
    DistRun(gpusvdHandle_t h, const char *routine, gpusvdComm_t c, cudaStream_t s,
            cublasHandle_t b)
        : h_(h), routine_(routine), c_(c), s_(s), b_(b) {}

    // Q's columns the steps zeroed become unit vectors orthogonal to the others: a reproducible
    // start vector projected out twice (CGS2), then normalised; their rows of R are zeroed (what
    // they multiplied had vanished below rounding level).
    gpusvdStatus_t complete(const int *dead, int64_t m, int64_t n, T *A, int64_t lda, T *R,
                            int64_t ldr, int64_t offset, T *c, T *ss) {
        for (int64_t j = 0; j < n; ++j) {
            if (!dead[j]) continue;
            T *q = A + j * lda;
            if (!check(cudaMemset2DAsync(R + j + j * ldr, ldr * sizeof(T), 0, sizeof(T), n - j,
                                         s_),
                       "zeroing a row of R") ||
                !check(dist_fill_start<T>(m, q, offset, j, s_), "filling a completion"))
                return status_;
            for (int pass = 0; pass < 2; ++pass)
                if (!gemm(CUBLAS_OP_T, n, 1, m, T(1), A, lda, q, lda, T(0), c, n) ||
                    !reduce(c, n, "a completion's projection") ||
                    !check(cudaMemsetAsync(c + j, 0, sizeof(T), s_), "projecting a completion") ||
                    !gemm(CUBLAS_OP_N, m, 1, n, T(-1), A, lda, c, n, T(1), q, lda))
                    return status_;
            if (!gemm(CUBLAS_OP_T, 1, 1, m, T(1), q, lda, q, lda, T(0), ss, 1) ||
                !reduce(ss, 1, "a completion's norm") ||
                !check(dist_scale_rsqrt<T>(m, q, ss, s_), "normalising a completion"))
                return status_;
        }
        return GPUSVD_STATUS_SUCCESS;
    }

private:
    bool check(cudaError_t e, const char *step) {
        if (e == cudaSuccess) return true;
        status_ = cuda_fail(h_, routine_, step, e);
        return false;
    }
    // C = op(A) B; with no rows (inner size 0) cuBLAS writes beta C = 0.
    bool gemm(cublasOperation_t ta, int64_t rows, int64_t cols, int64_t inner, T alpha, const T *A,
              int64_t lda, const T *B, int64_t ldb, T beta, T *C, int64_t ldc) {
        const cublasStatus_t e = blas::gemm<T>(b_, ta, CUBLAS_OP_N, rows, cols, inner, alpha, A,
                                               lda, B, ldb, beta, C, ldc);
        if (e == CUBLAS_STATUS_SUCCESS) return true;
        status_ = blas_fail(h_, routine_, "GEMM of a completion", e);
        return false;
    }
    bool reduce(T *buf, int64_t count, const char *what) {
        status_ = allreduce_device(h_, routine_, what, c_, buf, count, data_type<T>(),
                                   GPUSVD_REDUCE_SUM, s_);
        return status_ == GPUSVD_STATUS_SUCCESS;
    }

    gpusvdHandle_t h_;
    const char *routine_;
    gpusvdComm_t c_;
    cudaStream_t s_;
    cublasHandle_t b_;
    gpusvdStatus_t status_ = GPUSVD_STATUS_SUCCESS;
};

// The call's device workspace: the distributed QR's (DistQrWork) and, for the host form, this
// rank's A and R. A rank without rows factors one zero row (it adds nothing to any reduction), so
// the tall QR never sees an empty matrix.
template <class T>
struct DistLayout {
    void *core;
    size_t core_bytes;
    T *A, *R;
    int *info;
    size_t bytes;
    DistLayout(void *base, int64_t m, int64_t n, bool host_form) {
        const int64_t rows = std::max<int64_t>(m, 1);
        Bump b(base);
        core_bytes = dist_qr_core_bytes<T>(rows, n);
        core = b.take_bytes(core_bytes);
        A = b.take<T>(host_form || m == 0 ? rows * n : 0);
        R = b.take<T>(host_form ? n * n : 0);
        info = b.take<int>(1);
        bytes = b.bytes();
    }
};

}  // namespace

template <class T>
size_t dist_qr_core_bytes(int64_t rows, int64_t n) {
    Bump b;
    b.take_bytes(tall_dist_workspace_bytes<T>(rows, n));
    b.take<T>(n + 1);
    return b.bytes();
}

template <class T>
gpusvdStatus_t dist_qr_core(gpusvdHandle_t h, const char *routine, gpusvdComm_t c,
                            const Agreement &g, int64_t m, int64_t n, T *A, int64_t lda, T *R,
                            int64_t ldr, int *info, void *ws, int *dead_host, cublasHandle_t b,
                            cudaStream_t s, bool need_q) {
    const int64_t rows = std::max<int64_t>(m, 1);
    Bump bump(ws);
    const size_t tall_bytes = tall_dist_workspace_bytes<T>(rows, n);
    void *tall = bump.take_bytes(tall_bytes);
    T *cvec = bump.take<T>(n + 1);
    TallDist d{c, g.m_global};
    bool q_formed = true;
    gpusvdStatus_t st = geqrf_tall_dist<T>(h, routine, &d, rows, n, A, lda, R, ldr, info, tall,
                                           tall_bytes, s, need_q ? nullptr : &q_formed);
    if (st != GPUSVD_STATUS_SUCCESS || !q_formed) return st;  // R final after one step: no Q
    cudaError_t e = cudaMemcpyAsync(dead_host, d.dead, sizeof(int) * n, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) return cuda_fail(h, routine, "reading the vanished columns", e);
    return DistRun<T>(h, routine, c, s, b)
        .complete(dead_host, m, n, A, lda, R, ldr, g.row_offset, cvec, cvec + n);
}

gpusvdStatus_t dist_prepare(gpusvdHandle_t h, const char *routine, Form form, gpusvdComm_t c,
                            DeviceScope &dev, std::initializer_list<PtrArg> ptrs) {
    gpusvdStatus_t st = form == Form::Host ? dev.enter(routine, false)
                                           : dev.enter(routine, true, ptrs);
    if (st == GPUSVD_STATUS_SUCCESS && c->kind == gpusvdComm_st::Kind::Nccl &&
        c->device != h->device)
        st = fail(h, GPUSVD_STATUS_INVALID_VALUE,
                  "%s: argument comm is invalid: its NCCL communicator is on device %d, the handle "
                  "on device %d",
                  routine, c->device, h->device);
    bool capturing = false;
    if (st == GPUSVD_STATUS_SUCCESS && form == Form::Device) {
        const cudaError_t e = stream_capturing(user_stream(h), &capturing);
        if (e != cudaSuccess) st = cuda_fail(h, routine, "querying the stream's capture state", e);
        else if (capturing)
            st = fail(h, GPUSVD_STATUS_NOT_SUPPORTED,
                      "%s: cannot be captured into a CUDA graph (it waits on the host for each "
                      "CholeskyQR step's flags); the capture is left intact",
                      routine);
    }
    return st;
}

template <class T>
size_t geqrf_dist_device_bytes(int64_t m_local, int64_t n) {
    return DistLayout<T>(nullptr, m_local, n, false).bytes;
}

template <class T>
gpusvdStatus_t geqrf_dist(gpusvdHandle_t h, const char *routine, Form form, gpusvdComm_t c,
                          bool reorth, int64_t m, int64_t n, T *A, int64_t lda, T *R, int64_t ldr,
                          int *info) {
    const bool host_form = form == Form::Host;
    const cudaStream_t s = user_stream(h);
    DeviceScope dev(h);
    gpusvdStatus_t st = dist_prepare(h, routine, form, c, dev, {{"A", A}, {"R", R}, {"info", info}});
    const DistLayout<T> L(nullptr, m, n, host_form);
    void *ws = nullptr;
    int *dead_host = nullptr;
    cublasHandle_t b = nullptr;
    if (st == GPUSVD_STATUS_SUCCESS && n > 0) ws = device_workspace(h, routine, L.bytes, &st);
    if (st == GPUSVD_STATUS_SUCCESS && n > 0)
        dead_host = static_cast<int *>(host_workspace(h, routine, sizeof(int) * n, &st));
    if (st == GPUSVD_STATUS_SUCCESS && n > 0) b = blas_handle(h, routine, s, &st);
    Agreement g;
    st = agree(h, routine, c, st, m, n, "orth", reorth ? 1 : 0, !host_form, &g);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    cudaError_t e = cudaSuccess;
    if (n == 0) {
        if (host_form) *info = 0;
        else e = cudaMemsetAsync(info, 0, sizeof(int), s);
        return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS : cuda_fail(h, routine, "clearing info", e);
    }
    const DistLayout<T> W(ws, m, n, host_form);
    const int64_t rows = std::max<int64_t>(m, 1);
    T *Ad = A, *Rd = R;
    int64_t ldad = lda, ldrd = ldr;
    int *infod = host_form ? W.info : info;
    if (host_form || m == 0) Ad = W.A, ldad = rows;
    if (host_form) Rd = W.R, ldrd = n;
    if (m == 0) e = cudaMemsetAsync(Ad, 0, sizeof(T) * n, s);
    else if (host_form)
        e = cudaMemcpy2DAsync(Ad, sizeof(T) * ldad, A, sizeof(T) * lda, sizeof(T) * m, n,
                              cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) return cuda_fail(h, routine, "copying A to the device", e);
    st = dist_qr_core<T>(h, routine, c, g, m, n, Ad, ldad, Rd, ldrd, infod, W.core, dead_host, b, s,
                         true);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    if (host_form) {
        if (m > 0)
            e = cudaMemcpy2DAsync(A, sizeof(T) * lda, Ad, sizeof(T) * ldad, sizeof(T) * m, n,
                                  cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess)
            e = cudaMemcpy2DAsync(R, sizeof(T) * ldr, Rd, sizeof(T) * ldrd, sizeof(T) * n, n,
                                  cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess) e = cudaMemcpyAsync(info, infod, sizeof(int), cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) return cuda_fail(h, routine, "copying Q and R back", e);
        return GPUSVD_STATUS_SUCCESS;
    }
    e = record_use(h);
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                            : cuda_fail(h, routine, "recording the workspace's use", e);
}

#define GPUSVD_INSTANTIATE(T)                                                                  \
    template size_t dist_qr_core_bytes<T>(int64_t, int64_t);                                   \
    template gpusvdStatus_t dist_qr_core<T>(gpusvdHandle_t, const char *, gpusvdComm_t,        \
                                            const Agreement &, int64_t, int64_t, T *, int64_t, \
                                            T *, int64_t, int *, void *, int *, cublasHandle_t, \
                                            cudaStream_t, bool);                               \
    template size_t geqrf_dist_device_bytes<T>(int64_t, int64_t);                              \
    template gpusvdStatus_t geqrf_dist<T>(gpusvdHandle_t, const char *, Form, gpusvdComm_t,   \
                                          bool, int64_t, int64_t, T *, int64_t, T *, int64_t, \
                                          int *);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
