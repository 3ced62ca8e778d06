#include <algorithm>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

#include "cpu/common.hpp"
#include "cpu/thread_pool.hpp"

namespace gpusvd::cpu {

namespace {

// Tests exponent bits (all ones = Inf or NaN) so the loop vectorises.
template <class T>
bool columns_nonfinite(int64_t m, int64_t j0, int64_t j1, const T *a, int64_t lda) {
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    constexpr Bits exponent = sizeof(T) == 4 ? Bits(0x7f800000u) : Bits(0x7ff0000000000000ull);
    Bits hit = 0;
    for (int64_t j = j0; j < j1; ++j) {
        const T *col = a + j * lda;
        for (int64_t i = 0; i < m; ++i) {
            Bits b;
            std::memcpy(&b, col + i, sizeof b);
            hit |= static_cast<Bits>((b & exponent) == exponent);
        }
    }
    return hit != 0;
}

}  // namespace

template <class T>
bool has_nonfinite(int64_t m, int64_t n, const T *a, int64_t lda) {
    // A large single matrix is scanned by short-lived std::threads rather than the pool's
    // workers, which stay alive after the scan (OpenMP workers that spun after their region
    // slowed the OpenBLAS threads of the factorization that follows by +70% on a 20000 x 64 QR
    // on 2 cores).
    constexpr int64_t kPerThread = int64_t(1) << 19;  // elements; below this one thread is best
    if (m * n < 2 * kPerThread || in_pool_worker()) return columns_nonfinite(m, 0, n, a, lda);
    const int64_t hw = hardware_threads();
    const int64_t threads = std::min({hw, n, m * n / kPerThread});
    if (threads <= 1) return columns_nonfinite(m, 0, n, a, lda);
    // No exception may cross the C ABI: if threads cannot be had, scan on this one.
    try {
        std::vector<char> found(static_cast<size_t>(threads), 0);
        std::vector<std::thread> pool;
        pool.reserve(static_cast<size_t>(threads - 1));
        auto part = [&](int64_t t) {
            found[t] = columns_nonfinite(m, n * t / threads, n * (t + 1) / threads, a, lda);
        };
        try {
            for (int64_t t = 1; t < threads; ++t) pool.emplace_back(part, t);
        } catch (...) {
            for (std::thread &th : pool) th.join();
            return columns_nonfinite(m, 0, n, a, lda);
        }
        part(0);
        for (std::thread &th : pool) th.join();
        return std::find(found.begin(), found.end(), 1) != found.end();
    } catch (...) {
        return columns_nonfinite(m, 0, n, a, lda);
    }
}

template bool has_nonfinite<float>(int64_t, int64_t, const float *, int64_t);
template bool has_nonfinite<double>(int64_t, int64_t, const double *, int64_t);

}  // namespace gpusvd::cpu
