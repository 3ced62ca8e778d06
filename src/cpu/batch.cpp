#include "cpu/batch.hpp"

#include <algorithm>

#include "cpu/openblas.hpp"

namespace gpusvd::cpu {

int batch_threads(int64_t batch) {
    const int64_t t = in_pool_worker() ? 1 : hardware_threads();
    return static_cast<int>(batch < t ? (batch > 0 ? batch : 1) : t);
}

BatchPlan plan_batch(int64_t batch, int max_threads) {
    constexpr const char *kNoBuffer = "the memory of its 128 MiB work buffer";
    if (!blas_threads_startable()) return {0, false, "the threads it has to start"};
    const int ours = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(batch, max_threads)));
    if (ours > 1) {
        // Our threads each call a single-threaded BLAS: one buffer each.
        const int got = blas_buffers_available(ours);
        return {got, true, got ? nullptr : kNoBuffer};
    }
    // One matrix at a time: OpenBLAS may run all its threads, each wanting a buffer; if they
    // cannot all have one, it runs single-threaded.
    const int blas = blas_threads();
    const int got = blas_buffers_available(blas);
    return {1, got < blas, got ? nullptr : kNoBuffer};
}

}  // namespace gpusvd::cpu
