#include "context.hpp"

#include <cstdio>
#include <cstdlib>

namespace gpusvd {

namespace {
thread_local std::string null_handle_error;
}

gpusvdStatus_t fail(gpusvdHandle_t h, gpusvdStatus_t status, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    try {  // no exception may cross the C ABI; a message lost to bad_alloc is the lesser evil
        (h ? h->error : null_handle_error).assign(buf);
    } catch (...) {
    }
    return status;
}

void begin_call(gpusvdHandle_t h) { h->error.clear(); }

void *host_workspace(gpusvdHandle_t h, const char *routine, size_t bytes, gpusvdStatus_t *status) {
    *status = GPUSVD_STATUS_SUCCESS;
    if (h->user_host_ws) {
        if (h->user_host_bytes < bytes) {
            *status = fail(h, GPUSVD_STATUS_INVALID_VALUE,
                           "%s: host workspace of %zu bytes set with gpusvdSetWorkspace is too "
                           "small; this call needs %zu bytes (see its _bufferSize)",
                           routine, h->user_host_bytes, bytes);
            return nullptr;
        }
        return h->user_host_ws;
    }
    if (h->host_cache_bytes < bytes) {
        std::free(h->host_cache);
        h->host_cache = std::malloc(bytes ? bytes : 1);
        h->host_cache_bytes = h->host_cache ? bytes : 0;
        if (!h->host_cache) {
            *status = fail(h, GPUSVD_STATUS_ALLOC_FAILED,
                           "%s: could not allocate %zu bytes of host workspace", routine, bytes);
            return nullptr;
        }
    }
    return h->host_cache;
}

const char *null_handle_message() { return null_handle_error.c_str(); }

}  // namespace gpusvd
