// Numerics across the whole floating-point range on the GPU backend (label `gpu`): the checks of
// test_range (tests/range_checks.hpp) on the same edge-of-range matrices, plus shapes that take
// the GPU backend's other paths (tall QR, blocked Jacobi, larger teams). Every test puts its
// handle on GPUSVD_BACKEND_GPU and skips without a usable GPU; GPUSVD_TEST_GPU_AS_CPU=1 runs the
// checks on the CPU backend instead, to check the tests themselves.
#include "range_checks.hpp"

using namespace gpusvd_test;

namespace {

template <typename T>
class GpuRangeTest : public DeviceTest<T> {};
TYPED_TEST_SUITE(GpuRangeTest, Precisions, PrecisionName);

}  // namespace

TYPED_TEST(GpuRangeTest, Gesvj) {
    for (const auto &p : range::svd_problems<TypeParam>(true)) range::check_gesvj(this->h, p);
}

TYPED_TEST(GpuRangeTest, GesvjBatched) {
    for (const auto &p : range::svd_problems<TypeParam>(false))
        range::check_gesvj_batched(this->h, p);
}

TYPED_TEST(GpuRangeTest, GeqrfMgs) {
    for (const auto &p : range::qr_problems<TypeParam>(true)) range::check_geqrf(this->h, p);
}

TYPED_TEST(GpuRangeTest, GeqrfMgsBatched) {
    for (const auto &p : range::qr_problems<TypeParam>(false))
        range::check_geqrf_batched(this->h, p);
}

TYPED_TEST(GpuRangeTest, GeevBatched) {
    for (const auto &p : range::eig_problems<TypeParam>(true)) range::check_geev(this->h, p);
}

TYPED_TEST(GpuRangeTest, Bdsvd) {
    for (const auto &p : range::bidiag_problems<TypeParam>(true)) range::check_bdsvd(this->h, p);
}

TYPED_TEST(GpuRangeTest, Pca) {  // samples >= features: the GPU backend's PCA, both methods
    for (gpusvdPcaMethod_t method : {GPUSVD_PCA_QR, GPUSVD_PCA_COVARIANCE}) {
        GPUSVD_ASSERT_OK(this->h, gpusvdSetPcaMethod(this->h, method));
        range::check_pca<TypeParam>(this->h, 40, 6, 3, 5.0, 7201);
        range::check_pca<TypeParam>(this->h, 30, 30, 5, 5.0, 7202);
        range::check_pca<TypeParam>(this->h, 400, 5, 5, 0.0, 7204);
        range::check_pca<TypeParam>(this->h, 2000, 20, 5, 5.0, 7205);
    }
}

TYPED_TEST(GpuRangeTest, RegressionPcaNearOverflow) {
    for (gpusvdPcaMethod_t method : {GPUSVD_PCA_QR, GPUSVD_PCA_COVARIANCE}) {
        GPUSVD_ASSERT_OK(this->h, gpusvdSetPcaMethod(this->h, method));
        range::regression_pca_near_overflow<TypeParam>(this->h);
    }
}

TYPED_TEST(GpuRangeTest, RegressionQrNearOverflow) {
    range::regression_qr_near_overflow<TypeParam>(this->h);
}

TYPED_TEST(GpuRangeTest, RegressionQrSubnormal) {
    range::regression_qr_subnormal<TypeParam>(this->h);
}

TYPED_TEST(GpuRangeTest, RegressionBdsvdSubnormal) {
    range::regression_bdsvd_subnormal<TypeParam>(this->h);
}
