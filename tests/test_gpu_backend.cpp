// Backend GPU and the `_gpu` (device-memory) forms. Label `gpu`.
//
// Without a usable device (CI): SetBackend(GPU) and every `_gpu` form return NO_DEVICE and change
// nothing; this is asserted, not skipped. With a device: the parts that need one run; until a
// routine has GPU kernels its `_gpu` form and its host form on backend GPU return NOT_SUPPORTED
// (never a silent CPU fallback). When a kernel lands, flip its entry in kHasGpuKernel below and
// extend the device checks with results compared against the CPU backend.
#include "cuda_rt.hpp"
#include "test_common.hpp"

using namespace gpusvd_test;

namespace {

// Which routines have GPU kernels in this version (all of them).
struct KernelTable {
    bool gesvj = true, gesvj_batched = true, geqrf_mgs = true, geqrf_mgs_batched = true,
         geev_batched = true, bdsvd = true, pca = true;
};
constexpr KernelTable kHasGpuKernel{};

struct FormResult {
    const char *name;
    gpusvdStatus_t status;
    std::string message;  // gpusvdGetErrorMessage right after the call
};

/// Calls every `_gpu` form once with valid arguments on the given arrays (host or device
/// pointers) and returns the statuses in a fixed order.
template <typename T>
std::vector<FormResult> call_all_gpu_forms(gpusvdHandle_t h, T *A, T *B, T *C, T *D, int *info) {
    // A: 64 elements, B: 64, C: 64, D: 64; info: 4 ints. m = 6, n = 4, batch = 2.
    const auto V = GPUSVD_JOB_VEC;
    std::vector<FormResult> out;
    struct Recorder {
        gpusvdHandle_t h;
        std::vector<FormResult> &out;
        void emplace_back(const char *name, gpusvdStatus_t st) {
            out.push_back(FormResult{name, st, gpusvdGetErrorMessage(h)});
        }
    } rec{h, out};
    rec.emplace_back("gesvj_gpu", Api<T>::gesvj_gpu(h, V, V, 6, 4, A, 6, B, C, 6, D, 4, info));
    rec.emplace_back("gesvj_batched_gpu",
                     Api<T>::gesvj_batched_gpu(h, V, V, 6, 4, A, 6, 24, B, 4, C, 6, 24, D, 4, 16,
                                               2, info));
    rec.emplace_back("geqrf_mgs_gpu",
                     Api<T>::geqrf_mgs_gpu(h, GPUSVD_ORTH_MGS2, 6, 4, A, 6, B, 4, info));
    rec.emplace_back("geqrf_mgs_batched_gpu",
                     Api<T>::geqrf_mgs_batched_gpu(h, GPUSVD_ORTH_MGS, 6, 4, A, 6, 24, B, 4, 16, 2,
                                                   info));
    rec.emplace_back("geev_batched_gpu", Api<T>::geev_batched_gpu(h, V, 4, A, 4, 16, B, C, 4, D, 4,
                                                                  16, 2, info));
    rec.emplace_back("bdsvd_gpu",
                     Api<T>::bdsvd_gpu(h, GPUSVD_UPPER, V, 4, A, B, C, 4, D, 4, info));
    rec.emplace_back("pca_gpu", Api<T>::pca_gpu(h, 6, 4, A, 6, 2, B, 4, C, D, 6, D + 32, info));
    return out;
}

bool has_kernel(const std::string &name) {
    if (name == "gesvj_gpu") return kHasGpuKernel.gesvj;
    if (name == "gesvj_batched_gpu") return kHasGpuKernel.gesvj_batched;
    if (name == "geqrf_mgs_gpu") return kHasGpuKernel.geqrf_mgs;
    if (name == "geqrf_mgs_batched_gpu") return kHasGpuKernel.geqrf_mgs_batched;
    if (name == "geev_batched_gpu") return kHasGpuKernel.geev_batched;
    if (name == "bdsvd_gpu") return kHasGpuKernel.bdsvd;
    if (name == "pca_gpu") return kHasGpuKernel.pca;
    return false;
}

template <typename T>
class GpuBackendTest : public ::testing::Test {
protected:
    Handle h;
};
TYPED_TEST_SUITE(GpuBackendTest, Precisions, PrecisionName);

TYPED_TEST(GpuBackendTest, WithoutDeviceEverythingSaysNoDevice) {
    using T = TypeParam;
    if (device_present()) GTEST_SKIP() << "a usable GPU is present (covered by the device tests)";
    gpusvdHandle_t h = this->h;

    // SetBackend(GPU): NO_DEVICE, setting unchanged, message says why.
    EXPECT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_GPU), GPUSVD_STATUS_NO_DEVICE);
    EXPECT_NE(std::string(gpusvdGetErrorMessage(h)).find("gpusvdSetBackend"), std::string::npos);
    gpusvdBackend_t b = GPUSVD_BACKEND_GPU;
    ASSERT_EQ(gpusvdGetBackend(h, &b), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(b, GPUSVD_BACKEND_CPU);

    // Every _gpu form: NO_DEVICE, nothing written (host arrays stand in for device memory; they
    // must not be touched).
    std::vector<T> A = sentinels<T>(64), B = sentinels<T>(64), C = sentinels<T>(64),
                   D = sentinels<T>(64);
    std::vector<int> info(4, -777);
    for (const auto &r : call_all_gpu_forms<T>(h, A.data(), B.data(), C.data(), D.data(),
                                               info.data())) {
        EXPECT_EQ(r.status, GPUSVD_STATUS_NO_DEVICE) << r.name;
        EXPECT_NE(r.message.find(r.name), std::string::npos)
            << "message names the routine: " << r.message;
    }
    for (const auto *v : {&A, &B, &C, &D}) EXPECT_TRUE(all_equal(*v, sentinel<T>()));
    for (int i : info) EXPECT_EQ(i, -777);

    // The device requirement holds for zero-size problems too (valid arguments, no GPU).
    int info1 = -777;
    EXPECT_EQ(Api<T>::gesvj_gpu(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, 0, 0, nullptr, 1, nullptr,
                                nullptr, 1, nullptr, 1, &info1),
              GPUSVD_STATUS_NO_DEVICE);

    // The device form of the total-variance query too: nothing written.
    double total = -777.0;
    EXPECT_EQ(gpusvdGetPcaTotalVariance_gpu(h, &total), GPUSVD_STATUS_NO_DEVICE);
    EXPECT_NE(std::string(gpusvdGetErrorMessage(h)).find("gpusvdGetPcaTotalVariance_gpu"),
              std::string::npos)
        << gpusvdGetErrorMessage(h);
    EXPECT_EQ(total, -777.0);

    // Host forms keep working on the CPU.
    Rng rng(1);
    const std::vector<T> A0 = gaussian<T>(rng, 8, 5);
    std::vector<T> Ac = A0, S(5), U(40), Vv(25);
    int inf = -1;
    GPUSVD_ASSERT_OK(h, Api<T>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 8, 5, Ac.data(), 8,
                                      S.data(), U.data(), 8, Vv.data(), 5, &inf));
    EXPECT_EQ(inf, 0);
    EXPECT_LT(svd_residual(8, 5, A0.data(), 8, S.data(), U.data(), 8, Vv.data(), 5), 50.0);
}

TYPED_TEST(GpuBackendTest, InvalidArgumentsComeFirst) {
    // With or without a device, a bad argument to a _gpu form is INVALID_VALUE.
    using T = TypeParam;
    gpusvdHandle_t h = this->h;
    int info = 0;
    const auto V = GPUSVD_JOB_VEC;
    EXPECT_EQ(Api<T>::gesvj_gpu(h, V, V, -1, 4, nullptr, 1, nullptr, nullptr, 1, nullptr, 4, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(Api<T>::gesvj_gpu(nullptr, V, V, 2, 2, nullptr, 2, nullptr, nullptr, 2, nullptr, 2,
                                &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(Api<T>::gesvj_batched_gpu(h, V, V, 4, 4, nullptr, 4, 16, nullptr, 4, nullptr, 4, 16,
                                        nullptr, 4, 16, -1, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(Api<T>::geqrf_mgs_gpu(h, (gpusvdOrth_t)5, 4, 4, nullptr, 4, nullptr, 4, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(Api<T>::geqrf_mgs_batched_gpu(h, GPUSVD_ORTH_MGS, 4, 4, nullptr, 3, 16, nullptr, 4,
                                            16, 2, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(Api<T>::geev_batched_gpu(h, V, 4, nullptr, 4, 3, nullptr, nullptr, 4, nullptr, 4, 16,
                                       2, &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(Api<T>::bdsvd_gpu(h, (gpusvdUplo_t)3, V, 4, nullptr, nullptr, nullptr, 4, nullptr, 4,
                                &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(Api<T>::pca_gpu(h, 4, 3, nullptr, 4, 4, nullptr, 3, nullptr, nullptr, 4, nullptr,
                              &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdGetPcaTotalVariance_gpu(h, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_NE(std::string(gpusvdGetErrorMessage(h)).find("totalVariance"), std::string::npos)
        << gpusvdGetErrorMessage(h);
    double total = 0;
    EXPECT_EQ(gpusvdGetPcaTotalVariance_gpu(nullptr, &total), GPUSVD_STATUS_INVALID_VALUE);
}

TYPED_TEST(GpuBackendTest, WithDeviceFormsWithoutKernelsSayNotSupported) {
    using T = TypeParam;
    if (!device_present()) GTEST_SKIP() << "no usable GPU: " << gpusvdGetBuildInfo();
    CudaRt rt;
    if (!rt.ok()) GTEST_SKIP() << "libcudart not loadable: cannot allocate device memory here";
    gpusvdHandle_t h = this->h;
    DevBuf A(rt, 64 * sizeof(T)), B(rt, 64 * sizeof(T)), C(rt, 64 * sizeof(T)),
        D(rt, 64 * sizeof(T)), info(rt, 4 * sizeof(int));
    ASSERT_TRUE(A.p && B.p && C.p && D.p && info.p);
    for (const auto &r : call_all_gpu_forms<T>(h, A.as<T>(), B.as<T>(), C.as<T>(), D.as<T>(),
                                               info.as<int>())) {
        if (has_kernel(r.name)) {
            EXPECT_EQ(r.status, GPUSVD_STATUS_SUCCESS) << r.name << ": " << r.message;
        } else {
            EXPECT_EQ(r.status, GPUSVD_STATUS_NOT_SUPPORTED) << r.name << ": " << r.message;
        }
    }
    EXPECT_EQ(rt.sync_(), 0);
}

TYPED_TEST(GpuBackendTest, WithDeviceBackendSelection) {
    using T = TypeParam;
    if (!device_present()) GTEST_SKIP() << "no usable GPU: " << gpusvdGetBuildInfo();
    gpusvdHandle_t h = this->h;
    gpusvdBackend_t b = GPUSVD_BACKEND_CPU;
    ASSERT_EQ(gpusvdGetBackend(h, &b), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(b, GPUSVD_BACKEND_GPU) << "AUTO resolves to the GPU";
    ASSERT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_GPU), GPUSVD_STATUS_SUCCESS);

    // Host form on backend GPU: NOT_SUPPORTED while the routine has no kernel, nothing changed.
    Rng rng(2);
    const int64_t m = 8, n = 5;
    const std::vector<T> A0 = gaussian<T>(rng, m, n);
    std::vector<T> A = A0, S = sentinels<T>(n), U = sentinels<T>(m * n), V = sentinels<T>(n * n);
    int info = -777;
    const gpusvdStatus_t st = Api<T>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m,
                                            S.data(), U.data(), m, V.data(), n, &info);
    if (!kHasGpuKernel.gesvj) {
        EXPECT_EQ(st, GPUSVD_STATUS_NOT_SUPPORTED);
        EXPECT_TRUE(all_equal(S, sentinel<T>())) << "no silent CPU fallback";
        EXPECT_EQ(info, -777);
    } else {
        EXPECT_EQ(st, GPUSVD_STATUS_SUCCESS);
        EXPECT_LT(svd_residual(m, n, A0.data(), m, S.data(), U.data(), m, V.data(), n), 50.0);
    }

    // AUTO: a problem this small stays on the CPU (kAutoGpuMinBytes) and is correct.
    ASSERT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_AUTO), GPUSVD_STATUS_SUCCESS);
    A = A0;
    GPUSVD_ASSERT_OK(h, Api<T>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m,
                                      S.data(), U.data(), m, V.data(), n, &info));
    EXPECT_EQ(info, 0);
    EXPECT_LT(svd_residual(m, n, A0.data(), m, S.data(), U.data(), m, V.data(), n), 50.0);
}

}  // namespace
