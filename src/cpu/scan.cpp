#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>

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
    // A large single matrix is scanned by column slices on the pool's threads (they sleep
    // between jobs, so they take nothing from the OpenBLAS threads of the factorization after).
    constexpr int64_t kPerThread = int64_t(1) << 19;  // elements; below this one thread is best
    const int64_t threads =
        m * n < 2 * kPerThread ? 1 : std::min<int64_t>({hardware_threads(), n, m * n / kPerThread});
    if (threads <= 1) return columns_nonfinite(m, 0, n, a, lda);
    std::atomic<bool> found{false};
    auto part = [&](int64_t t, int) {
        if (columns_nonfinite(m, n * t / threads, n * (t + 1) / threads, a, lda))
            found.store(true, std::memory_order_relaxed);
    };
    parallel_for(threads, static_cast<int>(threads), 1, part);
    return found.load();
}

template bool has_nonfinite<float>(int64_t, int64_t, const float *, int64_t);
template bool has_nonfinite<double>(int64_t, int64_t, const double *, int64_t);

}  // namespace gpusvd::cpu
