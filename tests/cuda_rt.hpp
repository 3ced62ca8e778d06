// Minimal CUDA runtime access for the GPU tests, through dlopen: the tests do not link CUDA (the
// library links its runtime statically; pointers and streams of the process's primary context
// are valid in both). CudaRt::open(true) stands in host memory for device memory, for
// GPUSVD_TEST_GPU_AS_CPU (see test_common.hpp).
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <vector>

#include "gpusvd.h"
#include "test_common.hpp"

namespace gpusvd_test {

/// The few CUDA runtime entry points the tests need (0 = cudaSuccess).
struct CudaRt {
    static constexpr int kHostToDevice = 1, kDeviceToHost = 2;  // cudaMemcpyKind
    static constexpr unsigned kNonBlocking = 1;                 // cudaStreamNonBlocking
    void *lib = nullptr;
    bool emulated = false;  // host memory stands in for device memory
    int (*malloc_)(void **, size_t) = nullptr;
    int (*free_)(void *) = nullptr;
    int (*memset_)(void *, int, size_t) = nullptr;
    int (*memcpy_)(void *, const void *, size_t, int) = nullptr;
    int (*sync_)() = nullptr;
    int (*stream_create_)(void **, unsigned) = nullptr;  // cudaStreamCreateWithFlags
    int (*stream_destroy_)(void *) = nullptr;
    int (*stream_sync_)(void *) = nullptr;
    // Graph capture (not emulated: tests that capture need a real device).
    int (*begin_capture_)(void *, int) = nullptr;         // cudaStreamBeginCapture
    int (*end_capture_)(void *, void **) = nullptr;       // cudaStreamEndCapture
    int (*instantiate_)(void **, void *, unsigned long long) = nullptr;  // cudaGraphInstantiate
    int (*graph_launch_)(void *, void *) = nullptr;       // cudaGraphLaunch
    int (*exec_destroy_)(void *) = nullptr;               // cudaGraphExecDestroy
    int (*graph_destroy_)(void *) = nullptr;              // cudaGraphDestroy
    static constexpr int kCaptureGlobal = 0;              // cudaStreamCaptureModeGlobal
    // Devices (not emulated).
    int (*get_device_)(int *) = nullptr;                   // cudaGetDevice
    int (*set_device_)(int) = nullptr;                     // cudaSetDevice
    int (*device_count_)(int *) = nullptr;                 // cudaGetDeviceCount
    int (*device_attribute_)(int *, int, int) = nullptr;   // cudaDeviceGetAttribute
    static constexpr int kAttrPageableMemoryAccess = 88;   // cudaDevAttrPageableMemoryAccess
    // Page-locking of host memory (not emulated).
    int (*host_register_)(void *, size_t, unsigned) = nullptr;  // cudaHostRegister
    int (*host_unregister_)(void *) = nullptr;                  // cudaHostUnregister

    CudaRt() {
        for (const char *name :
             {"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"}) {
            lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
            if (lib) break;
        }
        if (!lib) return;
        load(malloc_, "cudaMalloc");
        load(free_, "cudaFree");
        load(memset_, "cudaMemset");
        load(memcpy_, "cudaMemcpy");
        load(sync_, "cudaDeviceSynchronize");
        load(stream_create_, "cudaStreamCreateWithFlags");
        load(stream_destroy_, "cudaStreamDestroy");
        load(stream_sync_, "cudaStreamSynchronize");
        load(begin_capture_, "cudaStreamBeginCapture");
        load(end_capture_, "cudaStreamEndCapture");
        load(instantiate_, "cudaGraphInstantiate");
        load(graph_launch_, "cudaGraphLaunch");
        load(exec_destroy_, "cudaGraphExecDestroy");
        load(graph_destroy_, "cudaGraphDestroy");
        load(get_device_, "cudaGetDevice");
        load(set_device_, "cudaSetDevice");
        load(device_count_, "cudaGetDeviceCount");
        load(device_attribute_, "cudaDeviceGetAttribute");
        load(host_register_, "cudaHostRegister");
        load(host_unregister_, "cudaHostUnregister");
    }
    ~CudaRt() {
        if (lib) dlclose(lib);
    }
    CudaRt(const CudaRt &) = delete;
    CudaRt &operator=(const CudaRt &) = delete;

    /// The CUDA runtime, or with `emulate` host memory behind the same interface (streams are
    /// NULL, copies are memcpy).
    static std::unique_ptr<CudaRt> open(bool emulate) {
        if (!emulate) return std::unique_ptr<CudaRt>(new CudaRt());
        std::unique_ptr<CudaRt> rt(new CudaRt(NoLoad{}));
        rt->emulated = true;
        rt->malloc_ = [](void **p, size_t b) { return (*p = std::malloc(b)) ? 0 : 2; };
        rt->free_ = [](void *p) { return std::free(p), 0; };
        rt->memset_ = [](void *p, int v, size_t b) { return std::memset(p, v, b), 0; };
        rt->memcpy_ = [](void *d, const void *s, size_t b, int) { return std::memcpy(d, s, b), 0; };
        rt->sync_ = []() { return 0; };
        rt->stream_create_ = [](void **s, unsigned) { return *s = nullptr, 0; };
        rt->stream_destroy_ = [](void *) { return 0; };
        rt->stream_sync_ = [](void *) { return 0; };
        return rt;
    }

    bool ok() const {
        return malloc_ && free_ && memset_ && memcpy_ && sync_ && stream_create_ &&
               stream_destroy_ && stream_sync_;
    }

private:
    struct NoLoad {};
    explicit CudaRt(NoLoad) {}
    template <typename F>
    void load(F &f, const char *sym) {
        f = reinterpret_cast<F>(dlsym(lib, sym));
    }
};

/// Device buffer of `bytes` bytes, zeroed or a copy of host memory. bytes == 0 (or a NULL host
/// source): no buffer, as<T>() is NULL (an argument the routine does not reference).
struct DevBuf {
    const CudaRt &rt;
    void *p = nullptr;
    size_t bytes = 0;
    bool failed = false;  // allocation or copy failed
    DevBuf(const CudaRt &r, size_t n) : rt(r), bytes(n) {
        if (allocate()) failed = rt.memset_(p, 0, bytes) != 0;
    }
    DevBuf(const CudaRt &r, const void *host, size_t n) : rt(r), bytes(host ? n : 0) {
        if (allocate()) failed = rt.memcpy_(p, host, bytes, CudaRt::kHostToDevice) != 0;
    }
    ~DevBuf() {
        if (p) rt.free_(p);
    }
    DevBuf(const DevBuf &) = delete;
    DevBuf &operator=(const DevBuf &) = delete;
    template <typename T>
    T *as() const {
        return static_cast<T *>(p);
    }
    /// Allocates `bytes` (none for 0); true when there is a buffer to fill.
    bool allocate() {
        if (!bytes) return false;
        if (rt.malloc_(&p, bytes) == 0) return true;
        p = nullptr;
        failed = true;
        return false;
    }
    /// Copies the buffer back to `host` (nothing for an empty buffer); true on success.
    bool to_host(void *host) const {
        return !bytes || rt.memcpy_(host, p, bytes, CudaRt::kDeviceToHost) == 0;
    }
};

/// A non-blocking stream made the handle's stream for the object's lifetime. Being non-blocking,
/// it is not ordered with the legacy default stream: work a `_gpu` form put there instead would
/// not be covered by sync(), and its results could be read unfinished.
struct UserStream {
    const CudaRt &rt;
    gpusvdHandle_t h;
    void *s = nullptr;
    bool failed = false;
    UserStream(const CudaRt &r, gpusvdHandle_t handle) : rt(r), h(handle) {
        failed = rt.stream_create_(&s, CudaRt::kNonBlocking) != 0 ||
                 gpusvdSetStream(h, s) != GPUSVD_STATUS_SUCCESS;
    }
    ~UserStream() {
        gpusvdSetStream(h, nullptr);
        if (s) rt.stream_destroy_(s);
    }
    UserStream(const UserStream &) = delete;
    UserStream &operator=(const UserStream &) = delete;
    int sync() const { return rt.stream_sync_(s); }
};

/// A host array for run_on_device: `bytes` bytes at `p` (NULL: an argument not referenced).
struct HostArray {
    void *p;
    size_t bytes;
};

/// Runs a `_gpu` call on device copies of host arrays: copies every array to the device, waits
/// for the copies, calls launch(d) with d[i] the device copy of arrays[i] (NULL for a NULL
/// array), synchronises the handle's user stream, and copies every array back over the host one.
/// Returns launch's status.
template <typename Launch>
gpusvdStatus_t run_on_device(const CudaRt &rt, const UserStream &stream,
                             std::initializer_list<HostArray> arrays, Launch launch) {
    std::vector<std::unique_ptr<DevBuf>> bufs;
    std::vector<void *> d;
    for (const HostArray &a : arrays) {
        bufs.emplace_back(new DevBuf(rt, a.p, a.bytes));
        EXPECT_FALSE(bufs.back()->failed) << "device allocation or copy of " << a.bytes << " bytes";
        d.push_back(bufs.back()->p);
    }
    EXPECT_EQ(rt.sync_(), 0);
    void *current = nullptr;
    EXPECT_EQ(gpusvdGetStream(stream.h, &current), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(current, stream.s) << "the handle's stream is the user stream";
    const gpusvdStatus_t st = launch(d.data());
    EXPECT_EQ(stream.sync(), 0) << "cudaStreamSynchronize after the _gpu call";
    size_t i = 0;
    for (const HostArray &a : arrays) EXPECT_TRUE(bufs[i++]->to_host(a.p)) << "copy back";
    return st;
}

/// DeviceTest with the CUDA runtime (emulated under GPUSVD_TEST_GPU_AS_CPU) and a UserStream
/// set on the handle, for the `_gpu` forms.
template <typename T>
class DeviceStreamTest : public DeviceTest<T> {
protected:
    void SetUp() override {
        DeviceTest<T>::SetUp();
        if (this->IsSkipped() || this->HasFatalFailure()) return;
        rt = CudaRt::open(gpu_as_cpu());
        ASSERT_TRUE(rt->ok()) << "a GPU is usable but libcudart could not be loaded (dlopen "
                                 "libcudart.so*): set LD_LIBRARY_PATH";
        stream.reset(new UserStream(*rt, this->h));
        ASSERT_FALSE(stream->failed) << "cudaStreamCreateWithFlags / gpusvdSetStream";
    }
    void TearDown() override { stream.reset(); }
    std::unique_ptr<CudaRt> rt;
    std::unique_ptr<UserStream> stream;
};

}  // namespace gpusvd_test
