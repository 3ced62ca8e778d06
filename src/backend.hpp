// Backend selection: which device is usable, and where a call runs.
#pragma once

#include "args.hpp"

namespace gpusvd {

/// The GPU as seen by this process, probed once. Implemented by cuda/common/device.cpp when the
/// CUDA backend is compiled in, else by src/device_none.cpp.
struct DeviceStatus {
    bool usable = false;
    char description[256] = "";  // device name and capability, or why none is usable
};
const DeviceStatus &device_status();

enum class Path { CPU, GPU };

/// Host-pointer form: where the call runs. AUTO takes the GPU only when the routine has GPU
/// kernels and a device is usable; GPU never falls back.
inline Path resolve_host_form(Args &a, bool has_gpu_kernel) {
    const gpusvdBackend_t b = a.ok() ? a.handle()->backend : GPUSVD_BACKEND_CPU;
    if (b == GPUSVD_BACKEND_CPU) return Path::CPU;
    const bool dev = device_status().usable;
    if (b == GPUSVD_BACKEND_AUTO) return dev && has_gpu_kernel ? Path::GPU : Path::CPU;
    if (!dev)
        a.set(fail(a.handle(), GPUSVD_STATUS_NO_DEVICE, "%s: backend GPU requested but %s",
                   a.routine(), device_status().description));
    else if (!has_gpu_kernel)
        a.set(fail(a.handle(), GPUSVD_STATUS_NOT_SUPPORTED,
                   "%s: no GPU kernel for this routine in this version; use GPUSVD_BACKEND_CPU "
                   "or GPUSVD_BACKEND_AUTO (which runs it on the CPU)",
                   a.routine()));
    return Path::GPU;
}

/// `_gpu` form: needs a usable device and a GPU kernel.
inline void require_device_form(Args &a, bool has_gpu_kernel) {
    if (!a.ok()) return;
    if (!device_status().usable)
        a.set(fail(a.handle(), GPUSVD_STATUS_NO_DEVICE, "%s: device-memory form needs a GPU but %s",
                   a.routine(), device_status().description));
    else if (!has_gpu_kernel)
        a.set(fail(a.handle(), GPUSVD_STATUS_NOT_SUPPORTED,
                   "%s: no GPU kernel for this routine in this version; call the host-pointer "
                   "form instead",
                   a.routine()));
}

}  // namespace gpusvd
