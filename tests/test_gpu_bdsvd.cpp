// bdsvd on the GPU backend (label `gpu`; values by bisection on the Golub-Kahan tridiagonal,
// vectors by twisted factorizations, close values refined together by inverse iteration with
// Gram-Schmidt, zero values from the null vectors of T's pieces): upper and lower, values only and
// with vectors, against LAPACK ?bdsqr (dqds) values computed in double and against the CPU
// backend (LAPACK ?bdsdc) on the same input. Matrices: random; graded (d and e spanning
// 1 .. 1e-15); clustered (BidiagMode::Clustered; d = 1 with e = 1e-10; groups of four equal d
// coupled by e ~ 1e-10); Wilkinson-like (d_i = |n/2 - i| + 1, e_i = 1, and the Cholesky factor
// of W_n^+ + 3 I, whose largest singular values come in pairs 1-2 ulps apart); zero diagonal
// entries; zero off-diagonal (repeated values among them); the zero matrix; n = 1 of either
// sign; odd and even n up to 1000 with vectors; n = 32768 values only; NaN/Inf; near overflow
// and underflow; the `_gpu` form on a user stream against the host form.
//
// Tolerances (tests/bdsvd_checks.hpp: LAPACK dchkbd's ratios, DESIGN.md's threshold 50):
//   |B - U S VT|_1 / (|B|_1 n eps), |I - U^T U|_1 / (n eps), |I - VT VT^T|_1 / (n eps) < 50;
//   S non-negative and descending; max_i |S_i - Sref_i| / (Sref_1 eps) < 50, values only and with
//   vectors, Sref LAPACK dbdsqr on the entries in double (n = 32768: < 50 sqrt(n / 64), the
//   suite's sv_threshold; LAPACK's own dbdsdc on the lower form is 96 off there);
//   high relative accuracy, values only (random, graded, Wilkinson-like, clusters, scaled): every
//   value max_i |S_i - Sref_i| / (Sref_i eps) < 10 max(n, 5), as dqds (bisection on the
//   Golub-Kahan form keeps it too);
//   e = 0: S is the sorted |d|: exactly with vectors on backend GPU (B splits into 1 x 1 blocks;
//   LAPACK's divide and conquer leaves an exact zero at ~eps |B|, so normwise there) and values
//   only on backend CPU (dqds splits too); values only on backend GPU to 3 ulp of each value
//   (bisection on the whole matrix converges to a relative width of 2 ulp; it does not split);
//   zero matrix: S = 0 and U S VT = 0 exactly;
//   backend GPU vs backend CPU (values only, same input): sv_compare < 50;
//   `_gpu` vs host form: values sv_compare < 4 (a few ulps of S_1), vectors to the ratios above;
//   nothing written past n of d, past n - 1 of e, or outside n x n of U (ldu = n + 1) and VT
//   (ldvt = n + 2); e's contents on exit are not checked (documented: destroyed).
//   NaN/Inf in d or e: info GPUSVD_INFO_NONFINITE, d (and U, VT) all NaN.
//
// Every test first puts its handle on GPUSVD_BACKEND_GPU and skips when that says NO_DEVICE.
// GPUSVD_TEST_QUICK=1 shrinks the large cases (values only n = 32768 -> 2000, with vectors
// n = 1000 -> 300). GPUSVD_TEST_GPU_AS_CPU=1 runs the same checks on the CPU backend (host memory
// standing in for device memory, the host form for the `_gpu` form).
#include "bdsvd_checks.hpp"
#include "cuda_rt.hpp"

using namespace gpusvd_test;

namespace {

constexpr double kFormUlps = 4.0;  // `_gpu` form vs host form: sv_compare

/// bdsvd with a sentinel past d (n entries) and past e (n - 1), EXPECTed intact afterwards: the
/// host form (rt NULL), or the `_gpu` form on device copies of every array on the user stream
/// (the host form when the runtime is emulated). Same signature as Api<T>::bdsvd.
template <typename T>
struct GuardedBdsvd {
    const CudaRt *rt = nullptr;
    const UserStream *stream = nullptr;
    gpusvdStatus_t operator()(gpusvdHandle_t h, gpusvdUplo_t uplo, gpusvdJob_t jobz, int64_t n,
                              T *d, T *e, T *U, int64_t ldu, T *VT, int64_t ldvt, int *info) const {
        const T pad = sentinel<T>();
        std::vector<T> dg(sz(n + 1), pad), eg(sz(std::max<int64_t>(n, 1)), pad);
        std::copy(d, d + n, dg.begin());
        T *ep = e && n > 0 ? eg.data() : nullptr;
        const size_t ne = ep && n > 1 ? sz(n - 1) : 0;  // e entries copied in and out
        std::copy_n(e, ne, eg.begin());
        gpusvdStatus_t st;
        if (!rt) {
            st = Api<T>::bdsvd(h, uplo, jobz, n, dg.data(), ep, U, ldu, VT, ldvt, info);
        } else {
            const auto form = rt->emulated ? Api<T>::bdsvd : Api<T>::bdsvd_gpu;
            const bool wv = jobz == GPUSVD_JOB_VEC;
            st = run_on_device(*rt, *stream,
                               {{dg.data(), sizeof(T) * dg.size()},
                                {ep, sizeof(T) * eg.size()},
                                {wv ? U : nullptr, sizeof(T) * sz(ldu * n)},
                                {wv ? VT : nullptr, sizeof(T) * sz(ldvt * n)},
                                {info, sizeof(int)}},
                               [&](void *const *p) {
                                   return form(h, uplo, jobz, n, static_cast<T *>(p[0]),
                                               static_cast<T *>(p[1]), static_cast<T *>(p[2]), ldu,
                                               static_cast<T *>(p[3]), ldvt,
                                               static_cast<int *>(p[4]));
                               });
        }
        EXPECT_EQ(dg[sz(n)], pad) << "d written past n";
        if (ep) {
            EXPECT_EQ(eg[sz(n - 1)], pad) << "e written past n - 1";
        }
        std::copy(dg.begin(), dg.begin() + n, d);
        std::copy_n(eg.begin(), ne, e);
        return st;
    }
};

/// A handle on backend CPU: the comparison of every GPU result.
struct CpuHandle : Handle {
    CpuHandle() { EXPECT_EQ(gpusvdSetBackend(get(), GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS); }
};

/// Values only of (d, e) through `call`; EXPECTs status SUCCESS, info 0, sorted non-negative.
template <typename T, typename Call>
std::vector<T> values_only(gpusvdHandle_t h, bool upper, int64_t n, std::vector<T> d,
                           std::vector<T> e, Call call) {
    int info = -777;
    GPUSVD_EXPECT_OK(h, call(h, upper ? GPUSVD_UPPER : GPUSVD_LOWER, GPUSVD_JOB_NOVEC, n, d.data(),
                             n > 1 ? e.data() : nullptr, nullptr, 1, nullptr, 1, &info));
    EXPECT_EQ(info, 0);
    EXPECT_TRUE(is_sorted_desc_nonneg(n, d.data()));
    return d;
}

/// A bidiagonal: d (n entries) and e (max(n - 1, 1), the last one unused for n <= 1).
template <typename T>
struct Bidiag {
    std::vector<T> d, e;
    explicit Bidiag(int64_t n) : d(sz(n), T(0)), e(sz(std::max<int64_t>(n - 1, 1)), T(0)) {}
};

template <typename T>
Bidiag<T> random_case(Rng &rng, int64_t n, BidiagMode mode, double param = 1e-15) {
    Bidiag<T> b(n);
    random_bidiagonal(rng, n, b.d.data(), b.e.data(), mode, param);
    return b;
}

/// Upper bidiagonal Cholesky factor of W_n^+ + 3 I (W_n^+: diagonal |m - i|, m = (n - 1) / 2,
/// off-diagonal 1), computed in long double: B^T B = W_n^+ + 3 I, whose largest eigenvalues come
/// in pairs: singular values 1-2 ulps apart in double (n = 21, 101).
template <typename T>
Bidiag<T> wilkinson_cholesky(int64_t n) {
    Bidiag<T> b(n);
    const int64_t m = (n - 1) / 2;
    long double eprev = 0;
    for (int64_t i = 0; i < n; ++i) {
        const long double di = std::sqrt((long double)std::llabs(m - i) + 3 - eprev * eprev);
        b.d[sz(i)] = T(di);
        eprev = 1 / di;
        if (i + 1 < n) b.e[sz(i)] = T(eprev);
    }
    return b;
}

const int64_t kSizes[] = {1, 2, 3, 4, 5, 8, 17, 26, 32, 33, 64, 127};

template <typename T>
class GpuBdsvdTest : public DeviceTest<T> {
protected:
    /// check_bdsvd (tests/bdsvd_checks.hpp) on the GPU backend, upper and lower, then the values
    /// against the CPU backend's on the same input.
    std::vector<BdsvdOut<T>> check(int64_t n, const Bidiag<T> &b, bool relative) {
        std::vector<BdsvdOut<T>> out;
        for (bool upper : {true, false}) {
            SCOPED_TRACE(testing::Message() << (upper ? "upper" : "lower") << " n = " << n);
            out.push_back(check_bdsvd<T>(this->h, upper, n, b.d, b.e, relative, GuardedBdsvd<T>{}));
            const std::vector<T> s_cpu = values_only(cpu, upper, n, b.d, b.e, Api<T>::bdsvd);
            EXPECT_LT(sv_compare(n, out.back().s_novec.data(), s_cpu.data()), kSvdThreshold)
                << "backend GPU vs backend CPU";
        }
        return out;
    }
    void sweep(BidiagMode mode, double param, bool relative, uint64_t seed) {
        Rng rng(seed);
        for (int64_t n : kSizes) check(n, random_case<T>(rng, n, mode, param), relative);
    }
    CpuHandle cpu;
};
TYPED_TEST_SUITE(GpuBdsvdTest, Precisions, PrecisionName);

TYPED_TEST(GpuBdsvdTest, Random) {
    this->sweep(BidiagMode::Random, 0, true, 41);
}

TYPED_TEST(GpuBdsvdTest, GradedHighRelativeAccuracy) {
    // d, e spanning 1 .. 1e-15: every value, down to ~1e-15, to high relative accuracy.
    this->sweep(BidiagMode::Graded, 1e-15, true, 42);
}

TYPED_TEST(GpuBdsvdTest, Clustered) {
    this->sweep(BidiagMode::Clustered, std::is_same<TypeParam, float>::value ? 1e-4 : 1e-8, false,
                43);
}

TYPED_TEST(GpuBdsvdTest, ClustersOfNearlyEqualValues) {
    // d = 1, e = 1e-10: all n values within 2e-10 of 1 (in float: 1). Groups of four equal
    // d = 1, 2, 3, ... coupled by e = 1e-10 U[-1,1]: clusters of four.
    using T = TypeParam;
    Rng rng(44);
    for (int64_t n : {2, 3, 5, 17, 64, 300}) {
        Bidiag<T> one(n), groups(n);
        for (int64_t i = 0; i < n; ++i) {
            one.d[sz(i)] = T(1);
            groups.d[sz(i)] = T(1 + i / 4);
            if (i + 1 < n) {
                one.e[sz(i)] = T(1e-10);
                groups.e[sz(i)] = T(1e-10 * rng.uniform(-1.0, 1.0));
            }
        }
        this->check(n, one, true);
        this->check(n, groups, true);
    }
}

TYPED_TEST(GpuBdsvdTest, WilkinsonLike) {
    using T = TypeParam;
    for (int64_t n : {int64_t(2), int64_t(3), int64_t(21), int64_t(100), int64_t(101),
                      full_or_quick(1001, 301)}) {
        Bidiag<T> b(n);
        for (int64_t i = 0; i < n; ++i) {
            b.d[sz(i)] = T(std::llabs(n / 2 - i) + 1);
            if (i + 1 < n) b.e[sz(i)] = T(1);
        }
        this->check(n, b, true);
        SCOPED_TRACE("Cholesky factor of W+ + 3I");
        this->check(n, wilkinson_cholesky<T>(n), true);
    }
}

TYPED_TEST(GpuBdsvdTest, ZeroDiagonalEntries) {
    // Every third d exactly zero; d all zero (values: the |e_i| and one zero); zeros at the first,
    // middle and last d.
    using T = TypeParam;
    this->sweep(BidiagMode::ZeroDiag, 0, false, 45);
    Rng rng(46);
    for (int64_t n : {2, 3, 4, 17, 64, 300}) {
        Bidiag<T> b = random_case<T>(rng, n, BidiagMode::Random);
        Bidiag<T> zero_d = b;
        std::fill(zero_d.d.begin(), zero_d.d.end(), T(0));
        this->check(n, zero_d, false);
        b.d[0] = b.d[sz(n / 2)] = b.d[sz(n - 1)] = T(0);
        this->check(n, b, false);
    }
}

TYPED_TEST(GpuBdsvdTest, ZeroOffDiagonalGivesSortedAbsD) {
    // e = 0: the values are |d| sorted, exactly, with vectors or without. Random signs and
    // magnitudes (one exact zero), repeated magnitudes +-1, +-2, +-3, and d = 1 (n equal values).
    using T = TypeParam;
    Rng rng(47);
    for (int64_t n : {1, 2, 7, 64, 300})
        for (int kind = 0; kind < 3; ++kind) {
            SCOPED_TRACE(testing::Message() << "n = " << n << ", kind " << kind);
            Bidiag<T> b(n);
            for (int64_t i = 0; i < n; ++i)
                b.d[sz(i)] = kind == 0   ? T(rng.normal())
                             : kind == 1 ? T(rng.sign() * double(1 + i % 3))
                                         : T(1);
            if (kind == 0 && n > 1) b.d[sz(n / 3)] = T(0);
            std::vector<T> expect(sz(n));
            for (int64_t i = 0; i < n; ++i) expect[sz(i)] = std::fabs(b.d[sz(i)]);
            std::sort(expect.begin(), expect.end(), [](T x, T y) { return x > y; });
            for (const BdsvdOut<T> &r : this->check(n, b, true)) {
                if (gpu_as_cpu() || n == 1)
                    EXPECT_TRUE(r.s_novec == expect)
                        << "values only: sorted |d|; off by "
                        << sv_relative(n, r.s_novec.data(), expect.data()) << " eps relative";
                else  // sv_relative counts in ulps
                    EXPECT_LE(sv_relative(n, r.s_novec.data(), expect.data()), 3.0)
                        << "values only: sorted |d| to 3 ulp";
                // LAPACK's divide and conquer (backend CPU with vectors, n > 25) scales by max|d|
                // and leaves a zero value at ~eps |B|: exact on backend GPU, normwise on CPU.
                if (!gpu_as_cpu()) {
                    EXPECT_TRUE(r.s_vec == expect)
                        << "with vectors: sorted |d|; off by "
                        << sv_relative(n, r.s_vec.data(), expect.data()) << " eps relative";
                }
            }
        }
}

TYPED_TEST(GpuBdsvdTest, ZeroMatrix) {
    using T = TypeParam;
    for (int64_t n : {1, 2, 5, 64}) {
        for (const BdsvdOut<T> &r : this->check(n, Bidiag<T>(n), true)) {
            EXPECT_EQ(r.resid, 0.0);
            EXPECT_TRUE(r.s_novec == std::vector<T>(sz(n), T(0)));
        }
    }
}

TYPED_TEST(GpuBdsvdTest, OneByOne) {
    // d = -3, 0.25, 0: value |d|; U VT = sign(d) (U and VT +-1 when d = 0).
    using T = TypeParam;
    for (T v : {T(-3), T(0.25), T(0)}) {
        SCOPED_TRACE(testing::Message() << "d = " << v);
        Bidiag<T> b(1);
        b.d[0] = v;
        for (const BdsvdOut<T> &r : this->check(1, b, true)) {
            EXPECT_EQ(r.s_novec[0], std::fabs(v));
            EXPECT_EQ(r.s_vec[0], std::fabs(v));
        }
        for (gpusvdUplo_t uplo : {GPUSVD_UPPER, GPUSVD_LOWER}) {
            T d = v, U = sentinel<T>(), VT = sentinel<T>();
            int info = -777;
            GPUSVD_EXPECT_OK(this->h, GuardedBdsvd<T>{}(this->h, uplo, GPUSVD_JOB_VEC, 1, &d,
                                                        nullptr, &U, 1, &VT, 1, &info));
            EXPECT_EQ(info, 0);
            EXPECT_EQ(std::fabs(U), T(1));
            EXPECT_EQ(std::fabs(VT), T(1));
            if (v != T(0)) {
                EXPECT_EQ(U * d * VT, v) << "U d VT reproduces d";
            }
        }
    }
}

TYPED_TEST(GpuBdsvdTest, LargerSizesWithVectors) {
    // Odd and even n to 1000, random (relative accuracy too) and graded.
    using T = TypeParam;
    Rng rng(48);
    const std::vector<int64_t> sizes = full_or_quick(1, 0)
                                           ? std::vector<int64_t>{255, 256, 300, 1000}
                                           : std::vector<int64_t>{255, 300};
    for (int64_t n : sizes) {
        this->check(n, random_case<T>(rng, n, BidiagMode::Random), true);
        this->check(n, random_case<T>(rng, n, BidiagMode::Graded, 1e-15), true);
    }
}

TYPED_TEST(GpuBdsvdTest, HugeValuesOnly) {
    // n = 32768 random, values only (smallest values ~1e-186: zero in float), against dbdsqr,
    // threshold sv_threshold(n) = 50 sqrt(n / 64) (LAPACK's own dbdsdc on the lower form: 96).
    using T = TypeParam;
    const int64_t n = full_or_quick(32768, 2000);
    Rng rng(49);
    const Bidiag<T> b = random_case<T>(rng, n, BidiagMode::Random);
    const std::vector<double> ref = ref_bdsqr(true, n, b.d, b.e);  // lower: B^T, same values
    for (bool upper : {true, false}) {
        SCOPED_TRACE(upper ? "upper" : "lower");
        const std::vector<T> s = values_only(this->h, upper, n, b.d, b.e, GuardedBdsvd<T>{});
        EXPECT_LT(sv_compare(n, s.data(), ref.data()), sv_threshold(n, n)) << "values vs ?bdsqr";
    }
}

/// EXPECTs info GPUSVD_INFO_NONFINITE and NaN outputs for (d, e) holding NaN or Inf.
template <typename T, typename Call>
void expect_nonfinite(gpusvdHandle_t h, bool upper, bool vectors, int64_t n, std::vector<T> d,
                      std::vector<T> e, Call call) {
    std::vector<T> U(sz(n * n), T(0)), VT(sz(n * n), T(0));
    int info = 0;
    GPUSVD_EXPECT_OK(
        h, call(h, upper ? GPUSVD_UPPER : GPUSVD_LOWER, vectors ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC,
                n, d.data(), n > 1 ? e.data() : nullptr, vectors ? U.data() : nullptr, n,
                vectors ? VT.data() : nullptr, n, &info));
    EXPECT_EQ(info, GPUSVD_INFO_NONFINITE);
    EXPECT_TRUE(all_nan(n, 1, d.data(), n));
    if (vectors) {
        EXPECT_TRUE(all_nan(n, n, U.data(), n));
        EXPECT_TRUE(all_nan(n, n, VT.data(), n));
    }
}

TYPED_TEST(GpuBdsvdTest, NonFiniteGivesInfoAndNaN) {
    // NaN, Inf or -Inf in the first or last d or e, with and without vectors, upper and lower.
    using T = TypeParam;
    Rng rng(50);
    for (int64_t n : {1, 4, 100}) {
        const Bidiag<T> b = random_case<T>(rng, n, BidiagMode::Random);
        // d[p] for p < n, e[p - n] above
        const std::vector<int64_t> positions =
            n > 1 ? std::vector<int64_t>{0, n - 1, n, 2 * n - 2} : std::vector<int64_t>{0};
        for (int64_t pos : positions)
            for (T bad : {nan_v<T>(), std::numeric_limits<T>::infinity(),
                          -std::numeric_limits<T>::infinity()})
                for (int vectors = 0; vectors < 2; ++vectors)
                    for (bool upper : {true, false}) {
                        SCOPED_TRACE(testing::Message()
                                     << "n = " << n << ": " << double(bad) << " in "
                                     << (pos < n ? "d" : "e") << ", vectors " << vectors
                                     << (upper ? ", upper" : ", lower"));
                        Bidiag<T> x = b;
                        (pos < n ? x.d[sz(pos)] : x.e[sz(pos - n)]) = bad;
                        expect_nonfinite<T>(this->h, upper, vectors, n, x.d, x.e,
                                            GuardedBdsvd<T>{});
                    }
        SCOPED_TRACE("finite data after the non-finite calls");
        this->check(n, b, true);
    }
}

TYPED_TEST(GpuBdsvdTest, NearOverflowAndUnderflow) {
    using T = TypeParam;
    Rng rng(51);
    for (int which = 0; which < 2; ++which)
        for (int64_t n : {1, 5, 30, 200}) {
            SCOPED_TRACE(testing::Message() << (which ? "near underflow" : "near overflow"));
            Bidiag<T> b = random_case<T>(rng, n, BidiagMode::Random);
            const T target = which ? near_underflow_max<T>() : near_overflow_max<T>();
            const T amax = std::max(max_abs(n, 1, b.d.data(), n), max_abs(n - 1, 1, b.e.data(), n));
            const long double f = (long double)target / (long double)amax;
            scale(b.d.data(), b.d.size(), f);
            scale(b.e.data(), b.e.size(), f);
            // Relative accuracy where the smallest values stay clear of the subnormal range.
            this->check(n, b, n <= 30);
        }
}

template <typename T>
class GpuBdsvdDeviceFormTest : public DeviceStreamTest<T> {};
TYPED_TEST_SUITE(GpuBdsvdDeviceFormTest, Precisions, PrecisionName);

TYPED_TEST(GpuBdsvdDeviceFormTest, OnUserStreamMatchesHostForm) {
    // d, e, U, VT and info in device memory; the handle's stream a non-blocking user stream.
    using T = TypeParam;
    const GuardedBdsvd<T> on_device{this->rt.get(), this->stream.get()};
    Rng rng(52);
    struct Case {
        int64_t n;
        Bidiag<T> b;
        bool relative;
    };
    std::vector<Case> cases;
    for (int64_t n : {1, 2, 17, 64, 300})
        cases.push_back({n, random_case<T>(rng, n, BidiagMode::Random), true});
    cases.push_back({40, random_case<T>(rng, 40, BidiagMode::Graded, 1e-15), true});
    cases.push_back({64, random_case<T>(rng, 64, BidiagMode::Clustered, 1e-4), false});
    cases.push_back({33, random_case<T>(rng, 33, BidiagMode::ZeroDiag), false});
    cases.push_back({101, wilkinson_cholesky<T>(101), true});
    for (const Case &c : cases)
        for (bool upper : {true, false}) {
            SCOPED_TRACE(testing::Message() << (upper ? "upper" : "lower") << " n = " << c.n);
            const BdsvdOut<T> host =
                check_bdsvd<T>(this->h, upper, c.n, c.b.d, c.b.e, c.relative, GuardedBdsvd<T>{});
            SCOPED_TRACE("_gpu form");
            const BdsvdOut<T> dev =
                check_bdsvd<T>(this->h, upper, c.n, c.b.d, c.b.e, c.relative, on_device);
            EXPECT_LT(sv_compare(c.n, dev.s_novec.data(), host.s_novec.data()), kFormUlps)
                << "values only: _gpu vs host form";
            EXPECT_LT(sv_compare(c.n, dev.s_vec.data(), host.s_vec.data()), kFormUlps)
                << "with vectors: _gpu vs host form";
        }
    // n = 0: info (in device memory) set to 0.
    for (int vectors = 0; vectors < 2; ++vectors) {
        int info = -777;
        T d = T(0);
        GPUSVD_EXPECT_OK(
            this->h, on_device(this->h, GPUSVD_UPPER, vectors ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC,
                               0, &d, nullptr, nullptr, 1, nullptr, 1, &info));
        EXPECT_EQ(info, 0) << "n = 0";
    }
    // NaN and Inf through the device form: info (in device memory) and the outputs.
    Bidiag<T> b = random_case<T>(rng, 50, BidiagMode::Random);
    b.d[7] = nan_v<T>();
    expect_nonfinite<T>(this->h, true, true, 50, b.d, b.e, on_device);
    b.d[7] = T(1);
    b.e[20] = std::numeric_limits<T>::infinity();
    expect_nonfinite<T>(this->h, false, false, 50, b.d, b.e, on_device);
}

}  // namespace
