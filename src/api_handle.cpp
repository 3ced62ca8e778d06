// Handle, settings, errors, version and build information.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#include "backend.hpp"
#include "gpu_dispatch.hpp"

namespace gpusvd {
const char *null_handle_message();
}

using namespace gpusvd;

extern "C" {

GPUSVD_API gpusvdStatus_t gpusvdCreate(gpusvdHandle_t *handle) {
    if (!handle)
        return fail(nullptr, GPUSVD_STATUS_INVALID_VALUE,
                    "gpusvdCreate: argument handle = NULL is invalid: pass the address of a "
                    "gpusvdHandle_t");
    gpusvdContext *h = new (std::nothrow) gpusvdContext;
    *handle = h;
    if (!h)
        return fail(nullptr, GPUSVD_STATUS_ALLOC_FAILED,
                    "gpusvdCreate: could not allocate the handle");
    h->device = current_device();
    return GPUSVD_STATUS_SUCCESS;
}

GPUSVD_API gpusvdStatus_t gpusvdGetDevice(gpusvdHandle_t handle, int *device) {
    Args a(handle, "gpusvdGetDevice");
    a.ptr("device", device, true);
    if (a.ok() && handle->device < 0)
        a.set(fail(handle, GPUSVD_STATUS_NO_DEVICE, "gpusvdGetDevice: the handle has no device: %s",
                   device_status().description));
    if (a.ok()) *device = handle->device;
    return a.status();
}

namespace {

void drop_peers(gpusvdHandle_t h) {
    for (gpusvdContext *p : h->peers) {
        gpusvd::gpu::release(p);
        std::free(p->host_cache);
        delete p;
    }
    h->peers.clear();
}

}  // namespace

GPUSVD_API gpusvdStatus_t gpusvdSetDevices(gpusvdHandle_t handle, int count, const int *ids) {
    Args a(handle, "gpusvdSetDevices");
    a.range("count", count, 0, kMaxDevices, "must be in [0, 64]");
    a.ptr("ids", ids, count > 0);
    if (a.ok() && count > 0 && handle->device < 0)
        a.set(fail(handle, GPUSVD_STATUS_NO_DEVICE, "gpusvdSetDevices: %s",
                   device_status().description));
    for (int i = 0; a.ok() && i < count; ++i) {
        char why[200];
        if (!device_usable(ids[i], why, sizeof why))
            a.set(fail(handle, GPUSVD_STATUS_INVALID_VALUE,
                       "gpusvdSetDevices: argument ids[%d] = %d is invalid: %s", i, ids[i], why));
        for (int j = 0; a.ok() && j < i; ++j)
            if (ids[j] == ids[i])
                a.set(fail(handle, GPUSVD_STATUS_INVALID_VALUE,
                           "gpusvdSetDevices: argument ids[%d] = %d is invalid: it repeats "
                           "ids[%d]",
                           i, ids[i], j));
    }
    if (!a.ok()) return a.status();
    std::vector<int> devices;
    std::vector<gpusvdContext *> peers;
    try {
        devices.assign(ids, ids + count);
        for (int id : devices) {
            if (id == handle->device) continue;
            gpusvdContext *p = new gpusvdContext;
            p->device = id;
            p->backend = GPUSVD_BACKEND_GPU;
            peers.push_back(p);
        }
    } catch (const std::bad_alloc &) {
        for (gpusvdContext *p : peers) delete p;
        return fail(handle, GPUSVD_STATUS_ALLOC_FAILED,
                    "gpusvdSetDevices: could not allocate the devices' contexts");
    }
    drop_peers(handle);
    handle->devices.swap(devices);
    handle->peers.swap(peers);
    if (handle->devices.size() == 1 && handle->devices[0] == handle->device)
        handle->devices.clear();  // the handle's own device alone: nothing to split
    return GPUSVD_STATUS_SUCCESS;
}

GPUSVD_API gpusvdStatus_t gpusvdGetDevices(gpusvdHandle_t handle, int maxCount, int *ids,
                                           int *count) {
    Args a(handle, "gpusvdGetDevices");
    a.range("maxCount", maxCount, 0, INT32_MAX, "must be >= 0");
    a.ptr("ids", ids, maxCount > 0).ptr("count", count, true);
    if (a.ok() && handle->device < 0)
        a.set(fail(handle, GPUSVD_STATUS_NO_DEVICE, "gpusvdGetDevices: %s",
                   device_status().description));
    if (!a.ok()) return a.status();
    const std::vector<int> own{handle->device};
    const std::vector<int> &d = handle->devices.empty() ? own : handle->devices;
    for (int i = 0; i < maxCount && i < static_cast<int>(d.size()); ++i) ids[i] = d[size_t(i)];
    *count = static_cast<int>(d.size());
    return GPUSVD_STATUS_SUCCESS;
}

GPUSVD_API gpusvdStatus_t gpusvdDestroy(gpusvdHandle_t handle) {
    if (handle) {
        drop_peers(handle);
        gpusvd::gpu::release(handle);
        std::free(handle->host_cache);
        delete handle;
    }
    return GPUSVD_STATUS_SUCCESS;
}

GPUSVD_API gpusvdStatus_t gpusvdSetBackend(gpusvdHandle_t handle, gpusvdBackend_t backend) {
    Args a(handle, "gpusvdSetBackend");
    a.range("backend", backend, GPUSVD_BACKEND_AUTO, GPUSVD_BACKEND_GPU,
            "must be GPUSVD_BACKEND_AUTO, GPUSVD_BACKEND_CPU or GPUSVD_BACKEND_GPU");
    if (a.ok() && backend == GPUSVD_BACKEND_GPU && !device_status().usable)
        a.set(fail(handle, GPUSVD_STATUS_NO_DEVICE,
                   "gpusvdSetBackend: backend GPU requested but %s", device_status().description));
    if (a.ok()) handle->backend = backend;
    return a.status();
}

GPUSVD_API gpusvdStatus_t gpusvdGetBackend(gpusvdHandle_t handle, gpusvdBackend_t *resolved) {
    Args a(handle, "gpusvdGetBackend");
    a.ptr("resolved", resolved, true);
    if (!a.ok()) return a.status();
    if (handle->backend == GPUSVD_BACKEND_AUTO)
        *resolved = device_status().usable ? GPUSVD_BACKEND_GPU : GPUSVD_BACKEND_CPU;
    else
        *resolved = handle->backend;
    return GPUSVD_STATUS_SUCCESS;
}

GPUSVD_API gpusvdStatus_t gpusvdSetStream(gpusvdHandle_t handle, void *cudaStream) {
    Args a(handle, "gpusvdSetStream");
    if (a.ok()) handle->stream = cudaStream;
    return a.status();
}

GPUSVD_API gpusvdStatus_t gpusvdGetStream(gpusvdHandle_t handle, void **cudaStream) {
    Args a(handle, "gpusvdGetStream");
    a.ptr("cudaStream", cudaStream, true);
    if (a.ok()) *cudaStream = handle->stream;
    return a.status();
}

GPUSVD_API gpusvdStatus_t gpusvdSetWorkspace(gpusvdHandle_t handle, void *deviceBuffer,
                                             size_t deviceBytes, void *hostBuffer,
                                             size_t hostBytes) {
    Args a(handle, "gpusvdSetWorkspace");
    if (a.ok() && !deviceBuffer && deviceBytes)
        a.set(fail(handle, GPUSVD_STATUS_INVALID_VALUE,
                   "gpusvdSetWorkspace: argument deviceBuffer = NULL is invalid with "
                   "deviceBytes = %zu",
                   deviceBytes));
    if (a.ok() && !hostBuffer && hostBytes)
        a.set(fail(handle, GPUSVD_STATUS_INVALID_VALUE,
                   "gpusvdSetWorkspace: argument hostBuffer = NULL is invalid with hostBytes = %zu",
                   hostBytes));
    if (!a.ok()) return a.status();
    handle->user_dev_ws = deviceBuffer;
    handle->user_dev_bytes = deviceBuffer ? deviceBytes : 0;
    handle->user_host_ws = hostBuffer;
    handle->user_host_bytes = hostBuffer ? hostBytes : 0;
    if (hostBuffer) {  // the cache is no longer used
        std::free(handle->host_cache);
        handle->host_cache = nullptr;
        handle->host_cache_bytes = 0;
    }
    return GPUSVD_STATUS_SUCCESS;
}

GPUSVD_API gpusvdStatus_t gpusvdSetJacobiTolerance(gpusvdHandle_t handle, double tol) {
    Args a(handle, "gpusvdSetJacobiTolerance");
    if (a.ok() && !(tol == 0.0 || (tol > 0.0 && tol < 1.0)))
        a.set(fail(handle, GPUSVD_STATUS_INVALID_VALUE,
                   "gpusvdSetJacobiTolerance: argument tol = %g is invalid: must be 0 (default) "
                   "or in (0, 1)",
                   tol));
    if (a.ok()) handle->jacobi_tol = tol;
    return a.status();
}

GPUSVD_API gpusvdStatus_t gpusvdSetJacobiMaxSweeps(gpusvdHandle_t handle, int maxSweeps) {
    Args a(handle, "gpusvdSetJacobiMaxSweeps");
    a.range("maxSweeps", maxSweeps, 1, 1 << 20, "must be in [1, 1048576]");
    if (a.ok()) handle->jacobi_max_sweeps = maxSweeps;
    return a.status();
}

GPUSVD_API gpusvdStatus_t gpusvdSetMatrixLayout(gpusvdHandle_t handle, gpusvdLayout_t layout) {
    Args a(handle, "gpusvdSetMatrixLayout");
    a.range("layout", layout, GPUSVD_LAYOUT_COL_MAJOR, GPUSVD_LAYOUT_ROW_MAJOR,
            "must be GPUSVD_LAYOUT_COL_MAJOR or GPUSVD_LAYOUT_ROW_MAJOR");
    if (a.ok()) handle->layout = layout;
    return a.status();
}

GPUSVD_API gpusvdStatus_t gpusvdGetMatrixLayout(gpusvdHandle_t handle, gpusvdLayout_t *layout) {
    Args a(handle, "gpusvdGetMatrixLayout");
    a.ptr("layout", layout, true);
    if (a.ok()) *layout = handle->layout;
    return a.status();
}

GPUSVD_API gpusvdStatus_t gpusvdGetJacobiStats(gpusvdHandle_t handle, int *sweeps,
                                               double *offNorm) {
    Args a(handle, "gpusvdGetJacobiStats");
    if (!a.ok()) return a.status();
    gpusvd::gpu::fetch_jacobi_stats(handle);  // waits for a `_gpu` call still in flight
    if (sweeps) *sweeps = handle->last_sweeps;
    if (offNorm) *offNorm = handle->last_off_norm;
    return GPUSVD_STATUS_SUCCESS;
}

GPUSVD_API const char *gpusvdGetErrorMessage(gpusvdHandle_t handle) {
    return handle ? handle->error.c_str() : null_handle_message();
}

GPUSVD_API const char *gpusvdGetStatusName(gpusvdStatus_t status) {
    switch (status) {
        case GPUSVD_STATUS_SUCCESS:
            return "GPUSVD_STATUS_SUCCESS";
        case GPUSVD_STATUS_INVALID_VALUE:
            return "GPUSVD_STATUS_INVALID_VALUE";
        case GPUSVD_STATUS_ALLOC_FAILED:
            return "GPUSVD_STATUS_ALLOC_FAILED";
        case GPUSVD_STATUS_NO_DEVICE:
            return "GPUSVD_STATUS_NO_DEVICE";
        case GPUSVD_STATUS_NOT_SUPPORTED:
            return "GPUSVD_STATUS_NOT_SUPPORTED";
        case GPUSVD_STATUS_EXECUTION_FAILED:
            return "GPUSVD_STATUS_EXECUTION_FAILED";
        case GPUSVD_STATUS_INTERNAL_ERROR:
            return "GPUSVD_STATUS_INTERNAL_ERROR";
    }
    return "GPUSVD_STATUS_UNKNOWN";
}

GPUSVD_API int gpusvdGetVersion(void) {
    return GPUSVD_VERSION;
}

#define GPUSVD_STR2(x) #x
#define GPUSVD_STR(x) GPUSVD_STR2(x)

GPUSVD_API const char *gpusvdGetVersionString(void) {
    return GPUSVD_STR(GPUSVD_VERSION_MAJOR) "." GPUSVD_STR(GPUSVD_VERSION_MINOR) "." GPUSVD_STR(
        GPUSVD_VERSION_PATCH);
}

GPUSVD_API const char *gpusvdGetBuildInfo(void) {
    static char info[640];
    static std::once_flag once;
    std::call_once(once, [] {
#ifdef GPUSVD_HAVE_CUDA
        const char *cuda = "CUDA backend compiled in (sm " GPUSVD_CUDA_ARCHS ")";
#else
        const char *cuda = "no CUDA backend";
#endif
        std::snprintf(info, sizeof info, "gpusvd %s; %s; BLAS/LAPACK: %s; GPU: %s",
                      gpusvdGetVersionString(), cuda, GPUSVD_BLAS_VENDOR,
                      device_status().description);
    });
    return info;
}

}  // extern "C"
