#include "common/multi.hpp"

#include <algorithm>
#include <thread>
#include <vector>

namespace gpusvd {
namespace gpu {

namespace {
thread_local bool tl_in_part = false;  // this thread runs one device's part of a split call

/// Marks the calling thread as running a part for the scope.
struct PartScope {
    bool saved = tl_in_part;
    PartScope() { tl_in_part = true; }
    ~PartScope() { tl_in_part = saved; }
};
}  // namespace

bool split_over_devices(gpusvdHandle_t h, int64_t batch) {
    return !tl_in_part && h->devices.size() > 1 && batch > 1;
}

gpusvdStatus_t over_devices(gpusvdHandle_t h, int64_t batch, bool jacobi_stats,
                            const DevicePart &part) {
    const int nd = static_cast<int>(std::min<int64_t>(int64_t(h->devices.size()), batch));
    std::vector<gpusvdHandle_t> ctx(size_t(nd), nullptr);
    for (int i = 0; i < nd; ++i) {
        const int id = h->devices[size_t(i)];
        if (id == h->device) {
            ctx[size_t(i)] = h;
            continue;
        }
        for (gpusvdContext *p : h->peers)
            if (p->device == id) ctx[size_t(i)] = p;
        gpusvdContext *p = ctx[size_t(i)];
        p->jacobi_tol = h->jacobi_tol;  // the call's settings are the handle's
        p->jacobi_max_sweeps = h->jacobi_max_sweeps;
    }
    std::vector<gpusvdStatus_t> st(size_t(nd), GPUSVD_STATUS_SUCCESS);
    const auto run = [&](int i) {
        const PartScope in_part;
        const int64_t b0 = batch * i / nd, b1 = batch * (i + 1) / nd;
        st[size_t(i)] = part(ctx[size_t(i)], b0, b1 - b0);
    };
    // A thread the system refuses is not needed: its part then runs on the calling thread.
    std::vector<std::thread> threads;
    std::vector<int> later;
    for (int i = 1; i < nd; ++i) {
        try {
            threads.emplace_back(run, i);
        } catch (...) {
            later.push_back(i);
        }
    }
    run(0);
    for (std::thread &t : threads) t.join();
    for (int i : later) run(i);
    if (jacobi_stats) {
        int sweeps = 0;
        double off = 0;
        for (gpusvdHandle_t c : ctx) {
            sweeps = std::max(sweeps, c->last_sweeps);
            off = std::max(off, c->last_off_norm);
        }
        h->last_sweeps = sweeps;
        h->last_off_norm = off;
    }
    for (int i = 0; i < nd; ++i) {
        if (st[size_t(i)] == GPUSVD_STATUS_SUCCESS) continue;
        if (ctx[size_t(i)] == h) return st[size_t(i)];
        return fail(h, st[size_t(i)], "%s (on device %d)", ctx[size_t(i)]->error.c_str(),
                    ctx[size_t(i)]->device);
    }
    return GPUSVD_STATUS_SUCCESS;
}

}  // namespace gpu
}  // namespace gpusvd
