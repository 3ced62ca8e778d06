// Numerics across the whole floating-point range on the CPU backend: every routine, s and d, on
// generator matrices scaled by powers of two from near overflow to all-subnormal entries, and the
// inputs of the range bugs found in this backend (tests/range_checks.hpp describes the checks;
// test_gpu_range runs the same ones on the GPU backend).
#include "range_checks.hpp"

using namespace gpusvd_test;

namespace {

template <typename T>
class RangeTest : public ::testing::Test {
protected:
    void SetUp() override { GPUSVD_ASSERT_OK(h, gpusvdSetBackend(h, GPUSVD_BACKEND_CPU)); }
    Handle h;
};
TYPED_TEST_SUITE(RangeTest, Precisions, PrecisionName);

}  // namespace

TYPED_TEST(RangeTest, Gesvj) {
    for (const auto &p : range::svd_problems<TypeParam>(false)) range::check_gesvj(this->h, p);
}

TYPED_TEST(RangeTest, GesvjBatched) {
    for (const auto &p : range::svd_problems<TypeParam>(false))
        range::check_gesvj_batched(this->h, p);
}

TYPED_TEST(RangeTest, GeqrfMgs) {
    for (const auto &p : range::qr_problems<TypeParam>(false)) range::check_geqrf(this->h, p);
}

TYPED_TEST(RangeTest, GeqrfMgsBatched) {
    for (const auto &p : range::qr_problems<TypeParam>(false))
        range::check_geqrf_batched(this->h, p);
}

TYPED_TEST(RangeTest, GeevBatched) {
    for (const auto &p : range::eig_problems<TypeParam>(false)) range::check_geev(this->h, p);
}

TYPED_TEST(RangeTest, Bdsvd) {
    for (const auto &p : range::bidiag_problems<TypeParam>(false)) range::check_bdsvd(this->h, p);
}

TYPED_TEST(RangeTest, Pca) {
    for (gpusvdPcaMethod_t method : {GPUSVD_PCA_QR, GPUSVD_PCA_COVARIANCE}) {
        GPUSVD_ASSERT_OK(this->h, gpusvdSetPcaMethod(this->h, method));
        range::check_pca<TypeParam>(this->h, 40, 6, 3, 5.0, 7201);
        range::check_pca<TypeParam>(this->h, 30, 30, 5, 5.0, 7202);
        range::check_pca<TypeParam>(this->h, 400, 5, 5, 0.0, 7204);
        range::check_pca<TypeParam>(this->h, 12, 20, 4, 5.0, 7203);  // wide: backend CPU only
        range::check_pca<TypeParam>(this->h, 3000, 40, 4, 5.0, 7205);  // row blocks, threads
    }
}

TYPED_TEST(RangeTest, RegressionPcaNearOverflow) {
    for (gpusvdPcaMethod_t method : {GPUSVD_PCA_QR, GPUSVD_PCA_COVARIANCE}) {
        GPUSVD_ASSERT_OK(this->h, gpusvdSetPcaMethod(this->h, method));
        range::regression_pca_near_overflow<TypeParam>(this->h);
    }
}

TYPED_TEST(RangeTest, RegressionQrNearOverflow) {
    range::regression_qr_near_overflow<TypeParam>(this->h);
}

TYPED_TEST(RangeTest, RegressionQrSubnormal) {
    range::regression_qr_subnormal<TypeParam>(this->h);
}

TYPED_TEST(RangeTest, RegressionBdsvdSubnormal) {
    range::regression_bdsvd_subnormal<TypeParam>(this->h);
}
