// Entry points of bdsvd: validate once, then dispatch.
#include "api_common.hpp"
#include "cpu/bdsvd.hpp"
#include "gpu_dispatch.hpp"
#include "lapack_sizes.hpp"

namespace gpusvd {
namespace {

constexpr bool kBdsvdOnGpu = true;  // cuda/bdsvd/

template <class T>
gpusvdStatus_t bdsvd_entry(const char *name, Form form, gpusvdHandle_t h, gpusvdUplo_t uplo,
                           gpusvdJob_t jobz, int64_t n, T *d, T *e, T *U, int64_t ldu, T *VT,
                           int64_t ldvt, int *info) {
    Args a(h, name);
    a.column_major_only();  // gpusvdSetMatrixLayout: column-major matrices only
    a.uplo("uplo", uplo).job("jobz", jobz).nonneg("n", n);
    const bool wv = jobz == GPUSVD_JOB_VEC;
    if (wv) a.ld("ldu", ldu, n, "n").ld("ldvt", ldvt, n, "n");
    a.extent("d", n, 1, n, 0, 1, sizeof(T));
    if (wv) a.extent("U", n, n, ldu, 0, 1, sizeof(T)).extent("VT", n, n, ldvt, 0, 1, sizeof(T));
    a.ptr("d", d, n > 0).ptr("e", e, n > 1).ptr("U", U, n > 0 && wv).ptr("VT", VT, n > 0 && wv);
    a.ptr("info", info, true);
    const BdsvdArgs<T> g{uplo == GPUSVD_UPPER, wv, n, d, e, U, wv ? ldu : 1, VT, wv ? ldvt : 1,
                         info};
    if (form == Form::Device) {
        require_device_form(a, kBdsvdOnGpu);
        if (!a.ok()) return a.status();
        return gpu::bdsvd<T>(h, name, form, g);
    }
    // AUTO's size rule on n^2: the work (bisection or the vectors) grows with it, not with d, e.
    const bool on_gpu = host_runs_on_gpu(a, kBdsvdOnGpu, input_bytes<T>(n, n, 1));
    if (!on_gpu && n > 0) bdsvd_lapack_sizes(wv, n, wv ? ldu : 1, wv ? ldvt : 1).check(a);
    if (!a.ok()) return a.status();
    if (n == 0) {
        *info = 0;
        return GPUSVD_STATUS_SUCCESS;
    }
    if (on_gpu) return gpu::bdsvd<T>(h, name, form, g);
    return run_cpu_batch(h, name, 1, cpu::bdsvd_bytes<T>(wv, n), info, [&](int64_t, void *ws) {
        *info = cpu::bdsvd<T>(uplo == GPUSVD_LOWER, wv, n, d, e, U, ldu, VT, ldvt, ws);
    });
}

template <class T>
gpusvdStatus_t bdsvd_size(const char *name, gpusvdHandle_t h, gpusvdUplo_t uplo, gpusvdJob_t jobz,
                          int64_t n, size_t *dev, size_t *host) {
    Args a(h, name);
    a.column_major_only();  // gpusvdSetMatrixLayout: column-major matrices only
    a.uplo("uplo", uplo).job("jobz", jobz).nonneg("n", n);
    const bool wv = jobz == GPUSVD_JOB_VEC, gpu_ok = a.ok() && gpu_reachable(h);
    const LapackSizes cpu = bdsvd_lapack_sizes(wv, n, std::max<int64_t>(1, n), 1);
    if (!gpu_ok && n > 0) cpu.check(a);
    if (!a.ok()) return a.status();
    set_sizes(dev, host, n > 0 && gpu_ok ? gpu::bdsvd_device_bytes<T>(wv, n) : 0,
              n > 0 && cpu.fit() ? cpu::bdsvd_bytes<T>(wv, n) : 0);
    return GPUSVD_STATUS_SUCCESS;
}

}  // namespace
}  // namespace gpusvd

using gpusvd::Form;

#define GPUSVD_BDSVD(X, T)                                                                         \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##bdsvd(gpusvdHandle_t h, gpusvdUplo_t uplo,               \
                                                gpusvdJob_t jobz, int64_t n, T *d, T *e, T *U,     \
                                                int64_t ldu, T *VT, int64_t ldvt, int *info) {     \
        return gpusvd::bdsvd_entry<T>("gpusvd_" #X "bdsvd", Form::Host, h, uplo, jobz, n, d, e, U, \
                                      ldu, VT, ldvt, info);                                        \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##bdsvd_gpu(gpusvdHandle_t h, gpusvdUplo_t uplo,           \
                                                    gpusvdJob_t jobz, int64_t n, T *d, T *e, T *U, \
                                                    int64_t ldu, T *VT, int64_t ldvt, int *info) { \
        return gpusvd::bdsvd_entry<T>("gpusvd_" #X "bdsvd_gpu", Form::Device, h, uplo, jobz, n, d, \
                                      e, U, ldu, VT, ldvt, info);                                  \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##bdsvd_bufferSize(gpusvdHandle_t h, gpusvdUplo_t uplo,    \
                                                           gpusvdJob_t jobz, int64_t n,            \
                                                           size_t *dev, size_t *host) {            \
        return gpusvd::bdsvd_size<T>("gpusvd_" #X "bdsvd_bufferSize", h, uplo, jobz, n, dev,       \
                                     host);                                                        \
    }

extern "C" {
GPUSVD_BDSVD(s, float)
GPUSVD_BDSVD(d, double)
}
