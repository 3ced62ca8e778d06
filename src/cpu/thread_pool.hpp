// The CPU backend's worker threads. Not OpenMP: libgomp exits the process when it cannot create
// a thread, and a library may not exit its caller. Here a thread that cannot be created is
// simply not used: the work runs on the threads there are, the calling thread at least.
#pragma once

#include <cstdint>

namespace gpusvd::cpu {

/// Threads the process may run on: its CPU affinity, or OMP_NUM_THREADS when set (the
/// variable users of OpenMP-based LAPACK front ends already set to share a machine).
int hardware_threads();

/// True on a pool worker (nested parallel loops then run serially).
bool in_pool_worker();

/// Calls body(ctx, i, slot) for every i in [0, count), on the calling thread and up to
/// threads - 1 pool workers, in chunks of `chunk` indices taken dynamically; slot in
/// [0, threads) is unique among the threads running at once (a per-thread workspace index).
/// Returns when every index is done. Never throws.
void parallel_for(int64_t count, int threads, int64_t chunk,
                  void (*body)(void *ctx, int64_t i, int slot), void *ctx);

template <class F>
void parallel_for(int64_t count, int threads, int64_t chunk, F &f) {
    parallel_for(
        count, threads, chunk,
        [](void *ctx, int64_t i, int slot) { (*static_cast<F *>(ctx))(i, slot); }, &f);
}

}  // namespace gpusvd::cpu
