#include "common/collective.hpp"

#include <dlfcn.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "common/dlsym.hpp"
#include "common/runtime.hpp"
#include "dist_dispatch.hpp"

namespace gpusvd {
namespace gpu {
namespace {

// NCCL, found at first use: the copy the process already has (the caller made its communicator
// with it: a communicator is only valid with the library that made it), else libnccl.so.2.
struct Nccl {
    bool ok = false;
    char why[200] = "";
    decltype(&ncclAllReduce) allreduce = nullptr;
    decltype(&ncclCommCount) count = nullptr;
    decltype(&ncclCommUserRank) rank = nullptr;
    decltype(&ncclCommCuDevice) device = nullptr;
    decltype(&ncclGetErrorString) error_string = nullptr;
};

template <class F>
void bind(void *lib, const char *name, F &f, Nccl &n) {
    bind_symbol(lib, name, f, n, "NCCL");
}

const Nccl &nccl() {
    static Nccl n;
    static std::once_flag once;
    std::call_once(once, [] {
        void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        if (!lib) lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            std::snprintf(n.why, sizeof n.why, "cannot load libnccl.so.2 (%s)", dlerror());
            return;
        }
        n.ok = true;
        bind(lib, "ncclAllReduce", n.allreduce, n);
        bind(lib, "ncclCommCount", n.count, n);
        bind(lib, "ncclCommUserRank", n.rank, n);
        bind(lib, "ncclCommCuDevice", n.device, n);
        bind(lib, "ncclGetErrorString", n.error_string, n);
    });
    return n;
}

ncclDataType_t nccl_type(gpusvdDataType_t t) {
    switch (t) {
        case GPUSVD_DATA_INT32: return ncclInt32;
        case GPUSVD_DATA_INT64: return ncclInt64;
        case GPUSVD_DATA_FLOAT: return ncclFloat32;
        default: return ncclFloat64;
    }
}

gpusvdStatus_t nccl_fail(gpusvdHandle_t h, const char *routine, const char *what, ncclResult_t r) {
    return fail(h, GPUSVD_STATUS_EXECUTION_FAILED, "%s: NCCL's all-reduce of %s failed: %s",
                routine, what, nccl().error_string(r));
}

// The communicator's device current for a scope, the caller's restored after.
class CommDevice {
public:
    explicit CommDevice(int dev) {
        if (cudaGetDevice(&prev_) == cudaSuccess && prev_ != dev)
            switched_ = cudaSetDevice(dev) == cudaSuccess;
    }
    ~CommDevice() {
        if (switched_) cudaSetDevice(prev_);
    }

private:
    int prev_ = -1;
    bool switched_ = false;
};

}  // namespace

bool nccl_query(void *comm, int *size, int *rank, int *device, char *why, size_t why_size) {
    const Nccl &n = nccl();
    if (!n.ok) {
        std::snprintf(why, why_size, "%s", n.why);
        return false;
    }
    auto *c = static_cast<ncclComm_t>(comm);
    ncclResult_t r = n.count(c, size);
    if (r == ncclSuccess) r = n.rank(c, rank);
    if (r == ncclSuccess) r = n.device(c, device);
    if (r != ncclSuccess) {
        std::snprintf(why, why_size, "NCCL cannot describe the communicator: %s",
                      n.error_string(r));
        return false;
    }
    return true;
}

gpusvdStatus_t nccl_allreduce_host(gpusvdHandle_t h, const char *routine, const char *what,
                                   gpusvdComm_t c, void *buf, int64_t count, gpusvdDataType_t type,
                                   gpusvdReduceOp_t op) {
    const size_t bytes = static_cast<size_t>(count) * data_bytes(type);
    CommDevice scope(c->device);
    cudaError_t e = cudaSuccess;
    if (!c->stream) {
        cudaStream_t s = nullptr;
        e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        if (e == cudaSuccess) c->stream = s;
    }
    if (e == cudaSuccess && c->dev_stage_bytes < bytes) {
        if (c->dev_stage) cudaFree(c->dev_stage);
        c->dev_stage = nullptr, c->dev_stage_bytes = 0;
        e = cudaMalloc(&c->dev_stage, bytes);
        if (e == cudaSuccess) c->dev_stage_bytes = bytes;
    }
    if (e != cudaSuccess) return cuda_fail(h, routine, "staging an all-reduce", e);
    auto s = static_cast<cudaStream_t>(c->stream);
    e = cudaMemcpyAsync(c->dev_stage, buf, bytes, cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) return cuda_fail(h, routine, "staging an all-reduce", e);
    const ncclResult_t r =
        nccl().allreduce(c->dev_stage, c->dev_stage, static_cast<size_t>(count), nccl_type(type),
                         op == GPUSVD_REDUCE_MAX ? ncclMax : ncclSum,
                         static_cast<ncclComm_t>(c->nccl), s);
    if (r != ncclSuccess) return nccl_fail(h, routine, what, r);
    e = cudaMemcpyAsync(buf, c->dev_stage, bytes, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS : cuda_fail(h, routine, "an all-reduce", e);
}

void comm_release(gpusvdComm_t c) {
    if (c->kind == gpusvdComm_st::Kind::Nccl && (c->dev_stage || c->stream)) {
        CommDevice scope(c->device);
        if (c->stream) {
            cudaStreamSynchronize(static_cast<cudaStream_t>(c->stream));
            cudaStreamDestroy(static_cast<cudaStream_t>(c->stream));
        }
        if (c->dev_stage) cudaFree(c->dev_stage);
    }
    std::free(c->host_stage);
}

gpusvdStatus_t allreduce_device(gpusvdHandle_t h, const char *routine, const char *what,
                                gpusvdComm_t c, void *buf, int64_t count, gpusvdDataType_t type,
                                gpusvdReduceOp_t op, cudaStream_t stream) {
    if (count == 0 || c->size == 1) return GPUSVD_STATUS_SUCCESS;
    if (c->kind == gpusvdComm_st::Kind::Nccl) {
        const ncclResult_t r =
            nccl().allreduce(buf, buf, static_cast<size_t>(count), nccl_type(type),
                             op == GPUSVD_REDUCE_MAX ? ncclMax : ncclSum,
                             static_cast<ncclComm_t>(c->nccl), stream);
        return r == ncclSuccess ? GPUSVD_STATUS_SUCCESS : nccl_fail(h, routine, what, r);
    }
    const size_t bytes = static_cast<size_t>(count) * data_bytes(type);
    if (c->host_stage_bytes < bytes) {
        void *p = std::realloc(c->host_stage, bytes);
        if (!p)
            return fail(h, GPUSVD_STATUS_ALLOC_FAILED, "%s: no host memory to stage %s", routine,
                        what);
        c->host_stage = p, c->host_stage_bytes = bytes;
    }
    cudaError_t e = cudaMemcpyAsync(c->host_stage, buf, bytes, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return cuda_fail(h, routine, "staging an all-reduce", e);
    const gpusvdStatus_t st = allreduce_host(h, routine, what, c, c->host_stage, count, type, op);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    e = cudaMemcpyAsync(buf, c->host_stage, bytes, cudaMemcpyHostToDevice, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);  // the staging buffer is reused
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS : cuda_fail(h, routine, "an all-reduce", e);
}

}  // namespace gpu
}  // namespace gpusvd
