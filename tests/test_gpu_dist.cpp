// The distributed tall QR on the GPU (gpusvd_?geqrf_mgs_dist_gpu and the host form on backend
// GPU): ranks as threads on one GPU with the in-process all-reduce (thread_comm.hpp), against
// LAPACK's ratios and the CPU backend's agreement rules; and over NCCL, one rank per GPU, when
// libnccl.so.2 is there and the machine has two GPUs or more. Device only.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cuda_rt.hpp"
#include "test_common.hpp"
#include "thread_comm.hpp"

using namespace gpusvd_test;

namespace {

std::vector<int64_t> split_rows(int64_t M, int P) {
    std::vector<int64_t> rows(sz(P), 0);
    int64_t left = M;
    for (int r = 0; r < P; ++r) {
        if (P >= 3 && r == 1) continue;  // a rank with no rows
        const int64_t take = r == P - 1 ? left : std::min<int64_t>(left, M / P + 13 * (r + 1));
        rows[sz(r)] = take;
        left -= take;
    }
    return rows;
}

struct Result {
    std::vector<gpusvdStatus_t> status;
    std::vector<int> info;
    std::vector<std::vector<double>> R;
    std::vector<std::string> message;
    std::vector<double> Q;
};

class DistGpu : public ::testing::Test {
protected:
    void SetUp() override {
        Handle probe;
        if (gpusvdSetBackend(probe, GPUSVD_BACKEND_GPU) == GPUSVD_STATUS_NO_DEVICE)
            GTEST_SKIP() << "no usable GPU";
        if (gpu_as_cpu()) GTEST_SKIP() << "the distributed GPU path needs a real GPU";
        rt = CudaRt::open(false);
        ASSERT_TRUE(rt->ok());
    }

    // P thread ranks on the current GPU: `device_form` calls the _gpu form on device copies of
    // each block, else the host form on a handle with backend GPU. comm(r) makes rank r's
    // communicator (a host one by default).
    Result run(int P, int64_t M, int64_t n, const std::vector<double> &A, bool device_form,
               const std::function<void(int, int64_t &)> &tweak_lda = {}) {
        ThreadRanks ranks(P);
        const std::vector<int64_t> rows = split_rows(M, P);
        std::vector<int64_t> first(sz(P), 0);
        for (int r = 1; r < P; ++r) first[sz(r)] = first[sz(r - 1)] + rows[sz(r - 1)];
        Result out;
        out.status.assign(sz(P), GPUSVD_STATUS_INTERNAL_ERROR);
        out.info.assign(sz(P), -999);
        out.R.assign(sz(P), std::vector<double>(sz(n * n), sentinel<double>()));
        out.message.assign(sz(P), "");
        std::vector<std::vector<double>> blocks;
        blocks.resize(sz(P));
        ranks.run([&](int r) {
            const int64_t m = rows[sz(r)];
            int64_t lda = std::max<int64_t>(m, 1);
            std::vector<double> &Ab = blocks[sz(r)];
            Ab.assign(sz(lda * n), 0.0);
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < m; ++i) Ab[sz(i + j * lda)] = A[sz(first[sz(r)] + i + j * M)];
            if (tweak_lda) tweak_lda(r, lda);
            gpusvdHandle_t h = nullptr;
            gpusvdCreate(&h);
            gpusvdSetBackend(h, GPUSVD_BACKEND_GPU);
            gpusvdComm_t c = ranks.comm(r);
            if (device_form) {
                DevBuf dA(*rt, Ab.data(), Ab.size() * 8), dR(*rt, sz(n * n) * 8),
                    dI(*rt, sizeof(int));
                out.status[sz(r)] = gpusvd_dgeqrf_mgs_dist_gpu(
                    h, c, GPUSVD_ORTH_MGS2, m, n, dA.as<double>(), lda, dR.as<double>(), n,
                    dI.as<int>());
                EXPECT_EQ(rt->sync_(), 0);
                if (out.status[sz(r)] == GPUSVD_STATUS_SUCCESS) {
                    EXPECT_TRUE(dA.to_host(Ab.data()));
                    EXPECT_TRUE(dR.to_host(out.R[sz(r)].data()));
                    EXPECT_TRUE(dI.to_host(&out.info[sz(r)]));
                }
            } else {
                out.status[sz(r)] = gpusvd_dgeqrf_mgs_dist(h, c, GPUSVD_ORTH_MGS2, m, n, Ab.data(),
                                                           lda, out.R[sz(r)].data(), n,
                                                           &out.info[sz(r)]);
            }
            out.message[sz(r)] = gpusvdGetErrorMessage(h);
            gpusvdCommDestroy(c);
            gpusvdDestroy(h);
        });
        out.Q.assign(sz(M * n), 0.0);
        for (int r = 0; r < P; ++r) {
            const int64_t m = rows[sz(r)], lda = std::max<int64_t>(m, 1);
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < m; ++i)
                    out.Q[sz(first[sz(r)] + i + j * M)] = blocks[sz(r)][sz(i + j * lda)];
        }
        return out;
    }

    static void expect_factored(const Result &o, int64_t M, int64_t n, const std::vector<double> &A,
                                int want_info) {
        for (size_t r = 0; r < o.status.size(); ++r) {
            ASSERT_EQ(o.status[r], GPUSVD_STATUS_SUCCESS) << "rank " << r << ": " << o.message[r];
            EXPECT_EQ(o.info[r], want_info) << "rank " << r;
            EXPECT_TRUE(same_bits(o.R[r], o.R[0])) << "rank " << r << "'s R differs from rank 0's";
        }
        EXPECT_LT(qr_residual(M, n, A.data(), M, o.Q.data(), M, o.R[0].data(), n), 30.0);
        EXPECT_LT(orthogonality(M, n, o.Q.data(), M), 30.0);
    }

    std::unique_ptr<CudaRt> rt;
};

TEST_F(DistGpu, ConditionsPanelsAndForms) {
    for (int64_t n : {40, 300}) {  // one panel; two panels (block Gram-Schmidt projections)
        for (double cond : {1.0, 1e6, 1e12}) {
            const int64_t M = n == 40 ? 3000 : 2000;
            Rng rng(uint64_t(n) + uint64_t(std::log10(cond)));
            const std::vector<double> A =
                prescribed_sv<double>(rng, M, n, SigmaMode::Geometric, cond);
            for (bool dev : {true, false}) {
                SCOPED_TRACE("n " + std::to_string(n) + ", cond " + std::to_string(cond) +
                             (dev ? ", _gpu form" : ", host form"));
                expect_factored(run(3, M, n, A, dev), M, n, A, 0);
            }
        }
    }
}

TEST_F(DistGpu, DependentAndZeroColumnsCompleted) {
    const int64_t M = 2000, n = 12;
    Rng rng(11);
    std::vector<double> A = gaussian<double>(rng, M, n);
    for (int64_t i = 0; i < M; ++i) {
        A[sz(i + 3 * M)] = 0;
        A[sz(i + 7 * M)] = 2 * A[sz(i + 2 * M)];
    }
    const Result o = run(3, M, n, A, true);
    expect_factored(o, M, n, A, 4);
    EXPECT_EQ(o.R[0][sz(3 + 3 * n)], 0.0);
    EXPECT_EQ(o.R[0][sz(7 + 7 * n)], 0.0);
}

TEST_F(DistGpu, NonFiniteOnOneRank) {
    const int64_t M = 1000, n = 6;
    Rng rng(3);
    std::vector<double> A = gaussian<double>(rng, M, n);
    A[sz(M - 3 + 4 * M)] = std::nan("");
    const Result o = run(2, M, n, A, true);
    for (int r = 0; r < 2; ++r) {
        ASSERT_EQ(o.status[sz(r)], GPUSVD_STATUS_SUCCESS) << o.message[sz(r)];
        EXPECT_EQ(o.info[sz(r)], GPUSVD_INFO_NONFINITE);
        EXPECT_TRUE(all_nan(n, n, o.R[sz(r)].data(), n));
    }
}

TEST_F(DistGpu, OneRanksBadArgumentFailsEveryRank) {
    const int64_t M = 600, n = 4;
    Rng rng(9);
    const std::vector<double> A = gaussian<double>(rng, M, n);
    const Result o = run(3, M, n, A, true, [](int r, int64_t &lda) {
        if (r == 2) lda -= 1;
    });
    for (int r = 0; r < 3; ++r) {
        EXPECT_EQ(o.status[sz(r)], GPUSVD_STATUS_INVALID_VALUE) << o.message[sz(r)];
        EXPECT_EQ(o.info[sz(r)], -999);
    }
    EXPECT_NE(o.message[0].find("rank 2"), std::string::npos) << o.message[0];
}

TEST_F(DistGpu, PcaMatchesOneProcessPca) {
    // Three thread ranks on this GPU (_gpu form, host communicator) against gpusvd_dpca of the
    // stacked data on the CPU backend (QR method): the same components, variances, mean, scores.
    const int P = 3;
    const int64_t M = 5000, n = 24, k = 6;
    Rng rng(21);
    std::vector<double> X = prescribed_sv<double>(rng, M, n, SigmaMode::Geometric, 100.0);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < M; ++i) X[sz(i + j * M)] += 5.0 + double(j);
    Handle h1;
    gpusvdSetBackend(h1, GPUSVD_BACKEND_CPU);
    gpusvdSetPcaMethod(h1, GPUSVD_PCA_QR);
    std::vector<double> C1(sz(n * k)), v1(sz(k)), S1(sz(M * k)), mu1(sz(n));
    int info1 = -1;
    GPUSVD_ASSERT_OK(h1, gpusvd_dpca(h1, M, n, X.data(), M, k, C1.data(), n, v1.data(), S1.data(),
                                     M, mu1.data(), &info1));
    ThreadRanks ranks(P);
    const std::vector<int64_t> rows = split_rows(M, P);
    std::vector<int64_t> first(sz(P), 0);
    for (int r = 1; r < P; ++r) first[sz(r)] = first[sz(r - 1)] + rows[sz(r - 1)];
    std::vector<std::vector<double>> C(sz(P)), var(sz(P)), mu(sz(P));
    std::vector<double> Sst(sz(M * k), 0.0);
    std::vector<int> info(sz(P), -999);
    ranks.run([&](int r) {
        const int64_t m = rows[sz(r)], ld = std::max<int64_t>(m, 1);
        std::vector<double> Xb(sz(ld * n), 0.0), Sb(sz(ld * k), 0.0);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) Xb[sz(i + j * ld)] = X[sz(first[sz(r)] + i + j * M)];
        C[sz(r)].assign(sz(n * k), 0.0), var[sz(r)].assign(sz(k), 0.0), mu[sz(r)].assign(sz(n), 0.0);
        gpusvdHandle_t h = nullptr;
        gpusvdCreate(&h);
        gpusvdComm_t c = ranks.comm(r);
        DevBuf dX(*rt, Xb.data(), Xb.size() * 8), dC(*rt, sz(n * k) * 8), dv(*rt, sz(k) * 8),
            dS(*rt, Sb.size() * 8), dmu(*rt, sz(n) * 8), dI(*rt, sizeof(int));
        const gpusvdStatus_t st = gpusvd_dpca_dist_gpu(
            h, c, m, n, dX.as<double>(), ld, k, dC.as<double>(), n, dv.as<double>(),
            dS.as<double>(), ld, dmu.as<double>(), dI.as<int>());
        EXPECT_EQ(st, GPUSVD_STATUS_SUCCESS) << gpusvdGetErrorMessage(h);
        EXPECT_EQ(rt->sync_(), 0);
        EXPECT_TRUE(dC.to_host(C[sz(r)].data()) && dv.to_host(var[sz(r)].data()) &&
                    dmu.to_host(mu[sz(r)].data()) && dS.to_host(Sb.data()) &&
                    dI.to_host(&info[sz(r)]));
        for (int64_t j = 0; j < k; ++j)
            for (int64_t i = 0; i < m; ++i) Sst[sz(first[sz(r)] + i + j * M)] = Sb[sz(i + j * ld)];
        gpusvdCommDestroy(c);
        gpusvdDestroy(h);
    });
    auto rel = [](const std::vector<double> &a, const std::vector<double> &b) {
        double d = 0, ref = 0;
        for (size_t i = 0; i < a.size(); ++i)
            d = std::max(d, std::fabs(a[i] - b[i])), ref = std::max(ref, std::fabs(b[i]));
        return d / ref;
    };
    for (int r = 0; r < P; ++r) {
        EXPECT_EQ(info[sz(r)], 0);
        EXPECT_TRUE(same_bits(C[sz(r)], C[0]));
    }
    EXPECT_LT(rel(C[0], C1), 1e-10) << "components";
    EXPECT_LT(rel(var[0], v1), 1e-10) << "explained variance";
    EXPECT_LT(rel(mu[0], mu1), 1e-12) << "mean";
    EXPECT_LT(rel(Sst, S1), 1e-10) << "scores";
}

// NCCL, one rank per GPU (one process, a thread per GPU: ncclCommInitAll).
TEST_F(DistGpu, OverNcclOneRankPerGpu) {
    int count = 0;
    ASSERT_EQ(rt->device_count_(&count), 0);
    if (count < 2) GTEST_SKIP() << "one GPU";
    void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) GTEST_SKIP() << "no libnccl.so.2";
    // ncclCommInitAll(ncclComm_t *, int, const int *) and ncclCommDestroy(ncclComm_t), their
    // ncclResult_t an int (0: ncclSuccess), the communicator an opaque pointer.
    using InitAll = int (*)(void **, int, const int *);
    using Destroy = int (*)(void *);
    auto init_all = reinterpret_cast<InitAll>(dlsym(lib, "ncclCommInitAll"));
    auto destroy = reinterpret_cast<Destroy>(dlsym(lib, "ncclCommDestroy"));
    ASSERT_TRUE(init_all && destroy);
    std::vector<void *> comms(sz(count));
    ASSERT_EQ(init_all(comms.data(), count, nullptr), 0);
    const int64_t M = 400000, n = 64;
    Rng rng(5);
    const std::vector<double> A = prescribed_sv<double>(rng, M, n, SigmaMode::Geometric, 1e12);
    const std::vector<int64_t> rows = split_rows(M, count);
    Result o;
    o.status.assign(sz(count), GPUSVD_STATUS_INTERNAL_ERROR);
    o.info.assign(sz(count), -999);
    o.R.assign(sz(count), std::vector<double>(sz(n * n)));
    o.message.assign(sz(count), "");
    o.Q.assign(sz(M * n), 0.0);
    std::vector<std::thread> threads;
    for (int r = 0; r < count; ++r)
        threads.emplace_back([&, r] {
            ASSERT_EQ(rt->set_device_(r), 0);
            int64_t first = 0;
            for (int q = 0; q < r; ++q) first += rows[sz(q)];
            const int64_t m = rows[sz(r)], lda = std::max<int64_t>(m, 1);
            std::vector<double> Ab(sz(lda * n), 0.0);
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < m; ++i) Ab[sz(i + j * lda)] = A[sz(first + i + j * M)];
            gpusvdHandle_t h = nullptr;
            gpusvdCreate(&h);
            gpusvdComm_t c = nullptr;
            ASSERT_EQ(gpusvdCommCreateNccl(&c, comms[sz(r)]), GPUSVD_STATUS_SUCCESS)
                << gpusvdGetErrorMessage(nullptr);
            int size = 0, rank = -1;
            gpusvdCommGetRank(c, &size, &rank);
            EXPECT_EQ(size, count);
            EXPECT_EQ(rank, r);
            DevBuf dA(*rt, Ab.data(), Ab.size() * 8), dR(*rt, sz(n * n) * 8), dI(*rt, sizeof(int));
            o.status[sz(r)] = gpusvd_dgeqrf_mgs_dist_gpu(h, c, GPUSVD_ORTH_MGS2, m, n,
                                                         dA.as<double>(), lda, dR.as<double>(), n,
                                                         dI.as<int>());
            o.message[sz(r)] = gpusvdGetErrorMessage(h);
            EXPECT_EQ(rt->sync_(), 0);
            EXPECT_TRUE(dA.to_host(Ab.data()));
            EXPECT_TRUE(dR.to_host(o.R[sz(r)].data()));
            EXPECT_TRUE(dI.to_host(&o.info[sz(r)]));
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < m; ++i) o.Q[sz(first + i + j * M)] = Ab[sz(i + j * lda)];
            gpusvdCommDestroy(c);
            gpusvdDestroy(h);
        });
    for (auto &t : threads) t.join();
    for (void *c : comms) destroy(c);
    expect_factored(o, M, n, A, 0);
}

}  // namespace
