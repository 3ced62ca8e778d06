// The public API as one template over the element type: Api<double>::gesvj is gpusvd_dgesvj,
// Api<T>::prefix is "gpusvd_d". Shared by the tests, the CLI and the benchmark.
#pragma once

#include "gpusvd.h"

namespace gpusvd_util {

/// The public API as one template over the element type: s, d, c (gpusvdComplex_t) and z
/// (gpusvdDoubleComplex_t); bdsvd and the distributed routines are real only.
template <typename T>
struct Api;

/// The public complex element type with parts of type R: PublicComplex<double> is
/// gpusvdDoubleComplex_t (Api<PublicComplex<R>> is the c or z API).
template <typename R>
struct PublicComplexOf;
template <>
struct PublicComplexOf<float> {
    using type = gpusvdComplex_t;
};
template <>
struct PublicComplexOf<double> {
    using type = gpusvdDoubleComplex_t;
};
template <typename R>
using PublicComplex = typename PublicComplexOf<R>::type;

#define GPUSVD_UTIL_API_ALL(X)                                                                      \
    static constexpr auto gesvj = &gpusvd_##X##gesvj;                                               \
    static constexpr auto gesvj_gpu = &gpusvd_##X##gesvj_gpu;                                       \
    static constexpr auto gesvj_bufferSize = &gpusvd_##X##gesvj_bufferSize;                         \
    static constexpr auto gesvj_batched = &gpusvd_##X##gesvj_batched;                               \
    static constexpr auto gesvj_batched_gpu = &gpusvd_##X##gesvj_batched_gpu;                       \
    static constexpr auto gesvj_batched_bufferSize = &gpusvd_##X##gesvj_batched_bufferSize;         \
    static constexpr auto geqrf_mgs = &gpusvd_##X##geqrf_mgs;                                       \
    static constexpr auto geqrf_mgs_gpu = &gpusvd_##X##geqrf_mgs_gpu;                               \
    static constexpr auto geqrf_mgs_bufferSize = &gpusvd_##X##geqrf_mgs_bufferSize;                 \
    static constexpr auto geqrf_mgs_batched = &gpusvd_##X##geqrf_mgs_batched;                       \
    static constexpr auto geqrf_mgs_batched_gpu = &gpusvd_##X##geqrf_mgs_batched_gpu;               \
    static constexpr auto geqrf_mgs_batched_bufferSize = &gpusvd_##X##geqrf_mgs_batched_bufferSize; \
    static constexpr auto geev_batched = &gpusvd_##X##geev_batched;                                 \
    static constexpr auto geev_batched_gpu = &gpusvd_##X##geev_batched_gpu;                         \
    static constexpr auto geev_batched_bufferSize = &gpusvd_##X##geev_batched_bufferSize;           \
    static constexpr auto pca = &gpusvd_##X##pca;                                                   \
    static constexpr auto pca_gpu = &gpusvd_##X##pca_gpu;                                           \
    static constexpr auto pca_bufferSize = &gpusvd_##X##pca_bufferSize;

#define GPUSVD_UTIL_API_REAL(X)                                                               \
    static constexpr auto geqrf_mgs_dist = &gpusvd_##X##geqrf_mgs_dist;                       \
    static constexpr auto geqrf_mgs_dist_gpu = &gpusvd_##X##geqrf_mgs_dist_gpu;               \
    static constexpr auto geqrf_mgs_dist_bufferSize = &gpusvd_##X##geqrf_mgs_dist_bufferSize; \
    static constexpr auto pca_dist = &gpusvd_##X##pca_dist;                                   \
    static constexpr auto pca_dist_gpu = &gpusvd_##X##pca_dist_gpu;                           \
    static constexpr auto bdsvd = &gpusvd_##X##bdsvd;                                         \
    static constexpr auto bdsvd_gpu = &gpusvd_##X##bdsvd_gpu;                                 \
    static constexpr auto bdsvd_bufferSize = &gpusvd_##X##bdsvd_bufferSize;                   \
    static constexpr auto pca_dist_bufferSize = &gpusvd_##X##pca_dist_bufferSize;

#define GPUSVD_UTIL_API(X, T, EXTRA)                                                              \
    template <>                                                                                   \
    struct Api<T> {                                                                               \
        static constexpr const char *prefix = "gpusvd_" #X;                                       \
        GPUSVD_UTIL_API_ALL(X)                                                                    \
        EXTRA                                                                                     \
    };
GPUSVD_UTIL_API(s, float, GPUSVD_UTIL_API_REAL(s))
GPUSVD_UTIL_API(d, double, GPUSVD_UTIL_API_REAL(d))
GPUSVD_UTIL_API(c, gpusvdComplex_t, )
GPUSVD_UTIL_API(z, gpusvdDoubleComplex_t, )
#undef GPUSVD_UTIL_API
#undef GPUSVD_UTIL_API_REAL
#undef GPUSVD_UTIL_API_ALL

}  // namespace gpusvd_util
