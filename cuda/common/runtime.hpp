// Per-handle GPU resources (device buffer, pinned staging, streams) and CUDA error reporting,
// shared by every routine's dispatch (cuda/*/dispatch.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <vector>

#include "context.hpp"

namespace gpusvd {
namespace gpu {

constexpr int kSlots = 3;  // chunks in flight in a host-form call: pack, transfer+compute, unpack

struct Resources {
    void *dev = nullptr;  // handle-owned device buffer (host-form staging and _gpu workspace)
    size_t dev_bytes = 0;
    void *pinned = nullptr;  // page-locked staging for host-form transfers
    size_t pinned_bytes = 0;
    cudaStream_t slot[kSlots] = {};
    cudaEvent_t last_use = nullptr;  // recorded after work that reads `dev` on the user's stream
    void *stats = nullptr;           // JacobiStatsDev of the last gesvj call
    void *pca_total = nullptr;       // double: total variance of the last pca call
    void *blas = nullptr;            // cublasHandle_t (cuda/common/cublas.hpp), on first use
    void *flags_host = nullptr;      // small page-locked buffer: step results the host reads
    cudaEvent_t flags_ready = nullptr;
    cudaStream_t body = nullptr;     // captures the bodies of device-decided loops (graph.*)
    cudaStream_t capture = nullptr;  // captures a whole call run as a graph (run_as_graph)
    // run_as_graph's last graph, relaunched by a call with the same key; kept until it is done
    // (a graph's conditional handles live with it).
    std::vector<uint64_t> own_key;
    cudaGraph_t own_graph = nullptr;
    cudaGraphExec_t own_exec = nullptr;
    cudaEvent_t own_done = nullptr;
};

/// A named pointer argument of a `_gpu` call, for check_reachable.
struct PtrArg {
    const char *name;
    const void *ptr;
};

/// The handle's device made current for one call, the caller's restored at the end (a handle
/// belongs to the device current at its creation; see gpusvdCreate). enter() also checks, for a
/// `_gpu` form, that every non-null pointer is reachable from that device.
class DeviceScope {
public:
    explicit DeviceScope(gpusvdHandle_t h) : h_(h) {}
    ~DeviceScope();
    DeviceScope(const DeviceScope &) = delete;
    DeviceScope &operator=(const DeviceScope &) = delete;
    gpusvdStatus_t enter(const char *routine, bool device_form,
                         std::initializer_list<PtrArg> ptrs = {});

private:
    gpusvdHandle_t h_;
    int prev_ = -1;
    bool switched_ = false;
};

/// The handle's resources, created on first use; nullptr (and *err set) if that fails.
Resources *resources(gpusvdHandle_t h, cudaError_t *err);

/// The stream the `_gpu` forms use.
inline cudaStream_t user_stream(gpusvdHandle_t h) { return static_cast<cudaStream_t>(h->stream); }

/// Maps a CUDA error to a status (ALLOC_FAILED for out-of-memory, else EXECUTION_FAILED) with a
/// message naming the routine and the step; clears the runtime's last non-sticky error.
gpusvdStatus_t cuda_fail(gpusvdHandle_t h, const char *routine, const char *step, cudaError_t err);

/// Waits for the last `_gpu` work that used the handle's device buffer (record_use), where that
/// was not recorded inside a graph capture; leaves no error behind.
void wait_last_use(Resources &r);

/// The handle's device buffer grown to `bytes` (waiting for work that still uses the old one).
cudaError_t grow_device(Resources &r, size_t bytes);
/// The handle's pinned buffer grown to `bytes`.
cudaError_t grow_pinned(Resources &r, size_t bytes);

/// Device workspace of a `_gpu` call: the user's buffer (INVALID_VALUE if too small) or the
/// handle's own. Returns nullptr with *st set on failure; bytes == 0 gives a valid non-null
/// pointer only if one exists (callers must not dereference it).
void *device_workspace(gpusvdHandle_t h, const char *routine, size_t bytes, gpusvdStatus_t *st);

/// Marks the end of work on the user's stream that reads the handle's device buffer.
cudaError_t record_use(gpusvdHandle_t h);

/// The `_gpu` form of a single-problem routine: info = 0 on the device when there is nothing to
/// compute, else run(workspace of `bytes`, user stream) followed by record_use.
gpusvdStatus_t run_device_form(gpusvdHandle_t h, const char *routine, bool empty, int *info,
                               size_t bytes,
                               const std::function<gpusvdStatus_t(void *, cudaStream_t)> &run);

}  // namespace gpu
}  // namespace gpusvd
