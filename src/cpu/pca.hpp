// CPU PCA, two methods: QR (pca.cpp: centre, QR when tall, ?gesdd of R or of the centred data)
// and covariance (pca_covariance.cpp: Gram matrix of the centred data by ?syrk in row blocks,
// symmetric eigensolver ?syevd or ?syevr). Same outputs and conventions.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/complex.hpp"

namespace gpusvd::cpu {

template <class T>
size_t pca_qr_bytes(int64_t m, int64_t n, int64_t k);

/// scores and mean may be null. row_major: X, components and scores row-major (element (i,j) at
/// i*ld + j). *total: the total variance ||Xc||_F^2 / (m - 1) (NaN for NaN/Inf data), from the
/// factorization (no pass of its own). Returns info. T real or complex (Xc = U S V^H, the
/// components V's columns with their largest entry made real positive).
template <class T>
int pca_qr(int64_t m, int64_t n, const T *X, int64_t ldx, int64_t k, T *components, int64_t ldc,
           real_t<T> *variance, T *scores, int64_t lds, T *mean, void *work, bool row_major,
           double *total);

template <class T>
size_t pca_covariance_bytes(int64_t m, int64_t n, int64_t k);

/// As pca_qr. info > 0: the eigensolver did not converge.
template <class T>
int pca_covariance(int64_t m, int64_t n, const T *X, int64_t ldx, int64_t k, T *components,
                   int64_t ldc, T *variance, T *scores, int64_t lds, T *mean, void *work,
                   bool row_major, double *total);

}  // namespace gpusvd::cpu
