// Element types at the entry points: the public complex structs of gpusvd.h are handled as
// std::complex (cpu/complex.hpp) on the CPU and as kernels::Complex on the GPU. Which complex
// cases have GPU kernels is each routine's own rule (src/api_*.cpp); a complex call without one
// that must run on the GPU is refused with NOT_SUPPORTED, and AUTO runs it on the CPU.
#pragma once

#include "cpu/complex.hpp"
#include "kernels/complex.hpp"

namespace gpusvd {

/// The GPU dispatch's element type of T: kernels::Complex<R> for std::complex<R> (the same
/// layout, checked below), T itself for real T. The entry points cast their pointers with gpu_ptr.
template <class T>
struct GpuElement {
    using type = T;
};
template <class R>
struct GpuElement<std::complex<R>> {
    using type = kernels::Complex<R>;
};
template <class T>
using gpu_t = typename GpuElement<T>::type;
template <class T>
gpu_t<T> *gpu_ptr(T *p) {
    return reinterpret_cast<gpu_t<T> *>(p);
}
static_assert(sizeof(kernels::Complex<float>) == sizeof(gpusvdComplex_t) &&
                  alignof(gpusvdComplex_t) >= alignof(kernels::Complex<float>) &&
                  offsetof(kernels::Complex<float>, im) == offsetof(gpusvdComplex_t, im),
              "kernels::Complex<float> must be laid out as gpusvdComplex_t");
static_assert(sizeof(kernels::Complex<double>) == sizeof(gpusvdDoubleComplex_t) &&
                  alignof(gpusvdDoubleComplex_t) >= alignof(kernels::Complex<double>) &&
                  offsetof(kernels::Complex<double>, im) == offsetof(gpusvdDoubleComplex_t, im),
              "kernels::Complex<double> must be laid out as gpusvdDoubleComplex_t");

/// What the NOT_SUPPORTED message says has no GPU kernel.
template <class T>
constexpr const char *gpu_kernel_subject() {
    return is_complex_v<T> ? "complex data" : "this routine";
}

}  // namespace gpusvd
