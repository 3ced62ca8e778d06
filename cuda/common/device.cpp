// Device probe with the statically linked CUDA runtime: libcuda.so is loaded lazily by the
// runtime, so on a machine with no driver this only reports "no usable GPU".
#include <cuda_runtime_api.h>

#include <cstdio>
#include <mutex>

#include "backend.hpp"

namespace gpusvd {

const DeviceStatus &device_status() {
    static DeviceStatus s;
    static std::once_flag once;
    std::call_once(once, [] {
        int count = 0;
        cudaError_t err = cudaGetDeviceCount(&count);
        if (err != cudaSuccess || count == 0) {
            std::snprintf(s.description, sizeof s.description, "no usable GPU (%s)",
                          err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device");
            return;
        }
        int dev = 0;
        cudaDeviceProp p{};
        if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
            std::snprintf(s.description, sizeof s.description, "no usable GPU (query failed)");
            return;
        }
        const int cc = p.major * 10 + p.minor;
        if (cc < GPUSVD_MIN_CUDA_ARCH) {
            std::snprintf(s.description, sizeof s.description,
                          "no usable GPU (%.120s is sm_%d; this build needs sm_%d or newer)", p.name,
                          cc, GPUSVD_MIN_CUDA_ARCH);
            return;
        }
        s.usable = true;
        std::snprintf(s.description, sizeof s.description, "%.120s (sm_%d, %.1f GiB, device %d of %d)",
                      p.name, cc, p.totalGlobalMem / 1073741824.0, dev, count);
    });
    return s;
}

}  // namespace gpusvd
