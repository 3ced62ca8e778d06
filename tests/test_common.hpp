// Shared pieces of the gpusvd GoogleTest suite: handle RAII, s/d dispatch of the public API,
// LAPACK references, sentinels. Generators and ratios live in testing/ (gpusvd_util).
#pragma once

#include <gtest/gtest.h>
// Complex LAPACKE arguments as std::complex, as in the library (src/cpu/lapack.hpp).
#ifndef LAPACK_COMPLEX_CPP
#define LAPACK_COMPLEX_CPP
#endif
#ifndef lapack_complex_float
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#endif
#include <complex>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gpusvd.h"
#include "api.hpp"
#include "matgen.hpp"
#include "ratios.hpp"

namespace gpusvd_test {

using namespace gpusvd_util;

using Precisions = ::testing::Types<float, double>;

/// gtest name generator for TYPED_TEST_SUITE: "float" / "double".
struct PrecisionName {
    template <typename T>
    static std::string GetName(int) {
        return std::is_same<T, float>::value ? "float" : "double";
    }
};

/// gtest name generator for complex suites typed on the real part: "complex_float" /
/// "complex_double".
struct ComplexPrecisionName {
    template <typename T>
    static std::string GetName(int) {
        return std::is_same<T, float>::value ? "complex_float" : "complex_double";
    }
};

/// int64_t -> size_t for sizes and indices (avoids C++'s most vexing parse of size_t(x)).
constexpr size_t sz(int64_t v) { return static_cast<size_t>(v); }

template <typename T>
constexpr double eps() {
    return double(std::numeric_limits<T>::epsilon());
}

template <typename T>
T nan_v() {
    return std::numeric_limits<T>::quiet_NaN();
}

/// A value no routine produces by accident; outputs are pre-filled with it.
template <typename T>
constexpr T sentinel() {
    return T(-12345.6875);
}

template <typename T>
std::vector<T> sentinels(size_t count) {
    return std::vector<T>(count, sentinel<T>());
}

template <typename T>
bool all_equal(const std::vector<T> &v, T value) {
    return std::all_of(v.begin(), v.end(), [&](T x) { return x == value; });
}

/// Bitwise comparison (NaN-safe) of two arrays.
template <typename T>
bool same_bits(const std::vector<T> &a, const std::vector<T> &b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// Owns a gpusvd handle for one test.
class Handle {
public:
    Handle() {
        const gpusvdStatus_t st = gpusvdCreate(&h_);
        EXPECT_EQ(st, GPUSVD_STATUS_SUCCESS);
    }
    ~Handle() { gpusvdDestroy(h_); }
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;
    operator gpusvdHandle_t() const { return h_; }
    gpusvdHandle_t get() const { return h_; }

private:
    gpusvdHandle_t h_ = nullptr;
};

#define GPUSVD_EXPECT_OK(handle, call)                                                        \
    do {                                                                                      \
        const gpusvdStatus_t st_ = (call);                                                    \
        EXPECT_EQ(st_, GPUSVD_STATUS_SUCCESS)                                                 \
            << gpusvdGetStatusName(st_) << ": " << gpusvdGetErrorMessage(handle);             \
    } while (0)

#define GPUSVD_ASSERT_OK(handle, call)                                                        \
    do {                                                                                      \
        const gpusvdStatus_t st_ = (call);                                                    \
        ASSERT_EQ(st_, GPUSVD_STATUS_SUCCESS)                                                 \
            << gpusvdGetStatusName(st_) << ": " << gpusvdGetErrorMessage(handle);             \
    } while (0)

// Api<T> (s/d dispatch of the public API) comes from testing/api.hpp.

// ------------------------------------------------------------------------------------------------
// LAPACK references (LAPACKE, on copies)
// ------------------------------------------------------------------------------------------------

inline lapack_int lapacke_gesvd(char ju, char jv, lapack_int m, lapack_int n, double *a,
                                lapack_int lda, double *s, double *u, lapack_int ldu, double *vt,
                                lapack_int ldvt, double *superb) {
    return LAPACKE_dgesvd(LAPACK_COL_MAJOR, ju, jv, m, n, a, lda, s, u, ldu, vt, ldvt, superb);
}
inline lapack_int lapacke_gesvd(char ju, char jv, lapack_int m, lapack_int n, float *a,
                                lapack_int lda, float *s, float *u, lapack_int ldu, float *vt,
                                lapack_int ldvt, float *superb) {
    return LAPACKE_sgesvd(LAPACK_COL_MAJOR, ju, jv, m, n, a, lda, s, u, ldu, vt, ldvt, superb);
}
inline lapack_int lapacke_geevx(lapack_int n, double *a, lapack_int lda, double *wr, double *wi,
                                double *vl, double *vr, double *rconde) {
    lapack_int ilo, ihi;
    std::vector<double> scale(static_cast<size_t>(std::max<lapack_int>(n, 1))),
        rcondv(static_cast<size_t>(std::max<lapack_int>(n, 1)));
    double abnrm;
    return LAPACKE_dgeevx(LAPACK_COL_MAJOR, 'B', 'V', 'V', 'E', n, a, lda, wr, wi, vl, n, vr, n,
                          &ilo, &ihi, scale.data(), &abnrm, rconde, rcondv.data());
}
inline lapack_int lapacke_geevx(lapack_int n, float *a, lapack_int lda, float *wr, float *wi,
                                float *vl, float *vr, float *rconde) {
    lapack_int ilo, ihi;
    std::vector<float> scale(static_cast<size_t>(std::max<lapack_int>(n, 1))),
        rcondv(static_cast<size_t>(std::max<lapack_int>(n, 1)));
    float abnrm;
    return LAPACKE_sgeevx(LAPACK_COL_MAJOR, 'B', 'V', 'V', 'E', n, a, lda, wr, wi, vl, n, vr, n,
                          &ilo, &ihi, scale.data(), &abnrm, rconde, rcondv.data());
}
inline lapack_int lapacke_bdsqr(char uplo, lapack_int n, double *d, double *e) {
    return LAPACKE_dbdsqr(LAPACK_COL_MAJOR, uplo, n, 0, 0, 0, d, e, nullptr, 1, nullptr, 1,
                          nullptr, 1);
}
inline lapack_int lapacke_bdsqr(char uplo, lapack_int n, float *d, float *e) {
    return LAPACKE_sbdsqr(LAPACK_COL_MAJOR, uplo, n, 0, 0, 0, d, e, nullptr, 1, nullptr, 1,
                          nullptr, 1);
}

/// Singular values (descending) of the m x n matrix A by LAPACK ?gesvd, computed on a copy.
template <typename T>
std::vector<T> ref_singular_values(int64_t m, int64_t n, const T *A, int64_t lda) {
    const int64_t k = std::min(m, n);
    std::vector<T> W(static_cast<size_t>(std::max<int64_t>(m * n, 1))), S(static_cast<size_t>(std::max<int64_t>(k, 1))),
        superb(static_cast<size_t>(std::max<int64_t>(k, 1)));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) W[static_cast<size_t>(i + j * m)] = A[i + j * lda];
    if (k > 0) {
        T dummy = 0;
        const lapack_int info =
            lapacke_gesvd('N', 'N', lapack_int(m), lapack_int(n), W.data(),
                          lapack_int(std::max<int64_t>(m, 1)), S.data(), &dummy, 1, &dummy, 1,
                          superb.data());
        EXPECT_EQ(info, 0) << "reference ?gesvd failed";
    }
    S.resize(static_cast<size_t>(k));
    return S;
}

/// The p principal components (n x p, column j = row j of VT, p x n) with gpusvd.h's sign
/// convention: each component's entry of largest magnitude (the first on ties) is positive.
template <typename T>
std::vector<T> signed_components(int64_t n, int64_t p, const std::vector<T> &VT) {
    std::vector<T> C(static_cast<size_t>(n * p));
    for (int64_t j = 0; j < p; ++j) {
        int64_t arg = 0;
        for (int64_t c = 1; c < n; ++c)
            if (std::fabs(VT[static_cast<size_t>(j + c * p)]) >
                std::fabs(VT[static_cast<size_t>(j + arg * p)]))
                arg = c;
        const T sign = VT[static_cast<size_t>(j + arg * p)] < 0 ? T(-1) : T(1);
        for (int64_t c = 0; c < n; ++c)
            C[static_cast<size_t>(c + j * n)] = sign * VT[static_cast<size_t>(j + c * p)];
    }
    return C;
}

/// 2-norm condition number of A (inf when singular), from ref_singular_values.
template <typename T>
double cond2(int64_t m, int64_t n, const T *A, int64_t lda) {
    const std::vector<T> s = ref_singular_values(m, n, A, lda);
    if (s.empty()) return 1.0;
    return s.back() > 0 ? double(s.front()) / double(s.back())
                        : std::numeric_limits<double>::infinity();
}

/// Singular values of A computed in long double by one-sided (Hestenes) Jacobi with a tight
/// tolerance: a reference with high relative accuracy for column-graded matrices.
template <typename T>
std::vector<long double> ref_jacobi_long_double(int64_t m, int64_t n, const T *A, int64_t lda) {
    // Work on the taller orientation so the columns to orthogonalise are the short side.
    const bool tr = m < n;
    const int64_t rows = tr ? n : m, cols = tr ? m : n;
    std::vector<long double> W(static_cast<size_t>(rows * cols));
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i)
            W[static_cast<size_t>(i + j * rows)] = tr ? (long double)A[j + i * lda] : (long double)A[i + j * lda];
    const long double tol = 4 * std::numeric_limits<long double>::epsilon();
    for (int sweep = 0; sweep < 100; ++sweep) {
        bool rotated = false;
        for (int64_t p = 0; p < cols - 1; ++p)
            for (int64_t q = p + 1; q < cols; ++q) {
                long double *x = &W[static_cast<size_t>(p * rows)], *y = &W[static_cast<size_t>(q * rows)];
                long double a = 0, b = 0, c = 0;
                for (int64_t i = 0; i < rows; ++i) {
                    a += x[i] * x[i];
                    b += y[i] * y[i];
                    c += x[i] * y[i];
                }
                if (c == 0 || std::fabs(c) <= tol * std::sqrt(a) * std::sqrt(b)) continue;
                rotated = true;
                const long double zeta = (b - a) / (2 * c);
                const long double t =
                    (zeta >= 0 ? 1 : -1) / (std::fabs(zeta) + std::sqrt(1 + zeta * zeta));
                const long double cs = 1 / std::sqrt(1 + t * t), sn = cs * t;
                for (int64_t i = 0; i < rows; ++i) {
                    const long double xi = x[i], yi = y[i];
                    x[i] = cs * xi - sn * yi;
                    y[i] = sn * xi + cs * yi;
                }
            }
        if (!rotated) break;
    }
    std::vector<long double> s(static_cast<size_t>(cols));
    for (int64_t j = 0; j < cols; ++j) {
        long double ss = 0;
        for (int64_t i = 0; i < rows; ++i) ss += W[static_cast<size_t>(i + j * rows)] * W[static_cast<size_t>(i + j * rows)];
        s[static_cast<size_t>(j)] = std::sqrt(ss);
    }
    std::sort(s.begin(), s.end(), [](long double a, long double b) { return a > b; });
    return s;
}

/// Copy an m x n matrix into an array with leading dimension ld (extra rows hold `pad`).
template <typename T>
std::vector<T> with_ld(int64_t m, int64_t n, const T *A, int64_t lda, int64_t ld, T pad) {
    std::vector<T> out(static_cast<size_t>(std::max<int64_t>(ld * n, 1)), pad);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) out[static_cast<size_t>(i + j * ld)] = A[i + j * lda];
    return out;
}

/// true if rows m..ld-1 of every column of the ld x n array still hold `pad`.
template <typename T>
bool padding_intact(int64_t m, int64_t n, const T *A, int64_t ld, T pad) {
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = m; i < ld; ++i)
            if (!(A[i + j * ld] == pad)) return false;
    return true;
}

/// GPUSVD_TEST_VERBOSE=1 in the environment prints the measured ratios.
inline bool verbose() {
    static const bool v = std::getenv("GPUSVD_TEST_VERBOSE") != nullptr;
    return v;
}

/// Is a usable GPU present (AUTO resolves to GPU)?
inline bool device_present() {
    gpusvdHandle_t h = nullptr;
    if (gpusvdCreate(&h) != GPUSVD_STATUS_SUCCESS) return false;
    gpusvdBackend_t b = GPUSVD_BACKEND_CPU;
    gpusvdGetBackend(h, &b);
    gpusvdDestroy(h);
    return b == GPUSVD_BACKEND_GPU;
}

/// GPUSVD_TEST_GPU_AS_CPU=1 in the environment: the device tests (label `gpu`) run their checks
/// on the CPU backend, with host memory standing in for device memory and the host forms for the
/// `_gpu` forms, which checks the tests themselves on a machine without a GPU.
inline bool gpu_as_cpu() {
    static const bool v = [] {
        const char *e = std::getenv("GPUSVD_TEST_GPU_AS_CPU");
        return e && *e && std::strcmp(e, "0") != 0;
    }();
    return v;
}

/// GPUSVD_TEST_QUICK=1 in the environment: the device tests shrink their large batches (for runs
/// under compute-sanitizer, which slows kernels down by orders of magnitude). Returns `quick`
/// then, else `full`.
inline int64_t full_or_quick(int64_t full, int64_t quick) {
    static const bool q = [] {
        const char *e = std::getenv("GPUSVD_TEST_QUICK");
        return e && *e && std::strcmp(e, "0") != 0;
    }();
    return q ? quick : full;
}

/// Sets an environment variable (value NULL: unsets it) for the guard's lifetime, then restores
/// it: the GPU backend's tuning switches (docs/design.md), which it reads at every call.
class ScopedEnv {
public:
    ScopedEnv(const char *name, const char *value) : name_(name) {
        const char *old = std::getenv(name);
        had_ = old != nullptr;
        if (had_) old_ = old;
        set(value);
    }
    ~ScopedEnv() { set(had_ ? old_.c_str() : nullptr); }
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
    void set(const char *value) const {
        EXPECT_EQ(value ? setenv(name_.c_str(), value, 1) : unsetenv(name_.c_str()), 0) << name_;
    }
    std::string name_, old_;
    bool had_ = false;
};

/// Puts h on the backend the device tests exercise: GPU (CPU under GPUSVD_TEST_GPU_AS_CPU).
inline gpusvdStatus_t set_device_test_backend(gpusvdHandle_t h) {
    return gpusvdSetBackend(h, gpu_as_cpu() ? GPUSVD_BACKEND_CPU : GPUSVD_BACKEND_GPU);
}

}  // namespace gpusvd_test

/// First statement of a device test (or its fixture's SetUp): puts `handle` on the GPU backend and
/// skips the test when there is no usable GPU (CI); any other failure fails it.
#define GPUSVD_SKIP_WITHOUT_DEVICE(handle)                                                    \
    do {                                                                                      \
        const gpusvdStatus_t st_ = gpusvd_test::set_device_test_backend(handle);             \
        if (st_ == GPUSVD_STATUS_NO_DEVICE)                                                   \
            GTEST_SKIP() << "no usable GPU: " << gpusvdGetErrorMessage(handle);               \
        ASSERT_EQ(st_, GPUSVD_STATUS_SUCCESS)                                                 \
            << gpusvdGetStatusName(st_) << ": " << gpusvdGetErrorMessage(handle);             \
    } while (0)

namespace gpusvd_test {

/// Fixture of the device tests: a handle on the GPU backend; skips without a usable GPU.
template <typename T>
class DeviceTest : public ::testing::Test {
protected:
    void SetUp() override { GPUSVD_SKIP_WITHOUT_DEVICE(h); }
    Handle h;
};

}  // namespace gpusvd_test
