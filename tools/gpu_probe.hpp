// Why a GPU is or is not usable, told from what this process can see: the library's build
// information, and the NVIDIA driver probed directly through dlopen("libcuda.so.1").
#pragma once

#include <string>

namespace gpusvd_cli {

/// gpusvdGetBuildInfo() without its "; GPU: ..." part.
std::string library_build_text();
/// The library's own GPU description (the part after "GPU: ").
std::string library_gpu_description();
/// Whether the loaded library has the CUDA backend compiled in.
bool library_has_cuda();

/// One line: the GPU gpusvd uses, or "none: " and in plain words why (no driver installed,
/// driver too old for the CUDA runtime, no device, or what the library reports).
std::string gpu_diagnosis();

}  // namespace gpusvd_cli
