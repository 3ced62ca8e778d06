// Small pieces every CPU routine uses: workspace layout, NaN/Inf screening, sorting.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>

#include "workspace.hpp"

namespace gpusvd::cpu {

/// info of a matrix whose LAPACK call rejected an argument: arguments are validated first, so
/// this is a gpusvd bug; the entry point turns it into GPUSVD_STATUS_INTERNAL_ERROR.
constexpr int kLapackArgumentError = std::numeric_limits<int>::min();

/// LAPACK's info with its negative (illegal argument) values mapped to kLapackArgumentError, so
/// they can never be mistaken for GPUSVD_INFO_NONFINITE.
inline int lapack_info(int info) {
    return info < 0 ? kLapackArgumentError : info;
}

/// Whether a (m x n) holds NaN or Inf. Every routine screens its input with this before LAPACK
/// sees it, so it must stay cheap next to the factorization (see scan.cpp).
template <class T>
bool has_nonfinite(int64_t m, int64_t n, const T *a, int64_t lda);

template <class T>
void fill_nan(int64_t m, int64_t n, T *a, int64_t lda) {
    if (!a) return;
    const T nan = std::numeric_limits<T>::quiet_NaN();
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) a[i + j * lda] = nan;
}

template <class T>
void swap_columns(int64_t m, T *a, int64_t lda, int64_t i, int64_t j) {
    for (int64_t r = 0; r < m; ++r) std::swap(a[r + i * lda], a[r + j * lda]);
}

/// Sort s[0..k) descending, applying the same permutation to the columns of U (m x k) and of
/// V (n x k) and/or the rows of VT (k x n) where given. Selection sort: k swaps at most, and the
/// input is almost always already sorted.
template <class T>
void sort_descending(int64_t k, T *s, int64_t m, T *u, int64_t ldu, int64_t n, T *v, int64_t ldv,
                     T *vt = nullptr, int64_t ldvt = 0) {
    for (int64_t i = 0; i + 1 < k; ++i) {
        int64_t best = i;
        for (int64_t j = i + 1; j < k; ++j)
            if (s[j] > s[best]) best = j;
        if (best == i) continue;
        std::swap(s[i], s[best]);
        if (u) swap_columns(m, u, ldu, i, best);
        if (v) swap_columns(n, v, ldv, i, best);
        if (vt)
            for (int64_t c = 0; c < n; ++c) std::swap(vt[i + c * ldvt], vt[best + c * ldvt]);
    }
}

}  // namespace gpusvd::cpu
