// The distributed routines' GPU side in a build without the CUDA backend: no NCCL communicator
// can be made and no device is usable, so only nccl_query is reachable.
#include <cstdio>

#include "dist_dispatch.hpp"

namespace gpusvd {
namespace gpu {

bool nccl_query(void *, int *, int *, int *, char *why, size_t why_size) {
    std::snprintf(why, why_size, "this build of gpusvd has no CUDA backend");
    return false;
}

gpusvdStatus_t nccl_allreduce_host(gpusvdHandle_t h, const char *routine, const char *,
                                   gpusvdComm_t, void *, int64_t, gpusvdDataType_t,
                                   gpusvdReduceOp_t) {
    return fail(h, GPUSVD_STATUS_INTERNAL_ERROR, "%s: NCCL in a build without CUDA", routine);
}

void comm_release(gpusvdComm_t) {}

template <class T>
gpusvdStatus_t geqrf_dist(gpusvdHandle_t h, const char *routine, Form, gpusvdComm_t, bool,
                          int64_t, int64_t, T *, int64_t, T *, int64_t, int *) {
    return fail(h, GPUSVD_STATUS_INTERNAL_ERROR, "%s: GPU dispatch in a build without CUDA",
                routine);
}

template <class T>
size_t geqrf_dist_device_bytes(int64_t, int64_t) {
    return 0;
}

template <class T>
gpusvdStatus_t pca_dist(gpusvdHandle_t h, const char *routine, Form, gpusvdComm_t, int64_t,
                        int64_t, const T *, int64_t, int64_t, T *, int64_t, T *, T *, int64_t, T *,
                        int *) {
    return fail(h, GPUSVD_STATUS_INTERNAL_ERROR, "%s: GPU dispatch in a build without CUDA",
                routine);
}

template <class T>
size_t pca_dist_device_bytes(int64_t, int64_t, int64_t) {
    return 0;
}

#define GPUSVD_INSTANTIATE(T)                                                                  \
    template gpusvdStatus_t geqrf_dist<T>(gpusvdHandle_t, const char *, Form, gpusvdComm_t,   \
                                          bool, int64_t, int64_t, T *, int64_t, T *, int64_t, \
                                          int *);                                              \
    template size_t geqrf_dist_device_bytes<T>(int64_t, int64_t);                              \
    template gpusvdStatus_t pca_dist<T>(gpusvdHandle_t, const char *, Form, gpusvdComm_t,     \
                                        int64_t, int64_t, const T *, int64_t, int64_t, T *,   \
                                        int64_t, T *, T *, int64_t, T *, int *);               \
    template size_t pca_dist_device_bytes<T>(int64_t, int64_t, int64_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
