// CPU eigenvalues / right eigenvectors of a general matrix (LAPACK ?geev, balancing on).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpusvd::cpu {

template <class T>
size_t geev_bytes(bool want_vr, int64_t n);

/// A destroyed; VR may be null when !want_vr. Returns info.
template <class T>
int geev(bool want_vr, int64_t n, T *A, int64_t lda, T *wr, T *wi, T *VR, int64_t ldvr,
         void *work);

}  // namespace gpusvd::cpu
