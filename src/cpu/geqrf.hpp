// CPU QR with explicit Q (Householder ?geqrf + ?orgqr, signs fixed so R(j,j) >= 0).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpusvd::cpu {

template <class T>
size_t geqrf_bytes(int64_t m, int64_t n);

/// Q overwrites the first min(m,n) columns of A; R is min(m,n) x n. Returns info.
template <class T>
int geqrf(int64_t m, int64_t n, T *A, int64_t lda, T *R, int64_t ldr, void *work);

}  // namespace gpusvd::cpu
