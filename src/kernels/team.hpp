// A "team" runs one matrix's algorithm: the GPU kernels use a warp or a thread block, the host
// tests use SerialTeam (one member). Algorithms in src/kernels/ are written once against this
// interface, so CI (no GPU) runs the exact algorithm the GPU runs, serially.
//
// Rules for team code: work split with `for (i = t.rank(); i < n; i += t.size())`, a t.sync()
// between a write and any read of it by another member, scalars every member needs computed
// redundantly by all members (same inputs, same result) or broadcast through shared data.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define GPUSVD_HD __host__ __device__ __forceinline__
#else
#define GPUSVD_HD inline
#endif

// Full unrolling of a loop with a constant trip count (keeps small arrays in registers). nvcc's
// host pass gets nothing: its front end rejects GCC's pragma and g++ nvcc's.
#if defined(__CUDA_ARCH__) || defined(__clang__)
#define GPUSVD_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__) || !defined(__GNUC__)
#define GPUSVD_UNROLL
#else
#define GPUSVD_UNROLL _Pragma("GCC unroll 16")
#endif

// No unrolling, for loops that usually run once or twice per member on the GPU (an unrolled
// copy's remainder handling costs more than it saves there).
#if defined(__CUDA_ARCH__) || defined(__clang__)
#define GPUSVD_NO_UNROLL _Pragma("unroll 1")
#elif defined(__CUDACC__) || !defined(__GNUC__)
#define GPUSVD_NO_UNROLL
#else
#define GPUSVD_NO_UNROLL _Pragma("GCC unroll 1")
#endif

namespace gpusvd {
namespace kernels {

/// One member: the host reference of every team algorithm.
struct SerialTeam {
    GPUSVD_HD int rank() const { return 0; }
    GPUSVD_HD int size() const { return 1; }
    GPUSVD_HD void sync() const {}
    template <class T>
    GPUSVD_HD T sum(T v) const {
        return v;
    }
    template <class T>
    GPUSVD_HD T max(T v) const {
        return v;
    }
};

/// Real<T>::inv_pow2 for an IEEE format with MANT mantissa bits and exponent bias BIAS (U: its
/// bits as an unsigned integer).
template <class U, int MANT, unsigned BIAS, class T>
GPUSVD_HD T inv_pow2_bits(T x) {
    U bits;
    std::memcpy(&bits, &x, sizeof bits);
    U e = (bits >> MANT) & U(2 * BIAS + 1);
    if (e > U(2 * BIAS - 1)) e = U(2 * BIAS - 1);
    bits = (U(2 * BIAS) - e) << MANT;
    T p;
    std::memcpy(&p, &bits, sizeof p);
    return p;
}

/// Constants of the working precision, usable on host and device (no numeric_limits there).
template <class T>
struct Real;
// The math wrappers pick the float or double function by name, which host and device both
// provide in the global namespace (std:: overloads are not all usable in device code).
template <>
struct Real<float> {
    GPUSVD_HD static float eps() { return 5.9604645e-08f; }        // LAPACK slamch('E'): 2^-24
    GPUSVD_HD static float safe_min() { return 1.17549435e-38f; }  // slamch('S')
    GPUSVD_HD static float denorm_min() { return 0x1p-149f; }
    GPUSVD_HD static float ulp() { return 1.1920929e-07f; }        // slamch('P'): 2^-23
    GPUSVD_HD static int max_exp() { return 128; }                 // overflow threshold 2^128
    GPUSVD_HD static float nan() { return NAN; }
    GPUSVD_HD static float sqrt(float x) { return ::sqrtf(x); }
    GPUSVD_HD static float rsqrt(float x) {  // the host's quotient is within an ulp of it
#if defined(__CUDA_ARCH__)
        return ::rsqrtf(x);
#else
        return 1.0f / ::sqrtf(x);
#endif
    }
    GPUSVD_HD static float rcp(float x) {
#if defined(__CUDA_ARCH__)
        return __frcp_rn(x);
#else
        return 1.0f / x;
#endif
    }
    GPUSVD_HD static float abs(float x) { return ::fabsf(x); }
    GPUSVD_HD static float ldexp(float x, int e) { return ::ldexpf(x, e); }
    /// 2^-e for x in [2^e, 2^(e+1)), x > 0 finite, from the exponent bits (no libm call): x 2^-e
    /// in [1, 2); a subnormal x gets 2^127 (x 2^127 < 2), x >= 2^126 gets 2^-126 (x 2^-126 < 4).
    GPUSVD_HD static float inv_pow2(float x) { return inv_pow2_bits<uint32_t, 23, 127>(x); }
    GPUSVD_HD static int exponent(float x) {  // x = f 2^e with f in [0.5, 1)
        int e = 0;
        ::frexpf(x, &e);
        return e;
    }
};
template <>
struct Real<double> {
    GPUSVD_HD static double eps() { return 1.1102230246251565e-16; }  // dlamch('E'): 2^-53
    GPUSVD_HD static double safe_min() { return 2.2250738585072014e-308; }
    GPUSVD_HD static double denorm_min() { return 0x1p-1074; }
    GPUSVD_HD static double ulp() { return 2.220446049250313e-16; }  // dlamch('P'): 2^-52
    GPUSVD_HD static int max_exp() { return 1024; }
    GPUSVD_HD static double nan() { return double(NAN); }
    GPUSVD_HD static double sqrt(double x) { return ::sqrt(x); }
    GPUSVD_HD static double rsqrt(double x) {
#if defined(__CUDA_ARCH__)
        return ::rsqrt(x);
#else
        return 1.0 / ::sqrt(x);
#endif
    }
    GPUSVD_HD static double rcp(double x) {
#if defined(__CUDA_ARCH__)
        return __drcp_rn(x);
#else
        return 1.0 / x;
#endif
    }
    GPUSVD_HD static double abs(double x) { return ::fabs(x); }
    GPUSVD_HD static double ldexp(double x, int e) { return ::ldexp(x, e); }
    GPUSVD_HD static double inv_pow2(double x) {  // as Real<float>'s: 2^1023 .. 2^-1022
        return inv_pow2_bits<uint64_t, 52, 1023>(x);
    }
    GPUSVD_HD static int exponent(double x) {
        int e = 0;
        ::frexp(x, &e);
        return e;
    }
};

#if defined(__CUDA_ARCH__)
/// The hardware's reciprocal square root and reciprocal (of the high word in double): no
/// handling of zero, subnormal or infinite x.
__device__ inline float approx_rsqrt(float x) {
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ inline double approx_rsqrt(double x) {
    double y;
    asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
    return y;
}
__device__ inline float approx_rcp(float x) {
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ inline double approx_rcp(double x) {
    double y;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
    return y;
}
#endif

/// Real<T>::rsqrt and rcp for a normal, finite x > 0, without the library's branch to a slow
/// path for zero, subnormal and inf (a few instructions and a reconvergence barrier pair each;
/// larfg3 pays them every bulge step). On the GPU the hardware approximation, then the steps of
/// the library's fast path: none for float's rsqrt (as rsqrtf), a cubic step for double's; one
/// Newton step for float's rcp, a cubic and a Newton step for double's. On the host the library
/// functions themselves.
template <class T>
GPUSVD_HD T rsqrt_normal(T x) {
#if defined(__CUDA_ARCH__)
    const T y = approx_rsqrt(x);
    if (sizeof(T) == 4) return y;
    const T e = ::fma(-x * y, y, T(1));
    return ::fma(y * e, ::fma(e, T(0.375), T(0.5)), y);
#else
    return Real<T>::rsqrt(x);
#endif
}
template <class T>
GPUSVD_HD T rcp_normal(T x) {
#if defined(__CUDA_ARCH__)
    T y = approx_rcp(x);
    if (sizeof(T) == 8) {
        const T e = ::fma(-x, y, T(1));
        y = ::fma(y, ::fma(e, e, e), y);
    }
    return ::fma(y, ::fma(-x, y, T(1)), y);
#else
    return Real<T>::rcp(x);
#endif
}

template <class T>
GPUSVD_HD bool is_finite(T x) {
    return x - x == x - x;  // false for NaN and +-Inf, true otherwise
}

}  // namespace kernels
}  // namespace gpusvd
