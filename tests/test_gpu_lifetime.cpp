// Handle lifetimes on user streams: creating, using (plainly or inside a CUDA graph capture) and
// destroying a handle must leave every later call on another handle working. Device only.
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cuda_rt.hpp"
#include "test_common.hpp"

using namespace gpusvd_test;

namespace {

class LifetimeTest : public ::testing::Test {
protected:
    void SetUp() override {
        Handle probe;
        if (gpusvdSetBackend(probe, GPUSVD_BACKEND_GPU) == GPUSVD_STATUS_NO_DEVICE)
            GTEST_SKIP() << "no usable GPU";
        rt = CudaRt::open(false);
        ASSERT_TRUE(rt->ok() && rt->begin_capture_ && rt->graph_launch_) << "libcudart";
    }
    std::unique_ptr<CudaRt> rt;
};

struct Stream {
    const CudaRt &rt;
    void *s = nullptr;
    explicit Stream(const CudaRt &r) : rt(r) {
        EXPECT_EQ(rt.stream_create_(&s, CudaRt::kNonBlocking), 0);
    }
    ~Stream() { destroy(); }
    void destroy() {
        if (s) {
            EXPECT_EQ(rt.stream_destroy_(s), 0);
        }
        s = nullptr;
    }
};

// Eigenvalues of a small batch on h's stream, or captured into a graph on it and replayed.
void use_handle(const CudaRt &rt, gpusvdHandle_t h, void *stream, bool capture) {
    const int64_t n = 12, batch = 1000;
    std::vector<double> A(size_t(n * n * batch));
    fill_uniform(A.data(), A.size(), 3);
    DevBuf dA(rt, A.data(), A.size() * sizeof(double)), wr(rt, A.size() / n * sizeof(double)),
        wi(rt, A.size() / n * sizeof(double)), info(rt, size_t(batch) * sizeof(int));
    ASSERT_EQ(gpusvdSetStream(h, stream), GPUSVD_STATUS_SUCCESS);
    auto call = [&] {
        return gpusvd_dgeev_batched_gpu(h, GPUSVD_JOB_NOVEC, n, dA.as<double>(), n, n * n,
                                        wr.as<double>(), wi.as<double>(), n, nullptr, 1, 1, batch,
                                        info.as<int>());
    };
    GPUSVD_ASSERT_OK(h, call());  // also the warm-up that allocates before any capture
    ASSERT_EQ(rt.stream_sync_(stream), 0);
    if (capture) {
        void *graph = nullptr, *exec = nullptr;
        ASSERT_EQ(rt.begin_capture_(stream, CudaRt::kCaptureGlobal), 0);
        const gpusvdStatus_t st = call();
        ASSERT_EQ(rt.end_capture_(stream, &graph), 0);
        ASSERT_EQ(st, GPUSVD_STATUS_SUCCESS) << gpusvdGetErrorMessage(h);
        ASSERT_EQ(rt.instantiate_(&exec, graph, 0), 0);
        ASSERT_EQ(rt.graph_launch_(exec, stream), 0);
        ASSERT_EQ(rt.stream_sync_(stream), 0);
        EXPECT_EQ(rt.exec_destroy_(exec), 0);
        EXPECT_EQ(rt.graph_destroy_(graph), 0);
    }
    std::vector<int> hinfo(size_t(batch), -1);
    ASSERT_TRUE(info.to_host(hinfo.data()));
    EXPECT_TRUE(std::all_of(hinfo.begin(), hinfo.end(), [](int i) { return i == 0; }));
}

// Every routine's `_gpu` form on a fresh handle (default stream): each must succeed.
void every_routine_works(const CudaRt &rt) {
    Handle h;
    ASSERT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_GPU), GPUSVD_STATUS_SUCCESS);
    const int64_t n = 16, batch = 500;
    std::vector<double> A(size_t(n * n * batch));
    fill_uniform(A.data(), A.size(), 4);
    std::vector<int> hinfo(size_t(batch), -1);
    auto all_zero = [&] {
        return std::all_of(hinfo.begin(), hinfo.end(), [](int i) { return i == 0; });
    };
    {
        DevBuf dA(rt, A.data(), A.size() * sizeof(double)), S(rt, size_t(n * batch) * 8),
            info(rt, size_t(batch) * sizeof(int));
        GPUSVD_EXPECT_OK(h, gpusvd_dgesvj_batched_gpu(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, n, n,
                                                      dA.as<double>(), n, n * n, S.as<double>(), n,
                                                      nullptr, 1, 1, nullptr, 1, 1, batch,
                                                      info.as<int>()));
        ASSERT_EQ(rt.sync_(), 0);
        ASSERT_TRUE(info.to_host(hinfo.data()));
        EXPECT_TRUE(all_zero()) << "gesvj_batched_gpu";
        // The singular values against the CPU backend.
        std::vector<double> got(size_t(n * batch)), ref(size_t(n * batch)), Ac = A;
        ASSERT_TRUE(S.to_host(got.data()));
        Handle c;
        gpusvdSetBackend(c, GPUSVD_BACKEND_CPU);
        GPUSVD_ASSERT_OK(c, gpusvd_dgesvj_batched(c, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, n, n,
                                                  Ac.data(), n, n * n, ref.data(), n, nullptr, 1,
                                                  1, nullptr, 1, 1, batch, hinfo.data()));
        // Per matrix, relative to its largest singular value (LAPACK's bound for the others).
        double err = 0;
        for (int64_t b = 0; b < batch; ++b)
            for (int64_t i = 0; i < n; ++i)
                err = std::max(err, std::abs(got[size_t(b * n + i)] - ref[size_t(b * n + i)]) /
                                        ref[size_t(b * n)]);
        EXPECT_LT(err, 50 * n * eps<double>());
    }
    {
        DevBuf dA(rt, A.data(), A.size() * sizeof(double)), R(rt, size_t(n * n * batch) * 8),
            info(rt, size_t(batch) * sizeof(int));
        GPUSVD_EXPECT_OK(h, gpusvd_dgeqrf_mgs_batched_gpu(h, GPUSVD_ORTH_MGS2, n, n,
                                                          dA.as<double>(), n, n * n,
                                                          R.as<double>(), n, n * n, batch,
                                                          info.as<int>()));
        ASSERT_EQ(rt.sync_(), 0);
        ASSERT_TRUE(info.to_host(hinfo.data()));
        EXPECT_TRUE(all_zero()) << "geqrf_mgs_batched_gpu";
    }
    {
        DevBuf dA(rt, A.data(), A.size() * sizeof(double)), wr(rt, size_t(n * batch) * 8),
            wi(rt, size_t(n * batch) * 8), info(rt, size_t(batch) * sizeof(int));
        GPUSVD_EXPECT_OK(h, gpusvd_dgeev_batched_gpu(h, GPUSVD_JOB_NOVEC, n, dA.as<double>(), n,
                                                     n * n, wr.as<double>(), wi.as<double>(), n,
                                                     nullptr, 1, 1, batch, info.as<int>()));
        ASSERT_EQ(rt.sync_(), 0);
        ASSERT_TRUE(info.to_host(hinfo.data()));
        EXPECT_TRUE(all_zero()) << "geev_batched_gpu";
    }
    {
        const int64_t m = 20000, k = 4;
        std::vector<double> X(size_t(m * n));
        fill_uniform(X.data(), X.size(), 5);
        DevBuf dX(rt, X.data(), X.size() * 8), C(rt, size_t(n * k) * 8), var(rt, size_t(k) * 8),
            info(rt, sizeof(int)), R(rt, size_t(n * n) * 8), dQ(rt, X.data(), X.size() * 8);
        GPUSVD_EXPECT_OK(h, gpusvd_dpca_gpu(h, m, n, dX.as<double>(), m, k, C.as<double>(), n,
                                            var.as<double>(), nullptr, 1, nullptr, info.as<int>()));
        ASSERT_EQ(rt.sync_(), 0);
        ASSERT_TRUE(info.to_host(hinfo.data()));
        EXPECT_EQ(hinfo[0], 0) << "pca_gpu";
        GPUSVD_EXPECT_OK(h, gpusvd_dgeqrf_mgs_gpu(h, GPUSVD_ORTH_MGS2, m, n, dQ.as<double>(), m,
                                                  R.as<double>(), n, info.as<int>()));
        ASSERT_EQ(rt.sync_(), 0);
        ASSERT_TRUE(info.to_host(hinfo.data()));
        EXPECT_EQ(hinfo[0], 0) << "geqrf_mgs_gpu (tall)";
    }
    {
        std::vector<double> d(64), e(63);
        fill_uniform(d.data(), d.size(), 6);
        fill_uniform(e.data(), e.size(), 7);
        DevBuf dd(rt, d.data(), d.size() * 8), de(rt, e.data(), e.size() * 8),
            info(rt, sizeof(int));
        GPUSVD_EXPECT_OK(h, gpusvd_dbdsvd_gpu(h, GPUSVD_UPPER, GPUSVD_JOB_NOVEC, 64,
                                              dd.as<double>(), de.as<double>(), nullptr, 1,
                                              nullptr, 1, info.as<int>()));
        ASSERT_EQ(rt.sync_(), 0);
        ASSERT_TRUE(info.to_host(hinfo.data()));
        EXPECT_EQ(hinfo[0], 0) << "bdsvd_gpu";
    }
}

// The orders: the stream outlives the handle, or goes first; with and without a capture.
TEST_F(LifetimeTest, DestroyedHandleOnUserStream) {
    for (bool capture : {false, true})
        for (bool stream_first : {false, true}) {
            SCOPED_TRACE(std::string(capture ? "captured, " : "plain, ") +
                         (stream_first ? "stream destroyed first" : "handle destroyed first"));
            Stream s(*rt);
            gpusvdHandle_t h = nullptr;
            ASSERT_EQ(gpusvdCreate(&h), GPUSVD_STATUS_SUCCESS);
            ASSERT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_GPU), GPUSVD_STATUS_SUCCESS);
            use_handle(*rt, h, s.s, capture);
            if (stream_first) s.destroy();
            EXPECT_EQ(gpusvdDestroy(h), GPUSVD_STATUS_SUCCESS);
            s.destroy();
            every_routine_works(*rt);
        }
}

}  // namespace
