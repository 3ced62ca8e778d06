// The distributed PCA's host side: the SVD of the common R and what every rank derives from it
// (shared by the CPU path here and the GPU path, cuda/pca/dist.cpp), and the CPU path itself.
#pragma once

#include <cstddef>
#include <cstdint>

#include "comm.hpp"

namespace gpusvd::cpu {

/// Host workspace of pca_from_r for n features and k components.
template <class T>
size_t pca_from_r_bytes(int64_t n, int64_t k);

/// From R (n x n, ld n, overwritten) of the centred data scaled by 2^-e, over M samples: the
/// components (n x k, ld ldc, signs as gpusvd_spca's), the explained variances (k) and
/// Us = U_R(:, 0:k) diag(sigma) with the components' signs (n x k, ld n), so that this rank's
/// scores are Q Us. Returns info (0, or > 0: ?gesdd did not converge).
template <class T>
int pca_from_r(int64_t n, int64_t k, int64_t M, int e, T *R, T *components, int64_t ldc, T *var,
               T *Us, void *ws);

/// Host workspace of dist_pca on a rank with m samples.
template <class T>
size_t dist_pca_bytes(int64_t m, int64_t n, int64_t k);

/// pca_dist on the CPU (arguments validated and agreed). A status other than SUCCESS only when
/// the communicator fails.
template <class T>
gpusvdStatus_t dist_pca(gpusvdHandle_t h, const char *routine, gpusvdComm_t c, const Agreement &g,
                        int64_t m, int64_t n, const T *X, int64_t ldx, int64_t k, T *components,
                        int64_t ldc, T *var, T *scores, int64_t lds, T *mean, int *info, void *ws);

}  // namespace gpusvd::cpu
