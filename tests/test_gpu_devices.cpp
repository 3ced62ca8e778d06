// Handles and devices: a handle belongs to the device current at its creation; its calls run
// there whatever device is current and leave the caller's current device as it was; a `_gpu`
// form given memory its device cannot reach answers INVALID_VALUE naming the argument and both
// devices, changing nothing. The tests of two devices skip on a machine with one. Device only.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cuda_rt.hpp"
#include "test_common.hpp"

using namespace gpusvd_test;

namespace {

class DevicesTest : public ::testing::Test {
protected:
    void SetUp() override {
        Handle probe;
        if (gpusvdSetBackend(probe, GPUSVD_BACKEND_GPU) == GPUSVD_STATUS_NO_DEVICE)
            GTEST_SKIP() << "no usable GPU";
        if (gpu_as_cpu()) GTEST_SKIP() << "devices need a real GPU";
        rt = CudaRt::open(false);
        ASSERT_TRUE(rt->ok() && rt->get_device_ && rt->set_device_ && rt->device_count_ &&
                    rt->device_attribute_);
        ASSERT_EQ(rt->device_count_(&count), 0);
        ASSERT_EQ(rt->get_device_(&start), 0);
    }
    void TearDown() override {
        if (rt && rt->set_device_) rt->set_device_(start);
    }
    int current() const {
        int d = -1;
        EXPECT_EQ(rt->get_device_(&d), 0);
        return d;
    }
    /// A tall QR on device memory of the current device: status, and R(0,0) against LAPACK's.
    gpusvdStatus_t qr_on_current(gpusvdHandle_t h, const std::vector<double> &A, int64_t m,
                                 int64_t n, double *r00) {
        DevBuf dA(*rt, A.data(), A.size() * 8), dR(*rt, sz(n * n) * 8), info(*rt, sizeof(int));
        EXPECT_EQ(rt->sync_(), 0);
        const gpusvdStatus_t st = gpusvd_dgeqrf_mgs_gpu(h, GPUSVD_ORTH_MGS2, m, n, dA.as<double>(),
                                                        m, dR.as<double>(), n, info.as<int>());
        EXPECT_EQ(rt->sync_(), 0);
        std::vector<double> R(sz(n * n));
        EXPECT_TRUE(dR.to_host(R.data()));
        *r00 = R[0];
        return st;
    }
    std::unique_ptr<CudaRt> rt;
    int count = 0, start = 0;
};

TEST_F(DevicesTest, HandleBelongsToTheCurrentDevice) {
    Handle h;
    int dev = -1;
    GPUSVD_ASSERT_OK(h, gpusvdGetDevice(h, &dev));
    EXPECT_EQ(dev, start);
    EXPECT_EQ(gpusvdGetDevice(h, nullptr), GPUSVD_STATUS_INVALID_VALUE);
}

// Ordinary host memory passed to a `_gpu` form: refused before anything runs (unless the device
// reaches pageable memory, as with HMM, where it is valid).
TEST_F(DevicesTest, HostMemoryInDeviceFormIsRefused) {
    int pageable = 0;
    ASSERT_EQ(rt->device_attribute_(&pageable, CudaRt::kAttrPageableMemoryAccess, start), 0);
    if (pageable) GTEST_SKIP() << "this device reaches pageable host memory";
    Handle h;
    ASSERT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_GPU), GPUSVD_STATUS_SUCCESS);
    const int64_t m = 300, n = 8;
    std::vector<double> A(sz(m * n), 1.5), A0 = A;
    DevBuf dR(*rt, sz(n * n) * 8), info(*rt, sizeof(int));
    ASSERT_EQ(rt->memset_(info.p, 0x7f, sizeof(int)), 0);
    EXPECT_EQ(gpusvd_dgeqrf_mgs_gpu(h, GPUSVD_ORTH_MGS2, m, n, A.data(), m, dR.as<double>(), n,
                                    info.as<int>()),
              GPUSVD_STATUS_INVALID_VALUE);
    const std::string msg = gpusvdGetErrorMessage(h);
    EXPECT_NE(msg.find("argument A"), std::string::npos) << msg;
    EXPECT_NE(msg.find("host memory"), std::string::npos) << msg;
    EXPECT_EQ(A, A0);
    int hinfo = 0;
    ASSERT_TRUE(info.to_host(&hinfo));
    EXPECT_EQ(hinfo, 0x7f7f7f7f) << "info untouched";
}

TEST_F(DevicesTest, CallsRunOnTheHandlesDeviceAndRestoreTheCurrentOne) {
    if (count < 2) GTEST_SKIP() << "needs two devices (" << count << " here)";
    const int64_t m = 20000, n = 16;
    Rng rng(3);
    const std::vector<double> A = gaussian<double>(rng, m, n);
    std::vector<double> Ac = A, Rref(sz(n * n));
    {
        Handle c;
        ASSERT_EQ(gpusvdSetBackend(c, GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS);
        int info = -1;
        GPUSVD_ASSERT_OK(c, gpusvd_dgeqrf_mgs(c, GPUSVD_ORTH_MGS2, m, n, Ac.data(), m,
                                              Rref.data(), n, &info));
    }
    ASSERT_EQ(rt->set_device_(0), 0);
    Handle h0;  // belongs to device 0
    ASSERT_EQ(rt->set_device_(1), 0);
    Handle h1;  // belongs to device 1
    int d0 = -1, d1 = -1;
    GPUSVD_ASSERT_OK(h0, gpusvdGetDevice(h0, &d0));
    GPUSVD_ASSERT_OK(h1, gpusvdGetDevice(h1, &d1));
    EXPECT_EQ(d0, 0);
    EXPECT_EQ(d1, 1);
    ASSERT_EQ(gpusvdSetBackend(h0, GPUSVD_BACKEND_GPU), GPUSVD_STATUS_SUCCESS);
    ASSERT_EQ(gpusvdSetBackend(h1, GPUSVD_BACKEND_GPU), GPUSVD_STATUS_SUCCESS);

    // Device 1 current, its memory, device 0's handle: refused, naming both devices.
    double r00 = 0;
    EXPECT_EQ(qr_on_current(h0, A, m, n, &r00), GPUSVD_STATUS_INVALID_VALUE);
    const std::string msg = gpusvdGetErrorMessage(h0);
    EXPECT_NE(msg.find("device 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("device 0"), std::string::npos) << msg;
    EXPECT_EQ(current(), 1);
    // Device 1's handle on device 1's memory with device 0 current: runs, device 0 stays.
    DevBuf dA(*rt, A.data(), A.size() * 8), dR(*rt, sz(n * n) * 8), info(*rt, sizeof(int));
    ASSERT_EQ(rt->sync_(), 0);
    ASSERT_EQ(rt->set_device_(0), 0);
    GPUSVD_EXPECT_OK(h1, gpusvd_dgeqrf_mgs_gpu(h1, GPUSVD_ORTH_MGS2, m, n, dA.as<double>(), m,
                                               dR.as<double>(), n, info.as<int>()));
    EXPECT_EQ(current(), 0);
    ASSERT_EQ(rt->set_device_(1), 0);
    ASSERT_EQ(rt->sync_(), 0);
    std::vector<double> R(sz(n * n));
    ASSERT_TRUE(dR.to_host(R.data()));
    EXPECT_NEAR(R[0], Rref[0], 1e-12 * std::fabs(Rref[0]));
    // Host forms: device 1 current, device 0's handle; the current device is kept.
    std::vector<double> Ah = A, Rh(sz(n * n));
    int hinfo = -1;
    GPUSVD_EXPECT_OK(h0, gpusvd_dgeqrf_mgs(h0, GPUSVD_ORTH_MGS2, m, n, Ah.data(), m, Rh.data(), n,
                                           &hinfo));
    EXPECT_EQ(current(), 1);
    EXPECT_EQ(hinfo, 0);
    for (int64_t j = 0; j < n; ++j)
        EXPECT_NEAR(Rh[sz(j + j * n)], Rref[sz(j + j * n)], 1e-12 * std::fabs(Rref[0]));
}

TEST_F(DevicesTest, StreamOfAnotherDeviceIsRefused) {
    if (count < 2) GTEST_SKIP() << "needs two devices (" << count << " here)";
    ASSERT_EQ(rt->set_device_(1), 0);
    void *s1 = nullptr;
    ASSERT_EQ(rt->stream_create_(&s1, CudaRt::kNonBlocking), 0);
    ASSERT_EQ(rt->set_device_(0), 0);
    Handle h0;
    GPUSVD_ASSERT_OK(h0, gpusvdSetStream(h0, s1));
    const int64_t m = 300, n = 8;
    const std::vector<double> A(sz(m * n), 1.0);
    DevBuf dA(*rt, A.data(), A.size() * 8), dR(*rt, sz(n * n) * 8), info(*rt, sizeof(int));
    ASSERT_EQ(rt->memset_(info.p, 0x7f, sizeof(int)), 0);
    EXPECT_EQ(gpusvd_dgeqrf_mgs_gpu(h0, GPUSVD_ORTH_MGS2, m, n, dA.as<double>(), m,
                                    dR.as<double>(), n, info.as<int>()),
              GPUSVD_STATUS_INVALID_VALUE);
    const std::string msg = gpusvdGetErrorMessage(h0);
    EXPECT_NE(msg.find("belongs to device 1"), std::string::npos) << msg;
    int hinfo = 0;
    ASSERT_TRUE(info.to_host(&hinfo));
    EXPECT_EQ(hinfo, 0x7f7f7f7f) << "info untouched";
    gpusvdSetStream(h0, nullptr);
    rt->stream_destroy_(s1);
}

// The batched host forms split over every device give exactly the one-device results (each
// matrix is computed the same way), info included, for an uneven batch.
TEST_F(DevicesTest, BatchSplitOverDevicesMatchesOneDevice) {
    std::vector<int> ids(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) ids[size_t(i)] = count - 1 - i;  // the handle's device last
    const int64_t n = 24, batch = 1001;
    Rng rng(5);
    std::vector<double> A = gaussian<double>(rng, n, n * batch);
    for (int64_t i = 0; i < n; ++i) A[sz(i + 7 * n + (batch / 2) * n * n)] = 0.0;  // a zero column
    A[sz(3 + (batch - 1) * n * n)] = std::nan("");                              // the last: NaN
    Handle one, many;
    ASSERT_EQ(gpusvdSetBackend(one, GPUSVD_BACKEND_GPU), GPUSVD_STATUS_SUCCESS);
    ASSERT_EQ(gpusvdSetBackend(many, GPUSVD_BACKEND_GPU), GPUSVD_STATUS_SUCCESS);
    GPUSVD_ASSERT_OK(many, gpusvdSetDevices(many, count, ids.data()));
    int got = 0;
    std::vector<int> listed(ids.size());
    GPUSVD_ASSERT_OK(many, gpusvdGetDevices(many, count, listed.data(), &got));
    EXPECT_EQ(got, count);
    EXPECT_EQ(listed, ids);
    auto svd = [&](gpusvdHandle_t h, std::vector<double> *S, std::vector<double> *U,
                   std::vector<int> *info, int *sweeps) {
        std::vector<double> W = A, V(A.size());
        S->assign(sz(n * batch), 0.0), U->assign(A.size(), 0.0), info->assign(sz(batch), -9);
        GPUSVD_EXPECT_OK(h, gpusvd_dgesvj_batched(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, n, n, W.data(),
                                                  n, n * n, S->data(), n, U->data(), n, n * n,
                                                  V.data(), n, n * n, batch, info->data()));
        double off = 0;
        GPUSVD_EXPECT_OK(h, gpusvdGetJacobiStats(h, sweeps, &off));
    };
    std::vector<double> S1, U1, S2, U2;
    std::vector<int> i1, i2;
    int sw1 = -1, sw2 = -2;
    svd(one, &S1, &U1, &i1, &sw1);
    svd(many, &S2, &U2, &i2, &sw2);
    EXPECT_EQ(i1, i2);
    EXPECT_EQ(i1.back(), GPUSVD_INFO_NONFINITE);
    EXPECT_EQ(sw1, sw2) << "the largest sweep count over the devices";
    EXPECT_EQ(0, std::memcmp(S1.data(), S2.data(), S1.size() * 8)) << "S bitwise";
    EXPECT_EQ(0, std::memcmp(U1.data(), U2.data(), U1.size() * 8)) << "U bitwise";

    auto eig = [&](gpusvdHandle_t h, std::vector<double> *w, std::vector<int> *info) {
        std::vector<double> W = A, wi(sz(n * batch)), VR(A.size());
        w->assign(sz(2 * n * batch), 0.0), info->assign(sz(batch), -9);
        GPUSVD_EXPECT_OK(h, gpusvd_dgeev_batched(h, GPUSVD_JOB_VEC, n, W.data(), n, n * n,
                                                 w->data(), wi.data(), n, VR.data(), n, n * n,
                                                 batch, info->data()));
        std::copy(wi.begin(), wi.end(), w->begin() + n * batch);
        w->insert(w->end(), VR.begin(), VR.end());
    };
    std::vector<double> e1, e2;
    eig(one, &e1, &i1);
    eig(many, &e2, &i2);
    EXPECT_EQ(i1, i2);
    EXPECT_EQ(0, std::memcmp(e1.data(), e2.data(), e1.size() * 8)) << "eigenvalues and vectors";

    auto qr = [&](gpusvdHandle_t h, std::vector<double> *Q, std::vector<int> *info) {
        *Q = A;
        std::vector<double> R(A.size());
        info->assign(sz(batch), -9);
        GPUSVD_EXPECT_OK(h, gpusvd_dgeqrf_mgs_batched(h, GPUSVD_ORTH_MGS2, n, n, Q->data(), n,
                                                      n * n, R.data(), n, n * n, batch,
                                                      info->data()));
        Q->insert(Q->end(), R.begin(), R.end());
    };
    std::vector<double> q1, q2;
    qr(one, &q1, &i1);
    qr(many, &q2, &i2);
    EXPECT_EQ(i1, i2);
    EXPECT_EQ(0, std::memcmp(q1.data(), q2.data(), q1.size() * 8)) << "Q and R";
    // Back to one device.
    GPUSVD_ASSERT_OK(many, gpusvdSetDevices(many, 0, nullptr));
    GPUSVD_ASSERT_OK(many, gpusvdGetDevices(many, count, listed.data(), &got));
    EXPECT_EQ(got, 1);
}

// A device's part is computed as the whole call would be: 100 SVDs of 32x32 split over the
// devices leave each part fewer than the 64 matrices below which a call of its own would take
// wider pair teams (other rounding); the split must still give the one-device bits.
TEST_F(DevicesTest, SmallPartsKeepTheWholeCallsKernels) {
    if (count < 2) GTEST_SKIP() << "one device";
    std::vector<int> ids(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) ids[size_t(i)] = i;
    const int64_t n = 32, batch = 100;
    Rng rng(17);
    const std::vector<double> A = gaussian<double>(rng, n, n * batch);
    Handle one, many;
    ASSERT_EQ(gpusvdSetBackend(one, GPUSVD_BACKEND_GPU), GPUSVD_STATUS_SUCCESS);
    ASSERT_EQ(gpusvdSetBackend(many, GPUSVD_BACKEND_GPU), GPUSVD_STATUS_SUCCESS);
    GPUSVD_ASSERT_OK(many, gpusvdSetDevices(many, count, ids.data()));
    auto svd = [&](gpusvdHandle_t h, std::vector<double> *S, std::vector<double> *U) {
        std::vector<double> W = A, V(A.size());
        std::vector<int> info(sz(batch), -9);
        S->assign(sz(n * batch), 0.0), U->assign(A.size(), 0.0);
        GPUSVD_EXPECT_OK(h, gpusvd_dgesvj_batched(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, n, n, W.data(),
                                                  n, n * n, S->data(), n, U->data(), n, n * n,
                                                  V.data(), n, n * n, batch, info.data()));
    };
    std::vector<double> S1, U1, S2, U2;
    svd(one, &S1, &U1);
    svd(many, &S2, &U2);
    EXPECT_EQ(0, std::memcmp(S1.data(), S2.data(), S1.size() * 8)) << "S bitwise";
    EXPECT_EQ(0, std::memcmp(U1.data(), U2.data(), U1.size() * 8)) << "U bitwise";
}

// Host arrays in page-locked memory (cudaHostRegister here; cudaHostAlloc, CuPy's or torch's
// pinned memory alike) are DMA'd chunk by chunk straight to and from the device instead of
// through the staging copy: the same bits as pageable arrays, for a contiguous batch and a pitched
// one (ld > rows), over several chunks.
TEST_F(DevicesTest, PageLockedHostArraysMatchPageable) {
    ASSERT_TRUE(rt->host_register_ && rt->host_unregister_);
    Handle h;
    ASSERT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_GPU), GPUSVD_STATUS_SUCCESS);
    {  // eigenvalues of 12000 30x30 matrices: several 32 MB chunks
        const int64_t n = 30, batch = 12000;
        Rng rng(3);
        const std::vector<double> A = gaussian<double>(rng, n, n * batch);
        auto eig = [&](bool lock, std::vector<double> *w, std::vector<int> *info) {
            std::vector<double> W = A;
            w->assign(sz(2 * n * batch), 0.0), info->assign(sz(batch), -9);
            if (lock) {
                ASSERT_EQ(rt->host_register_(W.data(), W.size() * 8, 0), 0);
                ASSERT_EQ(rt->host_register_(w->data(), w->size() * 8, 0), 0);
            }
            GPUSVD_EXPECT_OK(h, gpusvd_dgeev_batched(h, GPUSVD_JOB_NOVEC, n, W.data(), n, n * n,
                                                     w->data(), w->data() + n * batch, n, nullptr,
                                                     1, 1, batch, info->data()));
            if (lock) {
                EXPECT_EQ(rt->host_unregister_(W.data()), 0);
                EXPECT_EQ(rt->host_unregister_(w->data()), 0);
            }
        };
        std::vector<double> w1, w2;
        std::vector<int> i1, i2;
        eig(false, &w1, &i1);
        eig(true, &w2, &i2);
        EXPECT_EQ(i1, i2);
        EXPECT_EQ(0, std::memcmp(w1.data(), w2.data(), w1.size() * 8)) << "eigenvalues bitwise";
    }
    {  // SVDs of 9000 20x16 matrices in a pitched layout (lda = ldu = 23), U and V page-locked
        const int64_t m = 20, n = 16, ld = 23, batch = 9000;
        Rng rng(4);
        const std::vector<double> A = gaussian<double>(rng, ld, n * batch);
        auto svd = [&](bool lock, std::vector<double> *S, std::vector<double> *U,
                       std::vector<double> *V) {
            std::vector<double> W = A;
            std::vector<int> info(sz(batch), -9);
            S->assign(sz(n * batch), 0.0), U->assign(sz(ld * n * batch), 0.0);
            V->assign(sz(n * n * batch), 0.0);
            if (lock) {
                for (std::vector<double> *v : {&W, U, V})
                    ASSERT_EQ(rt->host_register_(v->data(), v->size() * 8, 0), 0);
            }
            GPUSVD_EXPECT_OK(h, gpusvd_dgesvj_batched(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n,
                                                      W.data(), ld, ld * n, S->data(), n,
                                                      U->data(), ld, ld * n, V->data(), n, n * n,
                                                      batch, info.data()));
            if (lock) {
                for (std::vector<double> *v : {&W, U, V})
                    EXPECT_EQ(rt->host_unregister_(v->data()), 0);
            }
            EXPECT_TRUE(std::all_of(info.begin(), info.end(), [](int i) { return i == 0; }));
        };
        std::vector<double> S1, U1, V1, S2, U2, V2;
        svd(false, &S1, &U1, &V1);
        svd(true, &S2, &U2, &V2);
        EXPECT_EQ(0, std::memcmp(S1.data(), S2.data(), S1.size() * 8)) << "S bitwise";
        EXPECT_EQ(0, std::memcmp(U1.data(), U2.data(), U1.size() * 8)) << "U bitwise";
        EXPECT_EQ(0, std::memcmp(V1.data(), V2.data(), V1.size() * 8)) << "V bitwise";
    }
}

}  // namespace
