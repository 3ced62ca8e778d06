// geqrf_mgs on the GPU. Many small matrices: the batched team kernels (batched.cu). Large
// matrices: the tall CholeskyQR path (tall.cpp), one matrix at a time. Host forms go through the
// chunked pipeline (common/pipeline.hpp). Real and complex (kernels::Complex) elements; complex
// data comes column-major only (the entry points keep row-major complex calls off the GPU).
#include <algorithm>

#include "common/multi.hpp"
#include "common/pipeline.hpp"
#include "common/runtime.hpp"
#include "geqrf/geqrf.hpp"
#include "geqrf/tall.hpp"
#include "gpu_dispatch.hpp"
#include "kernels/complex.hpp"

namespace gpusvd {
namespace gpu {
namespace {

// Up to this many entries per matrix the team kernels (a warp or block per matrix) win: one
// matrix is a single launch there, while the tall path costs a few launches and host waits per
// CholeskyQR step. Batches keep the team kernels longer, since they fill the GPU with matrices.
constexpr int64_t kTeamMaxEntriesSingle = 128 * 128;
constexpr int64_t kTeamMaxEntriesBatched = 256 * 256;

// Row-major A (gpusvdSetMatrixLayout, single matrices only) always takes the tall path, which
// reads it in place: the team kernels are column-major.
bool use_team(int64_t m, int64_t n, int64_t batch, bool row_major) {
    if (row_major) return false;
    int64_t mn;
    if (__builtin_mul_overflow(m, n, &mn)) return false;
    return mn <= (batch > 1 ? kTeamMaxEntriesBatched : kTeamMaxEntriesSingle);
}

}  // namespace

template <class T>
size_t geqrf_device_bytes(int64_t m, int64_t n, int64_t batch, bool row_major) {
    return use_team(m, n, batch, row_major) ? geqrf_batched_workspace_bytes<T>(m, n, batch)
                                            : tall_workspace_bytes<T>(m, n, row_major);
}

template <class T>
gpusvdStatus_t geqrf(gpusvdHandle_t h, const char *routine, Form form, const GeqrfArgs<T> &a) {
    if (form == Form::Host && split_over_devices(h, a.batch))
        return over_devices(h, a.batch, false, [&](gpusvdHandle_t c, int64_t b0, int64_t nb) {
            GeqrfArgs<T> q = a;
            q.A += b0 * a.sA, q.R += b0 * a.sR, q.info += b0, q.batch = nb;
            return geqrf<T>(c, routine, form, q);
        });
    DeviceScope dev(h);
    // An empty problem references info alone (the other pointers may be anything).
    const gpusvdStatus_t entered = dev.enter(
        routine, form == Form::Device,
        std::min(a.m, a.n) == 0 || a.batch == 0
            ? std::initializer_list<PtrArg>{{"info", a.info}}
            : std::initializer_list<PtrArg>{{"A", a.A}, {"R", a.R}, {"info", a.info}});
    if (entered != GPUSVD_STATUS_SUCCESS) return entered;
    const int64_t k = std::min(a.m, a.n);
    const bool row = a.row_major;  // batch 1 (the batched forms reject row-major)
    const bool team = use_team(a.m, a.n, a.batch, row);
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
        const size_t wsb = geqrf_device_bytes<T>(a.m, a.n, a.batch, row);
        void *ws = device_workspace(h, routine, wsb, &st);
        if (!ws) return st;
        if (team) {
            e = geqrf_batched_launch<T>(p, ws, wsb, s);
            if (e == cudaSuccess) e = record_use(h);
            return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                                    : cuda_fail(h, routine, "launching the QR kernels", e);
        }
        for (int64_t b = 0; b < a.batch; ++b) {
            st = geqrf_tall<T>(h, routine, a.reorth, a.m, a.n, a.A + b * a.sA, MatLd(a.lda, row),
                               a.R + b * a.sR, MatLd(a.ldr, row), a.info + b, ws, wsb, s);
            if (st != GPUSVD_STATUS_SUCCESS) return st;
        }
        e = record_use(h);
        return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                                : cuda_fail(h, routine, "recording the workspace's use", e);
    }
    // Row-major matrices are copied as they are (the column-major n x m A^T, n x k R^T): on the
    // device they are row-major with ld n.
    const Operand ops[] = {
        {a.A, row ? a.n : a.m, row ? a.m : a.n, a.lda, a.sA, sizeof(T), true, true},
        {a.R, row ? a.n : k, row ? k : a.n, a.ldr, a.sR, sizeof(T), false, true},
    };
    const int64_t dev_lda = row ? a.n : a.m, dev_ldr = row ? a.n : k;
    return run_host_batched_status(
        h, routine, a.batch, ops, 2, a.info,
        [&](int64_t count) {
            return team ? geqrf_batched_workspace_bytes<T>(a.m, a.n, count)
                        : tall_workspace_bytes<T>(a.m, a.n, row);  // one matrix at a time
        },
        [&](const Chunk &c) {
            T *A = static_cast<T *>(c.dev[0]), *R = static_cast<T *>(c.dev[1]);
            if (team) {
                GeqrfProblem<T> q = p;
                q.A = A, q.lda = a.m, q.sA = a.m * a.n;
                q.R = R, q.ldr = k, q.sR = k * a.n;
                q.batch = c.count;
                q.info = c.info;
                const cudaError_t err = geqrf_batched_launch<T>(q, c.ws, c.ws_bytes, c.stream);
                return err == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                                          : cuda_fail(h, routine, "launching the QR kernels", err);
            }
            for (int64_t b = 0; b < c.count; ++b) {
                const gpusvdStatus_t st =
                    geqrf_tall<T>(h, routine, a.reorth, a.m, a.n, A + b * a.m * a.n,
                                  MatLd(dev_lda, row), R + b * k * a.n, MatLd(dev_ldr, row),
                                  c.info + b, c.ws, c.ws_bytes, c.stream);
                if (st != GPUSVD_STATUS_SUCCESS) return st;
            }
            return GPUSVD_STATUS_SUCCESS;
        });
}

#define GPUSVD_INSTANTIATE(T)                                         \
    template size_t geqrf_device_bytes<T>(int64_t, int64_t, int64_t, bool); \
    template gpusvdStatus_t geqrf<T>(gpusvdHandle_t, const char *, Form, const GeqrfArgs<T> &);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
