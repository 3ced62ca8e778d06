// Element types at the entry points: the public complex structs of gpusvd.h are handled as
// std::complex (cpu/complex.hpp). The GPU backend has kernels for real data only: a complex call
// that must run on the GPU is refused with NOT_SUPPORTED, and AUTO runs it on the CPU.
#pragma once

#include "cpu/complex.hpp"

namespace gpusvd {

/// Whether the GPU backend has kernels for element type T (of a routine it has kernels for).
template <class T>
inline constexpr bool kGpuKernelsFor = !is_complex_v<T>;

/// What the NOT_SUPPORTED message says has no GPU kernel.
template <class T>
constexpr const char *gpu_kernel_subject() {
    return is_complex_v<T> ? "complex data" : "this routine";
}

}  // namespace gpusvd
