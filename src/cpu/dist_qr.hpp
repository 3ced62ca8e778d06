// The distributed tall QR on the CPU: the GPU path's CholeskyQR steps (cuda/geqrf/tall.cpp) with
// LAPACK's Cholesky, each rank factoring its block of rows with the n x n reductions going
// through the communicator.
#pragma once

#include <cstddef>
#include <cstdint>

#include "comm.hpp"

namespace gpusvd::cpu {

/// Host workspace of dist_qr for n columns (independent of the rows).
template <class T>
size_t dist_qr_bytes(int64_t n);

/// A (m x n, this rank's rows) -> its rows of Q; R (n x n) the same on every rank; *info as
/// gpusvd_sgeqrf_mgs_dist says. A status other than SUCCESS only when the communicator fails.
template <class T>
gpusvdStatus_t dist_qr(gpusvdHandle_t h, const char *routine, gpusvdComm_t c, const Agreement &g,
                       int64_t m, int64_t n, T *A, int64_t lda, T *R, int64_t ldr, int *info,
                       void *ws);

}  // namespace gpusvd::cpu
