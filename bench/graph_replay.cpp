// gpusvd-bench-graphs: the `_gpu` forms whose loops have a device-decided form, timed as a direct
// call (the host reads each step's or sweep's flags) and as a CUDA graph replay (the loops are
// conditional nodes, nothing read back), on the same data, in one run. Medians of --reps runs
// after a warm-up, each bracketed by stream synchronisation; the input is restored outside the
// timed region. Prints one table row per case; a failed call fails the program.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "gpusvd.h"

namespace {

#define CK(x)                                                                          \
    do {                                                                               \
        const cudaError_t e_ = (x);                                                    \
        if (e_ != cudaSuccess) {                                                       \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));              \
            std::exit(1);                                                              \
        }                                                                              \
    } while (0)

using Call = std::function<gpusvdStatus_t()>;

std::vector<double> random_matrix(size_t count, uint64_t seed) {
    std::vector<double> v(count);
    for (double &x : v) {  // xorshift64*, uniform in [-1, 1)
        seed ^= seed >> 12, seed ^= seed << 25, seed ^= seed >> 27;
        x = double((seed * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-52 - 1.0;
    }
    return v;
}

std::string dims(int64_t m, int64_t n) {
    return std::to_string(m) + " x " + std::to_string(n);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t k = v.size() / 2;
    return v.size() % 2 ? v[k] : 0.5 * (v[k - 1] + v[k]);
}

double time_ms(cudaStream_t s, const std::function<void()> &restore,
               const std::function<void()> &run, int reps) {
    std::vector<double> t;
    for (int r = 0; r <= reps; ++r) {
        restore();
        CK(cudaStreamSynchronize(s));
        const auto t0 = std::chrono::steady_clock::now();
        run();
        CK(cudaStreamSynchronize(s));
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (r > 0) t.push_back(ms);  // the first is the warm-up
    }
    return median(t);
}

void row(const char *name, gpusvdHandle_t h, cudaStream_t s, double *dA, const double *src,
         size_t count, const Call &call, int reps) {
    auto ok = [&](gpusvdStatus_t st) {
        if (st != GPUSVD_STATUS_SUCCESS) {
            std::fprintf(stderr, "%s: %s\n", name, gpusvdGetErrorMessage(h));
            std::exit(1);
        }
    };
    const auto restore = [&] {
        CK(cudaMemcpyAsync(dA, src, count * sizeof(double), cudaMemcpyDeviceToDevice, s));
    };
    const double direct = time_ms(s, restore, [&] { ok(call()); }, reps);
    restore();
    ok(call());  // warm-up outside the capture
    CK(cudaStreamSynchronize(s));
    cudaGraph_t g;
    cudaGraphExec_t x;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    const gpusvdStatus_t st = call();
    CK(cudaStreamEndCapture(s, &g));
    ok(st);
    CK(cudaGraphInstantiate(&x, g, 0));
    const double replay = time_ms(s, restore, [&] { CK(cudaGraphLaunch(x, s)); }, reps);
    std::printf("| %s | %.3f | %.3f | %.2f |\n", name, direct, replay, direct / replay);
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
}

}  // namespace

int main(int argc, char **argv) {
    int reps = 10;
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    gpusvdHandle_t h;
    if (gpusvdCreate(&h) != GPUSVD_STATUS_SUCCESS ||
        gpusvdSetBackend(h, GPUSVD_BACKEND_GPU) != GPUSVD_STATUS_SUCCESS) {
        std::fprintf(stderr, "no usable GPU\n");
        return 1;
    }
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    gpusvdSetStream(h, s);
    std::printf("| case | direct ms | graph replay ms | direct / replay |\n|---|---:|---:|---:|\n");
    struct Tall {
        int64_t m, n;
    };
    for (Tall t : {Tall{100000, 64}, Tall{1000000, 64}, Tall{1000000, 300}}) {
        const size_t count = size_t(t.m * t.n);
        std::vector<double> hA = random_matrix(count, 7);
        double *src, *dA, *dR, *dC, *dv;
        int *info;
        CK(cudaMalloc(&src, count * 8));
        CK(cudaMalloc(&dA, count * 8));
        CK(cudaMalloc(&dR, size_t(t.n * t.n) * 8));
        CK(cudaMalloc(&dC, size_t(t.n * t.n) * 8));
        CK(cudaMalloc(&dv, size_t(t.n) * 8));
        CK(cudaMalloc(&info, sizeof(int)));
        CK(cudaMemcpy(src, hA.data(), count * 8, cudaMemcpyHostToDevice));
        const std::string qn = "dgeqrf_mgs_gpu " + dims(t.m, t.n);
        row(qn.c_str(), h, s, dA, src, count,
            [&] {
                return gpusvd_dgeqrf_mgs_gpu(h, GPUSVD_ORTH_MGS2, t.m, t.n, dA, t.m, dR, t.n,
                                             info);
            },
            reps);
        if (t.n <= 64) {
            const std::string pn = "dpca_gpu " + dims(t.m, t.n) + " k = 8";
            row(pn.c_str(), h, s, dA, src, count,
                [&] {
                    return gpusvd_dpca_gpu(h, t.m, t.n, dA, t.m, 8, dC, t.n, dv, nullptr, 1,
                                           nullptr, info);
                },
                reps);
        }
        for (void *p : {(void *)src, (void *)dA, (void *)dR, (void *)dC, (void *)dv, (void *)info})
            CK(cudaFree(p));
    }
    for (int64_t n : {128, 256, 512, 1024, 2048}) {
        const size_t count = size_t(n * n);
        std::vector<double> hA = random_matrix(count, 8);
        double *src, *dA, *dS, *dU, *dV;
        int *info;
        CK(cudaMalloc(&src, count * 8));
        CK(cudaMalloc(&dA, count * 8));
        CK(cudaMalloc(&dS, size_t(n) * 8));
        CK(cudaMalloc(&dU, count * 8));
        CK(cudaMalloc(&dV, count * 8));
        CK(cudaMalloc(&info, sizeof(int)));
        CK(cudaMemcpy(src, hA.data(), count * 8, cudaMemcpyHostToDevice));
        const std::string name = "dgesvj_gpu " + dims(n, n) + " +U,V";
        row(name.c_str(), h, s, dA, src, count,
            [&] {
                return gpusvd_dgesvj_gpu(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, n, n, dA, n, dS, dU, n,
                                         dV, n, info);
            },
            n <= 1024 ? reps : 3);
        for (void *p : {(void *)src, (void *)dA, (void *)dS, (void *)dU, (void *)dV, (void *)info})
            CK(cudaFree(p));
    }
    gpusvdSetStream(h, nullptr);
    CK(cudaStreamDestroy(s));
    gpusvdDestroy(h);
    return 0;
}
