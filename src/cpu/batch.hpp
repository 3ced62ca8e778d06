// Runs LAPACK over the matrices of a batch: pool threads over matrices, OpenBLAS
// single-threaded inside, so the cores are used once and not oversubscribed. Thread creation
// and OpenBLAS's work buffers are settled before any matrix is touched: a thread the system
// refuses is not used, and a call that cannot have even one BLAS buffer does nothing.
#pragma once

#include <cstdint>

#include "cpu/openblas.hpp"
#include "cpu/thread_pool.hpp"

namespace gpusvd::cpu {

/// Threads a batch of `batch` matrices may use (>= 1): its workspace holds one slot per thread.
int batch_threads(int64_t batch);

/// How a batch will run: `threads` of ours, with OpenBLAS held single-threaded or not; or,
/// when OpenBLAS cannot run, what the system refuses it.
struct BatchPlan {
    int threads;
    bool blas_single;
    const char *refused;
};
BatchPlan plan_batch(int64_t batch, int max_threads);

/// Calls f(b, slot) for b in [0, batch) on up to `max_threads` threads (slot in [0,
/// max_threads)). Returns nullptr, or, having called nothing, what the system refuses OpenBLAS.
template <class F>
const char *for_each_matrix(int64_t batch, int max_threads, F &&f) {
    const BatchPlan p = plan_batch(batch, max_threads);
    if (p.refused) return p.refused;
    BlasSingleThreaded guard(p.blas_single);
    const int64_t per = batch / (int64_t(p.threads) * 8);
    parallel_for(batch, p.threads, per > 0 ? per : 1, f);
    return nullptr;
}

}  // namespace gpusvd::cpu
