// Entry points of pca and its method setting: validate once, then dispatch.
#include <type_traits>

#include "api_common.hpp"
#include "api_complex.hpp"
#include "cpu/pca.hpp"
#include "gpu_dispatch.hpp"
#include "lapack_sizes.hpp"

namespace gpusvd {
namespace {

// cuda/pca/: tall or square data (samples >= features); complex data column-major (the tall QR's
// rule) with features few enough for the Jacobi team kernels' one-matrix path on R (its n x n
// SVD, gpu::gesvj_complex_served, asked only where a device is usable: it reads the device's
// shared memory). Other data runs on the CPU.
template <class T>
bool pca_on_gpu(gpusvdHandle_t h, int64_t m, int64_t n, bool row) {
    if (m < n) return false;
    if constexpr (is_complex_v<T>)
        return !row && device_status().usable &&
               gpu::gesvj_complex_served(h, sizeof(T), true, true, n, n, 1, false);
    return true;
}
template <class T>
constexpr const char *no_gpu_kernel_for() {
    return is_complex_v<T> ? "complex data with fewer samples than features (m < n), in "
                             "row-major layout, or with more features than the Jacobi SVD of "
                             "R takes in one thread block's shared memory"
                           : "data with fewer samples than features (m < n)";
}

// AUTO's rule (documented at gpusvdSetPcaMethod): the covariance method for double-precision data
// with at least kCovarianceRatio samples per feature and at most kCovarianceFeatures features,
// the QR method otherwise. In single precision the squared condition number of the covariance
// method costs too many digits of the components that matter (see docs/design.md).
constexpr int64_t kCovarianceRatio = 10;
constexpr int64_t kCovarianceFeatures = 1000;

template <class T>
bool covariance_method(gpusvdHandle_t h, int64_t m, int64_t n) {
    if (is_complex_v<T>) return false;  // complex data: the QR method only
    if (h->pca_method != GPUSVD_PCA_AUTO) return h->pca_method == GPUSVD_PCA_COVARIANCE;
    return std::is_same<T, double>::value && n <= kCovarianceFeatures && m / kCovarianceRatio >= n;
}

// The CPU backend's 32-bit limits of the method.
inline LapackSizes cpu_sizes(bool cov, int64_t m, int64_t n, int64_t ldx, int64_t ldc,
                             int64_t lds) {
    return cov ? pca_covariance_lapack_sizes(n, ldc, lds) : pca_lapack_sizes(m, n, ldx, ldc, lds);
}

// The dimension rules, shared by the call and its _bufferSize.
inline void check_dims(Args &a, int64_t m, int64_t n, int64_t k) {
    a.nonneg("m", m).nonneg("n", n).range("k", k, 0, std::min(m, n), "must be in [0, min(m, n)]");
    if (m > 0 && n > 0 && k > 0)
        a.range("m", m, 2, INT64_MAX, "must be >= 2: the sample variance needs two samples");
}

// Host workspace of the method (complex data: the QR method only).
template <class T>
size_t cpu_bytes(bool cov, int64_t m, int64_t n, int64_t k) {
    if constexpr (!is_complex_v<T>)
        if (cov) return cpu::pca_covariance_bytes<T>(m, n, k);
    return cpu::pca_qr_bytes<T>(m, n, k);
}

template <class T>
gpusvdStatus_t pca_entry(const char *name, Form form, gpusvdHandle_t h, int64_t m, int64_t n,
                         const T *X, int64_t ldx, int64_t k, T *C, int64_t ldc, real_t<T> *var,
                         T *scores, int64_t lds, T *mean, int *info) {
    Args a(h, name);
    check_dims(a, m, n, k);
    const bool work = m > 0 && n > 0 && k > 0;
    const bool row = a.row_major();
    a.ld("ldx", ldx, m, "m", n, "n").ld("ldc", ldc, n, "n", k, "k");
    if (scores) a.ld("lds", lds, m, "m", k, "k");
    a.extent_in_layout("X", m, n, ldx, sizeof(T)).extent_in_layout("components", n, k, ldc, sizeof(T));
    if (scores) a.extent_in_layout("scores", m, k, lds, sizeof(T));
    a.ptr("X", X, work).ptr("components", C, work).ptr("explainedVariance", var, work);
    a.ptr("info", info, true);
    const bool cov = a.ok() && covariance_method<T>(h, m, n);
    auto run_gpu = [&]() -> gpusvdStatus_t {
        using G = gpu_t<T>;
        const PcaArgs<G> g{m,
                           n,
                           reinterpret_cast<const G *>(X),
                           ldx,
                           k,
                           gpu_ptr(C),
                           ldc,
                           var,
                           scores ? gpu_ptr(scores) : nullptr,
                           scores ? lds : 1,
                           mean ? gpu_ptr(mean) : nullptr,
                           info,
                           cov,
                           row};
        return gpu::pca<G>(h, name, form, g);
    };
    const bool gpu_kernel = a.ok() && pca_on_gpu<T>(h, m, n, row);
    if (form == Form::Device) {
        require_device_form(a, gpu_kernel, no_gpu_kernel_for<T>());
        if (!a.ok()) return a.status();
        // gpu::pca marks the total variance as on the device (pca_total_on_gpu) once enqueued
        return run_gpu();
    }
    const bool on_gpu =
        host_runs_on_gpu(a, gpu_kernel, input_bytes<T>(m, n, 1), no_gpu_kernel_for<T>());
    if (!on_gpu && work) cpu_sizes(cov, m, n, ldx, ldc, scores ? lds : 1).check(a);  // any layout
    if (!a.ok()) return a.status();
    if (!work) {
        *info = 0;
        h->pca_total = __builtin_nan(""), h->pca_total_on_gpu = false;
        return GPUSVD_STATUS_SUCCESS;
    }
    // On the GPU the total stays in the handle's device word; gpusvdGetPcaTotalVariance reads it.
    if (on_gpu) return run_gpu();
    const size_t bytes = cpu_bytes<T>(cov, m, n, k);
    double total = __builtin_nan("");
    const gpusvdStatus_t st = run_cpu_batch(h, name, 1, bytes, info, [&](int64_t, void *ws) {
        if constexpr (!is_complex_v<T>)
            if (cov) {
                *info = cpu::pca_covariance<T>(m, n, X, ldx, k, C, ldc, var, scores, lds, mean,
                                               ws, row, &total);
                return;
            }
        *info = cpu::pca_qr<T>(m, n, X, ldx, k, C, ldc, var, scores, lds, mean, ws, row, &total);
    });
    if (st == GPUSVD_STATUS_SUCCESS) h->pca_total = total, h->pca_total_on_gpu = false;
    return st;
}

template <class T>
gpusvdStatus_t pca_size(const char *name, gpusvdHandle_t h, int64_t m, int64_t n, int64_t k,
                        size_t *dev, size_t *host) {
    Args a(h, name);
    check_dims(a, m, n, k);
    const bool gpu_ok = a.ok() && pca_on_gpu<T>(h, m, n, a.row_major()) && gpu_reachable(h);
    const bool work = m > 0 && n > 0 && k > 0;
    const bool cov = a.ok() && covariance_method<T>(h, m, n);
    // The covariance method without scores supports any m: lds is the call's to check.
    const int64_t rows = std::max<int64_t>(1, m);
    const LapackSizes cpu = cpu_sizes(cov, m, n, rows, std::max<int64_t>(1, n), cov ? 1 : rows);
    if (!gpu_ok && work) cpu.check(a);
    if (!a.ok()) return a.status();
    const size_t host_bytes = !work || !cpu.fit() ? 0 : cpu_bytes<T>(cov, m, n, k);
    size_t dev_bytes = 0;
    if (work && gpu_ok) dev_bytes = gpu::pca_device_bytes<gpu_t<T>>(m, n, k, true, cov);
    set_sizes(dev, host, dev_bytes, host_bytes);
    return GPUSVD_STATUS_SUCCESS;
}

}  // namespace
}  // namespace gpusvd

using gpusvd::Form;

#define GPUSVD_PCA(X_, T, V)                                                                       \
    GPUSVD_API gpusvdStatus_t gpusvd_##X_##pca(gpusvdHandle_t h, int64_t m, int64_t n, const T *X, \
                                               int64_t ldx, int64_t k, T *C, int64_t ldc, V *var,  \
                                               T *scores, int64_t lds, T *mean, int *info) {       \
        using gpusvd::internal;                                                                    \
        return gpusvd::pca_entry("gpusvd_" #X_ "pca", Form::Host, h, m, n, internal(X), ldx, k,    \
                                 internal(C), ldc, var, internal(scores), lds, internal(mean),     \
                                 info);                                                            \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X_##pca_gpu(                                                \
        gpusvdHandle_t h, int64_t m, int64_t n, const T *X, int64_t ldx, int64_t k, T *C,          \
        int64_t ldc, V *var, T *scores, int64_t lds, T *mean, int *info) {                         \
        using gpusvd::internal;                                                                    \
        return gpusvd::pca_entry("gpusvd_" #X_ "pca_gpu", Form::Device, h, m, n, internal(X), ldx, \
                                 k, internal(C), ldc, var, internal(scores), lds, internal(mean),  \
                                 info);                                                            \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X_##pca_bufferSize(gpusvdHandle_t h, int64_t m, int64_t n,  \
                                                          int64_t k, size_t *dev, size_t *host) {  \
        return gpusvd::pca_size<gpusvd::internal_t<T>>("gpusvd_" #X_ "pca_bufferSize", h, m, n, k, \
                                                       dev, host);                                 \
    }

extern "C" {
GPUSVD_PCA(s, float, float)
GPUSVD_PCA(d, double, double)
GPUSVD_PCA(c, gpusvdComplex_t, float)
GPUSVD_PCA(z, gpusvdDoubleComplex_t, double)

GPUSVD_API gpusvdStatus_t gpusvdSetPcaMethod(gpusvdHandle_t handle, gpusvdPcaMethod_t method) {
    gpusvd::Args a(handle, "gpusvdSetPcaMethod");
    a.range("method", method, GPUSVD_PCA_AUTO, GPUSVD_PCA_COVARIANCE,
            "must be GPUSVD_PCA_AUTO, GPUSVD_PCA_QR or GPUSVD_PCA_COVARIANCE");
    if (a.ok()) handle->pca_method = method;
    return a.status();
}

GPUSVD_API gpusvdStatus_t gpusvdGetPcaTotalVariance(gpusvdHandle_t handle, double *total) {
    gpusvd::Args a(handle, "gpusvdGetPcaTotalVariance");
    a.ptr("totalVariance", total, true);
    if (!a.ok()) return a.status();
    gpusvd::gpu::fetch_pca_total(handle);  // waits for a `_gpu` call still in flight
    *total = handle->pca_total;
    return GPUSVD_STATUS_SUCCESS;
}

GPUSVD_API gpusvdStatus_t gpusvdGetPcaTotalVariance_gpu(gpusvdHandle_t handle, double *total) {
    constexpr const char *name = "gpusvdGetPcaTotalVariance_gpu";
    gpusvd::Args a(handle, name);
    a.ptr("totalVariance", total, true);
    gpusvd::require_device_form(a, true);
    if (!a.ok()) return a.status();
    return gpusvd::gpu::copy_pca_total(handle, name, total);
}

GPUSVD_API gpusvdStatus_t gpusvdGetPcaMethod(gpusvdHandle_t handle, gpusvdPcaMethod_t *method) {
    gpusvd::Args a(handle, "gpusvdGetPcaMethod");
    a.ptr("method", method, true);
    if (a.ok()) *method = handle->pca_method;
    return a.status();
}
}
