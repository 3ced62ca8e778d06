// gpusvd-bench-dist: the distributed tall QR and PCA (gpusvd_dgeqrf_mgs_dist_gpu,
// gpusvd_dpca_dist_gpu, 8 components, no scores) over NCCL, one rank per GPU of the machine (a
// thread each, ncclCommInitAll), against one GPU on one rank's share of the rows and, for the QR,
// on all of them (gpusvd_dgeqrf_mgs_gpu, gpusvd_dpca_gpu with the QR method), same data, same run. Medians of --reps
// calls, device to device. The matrix: a random block of 2^20 x n rows repeated down the rows
// (so no host array of the whole size is needed); the distributed R is checked against the
// one-GPU R of the same matrix, and every rank's R against rank 0's (bitwise).
//   gpusvd-bench-dist [--rows M] [--cols n] [--reps r]
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "gpusvd.h"

namespace {

constexpr int64_t kBlockRows = int64_t(1) << 20;
constexpr int64_t kPcaK = 8;

void need(bool ok, const char *what) {
    if (!ok) {
        std::fprintf(stderr, "gpusvd-bench-dist: %s\n", what);
        std::exit(1);
    }
}
void cuda(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "gpusvd-bench-dist: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}
void ok(gpusvdHandle_t h, gpusvdStatus_t st) {
    if (st != GPUSVD_STATUS_SUCCESS) {
        std::fprintf(stderr, "gpusvd-bench-dist: %s\n", gpusvdGetErrorMessage(h));
        std::exit(1);
    }
}

class Barrier {
public:
    explicit Barrier(int n) : n_(n) {}
    void wait() {
        std::unique_lock<std::mutex> lk(m_);
        const long g = gen_;
        if (++arrived_ == n_) {
            arrived_ = 0, ++gen_;
            cv_.notify_all();
        } else {
            cv_.wait(lk, [&] { return gen_ != g; });
        }
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    int n_, arrived_ = 0;
    long gen_ = 0;
};

// A (rows x n, ld rows) on the current device: rows first .. first + rows - 1 of the matrix made
// of copies of the block (kBlockRows x n) down its rows, so the ranks' shares stack into the
// matrix one GPU factors whole.
void tile(double *A, int64_t rows, int64_t n, const double *block, int64_t first = 0) {
    for (int64_t r0 = 0; r0 < rows;) {
        const int64_t b = (first + r0) % kBlockRows, h = std::min(kBlockRows - b, rows - r0);
        cuda(cudaMemcpy2D(A + r0, sizeof(double) * rows, block + b, sizeof(double) * kBlockRows,
                          sizeof(double) * h, n, cudaMemcpyDeviceToDevice),
             "tiling A");
        r0 += h;
    }
}

double median(std::vector<double> t) {
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// One GPU (device 0): median ms of gpusvd_dgeqrf_mgs_gpu on `rows` rows; R to host.
double one_gpu(int64_t rows, int64_t n, int reps, const double *block, std::vector<double> *R) {
    cuda(cudaSetDevice(0), "device 0");
    gpusvdHandle_t h = nullptr;
    gpusvdCreate(&h);
    double *A = nullptr, *dR = nullptr;
    int *info = nullptr;
    cuda(cudaMalloc(reinterpret_cast<void **>(&A), sizeof(double) * rows * n), "allocating A");
    cuda(cudaMalloc(reinterpret_cast<void **>(&dR), sizeof(double) * n * n), "allocating R");
    cuda(cudaMalloc(reinterpret_cast<void **>(&info), sizeof(int)), "allocating info");
    std::vector<double> t;
    for (int r = 0; r <= reps; ++r) {
        tile(A, rows, n, block);
        cuda(cudaDeviceSynchronize(), "tiling");
        const auto t0 = std::chrono::steady_clock::now();
        ok(h, gpusvd_dgeqrf_mgs_gpu(h, GPUSVD_ORTH_MGS2, rows, n, A, rows, dR, n, info));
        cuda(cudaDeviceSynchronize(), "the QR");
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (r > 0) t.push_back(ms);  // the first call is the warm-up
    }
    R->resize(size_t(n * n));
    cuda(cudaMemcpy(R->data(), dR, sizeof(double) * n * n, cudaMemcpyDeviceToHost), "R");
    cudaFree(A), cudaFree(dR), cudaFree(info);
    gpusvdDestroy(h);
    return median(t);
}

// One GPU (device 0): median ms of gpusvd_dpca_gpu (QR method) on `rows` rows; variances out.
double one_gpu_pca(int64_t rows, int64_t n, int reps, const double *block, std::vector<double> *var) {
    cuda(cudaSetDevice(0), "device 0");
    gpusvdHandle_t h = nullptr;
    gpusvdCreate(&h);
    gpusvdSetPcaMethod(h, GPUSVD_PCA_QR);
    double *A = nullptr, *C = nullptr, *dv = nullptr;
    int *info = nullptr;
    cuda(cudaMalloc(reinterpret_cast<void **>(&A), sizeof(double) * rows * n), "allocating X");
    cuda(cudaMalloc(reinterpret_cast<void **>(&C), sizeof(double) * n * kPcaK), "C");
    cuda(cudaMalloc(reinterpret_cast<void **>(&dv), sizeof(double) * kPcaK), "var");
    cuda(cudaMalloc(reinterpret_cast<void **>(&info), sizeof(int)), "info");
    tile(A, rows, n, block);
    std::vector<double> t;
    for (int r = 0; r <= reps; ++r) {
        cuda(cudaDeviceSynchronize(), "tiling");
        const auto t0 = std::chrono::steady_clock::now();
        ok(h, gpusvd_dpca_gpu(h, rows, n, A, rows, kPcaK, C, n, dv, nullptr, 1, nullptr, info));
        cuda(cudaDeviceSynchronize(), "the PCA");
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (r > 0) t.push_back(ms);
    }
    var->resize(size_t(kPcaK));
    cuda(cudaMemcpy(var->data(), dv, sizeof(double) * kPcaK, cudaMemcpyDeviceToHost), "var");
    cudaFree(A), cudaFree(C), cudaFree(dv), cudaFree(info);
    gpusvdDestroy(h);
    return median(t);
}

}  // namespace

int main(int argc, char **argv) {
    int64_t M = 100000000, n = 64;
    int reps = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--rows")) M = std::atoll(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--cols")) n = std::atoll(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    }
    int P = 0;
    cuda(cudaGetDeviceCount(&P), "counting devices");
    void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    need(lib != nullptr, "cannot load libnccl.so.2");
    // ncclCommInitAll(ncclComm_t *, int, const int *) / ncclCommDestroy(ncclComm_t): int results.
    auto init_all = reinterpret_cast<int (*)(void **, int, const int *)>(dlsym(lib, "ncclCommInitAll"));
    auto destroy = reinterpret_cast<int (*)(void *)>(dlsym(lib, "ncclCommDestroy"));
    need(init_all && destroy, "NCCL without ncclCommInitAll");

    // The random block, on every device.
    std::vector<double> host(size_t(kBlockRows * n));
    uint64_t seed = 0x1234567ull;
    for (double &x : host) {
        seed ^= seed >> 12, seed ^= seed << 25, seed ^= seed >> 27;
        x = double((seed * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-52 - 1.0;
    }
    std::vector<double *> block(static_cast<size_t>(P));
    for (int d = 0; d < P; ++d) {
        cuda(cudaSetDevice(d), "setting the device");
        cuda(cudaMalloc(reinterpret_cast<void **>(&block[size_t(d)]), sizeof(double) * host.size()), "allocating the block");
        cuda(cudaMemcpy(block[size_t(d)], host.data(), sizeof(double) * host.size(),
                        cudaMemcpyHostToDevice),
             "copying the block");
    }

    std::vector<void *> comms(static_cast<size_t>(P));
    need(init_all(comms.data(), P, nullptr) == 0, "ncclCommInitAll failed");
    const int64_t share = (M + P - 1) / P;
    std::vector<double> times(static_cast<size_t>(reps)), pca_times(static_cast<size_t>(reps));
    std::vector<double> pca_var;
    std::vector<std::vector<double>> R(size_t(P), std::vector<double>(size_t(n * n)));
    Barrier bar(P);
    std::vector<std::thread> th;
    for (int r = 0; r < P; ++r)
        th.emplace_back([&, r] {
            cuda(cudaSetDevice(r), "setting the device");
            const int64_t rows = std::min(share, M - r * share);
            gpusvdHandle_t h = nullptr;
            gpusvdCreate(&h);
            gpusvdComm_t c = nullptr;
            ok(nullptr, gpusvdCommCreateNccl(&c, comms[size_t(r)]));
            double *A = nullptr, *dR = nullptr;
            int *info = nullptr;
            cuda(cudaMalloc(reinterpret_cast<void **>(&A), sizeof(double) * rows * n), "allocating A");
            cuda(cudaMalloc(reinterpret_cast<void **>(&dR), sizeof(double) * n * n), "allocating R");
            cuda(cudaMalloc(reinterpret_cast<void **>(&info), sizeof(int)), "allocating info");
            for (int rep = 0; rep <= reps; ++rep) {
                tile(A, rows, n, block[size_t(r)], r * share);
                cuda(cudaDeviceSynchronize(), "tiling");
                bar.wait();
                const auto t0 = std::chrono::steady_clock::now();
                ok(h, gpusvd_dgeqrf_mgs_dist_gpu(h, c, GPUSVD_ORTH_MGS2, rows, n, A, rows, dR, n,
                                                 info));
                cuda(cudaDeviceSynchronize(), "the QR");
                bar.wait();
                const double ms = std::chrono::duration<double, std::milli>(
                                      std::chrono::steady_clock::now() - t0)
                                      .count();
                if (r == 0 && rep > 0) times[size_t(rep - 1)] = ms;
            }
            cuda(cudaMemcpy(R[size_t(r)].data(), dR, sizeof(double) * n * n,
                            cudaMemcpyDeviceToHost),
                 "R");
            // PCA of the same data (X is read, not overwritten), 8 components.
            double *C = nullptr, *var = nullptr;
            cuda(cudaMalloc(reinterpret_cast<void **>(&C), sizeof(double) * n * kPcaK), "C");
            cuda(cudaMalloc(reinterpret_cast<void **>(&var), sizeof(double) * kPcaK), "var");
            tile(A, rows, n, block[size_t(r)], r * share);
            for (int rep = 0; rep <= reps; ++rep) {
                cuda(cudaDeviceSynchronize(), "tiling");
                bar.wait();
                const auto t0 = std::chrono::steady_clock::now();
                ok(h, gpusvd_dpca_dist_gpu(h, c, rows, n, A, rows, kPcaK, C, n, var, nullptr, 1,
                                           nullptr, info));
                cuda(cudaDeviceSynchronize(), "the PCA");
                bar.wait();
                const double ms = std::chrono::duration<double, std::milli>(
                                      std::chrono::steady_clock::now() - t0)
                                      .count();
                if (r == 0 && rep > 0) pca_times[size_t(rep - 1)] = ms;
            }
            if (r == 0) {
                pca_var.resize(size_t(kPcaK));
                cuda(cudaMemcpy(pca_var.data(), var, sizeof(double) * kPcaK, cudaMemcpyDeviceToHost), "var");
            }
            cudaFree(C), cudaFree(var);
            cudaFree(A), cudaFree(dR), cudaFree(info);
            gpusvdCommDestroy(c);
            gpusvdDestroy(h);
        });
    for (auto &t : th) t.join();
    for (void *c : comms) destroy(c);
    int identical = 1;
    for (int r = 1; r < P; ++r)
        identical &= std::memcmp(R[size_t(r)].data(), R[0].data(), sizeof(double) * n * n) == 0;
    std::vector<double> R1, Rq;
    const double t_quarter = one_gpu(share, n, reps, block[0], &Rq);
    const double t_whole = one_gpu(M, n, reps, block[0], &R1);
    double diff = 0, ref = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= j; ++i) {
            diff = std::max(diff, std::fabs(R[0][size_t(i + j * n)] - R1[size_t(i + j * n)]));
            ref = std::max(ref, std::fabs(R1[size_t(i + j * n)]));
        }
    const double t_dist = median(times);
    std::printf("gpusvd-bench-dist: dgeqrf_mgs of %lld x %lld over %d GPUs (NCCL, one rank per "
                "GPU), medians of %d\n",
                (long long)M, (long long)n, P, reps);
    std::printf("  distributed, %d GPUs:              %10.2f ms\n", P, t_dist);
    std::printf("  one GPU, %lld rows (one share):  %10.2f ms  (distributed / this = %.2f)\n",
                (long long)share, t_quarter, t_dist / t_quarter);
    std::printf("  one GPU, all %lld rows:          %10.2f ms  (speed-up %.2fx)\n", (long long)M,
                t_whole, t_whole / t_dist);
    std::printf("  R identical on every rank: %s; max |R_dist - R_one| / max |R_one| = %.2e (the same "
                "matrix)\n",
                identical ? "yes" : "NO", diff / ref);
    std::vector<double> vq;
    const double t_pca_quarter = one_gpu_pca(share, n, reps, block[0], &vq);
    const double t_pca = median(pca_times);
    std::printf("  PCA (8 components): distributed %.2f ms; one GPU on one share %.2f ms "
                "(distributed / this = %.2f); the whole does not fit one GPU with its centred "
                "copy\n",
                t_pca, t_pca_quarter, t_pca / t_pca_quarter);
    std::printf("  PCA: largest variance distributed %.6e, one share on one GPU %.6e (of another "
                "matrix: the first share's rows)\n",
                pca_var.empty() ? 0.0 : pca_var[0], vq[0]);
    for (double *b : block) cudaFree(b);
    return identical ? 0 : 1;
}
