// gpusvd-bench-devices: the batched host-pointer forms on one GPU and split over every GPU of
// the machine (gpusvdSetDevices), same data, same run: 500k x 30x30 eigenvalues (values only) and
// 100k x 32x32 SVDs with U and V, host to host (the call alone: the input it overwrites is
// restored outside the timed region). Medians of --reps runs after a warm-up; the results of the
// split are compared with one device's (they must be identical; where not, what differs). First
// the host side's ceilings: a host-form call moves each input byte from the caller's pageable
// memory into page-locked staging on the cores and from there to a device, so its speed-up over
// GPUs is bounded by these copies (and by the node's memory bandwidth they share). The last
// columns time one GPU and the split on the same arrays page-locked (cudaHostRegister), which
// the pipeline DMAs directly: the speed-up the GPUs give when the host copy is out of the way.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include <thread>

#include "gpusvd.h"

namespace {

std::vector<double> random_matrix(size_t count, uint64_t seed) {
    std::vector<double> v(count);
    for (double &x : v) {  // xorshift64*, uniform in [-1, 1)
        seed ^= seed >> 12, seed ^= seed << 25, seed ^= seed >> 27;
        x = double((seed * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-52 - 1.0;
    }
    return v;
}

// Median over reps of run() after a warm-up; prepare() (restoring the input a call overwrites)
// runs before each call, outside the timed region.
double median_ms(int reps, const std::function<void()> &prepare, const std::function<void()> &run) {
    prepare();
    run();  // warm-up: workspaces and page-locked buffers
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        prepare();
        const auto t0 = std::chrono::steady_clock::now();
        run();
        const auto dt = std::chrono::steady_clock::now() - t0;
        t.push_back(std::chrono::duration<double, std::milli>(dt).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

void ok(gpusvdHandle_t h, gpusvdStatus_t st) {
    if (st != GPUSVD_STATUS_SUCCESS) {
        std::fprintf(stderr, "%s\n", gpusvdGetErrorMessage(h));
        std::exit(1);
    }
}

// The host side's ceilings for a host-form call over `devices` GPUs: the copy of pageable
// memory into page-locked staging on all cores (what the pipeline's packing does), and the
// page-locked copies between the host and all devices at once: in, out, and both directions
// together (a call's inputs go in while earlier chunks' results come out). All in GB/s of data
// moved.
void ceilings(int devices) {
    const size_t bytes = size_t(1) << 30;
    std::vector<char> src(bytes, 1);
    void *pinned = nullptr;
    if (cudaHostAlloc(&pinned, 2 * bytes, cudaHostAllocDefault) != cudaSuccess) return;
    char *const in = static_cast<char *>(pinned), *const out = in + bytes;
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    auto pack = [&] {
        std::vector<std::thread> t;
        const size_t piece = bytes / threads;
        for (unsigned i = 0; i < threads; ++i)
            t.emplace_back([&, i] { std::memcpy(in + i * piece, src.data() + i * piece, piece); });
        for (auto &x : t) x.join();
    };
    const double pack_ms = median_ms(5, [] {}, pack);
    const size_t nd = size_t(devices), per = bytes / nd;
    std::vector<void *> dev_in(nd, nullptr), dev_out(nd, nullptr);
    std::vector<cudaStream_t> st_in(nd, nullptr), st_out(nd, nullptr);
    for (size_t d = 0; d < nd; ++d) {
        cudaSetDevice(int(d));
        cudaMalloc(&dev_in[d], per);
        cudaMalloc(&dev_out[d], per);
        cudaStreamCreate(&st_in[d]);
        cudaStreamCreate(&st_out[d]);
    }
    // Every device's share in (to_dev), out (from_dev) or both, each direction on its own stream.
    auto copies = [&](bool to_dev, bool from_dev) {
        for (size_t d = 0; d < nd; ++d) {
            cudaSetDevice(int(d));
            if (to_dev)
                cudaMemcpyAsync(dev_in[d], in + per * d, per, cudaMemcpyHostToDevice, st_in[d]);
            if (from_dev)
                cudaMemcpyAsync(out + per * d, dev_out[d], per, cudaMemcpyDeviceToHost, st_out[d]);
        }
        for (size_t d = 0; d < nd; ++d) {
            cudaStreamSynchronize(st_in[d]);
            cudaStreamSynchronize(st_out[d]);
        }
    };
    const double h2d_ms = median_ms(5, [] {}, [&] { copies(true, false); });
    const double d2h_ms = median_ms(5, [] {}, [&] { copies(false, true); });
    const double both_ms = median_ms(5, [] {}, [&] { copies(true, true); });
    for (size_t d = 0; d < nd; ++d) {
        cudaSetDevice(int(d));
        cudaFree(dev_in[d]);
        cudaFree(dev_out[d]);
        cudaStreamDestroy(st_in[d]);
        cudaStreamDestroy(st_out[d]);
    }
    cudaSetDevice(0);
    cudaFreeHost(pinned);
    std::printf("host ceilings: pageable -> page-locked copy on %u threads %.0f GB/s; page-locked "
                "-> %d device(s) at once %.0f GB/s, back %.0f GB/s, both ways %.0f GB/s\n",
                threads, bytes / pack_ms / 1e6, devices, bytes / h2d_ms / 1e6,
                bytes / d2h_ms / 1e6, 2 * bytes / both_ms / 1e6);
}

// Where the split's results differ from one device's: how many matrices, the first, the
// largest difference, and which device's part each lies in.
void differ(const char *what, int64_t per, int64_t batch, const std::vector<double> &a,
            const std::vector<double> &b, size_t devices) {
    int64_t count = 0, first = -1;
    double worst = 0;
    std::vector<int64_t> per_part(devices, 0);
    for (int64_t m = 0; m < batch; ++m) {
        bool d = false;
        for (int64_t i = 0; i < per; ++i) {
            const double x = a[size_t(m * per + i)], y = b[size_t(m * per + i)];
            if (x != y) d = true, worst = std::max(worst, std::fabs(x - y));
        }
        if (!d) continue;
        ++count;
        if (first < 0) first = m;
        for (size_t p = 0; p < devices; ++p)
            if (m >= batch * int64_t(p) / int64_t(devices) &&
                m < batch * int64_t(p + 1) / int64_t(devices))
                ++per_part[p];
    }
    std::printf("  %s: %lld of %lld matrices differ (first %lld), largest difference %.3g; per "
                "device part:",
                what, (long long)count, (long long)batch, (long long)first, worst);
    for (int64_t c : per_part) std::printf(" %lld", (long long)c);
    std::printf("\n");
}

}  // namespace

int main(int argc, char **argv) {
    int reps = 3;
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    gpusvdHandle_t one, all;
    gpusvdCreate(&one);
    gpusvdCreate(&all);
    if (gpusvdSetBackend(one, GPUSVD_BACKEND_GPU) != GPUSVD_STATUS_SUCCESS) {
        std::fprintf(stderr, "no usable GPU: %s\n", gpusvdGetErrorMessage(one));
        return 1;
    }
    gpusvdSetBackend(all, GPUSVD_BACKEND_GPU);
    std::vector<int> ids;
    for (int d = 0; d < 64; ++d) {
        ids.push_back(d);
        if (gpusvdSetDevices(all, int(ids.size()), ids.data()) != GPUSVD_STATUS_SUCCESS) {
            ids.pop_back();
            break;
        }
    }
    ok(all, gpusvdSetDevices(all, int(ids.size()), ids.data()));
    ceilings(1);
    if (ids.size() > 1) ceilings(int(ids.size()));
    std::printf("| case | 1 GPU ms | %zu GPUs ms | speed-up | same results | page-locked arrays: 1 "
                "GPU ms | %zu GPUs ms | speed-up |\n",
                ids.size(), ids.size());
    std::printf("|---|---:|---:|---:|---|---:|---:|---:|\n");
    // The same call with its arrays page-locked (cudaHostRegister) for its duration.
    auto locked = [&](std::initializer_list<std::vector<double> *> arrays,
                      const std::function<double()> &time) {
        for (std::vector<double> *a : arrays) cudaHostRegister(a->data(), a->size() * 8, 0);
        const double t = time();
        for (std::vector<double> *a : arrays) cudaHostUnregister(a->data());
        return t;
    };
    {
        const int64_t n = 30, batch = 500000;
        const std::vector<double> A = random_matrix(size_t(n * n * batch), 1);
        std::vector<double> W(A.size()), wr1(size_t(n * batch)), wi1(wr1.size()), wr(wr1.size()),
            wi(wr1.size());
        std::vector<int> info1(static_cast<size_t>(batch)), info(static_cast<size_t>(batch));
        auto restore = [&] { std::memcpy(W.data(), A.data(), A.size() * 8); };
        auto call = [&](gpusvdHandle_t h, double *r, double *i, int *inf) {
            ok(h, gpusvd_dgeev_batched(h, GPUSVD_JOB_NOVEC, n, W.data(), n, n * n, r, i, n, nullptr,
                                       1, 1, batch, inf));
        };
        const double t1 =
            median_ms(reps, restore, [&] { call(one, wr1.data(), wi1.data(), info1.data()); });
        const double tn =
            median_ms(reps, restore, [&] { call(all, wr.data(), wi.data(), info.data()); });
        const bool same = wr == wr1 && wi == wi1 && info == info1;
        double tl1 = 0;
        const double tl = locked({&W, &wr, &wi}, [&] {
            tl1 = median_ms(reps, restore, [&] { call(one, wr.data(), wi.data(), info.data()); });
            return median_ms(reps, restore, [&] { call(all, wr.data(), wi.data(), info.data()); });
        });
        std::printf("| dgeev_batched values, 500000 x 30x30 | %.1f | %.1f | %.2f | %s | %.1f | %.1f | "
                    "%.2f |\n",
                    t1, tn, t1 / tn, same ? "yes" : "NO", tl1, tl, tl1 / tl);
        if (!same) differ("dgeev_batched", n, batch, wr1, wr, ids.size());
    }
    {
        const int64_t n = 32, batch = 100000;
        const std::vector<double> A = random_matrix(size_t(n * n * batch), 2);
        std::vector<double> W(A.size()), S1(size_t(n * batch)), S(S1.size()), U1(A.size()),
            U(A.size()), V(A.size());
        std::vector<int> info1(static_cast<size_t>(batch)), info(static_cast<size_t>(batch));
        auto restore = [&] { std::memcpy(W.data(), A.data(), A.size() * 8); };
        auto call = [&](gpusvdHandle_t h, double *s, double *u, int *inf) {
            ok(h, gpusvd_dgesvj_batched(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, n, n, W.data(), n, n * n,
                                        s, n, u, n, n * n, V.data(), n, n * n, batch, inf));
        };
        const double t1 =
            median_ms(reps, restore, [&] { call(one, S1.data(), U1.data(), info1.data()); });
        const double tn =
            median_ms(reps, restore, [&] { call(all, S.data(), U.data(), info.data()); });
        const bool same = S == S1 && U == U1 && info == info1;
        double tl1 = 0;
        const double tl = locked({&W, &S, &U, &V}, [&] {
            tl1 = median_ms(reps, restore, [&] { call(one, S.data(), U.data(), info.data()); });
            return median_ms(reps, restore, [&] { call(all, S.data(), U.data(), info.data()); });
        });
        std::printf("| dgesvj_batched +U,V, 100000 x 32x32 | %.1f | %.1f | %.2f | %s | %.1f | %.1f | "
                    "%.2f |\n",
                    t1, tn, t1 / tn, same ? "yes" : "NO", tl1, tl, tl1 / tl);
        if (!same) {
            differ("dgesvj_batched S", n, batch, S1, S, ids.size());
            differ("dgesvj_batched U", n * n, batch, U1, U, ids.size());
            if (info != info1) std::printf("  info differs\n");
        }
    }
    gpusvdDestroy(one);
    gpusvdDestroy(all);
    return 0;
}
