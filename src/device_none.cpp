// Device probe and GPU dispatch when the library is built without the CUDA backend: no device
// is ever usable, so the entry points never reach the dispatch functions.
#include <cstdio>

#include "backend.hpp"
#include "gpu_dispatch.hpp"
#include "kernels/complex.hpp"

namespace gpusvd {

const DeviceStatus &device_status() {
    static const DeviceStatus s{false, "this build of gpusvd has no CUDA backend"};
    return s;
}

int current_device() {
    return -1;
}

bool device_usable(int, char *why, size_t why_size) {
    std::snprintf(why, why_size, "%s", device_status().description);
    return false;
}

namespace gpu {
namespace {
gpusvdStatus_t unreachable(gpusvdHandle_t h, const char *routine) {
    return fail(h, GPUSVD_STATUS_INTERNAL_ERROR, "%s: GPU dispatch in a build without CUDA",
                routine);
}
}  // namespace

template <class T>
gpusvdStatus_t gesvj(gpusvdHandle_t h, const char *routine, Form, const GesvjArgs<T> &) {
    return unreachable(h, routine);
}
template <class T>
gpusvdStatus_t geev(gpusvdHandle_t h, const char *routine, Form, const GeevArgs<T> &) {
    return unreachable(h, routine);
}
template <class T>
gpusvdStatus_t geqrf(gpusvdHandle_t h, const char *routine, Form, const GeqrfArgs<T> &) {
    return unreachable(h, routine);
}
template <class T>
size_t geqrf_device_bytes(int64_t, int64_t, int64_t, bool) {
    return 0;
}
template <class T>
gpusvdStatus_t pca(gpusvdHandle_t h, const char *routine, Form, const PcaArgs<T> &) {
    return unreachable(h, routine);
}
template <class T>
size_t pca_device_bytes(int64_t, int64_t, int64_t, bool, bool) {
    return 0;
}
template <class T>
gpusvdStatus_t bdsvd(gpusvdHandle_t h, const char *routine, Form, const BdsvdArgs<T> &) {
    return unreachable(h, routine);
}
template <class T>
size_t bdsvd_device_bytes(bool, int64_t) {
    return 0;
}
template <class T>
size_t gesvj_device_bytes(bool, bool, int64_t, int64_t, int64_t) {
    return 0;
}
template <class T>
size_t geev_device_bytes(bool, int64_t, int64_t) {
    return 0;
}
bool gesvj_complex_served(gpusvdHandle_t, size_t, bool, bool, int64_t, int64_t, int64_t, bool) {
    return false;
}
void fetch_jacobi_stats(gpusvdHandle_t) {}
void fetch_pca_total(gpusvdHandle_t) {}
gpusvdStatus_t copy_pca_total(gpusvdHandle_t h, const char *routine, double *) {
    return unreachable(h, routine);
}
void release(gpusvdHandle_t) {}

#define GPUSVD_INSTANTIATE(T)                                                                    \
    template gpusvdStatus_t gesvj<T>(gpusvdHandle_t, const char *, Form, const GesvjArgs<T> &); \
    template gpusvdStatus_t geev<T>(gpusvdHandle_t, const char *, Form, const GeevArgs<T> &);   \
    template size_t gesvj_device_bytes<T>(bool, bool, int64_t, int64_t, int64_t);               \
    template size_t geev_device_bytes<T>(bool, int64_t, int64_t);                               \
    template gpusvdStatus_t bdsvd<T>(gpusvdHandle_t, const char *, Form, const BdsvdArgs<T> &); \
    template size_t bdsvd_device_bytes<T>(bool, int64_t);                                       \
    template gpusvdStatus_t geqrf<T>(gpusvdHandle_t, const char *, Form, const GeqrfArgs<T> &); \
    template size_t geqrf_device_bytes<T>(int64_t, int64_t, int64_t, bool);                       \
    template gpusvdStatus_t pca<T>(gpusvdHandle_t, const char *, Form, const PcaArgs<T> &);     \
    template size_t pca_device_bytes<T>(int64_t, int64_t, int64_t, bool, bool);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE
// geqrf_mgs's complex element types (the GPU dispatch's kernels::Complex).
template gpusvdStatus_t geqrf<kernels::Complex<float>>(gpusvdHandle_t, const char *, Form,
                                                       const GeqrfArgs<kernels::Complex<float>> &);
template gpusvdStatus_t geqrf<kernels::Complex<double>>(gpusvdHandle_t, const char *, Form,
                                                        const GeqrfArgs<kernels::Complex<double>> &);
template size_t geqrf_device_bytes<kernels::Complex<float>>(int64_t, int64_t, int64_t, bool);
template size_t geqrf_device_bytes<kernels::Complex<double>>(int64_t, int64_t, int64_t, bool);
// pca's complex element types.
template gpusvdStatus_t pca<kernels::Complex<float>>(gpusvdHandle_t, const char *, Form,
                                                     const PcaArgs<kernels::Complex<float>> &);
template gpusvdStatus_t pca<kernels::Complex<double>>(gpusvdHandle_t, const char *, Form,
                                                      const PcaArgs<kernels::Complex<double>> &);
template size_t pca_device_bytes<kernels::Complex<float>>(int64_t, int64_t, int64_t, bool, bool);
template size_t pca_device_bytes<kernels::Complex<double>>(int64_t, int64_t, int64_t, bool,
                                                           bool);
// geev_batched's complex element types.
template gpusvdStatus_t geev<kernels::Complex<float>>(gpusvdHandle_t, const char *, Form,
                                                      const GeevArgs<kernels::Complex<float>> &);
template gpusvdStatus_t geev<kernels::Complex<double>>(gpusvdHandle_t, const char *, Form,
                                                       const GeevArgs<kernels::Complex<double>> &);
template size_t geev_device_bytes<kernels::Complex<float>>(bool, int64_t, int64_t);
template size_t geev_device_bytes<kernels::Complex<double>>(bool, int64_t, int64_t);
// gesvj's complex element types.
template gpusvdStatus_t gesvj<kernels::Complex<float>>(gpusvdHandle_t, const char *, Form,
                                                       const GesvjArgs<kernels::Complex<float>> &);
template gpusvdStatus_t gesvj<kernels::Complex<double>>(gpusvdHandle_t, const char *, Form,
                                                        const GesvjArgs<kernels::Complex<double>> &);
template size_t gesvj_device_bytes<kernels::Complex<float>>(bool, bool, int64_t, int64_t, int64_t);
template size_t gesvj_device_bytes<kernels::Complex<double>>(bool, bool, int64_t, int64_t, int64_t);

}  // namespace gpu
}  // namespace gpusvd
