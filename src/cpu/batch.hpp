// Parallel loop over the matrices of a batch: OpenMP threads over matrices, OpenBLAS
// single-threaded inside, so the cores are used once and not oversubscribed.
#pragma once

#include <cstdint>

namespace gpusvd::cpu {

/// Threads a batch of `batch` matrices will use (>= 1).
int batch_threads(int64_t batch);

/// While alive, a pthread OpenBLAS runs single-threaded (process-wide, reference counted so
/// concurrent batched calls from several handles restore the user's setting only when the last
/// one ends). A no-op with OpenBLAS's OpenMP build or another BLAS.
class BlasSingleThreaded {
public:
    explicit BlasSingleThreaded(bool active);
    ~BlasSingleThreaded();
    BlasSingleThreaded(const BlasSingleThreaded &) = delete;
    BlasSingleThreaded &operator=(const BlasSingleThreaded &) = delete;

private:
    bool active_;
};

int omp_thread_index();

/// Calls f(b, thread) for b in [0, batch) on `threads` threads (thread in [0, threads)).
template <class F>
void for_each_matrix(int64_t batch, int threads, F &&f) {
    if (threads <= 1) {
        for (int64_t b = 0; b < batch; ++b) f(b, 0);
        return;
    }
    BlasSingleThreaded guard(true);
    const int64_t chunk = batch / (int64_t(threads) * 8) > 0 ? batch / (int64_t(threads) * 8) : 1;
#pragma omp parallel for num_threads(threads) schedule(dynamic, chunk)
    for (int64_t b = 0; b < batch; ++b) f(b, omp_thread_index());
}

}  // namespace gpusvd::cpu
