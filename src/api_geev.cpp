// Entry points of geev_batched: validate once, then dispatch.
#include "api_common.hpp"
#include "cpu/geev.hpp"

namespace gpusvd {
namespace {

constexpr bool kGeevOnGpu = false;  // GPU kernels: issue "GPU batched eigenvalues"

// LAPACK takes 32-bit integers and sizes ?geev's workspace from n^2-sized terms.
inline void cpu_size_limits(Args &a, int64_t n) {
    a.lapack_int("n", n).lapack_int("n^2 (LAPACK ?geev workspace)", sat_mul(n, n));
}

template <class T>
gpusvdStatus_t geev_entry(const char *name, Form form, gpusvdHandle_t h, gpusvdJob_t jobvr,
                          int64_t n, T *A, int64_t lda, int64_t sA, T *wr, T *wi, int64_t sW, T *VR,
                          int64_t ldvr, int64_t sVR, int64_t batch, int *info) {
    Args a(h, name);
    a.job("jobvr", jobvr).nonneg("n", n).nonneg("batchCount", batch);
    const bool wv = jobvr == GPUSVD_JOB_VEC;
    a.ld("lda", lda, n, "n");
    if (wv) a.ld("ldvr", ldvr, n, "n");
    a.stride("strideA", sA, sat_mul(lda, n), batch, "lda * n");
    a.stride("strideW", sW, n, batch, "n");
    if (wv) a.stride("strideVR", sVR, sat_mul(ldvr, n), batch, "ldvr * n");
    a.extent("A", n, n, lda, sA, batch, sizeof(T)).extent("wr", n, 1, n, sW, batch, sizeof(T));
    if (wv) a.extent("VR", n, n, ldvr, sVR, batch, sizeof(T));
    const bool work = n > 0 && batch > 0;
    a.ptr("A", A, work).ptr("wr", wr, work).ptr("wi", wi, work).ptr("VR", VR, work && wv);
    a.ptr("info", info, batch > 0);
    if (form == Form::Device) {
        require_device_form(a, kGeevOnGpu);
        return a.status();
    }
    check_host_backend(a, kGeevOnGpu);
    cpu_size_limits(a, n);
    a.lapack_int("lda", lda);
    if (wv) a.lapack_int("ldvr", ldvr);
    if (!a.ok()) return a.status();
    if (!work) {
        zero_info(info, batch);
        return GPUSVD_STATUS_SUCCESS;
    }
    const cpu::GeevPlan plan = cpu::geev_plan<T>(wv, n);
    return run_cpu_batch(h, name, batch, plan.bytes, info, [&](int64_t b, void *ws) {
        info[b] = cpu::geev<T>(plan, A + b * sA, lda, wr + b * sW, wi + b * sW,
                               wv ? VR + b * sVR : nullptr, ldvr, ws);
    });
}

template <class T>
gpusvdStatus_t geev_size(const char *name, gpusvdHandle_t h, gpusvdJob_t jobvr, int64_t n,
                         int64_t batch, size_t *dev, size_t *host) {
    Args a(h, name);
    a.job("jobvr", jobvr).nonneg("n", n).nonneg("batchCount", batch);
    cpu_size_limits(a, n);
    if (!a.ok()) return a.status();
    const bool work = n > 0 && batch > 0;
    set_sizes(dev, host, 0,
              work ? batch_bytes(cpu::geev_plan<T>(jobvr == GPUSVD_JOB_VEC, n).bytes, batch) : 0);
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
        return gpusvd::geev_size<T>("gpusvd_" #X "geev_batched_bufferSize", h, jobvr, n, batch,    \
                                    dev, host);                                                    \
    }

extern "C" {
GPUSVD_GEEV(s, float)
GPUSVD_GEEV(d, double)
}
