// Shared by the api_*.cpp entry points.
#pragma once

#include <algorithm>
#include <cstdint>

#include "backend.hpp"
#include "cpu/batch.hpp"
#include "cpu/common.hpp"

namespace gpusvd {

/// Host workspace of a CPU batch: one per-matrix layout of `per_matrix` bytes per thread.
inline size_t batch_bytes(size_t per_matrix, int64_t batch) {
    size_t total;
    return __builtin_mul_overflow(per_matrix, static_cast<size_t>(cpu::batch_threads(batch)),
                                  &total)
               ? ~size_t(0)
               : total;
}

/// INTERNAL_ERROR if LAPACK rejected an argument for any matrix (a gpusvd bug: arguments are
/// validated before LAPACK sees them).
inline gpusvdStatus_t check_lapack(gpusvdHandle_t h, const char *routine, int *info,
                                   int64_t count) {
    for (int64_t b = 0; b < count; ++b)
        if (info[b] == cpu::kLapackArgumentError) {
            info[b] = 0;
            return fail(h, GPUSVD_STATUS_INTERNAL_ERROR,
                        "%s: LAPACK rejected an argument (matrix %lld); this is a gpusvd bug, "
                        "please report it",
                        routine, static_cast<long long>(b));
        }
    return GPUSVD_STATUS_SUCCESS;
}

/// Runs f(b, workspace of matrix b) over a batch on the CPU, in parallel; f sets info[b].
/// Nothing is written (f never called) unless the workspace and the BLAS buffers are had.
template <class F>
gpusvdStatus_t run_cpu_batch(gpusvdHandle_t h, const char *routine, int64_t batch,
                             size_t per_matrix, int *info, F &&f) {
    const int threads = cpu::batch_threads(batch);
    gpusvdStatus_t st;
    char *ws = static_cast<char *>(host_workspace(h, routine, batch_bytes(per_matrix, batch), &st));
    if (!ws) return st;
    if (const char *refused = cpu::for_each_matrix(
            batch, threads, [&](int64_t b, int t) { f(b, ws + per_matrix * t); }))
        return fail(h, GPUSVD_STATUS_ALLOC_FAILED,
                    "%s: OpenBLAS cannot run: the system refuses %s", routine, refused);
    return check_lapack(h, routine, info, batch);
}

/// A call that did nothing: its arguments, memory or device were refused before any work.
inline bool is_rejection(gpusvdStatus_t st) {
    return st == GPUSVD_STATUS_INVALID_VALUE || st == GPUSVD_STATUS_ALLOC_FAILED ||
           st == GPUSVD_STATUS_NO_DEVICE || st == GPUSVD_STATUS_NOT_SUPPORTED;
}

inline void set_sizes(size_t *dev, size_t *host, size_t dev_bytes, size_t host_bytes) {
    if (dev) *dev = dev_bytes;
    if (host) *host = host_bytes;
}

inline void zero_info(int *info, int64_t count) {
    if (info) std::fill(info, info + count, 0);
}

}  // namespace gpusvd

namespace gpusvd {

/// a * b, saturated at INT64_MAX (for "stride >= ld * n" rules on absurd inputs).
inline int64_t sat_mul(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/// a + b, saturated at INT64_MAX.
inline int64_t sat_add(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/// Whether the device-memory form was called.
enum class Form { Host, Device };

}  // namespace gpusvd
