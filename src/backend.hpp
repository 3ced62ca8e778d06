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

/// A GPU path needs a usable device and a GPU kernel for the routine; `why` and `instead` finish
/// the two messages.
inline void require_gpu(Args &a, bool has_gpu_kernel, const char *why, const char *instead) {
    if (!a.ok()) return;
    if (!device_status().usable)
        a.set(fail(a.handle(), GPUSVD_STATUS_NO_DEVICE, "%s: %s but %s", a.routine(), why,
                   device_status().description));
    else if (!has_gpu_kernel)
        a.set(fail(a.handle(), GPUSVD_STATUS_NOT_SUPPORTED,
                   "%s: no GPU kernel for this routine in this version; %s", a.routine(), instead));
}

/// Host-pointer form. Backend GPU fails without a usable device or without a GPU kernel for the
/// routine (never a silent fallback); CPU and AUTO run it. No routine has GPU kernels yet, so
/// every accepted host call runs on the CPU; the GPU issues turn this into the dispatch choice
/// (AUTO: GPU when has_gpu_kernel and a device is usable).
inline void check_host_backend(Args &a, bool has_gpu_kernel) {
    if (a.ok() && a.handle()->backend == GPUSVD_BACKEND_GPU)
        require_gpu(a, has_gpu_kernel, "backend GPU requested",
                    "use GPUSVD_BACKEND_CPU or GPUSVD_BACKEND_AUTO (which runs it on the CPU)");
}

/// `_gpu` form: needs a usable device and a GPU kernel.
inline void require_device_form(Args &a, bool has_gpu_kernel) {
    require_gpu(a, has_gpu_kernel, "device-memory form needs a GPU",
                "call the host-pointer form instead");
}

}  // namespace gpusvd
