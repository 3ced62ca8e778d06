// Entry points of geqrf_mgs and geqrf_mgs_batched: validate once, then dispatch.
#include "api_common.hpp"
#include "api_complex.hpp"
#include "cpu/geqrf.hpp"
#include "gpu_dispatch.hpp"
#include "lapack_sizes.hpp"

namespace gpusvd {
namespace {

// cuda/geqrf/: real and complex elements, every size (batched team kernels, tall CholeskyQR).
// Complex data in row-major layout (gpusvdSetMatrixLayout) has no GPU path: the tall QR reads
// row-major A in place as the column-major A^T, whose Gram matrix would be conj(A^H A).
template <class T>
constexpr bool kGeqrfOnGpu = true;

/// Whether a call has a GPU kernel: the one rule of the entry points and _bufferSize.
template <class T>
bool geqrf_gpu_kernel(bool row_major) {
    return kGeqrfOnGpu<T> && !(is_complex_v<T> && row_major);
}

template <class T>
const char *geqrf_kernel_subject() {
    return is_complex_v<T> ? "complex data in row-major layout" : gpu_kernel_subject<T>();
}

template <class T>
gpusvdStatus_t geqrf_entry(const char *name, Form form, bool batched, gpusvdHandle_t h,
                           gpusvdOrth_t orth, int64_t m, int64_t n, T *A, int64_t lda, int64_t sA,
                           T *R, int64_t ldr, int64_t sR, int64_t batch, int *info) {
    Args a(h, name);
    // The batched forms take column-major matrices only (gpusvdSetMatrixLayout).
    if (batched) a.column_major_only();
    a.orth("orth", orth).nonneg("m", m).nonneg("n", n);
    if (batched) a.nonneg("batchCount", batch);
    const int64_t k = std::min(m, n);
    const bool row = a.row_major();
    a.ld("lda", lda, m, "m", n, "n").ld("ldr", ldr, k, "min(m, n)", n, "n");
    if (batched) {
        a.stride("strideA", sA, sat_mul(lda, n), batch, "lda * n");
        a.stride("strideR", sR, sat_mul(ldr, n), batch, "ldr * n");
        a.extent("A", m, n, lda, sA, batch, sizeof(T)).extent("R", k, n, ldr, sR, batch, sizeof(T));
    } else {
        a.extent_in_layout("A", m, n, lda, sizeof(T)).extent_in_layout("R", k, n, ldr, sizeof(T));
    }
    const bool work = k > 0 && batch > 0;
    a.ptr("A", A, work).ptr("R", R, work).ptr("info", info, batch > 0);
    const bool gpu_kernel = geqrf_gpu_kernel<T>(row);
    auto run_gpu = [&]() -> gpusvdStatus_t {
        if constexpr (kGeqrfOnGpu<T>) {
            using G = gpu_t<T>;
            const GeqrfArgs<G> g{orth == GPUSVD_ORTH_MGS2, m, n, gpu_ptr(A), lda, sA, gpu_ptr(R),
                                 ldr, sR, batch, info, row};
            return gpu::geqrf<G>(h, name, form, g);
        } else {
            return fail(h, GPUSVD_STATUS_INTERNAL_ERROR, "%s: no GPU path", name);
        }
    };
    if (form == Form::Device) {
        require_device_form(a, gpu_kernel, geqrf_kernel_subject<T>());
        if (!a.ok()) return a.status();
        return batch > 0 ? run_gpu() : GPUSVD_STATUS_SUCCESS;
    }
    const bool on_gpu = host_runs_on_gpu(a, gpu_kernel, input_bytes<T>(m, n, batch),
                                         geqrf_kernel_subject<T>());
    // Row-major data is factored in a column-major copy (cpu/geqrf.cpp): LAPACK sees ld m, k.
    if (!on_gpu && work)
        geqrf_lapack_sizes(m, n, row ? std::max<int64_t>(1, m) : lda, row ? k : ldr).check(a);
    if (!a.ok()) return a.status();
    if (!work) {
        zero_info(info, batch);
        return GPUSVD_STATUS_SUCCESS;
    }
    if (on_gpu) return run_gpu();
    const cpu::GeqrfPlan plan = cpu::geqrf_plan<T>(m, n, row);
    return run_cpu_batch(h, name, batch, plan.bytes, info, [&](int64_t b, void *ws) {
        info[b] = cpu::geqrf<T>(plan, A + b * sA, lda, R + b * sR, ldr, ws);
    });
}

template <class T>
gpusvdStatus_t geqrf_size(const char *name, gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m,
                          int64_t n, int64_t batch, bool batch_form, size_t *dev, size_t *host) {
    Args a(h, name);
    if (batch_form) a.column_major_only();
    a.orth("orth", orth).nonneg("m", m).nonneg("n", n).nonneg("batchCount", batch);
    const bool row = a.row_major();
    const bool gpu_ok = a.ok() && geqrf_gpu_kernel<T>(row) && gpu_reachable(h);
    const bool work = m > 0 && n > 0 && batch > 0;
    const LapackSizes cpu = geqrf_lapack_sizes(m, n, std::max<int64_t>(1, m), std::max<int64_t>(1, std::min(m, n)));
    if (!gpu_ok && work) cpu.check(a);
    if (!a.ok()) return a.status();
    size_t dev_bytes = 0;
    if constexpr (kGeqrfOnGpu<T>)
        if (work && gpu_ok) dev_bytes = gpu::geqrf_device_bytes<gpu_t<T>>(m, n, batch, row);
    set_sizes(dev, host, dev_bytes,
              work && cpu.fit() ? batch_bytes(cpu::geqrf_plan<T>(m, n, row).bytes, batch) : 0);
    return GPUSVD_STATUS_SUCCESS;
}

}  // namespace
}  // namespace gpusvd

using gpusvd::Form;

#define GPUSVD_GEQRF(X, T)                                                                         \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geqrf_mgs(gpusvdHandle_t h, gpusvdOrth_t orth,           \
                                                    int64_t m, int64_t n, T *A, int64_t lda, T *R, \
                                                    int64_t ldr, int *info) {                      \
        return gpusvd::geqrf_entry("gpusvd_" #X "geqrf_mgs", Form::Host, false, h, orth, m, n,  \
                                      gpusvd::internal(A), lda, 0, gpusvd::internal(R), ldr, 0, 1, info);                              \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geqrf_mgs_gpu(gpusvdHandle_t h, gpusvdOrth_t orth,       \
                                                        int64_t m, int64_t n, T *A, int64_t lda,   \
                                                        T *R, int64_t ldr, int *info) {            \
        return gpusvd::geqrf_entry("gpusvd_" #X "geqrf_mgs_gpu", Form::Device, false, h, orth,  \
                                      m, n, gpusvd::internal(A), lda, 0, gpusvd::internal(R), ldr, 0, 1, info);                        \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geqrf_mgs_bufferSize(                                    \
        gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m, int64_t n, size_t *dev, size_t *host) {    \
        return gpusvd::geqrf_size<gpusvd::internal_t<T>>("gpusvd_" #X "geqrf_mgs_bufferSize", h, orth, m, n, 1, false, \
                                     dev, host);                                                       \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geqrf_mgs_batched(                                       \
        gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m, int64_t n, T *A, int64_t lda, int64_t sA,  \
        T *R, int64_t ldr, int64_t sR, int64_t batch, int *info) {                                 \
        return gpusvd::geqrf_entry("gpusvd_" #X "geqrf_mgs_batched", Form::Host, true, h, orth, \
                                      m, n, gpusvd::internal(A), lda, sA, gpusvd::internal(R), ldr, sR, batch, info);                  \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geqrf_mgs_batched_gpu(                                   \
        gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m, int64_t n, T *A, int64_t lda, int64_t sA,  \
        T *R, int64_t ldr, int64_t sR, int64_t batch, int *info) {                                 \
        return gpusvd::geqrf_entry("gpusvd_" #X "geqrf_mgs_batched_gpu", Form::Device, true, h, \
                                      orth, m, n, gpusvd::internal(A), lda, sA, gpusvd::internal(R), ldr, sR, batch, info);            \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geqrf_mgs_batched_bufferSize(                            \
        gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m, int64_t n, int64_t batch, size_t *dev,     \
        size_t *host) {                                                                            \
        return gpusvd::geqrf_size<gpusvd::internal_t<T>>("gpusvd_" #X "geqrf_mgs_batched_bufferSize", h, orth, m, n,   \
                                     batch, true, dev, host);                                           \
    }

extern "C" {
GPUSVD_GEQRF(s, float)
GPUSVD_GEQRF(d, double)
GPUSVD_GEQRF(c, gpusvdComplex_t)
GPUSVD_GEQRF(z, gpusvdDoubleComplex_t)
}
