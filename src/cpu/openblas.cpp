#include "cpu/openblas.hpp"

#include <dlfcn.h>
#include <sys/mman.h>

#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace gpusvd::cpu {

namespace {

// BUFFER_SIZE (32 << 22) plus the page and alignment OpenBLAS adds around it.
constexpr size_t kBufferBytes = (size_t(128) << 20) + (size_t(64) << 10);

// Looked up at run time so the library also works with a BLAS that is not OpenBLAS.
using SetThreads = void (*)(int);
using GetThreads = int (*)(void);
GetThreads openblas_get_threads() {
    static GetThreads f =
        reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    return f;
}
SetThreads openblas_set_threads() {
    static SetThreads f =
        reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    return f;
}

std::mutex blas_mutex;
int blas_users = 0;
int blas_saved_threads = 0;

// A mapping as OpenBLAS makes it (private, anonymous, writable: charged like its buffer under
// strict overcommit too), never touched, so the probe costs no memory.
void *map_buffer() {
    void *p = mmap(nullptr, kBufferBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    return p == MAP_FAILED ? nullptr : p;
}

}  // namespace

int blas_buffers_available(int users) {
    if (!openblas_get_threads()) return users;
    // One mapping per buffer, as OpenBLAS maps them: a single mapping of the sum could be
    // refused by the kernel's overcommit heuristic where the separate ones are not.
    constexpr int kProbeMax = 256;  // beyond this many threads, the first 256 stand for all
    void *held[kProbeMax];
    int got = 0;
    while (got < users && got < kProbeMax && (held[got] = map_buffer())) ++got;
    for (int i = 0; i < got; ++i) munmap(held[i], kBufferBytes);
    return got == kProbeMax ? users : got;
}

bool blas_threads_startable() {
    // OpenBLAS's own flags: whether its thread server runs, and how many threads it starts.
    static const int *server_up = static_cast<const int *>(dlsym(RTLD_DEFAULT, "blas_server_avail"));
    static const int *threads = static_cast<const int *>(dlsym(RTLD_DEFAULT, "blas_num_threads"));
    if (!openblas_get_threads() || !server_up || !threads || *server_up || *threads <= 1)
        return true;
    bool ok = true;
    try {
        std::vector<std::thread> trial;
        trial.reserve(static_cast<size_t>(*threads - 1));
        try {
            for (int i = 1; i < *threads; ++i) trial.emplace_back([] {});
        } catch (...) {
            ok = false;
        }
        for (std::thread &t : trial) t.join();
    } catch (...) {
        ok = false;
    }
    return ok;
}

int blas_threads() {
    const GetThreads f = openblas_get_threads();
    const int t = f ? f() : 1;
    return t > 0 ? t : 1;
}

BlasSingleThreaded::BlasSingleThreaded(bool active)
    : active_(active && openblas_set_threads() && openblas_get_threads()) {
    if (!active_) return;
    std::lock_guard<std::mutex> lock(blas_mutex);
    if (blas_users++ == 0) {
        blas_saved_threads = openblas_get_threads()();
        openblas_set_threads()(1);
    }
}

BlasSingleThreaded::~BlasSingleThreaded() {
    if (!active_) return;
    std::lock_guard<std::mutex> lock(blas_mutex);
    if (--blas_users == 0) openblas_set_threads()(blas_saved_threads);
}

}  // namespace gpusvd::cpu
