// CPU one-sided Jacobi SVD (LAPACK ?gesvj), the reference for the GPU kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/complex.hpp"

namespace gpusvd::cpu {

struct JacobiStats {
    int sweeps = 0;
    double off_norm = 0.0;
};

/// Workspace bytes for one matrix.
template <class T>
size_t gesvj_bytes(int64_t m, int64_t n);

/// Economy SVD of one m x n matrix (A destroyed), A = U diag(S) V^H. tol: 0 for the default.
/// Returns info.
template <class T>
int gesvj(bool want_u, bool want_v, int64_t m, int64_t n, T *A, int64_t lda, real_t<T> *S, T *U,
          int64_t ldu, T *V, int64_t ldv, double tol, void *work, JacobiStats *stats);

}  // namespace gpusvd::cpu
