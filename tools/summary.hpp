// The command-specific summary lines (stderr, nothing with -q).
#pragma once

#include <cstdint>
#include <vector>

#include "session.hpp"

namespace gpusvd_cli {

/// Largest and smallest singular value, condition number, numerical rank (values above
/// max(m, n) * eps * largest, numpy.linalg.matrix_rank's rule). S: batch sets of k values.
void summarize_singular_values(const Session &s, const std::vector<double> &S, int64_t batch,
                               int64_t k, int64_t m, int64_t n);

/// Spectral abscissa (largest real part) and the eigenvalues with positive real part, what a
/// stability scan looks for. wr, wi: batch sets of n values.
void summarize_eigenvalues(const Session &s, const std::vector<double> &wr,
                           const std::vector<double> &wi, int64_t batch, int64_t n);

/// Extremes of |R(j,j)| and the dependent columns (info). `full_rank_bound`: R is square or
/// tall (m >= n), so max/min |R(j,j)| bounds cond(A) from below.
void summarize_r_diagonal(const Session &s, const std::vector<double> &diag, int64_t batch,
                          int64_t k, bool full_rank_bound, const int *info);

/// Total variance and, per component, variance, ratio and cumulative ratio.
void summarize_pca(const Session &s, const std::vector<double> &variance, double total,
                   int64_t features);

}  // namespace gpusvd_cli
