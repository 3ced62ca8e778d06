// NVIDIA driver probe through the driver API's C entry points, looked up with dlsym so that the
// tool needs neither CUDA headers nor a driver to build or run. The library's own probe goes
// through the CUDA runtime, which reports a missing driver as "CUDA driver version is
// insufficient for CUDA runtime version"; this one tells the cases apart.
#include "gpu_probe.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#include "gpusvd.h"

namespace gpusvd_cli {

namespace {

constexpr const char *kGpuTag = "; GPU: ";
constexpr int kCudaErrorNoDevice = 100;  // CUDA_ERROR_NO_DEVICE

struct Driver {
    bool loaded = false;
    std::string load_error;
    int version = 0;  ///< cuDriverGetVersion: 1000 * major + 10 * minor
    int init = -1;    ///< cuInit's CUresult
    std::string init_name;
    int devices = 0;
};

Driver probe() {
    Driver d;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        d.load_error = e ? e : "not found";
        return d;
    }
    d.loaded = true;
    using IntOut = int (*)(int *);
    using Init = int (*)(unsigned);
    using ErrorName = int (*)(int, const char **);
    auto get_version = reinterpret_cast<IntOut>(dlsym(lib, "cuDriverGetVersion"));
    auto init = reinterpret_cast<Init>(dlsym(lib, "cuInit"));
    auto count = reinterpret_cast<IntOut>(dlsym(lib, "cuDeviceGetCount"));
    auto error_name = reinterpret_cast<ErrorName>(dlsym(lib, "cuGetErrorName"));
    if (get_version) get_version(&d.version);
    if (init) {
        d.init = init(0);
        const char *name = nullptr;
        if (d.init != 0 && error_name && error_name(d.init, &name) == 0 && name)
            d.init_name = name;
        else if (d.init != 0)
            d.init_name = "error " + std::to_string(d.init);
    }
    if (d.init == 0 && count && count(&d.devices) != 0) d.devices = 0;
    return d;  // the library stays loaded: the CUDA runtime in libgpusvd may share it
}

std::string cuda_version_text(int v) {
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

}  // namespace

std::string library_build_text() {
    const std::string info = gpusvdGetBuildInfo();
    const size_t at = info.find(kGpuTag);
    return at == std::string::npos ? info : info.substr(0, at);
}

std::string library_gpu_description() {
    const std::string info = gpusvdGetBuildInfo();
    const size_t at = info.find(kGpuTag);
    return at == std::string::npos ? "" : info.substr(at + std::strlen(kGpuTag));
}

bool library_has_cuda() {
    return std::string(gpusvdGetBuildInfo()).find("no CUDA backend") == std::string::npos;
}

std::string gpu_diagnosis() {
    const std::string lib = library_gpu_description();
    const bool lib_usable = lib.compare(0, 13, "no usable GPU") != 0 && library_has_cuda();
    const Driver d = probe();
    const std::string driver =
        d.loaded && d.version ? "NVIDIA driver for CUDA " + cuda_version_text(d.version) : "";
    if (lib_usable) return lib + (driver.empty() ? "" : "; " + driver);
    if (!library_has_cuda()) {
        std::string s = "none: this build of gpusvd has no CUDA backend";
        if (d.init == 0 && d.devices > 0)
            s += " (an " + driver + " and " + std::to_string(d.devices) +
                 " GPU(s) are present: rebuild with -DGPUSVD_ENABLE_CUDA=ON to use them)";
        return s;
    }
    if (!d.loaded) return "none: no NVIDIA driver is installed (libcuda.so.1 cannot be loaded)";
    const bool too_old = lib.find("insufficient") != std::string::npos ||
                         lib.find("older than") != std::string::npos;
#ifdef GPUSVD_CLI_CUDA_VERSION
    const int runtime = GPUSVD_CLI_CUDA_VERSION;
#else
    const int runtime = 0;
#endif
    if (too_old || (runtime && d.version && d.version < runtime))
        return "none: the NVIDIA driver is too old: it supports CUDA up to " +
               cuda_version_text(d.version) + ", older than the CUDA runtime gpusvd was built " +
               "with" + (runtime ? " (" + cuda_version_text(runtime) + ")" : "") +
               "; update the NVIDIA driver";
    if (d.init == kCudaErrorNoDevice || (d.init == 0 && d.devices == 0)) {
        std::string s = "none: the " + (driver.empty() ? "NVIDIA driver" : driver) +
                        " is installed but finds no GPU";
        if (const char *v = std::getenv("CUDA_VISIBLE_DEVICES"))
            s += std::string(" (CUDA_VISIBLE_DEVICES='") + v + "' may hide them)";
        return s;
    }
    if (d.init != 0)
        return "none: the " + (driver.empty() ? "NVIDIA driver" : driver) +
               " failed to initialise (cuInit: " + d.init_name + ")";
    return "none: " + lib;
}

}  // namespace gpusvd_cli
