// geev_batched on the GPU: host form through the chunked pipeline, device form straight to the
// kernels. Real and complex (kernels::Complex) elements; complex eigenvalues are one array, a.wr
// (a.wi is null).
#include <algorithm>

#include "common/multi.hpp"
#include "common/pipeline.hpp"
#include "common/runtime.hpp"
#include "geev/geev.hpp"
#include "gpu_dispatch.hpp"
#include "kernels/complex.hpp"

namespace gpusvd {
namespace gpu {

template <class T>
size_t geev_device_bytes(bool wantvr, int64_t n, int64_t batch) {
    return geev_workspace_bytes<T>(wantvr, n, batch);
}

template <class T>
gpusvdStatus_t geev(gpusvdHandle_t h, const char *routine, Form form, const GeevArgs<T> &a) {
    constexpr bool cplx = kernels::kIsComplex<T>;
    if (form == Form::Host && split_over_devices(h, a.batch))
        return over_devices(h, a.batch, false, [&](gpusvdHandle_t c, int64_t b0, int64_t nb) {
            GeevArgs<T> q = a;
            q.A += b0 * a.sA, q.wr += b0 * a.sW, q.info += b0, q.batch = nb;
            if (q.wi) q.wi += b0 * a.sW;
            if (q.VR) q.VR += b0 * a.sVR;
            return geev<T>(c, routine, form, q);
        });
    DeviceScope dev(h);
    const gpusvdStatus_t entered = dev.enter(
        routine, form == Form::Device,
        a.n == 0 || a.batch == 0
            ? std::initializer_list<PtrArg>{{"info", a.info}}
            : std::initializer_list<PtrArg>{
                  {"A", a.A},
                  {cplx ? "W" : "wr", a.wr},
                  {"wi", a.wi},  // null for complex T
                  {"VR", a.wantvr ? a.VR : nullptr},  // not referenced without vectors
                  {"info", a.info}});
    if (entered != GPUSVD_STATUS_SUCCESS) return entered;
    GeevProblem<T> p{a.wantvr, a.n, a.A, a.lda, a.sA, a.wr, a.wi, a.sW, a.VR, a.ldvr, a.sVR,
                     a.batch, a.info};
    cudaError_t e;
    if (form == Form::Device) {
        if (a.n == 0) {  // nothing to compute; info still says "success" per matrix
            e = cudaMemsetAsync(a.info, 0, sizeof(int) * a.batch, user_stream(h));
            return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                                    : cuda_fail(h, routine, "clearing info", e);
        }
        gpusvdStatus_t st;
        const size_t wsb = geev_workspace_bytes<T>(a.wantvr, a.n, a.batch);
        void *ws = device_workspace(h, routine, wsb, &st);
        if (!ws) return st;
        e = geev_launch<T>(p, ws, wsb, user_stream(h));
        if (e == cudaSuccess) e = record_use(h);
        return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                                : cuda_fail(h, routine, "launching the eigenvalue kernels", e);
    }
    const Operand ops[] = {
        {a.A, a.n, a.n, a.lda, a.sA, sizeof(T), true, false},
        {a.wr, a.n, 1, a.n, a.sW, sizeof(T), false, true},
        {a.wi, cplx ? 0 : a.n, 1, a.n, a.sW, sizeof(T), false, !cplx},
        {a.VR, a.wantvr ? a.n : 0, a.n, a.ldvr, a.sVR, sizeof(T), false, a.wantvr},
    };
    return run_host_batched(
        h, routine, a.batch, ops, 4, a.info,
        [&](int64_t count) { return geev_workspace_bytes<T>(a.wantvr, a.n, count); },
        [&](const Chunk &c) {
            GeevProblem<T> q = p;
            q.A = static_cast<T *>(c.dev[0]);
            q.lda = a.n, q.sA = a.n * a.n;
            q.wr = static_cast<T *>(c.dev[1]);
            q.wi = cplx ? nullptr : static_cast<T *>(c.dev[2]);
            q.sW = a.n;
            q.VR = a.wantvr ? static_cast<T *>(c.dev[3]) : nullptr;
            q.ldvr = a.n, q.sVR = a.n * a.n;
            q.batch = c.count;
            q.info = c.info;
            return geev_launch<T>(q, c.ws, c.ws_bytes, c.stream);
        });
}

#define GPUSVD_INSTANTIATE(T)                                                                  \
    template size_t geev_device_bytes<T>(bool, int64_t, int64_t);                              \
    template gpusvdStatus_t geev<T>(gpusvdHandle_t, const char *, Form, const GeevArgs<T> &);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
