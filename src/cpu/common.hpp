// Small pieces every CPU routine uses: workspace layout, NaN/Inf screening, scaling into the
// safe range, sorting.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>

#include "cpu/complex.hpp"
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
/// Complex a: a 2m x n real matrix (real and imaginary parts interleaved).
template <class R>
bool has_nonfinite(int64_t m, int64_t n, const std::complex<R> *a, int64_t lda) {
    return has_nonfinite(2 * m, n, reinterpret_cast<const R *>(a), 2 * lda);
}

template <class T>
void fill_nan(int64_t m, int64_t n, T *a, int64_t lda) {
    if (!a) return;
    const T nan = nan_of<T>();
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) a[i + j * lda] = nan;
}

/// Largest |a_ij| of a (m x n), finite input. Four independent maxima: the dependency chain of
/// one would make this pass, which every routine pays, several times slower.
template <class T>
real_t<T> max_abs(int64_t m, int64_t n, const T *a, int64_t lda) {
    using R = real_t<T>;
    R acc[4] = {R(0), R(0), R(0), R(0)};
    for (int64_t j = 0; j < n; ++j) {
        const T *col = a + j * lda;
        int64_t i = 0;
        for (; i + 4 <= m; i += 4)
            for (int l = 0; l < 4; ++l) acc[l] = std::max(acc[l], std::abs(col[i + l]));
        for (; i < m; ++i) acc[0] = std::max(acc[0], std::abs(col[i]));
    }
    return std::max(std::max(acc[0], acc[1]), std::max(acc[2], acc[3]));
}

/// x 2^e (ldexp of both parts for complex x).
template <class E>
E scale_pow2(E x, int e) {
    if constexpr (is_complex_v<E>)
        return E(std::ldexp(x.real(), e), std::ldexp(x.imag(), e));
    else
        return std::ldexp(x, e);
}

/// Scaling by a power of two around LAPACK calls whose intermediate quantities can overflow or
/// underflow where the exact answer does not (LAPACK's drivers do the same internally, but not
/// every routine the CPU backend calls does, nor does our own code around them). Data whose
/// largest magnitude lies outside [2^-s, 2^s], s = (1 - min_exponent) / 2 - (digits - 1) (the
/// SMLNUM = sqrt(safmin) / eps and BIGNUM = 1 / SMLNUM at which ?gesvd and ?geev scale; squares
/// of such entries stay normal with room for eps), is multiplied by the 2^e that brings it into
/// [1, 2); outputs that scale with the data are multiplied by 2^-e (2^-2e for squares).
/// Multiplying by a power of two is exact unless the result leaves the normal range, so data
/// within the range is untouched, and every output is its exact value rounded: +-Inf only where
/// that exceeds the largest finite value, subnormal or zero where it lies below the normal range.
template <class T>
class RangeScale {
public:
    /// No scaling.
    RangeScale() = default;
    /// The scaling of data whose largest magnitude is amax (finite, >= 0): none inside the range.
    static RangeScale of(T amax) {
        using L = std::numeric_limits<T>;
        constexpr int safe = (1 - L::min_exponent) / 2 - (L::digits - 1);
        const int ex = amax > T(0) ? std::ilogb(amax) : 0;
        return ex < -safe || ex > safe ? RangeScale(-ex) : RangeScale();
    }
    /// The power of two that brings amax (finite, > 0) into [1, 2), whatever its size.
    static RangeScale to_unit(T amax) { return RangeScale(-std::ilogb(amax)); }

    bool active() const { return e_ != 0; }
    /// x 2^e, the input's scaling (exact but for results below the normal range).
    /// (Complex elements E of real type T are scaled in both parts.)
    template <class E>
    E apply(E x) const {
        return x * f1_ * f2_;
    }
    template <class E>
    void apply(int64_t m, int64_t n, E *a, int64_t lda) const {
        if (!active()) return;
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) a[i + j * lda] = apply(a[i + j * lda]);
    }
    /// x 2^(-e power): an output of degree `power` in the data back to the data's scale.
    template <class E>
    E undo(E x, int power = 1) const {
        return active() ? scale_pow2(x, -e_ * power) : x;
    }
    template <class E>
    void undo(int64_t m, int64_t n, E *a, int64_t lda, int power = 1) const {
        if (!active() || !a) return;
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) a[i + j * lda] = undo(a[i + j * lda], power);
    }

private:
    explicit RangeScale(int e) : e_(e) {
        // 2^e itself is out of range when subnormal data is scaled up: then two factors, the
        // first of which cannot round (its product stays below the final one).
        const int e1 = e > std::numeric_limits<T>::max_exponent - 1 ? e / 2 : e;
        f1_ = std::ldexp(T(1), e1);
        f2_ = std::ldexp(T(1), e - e1);
    }

    int e_ = 0;
    T f1_ = T(1), f2_ = T(1);
};

template <class T>
void swap_columns(int64_t m, T *a, int64_t lda, int64_t i, int64_t j) {
    for (int64_t r = 0; r < m; ++r) std::swap(a[r + i * lda], a[r + j * lda]);
}

/// Sort s[0..k) descending, applying the same permutation to the columns of U (m x k) and of
/// V (n x k) and/or the rows of VT (k x n) where given. Selection sort: k swaps at most, and the
/// input is almost always already sorted.
/// (s real, the vectors real or complex.)
template <class T, class E>
void sort_descending(int64_t k, T *s, int64_t m, E *u, int64_t ldu, int64_t n, E *v, int64_t ldv,
                     E *vt = nullptr, int64_t ldvt = 0) {
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
