// Invalid arguments, overflowing and unsupported sizes, zero-size problems and NaN/Inf inputs,
// for every routine. A rejected call must change no output. (Allocation failure: see
// test_resources.cpp.)

#include <cstdio>
#include <functional>
#include <sstream>
#include <string>

#include "arg_model.hpp"
#include "test_common.hpp"

using namespace gpusvd_test;

namespace {

constexpr int64_t kBig62 = int64_t(1) << 62;
constexpr int64_t k2p31 = int64_t(1) << 31;  // first size LAPACK's 32-bit integers cannot hold

template <typename T>
const char *prec() {
    return std::is_same<T, float>::value ? "s" : "d";
}

template <typename T>
void append_bytes(std::vector<unsigned char> &out, const std::vector<T> &v) {
    const auto *p = reinterpret_cast<const unsigned char *>(v.data());
    out.insert(out.end(), p, p + v.size() * sizeof(T));
}

template <typename T>
std::vector<T> random_vec(size_t count, uint64_t seed) {
    std::vector<T> v(count);
    fill_uniform(v.data(), count, seed);
    return v;
}

// ------------------------------------------------------------------------------------------------
// Argument bundles: valid by default; a test mutates one thing and expects a status.
// ------------------------------------------------------------------------------------------------

template <typename T>
struct GesvjArgs {
    gpusvdHandle_t h;
    bool batched;
    // Enum arguments are kept as int (a C caller may pass any int; loading an out-of-range
    // value through a C++ enum lvalue would be UB in the test itself).
    int jobu = GPUSVD_JOB_VEC, jobv = GPUSVD_JOB_VEC;
    int64_t m = 5, n = 3, lda = 6, ldu = 5, ldv = 4, batch = 2;
    int64_t sA = 6 * 3, sS = 3, sU = 5 * 3, sV = 4 * 3;
    std::vector<T> A = random_vec<T>(64, 1), S = sentinels<T>(16), U = sentinels<T>(64),
                   V = sentinels<T>(64);
    std::vector<int> info = std::vector<int>(4, -777);
    T *pA = A.data(), *pS = S.data(), *pU = U.data(), *pV = V.data();
    int *pinfo = info.data();

    GesvjArgs(gpusvdHandle_t handle, bool b) : h(handle), batched(b) {}
    std::string name() const {
        return std::string("gpusvd_") + prec<T>() + (batched ? "gesvj_batched" : "gesvj");
    }
    gpusvdStatus_t call() {
        if (batched)
            return Api<T>::gesvj_batched(h, gpusvdJob_t(jobu), gpusvdJob_t(jobv), m, n, pA, lda, sA, pS, sS, pU, ldu, sU, pV,
                                         ldv, sV, batch, pinfo);
        return Api<T>::gesvj(h, gpusvdJob_t(jobu), gpusvdJob_t(jobv), m, n, pA, lda, pS, pU, ldu, pV, ldv, pinfo);
    }
    std::vector<unsigned char> state() const {
        std::vector<unsigned char> s;
        append_bytes(s, A), append_bytes(s, S), append_bytes(s, U), append_bytes(s, V);
        append_bytes(s, info);
        return s;
    }
};

template <typename T>
struct GeqrfArgs {
    gpusvdHandle_t h;
    bool batched;
    int orth = GPUSVD_ORTH_MGS2;
    int64_t m = 5, n = 3, lda = 6, ldr = 4, batch = 2, sA = 18, sR = 12;
    std::vector<T> A = random_vec<T>(64, 2), R = sentinels<T>(64);
    std::vector<int> info = std::vector<int>(4, -777);
    T *pA = A.data(), *pR = R.data();
    int *pinfo = info.data();

    GeqrfArgs(gpusvdHandle_t handle, bool b) : h(handle), batched(b) {}
    std::string name() const {
        return std::string("gpusvd_") + prec<T>() + (batched ? "geqrf_mgs_batched" : "geqrf_mgs");
    }
    gpusvdStatus_t call() {
        if (batched)
            return Api<T>::geqrf_mgs_batched(h, gpusvdOrth_t(orth), m, n, pA, lda, sA, pR, ldr, sR, batch,
                                             pinfo);
        return Api<T>::geqrf_mgs(h, gpusvdOrth_t(orth), m, n, pA, lda, pR, ldr, pinfo);
    }
    std::vector<unsigned char> state() const {
        std::vector<unsigned char> s;
        append_bytes(s, A), append_bytes(s, R), append_bytes(s, info);
        return s;
    }
};

template <typename T>
struct GeevArgs {
    gpusvdHandle_t h;
    int jobvr = GPUSVD_JOB_VEC;
    int64_t n = 4, lda = 5, sA = 20, sW = 4, ldvr = 4, sVR = 16, batch = 2;
    std::vector<T> A = random_vec<T>(64, 3), wr = sentinels<T>(16), wi = sentinels<T>(16),
                   VR = sentinels<T>(64);
    std::vector<int> info = std::vector<int>(4, -777);
    T *pA = A.data(), *pwr = wr.data(), *pwi = wi.data(), *pVR = VR.data();
    int *pinfo = info.data();

    GeevArgs(gpusvdHandle_t handle, bool) : h(handle) {}
    std::string name() const { return std::string("gpusvd_") + prec<T>() + "geev_batched"; }
    gpusvdStatus_t call() {
        return Api<T>::geev_batched(h, gpusvdJob_t(jobvr), n, pA, lda, sA, pwr, pwi, sW, pVR, ldvr, sVR, batch,
                                    pinfo);
    }
    std::vector<unsigned char> state() const {
        std::vector<unsigned char> s;
        append_bytes(s, A), append_bytes(s, wr), append_bytes(s, wi), append_bytes(s, VR);
        append_bytes(s, info);
        return s;
    }
};

template <typename T>
struct BdsvdArgs {
    gpusvdHandle_t h;
    int uplo = GPUSVD_UPPER, jobz = GPUSVD_JOB_VEC;
    int64_t n = 4, ldu = 5, ldvt = 4;
    std::vector<T> d = random_vec<T>(8, 4), e = random_vec<T>(8, 5), U = sentinels<T>(32),
                   VT = sentinels<T>(32);
    std::vector<int> info = std::vector<int>(1, -777);
    T *pd = d.data(), *pe = e.data(), *pU = U.data(), *pVT = VT.data();
    int *pinfo = info.data();

    BdsvdArgs(gpusvdHandle_t handle, bool) : h(handle) {}
    std::string name() const { return std::string("gpusvd_") + prec<T>() + "bdsvd"; }
    gpusvdStatus_t call() {
        return Api<T>::bdsvd(h, gpusvdUplo_t(uplo), gpusvdJob_t(jobz), n, pd, pe, pU, ldu, pVT, ldvt, pinfo);
    }
    std::vector<unsigned char> state() const {
        std::vector<unsigned char> s;
        append_bytes(s, d), append_bytes(s, e), append_bytes(s, U), append_bytes(s, VT);
        append_bytes(s, info);
        return s;
    }
};

template <typename T>
struct PcaArgs {
    gpusvdHandle_t h;
    int64_t m = 6, n = 3, ldx = 7, k = 2, ldc = 4, lds = 6;
    std::vector<T> X = random_vec<T>(64, 6), C = sentinels<T>(32), var = sentinels<T>(8),
                   scores = sentinels<T>(32), mean = sentinels<T>(8);
    std::vector<int> info = std::vector<int>(1, -777);
    const T *pX = X.data();
    T *pC = C.data(), *pvar = var.data(), *pscores = scores.data(), *pmean = mean.data();
    int *pinfo = info.data();

    PcaArgs(gpusvdHandle_t handle, bool) : h(handle) {}
    std::string name() const { return std::string("gpusvd_") + prec<T>() + "pca"; }
    gpusvdStatus_t call() {
        return Api<T>::pca(h, m, n, pX, ldx, k, pC, ldc, pvar, pscores, lds, pmean, pinfo);
    }
    std::vector<unsigned char> state() const {
        std::vector<unsigned char> s;
        append_bytes(s, X), append_bytes(s, C), append_bytes(s, var), append_bytes(s, scores);
        append_bytes(s, mean), append_bytes(s, info);
        return s;
    }
};

/// Applies `mutate` to a fresh valid bundle, calls, and checks status, message and that nothing
/// was written.
template <class Args>
void expect_status(gpusvdHandle_t h, bool batched, const char *what,
                   const std::function<void(Args &)> &mutate, gpusvdStatus_t expected,
                   const char *arg_in_message = nullptr) {
    SCOPED_TRACE(what);
    Args a(h, batched);
    mutate(a);
    const std::vector<unsigned char> before = a.state();
    if (verbose()) std::printf("  %s: %s\n", a.name().c_str(), what), std::fflush(stdout);
    const gpusvdStatus_t st = a.call();
    const std::string msg = gpusvdGetErrorMessage(a.h);
    EXPECT_EQ(st, expected) << a.name() << " (" << what << "): got " << gpusvdGetStatusName(st)
                            << " " << msg;
    if (expected != GPUSVD_STATUS_SUCCESS) {
        EXPECT_TRUE(a.state() == before) << a.name() << " (" << what << ") changed an output";
        EXPECT_NE(msg.find(a.name()), std::string::npos) << "message names the routine: " << msg;
        if (arg_in_message) {
            EXPECT_NE(msg.find(arg_in_message), std::string::npos)
                << "message names '" << arg_in_message << "': " << msg;
        }
    }
}

template <typename T>
class BadInputTest : public ::testing::Test {
protected:
    Handle h;
    void SetUp() override { ASSERT_EQ(gpusvdSetBackend(h, GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS); }
};
TYPED_TEST_SUITE(BadInputTest, Precisions, PrecisionName);

constexpr gpusvdStatus_t INVALID = GPUSVD_STATUS_INVALID_VALUE;
constexpr gpusvdStatus_t UNSUPPORTED = GPUSVD_STATUS_NOT_SUPPORTED;
constexpr gpusvdStatus_t OK = GPUSVD_STATUS_SUCCESS;

// ------------------------------------------------------------------------------------------------
// gesvj / gesvj_batched
// ------------------------------------------------------------------------------------------------

TYPED_TEST(BadInputTest, Gesvj) {
    using A = GesvjArgs<TypeParam>;
    for (bool b : {false, true}) {
        SCOPED_TRACE(b ? "batched" : "single");
        gpusvdHandle_t h = this->h;
        expect_status<A>(h, b, "valid", [](A &) {}, OK);
        expect_status<A>(h, b, "NULL handle", [](A &a) { a.h = nullptr; }, INVALID, "handle");
        expect_status<A>(h, b, "jobu = 7", [](A &a) { a.jobu = 7; }, INVALID, "jobu");
        expect_status<A>(h, b, "jobv = -1", [](A &a) { a.jobv = -1; }, INVALID, "jobv");
        expect_status<A>(h, b, "m < 0", [](A &a) { a.m = -1; }, INVALID, "-1");
        expect_status<A>(h, b, "n < 0", [](A &a) { a.n = -2; }, INVALID, "-2");
        expect_status<A>(h, b, "lda < m", [](A &a) { a.lda = 4; }, INVALID, "lda");
        expect_status<A>(h, b, "lda = 0", [](A &a) { a.lda = 0; }, INVALID, "lda");
        expect_status<A>(h, b, "ldu < m", [](A &a) { a.ldu = 4; }, INVALID, "ldu");
        expect_status<A>(h, b, "ldv < n", [](A &a) { a.ldv = 2; }, INVALID, "ldv");
        expect_status<A>(h, b, "A NULL", [](A &a) { a.pA = nullptr; }, INVALID, "A");
        expect_status<A>(h, b, "S NULL", [](A &a) { a.pS = nullptr; }, INVALID, "S");
        expect_status<A>(h, b, "U NULL", [](A &a) { a.pU = nullptr; }, INVALID, "U");
        expect_status<A>(h, b, "V NULL", [](A &a) { a.pV = nullptr; }, INVALID, "V");
        expect_status<A>(h, b, "info NULL", [](A &a) { a.pinfo = nullptr; }, INVALID, "info");
        // not referenced: fine
        expect_status<A>(h, b, "jobu NOVEC, U NULL, ldu 0", [](A &a) {
            a.jobu = GPUSVD_JOB_NOVEC, a.pU = nullptr, a.ldu = 0, a.sU = 0;
        }, OK);
        expect_status<A>(h, b, "jobv NOVEC, V NULL, ldv 0", [](A &a) {
            a.jobv = GPUSVD_JOB_NOVEC, a.pV = nullptr, a.ldv = 0, a.sV = 0;
        }, OK);
        // overflowing sizes
        expect_status<A>(h, b, "m = n = 2^62", [](A &a) {
            a.m = a.n = kBig62, a.lda = a.ldu = a.ldv = kBig62, a.sA = a.sS = a.sU = a.sV = INT64_MAX;
        }, INVALID);
        expect_status<A>(h, b, "lda * n overflows", [](A &a) {
            a.n = 3, a.lda = INT64_MAX / 2, a.sA = INT64_MAX;
        }, INVALID);
        // beyond LAPACK's 32-bit integers on the CPU backend
        expect_status<A>(h, b, "m = 2^31", [](A &a) {
            a.m = k2p31, a.n = 1, a.lda = a.ldu = k2p31, a.ldv = 1, a.sA = a.sU = k2p31, a.sS = a.sV = 1;
        }, UNSUPPORTED, "m");
        expect_status<A>(h, b, "lda = 2^31", [](A &a) { a.lda = k2p31, a.sA = 3 * k2p31; },
                         UNSUPPORTED, "lda");
        expect_status<A>(h, b, "m*n >= 2^31", [](A &a) {
            a.m = int64_t(1) << 16, a.n = int64_t(1) << 15, a.lda = a.ldu = int64_t(1) << 16;
            a.ldv = a.n, a.jobu = a.jobv = GPUSVD_JOB_NOVEC, a.sA = int64_t(1) << 31, a.sS = a.n;
        }, UNSUPPORTED);
        if (b) {
            expect_status<A>(h, b, "batchCount < 0", [](A &a) { a.batch = -1; }, INVALID, "batchCount");
            expect_status<A>(h, b, "strideA < lda*n", [](A &a) { a.sA = 17; }, INVALID, "strideA");
            expect_status<A>(h, b, "strideS < k", [](A &a) { a.sS = 2; }, INVALID, "strideS");
            expect_status<A>(h, b, "strideU < ldu*k", [](A &a) { a.sU = 14; }, INVALID, "strideU");
            expect_status<A>(h, b, "strideV < ldv*k", [](A &a) { a.sV = 11; }, INVALID, "strideV");
            expect_status<A>(h, b, "batch*strideA overflows int64", [](A &a) {
                a.batch = int64_t(1) << 40, a.sA = int64_t(1) << 40;
            }, INVALID);
            expect_status<A>(h, b, "batch*strideA bytes overflow size_t", [](A &a) {
                a.batch = int64_t(1) << 35, a.sA = int64_t(1) << 28;  // 2^63 - 2^28 elements
            }, INVALID);
            expect_status<A>(h, b, "strides only checked for batch > 1", [](A &a) {
                a.batch = 1, a.sA = a.sS = a.sU = a.sV = 0;
            }, OK);
        }
    }
}

TYPED_TEST(BadInputTest, GesvjZeroSize) {
    using T = TypeParam;
    gpusvdHandle_t h = this->h;
    for (auto mn : {std::pair<int64_t, int64_t>{0, 4}, {4, 0}, {0, 0}}) {
        SCOPED_TRACE(testing::Message() << mn.first << " x " << mn.second);
        int info = -777;
        EXPECT_EQ(Api<T>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, mn.first, mn.second, nullptr,
                                std::max<int64_t>(1, mn.first), nullptr, nullptr,
                                std::max<int64_t>(1, mn.first), nullptr,
                                std::max<int64_t>(1, mn.second), &info),
                  OK) << gpusvdGetErrorMessage(h);
        EXPECT_EQ(info, 0);
        // non-NULL arrays are not touched
        std::vector<T> A = sentinels<T>(8), S = sentinels<T>(8), U = sentinels<T>(8),
                       V = sentinels<T>(8);
        info = -777;
        EXPECT_EQ(Api<T>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, mn.first, mn.second, A.data(),
                                std::max<int64_t>(1, mn.first), S.data(), U.data(),
                                std::max<int64_t>(1, mn.first), V.data(),
                                std::max<int64_t>(1, mn.second), &info),
                  OK);
        EXPECT_EQ(info, 0);
        for (const auto *v : {&A, &S, &U, &V}) EXPECT_TRUE(all_equal(*v, sentinel<T>()));
        std::vector<int> infos(3, -777);
        // strides follow the rules (strideA >= lda * n, the others are 0 for k = 0)
        const int64_t lda = std::max<int64_t>(1, mn.first);
        EXPECT_EQ(Api<T>::gesvj_batched(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, mn.first, mn.second,
                                        nullptr, lda, lda * mn.second, nullptr, 0, nullptr, lda, 0,
                                        nullptr, std::max<int64_t>(1, mn.second), 0, 3,
                                        infos.data()),
                  OK) << gpusvdGetErrorMessage(h);
        for (int i : infos) EXPECT_EQ(i, 0);
    }
    // batchCount = 0: everything may be NULL, info too.
    EXPECT_EQ(Api<T>::gesvj_batched(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 5, 3, nullptr, 5, 15, nullptr,
                                    3, nullptr, 5, 15, nullptr, 3, 9, 0, nullptr),
              OK) << gpusvdGetErrorMessage(h);
}

TYPED_TEST(BadInputTest, GesvjNonFinite) {
    using T = TypeParam;
    Rng rng(9);
    const int64_t m = 6, n = 4;
    for (T bad : {nan_v<T>(), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity()}) {
        std::vector<T> A = gaussian<T>(rng, m, n), S(sz(n), T(1)), U(sz(m * n), T(1)), V(sz(n * n), T(1));
        A[sz(m * n - 1)] = bad;
        int info = 0;
        GPUSVD_ASSERT_OK(this->h, Api<T>::gesvj(this->h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n,
                                                A.data(), m, S.data(), U.data(), m, V.data(), n,
                                                &info));
        EXPECT_EQ(info, GPUSVD_INFO_NONFINITE);
        EXPECT_TRUE(all_nan(n, 1, S.data(), n));
        EXPECT_TRUE(all_nan(m, n, U.data(), m));
        EXPECT_TRUE(all_nan(n, n, V.data(), n));
    }
}

// ------------------------------------------------------------------------------------------------
// geqrf_mgs / geqrf_mgs_batched
// ------------------------------------------------------------------------------------------------

TYPED_TEST(BadInputTest, GeqrfMgs) {
    using A = GeqrfArgs<TypeParam>;
    for (bool b : {false, true}) {
        SCOPED_TRACE(b ? "batched" : "single");
        gpusvdHandle_t h = this->h;
        expect_status<A>(h, b, "valid", [](A &) {}, OK);
        expect_status<A>(h, b, "valid m < n", [](A &a) { a.m = 3, a.n = 5, a.lda = 3, a.ldr = 3, a.sA = 15, a.sR = 15; }, OK);
        expect_status<A>(h, b, "NULL handle", [](A &a) { a.h = nullptr; }, INVALID, "handle");
        expect_status<A>(h, b, "orth = 7", [](A &a) { a.orth = 7; }, INVALID, "orth");
        expect_status<A>(h, b, "orth = -1", [](A &a) { a.orth = -1; }, INVALID, "orth");
        expect_status<A>(h, b, "m < 0", [](A &a) { a.m = -1; }, INVALID, "m");
        expect_status<A>(h, b, "n < 0", [](A &a) { a.n = -1; }, INVALID, "n");
        expect_status<A>(h, b, "lda < m", [](A &a) { a.lda = 4; }, INVALID, "lda");
        expect_status<A>(h, b, "ldr < min(m,n)", [](A &a) { a.ldr = 2; }, INVALID, "ldr");
        expect_status<A>(h, b, "A NULL", [](A &a) { a.pA = nullptr; }, INVALID, "A");
        expect_status<A>(h, b, "R NULL", [](A &a) { a.pR = nullptr; }, INVALID, "R");
        expect_status<A>(h, b, "info NULL", [](A &a) { a.pinfo = nullptr; }, INVALID, "info");
        expect_status<A>(h, b, "m = n = 2^62", [](A &a) {
            a.m = a.n = a.lda = a.ldr = kBig62, a.sA = a.sR = INT64_MAX;
        }, INVALID);
        expect_status<A>(h, b, "m = 2^31", [](A &a) {
            a.m = k2p31, a.n = 1, a.lda = k2p31, a.ldr = 1, a.sA = k2p31, a.sR = 1;
        }, UNSUPPORTED, "m");
        expect_status<A>(h, b, "ldr = 2^31", [](A &a) { a.ldr = k2p31, a.sR = 3 * k2p31; },
                         UNSUPPORTED, "ldr");
        if (b) {
            expect_status<A>(h, b, "batchCount < 0", [](A &a) { a.batch = -5; }, INVALID, "batchCount");
            expect_status<A>(h, b, "strideA < lda*n", [](A &a) { a.sA = 17; }, INVALID, "strideA");
            expect_status<A>(h, b, "strideR < ldr*n", [](A &a) { a.sR = 11; }, INVALID, "strideR");
            expect_status<A>(h, b, "batch*stride overflows", [](A &a) {
                a.batch = int64_t(1) << 50, a.sA = int64_t(1) << 20;
            }, INVALID);
            expect_status<A>(h, b, "batch 0, all NULL", [](A &a) {
                a.batch = 0, a.pA = nullptr, a.pR = nullptr, a.pinfo = nullptr;
            }, OK);
        }
    }
}

TYPED_TEST(BadInputTest, GeqrfMgsZeroSize) {
    using T = TypeParam;
    for (auto mn : {std::pair<int64_t, int64_t>{0, 4}, {4, 0}, {0, 0}}) {
        SCOPED_TRACE(testing::Message() << mn.first << " x " << mn.second);
        std::vector<T> A = sentinels<T>(4), R = sentinels<T>(4);
        int info = -777;
        EXPECT_EQ(Api<T>::geqrf_mgs(this->h, GPUSVD_ORTH_MGS, mn.first, mn.second, nullptr,
                                    std::max<int64_t>(1, mn.first), nullptr, 1, &info),
                  OK) << gpusvdGetErrorMessage(this->h);
        EXPECT_EQ(info, 0);
        info = -777;
        EXPECT_EQ(Api<T>::geqrf_mgs(this->h, GPUSVD_ORTH_MGS2, mn.first, mn.second, A.data(),
                                    std::max<int64_t>(1, mn.first), R.data(), 1, &info),
                  OK);
        EXPECT_EQ(info, 0);
        EXPECT_TRUE(all_equal(A, sentinel<T>()));
        EXPECT_TRUE(all_equal(R, sentinel<T>()));
    }
}

// ------------------------------------------------------------------------------------------------
// geev_batched
// ------------------------------------------------------------------------------------------------

TYPED_TEST(BadInputTest, GeevBatched) {
    using A = GeevArgs<TypeParam>;
    gpusvdHandle_t h = this->h;
    const bool b = true;
    expect_status<A>(h, b, "valid", [](A &) {}, OK);
    expect_status<A>(h, b, "NULL handle", [](A &a) { a.h = nullptr; }, INVALID, "handle");
    expect_status<A>(h, b, "jobvr = 7", [](A &a) { a.jobvr = 7; }, INVALID, "jobvr");
    expect_status<A>(h, b, "n < 0", [](A &a) { a.n = -1; }, INVALID, "n");
    expect_status<A>(h, b, "batchCount < 0", [](A &a) { a.batch = -1; }, INVALID, "batchCount");
    expect_status<A>(h, b, "lda < n", [](A &a) { a.lda = 3, a.sA = 12; }, INVALID, "lda");
    expect_status<A>(h, b, "ldvr < n", [](A &a) { a.ldvr = 3, a.sVR = 12; }, INVALID, "ldvr");
    expect_status<A>(h, b, "strideA < lda*n", [](A &a) { a.sA = 19; }, INVALID, "strideA");
    expect_status<A>(h, b, "strideW < n", [](A &a) { a.sW = 3; }, INVALID, "strideW");
    expect_status<A>(h, b, "strideVR < ldvr*n", [](A &a) { a.sVR = 15; }, INVALID, "strideVR");
    expect_status<A>(h, b, "A NULL", [](A &a) { a.pA = nullptr; }, INVALID, "A");
    expect_status<A>(h, b, "wr NULL", [](A &a) { a.pwr = nullptr; }, INVALID, "wr");
    expect_status<A>(h, b, "wi NULL", [](A &a) { a.pwi = nullptr; }, INVALID, "wi");
    expect_status<A>(h, b, "VR NULL", [](A &a) { a.pVR = nullptr; }, INVALID, "VR");
    expect_status<A>(h, b, "info NULL", [](A &a) { a.pinfo = nullptr; }, INVALID, "info");
    expect_status<A>(h, b, "jobvr NOVEC, VR NULL, ldvr 0", [](A &a) {
        a.jobvr = GPUSVD_JOB_NOVEC, a.pVR = nullptr, a.ldvr = 0, a.sVR = 0;
    }, OK);
    expect_status<A>(h, b, "n = 2^62", [](A &a) {
        a.n = a.lda = a.ldvr = kBig62, a.sA = a.sVR = a.sW = INT64_MAX;
    }, INVALID);
    expect_status<A>(h, b, "n = 2^31 (n*n overflows the addressable size)", [](A &a) {
        a.n = a.lda = a.ldvr = k2p31, a.sA = a.sVR = kBig62, a.sW = k2p31;
    }, INVALID);
    expect_status<A>(h, b, "lda = 2^31", [](A &a) { a.lda = k2p31, a.sA = 4 * k2p31; },
                     UNSUPPORTED, "lda");
    expect_status<A>(h, b, "ldvr = 2^31", [](A &a) { a.ldvr = k2p31, a.sVR = 4 * k2p31; },
                     UNSUPPORTED, "ldvr");
    expect_status<A>(h, b, "batch*stride overflows", [](A &a) {
        a.batch = INT64_MAX / 8, a.sA = 20;
    }, INVALID);
    expect_status<A>(h, b, "batch 0, all NULL", [](A &a) {
        a.batch = 0, a.pA = a.pwr = a.pwi = a.pVR = nullptr, a.pinfo = nullptr;
    }, OK);
    expect_status<A>(h, b, "n 0: arrays NULL, info zeroed", [](A &a) {
        a.n = 0, a.lda = a.ldvr = 1, a.pA = a.pwr = a.pwi = a.pVR = nullptr;
    }, OK);
}

TYPED_TEST(BadInputTest, GeevZeroSizeSetsInfo) {
    using T = TypeParam;
    std::vector<int> info(3, -777);
    std::vector<T> wr = sentinels<T>(2);
    EXPECT_EQ(Api<T>::geev_batched(this->h, GPUSVD_JOB_VEC, 0, nullptr, 1, 0, wr.data(), wr.data(),
                                   0, nullptr, 1, 0, 3, info.data()),
              OK);
    for (int i : info) EXPECT_EQ(i, 0);
    EXPECT_TRUE(all_equal(wr, sentinel<T>()));
}

// ------------------------------------------------------------------------------------------------
// bdsvd
// ------------------------------------------------------------------------------------------------

TYPED_TEST(BadInputTest, Bdsvd) {
    using A = BdsvdArgs<TypeParam>;
    gpusvdHandle_t h = this->h;
    const bool b = false;
    expect_status<A>(h, b, "valid", [](A &) {}, OK);
    expect_status<A>(h, b, "NULL handle", [](A &a) { a.h = nullptr; }, INVALID, "handle");
    expect_status<A>(h, b, "uplo = 7", [](A &a) { a.uplo = 7; }, INVALID, "uplo");
    expect_status<A>(h, b, "jobz = 2", [](A &a) { a.jobz = 2; }, INVALID, "jobz");
    expect_status<A>(h, b, "n < 0", [](A &a) { a.n = -4; }, INVALID, "-4");
    expect_status<A>(h, b, "ldu < n", [](A &a) { a.ldu = 3; }, INVALID, "ldu");
    expect_status<A>(h, b, "ldvt < n", [](A &a) { a.ldvt = 3; }, INVALID, "ldvt");
    expect_status<A>(h, b, "d NULL", [](A &a) { a.pd = nullptr; }, INVALID, "d");
    expect_status<A>(h, b, "e NULL", [](A &a) { a.pe = nullptr; }, INVALID, "e");
    expect_status<A>(h, b, "U NULL", [](A &a) { a.pU = nullptr; }, INVALID, "U");
    expect_status<A>(h, b, "VT NULL", [](A &a) { a.pVT = nullptr; }, INVALID, "VT");
    expect_status<A>(h, b, "info NULL", [](A &a) { a.pinfo = nullptr; }, INVALID, "info");
    expect_status<A>(h, b, "n = 1, e NULL", [](A &a) { a.n = 1, a.pe = nullptr; }, OK);
    expect_status<A>(h, b, "jobz NOVEC, U/VT NULL, ld 0", [](A &a) {
        a.jobz = GPUSVD_JOB_NOVEC, a.pU = a.pVT = nullptr, a.ldu = a.ldvt = 0;
    }, OK);
    expect_status<A>(h, b, "n = 2^62 with vectors", [](A &a) {
        a.n = a.ldu = a.ldvt = kBig62;
    }, INVALID);
    expect_status<A>(h, b, "n = 2^31 values only", [](A &a) {
        a.n = k2p31, a.jobz = GPUSVD_JOB_NOVEC;
    }, UNSUPPORTED, "n");
    expect_status<A>(h, b, "3n^2 + 4n >= 2^31 (n = 30000) with vectors", [](A &a) {
        a.n = a.ldu = a.ldvt = 30000;
    }, UNSUPPORTED);
    expect_status<A>(h, b, "n = 0: all NULL", [](A &a) {
        a.n = 0, a.pd = a.pe = a.pU = a.pVT = nullptr, a.ldu = a.ldvt = 1;
    }, OK);
}

TYPED_TEST(BadInputTest, BdsvdZeroSize) {
    using T = TypeParam;
    std::vector<T> d = sentinels<T>(2), e = sentinels<T>(2), U = sentinels<T>(2), VT = sentinels<T>(2);
    int info = -777;
    EXPECT_EQ(Api<T>::bdsvd(this->h, GPUSVD_LOWER, GPUSVD_JOB_VEC, 0, d.data(), e.data(), U.data(),
                            1, VT.data(), 1, &info),
              OK);
    EXPECT_EQ(info, 0);
    for (const auto *v : {&d, &e, &U, &VT}) EXPECT_TRUE(all_equal(*v, sentinel<T>()));
}

// ------------------------------------------------------------------------------------------------
// pca
// ------------------------------------------------------------------------------------------------

TYPED_TEST(BadInputTest, Pca) {
    using A = PcaArgs<TypeParam>;
    gpusvdHandle_t h = this->h;
    const bool b = false;
    expect_status<A>(h, b, "valid", [](A &) {}, OK);
    expect_status<A>(h, b, "NULL handle", [](A &a) { a.h = nullptr; }, INVALID, "handle");
    expect_status<A>(h, b, "m < 0", [](A &a) { a.m = -1; }, INVALID, "m");
    expect_status<A>(h, b, "n < 0", [](A &a) { a.n = -1; }, INVALID, "n");
    expect_status<A>(h, b, "k < 0", [](A &a) { a.k = -1; }, INVALID, "k");
    expect_status<A>(h, b, "k > min(m,n)", [](A &a) { a.k = 4; }, INVALID, "k");
    expect_status<A>(h, b, "m = 1 (one sample)", [](A &a) { a.m = 1, a.k = 1; }, INVALID, "m");
    expect_status<A>(h, b, "ldx < m", [](A &a) { a.ldx = 5; }, INVALID, "ldx");
    expect_status<A>(h, b, "ldc < n", [](A &a) { a.ldc = 2; }, INVALID, "ldc");
    expect_status<A>(h, b, "lds < m with scores", [](A &a) { a.lds = 5; }, INVALID, "lds");
    expect_status<A>(h, b, "X NULL", [](A &a) { a.pX = nullptr; }, INVALID, "X");
    expect_status<A>(h, b, "components NULL", [](A &a) { a.pC = nullptr; }, INVALID, "components");
    expect_status<A>(h, b, "explainedVariance NULL", [](A &a) { a.pvar = nullptr; }, INVALID,
                     "explainedVariance");
    expect_status<A>(h, b, "info NULL", [](A &a) { a.pinfo = nullptr; }, INVALID, "info");
    expect_status<A>(h, b, "scores NULL, lds 0", [](A &a) { a.pscores = nullptr, a.lds = 0; }, OK);
    expect_status<A>(h, b, "mean NULL", [](A &a) { a.pmean = nullptr; }, OK);
    expect_status<A>(h, b, "m = n = 2^62", [](A &a) {
        a.m = a.n = a.ldx = a.ldc = a.lds = kBig62;
    }, INVALID);
    expect_status<A>(h, b, "m = 2^31", [](A &a) {
        a.m = a.ldx = a.lds = k2p31, a.n = 1, a.k = 1, a.ldc = 1;
    }, UNSUPPORTED, "m");
    expect_status<A>(h, b, "ldc = 2^31", [](A &a) { a.ldc = k2p31; }, UNSUPPORTED, "ldc");
}

TYPED_TEST(BadInputTest, PcaZeroSize) {
    using T = TypeParam;
    for (auto mn : {std::pair<int64_t, int64_t>{0, 4}, {4, 0}, {0, 0}, {1, 3}}) {
        SCOPED_TRACE(testing::Message() << mn.first << " x " << mn.second);
        int info = -777;
        const int64_t m = mn.first, n = mn.second;
        // k = 0 (the only k allowed when m*n == 0); m = 1 is allowed when k = 0
        EXPECT_EQ(Api<T>::pca(this->h, m, n, nullptr, std::max<int64_t>(1, m), 0, nullptr,
                              std::max<int64_t>(1, n), nullptr, nullptr, std::max<int64_t>(1, m),
                              nullptr, &info),
                  OK) << gpusvdGetErrorMessage(this->h);
        EXPECT_EQ(info, 0);
    }
}

// ------------------------------------------------------------------------------------------------
// _bufferSize forms
// ------------------------------------------------------------------------------------------------

TYPED_TEST(BadInputTest, BufferSizes) {
    using T = TypeParam;
    gpusvdHandle_t h = this->h;
    size_t d = 0, hb = 0;
    const auto V = GPUSVD_JOB_VEC;
    EXPECT_EQ(Api<T>::gesvj_bufferSize(nullptr, V, V, 4, 4, &d, &hb), INVALID);
    EXPECT_EQ(Api<T>::gesvj_bufferSize(h, (gpusvdJob_t)5, V, 4, 4, &d, &hb), INVALID);
    EXPECT_EQ(Api<T>::gesvj_bufferSize(h, V, V, -1, 4, &d, &hb), INVALID);
    EXPECT_EQ(Api<T>::gesvj_batched_bufferSize(h, V, V, 4, 4, -1, &d, &hb), INVALID);
    EXPECT_EQ(Api<T>::geqrf_mgs_bufferSize(h, (gpusvdOrth_t)3, 4, 4, &d, &hb), INVALID);
    EXPECT_EQ(Api<T>::geqrf_mgs_bufferSize(h, GPUSVD_ORTH_MGS, 4, -4, &d, &hb), INVALID);
    EXPECT_EQ(Api<T>::geqrf_mgs_batched_bufferSize(h, GPUSVD_ORTH_MGS, 4, 4, -2, &d, &hb), INVALID);
    EXPECT_EQ(Api<T>::geev_batched_bufferSize(h, V, -3, 2, &d, &hb), INVALID);
    EXPECT_EQ(Api<T>::geev_batched_bufferSize(h, (gpusvdJob_t)9, 3, 2, &d, &hb), INVALID);
    EXPECT_EQ(Api<T>::bdsvd_bufferSize(h, (gpusvdUplo_t)2, V, 3, &d, &hb), INVALID);
    EXPECT_EQ(Api<T>::bdsvd_bufferSize(h, GPUSVD_UPPER, V, -3, &d, &hb), INVALID);
    EXPECT_EQ(Api<T>::pca_bufferSize(h, 4, 3, 4, &d, &hb), INVALID);
    EXPECT_EQ(Api<T>::pca_bufferSize(nullptr, 4, 3, 2, &d, &hb), INVALID);
    // valid ones give a non-zero host size on the CPU backend
    hb = 0;
    EXPECT_EQ(Api<T>::gesvj_bufferSize(h, V, V, 40, 30, &d, &hb), OK);
    EXPECT_GT(hb, 0u);
    EXPECT_EQ(Api<T>::geev_batched_bufferSize(h, V, 8, 3, &d, &hb), OK);
    EXPECT_GT(hb, 0u);
}

// Absurd sizes: every _bufferSize answers NOT_SUPPORTED (beyond the CPU backend's 32-bit LAPACK)
// or INVALID_VALUE, never a wrapped-around byte count (the UBSan job checks for overflow too).
TYPED_TEST(BadInputTest, BufferSizesOfHugeProblems) {
    using T = TypeParam;
    gpusvdHandle_t h = this->h;
    const auto V = GPUSVD_JOB_VEC;
    const int64_t huge = int64_t(1) << 40, big = (int64_t(1) << 31) - 1;
    auto rejected = [](gpusvdStatus_t s) {
        return s == GPUSVD_STATUS_NOT_SUPPORTED || s == GPUSVD_STATUS_INVALID_VALUE;
    };
    for (int64_t n : {huge, big, int64_t(1) << 62}) {
        SCOPED_TRACE(testing::Message() << "size " << n);
        size_t d = 7, hb = 7;
        EXPECT_TRUE(rejected(Api<T>::gesvj_bufferSize(h, V, V, n / 2, n, &d, &hb)));
        EXPECT_TRUE(rejected(Api<T>::gesvj_bufferSize(h, V, V, 50000, 50000, &d, &hb)));
        EXPECT_TRUE(rejected(Api<T>::gesvj_batched_bufferSize(h, V, V, n, n, n, &d, &hb)));
        EXPECT_TRUE(rejected(Api<T>::geqrf_mgs_bufferSize(h, GPUSVD_ORTH_MGS2, 8, n, &d, &hb)));
        EXPECT_TRUE(rejected(
            Api<T>::geqrf_mgs_batched_bufferSize(h, GPUSVD_ORTH_MGS2, n, n, 4, &d, &hb)));
        EXPECT_TRUE(rejected(Api<T>::geev_batched_bufferSize(h, V, n, 1, &d, &hb)));
        EXPECT_TRUE(rejected(Api<T>::bdsvd_bufferSize(h, GPUSVD_UPPER, V, n, &d, &hb)));
        EXPECT_TRUE(rejected(Api<T>::bdsvd_bufferSize(h, GPUSVD_UPPER, V, 30000, &d, &hb)));
        EXPECT_TRUE(rejected(Api<T>::pca_bufferSize(h, n, n, 1, &d, &hb)));
        EXPECT_EQ(d, 7u);
        EXPECT_EQ(hb, 7u);
    }
}

// ------------------------------------------------------------------------------------------------
// Regressions: sizes LAPACK computes in 32 bits, state kept by rejected calls, zero-size
// problems with huge other dimensions, enum values in messages
// ------------------------------------------------------------------------------------------------

TYPED_TEST(BadInputTest, LapackWorkspaceSizesBeyond32Bits) {
    using T = TypeParam;
    gpusvdHandle_t h = this->h;
    constexpr int64_t kMax32 = INT32_MAX;
    // Small real buffers: every call below must be refused before any element is touched.
    std::vector<T> A = sentinels<T>(16), S = sentinels<T>(16), B = sentinels<T>(16);
    const std::vector<T> A0 = A, S0 = S, B0 = B;
    int info = -777;
    size_t dev = 7, host = 7;
    arg_model::Capture out;  // LAPACK's xerbla would print to fd 1 or 2
    ASSERT_TRUE(out.ok());
    out.begin();
    // ?gesvj's LWORK = m + n overflows although m * n fits.
    const gpusvdStatus_t gesvj = Api<T>::gesvj(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, kMax32, 1,
                                               A.data(), kMax32, S.data(), nullptr, 1, nullptr, 1,
                                               &info);
    const std::string gesvj_msg = gpusvdGetErrorMessage(h);
    const gpusvdStatus_t gesvj_size =
        Api<T>::gesvj_bufferSize(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, kMax32, 1, &dev, &host);
    // The values-only bidiagonal SVD: dqds indexes a 4 n workspace.
    const int64_t nb = (int64_t(1) << 29) + 1;
    const gpusvdStatus_t bdsvd = Api<T>::bdsvd(h, GPUSVD_UPPER, GPUSVD_JOB_NOVEC, nb, A.data(),
                                               B.data(), nullptr, 1, nullptr, 1, &info);
    const gpusvdStatus_t bdsvd_size =
        Api<T>::bdsvd_bufferSize(h, GPUSVD_UPPER, GPUSVD_JOB_NOVEC, nb, &dev, &host);
    // Wide PCA: ?gesdd's workspace grows with the long dimension.
    const int64_t nw = kMax32 - 16;
    const gpusvdStatus_t pca = Api<T>::pca(h, 4, nw, A.data(), 4, 1, B.data(), nw, S.data(),
                                           nullptr, 1, nullptr, &info);
    const gpusvdStatus_t pca_size = Api<T>::pca_bufferSize(h, 4, nw, 1, &dev, &host);
    // ?geqrf's blocked workspace (64 n) although m, n and lda fit.
    const int64_t nq = kMax32 / 32;
    const gpusvdStatus_t geqrf = Api<T>::geqrf_mgs(h, GPUSVD_ORTH_MGS2, 1, nq, A.data(), 1,
                                                   B.data(), 1, &info);
    const std::string printed = out.end();

    EXPECT_EQ(gesvj, UNSUPPORTED) << gesvj_msg;
    EXPECT_NE(gesvj_msg.find("m + n"), std::string::npos) << gesvj_msg;
    EXPECT_EQ(gesvj_size, UNSUPPORTED);
    EXPECT_EQ(bdsvd, UNSUPPORTED);
    EXPECT_EQ(bdsvd_size, UNSUPPORTED);
    EXPECT_EQ(pca, UNSUPPORTED);
    EXPECT_EQ(pca_size, UNSUPPORTED);
    EXPECT_EQ(geqrf, UNSUPPORTED);
    EXPECT_EQ(info, -777);
    EXPECT_EQ(dev, 7u);
    EXPECT_EQ(host, 7u);
    EXPECT_TRUE(same_bits(A, A0) && same_bits(S, S0) && same_bits(B, B0));
    EXPECT_EQ(printed, "");
}

// pca's covariance method reads the data in blocks of rows: neither m nor ldx reaches LAPACK, so
// its 32-bit limits are n, ldc, lds (with scores) and ?syevd's 1 + 6 n + 2 n^2 workspace.
TYPED_TEST(BadInputTest, PcaMethodsHaveTheirOwn32BitLimits) {
    using T = TypeParam;
    gpusvdHandle_t h = this->h;
    const int64_t m_big = (int64_t(1) << 31) + 8;
    size_t dev = 7, host = 7;
    ASSERT_EQ(gpusvdSetPcaMethod(h, GPUSVD_PCA_QR), OK);
    EXPECT_EQ(Api<T>::pca_bufferSize(h, m_big, 3, 1, &dev, &host), UNSUPPORTED);
    auto says = [](const std::string &msg, const char *what) {
        return msg.find(what) != std::string::npos;
    };
    EXPECT_TRUE(says(gpusvdGetErrorMessage(h), "argument m = 2147483656"))
        << gpusvdGetErrorMessage(h);
    EXPECT_EQ(host, 7u);
    ASSERT_EQ(gpusvdSetPcaMethod(h, GPUSVD_PCA_COVARIANCE), OK);
    EXPECT_EQ(Api<T>::pca_bufferSize(h, m_big, 3, 1, &dev, &host), OK) << gpusvdGetErrorMessage(h);
    EXPECT_GT(host, 0u);
    EXPECT_LT(host, size_t(1) << 20) << "the covariance method's workspace does not grow with m";

    std::vector<T> X = sentinels<T>(16), C = sentinels<T>(16), var = sentinels<T>(16),
                   sc = sentinels<T>(16);
    const std::vector<T> X0 = X, C0 = C, var0 = var, sc0 = sc;
    int info = -777;
    arg_model::Capture out;  // LAPACK's xerbla would print to fd 1 or 2
    ASSERT_TRUE(out.ok());
    out.begin();
    const int64_t lds_big = INT32_MAX + int64_t(1);
    const gpusvdStatus_t lds = Api<T>::pca(h, 4, 3, X.data(), 4, 1, C.data(), 3, var.data(),
                                           sc.data(), lds_big, nullptr, &info);
    const std::string lds_msg = gpusvdGetErrorMessage(h);
    const int64_t n_big = 32768;  // 1 + 6 n + 2 n^2 > 2^31 - 1
    const gpusvdStatus_t syevd = Api<T>::pca(h, 4, n_big, X.data(), 4, 1, C.data(), n_big,
                                             var.data(), nullptr, 1, nullptr, &info);
    const std::string syevd_msg = gpusvdGetErrorMessage(h);
    const gpusvdStatus_t syevd_size = Api<T>::pca_bufferSize(h, 4, n_big, 1, &dev, &host);
    const std::string printed = out.end();
    EXPECT_EQ(lds, UNSUPPORTED);
    EXPECT_TRUE(says(lds_msg, "argument lds = 2147483648")) << lds_msg;
    EXPECT_EQ(syevd, UNSUPPORTED);
    EXPECT_TRUE(says(syevd_msg, "?syevd")) << syevd_msg;
    EXPECT_EQ(syevd_size, UNSUPPORTED);
    EXPECT_EQ(info, -777);
    EXPECT_TRUE(same_bits(X, X0) && same_bits(C, C0) && same_bits(var, var0) && same_bits(sc, sc0));
    EXPECT_EQ(printed, "");
}

TYPED_TEST(BadInputTest, RejectedCallsKeepHandleState) {
    using T = TypeParam;
    gpusvdHandle_t h = this->h;
    const int64_t m = 12, n = 6;
    std::vector<T> A(static_cast<size_t>(m * n)), S(static_cast<size_t>(n)),
        V(static_cast<size_t>(n * n));
    fill_uniform(A.data(), A.size(), 5);
    int info = -777;
    GPUSVD_ASSERT_OK(h, Api<T>::gesvj(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_VEC, m, n, A.data(), m,
                                      S.data(), nullptr, 1, V.data(), n, &info));
    int sweeps = -1;
    double off = -1;
    ASSERT_EQ(gpusvdGetJacobiStats(h, &sweeps, &off), OK);
    ASSERT_GT(sweeps, 0);

    // Rejected for an argument, then for a workspace one byte short: the statistics stay.
    info = -777;
    EXPECT_EQ(Api<T>::gesvj(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_VEC, m, n, A.data(), m - 1, S.data(),
                            nullptr, 1, V.data(), n, &info),
              INVALID);
    size_t need = 0;
    ASSERT_EQ(Api<T>::gesvj_bufferSize(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_VEC, m, n, nullptr, &need),
              OK);
    std::vector<unsigned char> ws(need);
    ASSERT_EQ(gpusvdSetWorkspace(h, nullptr, 0, ws.data(), need - 1), OK);
    EXPECT_EQ(Api<T>::gesvj(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_VEC, m, n, A.data(), m, S.data(),
                            nullptr, 1, V.data(), n, &info),
              INVALID);
    EXPECT_EQ(info, -777);
    int sweeps2 = -1;
    double off2 = -1;
    ASSERT_EQ(gpusvdGetJacobiStats(h, &sweeps2, &off2), OK);
    EXPECT_EQ(sweeps2, sweeps);
    EXPECT_EQ(off2, off);

    // pca refused its workspace writes no info.
    const int64_t k = 2;
    ASSERT_EQ(Api<T>::pca_bufferSize(h, m, n, k, nullptr, &need), OK);
    ws.assign(need, 0);
    ASSERT_EQ(gpusvdSetWorkspace(h, nullptr, 0, ws.data(), need - 1), OK);
    std::vector<T> C = sentinels<T>(size_t(n * k)), var = sentinels<T>(size_t(k));
    EXPECT_EQ(Api<T>::pca(h, m, n, A.data(), m, k, C.data(), n, var.data(), nullptr, 1, nullptr,
                          &info),
              INVALID);
    EXPECT_EQ(info, -777);
    EXPECT_TRUE(all_equal(C, sentinel<T>()) && all_equal(var, sentinel<T>()));
    ASSERT_EQ(gpusvdSetWorkspace(h, nullptr, 0, ws.data(), need), OK);
    EXPECT_EQ(Api<T>::pca(h, m, n, A.data(), m, k, C.data(), n, var.data(), nullptr, 1, nullptr,
                          &info),
              OK) << gpusvdGetErrorMessage(h);
    EXPECT_EQ(info, 0);
    ASSERT_EQ(gpusvdSetWorkspace(h, nullptr, 0, nullptr, 0), OK);
}

TYPED_TEST(BadInputTest, ZeroSizeBeside32BitOverflow) {
    using T = TypeParam;
    gpusvdHandle_t h = this->h;
    const int64_t big = int64_t(1) << 33;
    int info = -777;
    size_t dev = 7, host = 7;
    EXPECT_EQ(Api<T>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 0, big, nullptr, 1, nullptr, nullptr,
                            1, nullptr, big, &info),
              OK) << gpusvdGetErrorMessage(h);
    EXPECT_EQ(info, 0);
    EXPECT_EQ(Api<T>::gesvj_bufferSize(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, big, 0, &dev, &host), OK);
    EXPECT_EQ(host, 0u);
    info = -777;
    EXPECT_EQ(Api<T>::geqrf_mgs(h, GPUSVD_ORTH_MGS2, big, 0, nullptr, big, nullptr, 1, &info), OK)
        << gpusvdGetErrorMessage(h);
    EXPECT_EQ(info, 0);
    info = -777;
    EXPECT_EQ(Api<T>::geev_batched(h, GPUSVD_JOB_VEC, 0, nullptr, big, 0, nullptr, nullptr, 0,
                                   nullptr, big, 0, 1, &info),
              OK) << gpusvdGetErrorMessage(h);
    EXPECT_EQ(info, 0);
    info = -777;
    EXPECT_EQ(Api<T>::pca(h, big, 0, nullptr, big, 0, nullptr, 1, nullptr, nullptr, 1, nullptr,
                          &info),
              OK) << gpusvdGetErrorMessage(h);
    EXPECT_EQ(info, 0);
    EXPECT_EQ(Api<T>::pca_bufferSize(h, big, 4, 0, &dev, &host), OK);
}

TYPED_TEST(BadInputTest, NegativeEnumInMessage) {
    using T = TypeParam;
    gpusvdHandle_t h = this->h;
    std::vector<T> A(4), S(2);
    int info = -777;
    EXPECT_EQ(Api<T>::gesvj(h, static_cast<gpusvdJob_t>(-1), GPUSVD_JOB_NOVEC, 2, 2, A.data(), 2,
                            S.data(), nullptr, 1, nullptr, 1, &info),
              INVALID);
    const std::string msg = gpusvdGetErrorMessage(h);
    EXPECT_NE(msg.find("jobu = -1 "), std::string::npos) << msg;
    EXPECT_EQ(Api<T>::geqrf_mgs(h, static_cast<gpusvdOrth_t>(-5), 2, 2, A.data(), 2, S.data(), 2,
                                &info),
              INVALID);
    EXPECT_NE(std::string(gpusvdGetErrorMessage(h)).find("orth = -5 "), std::string::npos)
        << gpusvdGetErrorMessage(h);
    EXPECT_EQ(info, -777);
}

}  // namespace
