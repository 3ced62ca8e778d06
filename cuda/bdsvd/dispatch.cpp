// bdsvd on the GPU (see src/kernels/bdsvd_tgk.hpp for the algorithm). Values only: screen, scale,
// bisection and store, all enqueued without waiting. With vectors the host plans in between: it
// reads the scaled entries back once (where B splits) and the values once (output order, groups
// of close values, zero values), O(n) bytes each, while the O(n^2) work stays on the device.
#include <algorithm>
#include <vector>

#include "bdsvd/bdsvd.hpp"
#include "common/graph.hpp"
#include "common/pipeline.hpp"
#include "common/runtime.hpp"
#include "gpu_dispatch.hpp"
#include "kernels/bdsvd_plan.hpp"
#include "workspace.hpp"

namespace gpusvd {
namespace gpu {
namespace {

namespace bd = kernels::bd;

/// Scratch slots of the group refinement: three 2n-vectors each; as many groups run at once
/// (one thread each), within 512 MiB.
template <class T>
int64_t group_slots(int64_t n) {
    const int64_t per = 6 * std::max<int64_t>(n, 1) * int64_t(sizeof(T));
    return std::max<int64_t>(32, std::min<int64_t>(4096, (int64_t(512) << 20) / per));
}

template <class T>
struct BdsvdLayout {
    T *t, *t2, *sig, *scratch;
    unsigned long long *amax;
    int *flag, *scale;
    int64_t *lo, *pos, *group_first, *zero_blocks, *cols;
    int64_t *zero_value, *null_u_first, *null_u_last, *null_v_first, *null_v_last;
    int32_t *block, *group_size, *group_lu;
    size_t bytes;
    BdsvdLayout(void *base, bool wantv, int64_t n) {
        Bump b(base);
        t = b.take<T>(2 * n);
        t2 = b.take<T>(2 * n);
        sig = b.take<T>(n);
        amax = b.take<unsigned long long>(1);
        flag = b.take<int>(1);
        scale = b.take<int>(1);
        const int64_t v = wantv ? n : 0;
        lo = b.take<int64_t>(v + 1);
        pos = b.take<int64_t>(v);
        group_first = b.take<int64_t>(v);
        zero_blocks = b.take<int64_t>(v);
        cols = b.take<int64_t>(v);
        zero_value = b.take<int64_t>(v);
        null_u_first = b.take<int64_t>(v);
        null_u_last = b.take<int64_t>(v);
        null_v_first = b.take<int64_t>(v);
        null_v_last = b.take<int64_t>(v);
        block = b.take<int32_t>(v);
        group_size = b.take<int32_t>(v);
        group_lu = b.take<int32_t>(v);
        scratch = b.take<T>(wantv ? group_slots<T>(n) * 6 * n : 0);
        bytes = b.bytes();
    }
};

template <class T>
cudaError_t upload(T *dst, const std::vector<T> &src, cudaStream_t s) {
    if (src.empty()) return cudaSuccess;
    return cudaMemcpyAsync(dst, src.data(), src.size() * sizeof(T), cudaMemcpyHostToDevice, s);
}

template <class T>
gpusvdStatus_t bdsvd_run(gpusvdHandle_t h, const char *routine, const BdsvdArgs<T> &a, void *ws,
                         cudaStream_t s) {
    const int64_t n = a.n;
    const BdsvdLayout<T> L(ws, a.wantv, n);
    bd::Problem<T> q{};
    q.n = n, q.upper = a.upper, q.d = a.d, q.e = a.e, q.scale_at = L.scale;
    q.t = L.t, q.t2 = L.t2, q.sig = L.sig, q.dout = a.d;
    cudaError_t e = bdsvd_screen<T>(n, a.d, a.e, L.amax, L.flag, L.scale, s);
    if (e == cudaSuccess) e = bdsvd_prepare<T>(q, L.flag, s);
    if (e != cudaSuccess) return cuda_fail(h, routine, "scaling B", e);
    if (!a.wantv) {
        e = bdsvd_values<T>(q, L.flag, s);
        if (e == cudaSuccess) e = bdsvd_store<T>(q, L.flag, a.info, s);
        return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS : cuda_fail(h, routine, "bisection", e);
    }
    q.U = a.U, q.ldu = a.ldu, q.VT = a.VT, q.ldvt = a.ldvt;
    // 1st wait: is B finite, and where does it split?
    int flag = 0;
    std::vector<T> t(static_cast<size_t>(2 * n - 1));
    e = cudaMemcpyAsync(&flag, L.flag, sizeof(int), cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(t.data(), L.t, t.size() * sizeof(T), cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) return cuda_fail(h, routine, "reading the scaled entries", e);
    if (flag) {
        e = bdsvd_store<T>(q, L.flag, a.info, s);
        return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS : cuda_fail(h, routine, "NaN outputs", e);
    }
    std::vector<int64_t> lo = bd::split_points(n, t.data());
    const std::vector<int32_t> block = bd::block_of_rows(n, lo);
    q.lo = L.lo, q.block = L.block;
    e = upload(L.lo, lo, s);
    if (e == cudaSuccess) e = upload(L.block, block, s);
    if (e == cudaSuccess) e = bdsvd_values<T>(q, L.flag, s);
    // 2nd wait: the values, to plan the vectors.
    std::vector<T> sig(static_cast<size_t>(n));
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(sig.data(), L.sig, sig.size() * sizeof(T), cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) return cuda_fail(h, routine, "bisection", e);
    const bd::Plan plan = bd::make_plan(n, t.data(), sig.data(), lo);
    q.pos = L.pos, q.group_first = L.group_first, q.group_size = L.group_size;
    q.group_lu = L.group_lu;
    q.zero_blocks = L.zero_blocks, q.scratch = L.scratch, q.slot_elems = 6 * plan.max_block;
    q.zero_value = L.zero_value, q.null_u_first = L.null_u_first, q.null_u_last = L.null_u_last;
    q.null_v_first = L.null_v_first, q.null_v_last = L.null_v_last;
    e = upload(L.pos, plan.pos, s);
    if (e == cudaSuccess) e = upload(L.group_first, plan.group_first, s);
    if (e == cudaSuccess) e = upload(L.group_size, plan.group_size, s);
    if (e == cudaSuccess) e = upload(L.group_lu, plan.group_lu, s);
    if (e == cudaSuccess) e = upload(L.zero_blocks, plan.zero_blocks, s);
    if (e == cudaSuccess) e = upload(L.zero_value, plan.zero_value, s);
    if (e == cudaSuccess) e = upload(L.null_u_first, plan.null_u_first, s);
    if (e == cudaSuccess) e = upload(L.null_u_last, plan.null_u_last, s);
    if (e == cudaSuccess) e = upload(L.null_v_first, plan.null_v_first, s);
    if (e == cudaSuccess) e = upload(L.null_v_last, plan.null_v_last, s);
    const int64_t ngroups = static_cast<int64_t>(plan.group_first.size());
    // Slots sized for the largest block: as many as fit the scratch sized for n.
    const int64_t slots = std::min<int64_t>(ngroups, group_slots<T>(n) * std::max<int64_t>(n, 1) /
                                                         std::max<int64_t>(plan.max_block, 1));
    if (e == cudaSuccess)
        e = bdsvd_vectors<T>(q, ngroups, std::max<int64_t>(slots, 1),
                             static_cast<int64_t>(plan.zero_value.size()),
                             static_cast<int64_t>(plan.zero_blocks.size()), L.cols, s);
    // No wait here: an upload from pageable memory returns once the data is staged, so the
    // plan's host vectors may go when this returns.
    if (e == cudaSuccess) e = bdsvd_store<T>(q, L.flag, a.info, s);
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS : cuda_fail(h, routine, "the vectors", e);
}

}  // namespace

template <class T>
size_t bdsvd_device_bytes(bool wantv, int64_t n) {
    return BdsvdLayout<T>(nullptr, wantv, n).bytes;
}

template <class T>
gpusvdStatus_t bdsvd(gpusvdHandle_t h, const char *routine, Form form, const BdsvdArgs<T> &a) {
    DeviceScope dev(h);
    const gpusvdStatus_t entered = dev.enter(
        routine, form == Form::Device,
        a.n == 0 ? std::initializer_list<PtrArg>{{"info", a.info}}
                 : std::initializer_list<PtrArg>{
                       {"d", a.d},
                       {"e", a.n > 1 ? a.e : nullptr},  // n = 1 has no e
                       {"U", a.wantv ? a.U : nullptr},
                       {"VT", a.wantv ? a.VT : nullptr},
                       {"info", a.info}});
    if (entered != GPUSVD_STATUS_SUCCESS) return entered;
    const size_t wsb = bdsvd_device_bytes<T>(a.wantv, a.n);
    if (form == Form::Device && a.wantv && a.n > 0) {
        // The vectors' plan (split points, clusters) is made on the host from the values.
        const gpusvdStatus_t st = refuse_capture(h, routine, user_stream(h),
                                                 "bdsvd with vectors (jobz = GPUSVD_JOB_VEC)");
        if (st != GPUSVD_STATUS_SUCCESS) return st;
    }
    if (form == Form::Device)
        return run_device_form(h, routine, a.n == 0, a.info, wsb, [&](void *ws, cudaStream_t s) {
            return bdsvd_run<T>(h, routine, a, ws, s);
        });
    const int64_t n = a.n, nv = a.wantv ? n : 0;
    const Operand ops[] = {
        {a.d, n, 1, n, 0, sizeof(T), true, true},
        {a.e, n - 1, 1, std::max<int64_t>(n - 1, 1), 0, sizeof(T), true, false},
        {a.U, nv, nv, a.wantv ? a.ldu : 1, 0, sizeof(T), false, a.wantv},
        {a.VT, nv, nv, a.wantv ? a.ldvt : 1, 0, sizeof(T), false, a.wantv},
    };
    return run_host_batched_status(
        h, routine, 1, ops, 4, a.info, [&](int64_t) { return wsb; },
        [&](const Chunk &c) {
            BdsvdArgs<T> d = a;
            d.d = static_cast<T *>(c.dev[0]);
            d.e = static_cast<T *>(c.dev[1]);
            d.U = a.wantv ? static_cast<T *>(c.dev[2]) : nullptr;
            d.ldu = std::max<int64_t>(n, 1);
            d.VT = a.wantv ? static_cast<T *>(c.dev[3]) : nullptr;
            d.ldvt = std::max<int64_t>(n, 1);
            d.info = c.info;
            return bdsvd_run<T>(h, routine, d, c.ws, c.stream);
        });
}

#define GPUSVD_INSTANTIATE(T)                             \
    template size_t bdsvd_device_bytes<T>(bool, int64_t); \
    template gpusvdStatus_t bdsvd<T>(gpusvdHandle_t, const char *, Form, const BdsvdArgs<T> &);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
