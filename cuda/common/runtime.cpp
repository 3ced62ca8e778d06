#include "runtime.hpp"

#include <cstdint>
#include <new>

#include "common/cublas.hpp"
#include "common/graph.hpp"
#include "gpu_dispatch.hpp"

namespace gpusvd {
namespace gpu {

Resources *resources(gpusvdHandle_t h, cudaError_t *err) {
    *err = cudaSuccess;
    if (h->gpu) return static_cast<Resources *>(h->gpu);
    auto *r = new (std::nothrow) Resources;
    if (!r) {
        *err = cudaErrorMemoryAllocation;
        return nullptr;
    }
    for (cudaStream_t &s : r->slot)
        if (*err == cudaSuccess) *err = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (*err == cudaSuccess) *err = cudaEventCreateWithFlags(&r->last_use, cudaEventDisableTiming);
    if (*err != cudaSuccess) {
        h->gpu = r;
        release(h);
        return nullptr;
    }
    h->gpu = r;
    return r;
}

DeviceScope::~DeviceScope() {
    if (switched_ && cudaSetDevice(prev_) != cudaSuccess) (void)cudaGetLastError();
}

gpusvdStatus_t DeviceScope::enter(const char *routine, bool device_form,
                                  std::initializer_list<PtrArg> ptrs) {
    const int dev = h_->device;
    if (dev < 0)  // created before any device was usable: cannot happen once one is
        return fail(h_, GPUSVD_STATUS_NO_DEVICE, "%s: the handle has no device", routine);
    cudaError_t e = cudaGetDevice(&prev_);
    if (e == cudaSuccess && prev_ != dev) {
        e = cudaSetDevice(dev);
        switched_ = e == cudaSuccess;
    }
    if (e != cudaSuccess) return cuda_fail(h_, routine, "making the handle's device current", e);
    if (!device_form) return GPUSVD_STATUS_SUCCESS;
    // The stream the call will run on: 0, cudaStreamLegacy (1) and cudaStreamPerThread (2)
    // follow the current device; any other belongs to the device it was created on.
    // cudaStreamGetDevice is not permitted on a capturing stream (it would end the capture);
    // a stream of another device fails the first launch of the capture instead.
    int sdev = dev;
    bool capturing = false;
    stream_capturing(static_cast<cudaStream_t>(h_->stream), &capturing);
    if (!capturing && reinterpret_cast<uintptr_t>(h_->stream) > 2 &&
        cudaStreamGetDevice(static_cast<cudaStream_t>(h_->stream), &sdev) != cudaSuccess) {
        (void)cudaGetLastError();
        return fail(h_, GPUSVD_STATUS_INVALID_VALUE,
                    "%s: the handle's stream %p (gpusvdSetStream) is not a valid CUDA stream",
                    routine, h_->stream);
    }
    if (sdev != dev)
        return fail(h_, GPUSVD_STATUS_INVALID_VALUE,
                    "%s: the handle's stream %p (gpusvdSetStream) belongs to device %d, the handle "
                    "to device %d (create the handle while device %d is current)",
                    routine, h_->stream, sdev, dev, sdev);
    int pageable = 0;  // HMM / ATS: the device reaches ordinary host memory too
    if (cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev) != cudaSuccess)
        pageable = 0, (void)cudaGetLastError();
    for (const PtrArg &p : ptrs) {
        if (!p.ptr) continue;
        cudaPointerAttributes at{};
        if (cudaPointerGetAttributes(&at, p.ptr) != cudaSuccess) {
            (void)cudaGetLastError();
            at.type = cudaMemoryTypeUnregistered;
        }
        // devicePointer: where the current (the handle's) device reaches the memory; null when
        // it cannot (another device without peer access, unregistered host memory).
        if (at.type == cudaMemoryTypeManaged || at.devicePointer) continue;
        if (at.type == cudaMemoryTypeUnregistered) {
            if (pageable) continue;
            return fail(h_, GPUSVD_STATUS_INVALID_VALUE,
                        "%s: argument %s = %p is invalid: host memory that device %d cannot "
                        "reach (the _gpu forms take device pointers; the host form takes host "
                        "arrays)",
                        routine, p.name, p.ptr, dev);
        }
        return fail(h_, GPUSVD_STATUS_INVALID_VALUE,
                    "%s: argument %s = %p is invalid: it is memory of device %d, the handle "
                    "belongs to device %d (create a handle while device %d is current, or enable "
                    "peer access)",
                    routine, p.name, p.ptr, at.device, dev, at.device);
    }
    return GPUSVD_STATUS_SUCCESS;
}

gpusvdStatus_t cuda_fail(gpusvdHandle_t h, const char *routine, const char *step, cudaError_t err) {
    cudaGetLastError();  // a non-sticky error must not leak into the next call
    const gpusvdStatus_t st = err == cudaErrorMemoryAllocation ? GPUSVD_STATUS_ALLOC_FAILED
                                                               : GPUSVD_STATUS_EXECUTION_FAILED;
    return fail(h, st, "%s: %s failed: %s (%s)", routine, step, cudaGetErrorName(err),
                cudaGetErrorString(err));
}

void wait_last_use(Resources &r) {
    // An event last recorded inside a stream capture cannot be waited on: the wait answers
    // cudaErrorInvalidValue, which must not stay behind as the thread's last error for the next
    // launch check (of any handle) to report as its own failure.
    if (r.last_use && cudaEventSynchronize(r.last_use) != cudaSuccess) (void)cudaGetLastError();
}

cudaError_t grow_device(Resources &r, size_t bytes) {
    if (r.dev_bytes >= bytes) return cudaSuccess;
    for (cudaStream_t s : r.slot) cudaStreamSynchronize(s);
    wait_last_use(r);  // cudaFree below waits for the device anyway
    if (r.dev) cudaFree(r.dev);
    r.dev = nullptr;
    r.dev_bytes = 0;
    const cudaError_t e = cudaMalloc(&r.dev, bytes);
    if (e != cudaSuccess) {
        r.dev = nullptr;
        return e;
    }
    r.dev_bytes = bytes;
    return cudaSuccess;
}

cudaError_t grow_pinned(Resources &r, size_t bytes) {
    if (r.pinned_bytes >= bytes) return cudaSuccess;
    for (cudaStream_t s : r.slot) cudaStreamSynchronize(s);
    if (r.pinned) cudaFreeHost(r.pinned);
    r.pinned = nullptr;
    r.pinned_bytes = 0;
    const cudaError_t e = cudaHostAlloc(&r.pinned, bytes, cudaHostAllocDefault);
    if (e != cudaSuccess) {
        r.pinned = nullptr;
        return e;
    }
    r.pinned_bytes = bytes;
    return cudaSuccess;
}

void *device_workspace(gpusvdHandle_t h, const char *routine, size_t bytes, gpusvdStatus_t *st) {
    *st = GPUSVD_STATUS_SUCCESS;
    if (h->user_dev_ws) {
        if (h->user_dev_bytes < bytes) {
            *st = fail(h, GPUSVD_STATUS_INVALID_VALUE,
                       "%s: device workspace of %zu bytes set with gpusvdSetWorkspace is too "
                       "small; this call needs %zu bytes (see its _bufferSize)",
                       routine, h->user_dev_bytes, bytes);
            return nullptr;
        }
        return h->user_dev_ws;
    }
    cudaError_t e;
    Resources *r = resources(h, &e);
    if (r && r->dev_bytes < (bytes ? bytes : 1)) {
        // Growing waits for earlier work and calls cudaMalloc: both would break a capture.
        bool cap = false;
        stream_capturing(user_stream(h), &cap);
        if (cap) {
            *st = fail(h, GPUSVD_STATUS_NOT_SUPPORTED,
                       "%s: needs %zu bytes of device workspace, more than the handle holds, "
                       "inside a CUDA graph capture: make the same call once before capturing, "
                       "or set a workspace with gpusvdSetWorkspace",
                       routine, bytes);
            return nullptr;
        }
    }
    if (r) e = grow_device(*r, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        *st = cuda_fail(h, routine, "allocating the device workspace", e);
        return nullptr;
    }
    return r->dev;
}

cudaError_t record_use(gpusvdHandle_t h) {
    cudaError_t e;
    Resources *r = resources(h, &e);
    if (!r) return e;
    // Not inside a capture: the graph's replays are the caller's to order (gpusvd.h), and an
    // event recorded in a capture cannot be waited on.
    bool cap = false;
    stream_capturing(user_stream(h), &cap);
    return cap ? cudaSuccess : cudaEventRecord(r->last_use, user_stream(h));
}

gpusvdStatus_t run_device_form(gpusvdHandle_t h, const char *routine, bool empty, int *info,
                               size_t bytes,
                               const std::function<gpusvdStatus_t(void *, cudaStream_t)> &run) {
    if (empty) {  // nothing to compute; info still says "success"
        const cudaError_t e = cudaMemsetAsync(info, 0, sizeof(int), user_stream(h));
        return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS : cuda_fail(h, routine, "clearing info", e);
    }
    gpusvdStatus_t st;
    void *ws = device_workspace(h, routine, bytes, &st);
    if (!ws) return st;
    st = run(ws, user_stream(h));
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    const cudaError_t e = record_use(h);
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                            : cuda_fail(h, routine, "recording the workspace's use", e);
}

void release(gpusvdHandle_t h) {
    auto *r = static_cast<Resources *>(h->gpu);
    if (!r) return;
    DeviceScope dev(h);  // cuBLAS's handle and the streams belong to the handle's device
    (void)dev.enter("gpusvdDestroy", false);
    // The teardown's errors are expected and cleared at the end: waiting on last_use answers
    // cudaErrorInvalidValue when it was last recorded inside a stream capture, and the runtime's
    // last error, per thread, would otherwise be reported by the next launch check of any
    // handle as that call's failure.
    wait_last_use(*r);
    if (r->last_use) cudaEventDestroy(r->last_use);
    for (cudaStream_t s : r->slot)
        if (s) {
            cudaStreamSynchronize(s);
            cudaStreamDestroy(s);
        }
    if (r->flags_ready) cudaEventDestroy(r->flags_ready);
    if (r->own_done) cudaEventSynchronize(r->own_done), cudaEventDestroy(r->own_done);
    if (r->own_exec) cudaGraphExecDestroy(r->own_exec);
    if (r->own_graph) cudaGraphDestroy(r->own_graph);
    if (r->body) cudaStreamDestroy(r->body);
    if (r->capture) cudaStreamDestroy(r->capture);
    blas_release(r->blas);
    if (r->dev) cudaFree(r->dev);
    if (r->stats) cudaFree(r->stats);
    if (r->pca_total) cudaFree(r->pca_total);
    if (r->flags_host) cudaFreeHost(r->flags_host);
    if (r->pinned) cudaFreeHost(r->pinned);
    delete r;
    h->gpu = nullptr;
    (void)cudaGetLastError();
}

}  // namespace gpu
}  // namespace gpusvd
