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

/// The CUDA device current in the calling thread, or -1 when no device is usable: the device a
/// new handle belongs to (the cuBLAS convention).
int current_device();

/// Most devices one handle spreads its batched host forms over (gpusvdSetDevices).
constexpr int kMaxDevices = 64;

/// Whether device `id` can run this build's kernels; false with a reason in `why` otherwise.
bool device_usable(int id, char *why, size_t why_size);


/// A GPU path needs a usable device and a GPU kernel for the call; `why` and `instead` finish the
/// two messages, `kernel_for` says what has no kernel.
inline void require_gpu(Args &a, bool has_gpu_kernel, const char *why, const char *instead,
                        const char *kernel_for) {
    if (!a.ok()) return;
    if (!device_status().usable)
        a.set(fail(a.handle(), GPUSVD_STATUS_NO_DEVICE, "%s: %s but %s", a.routine(), why,
                   device_status().description));
    else if (!has_gpu_kernel)
        a.set(fail(a.handle(), GPUSVD_STATUS_NOT_SUPPORTED,
                   "%s: no GPU kernel for %s in this version; %s", a.routine(), kernel_for,
                   instead));
}

/// AUTO keeps problems whose input is smaller than this on the CPU: below it, launch and PCIe
/// latency (tens of microseconds) exceed what LAPACK needs for the whole call.
constexpr size_t kAutoGpuMinBytes = size_t(64) << 10;

/// Host-pointer form: whether the call runs on the GPU. Backend GPU fails without a usable
/// device or a GPU kernel for the routine (never a silent fallback); CPU runs on the CPU; AUTO
/// takes the GPU when the routine has kernels, a device is usable and the input (bytes of the
/// matrices read) reaches kAutoGpuMinBytes.
inline bool host_runs_on_gpu(Args &a, bool has_gpu_kernel, size_t input_bytes,
                             const char *kernel_for = "this routine") {
    if (!a.ok()) return false;
    switch (a.handle()->backend) {
        case GPUSVD_BACKEND_GPU:
            require_gpu(a, has_gpu_kernel, "backend GPU requested",
                        "use GPUSVD_BACKEND_CPU or GPUSVD_BACKEND_AUTO (which runs it on the CPU)",
                        kernel_for);
            return a.ok();
        case GPUSVD_BACKEND_AUTO:
            return has_gpu_kernel && device_status().usable && input_bytes >= kAutoGpuMinBytes;
        default:
            return false;
    }
}

/// Whether a call on h may run on the GPU (sizes the GPU workspace in _bufferSize).
inline bool gpu_reachable(gpusvdHandle_t h) {
    return h->backend != GPUSVD_BACKEND_CPU && device_status().usable;
}

/// Bytes of `batch` m x n matrices of T, saturated (AUTO's size rule).
template <class T>
size_t input_bytes(int64_t m, int64_t n, int64_t batch) {
    int64_t e = m, b;
    if (__builtin_mul_overflow(e, n, &e) || __builtin_mul_overflow(e, batch, &e) ||
        __builtin_mul_overflow(e, static_cast<int64_t>(sizeof(T)), &b))
        return ~size_t(0);
    return static_cast<size_t>(b);
}

/// `_gpu` form: needs a usable device and a GPU kernel.
inline void require_device_form(Args &a, bool has_gpu_kernel,
                                const char *kernel_for = "this routine") {
    require_gpu(a, has_gpu_kernel, "device-memory form needs a GPU",
                "call the host-pointer form instead", kernel_for);
}

}  // namespace gpusvd
