// What both CPU PCA methods (pca.cpp: QR; pca_covariance.cpp: covariance) share: the column
// means with the NaN/Inf screen and range, centring, the components' sign convention and the
// NaN outputs of non-finite data.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "cpu/common.hpp"
#include "cpu/thread_pool.hpp"
#include "gpusvd.h"

namespace gpusvd::cpu::pca_detail {

/// Column means of X 2^e (the range's scaling) into mean[n], and the largest |x| into *amax.
/// A NaN/Inf in X makes its column sum non-finite, so the screen costs no pass of its own; false
/// then. The sums are of finite data otherwise: their double accumulation (which keeps float
/// means accurate for large m) cannot overflow for data inside RangeScale's range. Columns are
/// shared among the pool's threads; each column's sum is the same whatever the thread count.
/// (Complex T: complex means, *amax the largest modulus.)
template <class T>
bool column_means(int64_t m, int64_t n, const T *X, int64_t ldx,
                  const RangeScale<real_t<T>> &range, T *mean, real_t<T> *amax) {
    using R = real_t<T>;
    using Sum = std::conditional_t<is_complex_v<T>, std::complex<double>, double>;
    constexpr int64_t kPerThread = int64_t(1) << 18;  // elements; below this one thread is best
    const int64_t threads = in_pool_worker() || m * n < 2 * kPerThread
                                ? 1
                                : std::min<int64_t>({hardware_threads(), n, m * n / kPerThread});
    R col_max[64];  // per slot (threads <= 64 here)
    bool bad[64];
    const int slots = static_cast<int>(std::min<int64_t>(threads, 64));
    std::fill(col_max, col_max + slots, R(0));
    std::fill(bad, bad + slots, false);
    // Four partial sums and maxima: one dependency chain would make this pass, which the
    // covariance method pays in full, several times slower.
    auto sum_max = [m](const T *x, auto scaled, R *big) {
        Sum s[4] = {0, 0, 0, 0};
        R b[4] = {R(0), R(0), R(0), R(0)};
        int64_t i = 0;
        for (; i + 4 <= m; i += 4)
            for (int l = 0; l < 4; ++l) {
                s[l] += Sum(scaled(x[i + l]));
                b[l] = std::max(b[l], std::abs(x[i + l]));
            }
        for (; i < m; ++i) {
            s[0] += Sum(scaled(x[i]));
            b[0] = std::max(b[0], std::abs(x[i]));
        }
        *big = std::max(std::max(b[0], b[1]), std::max(b[2], b[3]));
        return (s[0] + s[1]) + (s[2] + s[3]);
    };
    auto column = [&](int64_t j, int slot) {
        const T *x = X + j * ldx;
        R big = 0;
        const Sum sum = range.active()
                               ? sum_max(x, [&](T v) { return range.apply(v); }, &big)
                               : sum_max(x, [](T v) { return v; }, &big);
        col_max[slot] = std::max(col_max[slot], big);
        if (!std::isfinite(std::abs(sum)) && has_nonfinite(m, 1, x, ldx)) bad[slot] = true;
        mean[j] = static_cast<T>(sum / static_cast<double>(m));
    };
    parallel_for(n, slots, 1, column);
    *amax = *std::max_element(col_max, col_max + slots);
    return std::none_of(bad, bad + slots, [](bool b) { return b; });
}

/// column_means of a row-major X (element (i,j) at i*ldx + j): read row by row (a column at a
/// time would read every cache line n times), the sums accumulated in acc[n] on one thread in
/// row order, so each is the same whatever the thread count.
template <class T>
bool column_means_row_major(int64_t m, int64_t n, const T *X, int64_t ldx,
                            const RangeScale<T> &range, T *mean, T *amax, double *acc) {
    std::fill(acc, acc + n, 0.0);
    T big = 0;
    for (int64_t i = 0; i < m; ++i) {
        const T *x = X + i * ldx;
        if (range.active())
            for (int64_t j = 0; j < n; ++j) acc[j] += range.apply(x[j]);
        else
            for (int64_t j = 0; j < n; ++j) acc[j] += x[j];
        for (int64_t j = 0; j < n; ++j) big = std::max(big, std::abs(x[j]));
    }
    *amax = big;
    bool ok = true;
    for (int64_t j = 0; j < n; ++j) {
        if (!std::isfinite(acc[j]) && has_nonfinite(1, m, X + j, ldx)) ok = false;
        mean[j] = static_cast<T>(acc[j] / static_cast<double>(m));
    }
    return ok;
}

/// dst (rows r0..r1 of the centred data, ld ldd) = X(r0:r1, :) 2^e - mean; X row-major (element
/// (i,j) at i*ldx + j) when row_major.
template <class T>
void centre_rows(int64_t r0, int64_t r1, int64_t n, const T *X, int64_t ldx,
                 const RangeScale<real_t<T>> &range, const T *mean, T *dst, int64_t ldd,
                 bool row_major = false) {
    if (row_major) {  // rows r0..r1 are contiguous: read them in order
        for (int64_t i = r0; i < r1; ++i) {
            const T *x = X + i * ldx;
            T *d = dst + (i - r0);
            for (int64_t j = 0; j < n; ++j)
                d[j * ldd] = (range.active() ? range.apply(x[j]) : x[j]) - mean[j];
        }
        return;
    }
    for (int64_t j = 0; j < n; ++j) {
        const T *x = X + j * ldx;
        T *d = dst + j * ldd - r0;
        const T mu = mean[j];
        if (range.active())
            for (int64_t i = r0; i < r1; ++i) d[i] = range.apply(x[i]) - mu;
        else
            for (int64_t i = r0; i < r1; ++i) d[i] = x[i] - mu;
    }
}

/// component (n entries, stride incc) = +-v (stride incv) with its entry of largest magnitude
/// (the first on ties) positive. Returns the sign applied. Complex v: times the unit phase that
/// makes that entry real and positive.
template <class T>
T signed_component(int64_t n, const T *v, int64_t incv, T *component, int64_t incc = 1) {
    int64_t arg = 0;
    for (int64_t c = 1; c < n; ++c)
        if (std::abs(v[c * incv]) > std::abs(v[arg * incv])) arg = c;
    T sign;
    if constexpr (is_complex_v<T>) {
        const T big = v[arg * incv];
        const real_t<T> mag = std::abs(big);
        sign = mag > 0 ? std::conj(big) / mag : T(1);
    } else {
        sign = v[arg * incv] < 0 ? T(-1) : T(1);
    }
    for (int64_t c = 0; c < n; ++c) component[c * incc] = sign * v[c * incv];
    return sign;
}

/// Every output NaN: the data holds NaN or Inf. Components and scores row-major when row_major.
template <class T>
int nonfinite_outputs(int64_t m, int64_t n, int64_t k, T *components, int64_t ldc,
                      real_t<T> *variance, T *scores, int64_t lds, T *mean,
                      bool row_major = false) {
    if (row_major) {  // the transposed views: k x n and k x m column-major
        fill_nan(k, n, components, ldc);
        fill_nan(k, m, scores, lds);
    } else {
        fill_nan(n, k, components, ldc);
        fill_nan(m, k, scores, lds);
    }
    fill_nan(k, 1, variance, k);
    fill_nan(n, 1, mean, n);
    return GPUSVD_INFO_NONFINITE;
}

}  // namespace gpusvd::cpu::pca_detail
