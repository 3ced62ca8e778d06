// Element types of the CPU backend: float, double, std::complex<float>, std::complex<double>.
// Each algorithm is written once over the element type T; real_t<T> is the type of its norms,
// singular values and variances. The public complex structs (gpusvd.h) are layout-compatible
// with std::complex, so the entry points cast their pointers (checked below).
#pragma once

#include <complex>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "gpusvd.h"

namespace gpusvd {

template <class T>
struct Element {
    using Real = T;
    static constexpr bool complex = false;
};
template <class R>
struct Element<std::complex<R>> {
    using Real = R;
    static constexpr bool complex = true;
};
template <class T>
using real_t = typename Element<T>::Real;
template <class T>
inline constexpr bool is_complex_v = Element<T>::complex;

/// The library's element type of a public one (identity for float and double).
template <class P>
struct Internal {
    using type = P;
};
template <>
struct Internal<gpusvdComplex_t> {
    using type = std::complex<float>;
};
template <>
struct Internal<gpusvdDoubleComplex_t> {
    using type = std::complex<double>;
};
template <class P>
using internal_t = typename Internal<std::remove_const_t<P>>::type;

template <class P>
auto *internal(P *p) {
    using T = std::conditional_t<std::is_const_v<P>, const internal_t<P>, internal_t<P>>;
    return reinterpret_cast<T *>(p);
}

static_assert(sizeof(gpusvdComplex_t) == sizeof(std::complex<float>) &&
                  alignof(gpusvdComplex_t) >= alignof(std::complex<float>) &&
                  offsetof(gpusvdComplex_t, im) == sizeof(float),
              "gpusvdComplex_t must be laid out as std::complex<float>");
static_assert(sizeof(gpusvdDoubleComplex_t) == sizeof(std::complex<double>) &&
                  alignof(gpusvdDoubleComplex_t) >= alignof(std::complex<double>) &&
                  offsetof(gpusvdDoubleComplex_t, im) == sizeof(double),
              "gpusvdDoubleComplex_t must be laid out as std::complex<double>");

/// conj(x); x itself for real x (std::conj of a real returns a complex).
template <class T>
T conj_of(T x) {
    if constexpr (is_complex_v<T>)
        return std::conj(x);
    else
        return x;
}

/// |x|^2 without the overflow-safe (and slower) hypot of std::abs and std::norm.
template <class T>
real_t<T> abs2(T x) {
    if constexpr (is_complex_v<T>)
        return x.real() * x.real() + x.imag() * x.imag();
    else
        return x * x;
}

template <class T>
real_t<T> real_of(T x) {
    if constexpr (is_complex_v<T>)
        return x.real();
    else
        return x;
}

/// NaN (in both parts for complex T).
template <class T>
T nan_of() {
    const real_t<T> nan = std::numeric_limits<real_t<T>>::quiet_NaN();
    if constexpr (is_complex_v<T>)
        return T(nan, nan);
    else
        return nan;
}

}  // namespace gpusvd
