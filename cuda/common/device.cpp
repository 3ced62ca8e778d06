// Device probe with the statically linked CUDA runtime: libcuda.so is loaded lazily by the
// runtime, so on a machine with no driver this only reports "no usable GPU".
#include <cuda_runtime_api.h>
#include <dlfcn.h>

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
            // The runtime answers "driver version is insufficient" also when no driver is
            // installed at all, which would send users looking for an upgrade: tell them apart.
            const char *why = err == cudaSuccess ? "no CUDA device" : cudaGetErrorString(err);
            if (err == cudaErrorInsufficientDriver) {
                void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
                why = driver ? "the NVIDIA driver is older than this build's CUDA runtime"
                             : "no NVIDIA driver is installed (libcuda.so.1 cannot be loaded)";
                if (driver) dlclose(driver);
            } else if (err == cudaErrorNoDevice) {
                why = "the NVIDIA driver finds no CUDA device";
            }
            std::snprintf(s.description, sizeof s.description, "no usable GPU: %s", why);
            (void)cudaGetLastError();
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

int current_device() {
    if (!device_status().usable) return -1;
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return dev;
}

bool device_usable(int id, char *why, size_t why_size) {
    int count = 0;
    if (!device_status().usable || cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        std::snprintf(why, why_size, "%s", device_status().description);
        return false;
    }
    if (id < 0 || id >= count) {
        std::snprintf(why, why_size, "there are %d CUDA devices (0 to %d)", count, count - 1);
        return false;
    }
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, id) != cudaSuccess) {
        (void)cudaGetLastError();
        std::snprintf(why, why_size, "device %d cannot be queried", id);
        return false;
    }
    if (p.major * 10 + p.minor < GPUSVD_MIN_CUDA_ARCH) {
        std::snprintf(why, why_size, "device %d (%.100s) is sm_%d; this build needs sm_%d", id,
                      p.name, p.major * 10 + p.minor, GPUSVD_MIN_CUDA_ARCH);
        return false;
    }
    return true;
}

}  // namespace gpusvd
