// The thread form of gpusvd-bench-dist: one process, a rank per GPU of the machine, a thread
// each, against one GPU on the same data.
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "dist_common.hpp"

namespace dist_bench {

namespace {

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

}  // namespace

// ------------------------------------------------------------------------------------------
// Threads: one process, a thread per GPU

int run_threads(const Options &o) {
    const int64_t M = o.M, n = o.n;
    const int reps = o.reps;
    int P = 0;
    cuda(cudaGetDeviceCount(&P), "counting devices");
    const Nccl nc = load_nccl();
    need(nc.init_all && nc.destroy, "NCCL without ncclCommInitAll");

    // The random block, on every device.
    const std::vector<double> host = random_matrix(kBlockRows, n, kBlockSeed);
    std::vector<double *> block(static_cast<size_t>(P));
    for (int d = 0; d < P; ++d) {
        cuda(cudaSetDevice(d), "setting the device");
        cuda(cudaMalloc(reinterpret_cast<void **>(&block[size_t(d)]), sizeof(double) * host.size()),
             "allocating the block");
        upload(block[size_t(d)], host, "copying the block");
    }

    std::vector<void *> comms(static_cast<size_t>(P));
    nc.check(nc.init_all(comms.data(), P, nullptr), "ncclCommInitAll");
    const int64_t share = share_of(M, P);
    std::vector<double> times, pca_times, pca_var;
    std::vector<std::vector<double>> R(size_t(P), std::vector<double>(size_t(n * n)));
    Barrier bar(P);
    std::vector<std::thread> th;
    for (int r = 0; r < P; ++r)
        th.emplace_back([&, r] {
            cuda(cudaSetDevice(r), "setting the device");
            const int64_t rows = rows_of(M, P, r), lda = std::max<int64_t>(rows, 1);
            gpusvdHandle_t h = nullptr;
            ok(nullptr, gpusvdCreate(&h));
            gpusvdComm_t c = nullptr;
            ok(nullptr, gpusvdCommCreateNccl(&c, comms[size_t(r)]));
            const auto sync = [&] { bar.wait(); };
            {
                Dev<double> A(rows * n, "allocating A"), dR(n * n, "allocating R");
                Dev<int> info(1, "allocating info");
                const std::vector<double> t = timed(
                    reps,
                    [&] {
                        tile(A.get(), rows, n, block[size_t(r)], r * share);
                        cuda(cudaDeviceSynchronize(), "tiling");
                    },
                    [&] {
                        ok(h, gpusvd_dgeqrf_mgs_dist_gpu(h, c, GPUSVD_ORTH_MGS2, rows, n, A.get(),
                                                         lda, dR.get(), n, info.get()));
                    },
                    sync, "the QR");
                if (r == 0) times = t;
                cuda(cudaMemcpy(R[size_t(r)].data(), dR.get(), sizeof(double) * n * n,
                                cudaMemcpyDeviceToHost),
                     "R");
                // PCA of the same data (X is read, not overwritten), 8 components.
                Dev<double> C(n * kPcaK, "C"), var(kPcaK, "var");
                tile(A.get(), rows, n, block[size_t(r)], r * share);
                const std::vector<double> tp = timed(
                    reps, [] { cuda(cudaDeviceSynchronize(), "tiling"); },
                    [&] {
                        ok(h, gpusvd_dpca_dist_gpu(h, c, rows, n, A.get(), lda, kPcaK, C.get(), n,
                                                   var.get(), nullptr, 1, nullptr, info.get()));
                    },
                    sync, "the PCA");
                if (r == 0) {
                    pca_times = tp;
                    pca_var.resize(size_t(kPcaK));
                    cuda(cudaMemcpy(pca_var.data(), var.get(), sizeof(double) * kPcaK,
                                    cudaMemcpyDeviceToHost),
                         "var");
                }
            }
            ok(nullptr, gpusvdCommDestroy(c));
            ok(nullptr, gpusvdDestroy(h));
        });
    for (auto &t : th) t.join();
    for (void *c : comms) nc.check(nc.destroy(c), "ncclCommDestroy");
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
    std::printf(
        "gpusvd-bench-dist: dgeqrf_mgs of %lld x %lld over %d GPUs (NCCL, one rank per "
        "GPU), medians of %d\n",
        (long long)M, (long long)n, P, reps);
    std::printf("  distributed, %d GPUs:              %10.2f ms\n", P, t_dist);
    print_one_gpu_qr(share, t_quarter, M, t_whole, t_dist);
    std::printf(
        "  R identical on every rank: %s; max |R_dist - R_one| / max |R_one| = %.2e (the same "
        "matrix)\n",
        identical ? "yes" : "NO", diff / ref);
    std::vector<double> vq;
    const double t_pca_quarter = one_gpu_pca(share, n, reps, block[0], &vq);
    const double t_pca = median(pca_times);
    print_one_gpu_pca(t_pca, t_pca_quarter);
    std::printf(
        "  PCA: largest variance distributed %.6e, one share on one GPU %.6e (of another "
        "matrix: the first share's rows)\n",
        pca_var.empty() ? 0.0 : pca_var[0], vq[0]);
    for (double *b : block) cuda(cudaFree(b), "freeing the block");
    return identical ? 0 : 1;
}

}  // namespace dist_bench
