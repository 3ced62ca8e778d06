#include "cpu/batch.hpp"

#include <dlfcn.h>
#include <omp.h>

#include <mutex>

namespace gpusvd::cpu {

int batch_threads(int64_t batch) {
    const int64_t t = omp_get_max_threads();
    return static_cast<int>(batch < t ? (batch > 0 ? batch : 1) : t);
}

int omp_thread_index() {
    return omp_get_thread_num();
}

namespace {
// Looked up at run time so the library also works with a BLAS that is not OpenBLAS.
using SetThreads = void (*)(int);
using GetThreads = int (*)(void);
std::mutex blas_mutex;
int blas_users = 0;
int blas_saved_threads = 0;

SetThreads set_threads() {
    static SetThreads f =
        reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    return f;
}
GetThreads get_threads() {
    static GetThreads f =
        reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    return f;
}
}  // namespace

BlasSingleThreaded::BlasSingleThreaded(bool active)
    : active_(active && set_threads() && get_threads()) {
    if (!active_) return;
    std::lock_guard<std::mutex> lock(blas_mutex);
    if (blas_users++ == 0) {
        blas_saved_threads = get_threads()();
        set_threads()(1);
    }
}

BlasSingleThreaded::~BlasSingleThreaded() {
    if (!active_) return;
    std::lock_guard<std::mutex> lock(blas_mutex);
    if (--blas_users == 0) set_threads()(blas_saved_threads);
}

}  // namespace gpusvd::cpu
