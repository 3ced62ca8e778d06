// CPU bidiagonal SVD (LAPACK ?bdsdc: dqds for values, divide and conquer for vectors).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpusvd::cpu {

template <class T>
size_t bdsvd_bytes(bool want_vectors, int64_t n);

/// d -> singular values (descending), e destroyed, U/VT n x n when want_vectors. Returns info.
template <class T>
int bdsvd(bool lower, bool want_vectors, int64_t n, T *d, T *e, T *U, int64_t ldu, T *VT,
          int64_t ldvt, void *work);

}  // namespace gpusvd::cpu
