// CPU PCA: centre, QR when tall, SVD (LAPACK ?gesdd) of R or of the centred data.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpusvd::cpu {

template <class T>
size_t pca_bytes(int64_t m, int64_t n, int64_t k);

/// scores and mean may be null. Returns info.
template <class T>
int pca(int64_t m, int64_t n, const T *X, int64_t ldx, int64_t k, T *components, int64_t ldc,
        T *variance, T *scores, int64_t lds, T *mean, void *work);

}  // namespace gpusvd::cpu
