// The handle (gpusvdContext) and the error/workspace machinery every routine shares.
#pragma once

#include <cstddef>
#include <cstdarg>
#include <string>
#include <vector>

#include "gpusvd.h"

struct gpusvdContext {
    gpusvdBackend_t backend = GPUSVD_BACKEND_AUTO;  // as requested by the user
    void *stream = nullptr;
    int device = -1;  // the CUDA device current when the handle was created; -1: none usable
    std::vector<int> devices;              // gpusvdSetDevices; empty: the handle's device alone
    std::vector<gpusvdContext *> peers;    // a context for each of `devices` but the handle's
    void *user_dev_ws = nullptr;
    size_t user_dev_bytes = 0;
    void *user_host_ws = nullptr;
    size_t user_host_bytes = 0;
    void *host_cache = nullptr;  // library-managed host workspace, grown on demand
    size_t host_cache_bytes = 0;
    double jacobi_tol = 0.0;  // 0: default sqrt(max(m,n)) * eps
    int jacobi_max_sweeps = 100;  // as cuSOLVER gesvdj
    gpusvdPcaMethod_t pca_method = GPUSVD_PCA_AUTO;
    gpusvdLayout_t layout = GPUSVD_LAYOUT_COL_MAJOR;  // gpusvdSetMatrixLayout
    double pca_total = __builtin_nan("");  // total variance of the last pca call
    // The last pca call ran on the GPU: the handle's device word holds its total variance.
    bool pca_total_on_gpu = false;
    int last_sweeps = 0;
    double last_off_norm = 0.0;
    bool stats_on_gpu = false;  // last_* not read back yet from the last `_gpu` gesvj call
    void *gpu = nullptr;        // gpu::Resources (cuda/common/runtime.hpp), created on first use
    std::string error;
};

namespace gpusvd {

/// Record a failure on h (or on the calling thread's slot when h is null) and return status.
gpusvdStatus_t fail(gpusvdHandle_t h, gpusvdStatus_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/// Clear h's error message at the start of a call.
void begin_call(gpusvdHandle_t h);

/// Host workspace of `bytes` from the user's buffer or the handle's cache. On failure returns
/// nullptr after recording INVALID_VALUE (user buffer too small) or ALLOC_FAILED in *status.
void *host_workspace(gpusvdHandle_t h, const char *routine, size_t bytes, gpusvdStatus_t *status);

}  // namespace gpusvd
