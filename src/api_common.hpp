// Shared by the api_*.cpp entry points.
#pragma once

#include <algorithm>
#include <cstdint>

#include "backend.hpp"

namespace gpusvd {

/// Host workspace for `threads` copies of a per-matrix layout of `per_matrix` bytes.
inline size_t batch_bytes(size_t per_matrix, int threads) {
    return per_matrix * static_cast<size_t>(threads);
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

/// Whether the device-memory form was called.
enum class Form { Host, Device };

}  // namespace gpusvd
