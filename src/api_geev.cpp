// Entry points of geev_batched: validate once, then dispatch.
#include "api_common.hpp"
#include "api_complex.hpp"
#include "cpu/geev.hpp"
#include "gpu_dispatch.hpp"
#include "lapack_sizes.hpp"

namespace gpusvd {
namespace {

// cuda/geev/: real and complex elements, every n (warp teams up to n = 64 where shared memory
// allows, a block per matrix in shared memory, then in place in global memory). The one rule of
// the entry points and _bufferSize.
template <class T>
constexpr bool kGeevOnGpu = true;

// Real T: eigenvalues wr + i wi. Complex T: eigenvalues in wr (named W), wi is null.
template <class T>
gpusvdStatus_t geev_entry(const char *name, Form form, gpusvdHandle_t h, gpusvdJob_t jobvr,
                          int64_t n, T *A, int64_t lda, int64_t sA, T *wr, T *wi, int64_t sW, T *VR,
                          int64_t ldvr, int64_t sVR, int64_t batch, int *info) {
    constexpr bool cplx = is_complex_v<T>;
    Args a(h, name);
    a.column_major_only();  // gpusvdSetMatrixLayout: column-major matrices only
    a.job("jobvr", jobvr).nonneg("n", n).nonneg("batchCount", batch);
    const bool wv = jobvr == GPUSVD_JOB_VEC;
    a.ld("lda", lda, n, "n");
    if (wv) a.ld("ldvr", ldvr, n, "n");
    a.stride("strideA", sA, sat_mul(lda, n), batch, "lda * n");
    a.stride("strideW", sW, n, batch, "n");
    if (wv) a.stride("strideVR", sVR, sat_mul(ldvr, n), batch, "ldvr * n");
    a.extent("A", n, n, lda, sA, batch, sizeof(T))
        .extent(cplx ? "W" : "wr", n, 1, n, sW, batch, sizeof(T));
    if (wv) a.extent("VR", n, n, ldvr, sVR, batch, sizeof(T));
    const bool work = n > 0 && batch > 0;
    a.ptr("A", A, work).ptr(cplx ? "W" : "wr", wr, work).ptr("wi", wi, work && !cplx);
    a.ptr("VR", VR, work && wv);
    a.ptr("info", info, batch > 0);
    auto run_gpu = [&]() -> gpusvdStatus_t {
        if constexpr (kGeevOnGpu<T>) {
            using G = gpu_t<T>;
            T *const vr = wv ? VR : nullptr;
            const GeevArgs<G> g{wv,          n,           gpu_ptr(A), lda,         sA,
                                gpu_ptr(wr), gpu_ptr(wi), sW,         gpu_ptr(vr), ldvr,
                                sVR,         batch,       info};
            return gpu::geev<G>(h, name, form, g);
        } else {
            return fail(h, GPUSVD_STATUS_INTERNAL_ERROR, "%s: no GPU path", name);
        }
    };
    if (form == Form::Device) {
        require_device_form(a, kGeevOnGpu<T>, gpu_kernel_subject<T>());
        if (!a.ok()) return a.status();
        return batch > 0 ? run_gpu() : GPUSVD_STATUS_SUCCESS;
    }
    const bool on_gpu = host_runs_on_gpu(a, kGeevOnGpu<T>, input_bytes<T>(n, n, batch),
                                         gpu_kernel_subject<T>());
    if (!on_gpu && work) geev_lapack_sizes(n, lda, wv ? ldvr : 1).check(a);
    if (!a.ok()) return a.status();
    if (!work) {
        zero_info(info, batch);
        return GPUSVD_STATUS_SUCCESS;
    }
    if (on_gpu) return run_gpu();
    const cpu::GeevPlan plan = cpu::geev_plan<T>(wv, n);
    return run_cpu_batch(h, name, batch, plan.bytes, info, [&](int64_t b, void *ws) {
        T *vr = wv ? VR + b * sVR : nullptr;
        if constexpr (cplx)
            info[b] = cpu::geev(plan, A + b * sA, lda, wr + b * sW, vr, ldvr, ws);
        else
            info[b] = cpu::geev<T>(plan, A + b * sA, lda, wr + b * sW, wi + b * sW, vr, ldvr, ws);
    });
}

template <class T>
gpusvdStatus_t geev_size(const char *name, gpusvdHandle_t h, gpusvdJob_t jobvr, int64_t n,
                         int64_t batch, size_t *dev, size_t *host) {
    Args a(h, name);
    a.column_major_only();  // gpusvdSetMatrixLayout: column-major matrices only
    a.job("jobvr", jobvr).nonneg("n", n).nonneg("batchCount", batch);
    const bool gpu_ok = a.ok() && kGeevOnGpu<T> && gpu_reachable(h);
    const bool work = n > 0 && batch > 0, wv = jobvr == GPUSVD_JOB_VEC;
    const LapackSizes cpu = geev_lapack_sizes(n, std::max<int64_t>(1, n), 1);
    if (!gpu_ok && work) cpu.check(a);
    if (!a.ok()) return a.status();
    size_t dev_bytes = 0;
    if constexpr (kGeevOnGpu<T>)
        if (work && gpu_ok) dev_bytes = gpu::geev_device_bytes<gpu_t<T>>(wv, n, batch);
    set_sizes(dev, host, dev_bytes,
              work && cpu.fit() ? batch_bytes(cpu::geev_plan<T>(wv, n).bytes, batch) : 0);
    return GPUSVD_STATUS_SUCCESS;
}

}  // namespace
}  // namespace gpusvd

using gpusvd::Form;

#define GPUSVD_GEEV(X, T)                                                                          \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geev_batched(                                            \
        gpusvdHandle_t h, gpusvdJob_t jobvr, int64_t n, T *A, int64_t lda, int64_t sA, T *wr,      \
        T *wi, int64_t sW, T *VR, int64_t ldvr, int64_t sVR, int64_t batch, int *info) {           \
        return gpusvd::geev_entry<T>("gpusvd_" #X "geev_batched", Form::Host, h, jobvr, n, A, lda, \
                                     sA, wr, wi, sW, VR, ldvr, sVR, batch, info);                  \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geev_batched_gpu(                                        \
        gpusvdHandle_t h, gpusvdJob_t jobvr, int64_t n, T *A, int64_t lda, int64_t sA, T *wr,      \
        T *wi, int64_t sW, T *VR, int64_t ldvr, int64_t sVR, int64_t batch, int *info) {           \
        return gpusvd::geev_entry<T>("gpusvd_" #X "geev_batched_gpu", Form::Device, h, jobvr, n,   \
                                     A, lda, sA, wr, wi, sW, VR, ldvr, sVR, batch, info);          \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geev_batched_bufferSize(                                 \
        gpusvdHandle_t h, gpusvdJob_t jobvr, int64_t n, int64_t batch, size_t *dev,                \
        size_t *host) {                                                                            \
        return gpusvd::geev_size<gpusvd::internal_t<T>>("gpusvd_" #X "geev_batched_bufferSize", h, jobvr, n, batch,    \
                                    dev, host);                                                    \
    }

// One complex eigenvalue array W, passed as wr (wi null).
#define GPUSVD_GEEV_COMPLEX(X, P)                                                                  \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geev_batched(                                            \
        gpusvdHandle_t h, gpusvdJob_t jobvr, int64_t n, P *A, int64_t lda, int64_t sA, P *W,       \
        int64_t sW, P *VR, int64_t ldvr, int64_t sVR, int64_t batch, int *info) {                  \
        return gpusvd::geev_entry("gpusvd_" #X "geev_batched", Form::Host, h, jobvr, n,            \
                                  gpusvd::internal(A), lda, sA, gpusvd::internal(W),               \
                                  static_cast<gpusvd::internal_t<P> *>(nullptr), sW,               \
                                  gpusvd::internal(VR), ldvr, sVR, batch, info);                   \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geev_batched_gpu(                                        \
        gpusvdHandle_t h, gpusvdJob_t jobvr, int64_t n, P *A, int64_t lda, int64_t sA, P *W,       \
        int64_t sW, P *VR, int64_t ldvr, int64_t sVR, int64_t batch, int *info) {                  \
        return gpusvd::geev_entry("gpusvd_" #X "geev_batched_gpu", Form::Device, h, jobvr, n,      \
                                  gpusvd::internal(A), lda, sA, gpusvd::internal(W),               \
                                  static_cast<gpusvd::internal_t<P> *>(nullptr), sW,               \
                                  gpusvd::internal(VR), ldvr, sVR, batch, info);                   \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geev_batched_bufferSize(                                 \
        gpusvdHandle_t h, gpusvdJob_t jobvr, int64_t n, int64_t batch, size_t *dev,                \
        size_t *host) {                                                                            \
        return gpusvd::geev_size<gpusvd::internal_t<P>>("gpusvd_" #X "geev_batched_bufferSize", h, \
                                                        jobvr, n, batch, dev, host);               \
    }

extern "C" {
GPUSVD_GEEV(s, float)
GPUSVD_GEEV(d, double)
GPUSVD_GEEV_COMPLEX(c, gpusvdComplex_t)
GPUSVD_GEEV_COMPLEX(z, gpusvdDoubleComplex_t)
}
