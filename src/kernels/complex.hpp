// The complex element type of team code (host and device alike): two reals, real part first, as
// the public gpusvdComplex_t / gpusvdDoubleComplex_t, std::complex and cuComplex, so a device
// array of either is read in place. std::complex cannot serve: its operators are not device
// functions, and its division and abs take the slow, scaling library paths.
//
// Team code written over an element type T uses the free functions below (conj, real, abs2,
// mul_conj, team_sum), which are the identity or the plain operation for real T, so the real
// instantiations compile to exactly what they did before complex existed.
#pragma once

#include "kernels/team.hpp"

namespace gpusvd {
namespace kernels {

template <class R>
struct Complex {
    R re, im;
    Complex() = default;
    GPUSVD_HD constexpr Complex(R r) : re(r), im(R(0)) {}  // NOLINT: a real is a complex
    GPUSVD_HD constexpr Complex(R r, R i) : re(r), im(i) {}
    GPUSVD_HD Complex &operator+=(Complex b) {
        re += b.re;
        im += b.im;
        return *this;
    }
    GPUSVD_HD Complex &operator-=(Complex b) {
        re -= b.re;
        im -= b.im;
        return *this;
    }
    GPUSVD_HD Complex &operator*=(R s) {
        re *= s;
        im *= s;
        return *this;
    }
};

template <class R>
GPUSVD_HD Complex<R> operator+(Complex<R> a, Complex<R> b) {
    return {a.re + b.re, a.im + b.im};
}
template <class R>
GPUSVD_HD Complex<R> operator-(Complex<R> a, Complex<R> b) {
    return {a.re - b.re, a.im - b.im};
}
template <class R>
GPUSVD_HD Complex<R> operator-(Complex<R> a) {
    return {-a.re, -a.im};
}
template <class R>
GPUSVD_HD Complex<R> operator*(Complex<R> a, Complex<R> b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <class R>
GPUSVD_HD Complex<R> operator*(R s, Complex<R> a) {
    return {s * a.re, s * a.im};
}
template <class R>
GPUSVD_HD Complex<R> operator*(Complex<R> a, R s) {
    return {a.re * s, a.im * s};
}
template <class R>
GPUSVD_HD Complex<R> operator/(Complex<R> a, R s) {
    return {a.re / s, a.im / s};
}
template <class R>
GPUSVD_HD bool operator==(Complex<R> a, Complex<R> b) {
    return a.re == b.re && a.im == b.im;
}
template <class R>
GPUSVD_HD bool operator!=(Complex<R> a, Complex<R> b) {
    return !(a == b);
}

/// Real type of an element type (the type of its norms), and whether it is complex.
template <class T>
struct ElementOf {
    using Real = T;
    static constexpr bool complex = false;
};
template <class R>
struct ElementOf<Complex<R>> {
    using Real = R;
    static constexpr bool complex = true;
};
template <class T>
using RealOf = typename ElementOf<T>::Real;
template <class T>
inline constexpr bool kIsComplex = ElementOf<T>::complex;

GPUSVD_HD float conj(float x) { return x; }
GPUSVD_HD double conj(double x) { return x; }
template <class R>
GPUSVD_HD Complex<R> conj(Complex<R> x) {
    return {x.re, -x.im};
}

GPUSVD_HD float real(float x) { return x; }
GPUSVD_HD double real(double x) { return x; }
template <class R>
GPUSVD_HD R real(Complex<R> x) {
    return x.re;
}

/// |x|^2 (may overflow where |x| does not: callers scale first where it matters).
GPUSVD_HD float abs2(float x) { return x * x; }
GPUSVD_HD double abs2(double x) { return x * x; }
template <class R>
GPUSVD_HD R abs2(Complex<R> x) {
    return x.re * x.re + x.im * x.im;
}

/// conj(a) * b: the term of an inner product a^H b.
GPUSVD_HD float mul_conj(float a, float b) { return a * b; }
GPUSVD_HD double mul_conj(double a, double b) { return a * b; }
template <class R>
GPUSVD_HD Complex<R> mul_conj(Complex<R> a, Complex<R> b) {
    return {a.re * b.re + a.im * b.im, a.re * b.im - a.im * b.re};
}

/// A team's sum of one value per member: complex sums reduce the two parts, so every team type
/// (whose reductions shuffle or stage built-in types) serves complex data unchanged.
template <class Team, class T>
GPUSVD_HD T team_sum(const Team &t, T v) {
    return t.sum(v);
}
template <class Team, class R>
GPUSVD_HD Complex<R> team_sum(const Team &t, Complex<R> v) {
    return {t.sum(v.re), t.sum(v.im)};
}

}  // namespace kernels
}  // namespace gpusvd
