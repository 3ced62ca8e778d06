// Handle, backend selection, stream, workspace, Jacobi settings, errors, version, build info.
#include <cstdint>
#include <string>

#include "test_common.hpp"

using namespace gpusvd_test;

namespace {

bool contains(const char *haystack, const std::string &needle) {
    return haystack && std::string(haystack).find(needle) != std::string::npos;
}

TEST(Handle, CreateDestroy) {
    gpusvdHandle_t h = nullptr;
    ASSERT_EQ(gpusvdCreate(&h), GPUSVD_STATUS_SUCCESS);
    ASSERT_NE(h, nullptr);
    EXPECT_STREQ(gpusvdGetErrorMessage(h), "");
    EXPECT_EQ(gpusvdDestroy(h), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(gpusvdDestroy(nullptr), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(gpusvdCreate(nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(nullptr), "gpusvdCreate"));
    // Many handles at once are independent.
    std::vector<gpusvdHandle_t> hs(16, nullptr);
    for (auto &x : hs) ASSERT_EQ(gpusvdCreate(&x), GPUSVD_STATUS_SUCCESS);
    for (size_t i = 0; i < hs.size(); ++i)
        for (size_t j = i + 1; j < hs.size(); ++j) EXPECT_NE(hs[i], hs[j]);
    for (auto &x : hs) EXPECT_EQ(gpusvdDestroy(x), GPUSVD_STATUS_SUCCESS);
}

TEST(Handle, BackendSelection) {
    Handle h;
    const bool dev = device_present();
    gpusvdBackend_t b = GPUSVD_BACKEND_AUTO;
    ASSERT_EQ(gpusvdGetBackend(h, &b), GPUSVD_STATUS_SUCCESS);
    EXPECT_NE(b, GPUSVD_BACKEND_AUTO) << "GetBackend never reports AUTO";
    EXPECT_EQ(b, dev ? GPUSVD_BACKEND_GPU : GPUSVD_BACKEND_CPU);

    ASSERT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS);
    ASSERT_EQ(gpusvdGetBackend(h, &b), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(b, GPUSVD_BACKEND_CPU);

    const gpusvdStatus_t st = gpusvdSetBackend(h, GPUSVD_BACKEND_GPU);
    const std::string msg = gpusvdGetErrorMessage(h);
    ASSERT_EQ(gpusvdGetBackend(h, &b), GPUSVD_STATUS_SUCCESS);
    EXPECT_STREQ(gpusvdGetErrorMessage(h), "") << "a successful call clears the message";
    if (dev) {
        EXPECT_EQ(st, GPUSVD_STATUS_SUCCESS);
        EXPECT_EQ(b, GPUSVD_BACKEND_GPU);
    } else {
        EXPECT_EQ(st, GPUSVD_STATUS_NO_DEVICE);
        EXPECT_EQ(b, GPUSVD_BACKEND_CPU) << "a failed SetBackend leaves the setting unchanged";
        EXPECT_TRUE(contains(msg.c_str(), "gpusvdSetBackend")) << msg;
    }

    ASSERT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_AUTO), GPUSVD_STATUS_SUCCESS);
    ASSERT_EQ(gpusvdGetBackend(h, &b), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(b, dev ? GPUSVD_BACKEND_GPU : GPUSVD_BACKEND_CPU);

    EXPECT_EQ(gpusvdSetBackend(h, (gpusvdBackend_t)7), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "gpusvdSetBackend"));
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "backend"));
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "7"));
    EXPECT_EQ(gpusvdSetBackend(h, (gpusvdBackend_t)-1), GPUSVD_STATUS_INVALID_VALUE);
    ASSERT_EQ(gpusvdGetBackend(h, &b), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(b, dev ? GPUSVD_BACKEND_GPU : GPUSVD_BACKEND_CPU) << "still AUTO";

    EXPECT_EQ(gpusvdGetBackend(h, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdGetBackend(nullptr, &b), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdSetBackend(nullptr, GPUSVD_BACKEND_CPU), GPUSVD_STATUS_INVALID_VALUE);
}

TEST(Handle, AutoRunsOnCpuWithoutDevice) {
    if (device_present()) GTEST_SKIP() << "a GPU is present: AUTO resolves to it";
    Handle h;
    Rng rng(1);
    const int64_t m = 6, n = 4;
    const std::vector<double> A0 = gaussian<double>(rng, m, n);
    std::vector<double> A = A0, S(n), U(m * n), V(n * n);
    int info = -1;
    GPUSVD_ASSERT_OK(h, gpusvd_dgesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m,
                                      S.data(), U.data(), m, V.data(), n, &info));
    EXPECT_EQ(info, 0);
    EXPECT_LT(svd_residual(m, n, A0.data(), m, S.data(), U.data(), m, V.data(), n), 50.0);
}

TEST(Handle, Stream) {
    Handle h;
    void *s = reinterpret_cast<void *>(uintptr_t(0xdead));
    ASSERT_EQ(gpusvdGetStream(h, &s), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(s, nullptr) << "default stream is NULL";
    void *mine = reinterpret_cast<void *>(uintptr_t(0x1234));
    EXPECT_EQ(gpusvdSetStream(h, mine), GPUSVD_STATUS_SUCCESS) << "accepted without a GPU too";
    ASSERT_EQ(gpusvdGetStream(h, &s), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(s, mine);
    EXPECT_EQ(gpusvdSetStream(h, nullptr), GPUSVD_STATUS_SUCCESS);
    ASSERT_EQ(gpusvdGetStream(h, &s), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(s, nullptr);
    EXPECT_EQ(gpusvdGetStream(h, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdSetStream(nullptr, mine), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdGetStream(nullptr, &s), GPUSVD_STATUS_INVALID_VALUE);
}

TEST(Handle, UserHostWorkspace) {
    Handle h;
    ASSERT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS);
    const int64_t m = 30, n = 20;
    size_t dev = 7, host = 0;
    ASSERT_EQ(gpusvd_dgesvj_bufferSize(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, &dev, &host),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(dev, 0u) << "CPU backend needs no device workspace";
    ASSERT_GT(host, 0u);
    // either output may be NULL
    EXPECT_EQ(gpusvd_dgesvj_bufferSize(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, nullptr, nullptr),
              GPUSVD_STATUS_SUCCESS);

    Rng rng(2);
    const std::vector<double> A0 = gaussian<double>(rng, m, n);
    std::vector<unsigned char> ws(host, 0xA5);

    // Too small by one byte: INVALID_VALUE, outputs unchanged.
    ASSERT_EQ(gpusvdSetWorkspace(h, nullptr, 0, ws.data(), host - 1), GPUSVD_STATUS_SUCCESS);
    std::vector<double> A = A0, S = sentinels<double>(n), U = sentinels<double>(m * n),
                        V = sentinels<double>(n * n);
    int info = -777;
    EXPECT_EQ(gpusvd_dgesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m, S.data(),
                            U.data(), m, V.data(), n, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "gpusvd_dgesvj"));
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "workspace"));
    EXPECT_TRUE(all_equal(S, sentinel<double>()));
    EXPECT_TRUE(all_equal(U, sentinel<double>()));
    EXPECT_TRUE(all_equal(V, sentinel<double>()));
    EXPECT_EQ(info, -777);
    EXPECT_TRUE(same_bits(A, A0)) << "A untouched by a rejected call";
    EXPECT_TRUE(std::all_of(ws.begin(), ws.end(), [](unsigned char c) { return c == 0xA5; }));

    // Exactly big enough: works, and the user's buffer is what was used.
    ASSERT_EQ(gpusvdSetWorkspace(h, nullptr, 0, ws.data(), host), GPUSVD_STATUS_SUCCESS);
    GPUSVD_ASSERT_OK(h, gpusvd_dgesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m,
                                      S.data(), U.data(), m, V.data(), n, &info));
    EXPECT_EQ(info, 0);
    EXPECT_LT(svd_residual(m, n, A0.data(), m, S.data(), U.data(), m, V.data(), n), 50.0);
    EXPECT_FALSE(std::all_of(ws.begin(), ws.end(), [](unsigned char c) { return c == 0xA5; }))
        << "the user workspace was not used";

    // Batched: the requirement scales with the batch; a buffer for one matrix is too small for
    // a batch that runs on several threads (or exactly enough if it runs on one).
    size_t hostb = 0;
    ASSERT_EQ(gpusvd_dgesvj_batched_bufferSize(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, 4, nullptr,
                                               &hostb),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_GE(hostb, host);
    std::vector<unsigned char> wsb(hostb);
    ASSERT_EQ(gpusvdSetWorkspace(h, nullptr, 0, wsb.data(), hostb), GPUSVD_STATUS_SUCCESS);
    std::vector<double> A4(sz(m * n * 4)), S4(sz(n * 4)), U4(sz(m * n * 4)), V4(sz(n * n * 4));
    for (int b = 0; b < 4; ++b) std::copy(A0.begin(), A0.end(), A4.begin() + b * m * n);
    std::vector<int> info4(4, -1);
    GPUSVD_ASSERT_OK(h, gpusvd_dgesvj_batched(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A4.data(), m,
                                              m * n, S4.data(), n, U4.data(), m, m * n, V4.data(),
                                              n, n * n, 4, info4.data()));
    for (int b = 0; b < 4; ++b) {
        EXPECT_EQ(info4[sz(b)], 0);
        EXPECT_LT(svd_residual(m, n, A0.data(), m, S4.data() + b * n, U4.data() + b * m * n, m,
                               V4.data() + b * n * n, n),
                  50.0);
    }

    // Back to library-managed workspace.
    ASSERT_EQ(gpusvdSetWorkspace(h, nullptr, 0, nullptr, 0), GPUSVD_STATUS_SUCCESS);
    A = A0;
    GPUSVD_ASSERT_OK(h, gpusvd_dgesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m,
                                      S.data(), U.data(), m, V.data(), n, &info));
    EXPECT_EQ(info, 0);

    // A NULL buffer with a non-zero size is invalid.
    EXPECT_EQ(gpusvdSetWorkspace(h, nullptr, 16, nullptr, 0), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdSetWorkspace(h, nullptr, 0, nullptr, 16), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "gpusvdSetWorkspace"));
    EXPECT_EQ(gpusvdSetWorkspace(nullptr, nullptr, 0, nullptr, 0), GPUSVD_STATUS_INVALID_VALUE);
}

TEST(Handle, UserWorkspaceEveryRoutine) {
    // For each routine: a host workspace one byte short is rejected, the exact size works.
    Handle h;
    ASSERT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS);
    Rng rng(3);
    const int64_t m = 12, n = 7, k = 7;
    size_t need = 0;
    int info = -1;
    std::vector<int> infob(3, -1);

    auto with_ws = [&](size_t bytes, auto call) {
        std::vector<unsigned char> ws(bytes + 1);
        EXPECT_EQ(gpusvdSetWorkspace(h, nullptr, 0, ws.data(), bytes - 1), GPUSVD_STATUS_SUCCESS);
        EXPECT_EQ(call(), GPUSVD_STATUS_INVALID_VALUE) << "one byte short";
        EXPECT_EQ(gpusvdSetWorkspace(h, nullptr, 0, ws.data(), bytes), GPUSVD_STATUS_SUCCESS);
        EXPECT_EQ(call(), GPUSVD_STATUS_SUCCESS) << gpusvdGetErrorMessage(h);
        EXPECT_EQ(gpusvdSetWorkspace(h, nullptr, 0, nullptr, 0), GPUSVD_STATUS_SUCCESS);
    };
    {
        SCOPED_TRACE("geqrf_mgs");
        std::vector<float> A = gaussian<float>(rng, m, n), R(sz(n * n));
        ASSERT_EQ(gpusvd_sgeqrf_mgs_bufferSize(h, GPUSVD_ORTH_MGS2, m, n, nullptr, &need),
                  GPUSVD_STATUS_SUCCESS);
        with_ws(need, [&] {
            std::vector<float> Ac = A;
            return gpusvd_sgeqrf_mgs(h, GPUSVD_ORTH_MGS2, m, n, Ac.data(), m, R.data(), n, &info);
        });
    }
    {
        SCOPED_TRACE("geqrf_mgs_batched");
        std::vector<double> A = gaussian<double>(rng, m, n * 3), R(sz(n * n * 3));
        ASSERT_EQ(gpusvd_dgeqrf_mgs_batched_bufferSize(h, GPUSVD_ORTH_MGS, m, n, 3, nullptr, &need),
                  GPUSVD_STATUS_SUCCESS);
        with_ws(need, [&] {
            std::vector<double> Ac = A;
            return gpusvd_dgeqrf_mgs_batched(h, GPUSVD_ORTH_MGS, m, n, Ac.data(), m, m * n,
                                             R.data(), n, n * n, 3, infob.data());
        });
    }
    {
        SCOPED_TRACE("geev_batched");
        std::vector<double> A = gaussian<double>(rng, n, n * 3), wr(sz(n * 3)), wi(sz(n * 3)),
                            VR(sz(n * n * 3));
        ASSERT_EQ(gpusvd_dgeev_batched_bufferSize(h, GPUSVD_JOB_VEC, n, 3, nullptr, &need),
                  GPUSVD_STATUS_SUCCESS);
        with_ws(need, [&] {
            std::vector<double> Ac = A;
            return gpusvd_dgeev_batched(h, GPUSVD_JOB_VEC, n, Ac.data(), n, n * n, wr.data(),
                                        wi.data(), n, VR.data(), n, n * n, 3, infob.data());
        });
    }
    {
        SCOPED_TRACE("bdsvd");
        std::vector<float> d(sz(n)), e(sz(n - 1)), U(sz(n * n)), VT(sz(n * n));
        random_bidiagonal(rng, n, d.data(), e.data(), BidiagMode::Random);
        ASSERT_EQ(gpusvd_sbdsvd_bufferSize(h, GPUSVD_UPPER, GPUSVD_JOB_VEC, n, nullptr, &need),
                  GPUSVD_STATUS_SUCCESS);
        with_ws(need, [&] {
            std::vector<float> dc = d, ec = e;
            return gpusvd_sbdsvd(h, GPUSVD_UPPER, GPUSVD_JOB_VEC, n, dc.data(), ec.data(),
                                 U.data(), n, VT.data(), n, &info);
        });
    }
    {
        SCOPED_TRACE("pca");
        std::vector<double> X = gaussian<double>(rng, m, n), C(sz(n * k)), var(sz(k)),
                            sc(sz(m * k)), mean(sz(n));
        ASSERT_EQ(gpusvd_dpca_bufferSize(h, m, n, k, nullptr, &need), GPUSVD_STATUS_SUCCESS);
        with_ws(need, [&] {
            return gpusvd_dpca(h, m, n, X.data(), m, k, C.data(), n, var.data(), sc.data(), m,
                               mean.data(), &info);
        });
    }
    {
        SCOPED_TRACE("gesvj_batched");
        std::vector<float> A = gaussian<float>(rng, m, n * 3), S(sz(n * 3));
        ASSERT_EQ(gpusvd_sgesvj_batched_bufferSize(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, m, n, 3,
                                                   nullptr, &need),
                  GPUSVD_STATUS_SUCCESS);
        with_ws(need, [&] {
            std::vector<float> Ac = A;
            return gpusvd_sgesvj_batched(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, m, n, Ac.data(), m,
                                         m * n, S.data(), n, nullptr, 0, 0, nullptr, 0, 0, 3,
                                         infob.data());
        });
    }
}

TEST(Handle, BufferSizesOfZeroSizeProblems) {
    Handle h;
    size_t dev = 99, host = 99;
    EXPECT_EQ(gpusvd_dgesvj_bufferSize(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 0, 5, &dev, &host),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(host, 0u);
    EXPECT_EQ(dev, 0u);
    host = 99;
    EXPECT_EQ(gpusvd_sgesvj_batched_bufferSize(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 4, 5, 0, nullptr,
                                               &host),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(host, 0u);
    host = 99;
    EXPECT_EQ(gpusvd_dgeev_batched_bufferSize(h, GPUSVD_JOB_VEC, 0, 3, nullptr, &host),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(host, 0u);
    host = 99;
    EXPECT_EQ(gpusvd_dbdsvd_bufferSize(h, GPUSVD_UPPER, GPUSVD_JOB_VEC, 0, nullptr, &host),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(host, 0u);
    host = 99;
    EXPECT_EQ(gpusvd_spca_bufferSize(h, 5, 4, 0, nullptr, &host), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(host, 0u);
    host = 99;
    EXPECT_EQ(gpusvd_sgeqrf_mgs_bufferSize(h, GPUSVD_ORTH_MGS, 5, 0, nullptr, &host),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(host, 0u);
}

TEST(Handle, JacobiSettingsValidation) {
    Handle h;
    for (double bad : {-1.0, 1.0, 1.5, -1e-300, std::nan(""), std::numeric_limits<double>::infinity()}) {
        EXPECT_EQ(gpusvdSetJacobiTolerance(h, bad), GPUSVD_STATUS_INVALID_VALUE) << bad;
        EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "gpusvdSetJacobiTolerance"));
        EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "tol"));
    }
    for (double good : {0.0, 1e-15, 1e-8, 0.5, 0.999})
        EXPECT_EQ(gpusvdSetJacobiTolerance(h, good), GPUSVD_STATUS_SUCCESS) << good;
    for (int bad : {0, -1, -30, INT32_MIN}) {
        EXPECT_EQ(gpusvdSetJacobiMaxSweeps(h, bad), GPUSVD_STATUS_INVALID_VALUE) << bad;
        EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "gpusvdSetJacobiMaxSweeps"));
        EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "maxSweeps"));
        EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), std::to_string(bad)));
    }
    for (int good : {1, 2, 30, 100}) EXPECT_EQ(gpusvdSetJacobiMaxSweeps(h, good), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(gpusvdSetJacobiTolerance(nullptr, 0.0), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdSetJacobiMaxSweeps(nullptr, 30), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdGetJacobiStats(nullptr, nullptr, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    int sweeps = -1;
    double off = -1;
    EXPECT_EQ(gpusvdGetJacobiStats(h, &sweeps, &off), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(sweeps, 0);
    EXPECT_EQ(off, 0.0);
}

TEST(Handle, PcaMethodValidation) {
    Handle h;
    gpusvdPcaMethod_t got = GPUSVD_PCA_QR;
    ASSERT_EQ(gpusvdGetPcaMethod(h, &got), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(got, GPUSVD_PCA_AUTO) << "the default";
    for (gpusvdPcaMethod_t good : {GPUSVD_PCA_COVARIANCE, GPUSVD_PCA_QR, GPUSVD_PCA_AUTO}) {
        EXPECT_EQ(gpusvdSetPcaMethod(h, good), GPUSVD_STATUS_SUCCESS);
        EXPECT_EQ(gpusvdGetPcaMethod(h, &got), GPUSVD_STATUS_SUCCESS);
        EXPECT_EQ(got, good);
    }
    ASSERT_EQ(gpusvdSetPcaMethod(h, GPUSVD_PCA_COVARIANCE), GPUSVD_STATUS_SUCCESS);
    for (int bad : {3, -1, 7, INT32_MIN, INT32_MAX}) {
        EXPECT_EQ(gpusvdSetPcaMethod(h, static_cast<gpusvdPcaMethod_t>(bad)),
                  GPUSVD_STATUS_INVALID_VALUE)
            << bad;
        const std::string msg = gpusvdGetErrorMessage(h);
        EXPECT_TRUE(contains(msg.c_str(), "gpusvdSetPcaMethod: argument method = " +
                                              std::to_string(bad) + " is invalid"))
            << msg;
        EXPECT_EQ(gpusvdGetPcaMethod(h, &got), GPUSVD_STATUS_SUCCESS);
        EXPECT_EQ(got, GPUSVD_PCA_COVARIANCE) << "a rejected value changes nothing";
    }
    EXPECT_EQ(gpusvdSetPcaMethod(nullptr, GPUSVD_PCA_QR), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdGetPcaMethod(nullptr, &got), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdGetPcaMethod(h, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "gpusvdGetPcaMethod: argument method = NULL"));
}

TEST(Handle, ErrorMessagesNameRoutineArgumentValue) {
    Handle h;
    double a[4] = {1, 2, 3, 4}, s[2], u[4], v[4];
    int info = 0;
    EXPECT_EQ(gpusvd_dgesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, -3, 2, a, 2, s, u, 2, v, 2, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    const std::string msg = gpusvdGetErrorMessage(h);
    EXPECT_NE(msg.find("gpusvd_dgesvj"), std::string::npos) << msg;
    EXPECT_NE(msg.find(" m "), std::string::npos) << msg;
    EXPECT_NE(msg.find("-3"), std::string::npos) << msg;

    EXPECT_EQ(gpusvd_sgeqrf_mgs(h, (gpusvdOrth_t)9, 2, 2, nullptr, 2, nullptr, 2, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "gpusvd_sgeqrf_mgs"));
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "orth"));
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "9"));

    EXPECT_EQ(gpusvd_dgeev_batched(h, GPUSVD_JOB_NOVEC, 3, a, 2, 9, s, s, 3, nullptr, 1, 0, 1, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "gpusvd_dgeev_batched"));
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "lda"));
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "2"));

    EXPECT_EQ(gpusvd_spca(h, 4, 3, nullptr, 4, 5, nullptr, 3, nullptr, nullptr, 4, nullptr, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "gpusvd_spca"));
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), " k "));
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "5"));

    EXPECT_EQ(gpusvd_dbdsvd(h, GPUSVD_UPPER, GPUSVD_JOB_VEC, 2, a, a, nullptr, 2, v, 2, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "gpusvd_dbdsvd"));
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "U"));
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(h), "NULL"));

    // A success clears the message.
    double d[2] = {1, 2}, e[1] = {0.5};
    EXPECT_EQ(gpusvd_dbdsvd(h, GPUSVD_UPPER, GPUSVD_JOB_NOVEC, 2, d, e, nullptr, 1, nullptr, 1, &info),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_STREQ(gpusvdGetErrorMessage(h), "");

    // NULL handle: the message is kept per thread.
    EXPECT_EQ(gpusvd_sgesvj(nullptr, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, 1, 1, nullptr, 1, nullptr,
                            nullptr, 1, nullptr, 1, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(nullptr), "gpusvd_sgesvj"));
    EXPECT_TRUE(contains(gpusvdGetErrorMessage(nullptr), "handle"));
    EXPECT_STREQ(gpusvdGetErrorMessage(h), "") << "a NULL-handle failure is not recorded on h";
}

TEST(Handle, StatusNames) {
    EXPECT_STREQ(gpusvdGetStatusName(GPUSVD_STATUS_SUCCESS), "GPUSVD_STATUS_SUCCESS");
    EXPECT_STREQ(gpusvdGetStatusName(GPUSVD_STATUS_INVALID_VALUE), "GPUSVD_STATUS_INVALID_VALUE");
    EXPECT_STREQ(gpusvdGetStatusName(GPUSVD_STATUS_ALLOC_FAILED), "GPUSVD_STATUS_ALLOC_FAILED");
    EXPECT_STREQ(gpusvdGetStatusName(GPUSVD_STATUS_NO_DEVICE), "GPUSVD_STATUS_NO_DEVICE");
    EXPECT_STREQ(gpusvdGetStatusName(GPUSVD_STATUS_NOT_SUPPORTED), "GPUSVD_STATUS_NOT_SUPPORTED");
    EXPECT_STREQ(gpusvdGetStatusName(GPUSVD_STATUS_EXECUTION_FAILED),
                 "GPUSVD_STATUS_EXECUTION_FAILED");
    EXPECT_STREQ(gpusvdGetStatusName(GPUSVD_STATUS_INTERNAL_ERROR), "GPUSVD_STATUS_INTERNAL_ERROR");
    EXPECT_STREQ(gpusvdGetStatusName((gpusvdStatus_t)99), "GPUSVD_STATUS_UNKNOWN");
    EXPECT_STREQ(gpusvdGetStatusName((gpusvdStatus_t)-1), "GPUSVD_STATUS_UNKNOWN");
}

TEST(Handle, Version) {
    EXPECT_EQ(gpusvdGetVersion(), GPUSVD_VERSION);
    EXPECT_EQ(GPUSVD_VERSION,
              GPUSVD_VERSION_MAJOR * 10000 + GPUSVD_VERSION_MINOR * 100 + GPUSVD_VERSION_PATCH);
    const std::string expect = std::to_string(GPUSVD_VERSION_MAJOR) + "." +
                               std::to_string(GPUSVD_VERSION_MINOR) + "." +
                               std::to_string(GPUSVD_VERSION_PATCH);
    EXPECT_EQ(std::string(gpusvdGetVersionString()), expect);
}

TEST(Handle, BuildInfo) {
    const char *info = gpusvdGetBuildInfo();
    ASSERT_NE(info, nullptr);
    EXPECT_GT(std::strlen(info), 10u);
    EXPECT_TRUE(contains(info, gpusvdGetVersionString())) << info;
    EXPECT_EQ(std::string(info).find('\n'), std::string::npos) << "one line";
    EXPECT_EQ(gpusvdGetBuildInfo(), info) << "stable pointer";
}

}  // namespace

// The device a handle belongs to: the current one at creation when a GPU is usable (checked
// against the CUDA runtime in test_gpu_devices), else NO_DEVICE with nothing written.
TEST(Handle, Device) {
    Handle h;
    int dev = -7;
    const gpusvdStatus_t st = gpusvdGetDevice(h, &dev);
    Handle probe;
    if (gpusvdSetBackend(probe, GPUSVD_BACKEND_GPU) == GPUSVD_STATUS_SUCCESS) {
        EXPECT_EQ(st, GPUSVD_STATUS_SUCCESS) << gpusvdGetErrorMessage(h);
        EXPECT_GE(dev, 0);
    } else {
        EXPECT_EQ(st, GPUSVD_STATUS_NO_DEVICE);
        EXPECT_EQ(dev, -7) << "nothing written";
        EXPECT_NE(std::string(gpusvdGetErrorMessage(h)).find("gpusvdGetDevice"),
                  std::string::npos);
    }
    EXPECT_EQ(gpusvdGetDevice(h, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdGetDevice(nullptr, &dev), GPUSVD_STATUS_INVALID_VALUE);
}

// gpusvdSetDevices / gpusvdGetDevices: argument checks everywhere; without a GPU any device list
// is NO_DEVICE (the split itself is tested on the device in test_gpu_devices).
TEST(Handle, Devices) {
    Handle h;
    const int ids[2] = {0, 0};
    EXPECT_EQ(gpusvdSetDevices(h, -1, ids), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdSetDevices(h, 65, ids), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdSetDevices(h, 1, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdSetDevices(nullptr, 0, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    int got[4] = {-5, -5, -5, -5}, count = -5;
    EXPECT_EQ(gpusvdGetDevices(h, 4, nullptr, &count), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdGetDevices(h, 4, got, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdGetDevices(h, -1, got, &count), GPUSVD_STATUS_INVALID_VALUE);
    Handle probe;
    if (gpusvdSetBackend(probe, GPUSVD_BACKEND_GPU) != GPUSVD_STATUS_SUCCESS) {
        EXPECT_EQ(gpusvdSetDevices(h, 1, ids), GPUSVD_STATUS_NO_DEVICE);
        EXPECT_EQ(gpusvdGetDevices(h, 4, got, &count), GPUSVD_STATUS_NO_DEVICE);
        EXPECT_EQ(count, -5) << "nothing written";
        GPUSVD_EXPECT_OK(h, gpusvdSetDevices(h, 0, nullptr));  // the default: accepted anywhere
        return;
    }
    int own = -1;
    GPUSVD_ASSERT_OK(h, gpusvdGetDevice(h, &own));
    GPUSVD_ASSERT_OK(h, gpusvdGetDevices(h, 4, got, &count));
    EXPECT_EQ(count, 1);
    EXPECT_EQ(got[0], own);
    const int twice[2] = {own, own};
    EXPECT_EQ(gpusvdSetDevices(h, 2, twice), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_NE(std::string(gpusvdGetErrorMessage(h)).find("repeats"), std::string::npos);
    const int bad[1] = {1000};
    EXPECT_EQ(gpusvdSetDevices(h, 1, bad), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_NE(std::string(gpusvdGetErrorMessage(h)).find("ids[0] = 1000"), std::string::npos);
    GPUSVD_ASSERT_OK(h, gpusvdGetDevices(h, 4, got, &count));
    EXPECT_EQ(count, 1) << "a refused list changes nothing";
}
