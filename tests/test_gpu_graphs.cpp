// Every `_gpu` form captured into a CUDA graph on a user stream and replayed on new data in the
// same buffers: the replay must give what an uncaptured call gives on that data, including data
// that needs another number of CholeskyQR steps or Jacobi sweeps than the data the graph was
// captured on (the loops are decided on the device). The forms that plan on the host refuse a
// capture with NOT_SUPPORTED and leave it intact. Device only: capture needs a real GPU.
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cuda_rt.hpp"
#include "svd_checks.hpp"
#include "test_common.hpp"

using namespace gpusvd_test;

namespace {

using Call = std::function<gpusvdStatus_t()>;

class GraphTest : public ::testing::Test {
protected:
    void SetUp() override {
        GPUSVD_SKIP_WITHOUT_DEVICE(h);
        if (gpu_as_cpu()) GTEST_SKIP() << "graph capture needs a real device";
        rt = CudaRt::open(false);
        ASSERT_TRUE(rt->ok() && rt->begin_capture_ && rt->instantiate_ && rt->graph_launch_);
        ASSERT_EQ(rt->stream_create_(&s, CudaRt::kNonBlocking), 0);
        ASSERT_EQ(gpusvdSetStream(h, s), GPUSVD_STATUS_SUCCESS);
    }
    void TearDown() override {
        if (exec) rt->exec_destroy_(exec);
        if (graph) rt->graph_destroy_(graph);
        gpusvdSetStream(h, nullptr);
        if (s) rt->stream_destroy_(s);
    }

    /// Runs `call` once uncaptured (the warm-up that sizes the workspace), then captures it.
    void capture(const Call &call) {
        GPUSVD_ASSERT_OK(h, call());
        ASSERT_EQ(rt->stream_sync_(s), 0);
        ASSERT_EQ(rt->begin_capture_(s, CudaRt::kCaptureGlobal), 0);
        const gpusvdStatus_t st = call();
        ASSERT_EQ(rt->end_capture_(s, &graph), 0) << "the capture must stay valid";
        ASSERT_EQ(st, GPUSVD_STATUS_SUCCESS) << gpusvdGetErrorMessage(h);
        ASSERT_EQ(rt->instantiate_(&exec, graph, 0), 0);
    }
    void replay() {
        ASSERT_EQ(rt->graph_launch_(exec, s), 0);
        ASSERT_EQ(rt->stream_sync_(s), 0);
    }
    void direct(const Call &call) {
        GPUSVD_ASSERT_OK(h, call());
        ASSERT_EQ(rt->stream_sync_(s), 0);
    }
    /// A call made inside a capture must answer NOT_SUPPORTED and leave the capture intact.
    void expect_refused_in_capture(gpusvdHandle_t hh, const Call &call) {
        ASSERT_EQ(rt->begin_capture_(s, CudaRt::kCaptureGlobal), 0);
        const gpusvdStatus_t st = call();
        void *g = nullptr;
        EXPECT_EQ(rt->end_capture_(s, &g), 0) << "the refused call must not break the capture";
        EXPECT_EQ(st, GPUSVD_STATUS_NOT_SUPPORTED) << gpusvdGetErrorMessage(hh);
        EXPECT_NE(std::string(gpusvdGetErrorMessage(hh)).find("captur"), std::string::npos)
            << gpusvdGetErrorMessage(hh);
        if (g) {
            void *e = nullptr;
            EXPECT_EQ(rt->instantiate_(&e, g, 0), 0);
            if (e) {
                EXPECT_EQ(rt->graph_launch_(e, s), 0);
                EXPECT_EQ(rt->stream_sync_(s), 0);
                rt->exec_destroy_(e);
            }
            rt->graph_destroy_(g);
        }
    }
    template <typename T>
    void load(DevBuf &d, const std::vector<T> &v) {
        ASSERT_EQ(rt->memcpy_(d.p, v.data(), v.size() * sizeof(T), CudaRt::kHostToDevice), 0);
        // A copy from pageable memory may return before it lands, and the user stream does not
        // wait for the legacy stream it went to.
        ASSERT_EQ(rt->sync_(), 0);
    }
    template <typename T>
    std::vector<T> read(const DevBuf &d) {
        std::vector<T> v(d.bytes / sizeof(T));
        EXPECT_TRUE(d.to_host(v.data()));
        return v;
    }

    Handle h;
    std::unique_ptr<CudaRt> rt;
    void *s = nullptr;
    void *graph = nullptr, *exec = nullptr;
};

/// Data sets of a tall m x n matrix that take different paths: one CholeskyQR step, several
/// (condition 1e12: shifted steps), rank-deficient (a repeated column: the Gram-Schmidt rebuild),
/// and one NaN (NaN outputs, info -1).
std::vector<std::pair<std::string, std::vector<double>>> tall_cases(int64_t m, int64_t n) {
    Rng rng(11);
    std::vector<std::pair<std::string, std::vector<double>>> c;
    c.emplace_back("random", gaussian<double>(rng, m, n));
    c.emplace_back("cond 1e12", prescribed_sv<double>(rng, m, n, SigmaMode::Geometric, 1e12));
    std::vector<double> dep = gaussian<double>(rng, m, n);
    for (int64_t i = 0; i < m; ++i) dep[sz(i + 5 * m)] = dep[sz(i + 2 * m)];
    c.emplace_back("repeated column", dep);
    std::vector<double> nan = gaussian<double>(rng, m, n);
    nan[sz(17 + 3 * m)] = std::nan("");
    c.emplace_back("NaN", nan);
    return c;
}

bool all_nan(const std::vector<double> &v, size_t count) {
    for (size_t i = 0; i < count; ++i)
        if (!std::isnan(v[i])) return false;
    return true;
}

// Tall QR: one panel and two panels (BCGS2 between them), every data set replayed on a graph
// captured on the first.
TEST_F(GraphTest, TallQrReplaysEveryPath) {
    for (int64_t n : {48, 300}) {
        const int64_t m = full_or_quick(20000, 4000);
        SCOPED_TRACE("m = " + std::to_string(m) + ", n = " + std::to_string(n));
        const auto cases = tall_cases(m, n);
        DevBuf dA(*rt, sz(m * n) * 8), dR(*rt, sz(n * n) * 8), dinfo(*rt, sizeof(int));
        const Call call = [&] {
            return gpusvd_dgeqrf_mgs_gpu(h, GPUSVD_ORTH_MGS2, m, n, dA.as<double>(), m,
                                         dR.as<double>(), n, dinfo.as<int>());
        };
        load(dA, cases[0].second);
        capture(call);
        if (HasFatalFailure()) return;
        for (const auto &c : cases) {
            SCOPED_TRACE(c.first);
            load(dA, c.second);
            direct(call);
            const int info_ref = read<int>(dinfo)[0];
            load(dA, c.second);
            ASSERT_EQ(rt->memset_(dinfo.p, 0x7f, sizeof(int)), 0);
            replay();
            const std::vector<double> Q = read<double>(dA), R = read<double>(dR);
            const int info = read<int>(dinfo)[0];
            EXPECT_EQ(info, info_ref) << "info as the uncaptured call's";
            if (c.first == "NaN") {
                EXPECT_EQ(info, GPUSVD_INFO_NONFINITE);
                EXPECT_TRUE(all_nan(Q, Q.size()) && all_nan(R, R.size())) << "NaN outputs";
                continue;
            }
            EXPECT_LT(qr_residual(m, n, c.second.data(), m, Q.data(), m, R.data(), n), 50.0);
            EXPECT_LT(orthogonality(m, n, Q.data(), m), 50.0);
            for (int64_t j = 0; j < n; ++j) EXPECT_GE(R[sz(j + j * n)], 0.0) << "R(j,j), j = " << j;
        }
    }
}

// The one-matrix blocked Jacobi (n = 512, too large for one block's shared memory): sweeps as a
// while node; the replay of data needing more sweeps does as many as the uncaptured call.
// A batch on the blocked Jacobi (96 columns and more): captured, its sweeps are one while node
// for the whole batch, converged members riding along unrotated; replayed on batches whose
// members need other sweep counts (and hold NaN, zero, rank-deficient members) it must give
// what the uncaptured call (which drops converged members) gives: the same info, the same
// statistics, the SVD ratios against LAPACK for every finite member.
TEST_F(GraphTest, BlockedJacobiBatchReplaysMixedBatches) {
    const int64_t n = 128, batch = full_or_quick(12, 5);
    Rng rng(13);
    auto make = [&](bool mixed) {
        std::vector<double> A;
        for (int64_t b = 0; b < batch; ++b) {
            std::vector<double> M =
                mixed && b == 1   ? std::vector<double>(sz(n * n), 0.0)
                : mixed && b == 2 ? prescribed_sv<double>(rng, n, n, SigmaMode::RankDeficient, 1e3, 3)
                : mixed && b == 3 ? prescribed_sv<double>(rng, n, n, SigmaMode::Geometric, 1e12)
                                  : gaussian<double>(rng, n, n);
            if (mixed && b == 4) M[sz(5 + 9 * n)] = std::nan("");
            A.insert(A.end(), M.begin(), M.end());
        }
        return A;
    };
    const std::vector<double> A1 = make(false), A2 = make(true);
    const size_t nn = sz(n * n);
    DevBuf dA(*rt, A1.size() * 8), dS(*rt, sz(n * batch) * 8), dU(*rt, A1.size() * 8),
        dV(*rt, A1.size() * 8), dinfo(*rt, sz(batch) * sizeof(int));
    const Call call = [&] {
        return gpusvd_dgesvj_batched_gpu(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, n, n, dA.as<double>(),
                                         n, n * n, dS.as<double>(), n, dU.as<double>(), n, n * n,
                                         dV.as<double>(), n, n * n, batch, dinfo.as<int>());
    };
    load(dA, A1);
    capture(call);
    if (HasFatalFailure()) return;
    for (const std::vector<double> *data : {&A2, &A1}) {
        SCOPED_TRACE(data == &A2 ? "mixed batch" : "random batch");
        load(dA, *data);
        direct(call);
        int sweeps_ref = -1, sweeps = -2;
        double off = 0;
        GPUSVD_ASSERT_OK(h, gpusvdGetJacobiStats(h, &sweeps_ref, &off));
        const std::vector<int> info_ref = read<int>(dinfo);
        const std::vector<double> S_ref = read<double>(dS);
        load(dA, *data);
        replay();
        GPUSVD_ASSERT_OK(h, gpusvdGetJacobiStats(h, &sweeps, &off));
        EXPECT_EQ(sweeps, sweeps_ref) << "the replay's largest sweep count";
        EXPECT_EQ(read<int>(dinfo), info_ref);
        const std::vector<double> S = read<double>(dS), U = read<double>(dU), V = read<double>(dV);
        for (int64_t b = 0; b < batch; ++b) {
            SCOPED_TRACE("matrix " + std::to_string(b));
            const double *Ab = data->data() + sz(b) * nn;
            if (data == &A2 && b == 4) {
                EXPECT_EQ(info_ref[sz(b)], GPUSVD_INFO_NONFINITE);
                EXPECT_TRUE(std::isnan(S[sz(b * n)]) && std::isnan(U[sz(b) * nn]) &&
                            std::isnan(V[sz(b) * nn]));
                continue;
            }
            EXPECT_EQ(info_ref[sz(b)], 0);
            const std::vector<double> Sref = ref_singular_values_double(n, n, Ab, n);
            expect_svd(n, n, Ab, n, S.data() + b * n, U.data() + sz(b) * nn, n,
                       V.data() + sz(b) * nn, n, Sref.data());
            for (int64_t j = 0; j < n; ++j)
                EXPECT_NEAR(S[sz(b * n + j)], S_ref[sz(b * n + j)], 1e-12 * S_ref[sz(b * n)])
                    << "replay vs uncaptured, s_" << j;
        }
    }
}

TEST_F(GraphTest, BlockedJacobiReplaysEverySweepCount) {
    const int64_t n = full_or_quick(512, 256);
    Rng rng(12);
    std::vector<std::pair<std::string, std::vector<double>>> cases;
    cases.emplace_back("random", gaussian<double>(rng, n, n));
    cases.emplace_back("cond 1e10", prescribed_sv<double>(rng, n, n, SigmaMode::Geometric, 1e10));
    std::vector<double> nan = gaussian<double>(rng, n, n);
    nan[sz(3 + 7 * n)] = std::nan("");
    cases.emplace_back("NaN", nan);
    DevBuf dA(*rt, sz(n * n) * 8), dS(*rt, sz(n) * 8), dU(*rt, sz(n * n) * 8),
        dV(*rt, sz(n * n) * 8), dinfo(*rt, sizeof(int));
    const Call call = [&] {
        return gpusvd_dgesvj_gpu(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, n, n, dA.as<double>(), n,
                                 dS.as<double>(), dU.as<double>(), n, dV.as<double>(), n,
                                 dinfo.as<int>());
    };
    load(dA, cases[1].second);
    capture(call);
    if (HasFatalFailure()) return;
    for (const auto &c : cases) {
        SCOPED_TRACE(c.first);
        load(dA, c.second);
        direct(call);
        int sweeps_ref = -1, sweeps = -2;
        double off = 0;
        GPUSVD_ASSERT_OK(h, gpusvdGetJacobiStats(h, &sweeps_ref, &off));
        const int info_ref = read<int>(dinfo)[0];
        load(dA, c.second);
        replay();
        GPUSVD_ASSERT_OK(h, gpusvdGetJacobiStats(h, &sweeps, &off));
        const std::vector<double> S = read<double>(dS), U = read<double>(dU), V = read<double>(dV);
        EXPECT_EQ(read<int>(dinfo)[0], info_ref);
        if (c.first == "NaN") {
            EXPECT_EQ(info_ref, GPUSVD_INFO_NONFINITE);
            EXPECT_TRUE(all_nan(S, S.size()) && all_nan(U, U.size()) && all_nan(V, V.size()));
            continue;
        }
        EXPECT_EQ(sweeps, sweeps_ref) << "the replay's sweep count";
        const std::vector<double> Sref = ref_singular_values_double(n, n, c.second.data(), n);
        expect_svd(n, n, c.second.data(), n, S.data(), U.data(), n, V.data(), n, Sref.data());
    }
}

// Tall one-matrix SVD (QR first, then the Jacobi of R) and PCA: both on the tall QR.
TEST_F(GraphTest, TallSvdAndPcaReplay) {
    const int64_t m = full_or_quick(20000, 4000), n = 32, k = 4;
    Rng rng(13);
    std::vector<double> A1 = gaussian<double>(rng, m, n);
    std::vector<double> A2 = prescribed_sv<double>(rng, m, n, SigmaMode::Geometric, 1e9);
    {
        DevBuf dA(*rt, sz(m * n) * 8), dS(*rt, sz(n) * 8), dU(*rt, sz(m * n) * 8),
            dV(*rt, sz(n * n) * 8), dinfo(*rt, sizeof(int));
        const Call call = [&] {
            return gpusvd_dgesvj_gpu(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, dA.as<double>(), m,
                                     dS.as<double>(), dU.as<double>(), m, dV.as<double>(), n,
                                     dinfo.as<int>());
        };
        load(dA, A1);
        capture(call);
        if (HasFatalFailure()) return;
        for (const std::vector<double> *A : {&A1, &A2}) {
            load(dA, *A);
            replay();
            EXPECT_EQ(read<int>(dinfo)[0], 0);
            const std::vector<double> S = read<double>(dS), U = read<double>(dU),
                                      V = read<double>(dV);
            const std::vector<double> Sref = ref_singular_values_double(m, n, A->data(), m);
            expect_svd(m, n, A->data(), m, S.data(), U.data(), m, V.data(), n, Sref.data());
        }
        rt->exec_destroy_(exec), exec = nullptr;
        rt->graph_destroy_(graph), graph = nullptr;
    }
    // PCA of data with well-separated variances (columns scaled 1..n) and of NaN data.
    std::vector<double> X1(sz(m * n)), X2(sz(m * n));
    fill_uniform(X1.data(), X1.size(), 21);
    fill_uniform(X2.data(), X2.size(), 22);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) X1[sz(i + j * m)] *= double(j + 1), X2[sz(i + j * m)] *= double(n - j);
    std::vector<double> X3 = X2;
    X3[sz(5 + 9 * m)] = std::nan("");
    DevBuf dX(*rt, sz(m * n) * 8), dC(*rt, sz(n * k) * 8), dvar(*rt, sz(k) * 8),
        dsc(*rt, sz(m * k) * 8), dmean(*rt, sz(n) * 8), dinfo(*rt, sizeof(int)),
        dtotal(*rt, sizeof(double));
    // The total variance's device query is captured with the call.
    const Call pca = [&] {
        const gpusvdStatus_t st = gpusvd_dpca_gpu(h, m, n, dX.as<double>(), m, k, dC.as<double>(),
                                                  n, dvar.as<double>(), dsc.as<double>(), m,
                                                  dmean.as<double>(), dinfo.as<int>());
        return st != GPUSVD_STATUS_SUCCESS ? st
                                           : gpusvdGetPcaTotalVariance_gpu(h, dtotal.as<double>());
    };
    load(dX, X1);
    capture(pca);
    if (HasFatalFailure()) return;
    for (const std::vector<double> *X : {&X1, &X2, &X3}) {
        load(dX, *X);
        direct(pca);
        const std::vector<double> C0 = read<double>(dC), v0 = read<double>(dvar),
                                  s0 = read<double>(dsc), mu0 = read<double>(dmean);
        const int info0 = read<int>(dinfo)[0];
        double t0 = 0, t_replay = 0;
        ASSERT_EQ(gpusvdGetPcaTotalVariance(h, &t0), GPUSVD_STATUS_SUCCESS);
        const double d0 = read<double>(dtotal)[0];
        EXPECT_TRUE(d0 == t0 || (std::isnan(d0) && std::isnan(t0)))
            << "device query " << d0 << ", host query " << t0;
        load(dX, *X);
        replay();
        const std::vector<double> C = read<double>(dC), v = read<double>(dvar),
                                  sc = read<double>(dsc), mu = read<double>(dmean);
        EXPECT_EQ(read<int>(dinfo)[0], info0);
        const double d = read<double>(dtotal)[0];
        ASSERT_EQ(gpusvdGetPcaTotalVariance(h, &t_replay), GPUSVD_STATUS_SUCCESS);
        EXPECT_TRUE(d == t_replay || (std::isnan(d) && std::isnan(t_replay)))
            << "replayed device query " << d << ", host query " << t_replay;
        if (X == &X3) {
            EXPECT_EQ(info0, GPUSVD_INFO_NONFINITE);
            EXPECT_TRUE(all_nan(C, C.size()) && all_nan(v, v.size()));
            EXPECT_TRUE(std::isnan(d)) << d;
            continue;
        }
        EXPECT_NEAR(d, t0, 1e-12 * t0);
        EXPECT_GT(t0, v0[0]) << "the total exceeds the largest variance";
        // Distinct variances: the components are well determined, so both paths agree to
        // rounding relative to the data.
        for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], v0[i], 1e-10 * v0[0]);
        for (size_t i = 0; i < C.size(); ++i) EXPECT_NEAR(C[i], C0[i], 1e-8);
        for (size_t i = 0; i < mu.size(); ++i) EXPECT_NEAR(mu[i], mu0[i], 1e-12 * double(n));
        for (size_t i = 0; i < sc.size(); i += 97) EXPECT_NEAR(sc[i], s0[i], 1e-8 * double(n));
    }
    // The host query after a replay gives that replay's total, not the one it read back after
    // the last direct call: the replay runs on twice that call's data (four times its total).
    std::vector<double> X4 = X1;
    for (double &x : X4) x *= 2;
    load(dX, X1);
    direct(pca);
    double t1 = 0, t4 = 0;
    ASSERT_EQ(gpusvdGetPcaTotalVariance(h, &t1), GPUSVD_STATUS_SUCCESS);
    load(dX, X4);
    replay();
    ASSERT_EQ(gpusvdGetPcaTotalVariance(h, &t4), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(t4, read<double>(dtotal)[0]);
    EXPECT_NEAR(t4, 4 * t1, 1e-12 * t4);
}

// The batched forms and values-only bdsvd have no host decisions: the replay on new data equals
// the uncaptured call on that data.
TEST_F(GraphTest, BatchedFormsAndBidiagonalValuesReplay) {
    Rng rng(14);
    auto same = [&](const std::vector<DevBuf *> &outs, const Call &call, DevBuf &in,
                    const std::vector<double> &data, const char *what) {
        SCOPED_TRACE(what);
        load(in, data);
        direct(call);
        std::vector<std::vector<double>> ref;
        for (DevBuf *o : outs) ref.push_back(read<double>(*o));
        load(in, data);
        replay();
        for (size_t i = 0; i < outs.size(); ++i) {
            const std::vector<double> got = read<double>(*outs[i]);
            double big = 0, diff = 0;
            for (size_t j = 0; j < got.size(); ++j) {
                big = std::max(big, std::fabs(ref[i][j]));
                diff = std::max(diff, std::fabs(got[j] - ref[i][j]));
            }
            EXPECT_LE(diff, 1e-13 * std::max(big, 1.0)) << "output " << i;
        }
    };
    const auto rebuild = [&] {
        if (exec) rt->exec_destroy_(exec), exec = nullptr;
        if (graph) rt->graph_destroy_(graph), graph = nullptr;
    };
    for (int64_t n : {16, 64}) {
        const int64_t batch = 300;
        std::vector<double> A1 = gaussian<double>(rng, n, n * batch),
                            A2 = gaussian<double>(rng, n, n * batch);
        DevBuf dA(*rt, A1.size() * 8), dS(*rt, sz(n * batch) * 8), dU(*rt, A1.size() * 8),
            dV(*rt, A1.size() * 8), dinfo(*rt, sz(batch) * sizeof(int));
        const Call svd = [&] {
            return gpusvd_dgesvj_batched_gpu(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, n, n,
                                             dA.as<double>(), n, n * n, dS.as<double>(), n,
                                             dU.as<double>(), n, n * n, dV.as<double>(), n, n * n,
                                             batch, dinfo.as<int>());
        };
        load(dA, A1);
        capture(svd);
        if (HasFatalFailure()) return;
        same({&dS, &dU, &dV}, svd, dA, A2, "gesvj_batched");
        rebuild();
        DevBuf dR(*rt, A1.size() * 8);
        const Call qr = [&] {
            return gpusvd_dgeqrf_mgs_batched_gpu(h, GPUSVD_ORTH_MGS2, n, n, dA.as<double>(), n,
                                                 n * n, dR.as<double>(), n, n * n, batch,
                                                 dinfo.as<int>());
        };
        load(dA, A1);
        capture(qr);
        if (HasFatalFailure()) return;
        same({&dA, &dR}, qr, dA, A2, "geqrf_mgs_batched");
        rebuild();
        DevBuf wr(*rt, sz(n * batch) * 8), wi(*rt, sz(n * batch) * 8), VR(*rt, A1.size() * 8);
        const Call eig = [&] {
            return gpusvd_dgeev_batched_gpu(h, GPUSVD_JOB_VEC, n, dA.as<double>(), n, n * n,
                                            wr.as<double>(), wi.as<double>(), n, VR.as<double>(),
                                            n, n * n, batch, dinfo.as<int>());
        };
        load(dA, A1);
        capture(eig);
        if (HasFatalFailure()) return;
        same({&wr, &wi, &VR}, eig, dA, A2, "geev_batched");
        rebuild();
    }
    const int64_t n = 200;
    std::vector<double> de1(sz(2 * n - 1)), de2(sz(2 * n - 1));
    fill_uniform(de1.data(), de1.size(), 31);
    fill_uniform(de2.data(), de2.size(), 32);
    DevBuf dde(*rt, de1.size() * 8), dinfo(*rt, sizeof(int));
    const Call bd = [&] {
        return gpusvd_dbdsvd_gpu(h, GPUSVD_UPPER, GPUSVD_JOB_NOVEC, n, dde.as<double>(),
                                 dde.as<double>() + n, nullptr, 1, nullptr, 1, dinfo.as<int>());
    };
    load(dde, de1);
    capture(bd);
    if (HasFatalFailure()) return;
    same({&dde}, bd, dde, de2, "bdsvd values");
}

// bdsvd with vectors plans on the host: refused inside a capture, which stays intact; so is a
// handle's first call, which must allocate its workspace.
TEST_F(GraphTest, HostPlannedFormsRefuseCapture) {
    const int64_t n = 50;
    std::vector<double> de(sz(2 * n - 1));
    fill_uniform(de.data(), de.size(), 41);
    DevBuf dde(*rt, de.data(), de.size() * 8), dU(*rt, sz(n * n) * 8), dVT(*rt, sz(n * n) * 8),
        dinfo(*rt, sizeof(int));
    const Call vec = [&] {
        return gpusvd_dbdsvd_gpu(h, GPUSVD_UPPER, GPUSVD_JOB_VEC, n, dde.as<double>(),
                                 dde.as<double>() + n, dU.as<double>(), n, dVT.as<double>(), n,
                                 dinfo.as<int>());
    };
    direct(vec);
    expect_refused_in_capture(h, vec);
    direct(vec);  // and the handle still works afterwards

    Handle fresh;
    ASSERT_EQ(set_device_test_backend(fresh), GPUSVD_STATUS_SUCCESS);
    ASSERT_EQ(gpusvdSetStream(fresh, s), GPUSVD_STATUS_SUCCESS);
    const int64_t batch = 100, m = 12;
    DevBuf dA(*rt, sz(m * m * batch) * 8), wr(*rt, sz(m * batch) * 8), wi(*rt, sz(m * batch) * 8),
        binfo(*rt, sz(batch) * sizeof(int));
    const Call first = [&] {
        return gpusvd_dgeev_batched_gpu(fresh, GPUSVD_JOB_NOVEC, m, dA.as<double>(), m, m * m,
                                        wr.as<double>(), wi.as<double>(), m, nullptr, 1, 1, batch,
                                        binfo.as<int>());
    };
    expect_refused_in_capture(fresh, first);
    GPUSVD_EXPECT_OK(fresh, first());
    EXPECT_EQ(rt->stream_sync_(s), 0);
    gpusvdSetStream(fresh, nullptr);
}

}  // namespace
