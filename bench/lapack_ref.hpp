// The reference side of the CPU tables: the LAPACKE calls doing the same work as gpusvd's CPU
// backend (the _work forms, workspace allocated outside the timed region), and OpenBLAS thread
// control.
#pragma once

#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "cpu/lapack.hpp"

namespace bench::ref {

// The same thin LAPACKE wrappers the library's CPU backend calls (src/cpu/lapack.hpp).
using gpusvd::lapack::bdsdc;
using gpusvd::lapack::geev;
using gpusvd::lapack::gemm;
using gpusvd::lapack::geqrf;
using gpusvd::lapack::gesdd;
using gpusvd::lapack::gesvj;
using gpusvd::lapack::orgqr;

/// Workspace-query result as an element count.
template <class T>
inline lapack_int lwork_of(T q) {
    return std::max<lapack_int>(1, static_cast<lapack_int>(q) + 1);
}

/// openblas_set_num_threads / openblas_get_num_threads looked up at run time (no-ops with a
/// BLAS that is not OpenBLAS), as the library itself does.
inline void set_blas_threads(int n) {
    using F = void (*)(int);
    static F f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    if (f) f(n);
}
inline int get_blas_threads() {
    using F = int (*)(void);
    static F f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    return f ? f() : 1;
}

/// While alive, OpenBLAS runs single-threaded (the reference batched loops, like the library).
class BlasOneThread {
public:
    BlasOneThread() : saved_(get_blas_threads()) { set_blas_threads(1); }
    ~BlasOneThread() { set_blas_threads(saved_); }
    BlasOneThread(const BlasOneThread &) = delete;
    BlasOneThread &operator=(const BlasOneThread &) = delete;

private:
    int saved_;
};

/// The reference batched loop: OpenMP over matrices (dynamic schedule), OpenBLAS
/// single-threaded inside, f(matrix, thread) with thread < omp_get_max_threads() (as the library).
template <class F>
void omp_batch(int64_t batch, F &&f) {
    const int threads =
        static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(omp_get_max_threads(), batch)));
    if (threads == 1) {
        for (int64_t i = 0; i < batch; ++i) f(i, 0);
        return;
    }
    BlasOneThread guard;
    const int64_t chunk = std::max<int64_t>(1, batch / (int64_t(threads) * 8));
#pragma omp parallel for num_threads(threads) schedule(dynamic, chunk)
    for (int64_t i = 0; i < batch; ++i) f(i, omp_get_thread_num());
}

}  // namespace bench::ref
