// geev_batched on the GPU backend (label `gpu`): per matrix against LAPACK ?geevx (eigenvalues
// matched sort-independently relative to ||A|| eps and the eigenvalue condition number), residual
// |A VR - VR W| / (n |A| eps) < 20 and ?geev's vector normalisation; matrices: random, companion
// matrices of polynomials with known roots, only complex pairs, Jordan blocks and 2x2 Jordan
// blocks under an orthogonal similarity (defective: eigenvalues to the sqrt(eps) level only, as
// LAPACK gets them), diagonal, upper triangular, zero, badly scaled (balancing matters), NaN/Inf
// (info set, NaN outputs, the others unaffected); n = 1 .. 100; batches of hundreds of mixed
// matrices; the `_gpu` form on a user stream against the host form; 20000 x 30x30 values only
// against the CPU backend.
//
// Every test first puts its handle on GPUSVD_BACKEND_GPU and skips when that says NO_DEVICE (CI
// has no GPU; these tests run on the device machine).
//
// GPUSVD_TEST_QUICK=1 shrinks the large batches (for compute-sanitizer runs).
//
// GPUSVD_TEST_GPU_AS_CPU=1 in the environment runs the same checks on the CPU backend, with host
// memory standing in for device memory and the host form for the `_gpu` form: it checks the tests
// themselves on a machine without a GPU.
#include "cuda_rt.hpp"
#include "geev_checks.hpp"

using namespace gpusvd_test;

namespace {

const int64_t kSizes[] = {1, 2, 3, 5, 10, 15, 20, 25, 30, 31, 32, 33, 63, 64, 65, 100};

enum class Kind {
    Random,
    Companion,
    ComplexPairs,
    JordanBlock,  // one n x n Jordan block (upper triangular: balancing isolates it)
    Defective,    // 2x2 Jordan blocks, Q^T J Q with Q random orthogonal
    Diagonal,
    UpperTriangular,
    Zero,
    BadlyScaled,  // D A D^-1, D spanning 1e6 (float: 1e3)
    NaN,
    Inf
};
const Kind kAllKinds[] = {
    Kind::Random,   Kind::Companion,       Kind::ComplexPairs, Kind::JordanBlock, Kind::Defective,
    Kind::Diagonal, Kind::UpperTriangular, Kind::Zero,         Kind::BadlyScaled, Kind::NaN,
    Kind::Inf};

const char *kind_name(Kind k) {
    static const char *const names[] = {
        "random",   "companion",        "complex pairs", "Jordan block", "defective 2x2",
        "diagonal", "upper triangular", "zero",          "badly scaled", "NaN",
        "Inf"};
    return names[int(k)];
}

template <typename T>
struct Case {
    Kind kind;
    std::vector<T> A;            // n x n, leading dimension n
    std::vector<double> re, im;  // the exact eigenvalues, where known
    std::vector<T> unscaled;     // BadlyScaled: the matrix before scaling
};

template <typename T>
Case<T> make_case(Rng &rng, Kind kind, int64_t n) {
    Case<T> c{kind, std::vector<T>(sz(n * n), T(0)), {}, {}, {}};
    std::vector<double> re(sz(n), 0.0), im(sz(n), 0.0);
    T *A = c.A.data();
    switch (kind) {
        case Kind::Random:
        case Kind::NaN:
        case Kind::Inf:
            gaussian(rng, n, n, A, n);
            if (kind == Kind::NaN) A[sz(n * n / 2)] = nan_v<T>();
            if (kind == Kind::Inf) A[sz(n * n - 1)] = std::numeric_limits<T>::infinity();
            return c;
        case Kind::Companion:  // roots near the circle, radii 0.5 .. 1, conjugate pairs
            for (int64_t j = 0; j + 1 < n; j += 2) {
                const double t =
                    3.141592653589793 * (double(j + 1) + rng.uniform(-0.2, 0.2)) / double(n);
                const double r = rng.uniform(0.5, 1.0);
                re[sz(j)] = re[sz(j + 1)] = r * std::cos(t);
                im[sz(j)] = r * std::sin(t);
                im[sz(j + 1)] = -im[sz(j)];
            }
            if (n % 2) re[sz(n - 1)] = -rng.uniform(0.5, 1.0);
            companion(n, re.data(), im.data(), A, n);
            break;
        case Kind::ComplexPairs:
            complex_pairs(rng, n, A, n, re.data(), im.data(), 4.0);
            break;
        case Kind::JordanBlock:
            jordan_block(n, 1.5, A, n);
            re.assign(sz(n), 1.5);
            break;
        case Kind::Defective: {
            std::vector<double> J(sz(n * n), 0.0), Q(sz(n * n)), JQ(sz(n * n)), W(sz(n * n));
            for (int64_t i = 0; i < n; ++i) {
                re[sz(i)] = -1.0 + 2.0 * double(i / 2 * 2 + 1) / double(n);  // pairs share it
                J[sz(i + i * n)] = re[sz(i)];
                if (i % 2 == 0 && i + 1 < n) J[sz(i + (i + 1) * n)] = 1.0;
            }
            random_orthonormal(rng, n, n, Q.data(), n);
            detail::gemm(false, false, n, n, n, 1.0, J.data(), n, Q.data(), n, 0.0, JQ.data(), n);
            detail::gemm(true, false, n, n, n, 1.0, Q.data(), n, JQ.data(), n, 0.0, W.data(), n);
            for (size_t i = 0; i < W.size(); ++i) A[i] = T(W[i]);
            break;
        }
        case Kind::Diagonal:
            for (int64_t i = 0; i < n; ++i) {
                A[sz(i + i * n)] = T(double(i + 1) * (i % 2 ? -1 : 1));
                re[sz(i)] = double(A[sz(i + i * n)]);
            }
            break;
        case Kind::UpperTriangular:
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i <= j; ++i) A[sz(i + j * n)] = T(rng.normal());
            for (int64_t i = 0; i < n; ++i) re[sz(i)] = double(A[sz(i + i * n)]);
            break;
        case Kind::Zero:
            break;
        case Kind::BadlyScaled: {
            c.unscaled = gaussian<T>(rng, n, n);
            const double span = std::is_same<T, float>::value ? 1e3 : 1e6;
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i) {
                    const double e = n > 1 ? double(i - j) / double(n - 1) : 0.0;
                    A[sz(i + j * n)] = T(double(c.unscaled[sz(i + j * n)]) * std::pow(span, e));
                }
            return c;
        }
    }
    c.re = re;
    c.im = im;
    return c;
}

/// Largest distance of the computed eigenvalues from the exact ones (bottleneck matching).
template <typename T>
double distance_to_exact(int64_t n, const EigOut<T> &o, const Case<T> &c) {
    return eig_match(n, o.wr.data(), o.wi.data(), c.re.data(), c.im.data(), 1.0) * eps<T>();
}

/// Every check for one matrix of kind c.kind.
template <typename T>
void check_case(int64_t n, const Case<T> &c, const EigOut<T> &o, bool vectors) {
    SCOPED_TRACE(kind_name(c.kind));
    const double anorm = double(norm1(n, n, c.A.data(), n));
    switch (c.kind) {
        case Kind::NaN:
        case Kind::Inf:
            expect_eig_nonfinite(n, o, vectors);
            return;
        case Kind::JordanBlock:
        case Kind::Defective:  // eigenvalue error ~ sqrt(eps |A|); only the backward error is tight
            EXPECT_EQ(o.info, 0);
            EXPECT_TRUE(eig_pairs_ok(n, o.wr.data(), o.wi.data()));
            EXPECT_LE(distance_to_exact(n, o, c), 10.0 * std::sqrt(double(n) * eps<T>() * anorm))
                << "eigenvalues of a defective matrix, to the sqrt(eps) level";
            if (vectors) {
                EXPECT_LT(eig_residual(n, c.A.data(), n, o.wr.data(), o.wi.data(), o.VR.data(), n),
                          kEigThreshold);
                EXPECT_LT(eigvec_normalization(n, o.wi.data(), o.VR.data(), n), 10.0);
            }
            return;
        case Kind::Zero:
            EXPECT_EQ(o.info, 0);
            EXPECT_TRUE(all_equal(o.wr, T(0)) && all_equal(o.wi, T(0)));
            if (vectors) {
                EXPECT_EQ(eig_residual(n, c.A.data(), n, o.wr.data(), o.wi.data(), o.VR.data(), n),
                          0.0);
                EXPECT_LT(eigvec_normalization(n, o.wi.data(), o.VR.data(), n), 10.0);
            }
            return;
        default:
            break;
    }
    check_eig<T>(n, c.A, o, vectors, c.re.empty() ? nullptr : c.re.data(),
                 c.im.empty() ? nullptr : c.im.data());
    if (c.kind == Kind::Diagonal || c.kind == Kind::UpperTriangular) {
        EXPECT_EQ(distance_to_exact(n, o, c), 0.0)
            << "balancing's permutation isolates every eigenvalue of a triangular matrix";
    }
    if (c.kind == Kind::ComplexPairs) {
        int64_t complex_count = 0;
        for (T v : o.wi) complex_count += v != T(0);
        EXPECT_EQ(complex_count, n - n % 2);
    }
    if (c.kind == Kind::BadlyScaled) {
        // Balancing undoes the scaling: the eigenvalues are as accurate as the unscaled matrix
        // determines them. (LAPACK dgeevx without balancing misses this bound by a factor 1e4
        // to 1e7 on these matrices, with balancing it meets it with a factor 20 to spare.)
        const EigRef<T> ref = ref_eig(n, c.unscaled);
        const double d = eig_match(n, o.wr.data(), o.wi.data(), ref.wr.data(), ref.wi.data(),
                                   double(norm1(n, n, c.unscaled.data(), n)));
        EXPECT_LE(d, 20.0 * double(n) * ref.kappa)
            << "vs the unscaled matrix: max |lambda - lambda_ref| / (|A| eps), kappa = "
            << ref.kappa;
        if (verbose())
            std::printf("  badly scaled n=%lld: %.3g (kappa %.3g)\n", (long long)n, d, ref.kappa);
    }
}

/// `count` cases cycling through every kind.
template <typename T>
std::vector<Case<T>> mixed_cases(Rng &rng, int64_t n, size_t count) {
    std::vector<Case<T>> cases;
    for (size_t i = 0; i < count; ++i)
        cases.push_back(make_case<T>(rng, kAllKinds[i % std::size(kAllKinds)], n));
    return cases;
}

/// Runs geev_batched (or `call`) on the cases as one batch and checks every matrix.
template <typename T, typename Call = GeevBatchedFn<T>>
std::vector<EigOut<T>> check_cases(gpusvdHandle_t h, int64_t n, const std::vector<Case<T>> &cases,
                                   bool vectors, Call call = Api<T>::geev_batched) {
    std::vector<std::vector<T>> mats;
    for (const Case<T> &c : cases) mats.push_back(c.A);
    const std::vector<EigOut<T>> out = run_geev<T>(h, n, mats, vectors, call);
    for (size_t b = 0; b < cases.size(); ++b) {
        SCOPED_TRACE(testing::Message() << "matrix " << b);
        check_case(n, cases[b], out[b], vectors);
    }
    return out;
}

/// geev_batched through gpusvd_Xgeev_batched_gpu on the user stream (same signature as
/// Api<T>::geev_batched).
template <typename T>
struct GeevOnDevice {
    const CudaRt &rt;
    const UserStream &stream;
    gpusvdStatus_t operator()(gpusvdHandle_t h, gpusvdJob_t job, int64_t n, T *A, int64_t lda,
                              int64_t sA, T *wr, T *wi, int64_t sW, T *VR, int64_t ldvr,
                              int64_t sVR, int64_t batch, int *info) const {
        const auto form = rt.emulated ? Api<T>::geev_batched : Api<T>::geev_batched_gpu;
        return run_on_device(rt, stream,
                             {{A, sizeof(T) * sz(sA * batch)},
                              {wr, sizeof(T) * sz(sW * batch)},
                              {wi, sizeof(T) * sz(sW * batch)},
                              {VR, sizeof(T) * sz(sVR * batch)},
                              {info, sizeof(int) * sz(batch)}},
                             [&](void *const *d) {
                                 return form(h, job, n, static_cast<T *>(d[0]), lda, sA,
                                             static_cast<T *>(d[1]), static_cast<T *>(d[2]), sW,
                                             static_cast<T *>(d[3]), ldvr, sVR, batch,
                                             static_cast<int *>(d[4]));
                             });
    }
};

template <typename T>
class GpuGeevTest : public DeviceTest<T> {};
TYPED_TEST_SUITE(GpuGeevTest, Precisions, PrecisionName);

template <typename T>
class GpuGeevDeviceFormTest : public DeviceStreamTest<T> {};
TYPED_TEST_SUITE(GpuGeevDeviceFormTest, Precisions, PrecisionName);

TYPED_TEST(GpuGeevTest, EveryKindEverySize) {
    using T = TypeParam;
    Rng rng(41);
    for (int64_t n : kSizes) {
        const std::vector<Case<T>> cases = mixed_cases<T>(rng, n, 2 * std::size(kAllKinds));
        for (bool vectors : {true, false}) {
            SCOPED_TRACE(testing::Message() << "n = " << n << (vectors ? " VEC" : " NOVEC"));
            check_cases(this->h.get(), n, cases, vectors);
        }
    }
}

TYPED_TEST(GpuGeevTest, MixedBatchesOfHundreds) {
    using T = TypeParam;
    Rng rng(42);
    for (int64_t n : {10, 33}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        check_cases(this->h.get(), n, mixed_cases<T>(rng, n, sz(full_or_quick(300, 60))), true);
    }
}

TYPED_TEST(GpuGeevDeviceFormTest, OnUserStreamMatchesHostForm) {
    using T = TypeParam;
    const GeevOnDevice<T> on_device{*this->rt, *this->stream};
    Rng rng(43);
    for (int64_t n : {1, 5, 30, 65}) {
        const std::vector<Case<T>> cases = mixed_cases<T>(rng, n, 100);
        for (bool vectors : {true, false}) {
            SCOPED_TRACE(testing::Message() << "n = " << n << (vectors ? " VEC" : " NOVEC"));
            const auto host = check_cases(this->h.get(), n, cases, vectors);
            SCOPED_TRACE("_gpu form");
            const auto dev = check_cases(this->h.get(), n, cases, vectors, on_device);
            for (size_t b = 0; b < cases.size(); ++b) {
                SCOPED_TRACE(testing::Message() << "matrix " << b);
                EXPECT_EQ(dev[b].info, host[b].info);
                if (host[b].info == 0 && cases[b].kind != Kind::Defective &&
                    cases[b].kind != Kind::JordanBlock)
                    expect_same_eigenvalues(n, cases[b].A, dev[b], host[b]);
            }
        }
    }
}

TYPED_TEST(GpuGeevTest, LargeBatchValuesMatchCpuBackend) {
    using T = TypeParam;
    const int64_t n = 30, batch = full_or_quick(20000, 200), nn = n * n;
    Rng rng(44);
    std::vector<T> A0(sz(nn * batch));
    gaussian(rng, n, n * batch, A0.data(), n);
    const int64_t bad[] = {17, batch / 2, batch - 1};  // NaN, -Inf, NaN
    for (int64_t b : bad)
        A0[sz(b * nn + b % nn)] = b == bad[1] ? -std::numeric_limits<T>::infinity() : nan_v<T>();

    Handle cpu;
    GPUSVD_ASSERT_OK(cpu, gpusvdSetBackend(cpu, GPUSVD_BACKEND_CPU));
    std::vector<T> wr[2], wi[2];
    std::vector<int> info[2];
    for (int r = 0; r < 2; ++r) {
        const gpusvdHandle_t h = r == 0 ? this->h.get() : cpu.get();
        std::vector<T> A = A0;
        wr[r].assign(sz(n * batch), sentinel<T>());
        wi[r].assign(sz(n * batch), sentinel<T>());
        info[r].assign(sz(batch), -777);
        GPUSVD_ASSERT_OK(
            h, Api<T>::geev_batched(h, GPUSVD_JOB_NOVEC, n, A.data(), n, nn, wr[r].data(),
                                    wi[r].data(), n, nullptr, n, nn, batch, info[r].data()));
    }
    EXPECT_EQ(info[0], info[1]);
    for (int64_t b = 0; b < batch; ++b) {
        SCOPED_TRACE(testing::Message() << "matrix " << b);
        EigOut<T> o[2];
        for (int r = 0; r < 2; ++r) {
            o[r].wr.assign(wr[r].begin() + b * n, wr[r].begin() + (b + 1) * n);
            o[r].wi.assign(wi[r].begin() + b * n, wi[r].begin() + (b + 1) * n);
            o[r].info = info[r][sz(b)];
        }
        if (std::find(std::begin(bad), std::end(bad), b) != std::end(bad)) {
            expect_eig_nonfinite(n, o[0], false);
            continue;
        }
        ASSERT_EQ(o[0].info, 0);
        ASSERT_TRUE(eig_pairs_ok(n, o[0].wr.data(), o[0].wi.data()));
        expect_same_eigenvalues(n, std::vector<T>(A0.begin() + b * nn, A0.begin() + (b + 1) * nn),
                                o[0], o[1]);
    }
}

}  // namespace

namespace {
// One small batch per kernel path (8, 16 and 32 lanes per matrix, block in shared memory, global
// memory) with and without vectors: what the racecheck run on the device covers
// (*EveryKernelPath*). Lanes per matrix (geev_team_width), values only: 8 up to n = 29 in
// double and 32 in float, then 16 (double n = 30) and 32 (n = 64); with vectors 8 up to n = 30.
// Values-only problems from n = 3 take the two band kernels (for 8-lane teams stage 1 with 8
// lanes up to n = 20 in double and 25 in float, else 16, and the QR a thread per matrix up to
// n = 15 and 19: n = 5 here), n = 2 the one-kernel 8-lane path; the one-kernel values paths at
// the other sizes run when the device
// run repeats this with GPUSVD_GEEV_BAND=0, float's 16-lane band kernel with
// GPUSVD_GEEV_TEAM=16, and the thread-per-matrix QR wherever 16 bands fit a block (here n = 20,
// 25, 30, and 64 in float) with GPUSVD_GEEV_QR_THREAD=1, and the vectors kernels with Z in the
// caller's VR with GPUSVD_GEEV_Z_GLOBAL=1.
TYPED_TEST(GpuGeevTest, EveryKernelPathOnce) {
    using T = TypeParam;
    Rng rng(43), rng25(4325);  // n = 25 draws apart: the other sizes keep their matrices
    for (int64_t n : {5, 20, 25, 30, 64, 100, 140, 2}) {
        // Small n: two warps' worth of matrices of mixed kinds, so groups of one warp diverge.
        const std::vector<Case<T>> cases =
            mixed_cases<T>(n == 25 ? rng25 : rng, n, n <= 25 ? 8 : 3);
        for (bool vectors : {true, false}) {
            SCOPED_TRACE(testing::Message() << "n = " << n << (vectors ? " VEC" : " NOVEC"));
            check_cases(this->h.get(), n, cases, vectors);
        }
    }
}
}  // namespace

// ---- Complex matrices (cgeev_batched / zgeev_batched) ----------------------------------------
// The complex kernels run the same paths as the real ones (8, 16 or 32 lanes per matrix, the band
// kernels without vectors, a block in shared memory, global memory): the same sizes, kinds adapted
// to complex data
// (Hermitian and skew-Hermitian inputs, companion matrices with complex roots), checked against
// LAPACK cgeevx / zgeevx with zgeev's conventions (check_eig_c in geev_checks.hpp).
namespace {

enum class KindC {
    Random,
    Hermitian,      // real eigenvalues
    SkewHermitian,  // imaginary eigenvalues
    Companion,      // known complex roots
    Diagonal,
    UpperTriangular,
    Zero,
    BadlyScaled,  // D A D^-1, D spanning 1e6 (float: 1e3)
    NaN,
    Inf
};
const KindC kAllKindsC[] = {KindC::Random,    KindC::Hermitian,   KindC::SkewHermitian,
                            KindC::Companion, KindC::Diagonal,    KindC::UpperTriangular,
                            KindC::Zero,      KindC::BadlyScaled, KindC::NaN,
                            KindC::Inf};

const char *kind_name(KindC k) {
    static const char *const names[] = {
        "random",           "Hermitian", "skew-Hermitian", "companion", "diagonal",
        "upper triangular", "zero",      "badly scaled",   "NaN",       "Inf"};
    return names[int(k)];
}

template <typename R>
struct CaseC {
    KindC kind;
    std::vector<Cx<R>> A;      // n x n, leading dimension n
    std::vector<Cx<R>> exact;  // the exact eigenvalues, where known
};

template <typename R>
CaseC<R> make_case_c(Rng &rng, KindC kind, int64_t n) {
    CaseC<R> c{kind, std::vector<Cx<R>>(sz(n * n), Cx<R>(0)), {}};
    auto normal = [&] { return Cx<R>(R(rng.normal()), R(rng.normal())); };
    switch (kind) {
        case KindC::Random:
        case KindC::NaN:
        case KindC::Inf:
            for (auto &x : c.A) x = normal();
            if (kind == KindC::NaN) c.A[sz(n * n / 2)] = Cx<R>(R(0), nan_v<R>());
            if (kind == KindC::Inf)
                c.A[sz(n * n - 1)] = Cx<R>(-std::numeric_limits<R>::infinity(), R(1));
            break;
        case KindC::Hermitian:
        case KindC::SkewHermitian: {
            std::vector<Cx<R>> G(sz(n * n));
            for (auto &x : G) x = normal();
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i) {
                    const Cx<R> a = G[sz(i + j * n)], b = std::conj(G[sz(j + i * n)]);
                    c.A[sz(i + j * n)] = kind == KindC::Hermitian ? (a + b) / R(2) : (a - b) / R(2);
                }
            break;
        }
        case KindC::Companion: {
            // Roots near the unit circle, about evenly spaced (radii 0.9 .. 1): the polynomial's
            // coefficients stay small (near z^n - c), so rounding them moves the roots little.
            std::vector<Cx<double>> roots(sz(n));
            std::vector<Cx<long double>> coef = {1};
            for (int64_t j = 0; j < n; ++j) {
                const double t =
                    2 * 3.141592653589793 * (double(j) + rng.uniform(-0.1, 0.1) + 0.25) / double(n);
                roots[sz(j)] = std::polar(rng.uniform(0.9, 1.0), t);
            }
            for (const auto &z : roots) {  // monic, highest degree first
                coef.push_back(0);
                for (size_t i = coef.size() - 1; i > 0; --i)
                    coef[i] -= Cx<long double>(z.real(), z.imag()) * coef[i - 1];
            }
            for (int64_t j = 0; j < n; ++j) {
                const Cx<long double> v = -coef[sz(j + 1)];
                c.A[sz(0 + j * n)] = Cx<R>(R(v.real()), R(v.imag()));
            }
            for (int64_t i = 1; i < n; ++i) c.A[sz(i + (i - 1) * n)] = Cx<R>(1);
            // The rounded coefficients' roots: the exact ones up to n = 32 (past that the
            // rounding moves them by more than the balanced matrix's condition number tells).
            if (n <= 32)
                for (const auto &z : roots) c.exact.push_back(Cx<R>(R(z.real()), R(z.imag())));
            break;
        }
        case KindC::Diagonal:
            for (int64_t i = 0; i < n; ++i) {
                c.A[sz(i + i * n)] = Cx<R>(R(i + 1) * (i % 2 ? R(-1) : R(1)), R(i % 3));
                c.exact.push_back(c.A[sz(i + i * n)]);
            }
            break;
        case KindC::UpperTriangular:
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i <= j; ++i) c.A[sz(i + j * n)] = normal();
            for (int64_t i = 0; i < n; ++i) c.exact.push_back(c.A[sz(i + i * n)]);
            break;
        case KindC::Zero:
            c.exact.assign(sz(n), Cx<R>(0));
            break;
        case KindC::BadlyScaled: {
            const double span = std::is_same<R, float>::value ? 1e3 : 1e6;
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i) {
                    const double e = n > 1 ? double(i - j) / double(n - 1) : 0.0;
                    c.A[sz(i + j * n)] = normal() * R(std::pow(span, e));
                }
            break;
        }
    }
    return c;
}

/// Every check for one complex matrix of kind c.kind.
template <typename R>
void check_case_c(int64_t n, const CaseC<R> &c, const EigOutC<R> &o, bool vectors) {
    SCOPED_TRACE(kind_name(c.kind));
    if (c.kind == KindC::NaN || c.kind == KindC::Inf) {
        expect_eig_nonfinite_c(o, vectors);
        return;
    }
    if (c.kind == KindC::Zero) {
        EXPECT_EQ(o.info, 0);
        for (const Cx<R> &x : o.w) EXPECT_EQ(x, Cx<R>(0));
        if (vectors) {
            EXPECT_EQ(eig_residual_c(n, c.A.data(), n, o.w.data(), o.VR.data(), n), 0.0);
            EXPECT_LT(normalisation_c(n, o.VR.data()), 10.0);
        }
        return;
    }
    check_eig_c<R>(n, c.A, o, vectors, c.exact.empty() ? nullptr : &c.exact);
    if (c.kind == KindC::Diagonal || c.kind == KindC::UpperTriangular) {
        EXPECT_EQ(eig_match_c(n, o.w.data(), c.exact.data(), 1.0), 0.0)
            << "balancing's permutation isolates every eigenvalue of a triangular matrix";
    }
    const double tol = 20.0 * double(n) * eps<R>() * norm1_h(n, n, c.A.data(), n);
    for (const Cx<R> &x : o.w) {
        if (c.kind == KindC::Hermitian) {
            EXPECT_LE(std::abs(double(x.imag())), tol) << "real eigenvalues";
        } else if (c.kind == KindC::SkewHermitian) {
            EXPECT_LE(std::abs(double(x.real())), tol) << "imaginary eigenvalues";
        }
    }
}

template <typename R>
std::vector<CaseC<R>> mixed_cases_c(Rng &rng, int64_t n, size_t count) {
    std::vector<CaseC<R>> cases;
    for (size_t i = 0; i < count; ++i)
        cases.push_back(make_case_c<R>(rng, kAllKindsC[i % std::size(kAllKindsC)], n));
    return cases;
}

/// Runs c/zgeev_batched (or `call`) on the cases as one batch and checks every matrix.
template <typename R, typename Call = GeevBatchedFnC<R>>
std::vector<EigOutC<R>> check_cases_c(gpusvdHandle_t h, int64_t n,
                                      const std::vector<CaseC<R>> &cases, bool vectors,
                                      Call call = Api<PublicComplex<R>>::geev_batched) {
    std::vector<std::vector<Cx<R>>> mats;
    for (const CaseC<R> &c : cases) mats.push_back(c.A);
    const std::vector<EigOutC<R>> out = run_geev_c<R>(h, n, mats, vectors, call);
    for (size_t b = 0; b < cases.size(); ++b) {
        SCOPED_TRACE(testing::Message() << "matrix " << b);
        check_case_c(n, cases[b], out[b], vectors);
    }
    return out;
}

/// c/zgeev_batched through the `_gpu` form on the user stream (the host form's signature).
template <typename R>
struct GeevOnDeviceC {
    using P = PublicComplex<R>;
    const CudaRt &rt;
    const UserStream &stream;
    gpusvdStatus_t operator()(gpusvdHandle_t h, gpusvdJob_t job, int64_t n, P *A, int64_t lda,
                              int64_t sA, P *W, int64_t sW, P *VR, int64_t ldvr, int64_t sVR,
                              int64_t batch, int *info) const {
        const auto form = rt.emulated ? Api<P>::geev_batched : Api<P>::geev_batched_gpu;
        return run_on_device(rt, stream,
                             {{A, sizeof(P) * sz(sA * batch)},
                              {W, sizeof(P) * sz(sW * batch)},
                              {VR, sizeof(P) * sz(sVR * batch)},
                              {info, sizeof(int) * sz(batch)}},
                             [&](void *const *d) {
                                 return form(h, job, n, static_cast<P *>(d[0]), lda, sA,
                                             static_cast<P *>(d[1]), sW, static_cast<P *>(d[2]),
                                             ldvr, sVR, batch, static_cast<int *>(d[3]));
                             });
    }
};

/// Same eigenvalues up to both results' errors (2 x 20 n eps |A| kappa).
template <typename R>
void expect_same_eigenvalues_c(int64_t n, const std::vector<Cx<R>> &A0, const EigOutC<R> &a,
                               const EigOutC<R> &b) {
    const double anorm = norm1_h(n, n, A0.data(), n);
    const double d = eig_match_c(n, a.w.data(), b.w.data(), anorm);
    if (d <= 40.0 * double(n)) return;
    const double kappa = ref_eig_c(n, A0).kappa;
    EXPECT_LE(d, 40.0 * double(n) * kappa)
        << "max |lambda_a - lambda_b| / (|A| eps), kappa = " << kappa;
}

template <typename T>
class GpuGeevComplexTest : public DeviceTest<T> {};
TYPED_TEST_SUITE(GpuGeevComplexTest, Precisions, PrecisionName);

template <typename T>
class GpuGeevComplexDeviceFormTest : public DeviceStreamTest<T> {};
TYPED_TEST_SUITE(GpuGeevComplexDeviceFormTest, Precisions, PrecisionName);

TYPED_TEST(GpuGeevComplexTest, EveryKindEverySize) {
    using R = TypeParam;
    Rng rng(51);
    for (int64_t n : kSizes) {
        const std::vector<CaseC<R>> cases = mixed_cases_c<R>(rng, n, 2 * std::size(kAllKindsC));
        for (bool vectors : {true, false}) {
            SCOPED_TRACE(testing::Message() << "n = " << n << (vectors ? " VEC" : " NOVEC"));
            check_cases_c<R>(this->h.get(), n, cases, vectors);
        }
    }
}

TYPED_TEST(GpuGeevComplexTest, MixedBatchesOfHundreds) {
    using R = TypeParam;
    Rng rng(52);
    for (int64_t n : {10, 33}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        check_cases_c<R>(this->h.get(), n, mixed_cases_c<R>(rng, n, sz(full_or_quick(300, 60))),
                         true);
    }
}

TYPED_TEST(GpuGeevComplexDeviceFormTest, OnUserStreamMatchesHostForm) {
    using R = TypeParam;
    const GeevOnDeviceC<R> on_device{*this->rt, *this->stream};
    Rng rng(53);
    for (int64_t n : {1, 5, 30, 65}) {
        const std::vector<CaseC<R>> cases = mixed_cases_c<R>(rng, n, 100);
        for (bool vectors : {true, false}) {
            SCOPED_TRACE(testing::Message() << "n = " << n << (vectors ? " VEC" : " NOVEC"));
            const auto host = check_cases_c<R>(this->h.get(), n, cases, vectors);
            SCOPED_TRACE("_gpu form");
            const auto dev = check_cases_c<R>(this->h.get(), n, cases, vectors, on_device);
            for (size_t b = 0; b < cases.size(); ++b) {
                SCOPED_TRACE(testing::Message() << "matrix " << b);
                EXPECT_EQ(dev[b].info, host[b].info);
                if (host[b].info == 0) expect_same_eigenvalues_c(n, cases[b].A, dev[b], host[b]);
            }
        }
    }
}

TYPED_TEST(GpuGeevComplexTest, LargeBatchValuesMatchCpuBackend) {
    using R = TypeParam;
    using P = PublicComplex<R>;
    const int64_t n = 30, batch = full_or_quick(20000, 200), nn = n * n;
    Rng rng(54);
    std::vector<Cx<R>> A0(sz(nn * batch));
    for (auto &x : A0) x = Cx<R>(R(rng.normal()), R(rng.normal()));
    const int64_t bad[] = {17, batch / 2, batch - 1};  // NaN, -Inf, NaN
    for (int64_t b : bad)
        A0[sz(b * nn + b % nn)] =
            b == bad[1] ? Cx<R>(-std::numeric_limits<R>::infinity(), 0) : Cx<R>(0, nan_v<R>());
    Handle cpu;
    GPUSVD_ASSERT_OK(cpu, gpusvdSetBackend(cpu, GPUSVD_BACKEND_CPU));
    std::vector<Cx<R>> W[2];
    std::vector<int> info[2];
    for (int r = 0; r < 2; ++r) {
        const gpusvdHandle_t h = r == 0 ? this->h.get() : cpu.get();
        std::vector<Cx<R>> A = A0;
        W[r].assign(sz(n * batch), Cx<R>(sentinel<R>()));
        info[r].assign(sz(batch), -777);
        GPUSVD_ASSERT_OK(
            h, Api<P>::geev_batched(h, GPUSVD_JOB_NOVEC, n, reinterpret_cast<P *>(A.data()), n, nn,
                                    reinterpret_cast<P *>(W[r].data()), n, nullptr, n, nn, batch,
                                    info[r].data()));
    }
    EXPECT_EQ(info[0], info[1]);
    for (int64_t b = 0; b < batch; ++b) {
        SCOPED_TRACE(testing::Message() << "matrix " << b);
        EigOutC<R> o[2];
        for (int r = 0; r < 2; ++r) {
            o[r].w.assign(W[r].begin() + b * n, W[r].begin() + (b + 1) * n);
            o[r].info = info[r][sz(b)];
        }
        if (std::find(std::begin(bad), std::end(bad), b) != std::end(bad)) {
            expect_eig_nonfinite_c(o[0], false);
            continue;
        }
        ASSERT_EQ(o[0].info, 0);
        expect_same_eigenvalues_c(
            n, std::vector<Cx<R>>(A0.begin() + b * nn, A0.begin() + (b + 1) * nn), o[0], o[1]);
    }
}

// One small batch per complex kernel path with and without vectors (the racecheck run's
// *EveryKernelPath*), lanes per matrix by geev_team_width's complex rule. With vectors, Z in the
// caller's VR: 8 lanes at n = 5 and 20, 16 at 30 and 31, 32 at 64. Values only from n = 3 take
// the band kernels: n = 5 the QR a thread per matrix, 20 and 30 8-lane teams (stage 1 with 8 and
// 16 lanes), 31 and 64 32 lanes; n = 2 the one-kernel 8-lane path. Complex double n = 100 and
// 140 with vectors: global memory (the shared working set exceeds a block's); values: a block in
// shared memory at n = 100. The device run repeats this with GPUSVD_GEEV_Z_GLOBAL=0 (Z in shared
// memory), GPUSVD_GEEV_TEAM=16 (16-lane band QR) and GPUSVD_GEEV_BAND=0 (one-kernel values).
TYPED_TEST(GpuGeevComplexTest, EveryKernelPathOnce) {
    using R = TypeParam;
    Rng rng(55);
    for (int64_t n : {5, 20, 30, 31, 64, 100, 140, 2}) {
        const std::vector<CaseC<R>> cases = mixed_cases_c<R>(rng, n, n <= 31 ? 10 : 3);
        for (bool vectors : {true, false}) {
            SCOPED_TRACE(testing::Message() << "n = " << n << (vectors ? " VEC" : " NOVEC"));
            check_cases_c<R>(this->h.get(), n, cases, vectors);
        }
    }
}

}  // namespace
