// gesvj / gesvj_batched on the GPU backend (label `gpu`): the DESIGN.md SVD ratios against LAPACK
// on every matrix type of testing/matgen.hpp, shapes up to 300 x 300 (the larger ones leave the
// shared-memory kernels), all jobu/jobv combinations, high relative accuracy on graded matrices,
// mixed-difficulty batches (NaN, Inf, zero and rank-deficient matrices among good ones: info per
// matrix), a large batch, the Jacobi settings and statistics, and the `_gpu` forms on a user
// stream compared with the host forms.
//
// Every test first puts its handle on GPUSVD_BACKEND_GPU and skips when that says NO_DEVICE (CI
// has no GPU; these tests run on the device machine).
//
// GPUSVD_TEST_QUICK=1 shrinks the large batch (for compute-sanitizer runs).
//
// GPUSVD_TEST_GPU_AS_CPU=1 in the environment runs the same checks on the CPU backend, with host
// memory standing in for device memory and the host forms for the `_gpu` forms: it checks the
// tests themselves on a machine without a GPU. What only the GPU backend promises (honouring
// gpusvdSetJacobiMaxSweeps, stopping at exactly the Jacobi tolerance) is skipped or relaxed there.
#include <stdexcept>

#include "cuda_rt.hpp"
#include "svd_checks.hpp"

using namespace gpusvd_test;

namespace {

struct Shape {
    int64_t m, n;
};

// Small ones fit the shared-memory batched kernels; 128 x 128 and up take the other path.
const std::vector<Shape> kSmallShapes = {{1, 1}, {16, 16}, {32, 32}, {31, 17}, {64, 64}};
// Under GPUSVD_TEST_QUICK (compute-sanitizer) one shape per path past shared memory stays.
const std::vector<Shape> kLargerShapes =
    full_or_quick(1, 0)
        ? std::vector<Shape>{{100, 40}, {40, 100}, {128, 128}, {200, 150}, {300, 300}}
        : std::vector<Shape>{{100, 40}, {130, 121}};

/// What a matrix type promises beyond the general checks.
enum class Expect { General, Zero, Ones, Rank3 };

template <typename T>
struct Named {
    std::string name;
    std::vector<T> A;  // m x n, leading dimension m
    Expect expect = Expect::General;
};

/// A gaussian m x n matrix whose every third column (row when wide) repeats the one before.
template <typename T>
std::vector<T> with_duplicates(Rng &rng, int64_t m, int64_t n) {
    std::vector<T> A = gaussian<T>(rng, m, n);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            if (m >= n && j % 3 == 2) A[sz(i + j * m)] = A[sz(i + (j - 1) * m)];
            if (m < n && i % 3 == 2) A[sz(i + j * m)] = A[sz(i - 1 + j * m)];
        }
    return A;
}

/// One m x n matrix of every matrix type of testing/matgen.hpp that an SVD takes (the column
/// graded ones have their own test: they need another reference).
template <typename T>
std::vector<Named<T>> all_types(Rng &rng, int64_t m, int64_t n) {
    std::vector<Named<T>> out;
    const int64_t k = std::min(m, n);
    out.push_back({"gaussian", gaussian<T>(rng, m, n)});
    std::vector<T> A(sz(m * n));
    uniform(rng, m, n, A.data(), m);
    out.push_back({"uniform", A});
    // orthonormal columns (rows when wide): all singular values 1, one cluster
    const std::vector<T> Q = random_orthonormal<T>(rng, std::max(m, n), k);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i)
            A[sz(i + j * m)] = m >= n ? Q[sz(i + j * m)] : Q[sz(j + i * n)];
    out.push_back({"orthonormal", A, Expect::Ones});
    for (SigmaMode mode : all_sigma_modes())
        for (double cond : {1e4, 1e12})
            out.push_back({std::string(sigma_mode_name(mode)) + (cond > 1e5 ? " 1e12" : " 1e4"),
                           prescribed_sv<T>(rng, m, n, mode, cond)});
    graded(rng, m, n, A.data(), m, 1e-5, 1e-5);
    out.push_back({"two-sided graded", A});
    out.push_back({"zero", std::vector<T>(sz(m * n), T(0)), Expect::Zero});
    identity(m, n, A.data(), m);
    out.push_back({"identity", A, Expect::Ones});
    out.push_back(
        {"rank 3", prescribed_sv<T>(rng, m, n, SigmaMode::RankDeficient, 1e3, 3), Expect::Rank3});
    out.push_back({"duplicated columns", with_duplicates<T>(rng, m, n)});
    for (bool over : {true, false}) {
        A = prescribed_sv<T>(rng, m, n, SigmaMode::Geometric, 1e3);
        scale_max_abs(m, n, A.data(), m, over ? near_overflow_max<T>() : near_underflow_max<T>());
        out.push_back({over ? "near overflow" : "near underflow", A});
    }
    return out;
}

/// The checks a matrix type promises beyond check_gesvj's (S descending, from the VEC/VEC run).
template <typename T>
void expect_type(const Named<T> &t, int64_t m, const std::vector<T> &S) {
    for (size_t i = 0; i < S.size(); ++i) {
        switch (t.expect) {
            case Expect::General:
                break;
            case Expect::Zero:
                EXPECT_EQ(S[i], T(0));
                break;
            case Expect::Ones:
                EXPECT_NEAR(double(S[i]), 1.0, 10 * std::sqrt(double(m)) * eps<T>());
                break;
            case Expect::Rank3:
                EXPECT_TRUE(i < 3 || double(S[i]) < 50 * m * eps<T>()) << "S[" << i << "]";
                break;
        }
    }
}

template <typename T>
using TypesFn = std::vector<Named<T>> (*)(Rng &, int64_t, int64_t);

/// check_gesvj (all four job combinations) on every matrix type of `types` for every shape.
template <typename T>
void check_all_types(gpusvdHandle_t h, const std::vector<Shape> &shapes, uint64_t seed,
                     TypesFn<T> types = all_types<T>) {
    Rng rng(seed);
    for (const Shape &s : shapes) {
        const int64_t m = s.m, n = s.n;
        for (const Named<T> &t : types(rng, m, n)) {
            SCOPED_TRACE(testing::Message() << t.name << " " << m << " x " << n);
            std::vector<T> S;
            check_gesvj<T>(h, m, n, t.A, &S);
            expect_type(t, m, S);
        }
    }
}

/// `batch` matrices cycling through all_types, with NaN in matrix 7, Inf in 23, zero at 31 and
/// a rank-3 matrix at 40 (whichever of those exist).
template <typename T>
std::vector<std::vector<T>> mixed_batch(Rng &rng, int64_t m, int64_t n, int64_t batch) {
    std::vector<std::vector<T>> mats;
    while (int64_t(mats.size()) < batch)
        for (Named<T> &t : all_types<T>(rng, m, n))
            if (int64_t(mats.size()) < batch) mats.push_back(std::move(t.A));
    const size_t mid = sz(m * n / 2);
    if (batch > 7) mats[7][mid] = nan_v<T>();
    if (batch > 23) mats[23][0] = -std::numeric_limits<T>::infinity();
    if (batch > 31) mats[31].assign(sz(m * n), T(0));
    if (batch > 40) mats[40] = prescribed_sv<T>(rng, m, n, SigmaMode::RankDeficient, 1e2, 3);
    return mats;
}

/// gesvj through gpusvd_Xgesvj_gpu on the user stream (same signature as Api<T>::gesvj).
template <typename T>
struct GesvjOnDevice {
    const CudaRt &rt;
    const UserStream &stream;
    gpusvdStatus_t operator()(gpusvdHandle_t h, gpusvdJob_t ju, gpusvdJob_t jv, int64_t m,
                              int64_t n, T *A, int64_t lda, T *S, T *U, int64_t ldu, T *V,
                              int64_t ldv, int *info) const {
        const int64_t k = std::min(m, n);
        const auto form = rt.emulated ? Api<T>::gesvj : Api<T>::gesvj_gpu;
        return run_on_device(rt, stream,
                             {{A, sizeof(T) * sz(lda * n)},
                              {S, sizeof(T) * sz(k)},
                              {U, sizeof(T) * sz(ldu * k)},
                              {V, sizeof(T) * sz(ldv * k)},
                              {info, sizeof(int)}},
                             [&](void *const *d) {
                                 return form(h, ju, jv, m, n, static_cast<T *>(d[0]), lda,
                                             static_cast<T *>(d[1]), static_cast<T *>(d[2]), ldu,
                                             static_cast<T *>(d[3]), ldv, static_cast<int *>(d[4]));
                             });
    }
};

/// gesvj_batched through gpusvd_Xgesvj_batched_gpu on the user stream.
template <typename T>
struct GesvjBatchedOnDevice {
    const CudaRt &rt;
    const UserStream &stream;
    gpusvdStatus_t operator()(gpusvdHandle_t h, gpusvdJob_t ju, gpusvdJob_t jv, int64_t m,
                              int64_t n, T *A, int64_t lda, int64_t sA, T *S, int64_t sS, T *U,
                              int64_t ldu, int64_t sU, T *V, int64_t ldv, int64_t sV, int64_t batch,
                              int *info) const {
        const auto form = rt.emulated ? Api<T>::gesvj_batched : Api<T>::gesvj_batched_gpu;
        return run_on_device(rt, stream,
                             {{A, sizeof(T) * sz(sA * batch)},
                              {S, sizeof(T) * sz(sS * batch)},
                              {U, sizeof(T) * sz(sU * batch)},
                              {V, sizeof(T) * sz(sV * batch)},
                              {info, sizeof(int) * sz(batch)}},
                             [&](void *const *d) {
                                 return form(h, ju, jv, m, n, static_cast<T *>(d[0]), lda, sA,
                                             static_cast<T *>(d[1]), sS, static_cast<T *>(d[2]),
                                             ldu, sU, static_cast<T *>(d[3]), ldv, sV, batch,
                                             static_cast<int *>(d[4]));
                             });
    }
};

const gpusvdJob_t kJobs[] = {GPUSVD_JOB_VEC, GPUSVD_JOB_NOVEC};

/// Largest |cos| the backend may leave after converging with tolerance tol on n columns: the GPU
/// stops at tol itself; LAPACK's test (CPU backend) allows up to sqrt(n) tol.
double off_bound(double tol, int64_t n) {
    return gpu_as_cpu() ? std::sqrt(double(n)) * tol : tol;
}

template <typename T>
class GpuGesvjTest : public DeviceTest<T> {};
TYPED_TEST_SUITE(GpuGesvjTest, Precisions, PrecisionName);

TYPED_TEST(GpuGesvjTest, AllTypesSmallShapes) {
    check_all_types<TypeParam>(this->h, kSmallShapes, 11);
}

TYPED_TEST(GpuGesvjTest, AllTypesLargerShapes) {
    check_all_types<TypeParam>(this->h, kLargerShapes, 12);
}

TYPED_TEST(GpuGesvjTest, GradedHighRelativeAccuracy) {
    using T = TypeParam;
    Rng rng(13);
    for (const std::vector<Shape> *shapes : {&kSmallShapes, &kLargerShapes})
        for (const Shape &s : *shapes) {
            const int64_t m = s.m, n = s.n;
            SCOPED_TRACE(testing::Message() << m << " x " << n);
            check_graded_accuracy(this->h, m, n, graded_case<T>(rng, m, n));
        }
}

TYPED_TEST(GpuGesvjTest, MixedDifficultyBatches) {
    using T = TypeParam;
    Rng rng(14);
    const Shape shapes[] = {{16, 16},  {32, 32},  {31, 17},   {64, 64},
                            {100, 40}, {40, 100}, {128, 128}, {200, 150}};
    for (const Shape &s : shapes) {
        const std::vector<std::vector<T>> mats = mixed_batch<T>(rng, s.m, s.n, 50);
        for (gpusvdJob_t ju : kJobs)
            for (gpusvdJob_t jv : kJobs) {
                SCOPED_TRACE(testing::Message()
                             << s.m << " x " << s.n << " jobu=" << ju << " jobv=" << jv);
                check_gesvj_batched(this->h, ju, jv, s.m, s.n, mats, false);
            }
    }
}

TYPED_TEST(GpuGesvjTest, LargeBatch) {
    using T = TypeParam;
    Rng rng(15);
    const std::vector<std::vector<T>> mats = mixed_batch<T>(rng, 32, 32, full_or_quick(2000, 100));
    for (gpusvdJob_t job : kJobs) {
        SCOPED_TRACE(job == GPUSVD_JOB_VEC ? "VEC" : "NOVEC");
        check_gesvj_batched(this->h, job, job, 32, 32, mats, true);
    }
}

/// The host form in many small chunks (a staging slot of a dozen matrices or so, so the pipeline
/// ramps up and down and reuses each slot many times): every matrix passes the checks, and S and
/// info are bitwise those of one chunk.
TYPED_TEST(GpuGesvjTest, HostFormInSmallChunksMatchesOneChunk) {
    using T = TypeParam;
    Rng rng(16);
    const std::vector<std::vector<T>> mats = mixed_batch<T>(rng, 32, 32, 300);
    for (bool tight : {true, false}) {
        SCOPED_TRACE(tight ? "tight" : "padded");
        const GesvjBatchOut<T> one =
            check_gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 32, 32, mats, tight);
        const ScopedEnv slot("GPUSVD_PIPELINE_SLOT_BYTES", "300000");
        const GesvjBatchOut<T> small =
            check_gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 32, 32, mats, tight);
        EXPECT_EQ(small.info, one.info);
        ASSERT_EQ(small.S.size(), one.S.size());
        EXPECT_EQ(std::memcmp(small.S.data(), one.S.data(), one.S.size() * sizeof(T)), 0);
    }
}

/// gesvj (VEC/VEC) on a gaussian m x n matrix at the default and at a loose tolerance: info 0,
/// the statistics (2 to 30 sweeps at the default, the last sweep's largest |cos| within the
/// tolerance), a small residual. Leaves the default tolerance set.
template <typename T>
void check_stats_and_tolerance(gpusvdHandle_t h, Rng &rng, int64_t m, int64_t n) {
    SCOPED_TRACE(testing::Message() << m << " x " << n);
    const int64_t k = std::min(m, n);  // Jacobi works on k columns
    const std::vector<T> A0 = gaussian<T>(rng, m, n);
    const double tol = std::sqrt(double(std::max(m, n))) * eps<T>();  // the default
    for (double loose : {0.0, std::is_same<T, float>::value ? 1e-3 : 1e-6}) {
        SCOPED_TRACE(testing::Message() << "tolerance " << loose);
        GPUSVD_ASSERT_OK(h, gpusvdSetJacobiTolerance(h, loose));
        std::vector<T> A = A0, S(sz(k)), U(sz(m * k)), V(sz(n * k));
        int info = -1, sweeps = -1;
        double off = -1;
        GPUSVD_ASSERT_OK(h, Api<T>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m,
                                          S.data(), U.data(), m, V.data(), n, &info));
        EXPECT_EQ(info, 0);
        GPUSVD_ASSERT_OK(h, gpusvdGetJacobiStats(h, &sweeps, &off));
        EXPECT_GE(sweeps, loose > 0 ? 1 : 2);
        EXPECT_LE(sweeps, 30);
        EXPECT_GE(off, 0.0);
        EXPECT_LE(off, off_bound(loose > 0 ? loose : std::max(tol, 2 * eps<T>()), k))
            << "largest |cos| of the last sweep";
        EXPECT_LT(svd_residual(m, n, A0.data(), m, S.data(), U.data(), m, V.data(), n),
                  kSvdThreshold);
    }
    GPUSVD_ASSERT_OK(h, gpusvdSetJacobiTolerance(h, 0.0));
}

/// gesvj (VEC/VEC) on A0 (m x n) under the handle's sweep limit `limit`, too few for A0: info and
/// the statistics' sweeps are the limit; the outputs, the best result so far, are finite with S
/// descending; A V = W (V a product of rotations, applied to A^T for wide matrices) and U S = W,
/// so the rotated side is orthonormal and the factorization still reproduces A.
template <typename T>
void check_sweep_limit(gpusvdHandle_t h, int64_t m, int64_t n, const std::vector<T> &A0,
                       int limit) {
    SCOPED_TRACE(testing::Message() << m << " x " << n << ", at most " << limit << " sweeps");
    const int64_t k = std::min(m, n);
    std::vector<T> A = A0, S(sz(k)), U(sz(m * k)), V(sz(n * k));
    int info = -777, sweeps = -1;
    GPUSVD_ASSERT_OK(h, Api<T>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m,
                                      S.data(), U.data(), m, V.data(), n, &info));
    EXPECT_EQ(info, limit) << "not converged: info is the sweep limit";
    GPUSVD_ASSERT_OK(h, gpusvdGetJacobiStats(h, &sweeps, nullptr));
    EXPECT_EQ(sweeps, limit);
    EXPECT_FALSE(has_nonfinite(k, 1, S.data(), k));
    EXPECT_FALSE(has_nonfinite(m, k, U.data(), m));
    EXPECT_FALSE(has_nonfinite(n, k, V.data(), n));
    EXPECT_TRUE(is_sorted_desc_nonneg(k, S.data()));
    EXPECT_LT(m >= n ? orthogonality(n, k, V.data(), n) : orthogonality(m, k, U.data(), m),
              kSvdThreshold);
    EXPECT_LT(svd_residual(m, n, A0.data(), m, S.data(), U.data(), m, V.data(), n), kSvdThreshold);
}

TYPED_TEST(GpuGesvjTest, JacobiStatsAndTolerance) {
    using T = TypeParam;
    Rng rng(16);
    gpusvdHandle_t h = this->h;
    for (const Shape &s : {Shape{32, 32}, Shape{100, 40}, Shape{40, 100}, Shape{300, 300}})
        check_stats_and_tolerance<T>(h, rng, s.m, s.n);
    // Batched: the maximum over the batch.
    std::vector<std::vector<T>> mats;
    for (int b = 0; b < 20; ++b) mats.push_back(gaussian<T>(rng, 32, 32));
    check_gesvj_batched(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, 32, 32, mats, true);
    int sweeps = -1;
    double off = -1;
    GPUSVD_ASSERT_OK(h, gpusvdGetJacobiStats(h, &sweeps, &off));
    EXPECT_GE(sweeps, 2);
    EXPECT_LE(sweeps, 30);
    EXPECT_LE(off, off_bound(std::sqrt(32.0) * eps<T>(), 32));
}

TYPED_TEST(GpuGesvjTest, MaxSweepsReachedGivesInfoAndFiniteOutputs) {
    using T = TypeParam;
    if (gpu_as_cpu()) GTEST_SKIP() << "the CPU backend always allows LAPACK's 30 sweeps";
    gpusvdHandle_t h = this->h;
    Rng rng(17);
    GPUSVD_ASSERT_OK(h, gpusvdSetJacobiMaxSweeps(h, 1));
    for (const Shape &s : {Shape{32, 32}, Shape{100, 40}, Shape{40, 100}, Shape{300, 300}})
        check_sweep_limit<T>(h, s.m, s.n,
                             prescribed_sv<T>(rng, s.m, s.n, SigmaMode::Geometric, 1e6), 1);
    // Batched: info per matrix. Orthogonal columns converge in one sweep, random ones do not.
    const int64_t m = 32, n = 32, batch = 4;
    std::vector<T> A0(sz(m * n * batch), T(0));
    for (int64_t b : {0, 3})
        for (int64_t j = 0; j < n; ++j) A0[sz(b * m * n + j + j * m)] = T(n - j);
    for (int64_t b : {1, 2}) gaussian(rng, m, n, A0.data() + b * m * n, m);
    std::vector<T> A = A0, S(sz(n * batch)), U(sz(m * n * batch)), V(sz(n * n * batch));
    std::vector<int> info(sz(batch), -777);
    GPUSVD_ASSERT_OK(h, Api<T>::gesvj_batched(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m,
                                              m * n, S.data(), n, U.data(), m, m * n, V.data(), n,
                                              n * n, batch, info.data()));
    EXPECT_EQ(info[0], 0);
    EXPECT_GT(info[1], 0);
    EXPECT_GT(info[2], 0);
    EXPECT_EQ(info[3], 0);
    EXPECT_FALSE(has_nonfinite(n, batch, S.data(), n));
    EXPECT_FALSE(has_nonfinite(m, n * batch, U.data(), m));
    for (int64_t b = 0; b < batch; ++b)
        EXPECT_LT(svd_residual(m, n, A0.data() + b * m * n, m, S.data() + b * n,
                               U.data() + b * m * n, m, V.data() + b * n * n, n),
                  kSvdThreshold)
            << "matrix " << b;
    // The default again: everything converges.
    GPUSVD_ASSERT_OK(h, gpusvdSetJacobiMaxSweeps(h, 100));
    const std::vector<std::vector<T>> mats = {
        std::vector<T>(A0.begin() + m * n, A0.begin() + 2 * m * n)};
    check_gesvj_batched(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, mats, true);
}

template <typename T>
class GpuGesvjDeviceFormTest : public DeviceStreamTest<T> {};
TYPED_TEST_SUITE(GpuGesvjDeviceFormTest, Precisions, PrecisionName);

/// check_gesvj on A0 through the host form and through the `_gpu` form (on_device); their values
/// agree to 10 (sv_compare). *sweeps: the sweeps the `_gpu` call reported.
template <typename T>
void check_device_form(gpusvdHandle_t h, int64_t m, int64_t n, const std::vector<T> &A0,
                       const GesvjOnDevice<T> &on_device, int *sweeps) {
    std::vector<T> S_host, S_dev;
    check_gesvj<T>(h, m, n, A0, &S_host);
    {
        SCOPED_TRACE("_gpu form");
        check_gesvj<T>(h, m, n, A0, &S_dev, on_device);
    }
    ASSERT_EQ(S_dev.size(), S_host.size());
    EXPECT_LT(sv_compare(int64_t(S_dev.size()), S_dev.data(), S_host.data()), 10.0)
        << "_gpu form vs host form";
    GPUSVD_ASSERT_OK(h, gpusvdGetJacobiStats(h, sweeps, nullptr));
}

TYPED_TEST(GpuGesvjDeviceFormTest, OneMatrixOnUserStreamMatchesHostForm) {
    using T = TypeParam;
    Rng rng(18);
    const GesvjOnDevice<T> on_device{*this->rt, *this->stream};
    for (const Shape &s : {Shape{1, 1}, Shape{32, 32}, Shape{31, 17}, Shape{40, 100},
                           Shape{200, 150}, Shape{300, 300}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const std::vector<T> A0 = prescribed_sv<T>(rng, s.m, s.n, SigmaMode::LogUniform, 1e5);
        int sweeps = -1;
        check_device_form(this->h, s.m, s.n, A0, on_device, &sweeps);
        if (s.n > 1) {
            EXPECT_GE(sweeps, 1) << "statistics of a _gpu call";
        }
    }
}

TYPED_TEST(GpuGesvjDeviceFormTest, BatchOnUserStreamMatchesHostForm) {
    using T = TypeParam;
    Rng rng(19);
    const GesvjBatchedOnDevice<T> on_device{*this->rt, *this->stream};
    for (const Shape &s : {Shape{32, 32}, Shape{100, 40}, Shape{40, 100}, Shape{128, 128}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const int64_t k = std::min(s.m, s.n);
        const std::vector<std::vector<T>> mats = mixed_batch<T>(rng, s.m, s.n, 50);
        for (bool tight : {false, true}) {
            const auto host =
                check_gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n, mats, tight);
            SCOPED_TRACE(tight ? "_gpu form, tight" : "_gpu form, padded");
            const auto dev = check_gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n,
                                                 mats, tight, on_device);
            EXPECT_EQ(dev.info, host.info);
            for (size_t b = 0; b < mats.size(); ++b) {
                if (host.info[b] != 0) continue;
                EXPECT_LT(
                    sv_compare(k, dev.S.data() + b * sz(dev.sS), host.S.data() + b * sz(host.sS)),
                    10.0)
                    << "matrix " << b << ": _gpu form vs host form";
            }
        }
    }
}

}  // namespace

namespace {
// One small batch per kernel path (warp, block in shared memory, global memory below the
// blocked path's kBlockedBatchMinCols; tall and wide): the racecheck run on the device uses only
// these (--gtest_filter=*EveryKernelPath*), since racecheck slows shared-memory kernels down by
// about four orders of magnitude.
TYPED_TEST(GpuGesvjTest, EveryKernelPathOnce) {
    using T = TypeParam;
    Rng rng(77);
    for (const Shape &s : {Shape{16, 16}, Shape{32, 32}, Shape{64, 64}, Shape{40, 17},
                           Shape{17, 40}, Shape{130, 90}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        std::vector<std::vector<T>> mats;
        for (int b = 0; b < 3; ++b) mats.push_back(gaussian<T>(rng, s.m, s.n));
        check_gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n, mats, false);
    }
    // One matrix just past shared memory: the blocked Jacobi's kernels (load, Gram solve, finish).
    const int64_t n = sizeof(T) == 8 ? 150 : 200;
    SCOPED_TRACE("blocked one matrix");
    check_gesvj(this->h, n, n - 7, gaussian<T>(rng, n, n - 7));
}
}  // namespace

namespace {
// A single tall matrix (m >= 2n and m*n > 128^2) takes the QR-first path on the GPU: tall QR
// (see gpusvd_sgeqrf_mgs), Jacobi on the n x n R, U = Q U_R. Every matrix type of all_types()
// in all four job combinations (check_gesvj: the DESIGN.md ratios against LAPACK, padding
// untouched), shapes from the boundary of the path (m = 2n, m*n just over 128^2) to 20000 x 16;
// under GPUSVD_TEST_QUICK one shape per regime. The rank-deficient and zero types exercise Q's
// orthonormal completion (U^T U = I always).
const std::vector<Shape> kTallQrShapes =
    full_or_quick(1, 0)
        ? std::vector<Shape>{{182, 91}, {5000, 64}, {20000, 16}, {3000, 100}, {1000, 400}}
        : std::vector<Shape>{{182, 91}, {1000, 64}};

TYPED_TEST(GpuGesvjTest, TallQrFirstPath) {
    using T = TypeParam;
    for (const Shape &s : kTallQrShapes) {
        ASSERT_GE(s.m, 2 * s.n);
        ASSERT_GT(s.m * s.n, 128 * 128) << "the shape must take the QR-first path";
    }
    check_all_types<T>(this->h, kTallQrShapes, 21);
}

TYPED_TEST(GpuGesvjTest, TallQrFirstPathGradedHighRelativeAccuracy) {
    // Column grading A = B D survives the QR preconditioning (R = R_B D up to O(eps) column-wise
    // errors), so Jacobi on R keeps one-sided Jacobi's O(eps cond(B)) relative accuracy of every
    // singular value, including the ~1e-10 ones.
    using T = TypeParam;
    Rng rng(22);
    for (const Shape &s : full_or_quick(1, 0)
                              ? std::vector<Shape>{{2000, 64}, {20000, 16}, {1000, 400}}
                              : std::vector<Shape>{{1000, 64}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " graded, QR-first path");
        check_graded_accuracy(this->h, s.m, s.n, graded_case<T>(rng, s.m, s.n));
    }
}

/// gesvj (or `call`) with jobu = jobv = job on A (m x n, holding NaN or Inf): info
/// GPUSVD_INFO_NONFINITE, S NaN, and U and V NaN where computed.
template <typename T, typename Call = GesvjFn<T>>
void expect_nonfinite(gpusvdHandle_t h, int64_t m, int64_t n, std::vector<T> A, gpusvdJob_t job,
                      Call call = Api<T>::gesvj) {
    const int64_t k = std::min(m, n);
    const bool vec = job == GPUSVD_JOB_VEC;
    std::vector<T> S = sentinels<T>(sz(k)), U = sentinels<T>(sz(m * k)),
                   V = sentinels<T>(sz(n * k));
    int info = -777;
    GPUSVD_EXPECT_OK(h, call(h, job, job, m, n, A.data(), m, S.data(), vec ? U.data() : nullptr, m,
                             vec ? V.data() : nullptr, n, &info));
    EXPECT_EQ(info, GPUSVD_INFO_NONFINITE);
    EXPECT_TRUE(all_nan(k, 1, S.data(), k));
    if (vec) {
        EXPECT_TRUE(all_nan(m, k, U.data(), m));
        EXPECT_TRUE(all_nan(n, k, V.data(), n));
    }
}

TYPED_TEST(GpuGesvjTest, TallQrFirstPathNonFinite) {
    // NaN / Inf in a single tall matrix: info GPUSVD_INFO_NONFINITE and NaN outputs, whichever
    // column (first, middle, last) holds it; then a finite matrix on the same handle is fine.
    using T = TypeParam;
    Rng rng(23);
    const int64_t m = full_or_quick(5000, 1000), n = 64;
    const std::vector<T> G = gaussian<T>(rng, m, n);
    for (int64_t pos : {int64_t(0), m * n / 2 + 7, m * n - 1})
        for (T bad : {nan_v<T>(), std::numeric_limits<T>::infinity()}) {
            SCOPED_TRACE(testing::Message() << "value " << double(bad) << " at " << pos);
            std::vector<T> A = G;
            A[sz(pos)] = bad;
            expect_nonfinite<T>(this->h, m, n, A, GPUSVD_JOB_VEC);
        }
    std::vector<T> S;
    check_gesvj<T>(this->h, m, n, G, &S);
}

TYPED_TEST(GpuGesvjDeviceFormTest, TallQrFirstPathOnUserStreamMatchesHostForm) {
    using T = TypeParam;
    Rng rng(24);
    const GesvjOnDevice<T> on_device{*this->rt, *this->stream};
    const Shape s{full_or_quick(5000, 1000), 64};
    for (SigmaMode mode : {SigmaMode::LogUniform, SigmaMode::RankDeficient}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " " << sigma_mode_name(mode));
        const std::vector<T> A0 = prescribed_sv<T>(rng, s.m, s.n, mode, 1e6);
        int sweeps = -1;
        check_device_form(this->h, s.m, s.n, A0, on_device, &sweeps);
        EXPECT_GE(sweeps, 1) << "statistics of a _gpu call on the QR-first path";
    }
    SCOPED_TRACE("graded, _gpu form");
    check_graded_accuracy(this->h, s.m, s.n, graded_case<T>(rng, s.m, s.n), on_device);
}
}  // namespace

namespace {
// One matrix too large for the shared-memory kernels that does not take the QR-first path runs
// the blocked one-sided Jacobi on the GPU (cuda/gesvj/blocked*, blocked_plan.hpp): every round,
// a GEMM forms each block pair's Gram matrix, a kernel diagonalises it (jacobi_gram.hpp) and a
// GEMM applies the rotations. GPUSVD_JACOBI_NB=8|16|24|32 sets the block width (default 16 up
// to 1024 columns), GPUSVD_JACOBI_BLOCKED=0 keeps the one-block global-memory kernel.
// In double every shape below takes the blocked path (with and without vectors); in float
// 257 x 129 and 129 x 257 still fit the shared-memory block kernel, so 229 x 340 (wide: A^T,
// 229 columns = 14 full blocks of 16, a partial one and one of zero padding) covers the
// transposed working matrix there. Under GPUSVD_TEST_QUICK 300 x 300 and 129 x 257 stay.
const std::vector<Shape> kBlockedShapes =
    full_or_quick(1, 0) ? std::vector<Shape>{{300, 300}, {257, 129}, {129, 257},
                                             {229, 340}, {700, 500}, {1000, 1000}}
                        : std::vector<Shape>{{200, 193}, {190, 230}};
// The cheaper checks' shapes, blocked in both precisions: square, and wide (A^T). Under
// GPUSVD_TEST_QUICK (sanitizers: every launch is slow there) the smallest shapes that are still
// blocked in float: 200 x 193 and 190 x 230 (A^T) do not fit one block's shared memory.
const Shape kBlockedSquare = full_or_quick(1, 0) ? Shape{300, 300} : Shape{200, 200};
const Shape kBlockedWide = full_or_quick(1, 0) ? Shape{229, 340} : Shape{190, 230};

/// The matrix types of the blocked path's LAPACK checks (all_types is too slow on the host side
/// at 1000 x 1000): random, ill-conditioned, two-sided graded, rank-deficient (numerically and
/// exactly), zero and orthogonal columns, and the scaling near overflow and underflow.
template <typename T>
std::vector<Named<T>> blocked_types(Rng &rng, int64_t m, int64_t n) {
    std::vector<Named<T>> out;
    out.push_back({"gaussian", gaussian<T>(rng, m, n)});
    out.push_back({"geometric 1e12", prescribed_sv<T>(rng, m, n, SigmaMode::Geometric, 1e12)});
    std::vector<T> A(sz(m * n));
    graded(rng, m, n, A.data(), m, 1e-5, 1e-5);
    out.push_back({"two-sided graded", A});
    out.push_back(
        {"rank 3", prescribed_sv<T>(rng, m, n, SigmaMode::RankDeficient, 1e3, 3), Expect::Rank3});
    out.push_back({"duplicated columns", with_duplicates<T>(rng, m, n)});
    out.push_back({"zero", std::vector<T>(sz(m * n), T(0)), Expect::Zero});
    identity(m, n, A.data(), m);
    out.push_back({"identity", A, Expect::Ones});
    for (bool over : {true, false}) {
        A = prescribed_sv<T>(rng, m, n, SigmaMode::Geometric, 1e3);
        scale_max_abs(m, n, A.data(), m, over ? near_overflow_max<T>() : near_underflow_max<T>());
        out.push_back({over ? "near overflow" : "near underflow", A});
    }
    return out;
}

TYPED_TEST(GpuGesvjTest, BlockedOneMatrixTypesAndJobs) {
    check_all_types<TypeParam>(this->h, kBlockedShapes, 31, blocked_types<TypeParam>);
}

TYPED_TEST(GpuGesvjTest, BlockedOneMatrixGradedHighRelativeAccuracy) {
    // A = B D (wide: D B), D from 1 to 1e-10: each pair's Gram block is graded the same way, and
    // Jacobi on it with the relative stopping test |g_pq| <= tol sqrt(g_pp g_qq) keeps one-sided
    // Jacobi's O(eps cond(B)) relative accuracy of every singular value.
    using T = TypeParam;
    Rng rng(32);
    for (const Shape &s : full_or_quick(1, 0) ? std::vector<Shape>{{400, 400}, kBlockedWide}
                                              : std::vector<Shape>{kBlockedSquare}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " graded, blocked path");
        check_graded_accuracy(this->h, s.m, s.n, graded_case<T>(rng, s.m, s.n));
    }
}

TYPED_TEST(GpuGesvjTest, BlockedOneMatrixBlockWidthAndOneBlockKernel) {
    // Every block width, and the one-block kernel, pass check_gesvj, and their values agree with
    // the default's to twice check_gesvj's threshold against LAPACK (each is within it). On the
    // GPU each setting changes the device workspace: it reached the blocked path.
    using T = TypeParam;
    Rng rng(33);
    const ScopedEnv no_nb("GPUSVD_JACOBI_NB", nullptr), no_off("GPUSVD_JACOBI_BLOCKED", nullptr);
    const std::pair<const char *, const char *> settings[] = {{"GPUSVD_JACOBI_NB", "8"},
                                                              {"GPUSVD_JACOBI_NB", "24"},
                                                              {"GPUSVD_JACOBI_NB", "32"},
                                                              {"GPUSVD_JACOBI_BLOCKED", "0"}};
    for (const Shape &s : {Shape{200, 200}, Shape{333, 250}}) {
        const int64_t m = s.m, n = s.n, k = std::min(m, n);
        const std::vector<T> A0 = prescribed_sv<T>(rng, m, n, SigmaMode::LogUniform, 1e6);
        auto device_bytes = [&] {
            size_t bytes = 0;
            EXPECT_EQ(Api<T>::gesvj_bufferSize(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n,
                                               &bytes, nullptr),
                      GPUSVD_STATUS_SUCCESS);
            return bytes;
        };
        std::vector<T> S_default;
        {
            SCOPED_TRACE(testing::Message() << m << " x " << n << " default");
            check_gesvj<T>(this->h, m, n, A0, &S_default);
        }
        const size_t default_bytes = device_bytes();
        for (const auto &e : settings) {
            SCOPED_TRACE(testing::Message()
                         << m << " x " << n << " " << e.first << "=" << e.second);
            const ScopedEnv env(e.first, e.second);
            if (!gpu_as_cpu()) {
                EXPECT_NE(device_bytes(), default_bytes) << "the setting is not used";
            }
            std::vector<T> S;
            check_gesvj<T>(this->h, m, n, A0, &S);
            ASSERT_EQ(S.size(), sz(k));
            EXPECT_LT(sv_compare(k, S.data(), S_default.data()), 2 * sv_threshold(m, n))
                << "vs the default setting";
        }
    }
}

TYPED_TEST(GpuGesvjTest, BlockedFullGramTestSavesTheSweepThatRotatesNothing) {
    // The blocked path tests the full Gram after a sweep that converged far enough, instead of
    // running one more sweep that rotates nothing. Against GPUSVD_JACOBI_CHECK=0 (no test) on
    // random matrices: never more sweeps (one matrix, the graph path), one fewer for a batch's
    // slowest member (host loop); the results pass check_gesvj either way and agree to twice
    // its threshold, and the largest |cos| reported is within tol. (Whether a given test passes
    // is decided at rounding level: converged columns keep cosines just under tol, where the
    // rotations' own rounding leaves them.)
    using T = TypeParam;
    if (gpu_as_cpu()) GTEST_SKIP() << "the CPU backend runs LAPACK's own loop";
    Rng rng(38);
    const Shape s = kBlockedSquare;
    const int64_t m = s.m, n = s.n, k = std::min(m, n);
    const double tol = std::sqrt(double(std::max(m, n))) * eps<T>();
    const std::vector<T> A0 = gaussian<T>(rng, m, n);
    auto one = [&](std::vector<T> *S) {
        int sweeps = -1;
        double off = -1;
        check_gesvj<T>(this->h, m, n, A0, S);
        GPUSVD_EXPECT_OK(this->h, gpusvdGetJacobiStats(this->h, &sweeps, &off));
        EXPECT_LE(off, tol);
        return sweeps;
    };
    std::vector<T> S, S_off;
    const int sweeps = one(&S);
    int sweeps_off = -1;
    {
        const ScopedEnv env("GPUSVD_JACOBI_CHECK", "0");
        sweeps_off = one(&S_off);
    }
    EXPECT_LE(sweeps, sweeps_off) << "one matrix";
    EXPECT_LT(sv_compare(k, S.data(), S_off.data()), 2 * sv_threshold(m, n));

    const int64_t bm = 140, bn = 128, batch = 6;
    std::vector<std::vector<T>> mats;
    for (int64_t b = 0; b < batch; ++b) mats.push_back(gaussian<T>(rng, bm, bn));
    auto many = [&](GesvjBatchOut<T> *out) {
        int sweeps_b = -1;
        double off = -1;
        *out = check_gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, bm, bn, mats, true);
        GPUSVD_EXPECT_OK(this->h, gpusvdGetJacobiStats(this->h, &sweeps_b, &off));
        EXPECT_LE(off, std::sqrt(double(bm)) * eps<T>());
        return sweeps_b;
    };
    GesvjBatchOut<T> with, without;
    const int bsweeps = many(&with);
    int bsweeps_off = -1;
    {
        const ScopedEnv env("GPUSVD_JACOBI_CHECK", "0");
        bsweeps_off = many(&without);
    }
    EXPECT_LT(bsweeps, bsweeps_off) << "the batch's largest sweep count";
    for (int64_t b = 0; b < batch; ++b)
        EXPECT_LT(sv_compare(bn, with.S.data() + b * with.sS, without.S.data() + b * without.sS),
                  2 * sv_threshold(bm, bn))
            << "matrix " << b;
}

TYPED_TEST(GpuGesvjTest, BlockedOneMatrixNonFiniteAndZero) {
    // NaN / Inf anywhere (first, middle, last entry), with and without vectors: info
    // GPUSVD_INFO_NONFINITE and NaN outputs. Then, on the same handle, a zero matrix: info 0, S
    // exactly zero, U (an orthonormal completion) and V orthonormal; and a random one.
    using T = TypeParam;
    Rng rng(34);
    for (const Shape &s : {kBlockedSquare, kBlockedWide}) {
        const int64_t m = s.m, n = s.n;
        const std::vector<T> G = gaussian<T>(rng, m, n);
        for (int64_t pos : {int64_t(0), m * n / 2 + 7, m * n - 1})
            for (T bad : {nan_v<T>(), -std::numeric_limits<T>::infinity()})
                for (gpusvdJob_t job : kJobs) {
                    SCOPED_TRACE(testing::Message() << m << " x " << n << " value " << double(bad)
                                                    << " at " << pos << " job " << job);
                    std::vector<T> A = G;
                    A[sz(pos)] = bad;
                    expect_nonfinite<T>(this->h, m, n, A, job);
                }
        SCOPED_TRACE(testing::Message() << m << " x " << n << " after NaN/Inf");
        std::vector<T> S;
        check_gesvj<T>(this->h, m, n, std::vector<T>(sz(m * n), T(0)), &S);
        expect_type({"zero", {}, Expect::Zero}, m, S);
        check_gesvj<T>(this->h, m, n, G);
    }
}

TYPED_TEST(GpuGesvjTest, BlockedOneMatrixStats) {
    Rng rng(35);
    for (const Shape &s : {kBlockedSquare, kBlockedWide})
        check_stats_and_tolerance<TypeParam>(this->h, rng, s.m, s.n);
}

TYPED_TEST(GpuGesvjTest, BlockedOneMatrixSweepLimit) {
    // One sweep cannot converge on a random matrix; two cannot on one with cond 1e6. Then the
    // default limit again: the same matrix converges (check_gesvj: info 0).
    using T = TypeParam;
    if (gpu_as_cpu()) GTEST_SKIP() << "the CPU backend always allows LAPACK's 30 sweeps";
    Rng rng(36);
    for (const Shape &s : {kBlockedSquare, Shape{129, 257}, kBlockedWide}) {
        const std::vector<T> A0 = gaussian<T>(rng, s.m, s.n);
        GPUSVD_ASSERT_OK(this->h, gpusvdSetJacobiMaxSweeps(this->h, 1));
        check_sweep_limit<T>(this->h, s.m, s.n, A0, 1);
        GPUSVD_ASSERT_OK(this->h, gpusvdSetJacobiMaxSweeps(this->h, 2));
        check_sweep_limit<T>(this->h, s.m, s.n,
                             prescribed_sv<T>(rng, s.m, s.n, SigmaMode::Geometric, 1e6), 2);
        GPUSVD_ASSERT_OK(this->h, gpusvdSetJacobiMaxSweeps(this->h, 100));
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " default sweep limit");
        check_gesvj<T>(this->h, s.m, s.n, A0);
    }
}

TYPED_TEST(GpuGesvjDeviceFormTest, BlockedOneMatrixOnUserStreamMatchesHostForm) {
    using T = TypeParam;
    Rng rng(37);
    const GesvjOnDevice<T> on_device{*this->rt, *this->stream};
    for (const Shape &s : {kBlockedSquare, Shape{129, 257}, kBlockedWide}) {
        for (SigmaMode mode : {SigmaMode::LogUniform, SigmaMode::RankDeficient}) {
            SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " " << sigma_mode_name(mode));
            int sweeps = -1;
            check_device_form(this->h, s.m, s.n, prescribed_sv<T>(rng, s.m, s.n, mode, 1e5),
                              on_device, &sweeps);
            EXPECT_GE(sweeps, 2) << "statistics of a _gpu call on the blocked path";
        }
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << " NaN, _gpu form");
        std::vector<T> A = gaussian<T>(rng, s.m, s.n);
        A[sz(s.m * s.n / 2)] = nan_v<T>();
        expect_nonfinite<T>(this->h, s.m, s.n, A, GPUSVD_JOB_VEC, on_device);
    }
}
}  // namespace

namespace {
// Batches of 96 columns and more run the blocked Jacobi over the whole batch (cuda/gesvj/
// blocked*, blocked_plan.hpp): each round one GEMM forms every member's block-pair Gram
// matrices, one kernel diagonalises them all, one GEMM applies the rotations; members that
// converge (or hold NaN/Inf) drop out of the next sweep. GPUSVD_JACOBI_BLOCKED=0|1 forces the
// one-block kernels or the blocked path; GPUSVD_JACOBI_CHUNK caps the matrices per chunk.

/// A batch of `batch` m x n members: gaussian and ill-conditioned ones, with a NaN member, a
/// zero member and a rank-3 member among them (batch >= 6).
template <typename T>
std::vector<std::vector<T>> blocked_batch(Rng &rng, int64_t m, int64_t n, int64_t batch) {
    // (members 1, 2 and 4 are replaced below)
    if (batch < 6) throw std::invalid_argument("blocked_batch needs 6 members or more");
    std::vector<std::vector<T>> mats;
    for (int64_t b = 0; b < batch; ++b)
        mats.push_back(b % 3 == 1 ? prescribed_sv<T>(rng, m, n, SigmaMode::Geometric, 1e10)
                                  : gaussian<T>(rng, m, n));
    mats[1][sz(m * n / 2 + 3)] = nan_v<T>();
    mats[2].assign(sz(m * n), T(0));
    mats[4] = prescribed_sv<T>(rng, m, n, SigmaMode::RankDeficient, 1e3, 3);
    return mats;
}

/// The blocked batch shapes: square 128, 256, 512, tall and wide (A^T); under GPUSVD_TEST_QUICK
/// (sanitizers) 128 x 128 and 130 x 150 only.
struct BatchShape {
    int64_t m, n, batch;
};
const std::vector<BatchShape> kBlockedBatchShapes =
    full_or_quick(1, 0) ? std::vector<BatchShape>{{128, 128, 30},
                                                  {256, 256, 12},
                                                  {300, 200, 8},
                                                  {200, 300, 8},
                                                  {512, 512, 6}}
                        : std::vector<BatchShape>{{128, 128, 6}, {130, 150, 6}};

TYPED_TEST(GpuGesvjTest, BlockedBatchMixedMembersAndJobs) {
    using T = TypeParam;
    Rng rng(41);
    for (const BatchShape &s : kBlockedBatchShapes) {
        const std::vector<std::vector<T>> mats = blocked_batch<T>(rng, s.m, s.n, s.batch);
        for (gpusvdJob_t ju : kJobs)
            for (gpusvdJob_t jv : kJobs) {
                if (ju != jv && s.n > 256) continue;  // the mixed jobs at the smaller sizes
                SCOPED_TRACE(testing::Message()
                             << s.batch << " x " << s.m << " x " << s.n << " jobu=" << ju
                             << " jobv=" << jv);
                check_gesvj_batched(this->h, ju, jv, s.m, s.n, mats, ju == jv);
            }
    }
}

TYPED_TEST(GpuGesvjTest, BlockedBatchGradedHighRelativeAccuracy) {
    // Every member graded (A = B D, D from 1 to 1e-10): each keeps its small singular values to
    // O(eps cond(B)) relative accuracy, as one matrix does (check_graded_accuracy's bound).
    using T = TypeParam;
    Rng rng(42);
    const std::vector<BatchShape> shapes =
        full_or_quick(1, 0) ? std::vector<BatchShape>{{128, 128, 4}, {256, 256, 3}, {200, 300, 2},
                                                      {512, 512, 2}}
                            : std::vector<BatchShape>{{128, 128, 2}};
    for (const BatchShape &s : shapes) {
        SCOPED_TRACE(testing::Message() << s.batch << " x " << s.m << " x " << s.n << " graded");
        std::vector<GradedCase<T>> cases;
        std::vector<std::vector<T>> mats;
        for (int64_t b = 0; b < s.batch; ++b) {
            cases.push_back(graded_case<T>(rng, s.m, s.n));
            mats.push_back(cases.back().A);
        }
        const auto out = check_gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n,
                                             mats, true);
        const int64_t k = std::min(s.m, s.n);
        for (int64_t b = 0; b < s.batch; ++b) {
            const std::vector<long double> ref =
                ref_jacobi_long_double(s.m, s.n, mats[sz(b)].data(), s.m);
            EXPECT_GT(double(ref.front() / ref.back()), 1e8) << "the grading is real";
            const double rel = sv_relative(k, out.S.data() + b * out.sS, ref.data());
            EXPECT_LT(rel, 50.0 * cases[sz(b)].condB)
                << "member " << b << ": max_i |S_i - S_ref_i| / (S_ref_i eps)";
        }
    }
}

TYPED_TEST(GpuGesvjTest, BlockedBatchForcedPathsAgree) {
    // The same batch on the blocked path and on the one-block kernels (forced either way, also
    // below the crossover at 64 columns), in chunks of 3, and with cuBLAS's update GEMM instead
    // of gpusvd's own update kernel (double): every run passes check_gesvj_batched, their values
    // agree to twice its threshold against LAPACK, and on the GPU the forced settings change the
    // device workspace (the path was reached).
    using T = TypeParam;
    Rng rng(43);
    const ScopedEnv no_force("GPUSVD_JACOBI_BLOCKED", nullptr), no_chunk("GPUSVD_JACOBI_CHUNK",
                                                                         nullptr);
    for (const BatchShape &s : full_or_quick(1, 0)
                                   ? std::vector<BatchShape>{{64, 64, 8}, {160, 128, 8},
                                                             {256, 256, 8}}
                                   : std::vector<BatchShape>{{64, 64, 7}, {128, 128, 7}}) {
        const int64_t k = std::min(s.m, s.n);
        const std::vector<std::vector<T>> mats = blocked_batch<T>(rng, s.m, s.n, s.batch);
        auto device_bytes = [&] {
            size_t bytes = 0;
            EXPECT_EQ(Api<T>::gesvj_batched_bufferSize(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m,
                                                       s.n, s.batch, &bytes, nullptr),
                      GPUSVD_STATUS_SUCCESS);
            return bytes;
        };
        std::vector<std::vector<T>> values;
        std::vector<size_t> bytes;
        for (const char *force : {"1", "0"}) {
            SCOPED_TRACE(testing::Message() << s.batch << " x " << s.m << " x " << s.n
                                            << " GPUSVD_JACOBI_BLOCKED=" << force);
            const ScopedEnv env("GPUSVD_JACOBI_BLOCKED", force);
            bytes.push_back(device_bytes());
            values.push_back(check_gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n,
                                                 mats, false)
                                 .S);
        }
        {
            SCOPED_TRACE(testing::Message() << s.batch << " x " << s.m << " x " << s.n
                                            << " blocked, chunks of 3");
            const ScopedEnv env("GPUSVD_JACOBI_BLOCKED", "1"), chunk("GPUSVD_JACOBI_CHUNK", "3");
            values.push_back(check_gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n,
                                                 mats, false)
                                 .S);
        }
        {
            SCOPED_TRACE(testing::Message() << s.batch << " x " << s.m << " x " << s.n
                                            << " blocked, cuBLAS's update GEMM");
            const ScopedEnv env("GPUSVD_JACOBI_BLOCKED", "1"), own("GPUSVD_JACOBI_OWN_UPDATE", "0");
            values.push_back(
                check_gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n, mats, false)
                    .S);
        }
        if (!gpu_as_cpu()) {
            EXPECT_NE(bytes[0], bytes[1]) << "the forced setting is not used";
        }
        const int64_t sS = k + 3;  // check_gesvj_batched's padded stride
        for (int64_t b = 0; b < s.batch; ++b) {
            if (b == 1) continue;  // the NaN member
            for (size_t v = 1; v < values.size(); ++v)
                EXPECT_LT(sv_compare(k, values[v].data() + b * sS, values[0].data() + b * sS),
                          2 * sv_threshold(s.m, s.n))
                    << "member " << b << ", run " << v << " vs the blocked path";
        }
    }
}

TYPED_TEST(GpuGesvjTest, BlockedBatchSweepLimitPerMember) {
    // One sweep: the random members cannot converge (info 1, finite outputs), the zero member
    // and the one with orthogonal columns do (info 0), the NaN member says so; the default limit
    // again: everything converges.
    using T = TypeParam;
    if (gpu_as_cpu()) GTEST_SKIP() << "the CPU backend always allows LAPACK's 30 sweeps";
    Rng rng(44);
    const int64_t m = 150, n = 128, batch = 4, k = n;
    std::vector<std::vector<T>> mats = blocked_batch<T>(rng, m, n, 6);
    mats.resize(sz(batch));
    mats[3].assign(sz(m * n), T(0));
    for (int64_t j = 0; j < n; ++j) mats[3][sz(j + j * m)] = T(j % 7 + 1);  // orthogonal columns
    std::vector<T> A(sz(m * n * batch)), S(sz(k * batch)), U(sz(m * k * batch)), V(sz(n * k * batch));
    for (int64_t b = 0; b < batch; ++b)
        std::copy(mats[sz(b)].begin(), mats[sz(b)].end(), A.begin() + b * m * n);
    std::vector<int> info(sz(batch), -7);
    GPUSVD_ASSERT_OK(this->h, gpusvdSetJacobiMaxSweeps(this->h, 1));
    GPUSVD_EXPECT_OK(this->h, Api<T>::gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n,
                                                    A.data(), m, m * n, S.data(), k, U.data(), m,
                                                    m * k, V.data(), n, n * k, batch, info.data()));
    GPUSVD_ASSERT_OK(this->h, gpusvdSetJacobiMaxSweeps(this->h, 100));
    EXPECT_EQ(info, (std::vector<int>{1, GPUSVD_INFO_NONFINITE, 0, 0}));
    for (int64_t b : {0, 2, 3})
        for (int64_t j = 0; j < k; ++j) EXPECT_TRUE(std::isfinite(double(S[sz(b * k + j)])));
    for (int64_t j = 0; j < k; ++j) EXPECT_EQ(S[sz(2 * k + j)], T(0)) << "zero member";
    SCOPED_TRACE("default sweep limit");
    check_gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, mats, true);
}

TYPED_TEST(GpuGesvjDeviceFormTest, BlockedBatchOnUserStreamMatchesHostForm) {
    using T = TypeParam;
    Rng rng(45);
    const GesvjBatchedOnDevice<T> on_device{*this->rt, *this->stream};
    for (const BatchShape &s : {BatchShape{128, 128, 8}, BatchShape{140, 256, 6}}) {
        SCOPED_TRACE(testing::Message() << s.batch << " x " << s.m << " x " << s.n);
        const int64_t k = std::min(s.m, s.n);
        const std::vector<std::vector<T>> mats = blocked_batch<T>(rng, s.m, s.n, s.batch);
        const auto host =
            check_gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n, mats, true);
        SCOPED_TRACE("_gpu form");
        const auto dev = check_gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n,
                                             mats, true, on_device);
        EXPECT_EQ(dev.info, host.info);
        for (size_t b = 0; b < mats.size(); ++b) {
            if (host.info[b] != 0) continue;
            EXPECT_LT(sv_compare(k, dev.S.data() + b * sz(dev.sS), host.S.data() + b * sz(host.sS)),
                      10.0)
                << "matrix " << b << ": _gpu form vs host form";
        }
    }
}
}  // namespace

namespace {
// ------------------------------------------------------------------------------------------------
// Complex data (c, z): the Jacobi team kernels with the complex rotation (warp, block, fixed
// block and global-memory paths), batched and one matrix, against LAPACK ?gesvj through the CPU
// backend (in double complex, of the same data) with the ratios of conjugate transposes:
// |A - U S V^H| / (|A| max(m,n) eps), |I - U^H U| / (m eps), |I - V^H V| / (n eps) < 50, S
// within sv_threshold; graded matrices to relative accuracy O(eps cond(B)); NaN/Inf members all
// NaN with info -1; the `_gpu` forms bitwise equal to the host forms; the statistics and the
// sweep limit; and the sizes left to the CPU (one matrix past shared memory, batches from 128
// columns): the `_gpu` form and backend GPU refuse them, AUTO runs them on the CPU.
// *EveryComplexPathOnce* is the sanitizer selection.
// ------------------------------------------------------------------------------------------------

template <typename R>
using Cx = std::complex<R>;
template <typename R>
using CApi = Api<PublicComplex<R>>;

template <typename R>
PublicComplex<R> *pub(Cx<R> *p) {
    return reinterpret_cast<PublicComplex<R> *>(p);
}


template <typename R>
bool all_nan_c(int64_t m, int64_t n, const Cx<R> *A, int64_t ld) {
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i)
            if (!std::isnan(A[i + j * ld].real()) || !std::isnan(A[i + j * ld].imag()))
                return false;
    return true;
}

template <typename R>
struct CCase {
    std::string name;
    std::vector<Cx<R>> A;
    bool nonfinite = false;
    int64_t rank = -1;  // exactly rank deficient: S[i] ~ 0 from i = rank on
};

/// One matrix of each complex type: prescribed spectra between random unitary factors, graded,
/// near overflow and underflow, rank deficient through a phase (column 3 = i column 2), a zero
/// column, zero.
template <typename R>
std::vector<CCase<R>> complex_cases(Rng &rng, int64_t m, int64_t n) {
    const int64_t k = std::min(m, n);
    std::vector<CCase<R>> out;
    for (SigmaMode mode : {SigmaMode::Geometric, SigmaMode::ClusterOneSmall, SigmaMode::LogUniform})
        for (double c : {1e4, 1e12})
            out.push_back({std::string(sigma_mode_name(mode)) + (c > 1e5 ? " 1e12" : " 1e4"),
                           prescribed_sv_complex<R>(rng, m, n, mode, c)});
    out.push_back({"two-sided graded", graded_complex<R>(rng, m, n, 1e-5, 1e-5)});
    for (bool over : {true, false}) {
        auto A = prescribed_sv_complex<R>(rng, m, n, SigmaMode::Geometric, 1e3);
        const int e = over ? std::numeric_limits<R>::max_exponent - std::numeric_limits<R>::digits
                           : std::numeric_limits<R>::min_exponent + std::numeric_limits<R>::digits;
        for (auto &x : A) x = Cx<R>(std::ldexp(x.real(), e), std::ldexp(x.imag(), e));
        out.push_back({over ? "near overflow" : "near underflow", A});
    }
    out.push_back({"rank 3", prescribed_sv_complex<R>(rng, m, n, SigmaMode::RankDeficient, 1e3, 3),
                   false, 3});
    if (m >= n && n >= 4) {
        auto A = prescribed_sv_complex<R>(rng, m, n, SigmaMode::LogUniform, 10);
        for (int64_t i = 0; i < m; ++i) A[sz(i + 2 * m)] = Cx<R>(0, 1) * A[sz(i + m)];
        for (int64_t i = 0; i < m; ++i) A[sz(i + (n - 1) * m)] = Cx<R>(0);
        out.push_back({"column 3 = i column 2, last column zero", A, false, n - 2});
    }
    out.push_back({"zero", std::vector<Cx<R>>(sz(m * n), Cx<R>(0)), false, 0});
    (void)k;
    return out;
}

/// Singular values of A0 by LAPACK zgesvj (the CPU backend) on the data widened to double
/// complex: a reference whose own error is negligible for single complex.
template <typename R>
std::vector<double> complex_ref(int64_t m, int64_t n, const std::vector<Cx<R>> &A0) {
    Handle cpu;
    EXPECT_EQ(gpusvdSetBackend(cpu, GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS);
    const int64_t k = std::min(m, n);
    std::vector<Cx<double>> A(A0.size());
    for (size_t i = 0; i < A.size(); ++i) A[i] = Cx<double>(A0[i].real(), A0[i].imag());
    std::vector<double> S(sz(k));
    int info = -777;
    GPUSVD_EXPECT_OK(
        cpu, gpusvd_zgesvj(cpu, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, m, n,
                           reinterpret_cast<gpusvdDoubleComplex_t *>(A.data()),
                           std::max<int64_t>(m, 1), S.data(), nullptr, 1, nullptr, 1, &info));
    EXPECT_EQ(info, 0) << "reference zgesvj";
    return S;
}

/// The checks of one result (S k values; U m x k, V n x k where non-null).
template <typename R>
void check_complex_svd(int64_t m, int64_t n, const CCase<R> &c, const std::vector<double> &Sref,
                       int info, const R *S, const Cx<R> *U, int64_t ldu, const Cx<R> *V,
                       int64_t ldv) {
    const int64_t k = std::min(m, n);
    if (c.nonfinite) {
        EXPECT_EQ(info, GPUSVD_INFO_NONFINITE);
        EXPECT_TRUE(all_nan(k, 1, S, k));
        if (U) {
            EXPECT_TRUE(all_nan_c(m, k, U, ldu));
        }
        if (V) {
            EXPECT_TRUE(all_nan_c(n, k, V, ldv));
        }
        return;
    }
    EXPECT_EQ(info, 0);
    EXPECT_TRUE(is_sorted_desc_nonneg(k, S)) << "S non-negative and descending";
    EXPECT_LT(sv_compare(k, S, Sref.data()), sv_threshold(m, n)) << "|S - S_lapack| / (|S| eps)";
    if (c.rank >= 0) {
        for (int64_t i = c.rank; i < k; ++i)
            EXPECT_LE(double(S[i]),
                      50 * double(std::max(m, n)) * eps<R>() * std::max(Sref[0], 1e-300))
                << "S[" << i << "] of a rank " << c.rank << " matrix";
    }
    if (U) {
        EXPECT_LT(orthogonality_h(m, k, U, ldu), kSvdThreshold) << "|I - U^H U| / (m eps)";
    }
    if (V) {
        EXPECT_LT(orthogonality_h(n, k, V, ldv), kSvdThreshold) << "|I - V^H V| / (n eps)";
    }
    if (U && V) {
        EXPECT_LT(svd_residual_h(m, n, k, c.A.data(), m, S, U, ldu, V, ldv), kSvdThreshold)
            << "|A - U S V^H| / (|A| max(m,n) eps)";
    }
}

/// What a complex batch call wrote.
template <typename R>
struct CBatchOut {
    std::vector<Cx<R>> A, U, V;
    std::vector<R> S;
    std::vector<int> info;
};

/// The cases (with a NaN member second and an Inf member last) as one batch with padded leading
/// dimensions and gaps between the matrices, through `call` (the host or the `_gpu` batched
/// form) for jobu / jobv; every matrix checked, the padding untouched.
template <typename R, typename Call>
CBatchOut<R> run_complex_batch(gpusvdHandle_t h, gpusvdJob_t jobu, gpusvdJob_t jobv, int64_t m,
                               int64_t n, std::vector<CCase<R>> cases, Call call) {
    Rng rng(7);
    CCase<R> bad{"NaN", prescribed_sv_complex<R>(rng, m, n, SigmaMode::Geometric, 10), true};
    bad.A[sz(m * n / 2)] = Cx<R>(R(1), nan_v<R>());
    cases.insert(cases.begin() + 1, bad);
    bad.name = "Inf";
    bad.A[sz(m * n / 2)] = Cx<R>(std::numeric_limits<R>::infinity(), R(0));
    cases.push_back(bad);
    const bool wu = jobu == GPUSVD_JOB_VEC, wv = jobv == GPUSVD_JOB_VEC;
    const int64_t batch = int64_t(cases.size()), k = std::min(m, n);
    const int64_t lda = m + 1, ldu = m + 2, ldv = n + 1;
    const int64_t sA = lda * n + 3, sS = k + 2, sU = ldu * k + 1, sV = ldv * k + 5;
    const Cx<R> pad(R(-7.5), R(3.25));
    CBatchOut<R> o{std::vector<Cx<R>>(sz(sA * batch), pad),
                   std::vector<Cx<R>>(sz(wu ? sU * batch : 0), pad),
                   std::vector<Cx<R>>(sz(wv ? sV * batch : 0), pad),
                   std::vector<R>(sz(sS * batch), R(-5)), std::vector<int>(sz(batch), -777)};
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i)
                o.A[sz(b * sA + i + j * lda)] = cases[sz(b)].A[sz(i + j * m)];
    EXPECT_EQ(call(h, jobu, jobv, m, n, pub(o.A.data()), lda, sA, o.S.data(), sS,
                   wu ? pub(o.U.data()) : nullptr, ldu, sU, wv ? pub(o.V.data()) : nullptr, ldv, sV,
                   batch, o.info.data()),
              GPUSVD_STATUS_SUCCESS)
        << gpusvdGetErrorMessage(h);
    for (int64_t b = 0; b < batch; ++b) {
        const CCase<R> &c = cases[sz(b)];
        SCOPED_TRACE(testing::Message() << m << " x " << n << " jobu=" << wu << " jobv=" << wv
                                        << " matrix " << b << " (" << c.name << ")");
        const std::vector<double> Sref =
            c.nonfinite ? std::vector<double>() : complex_ref(m, n, c.A);
        check_complex_svd(m, n, c, Sref, o.info[sz(b)], o.S.data() + b * sS,
                          wu ? o.U.data() + b * sU : nullptr, ldu,
                          wv ? o.V.data() + b * sV : nullptr, ldv);
        for (int64_t i = k; i < sS; ++i) EXPECT_EQ(o.S[sz(b * sS + i)], R(-5)) << "S gap";
        EXPECT_TRUE(padding_intact(m, n, o.A.data() + b * sA, lda, pad)) << "A outside m x n";
        for (int64_t i = lda * n; i < sA; ++i) EXPECT_EQ(o.A[sz(b * sA + i)], pad) << "A gap";
        if (wu) {
            EXPECT_TRUE(padding_intact(m, k, o.U.data() + b * sU, ldu, pad));
            EXPECT_EQ(o.U[sz(b * sU + sU - 1)], pad);
        }
        if (wv) {
            EXPECT_TRUE(padding_intact(n, k, o.V.data() + b * sV, ldv, pad));
            EXPECT_EQ(o.V[sz(b * sV + sV - 1)], pad);
        }
    }
    return o;
}

/// One matrix through the single-matrix form `call` (host or `_gpu`), padded, checked.
template <typename R, typename Call>
CBatchOut<R> run_complex_one(gpusvdHandle_t h, gpusvdJob_t jobu, gpusvdJob_t jobv, int64_t m,
                             int64_t n, const CCase<R> &c, Call call) {
    SCOPED_TRACE(testing::Message() << c.name << " " << m << " x " << n);
    const bool wu = jobu == GPUSVD_JOB_VEC, wv = jobv == GPUSVD_JOB_VEC;
    const int64_t k = std::min(m, n), lda = m + 2, ldu = m + 1, ldv = n + 3;
    const Cx<R> pad(R(-7.5), R(3.25));
    CBatchOut<R> o{with_ld(m, n, c.A.data(), m, lda, pad), std::vector<Cx<R>>(sz(ldu * k + 1), pad),
                   std::vector<Cx<R>>(sz(ldv * k + 1), pad), std::vector<R>(sz(k + 1), R(-5)),
                   std::vector<int>(1, -777)};
    EXPECT_EQ(
        call(h, jobu, jobv, m, n, pub(o.A.data()), lda, o.S.data(), wu ? pub(o.U.data()) : nullptr,
             ldu, wv ? pub(o.V.data()) : nullptr, ldv, o.info.data()),
        GPUSVD_STATUS_SUCCESS)
        << gpusvdGetErrorMessage(h);
    const std::vector<double> Sref = c.nonfinite ? std::vector<double>() : complex_ref(m, n, c.A);
    check_complex_svd(m, n, c, Sref, o.info[0], o.S.data(), wu ? o.U.data() : nullptr, ldu,
                      wv ? o.V.data() : nullptr, ldv);
    EXPECT_TRUE(padding_intact(m, n, o.A.data(), lda, pad)) << "A written outside m x n";
    EXPECT_EQ(o.S[sz(k)], R(-5));
    EXPECT_TRUE(wu ? padding_intact(m, k, o.U.data(), ldu, pad) : all_equal(o.U, pad));
    EXPECT_TRUE(wv ? padding_intact(n, k, o.V.data(), ldv, pad) : all_equal(o.V, pad));
    return o;
}

template <typename R>
class GpuGesvjComplexTest : public DeviceTest<R> {};
TYPED_TEST_SUITE(GpuGesvjComplexTest, Precisions, ComplexPrecisionName);

const gpusvdJob_t kJobPairs[][2] = {{GPUSVD_JOB_VEC, GPUSVD_JOB_VEC},
                                    {GPUSVD_JOB_VEC, GPUSVD_JOB_NOVEC},
                                    {GPUSVD_JOB_NOVEC, GPUSVD_JOB_VEC},
                                    {GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC}};

TYPED_TEST(GpuGesvjComplexTest, BatchedTeamKernels) {
    using R = TypeParam;
    Rng rng(291);
    // warp (16 x 16 and less), block (32 x 32 .. 64 x 64), global memory (100 x 40, 127 x 90:
    // past shared memory, below the 128 columns where complex batches stop); tall and wide
    for (const Shape &s :
         {Shape{1, 1}, Shape{1, 7}, Shape{16, 16}, Shape{32, 32}, Shape{31, 17}, Shape{17, 31},
          Shape{64, 64}, Shape{100, 40}, Shape{40, 100}, Shape{127, 90}})
        for (const auto &jobs : kJobPairs) {
            if (s.m > 64 && jobs[0] != jobs[1]) continue;  // (the large shapes: VEC and NOVEC)
            run_complex_batch<R>(this->h, jobs[0], jobs[1], s.m, s.n,
                                 complex_cases<R>(rng, s.m, s.n), CApi<R>::gesvj_batched);
        }
}

TYPED_TEST(GpuGesvjComplexTest, LargeBatch) {
    // Many 32 x 32 matrices (the block kernel's throughput configuration; a pipeline of chunks in
    // the host form), every 50th one checked in full against LAPACK.
    using R = TypeParam;
    using P = PublicComplex<R>;
    Rng rng(292);
    const int64_t m = 32, n = 32, batch = full_or_quick(3000, 100);
    std::vector<Cx<R>> A(sz(m * n * batch));
    for (int64_t b = 0; b < batch; ++b) {
        const auto M = prescribed_sv_complex<R>(rng, m, n, SigmaMode::LogUniform, 1e6);
        std::copy(M.begin(), M.end(), A.begin() + b * m * n);
    }
    const std::vector<Cx<R>> A0 = A;
    std::vector<Cx<R>> U(sz(m * n * batch)), V(sz(n * n * batch));
    std::vector<R> S(sz(n * batch));
    std::vector<int> info(sz(batch), -777);
    GPUSVD_ASSERT_OK(
        this->h, Api<P>::gesvj_batched(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, pub(A.data()),
                                       m, m * n, S.data(), n, pub(U.data()), m, m * n,
                                       pub(V.data()), n, n * n, batch, info.data()));
    for (int64_t b = 0; b < batch; ++b) EXPECT_EQ(info[sz(b)], 0) << "matrix " << b;
    for (int64_t b = 0; b < batch; b += 50) {
        SCOPED_TRACE(testing::Message() << "matrix " << b);
        CCase<R> c{"log uniform",
                   std::vector<Cx<R>>(A0.begin() + b * m * n, A0.begin() + (b + 1) * m * n)};
        check_complex_svd(m, n, c, complex_ref(m, n, c.A), info[sz(b)], S.data() + b * n,
                          U.data() + b * m * n, m, V.data() + b * n * n, n);
    }
}

TYPED_TEST(GpuGesvjComplexTest, OneMatrix) {
    // Single matrices that fit one block's shared memory: the warp path, the fixed block kernel
    // (few matrices, up to 64 rows) and the generic block kernel past 64 rows.
    using R = TypeParam;
    Rng rng(293);
    for (const Shape &s : {Shape{1, 1}, Shape{5, 3}, Shape{3, 5}, Shape{16, 16}, Shape{40, 24},
                           Shape{24, 40}, Shape{64, 64}, Shape{80, 33}})
        for (const CCase<R> &c : complex_cases<R>(rng, s.m, s.n))
            for (const auto &jobs : kJobPairs)
                run_complex_one<R>(this->h, jobs[0], jobs[1], s.m, s.n, c, CApi<R>::gesvj);
    // NaN and Inf in a single matrix
    for (const Cx<R> bad :
         {Cx<R>(nan_v<R>(), R(0)), Cx<R>(R(0), -std::numeric_limits<R>::infinity())}) {
        CCase<R> c{"non-finite", prescribed_sv_complex<R>(rng, 30, 20, SigmaMode::Geometric, 10),
                   true};
        c.A[sz(311)] = bad;
        run_complex_one<R>(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 30, 20, c, CApi<R>::gesvj);
    }
}

TYPED_TEST(GpuGesvjComplexTest, GradedHighRelativeAccuracy) {
    // A = B D (wide: D B), B complex with unit columns (rows), D = diag(1 .. 1e-10): every
    // singular value to relative accuracy O(eps cond(B)), against zgesvj in double complex.
    using R = TypeParam;
    Rng rng(294);
    for (const Shape &s :
         {Shape{12, 8}, Shape{40, 33}, Shape{8, 12}, Shape{64, 64}, Shape{100, 40}})
        for (bool batched : {false, true}) {
            SCOPED_TRACE(testing::Message() << s.m << " x " << s.n << (batched ? " batched" : ""));
            const bool tall = s.m >= s.n;
            const auto A0 = tall ? graded_complex<R>(rng, s.m, s.n, 1.0, 1e-10)
                                 : graded_complex<R>(rng, s.m, s.n, 1e-10, 1.0);
            std::vector<Cx<R>> B = A0;  // graded side normalised
            for (int64_t a = 0; a < (tall ? s.n : s.m); ++a) {
                double nr = 0;
                for (int64_t b = 0; b < (tall ? s.m : s.n); ++b)
                    nr += std::norm(Cx<double>(tall ? A0[sz(b + a * s.m)] : A0[sz(a + b * s.m)]));
                for (int64_t b = 0; b < (tall ? s.m : s.n); ++b)
                    (tall ? B[sz(b + a * s.m)] : B[sz(a + b * s.m)]) /= R(std::sqrt(nr));
            }
            const std::vector<double> sb = complex_ref(s.m, s.n, B);
            const double condB = sb.front() / sb.back();
            ASSERT_LT(condB, 1000.0);
            const CCase<R> c{"graded", A0};
            const std::vector<double> ref = complex_ref(s.m, s.n, A0);
            EXPECT_GT(ref.front() / ref.back(), 1e8) << "the grading is real";
            const CBatchOut<R> o =
                batched ? run_complex_batch<R>(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n,
                                               {c, c}, CApi<R>::gesvj_batched)
                        : run_complex_one<R>(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n, c,
                                             CApi<R>::gesvj);
            // (the batch's matrix 0: its NaN member sits at 1)
            EXPECT_LT(sv_relative(std::min(s.m, s.n), o.S.data(), ref.data()), 50.0 * condB)
                << "max_i |S_i - S_ref_i| / (S_ref_i eps), cond(B) = " << condB;
        }
}

TYPED_TEST(GpuGesvjComplexTest, StatsToleranceAndSweepLimit) {
    using R = TypeParam;
    using P = PublicComplex<R>;
    gpusvdHandle_t h = this->h;
    Rng rng(295);
    for (const Shape &s : {Shape{32, 32}, Shape{100, 40}, Shape{40, 100}}) {
        SCOPED_TRACE(testing::Message() << s.m << " x " << s.n);
        const int64_t m = s.m, n = s.n, k = std::min(m, n);
        const auto A0 = prescribed_sv_complex<R>(rng, m, n, SigmaMode::Geometric, 1e6);
        std::vector<Cx<R>> A = A0, U(sz(m * k)), V(sz(n * k));
        std::vector<R> S(sz(k));
        int info = -777, sweeps = -1;
        double off = -1;
        GPUSVD_ASSERT_OK(h, Api<P>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, pub(A.data()), m,
                                          S.data(), pub(U.data()), m, pub(V.data()), n, &info));
        EXPECT_EQ(info, 0);
        GPUSVD_ASSERT_OK(h, gpusvdGetJacobiStats(h, &sweeps, &off));
        EXPECT_GE(sweeps, 2);
        EXPECT_LE(sweeps, 30);
        EXPECT_GE(off, 0.0);
        // (the CPU backend: LAPACK's own stopping test, and always its 30 sweeps)
        if (gpu_as_cpu()) continue;
        EXPECT_LE(off, std::sqrt(double(std::max(m, n))) * eps<R>()) << "the GPU stops at tol";
        GPUSVD_ASSERT_OK(h, gpusvdSetJacobiMaxSweeps(h, 1));
        A = A0;
        GPUSVD_ASSERT_OK(h, Api<P>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, pub(A.data()), m,
                                          S.data(), pub(U.data()), m, pub(V.data()), n, &info));
        EXPECT_EQ(info, 1) << "not converged: info is the sweep limit";
        GPUSVD_ASSERT_OK(h, gpusvdGetJacobiStats(h, &sweeps, nullptr));
        EXPECT_EQ(sweeps, 1);
        EXPECT_TRUE(is_sorted_desc_nonneg(k, S.data()));
        // the rotated side is unitary and the factorization still reproduces A
        EXPECT_LT(m >= n ? orthogonality_h(n, k, V.data(), n) : orthogonality_h(m, k, U.data(), m),
                  kSvdThreshold);
        EXPECT_LT(svd_residual_h(m, n, k, A0.data(), m, S.data(), U.data(), m, V.data(), n),
                  kSvdThreshold);
        GPUSVD_ASSERT_OK(h, gpusvdSetJacobiMaxSweeps(h, 100));
    }
}

template <typename R>
class GpuGesvjComplexDeviceFormTest : public DeviceStreamTest<R> {};
TYPED_TEST_SUITE(GpuGesvjComplexDeviceFormTest, Precisions, ComplexPrecisionName);

// The `_gpu` forms run the host forms' kernels with the same plan: the same bits.
TYPED_TEST(GpuGesvjComplexDeviceFormTest, DeviceFormsMatchHostForms) {
    using R = TypeParam;
    using P = PublicComplex<R>;
    Rng rng(296);
    const CudaRt &rt = *this->rt;
    const UserStream &stream = *this->stream;
    auto batched_on_device = [&](gpusvdHandle_t h, gpusvdJob_t ju, gpusvdJob_t jv, int64_t m,
                                 int64_t n, P *A, int64_t lda, int64_t sA, R *S, int64_t sS, P *U,
                                 int64_t ldu, int64_t sU, P *V, int64_t ldv, int64_t sV,
                                 int64_t batch, int *info) {
        const auto form = rt.emulated ? Api<P>::gesvj_batched : Api<P>::gesvj_batched_gpu;
        return run_on_device(rt, stream,
                             {{A, sizeof(P) * sz(sA * batch)},
                              {S, sizeof(R) * sz(sS * batch)},
                              {U, U ? sizeof(P) * sz(sU * batch) : 0},
                              {V, V ? sizeof(P) * sz(sV * batch) : 0},
                              {info, sizeof(int) * sz(batch)}},
                             [&](void *const *d) {
                                 return form(h, ju, jv, m, n, static_cast<P *>(d[0]), lda, sA,
                                             static_cast<R *>(d[1]), sS, static_cast<P *>(d[2]),
                                             ldu, sU, static_cast<P *>(d[3]), ldv, sV, batch,
                                             static_cast<int *>(d[4]));
                             });
    };
    auto one_on_device = [&](gpusvdHandle_t h, gpusvdJob_t ju, gpusvdJob_t jv, int64_t m, int64_t n,
                             P *A, int64_t lda, R *S, P *U, int64_t ldu, P *V, int64_t ldv,
                             int *info) {
        const int64_t k = std::min(m, n);
        const auto form = rt.emulated ? Api<P>::gesvj : Api<P>::gesvj_gpu;
        return run_on_device(rt, stream,
                             {{A, sizeof(P) * sz(lda * n)},
                              {S, sizeof(R) * sz(k)},
                              {U, U ? sizeof(P) * sz(ldu * k) : 0},
                              {V, V ? sizeof(P) * sz(ldv * k) : 0},
                              {info, sizeof(int)}},
                             [&](void *const *d) {
                                 return form(h, ju, jv, m, n, static_cast<P *>(d[0]), lda,
                                             static_cast<R *>(d[1]), static_cast<P *>(d[2]), ldu,
                                             static_cast<P *>(d[3]), ldv, static_cast<int *>(d[4]));
                             });
    };
    auto same = [](const CBatchOut<R> &a, const CBatchOut<R> &b) {
        EXPECT_EQ(a.info, b.info);
        EXPECT_TRUE(same_bits(a.S, b.S)) << "S: _gpu form vs host form";
        EXPECT_TRUE(same_bits(a.U, b.U)) << "U: _gpu form vs host form";
        EXPECT_TRUE(same_bits(a.V, b.V)) << "V: _gpu form vs host form";
    };
    for (const Shape &s : {Shape{16, 16}, Shape{32, 32}, Shape{64, 40}, Shape{100, 40}}) {
        const auto cases = complex_cases<R>(rng, s.m, s.n);
        same(run_complex_batch<R>(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n, cases,
                                  Api<P>::gesvj_batched),
             run_complex_batch<R>(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n, cases,
                                  batched_on_device));
    }
    for (const Shape &s : {Shape{3, 5}, Shape{40, 24}, Shape{24, 40}, Shape{80, 33}}) {
        const CCase<R> c{"log uniform",
                         prescribed_sv_complex<R>(rng, s.m, s.n, SigmaMode::LogUniform, 1e5)};
        same(
            run_complex_one<R>(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n, c, Api<P>::gesvj),
            run_complex_one<R>(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n, c,
                               one_on_device));
        int sweeps = -1;
        GPUSVD_ASSERT_OK(this->h, gpusvdGetJacobiStats(this->h, &sweeps, nullptr));
        EXPECT_GE(sweeps, 1) << "statistics of a _gpu call";
    }
}

// Complex sizes past the team kernels (one matrix whose working copy does not fit in shared
// memory, batches from kBlockedBatchMinCols columns) take the blocked Jacobi: every complex case
// (graded, rank-deficient, zero, with a NaN and an Inf member) against LAPACK, one matrix and
// batches, tall and wide, with and without vectors.
TYPED_TEST(GpuGesvjComplexTest, BlockedJacobiPastTheTeamKernels) {
    using R = TypeParam;
    Rng rng(296);
    const bool full = full_or_quick(1, 0) != 0;  // quick (sanitizers): one shape of each kind
    const std::vector<Shape> batches = full ? std::vector<Shape>{{130, 128}, {96, 150}, {260, 256}}
                                            : std::vector<Shape>{{130, 128}};
    const std::vector<Shape> singles = full ? std::vector<Shape>{{200, 200}, {1000, 60}, {60, 1000}}
                                            : std::vector<Shape>{{200, 200}};
    for (const Shape &s : batches)
        for (const auto &jobs : kJobPairs) {
            if (s.m > 200 && jobs[0] != jobs[1]) continue;
            run_complex_batch<R>(this->h, jobs[0], jobs[1], s.m, s.n,
                                 complex_cases<R>(rng, s.m, s.n), CApi<R>::gesvj_batched);
        }
    for (const Shape &s : singles)
        for (const CCase<R> &c : complex_cases<R>(rng, s.m, s.n))
            run_complex_one<R>(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n, c,
                               CApi<R>::gesvj);
}

// Without the blocked Jacobi (GPUSVD_JACOBI_BLOCKED=0, as without cuBLAS) complex sizes past the
// team kernels have no GPU path: the `_gpu` forms and backend GPU refuse them naming the limit,
// changing nothing; AUTO runs them on the CPU; _bufferSize sizes no device workspace for them.
TYPED_TEST(GpuGesvjComplexTest, SizesPastTheTeamKernelsStayOffTheGpuWithoutBlas) {
    using R = TypeParam;
    using P = PublicComplex<R>;
    if (gpu_as_cpu()) GTEST_SKIP() << "refusals of the GPU backend: device machine only";
    const ScopedEnv off("GPUSVD_JACOBI_BLOCKED", "0");
    Rng rng(297);
    gpusvdHandle_t h = this->h;
    struct Case {
        int64_t m, n, batch;
    };
    for (const Case &q :
         {Case{200, 200, 1}, Case{1000, 60, 1}, Case{60, 1000, 1}, Case{130, 128, 2}}) {
        SCOPED_TRACE(testing::Message() << q.batch << " x " << q.m << " x " << q.n);
        const int64_t m = q.m, n = q.n, k = std::min(m, n);
        std::vector<Cx<R>> A0(sz(m * n * q.batch));
        for (int64_t b = 0; b < q.batch; ++b) {
            const auto M = prescribed_sv_complex<R>(rng, m, n, SigmaMode::Geometric, 10);
            std::copy(M.begin(), M.end(), A0.begin() + b * m * n);
        }
        std::vector<Cx<R>> A = A0, U(sz(m * k * q.batch), Cx<R>(5)),
                           V(sz(n * k * q.batch), Cx<R>(5));
        const std::vector<Cx<R>> U0 = U, V0 = V;
        std::vector<R> S(sz(k * q.batch), R(5));
        std::vector<int> info(sz(q.batch), -777);
        auto call = [&](bool gpu_form) {
            if (q.batch == 1)
                return (gpu_form ? Api<P>::gesvj_gpu : Api<P>::gesvj)(
                    h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, pub(A.data()), m, S.data(),
                    pub(U.data()), m, pub(V.data()), n, info.data());
            return (gpu_form ? Api<P>::gesvj_batched_gpu : Api<P>::gesvj_batched)(
                h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, pub(A.data()), m, m * n, S.data(), k,
                pub(U.data()), m, m * k, pub(V.data()), n, n * k, q.batch, info.data());
        };
        for (bool gpu_form : {true, false}) {  // (host pointers: the _gpu form refuses first)
            EXPECT_EQ(call(gpu_form), GPUSVD_STATUS_NOT_SUPPORTED);
            const std::string msg = gpusvdGetErrorMessage(h);
            EXPECT_NE(msg.find("complex matrices of"), std::string::npos) << msg;
            EXPECT_NE(msg.find("square up to"), std::string::npos) << msg;
            EXPECT_NE(msg.find("min(m, n) < 128"), std::string::npos) << msg;
            EXPECT_EQ(A, A0);
            EXPECT_EQ(U, U0);
            EXPECT_EQ(V, V0);
            EXPECT_TRUE(all_equal(S, R(5)));
            EXPECT_TRUE(all_equal(info, -777));
        }
        size_t dev = 1, host = 0;
        if (q.batch == 1)
            GPUSVD_ASSERT_OK(
                h, Api<P>::gesvj_bufferSize(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, &dev, &host));
        else
            GPUSVD_ASSERT_OK(h, Api<P>::gesvj_batched_bufferSize(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC,
                                                                 m, n, q.batch, &dev, &host));
        EXPECT_EQ(dev, 0u) << "no device workspace for a call the GPU refuses";
        EXPECT_GT(host, 0u) << "the CPU's";
        // AUTO: on the CPU
        GPUSVD_ASSERT_OK(h, gpusvdSetBackend(h, GPUSVD_BACKEND_AUTO));
        GPUSVD_ASSERT_OK(h, call(false));
        for (int64_t b = 0; b < q.batch; ++b) {
            CCase<R> c{"geometric",
                       std::vector<Cx<R>>(A0.begin() + b * m * n, A0.begin() + (b + 1) * m * n)};
            check_complex_svd(m, n, c, complex_ref(m, n, c.A), info[sz(b)], S.data() + b * k,
                              U.data() + b * m * k, m, V.data() + b * n * k, n);
        }
        GPUSVD_ASSERT_OK(h, gpusvdSetBackend(h, GPUSVD_BACKEND_GPU));
    }
    // what the GPU takes sizes its workspace: a batch below 128 columns past shared memory
    size_t dev = 0, host = 0;
    GPUSVD_ASSERT_OK(h, Api<P>::gesvj_batched_bufferSize(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 300,
                                                         127, 4, &dev, &host));
    EXPECT_GT(dev, 0u);
}

// One small case per complex kernel path (the sanitizer selection): the warp, block, fixed
// block and global-memory kernels, tall and wide.
TYPED_TEST(GpuGesvjComplexTest, EveryComplexPathOnce) {
    using R = TypeParam;
    Rng rng(298);
    for (const Shape &s : {Shape{16, 16}, Shape{32, 32}, Shape{64, 64}, Shape{40, 17},
                           Shape{17, 40}, Shape{100, 40}}) {
        std::vector<CCase<R>> cases;
        for (int b = 0; b < 2; ++b)
            cases.push_back({"gaussian", graded_complex<R>(rng, s.m, s.n, 1.0, 1.0)});
        run_complex_batch<R>(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, s.m, s.n, cases,
                             CApi<R>::gesvj_batched);
    }
    const CCase<R> c{"gaussian", graded_complex<R>(rng, 40, 24, 1.0, 1.0)};
    run_complex_one<R>(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 40, 24, c, CApi<R>::gesvj);
}
}  // namespace
