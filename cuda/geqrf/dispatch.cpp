// geqrf_mgs on the GPU. Many small matrices: the batched team kernels (batched.cu), host form
// through the chunked pipeline. Large matrices: the tall CholeskyQR path (tall.cpp), one matrix
// at a time, host form staged through the handle's device buffer.
#include <algorithm>

#include "common/pipeline.hpp"
#include "common/runtime.hpp"
#include "geqrf/geqrf.hpp"
#include "geqrf/tall.hpp"
#include "gpu_dispatch.hpp"

namespace gpusvd {
namespace gpu {
namespace {

// Up to this many entries per matrix the team kernels (a warp or block per matrix) win: one
// matrix is a single launch there, while the tall path costs a few launches and host waits per
// CholeskyQR step. Batches keep the team kernels longer, since they fill the GPU with matrices.
constexpr int64_t kTeamMaxEntriesSingle = 128 * 128;
constexpr int64_t kTeamMaxEntriesBatched = 256 * 256;

bool use_team(int64_t m, int64_t n, int64_t batch) {
    int64_t mn;
    if (__builtin_mul_overflow(m, n, &mn)) return false;
    return mn <= (batch > 1 ? kTeamMaxEntriesBatched : kTeamMaxEntriesSingle);
}

size_t align256(size_t x) { return x > SIZE_MAX - 255 ? SIZE_MAX : (x + 255) & ~size_t(255); }

template <class T>
size_t bytes_of(int64_t rows, int64_t cols) {
    size_t b;
    if (__builtin_mul_overflow(static_cast<size_t>(rows), static_cast<size_t>(cols), &b) ||
        __builtin_mul_overflow(b, sizeof(T), &b))
        return SIZE_MAX;
    return align256(b);
}

size_t sat_add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

// Host form, tall path: each matrix copied in, factored and copied back.
template <class T>
gpusvdStatus_t host_tall(gpusvdHandle_t h, const char *routine, const GeqrfArgs<T> &a) {
    const int64_t m = a.m, n = a.n, k = std::min(m, n);
    const size_t bA = bytes_of<T>(m, n), bR = bytes_of<T>(k, n), bI = 256;
    const size_t bW = tall_workspace_bytes<T>(m, n);
    const size_t total = sat_add(sat_add(bA, bR), sat_add(bI, bW));
    cudaError_t e;
    Resources *r = resources(h, &e);
    if (r && total == SIZE_MAX) e = cudaErrorMemoryAllocation;
    if (r && e == cudaSuccess) e = grow_device(*r, total);
    if (e != cudaSuccess) return cuda_fail(h, routine, "allocating device buffers", e);
    char *base = static_cast<char *>(r->dev);
    T *dA = reinterpret_cast<T *>(base);
    T *dR = reinterpret_cast<T *>(base + bA);
    int *dI = reinterpret_cast<int *>(base + bA + bR);
    void *ws = base + bA + bR + bI;
    const cudaStream_t s = r->slot[0];
    const size_t row = static_cast<size_t>(m) * sizeof(T);
    for (int64_t b = 0; b < a.batch; ++b) {
        T *A = a.A + b * a.sA;
        T *R = a.R + b * a.sR;
        e = cudaMemcpy2DAsync(dA, row, A, a.lda * sizeof(T), row, n, cudaMemcpyHostToDevice, s);
        if (e != cudaSuccess) return cuda_fail(h, routine, "copying A to the device", e);
        const gpusvdStatus_t st = geqrf_tall<T>(h, routine, m, n, dA, m, dR, k, dI, ws, bW, s);
        if (st != GPUSVD_STATUS_SUCCESS) {
            cudaStreamSynchronize(s);
            return st;
        }
        e = cudaMemcpy2DAsync(A, a.lda * sizeof(T), dA, row, row, n, cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess)
            e = cudaMemcpy2DAsync(R, a.ldr * sizeof(T), dR, k * sizeof(T), k * sizeof(T), n,
                                  cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(a.info + b, dI, sizeof(int), cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) return cuda_fail(h, routine, "copying Q and R back", e);
    }
    return GPUSVD_STATUS_SUCCESS;
}

}  // namespace

template <class T>
size_t geqrf_device_bytes(int64_t m, int64_t n, int64_t batch) {
    return use_team(m, n, batch) ? geqrf_batched_workspace_bytes<T>(m, n, batch)
                                 : tall_workspace_bytes<T>(m, n);
}

template <class T>
gpusvdStatus_t geqrf(gpusvdHandle_t h, const char *routine, Form form, const GeqrfArgs<T> &a) {
    const int64_t k = std::min(a.m, a.n);
    const bool team = use_team(a.m, a.n, a.batch);
    GeqrfProblem<T> p{a.reorth, a.m, a.n, a.A, a.lda, a.sA, a.R, a.ldr, a.sR, a.batch, a.info};
    cudaError_t e;
    if (form == Form::Device) {
        const cudaStream_t s = user_stream(h);
        if (k == 0) {  // nothing to compute; info still says "success" per matrix
            e = cudaMemsetAsync(a.info, 0, sizeof(int) * a.batch, s);
            return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                                    : cuda_fail(h, routine, "clearing info", e);
        }
        gpusvdStatus_t st;
        const size_t wsb = geqrf_device_bytes<T>(a.m, a.n, a.batch);
        void *ws = device_workspace(h, routine, wsb, &st);
        if (!ws) return st;
        if (team) {
            e = geqrf_batched_launch<T>(p, ws, wsb, s);
            if (e == cudaSuccess) e = record_use(h);
            return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                                    : cuda_fail(h, routine, "launching the QR kernels", e);
        }
        for (int64_t b = 0; b < a.batch; ++b) {
            st = geqrf_tall<T>(h, routine, a.m, a.n, a.A + b * a.sA, a.lda, a.R + b * a.sR, a.ldr,
                               a.info + b, ws, wsb, s);
            if (st != GPUSVD_STATUS_SUCCESS) return st;
        }
        e = record_use(h);
        return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                                : cuda_fail(h, routine, "recording the workspace's use", e);
    }
    if (!team) return host_tall<T>(h, routine, a);
    const Operand ops[] = {
        {a.A, a.m, a.n, a.lda, a.sA, sizeof(T), true, true},
        {a.R, k, a.n, a.ldr, a.sR, sizeof(T), false, true},
    };
    return run_host_batched(
        h, routine, a.batch, ops, 2, a.info,
        [&](int64_t count) { return geqrf_batched_workspace_bytes<T>(a.m, a.n, count); },
        [&](const Chunk &c) {
            GeqrfProblem<T> q = p;
            q.A = static_cast<T *>(c.dev[0]);
            q.lda = a.m, q.sA = a.m * a.n;
            q.R = static_cast<T *>(c.dev[1]);
            q.ldr = k, q.sR = k * a.n;
            q.batch = c.count;
            q.info = c.info;
            return geqrf_batched_launch<T>(q, c.ws, c.ws_bytes, c.stream);
        });
}

#define GPUSVD_INSTANTIATE(T)                                                                   \
    template size_t geqrf_device_bytes<T>(int64_t, int64_t, int64_t);                           \
    template gpusvdStatus_t geqrf<T>(gpusvdHandle_t, const char *, Form, const GeqrfArgs<T> &);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
