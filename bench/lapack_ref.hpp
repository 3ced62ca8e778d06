// The reference side of the CPU tables: the LAPACKE calls doing the same work as gpusvd's CPU
// backend (the _work forms, workspace allocated outside the timed region), and OpenBLAS thread
// control.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpu/batch.hpp"
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
using gpusvd::lapack::syevd;
using gpusvd::lapack::syrk_upper_t;

/// LAPACK ?bdsqr without vectors (ncvt = nru = ncc = 0), i.e. dqds (?lasq1): the singular
/// values of the bidiagonal (d, e) in d, descending; e destroyed. work: 4n elements. (The
/// library has no ?bdsqr wrapper: its CPU backend goes through ?bdsdc.)
inline lapack_int bdsqr(char uplo, lapack_int n, double *d, double *e, double *work) {
    double none = 0;
    return LAPACKE_dbdsqr_work(LAPACK_COL_MAJOR, uplo, n, 0, 0, 0, d, e, &none, 1, &none, 1, &none,
                               1, work);
}
inline lapack_int bdsqr(char uplo, lapack_int n, float *d, float *e, float *work) {
    float none = 0;
    return LAPACKE_sbdsqr_work(LAPACK_COL_MAJOR, uplo, n, 0, 0, 0, d, e, &none, 1, &none, 1, &none,
                               1, work);
}

/// Workspace-query result as an element count (the library's conversion, at least 1).
template <class T>
inline lapack_int lwork_of(T q) {
    return std::max<lapack_int>(1, gpusvd::lapack::query_size(q));
}

/// The reference batched loop is the library's own (src/cpu/batch.cpp, compiled into the
/// bench): pool threads over matrices, a pthread OpenBLAS held single-threaded inside,
/// f(matrix, thread) — so the CPU tables compare LAPACK calls under identical threading.
template <class F>
void pool_batch(int64_t batch, F &&f) {
    gpusvd::cpu::for_each_matrix(batch, gpusvd::cpu::batch_threads(batch), f);
}

}  // namespace bench::ref
