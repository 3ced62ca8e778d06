// pca on the GPU backend (label `gpu`; samples >= features), both methods: QR (centring on the
// device, tall QR, Jacobi SVD of R) and covariance (centring, Gram matrix, Jacobi SVD of that).
// Each result is checked against a reference built here from LAPACK dgesvd of the explicitly
// centred data (in double for both precisions) and compared with the CPU backend running the same
// method on the same data: components (sign convention: the entry of largest magnitude positive),
// explained variance, scores and mean, with padded leading dimensions and nothing outside the
// outputs written. Shapes from 1000 x 1 to 20000 x 8 (k = n) and 300 x 300; NULL scores and mean;
// NaN/Inf (info GPUSVD_INFO_NONFINITE, NaN outputs); data scaled near overflow and underflow and
// with a large mean offset; wide data (NOT_SUPPORTED on backend GPU, the CPU under AUTO); the
// `_gpu` form on a user stream against the host form; AUTO's choice as on the CPU; the
// covariance method's loss of the smallest variances where the QR method keeps them.
//
// Tolerances follow DESIGN.md's SVD ratio (threshold 50, max(m,n) eps |X_c|) with an absolute
// error bound on the singular values of the centred data
//     E = 50 (max(m,n) eps s_1 + sqrt(m) |mu|_2 eps)
// (the second term: rounding the column means to the working precision perturbs the centred data
// by a rank-one 1 delta^T with |delta_j| <= eps |mu_j|), and from it (Weyl, Wedin), for the QR
// method:
//     explained variance j: |var_j - s_j^2/(m-1)| <= (2 s_j E + E^2) / (m - 1)
//     component j:          max_i |c_ij - c_ref_ij| <= E / gap_j (a sign flip accepted only on a
//                           near tie of the two largest magnitudes of the reference component)
// and for the covariance method, whose Gram matrix carries an error of about s_1 E
// (pca_checks.hpp, pca_bounds): s_1 in place of s_j in the variance bound, and s_1 E / gap2_j
// (gap between s_j^2 and its neighbours' squares) for component j.
//     scores:               max |scores - X_c C| <= E
//     mean:                 |mean_j - mean_ref_j| <= 4 eps max_i |x_ij| + 4 sqrt(m) eps_double
//                           max_i |x_ij| (double accumulation of the column sums).
//
// Every test first puts its handle on GPUSVD_BACKEND_GPU and skips when that says NO_DEVICE.
// GPUSVD_TEST_QUICK=1 shrinks the large cases (compute-sanitizer runs). GPUSVD_TEST_GPU_AS_CPU=1
// runs the same checks on the CPU backend (host memory standing in for device memory, the host
// form for the `_gpu` form); what only backend GPU promises (NOT_SUPPORTED for wide data) is
// skipped there.
#include "cuda_rt.hpp"
#include "pca_checks.hpp"

using namespace gpusvd_test;

namespace {

struct PcaCase {
    int64_t m, n, k;
};

/// X (m x n, leading dimension m) = 1 mu^T + G diag(s) V^T with G orthonormal and centred, so the
/// centred X has exactly the singular values s (r = min(m-1, n) of them): s_p = amp 0.6^p for
/// p <= k (well separated: the top k components are well determined), then a slowly decreasing
/// noise floor below s_k. amp = sqrt(m-1): the first component has unit variance. mu_j = offset +
/// 5 N(0,1).
template <typename T>
std::vector<T> make_data(Rng &rng, int64_t m, int64_t n, int64_t k, double offset = 0.0) {
    const int64_t r = std::min(m - 1, n);
    std::vector<double> G(sz(m * std::max<int64_t>(r, 1)));
    random_centred_orthonormal(rng, m, r, G.data(), m);
    std::vector<double> V(sz(n * std::max<int64_t>(r, 1))), s(sz(std::max<int64_t>(r, 1)));
    if (r > 0) random_orthonormal(rng, n, r, V.data(), n);
    const double amp = std::sqrt(double(m - 1));
    for (int64_t p = 0; p < r; ++p)
        s[sz(p)] = p <= k ? amp * std::pow(0.6, double(p))
                          : amp * std::pow(0.6, double(k + 1)) *
                                (1.0 - 0.5 * double(p - k - 1) / double(r));
    std::vector<double> GS(sz(m * std::max<int64_t>(r, 1)));
    for (int64_t p = 0; p < r; ++p)
        for (int64_t i = 0; i < m; ++i) GS[sz(i + p * m)] = G[sz(i + p * m)] * s[sz(p)];
    std::vector<double> D(sz(m * n), 0.0);
    if (r > 0)
        gpusvd_util::detail::gemm(false, true, m, n, r, 1.0, GS.data(), m, V.data(), n, 0.0, D.data(), m);
    std::vector<T> X(sz(m * n));
    for (int64_t j = 0; j < n; ++j) {
        const double mu = offset + 5.0 * rng.normal();
        for (int64_t i = 0; i < m; ++i) X[sz(i + j * m)] = T(mu + D[sz(i + j * m)]);
    }
    return X;
}

/// Tolerance of component j (the method's bound, pca_bounds) and whether its sign is a near tie
/// (the two largest magnitudes of the reference component closer than twice that).
struct ComponentTol {
    double tol;
    bool near_tie;
};

inline ComponentTol component_tol(const PcaRef &r, int64_t j, double factor, bool cov) {
    ComponentTol t{std::min(pca_bounds(r, j, factor * r.E, cov).component, 1e300), false};
    double a1 = 0, a2 = 0;
    for (int64_t i = 0; i < r.n; ++i) {
        const double a = std::fabs(r.components[sz(i + j * r.n)]);
        if (a > a1) {
            a2 = a1;
            a1 = a;
        } else if (a > a2) {
            a2 = a;
        }
    }
    t.near_tie = r.n > 1 && a1 - a2 <= 2 * t.tol;
    return t;
}

/// One pca result, unscaled (divided by the factor the data was scaled with) into long double:
/// components n x k, variance k, scores m x k (empty when not asked for), mean n (empty too).
struct PcaOut {
    int info = -777;
    std::vector<long double> C, var, scores, mean;
};

template <typename T>
using PcaFn = std::remove_const_t<decltype(Api<T>::pca)>;

/// Runs pca (or `call`) on X0 (m x n, leading dimension m) with padded leading dimensions and
/// sentinels around every output; EXPECTs status SUCCESS, X unchanged, nothing outside the
/// outputs written. Returns the outputs divided by `f` (variance by f^2).
template <typename T, typename Call = PcaFn<T>>
PcaOut run_pca(gpusvdHandle_t h, int64_t m, int64_t n, int64_t k, const std::vector<T> &X0,
               bool want_scores, bool want_mean, long double f = 1, Call call = Api<T>::pca) {
    const int64_t ldx = m + 1, ldc = n + 2, lds = m + 3;
    const T pad = sentinel<T>();
    std::vector<T> X = with_ld(m, n, X0.data(), m, ldx, pad);
    const std::vector<T> Xcopy = X;
    std::vector<T> C = sentinels<T>(sz(ldc * k + 1)), var = sentinels<T>(sz(k + 1)),
                   scores = sentinels<T>(sz(lds * k + 1)), mean = sentinels<T>(sz(n + 1));
    PcaOut out;
    GPUSVD_EXPECT_OK(h, call(h, m, n, X.data(), ldx, k, C.data(), ldc, var.data(),
                             want_scores ? scores.data() : nullptr, lds,
                             want_mean ? mean.data() : nullptr, &out.info));
    EXPECT_TRUE(same_bits(X, Xcopy)) << "X modified";
    EXPECT_TRUE(padding_intact(n, k, C.data(), ldc, pad)) << "components written outside n x k";
    EXPECT_EQ(C.back(), pad);
    EXPECT_EQ(var[sz(k)], pad) << "variance written past k";
    if (want_scores) {
        EXPECT_TRUE(padding_intact(m, k, scores.data(), lds, pad)) << "scores written outside";
        EXPECT_EQ(scores.back(), pad);
    } else {
        EXPECT_TRUE(all_equal(scores, pad)) << "scores NULL: nothing written";
    }
    if (want_mean) {
        EXPECT_EQ(mean[sz(n)], pad) << "mean written past n";
    } else {
        EXPECT_TRUE(all_equal(mean, pad)) << "mean NULL: nothing written";
    }
    out.C.resize(sz(n * k));
    out.var.resize(sz(k));
    for (int64_t j = 0; j < k; ++j) {
        for (int64_t i = 0; i < n; ++i) out.C[sz(i + j * n)] = C[sz(i + j * ldc)];
        out.var[sz(j)] = (long double)var[sz(j)] / (f * f);
    }
    if (want_scores) {
        out.scores.resize(sz(m * k));
        for (int64_t j = 0; j < k; ++j)
            for (int64_t i = 0; i < m; ++i)
                out.scores[sz(i + j * m)] = (long double)scores[sz(i + j * lds)] / f;
    }
    if (want_mean) {
        out.mean.resize(sz(n));
        for (int64_t j = 0; j < n; ++j) out.mean[sz(j)] = (long double)mean[sz(j)] / f;
    }
    return out;
}

/// Largest and smallest normal values of T times f^-2: the range in which a variance of data
/// scaled by f is representable in T (unscaled units).
template <typename T>
struct VarRange {
    long double lo, hi;
};
template <typename T>
VarRange<T> var_range(long double f) {
    return {(long double)std::numeric_limits<T>::min() / (f * f),
            (long double)std::numeric_limits<T>::max() / (f * f)};
}

/// EXPECTs that `out` (unscaled by f) is the reference PCA of the data within the tolerances at
/// the top, with `factor` times them. A variance whose scaled value is far outside T's normal
/// range must be Inf (above) or at most the smallest normal (below); near the edges of the range
/// it is not checked.
template <typename T>
void check_vs_ref(const PcaOut &out, const PcaRef &r, int64_t k, bool cov, long double f = 1,
                  double factor = 1.0) {
    const int64_t m = r.m, n = r.n;
    const double e = eps<T>();
    const int64_t rank = std::min(m - 1, n);  // non-zero singular values of the centred data
    EXPECT_EQ(out.info, 0);
    // components: sign convention, orthonormal, close to the reference
    std::vector<T> Ct(sz(n * k));
    for (size_t i = 0; i < Ct.size(); ++i) Ct[i] = T(out.C[i]);
    const double orth = orthogonality(n, k, Ct.data(), n);
    EXPECT_LT(orth, kSvdThreshold) << "|I - C^T C| / (n eps)";
    std::vector<int> flipped(sz(k), 0);
    double worst_c = 0, worst_v = 0, worst_s = 0, worst_mu = 0;
    for (int64_t j = 0; j < k; ++j) {
        int64_t arg = 0;
        for (int64_t i = 1; i < n; ++i)
            if (std::fabs(out.C[sz(i + j * n)]) > std::fabs(out.C[sz(arg + j * n)])) arg = i;
        EXPECT_GT(out.C[sz(arg + j * n)], 0.0L) << "largest entry of component " << j << " positive";
        if (j >= rank) continue;  // component of a zero singular value: any unit vector
        const ComponentTol t = component_tol(r, j, factor, cov);
        double d_same = 0, d_flip = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double c = double(out.C[sz(i + j * n)]), ref = r.components[sz(i + j * n)];
            d_same = std::max(d_same, std::fabs(c - ref));
            d_flip = std::max(d_flip, std::fabs(c + ref));
        }
        double d = d_same;
        if (d_flip < d_same && t.near_tie) {
            d = d_flip;  // the reference's largest entry is a near tie: its sign is arbitrary
            flipped[sz(j)] = 1;
        }
        EXPECT_LE(d, t.tol) << "component " << j << " vs reference (near tie: " << t.near_tie
                            << ")";
        worst_c = std::max(worst_c, d / t.tol);
    }
    // explained variance
    const VarRange<T> range = var_range<T>(f);
    EXPECT_TRUE(is_sorted_desc_nonneg(k, out.var.data())) << "variance non-negative, descending";
    const double E = factor * r.E;
    for (int64_t j = 0; j < k; ++j) {
        const long double v = out.var[sz(j)];
        const double sj = r.S[sz(j)];
        const long double expect = (long double)sj * sj / (long double)(m - 1);
        if (expect > 16 * range.hi) {
            EXPECT_TRUE(std::isinf(v)) << "variance " << j << " overflows";
            continue;
        }
        if (expect < range.lo / 16) {
            EXPECT_GE(v, 0.0L) << "variance " << j;
            EXPECT_LE(v, range.lo) << "variance " << j << " underflows";
            continue;
        }
        if (expect > range.hi / 16 || expect < 16 * range.lo) continue;  // edge of the range
        const double tol = pca_bounds(r, j, E, cov).variance;
        const double d = double(std::fabs(v - expect));
        EXPECT_LE(d, tol) << "explained variance " << j << ": relative error " << d / double(expect)
                          << " = " << d / double(expect) / e << " eps";
        worst_v = std::max(worst_v, d / tol);
    }
    // scores = centred X * components (the routine's own), per column sign as compared above
    if (!out.scores.empty()) {
        double d = 0;
        for (int64_t j = 0; j < k; ++j)
            for (int64_t i = 0; i < m; ++i) {
                long double s = 0;
                for (int64_t p = 0; p < n; ++p)
                    s += (long double)r.Xc[sz(i + p * m)] * out.C[sz(p + j * n)];
                d = std::max(d, double(std::fabs(out.scores[sz(i + j * m)] - s)));
            }
        EXPECT_LE(d, E) << "max |scores - X_c C|, E = " << E;
        worst_s = d / E;
    }
    if (!out.mean.empty())
        for (int64_t j = 0; j < n; ++j) {
            const double tol = factor * (4 * e + 4 * std::sqrt(double(m)) * eps<double>()) *
                                   r.colmax[sz(j)] +
                               double((long double)std::numeric_limits<T>::denorm_min() / f);
            const double d = double(std::fabs(out.mean[sz(j)] - r.mean[sz(j)]));
            EXPECT_LE(d, tol) << "mean " << j;
            worst_mu = std::max(worst_mu, d / tol);
        }
    if (verbose())
        std::printf("  pca %lld x %lld k %lld: orth %.3g, worst/tol: components %.3g variance %.3g "
                    "scores %.3g mean %.3g\n",
                    (long long)m, (long long)n, (long long)k, orth, worst_c, worst_v, worst_s,
                    worst_mu);
}

/// EXPECTs two results of the same data (e.g. backend GPU and CPU, or the `_gpu` and host
/// forms) to agree within twice the reference tolerances (each is within once of the truth).
template <typename T>
void expect_same_pca(const PcaOut &a, const PcaOut &b, const PcaRef &r, int64_t k, bool cov,
                     long double f = 1) {
    const int64_t m = r.m, n = r.n, rank = std::min(m - 1, n);
    EXPECT_EQ(a.info, b.info);
    const double E = 2 * r.E;
    std::vector<long double> sign(sz(k), 1.0L);
    for (int64_t j = 0; j < std::min(k, rank); ++j) {
        const ComponentTol t = component_tol(r, j, 2.0, cov);
        double d_same = 0, d_flip = 0;
        for (int64_t i = 0; i < n; ++i) {
            d_same = std::max(d_same, double(std::fabs(a.C[sz(i + j * n)] - b.C[sz(i + j * n)])));
            d_flip = std::max(d_flip, double(std::fabs(a.C[sz(i + j * n)] + b.C[sz(i + j * n)])));
        }
        if (d_flip < d_same && t.near_tie) sign[sz(j)] = -1;
        EXPECT_LE(std::min(d_same, t.near_tie ? d_flip : d_same), t.tol) << "component " << j;
    }
    const VarRange<T> range = var_range<T>(f);
    for (int64_t j = 0; j < k; ++j) {
        const long double va = a.var[sz(j)], vb = b.var[sz(j)];
        if (std::isinf(va) || std::isinf(vb) || va < 16 * range.lo || vb < 16 * range.lo) {
            EXPECT_EQ(std::isinf(va), std::isinf(vb)) << "variance " << j;
            continue;
        }
        EXPECT_LE(double(std::fabs(va - vb)), pca_bounds(r, j, E, cov).variance)
            << "variance " << j;
    }
    if (!a.scores.empty() && !b.scores.empty()) {
        double d = 0;
        for (int64_t j = 0; j < k; ++j)
            for (int64_t i = 0; i < m; ++i)
                d = std::max(d, double(std::fabs(a.scores[sz(i + j * m)] -
                                                 sign[sz(j)] * b.scores[sz(i + j * m)])));
        EXPECT_LE(d, E) << "scores";
    }
    if (!a.mean.empty() && !b.mean.empty()) {
        for (int64_t j = 0; j < n; ++j) {
            EXPECT_LE(double(std::fabs(a.mean[sz(j)] - b.mean[sz(j)])),
                      2 * (4 * eps<T>() + 4 * std::sqrt(double(m)) * eps<double>()) *
                              r.colmax[sz(j)] +
                          double(2 * (long double)std::numeric_limits<T>::denorm_min() / f))
                << "mean " << j;
        }
    }
}

/// EXPECTs the NONFINITE outcome: info GPUSVD_INFO_NONFINITE and every output NaN.
inline void expect_all_nan(const PcaOut &out) {
    EXPECT_EQ(out.info, GPUSVD_INFO_NONFINITE);
    for (const std::vector<long double> *v : {&out.C, &out.var, &out.scores, &out.mean})
        EXPECT_TRUE(std::all_of(v->begin(), v->end(), [](long double x) { return std::isnan(x); }));
}

/// pca through gpusvd_Xpca_gpu on the user stream (same signature as Api<T>::pca).
// V: the variances' type (real for complex T).
template <typename T, typename V = T>
struct PcaOnDevice {
    const CudaRt &rt;
    const UserStream &stream;
    gpusvdStatus_t operator()(gpusvdHandle_t h, int64_t m, int64_t n, const T *X, int64_t ldx,
                              int64_t k, T *C, int64_t ldc, V *var, T *scores, int64_t lds,
                              T *mean, int *info) const {
        const auto form = rt.emulated ? Api<T>::pca : Api<T>::pca_gpu;
        // X goes to the device and back over the caller's copy: a routine writing X on the
        // device shows up as "X modified" in run_pca.
        return run_on_device(rt, stream,
                             {{const_cast<T *>(X), sizeof(T) * sz(ldx * n)},
                              {C, sizeof(T) * sz(ldc * k)},
                              {var, sizeof(V) * sz(k)},
                              {scores, sizeof(T) * sz(lds * k)},
                              {mean, sizeof(T) * sz(n)},
                              {info, sizeof(int)}},
                             [&](void *const *d) {
                                 return form(h, m, n, static_cast<const T *>(d[0]), ldx, k,
                                             static_cast<T *>(d[1]), ldc, static_cast<V *>(d[2]),
                                             static_cast<T *>(d[3]), lds, static_cast<T *>(d[4]),
                                             static_cast<int *>(d[5]));
                             });
    }
};

/// The test shapes; GPUSVD_TEST_QUICK keeps one of each kind, smaller.
std::vector<PcaCase> pca_cases() {
    if (full_or_quick(0, 1))
        return {{1000, 20, 5}, {500, 64, 10}, {120, 120, 7}, {1000, 1, 1}, {2000, 8, 8}};
    return {{5000, 20, 5}, {2000, 64, 10}, {300, 300, 7}, {1000, 1, 1},
            {20000, 8, 8}, {3001, 33, 33}};
}

/// A handle on backend CPU: the comparison of every GPU result.
struct CpuHandle : Handle {
    CpuHandle() { EXPECT_EQ(gpusvdSetBackend(get(), GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS); }
};

constexpr gpusvdPcaMethod_t kMethods[] = {GPUSVD_PCA_QR, GPUSVD_PCA_COVARIANCE};

/// Sets `method` on every handle given; true for the covariance method.
inline bool use_method(gpusvdPcaMethod_t method, std::initializer_list<gpusvdHandle_t> hs) {
    for (gpusvdHandle_t h : hs) EXPECT_EQ(gpusvdSetPcaMethod(h, method), GPUSVD_STATUS_SUCCESS);
    return method == GPUSVD_PCA_COVARIANCE;
}

inline const char *method_name(gpusvdPcaMethod_t method) {
    return method == GPUSVD_PCA_QR ? "QR method" : "covariance method";
}

template <typename T>
class GpuPcaTest : public DeviceTest<T> {};
TYPED_TEST_SUITE(GpuPcaTest, Precisions, PrecisionName);

TYPED_TEST(GpuPcaTest, ShapesMatchLapackAndCpuBackend) {
    using T = TypeParam;
    CpuHandle cpu;
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        const bool cov = use_method(method, {this->h, cpu});
        uint64_t seed = 101;
        for (const PcaCase &c : pca_cases()) {
            SCOPED_TRACE(testing::Message() << "m=" << c.m << " n=" << c.n << " k=" << c.k);
            Rng rng(seed++);
            const std::vector<T> X = make_data<T>(rng, c.m, c.n, c.k);
            const PcaRef ref = pca_reference(c.m, c.n, X);
            const PcaOut gpu = run_pca<T>(this->h, c.m, c.n, c.k, X, true, true);
            check_vs_ref<T>(gpu, ref, c.k, cov);
            const PcaOut host_cpu = run_pca<T>(cpu, c.m, c.n, c.k, X, true, true);
            {
                SCOPED_TRACE("backend CPU vs reference");
                check_vs_ref<T>(host_cpu, ref, c.k, cov);
            }
            SCOPED_TRACE("backend GPU vs backend CPU");
            expect_same_pca<T>(gpu, host_cpu, ref, c.k, cov);
        }
    }
}

TYPED_TEST(GpuPcaTest, OptionalOutputsNull) {
    // scores and/or mean NULL: skipped (nothing written), the rest as with them.
    using T = TypeParam;
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        const bool cov = use_method(method, {this->h});
        uint64_t seed = 201;
        for (const PcaCase &c : pca_cases()) {
            Rng rng(seed++);
            const std::vector<T> X = make_data<T>(rng, c.m, c.n, c.k);
            const PcaRef ref = pca_reference(c.m, c.n, X);
            const PcaOut full = run_pca<T>(this->h, c.m, c.n, c.k, X, true, true);
            for (int which = 0; which < 3; ++which) {
                const bool ws = which == 1, wm = which == 2;  // 0: both NULL
                SCOPED_TRACE(testing::Message() << "m=" << c.m << " n=" << c.n << " k=" << c.k
                                                << (ws ? " scores" : " no scores")
                                                << (wm ? " mean" : " no mean"));
                const PcaOut out = run_pca<T>(this->h, c.m, c.n, c.k, X, ws, wm);
                check_vs_ref<T>(out, ref, c.k, cov);
                expect_same_pca<T>(out, full, ref, c.k, cov);
            }
        }
    }
}

TYPED_TEST(GpuPcaTest, NonFiniteGivesInfoAndNaN) {
    using T = TypeParam;
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        const bool cov = use_method(method, {this->h});
        Rng rng(301);
        for (const PcaCase &c : {PcaCase{full_or_quick(5000, 1000), 20, 5},
                                 PcaCase{300, 300, 7}, PcaCase{1000, 1, 1}}) {
            const std::vector<T> X0 = make_data<T>(rng, c.m, c.n, c.k);
            for (int64_t pos : {int64_t(0), c.m * c.n / 2 + 3, c.m * c.n - 1})
                for (T bad : {nan_v<T>(), std::numeric_limits<T>::infinity(),
                              -std::numeric_limits<T>::infinity()}) {
                    SCOPED_TRACE(testing::Message() << "m=" << c.m << " n=" << c.n << " k=" << c.k
                                                    << " value " << double(bad) << " at " << pos);
                    std::vector<T> X = X0;
                    X[sz(pos)] = bad;
                    expect_all_nan(run_pca<T>(this->h, c.m, c.n, c.k, X, true, true));
                    expect_all_nan(run_pca<T>(this->h, c.m, c.n, c.k, X, false, false));
                }
            // The handle is not left in a bad state.
            SCOPED_TRACE("finite data after the non-finite calls");
            check_vs_ref<T>(run_pca<T>(this->h, c.m, c.n, c.k, X0, true, true),
                            pca_reference(c.m, c.n, X0), c.k, cov);
        }
    }
}

/// Scales X by f (exactly; a power of two) and checks the PCA on the GPU backend against the
/// reference of the unscaled data (components equal, variances times f^2, scores and mean times
/// f) and against the CPU backend on the same scaled data, both with `method`.
template <typename T>
void check_scaled(gpusvdHandle_t h, gpusvdPcaMethod_t method, const PcaCase &c,
                  const std::vector<T> &X0, long double f) {
    SCOPED_TRACE(testing::Message() << "m=" << c.m << " n=" << c.n << " k=" << c.k << " factor "
                                    << double(f));
    std::vector<T> X(X0.size());
    for (size_t i = 0; i < X.size(); ++i) X[i] = T((long double)X0[i] * f);
    for (size_t i = 0; i < X.size(); ++i)
        ASSERT_TRUE(std::isfinite(X[i])) << "test data overflowed";
    // The reference of the data as scaled and unscaled again (exact unless entries went
    // subnormal near underflow, by at most denorm_min / 2 each: far below eps max|x|).
    std::vector<T> Xback(X.size());
    for (size_t i = 0; i < X.size(); ++i) Xback[i] = T((long double)X[i] / f);
    const PcaRef ref = pca_reference(c.m, c.n, Xback);
    CpuHandle cpu;
    const bool cov = use_method(method, {h, cpu});
    const PcaOut gpu = run_pca<T>(h, c.m, c.n, c.k, X, true, true, f);
    check_vs_ref<T>(gpu, ref, c.k, cov, f);
    const PcaOut host_cpu = run_pca<T>(cpu, c.m, c.n, c.k, X, true, true, f);
    {
        SCOPED_TRACE("backend CPU vs reference");
        check_vs_ref<T>(host_cpu, ref, c.k, cov, f);
    }
    SCOPED_TRACE("backend GPU vs backend CPU");
    expect_same_pca<T>(gpu, host_cpu, ref, c.k, cov, f);
}

/// Power of two f with max|X0 f| about `target`.
template <typename T>
long double factor_for(const std::vector<T> &X0, long double target) {
    T amax = 0;
    for (T v : X0) amax = std::max(amax, std::fabs(v));
    return std::ldexp(1.0L, std::ilogb(target) - std::ilogb(amax));
}

TYPED_TEST(GpuPcaTest, NearOverflowAndUnderflowScaling) {
    // Largest entry about 1e300 / 1e-300 (double), 1e36 / 1e-36 (float): the variances overflow
    // or underflow (Inf, or at most the smallest normal), everything else matches the unscaled
    // reference; and about 1e150 / 1e-150 (1e15 / 1e-15): variances in range, checked too.
    using T = TypeParam;
    const bool dbl = std::is_same<T, double>::value;
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        uint64_t seed = 401;
        for (const PcaCase &c : {PcaCase{full_or_quick(5000, 1000), 20, 5}, PcaCase{300, 300, 7},
                                 PcaCase{full_or_quick(20000, 2000), 8, 8}}) {
            Rng rng(seed++);
            const std::vector<T> X0 = make_data<T>(rng, c.m, c.n, c.k);
            for (long double target :
                 dbl ? std::vector<long double>{1e300L, 1e-300L, 1e150L, 1e-150L}
                     : std::vector<long double>{1e36L, 1e-36L, 1e15L, 1e-15L})
                check_scaled<T>(this->h, method, c, X0, factor_for(X0, target));
        }
    }
}

TYPED_TEST(GpuPcaTest, LargeMeanOffset) {
    // Unit-variance data on a mean of 1e6 (double) / 1e3 (float; at 1e6 one rounding of the mean
    // to float is a perturbation of the centred data larger than its variance): no one-pass
    // E[x^2] - E[x]^2 cancellation. Also with the offset negative.
    using T = TypeParam;
    const double offset = std::is_same<T, double>::value ? 1e6 : 1e3;
    CpuHandle cpu;
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        const bool cov = use_method(method, {this->h, cpu});
        uint64_t seed = 501;
        for (const PcaCase &c : {PcaCase{full_or_quick(5000, 1000), 20, 5}, PcaCase{300, 300, 7},
                                 PcaCase{full_or_quick(20000, 2000), 8, 8}})
            for (double sign : {1.0, -1.0}) {
                SCOPED_TRACE(testing::Message() << "m=" << c.m << " n=" << c.n << " k=" << c.k
                                                << " mean offset " << sign * offset);
                Rng rng(seed++);
                const std::vector<T> X = make_data<T>(rng, c.m, c.n, c.k, sign * offset);
                const PcaRef ref = pca_reference(c.m, c.n, X);
                const PcaOut gpu = run_pca<T>(this->h, c.m, c.n, c.k, X, true, true);
                check_vs_ref<T>(gpu, ref, c.k, cov);
                const PcaOut host_cpu = run_pca<T>(cpu, c.m, c.n, c.k, X, true, true);
                SCOPED_TRACE("backend GPU vs backend CPU");
                expect_same_pca<T>(gpu, host_cpu, ref, c.k, cov);
            }
    }
}

TYPED_TEST(GpuPcaTest, AutoChoosesAsOnTheCpu) {
    // AUTO's rule depends on m, n and the precision only: the device workspace _bufferSize
    // reports under AUTO is that of the method the rule names (the methods' workspaces differ).
    using T = TypeParam;
    for (const PcaCase &c : {PcaCase{640, 64, 4}, PcaCase{639, 64, 4}, PcaCase{100000, 3, 3},
                             PcaCase{20020, 1001, 4}}) {
        SCOPED_TRACE(testing::Message() << "m=" << c.m << " n=" << c.n);
        size_t dev[3] = {}, host = 0;
        const gpusvdPcaMethod_t order[3] = {GPUSVD_PCA_QR, GPUSVD_PCA_COVARIANCE, GPUSVD_PCA_AUTO};
        for (int i = 0; i < 3; ++i) {
            use_method(order[i], {this->h});
            GPUSVD_ASSERT_OK(this->h,
                             Api<T>::pca_bufferSize(this->h, c.m, c.n, c.k, &dev[i], &host));
        }
        if (gpu_as_cpu()) continue;  // no device workspace on the CPU backend
        ASSERT_NE(dev[0], dev[1]) << "the workspaces must tell the methods apart";
        EXPECT_EQ(dev[2], pca_uses_covariance<T>(this->h, c.m, c.n) ? dev[1] : dev[0]);
    }
}

double decades(int64_t p) { return std::pow(10.0, -double(p)); }

TEST(GpuPcaAccuracy, CovarianceLosesSmallVariancesQrKeepsThem) {
    // As on the CPU (test_pca): singular values of the centred data from 1 to 1e-9. The QR
    // method's relative error of variance j stays below 100 max(m,n) eps s_1 / s_j, the
    // covariance method's swamps the variances at 1e-16 and 1e-18 of the largest.
    Handle h;
    GPUSVD_SKIP_WITHOUT_DEVICE(h);
    const int64_t m = 5000, n = 10, k = n;
    Rng rng(71);
    const int64_t r = n;
    std::vector<double> G(sz(m * r)), V(sz(n * r));
    random_centred_orthonormal(rng, m, r, G.data(), m);
    random_orthonormal(rng, n, r, V.data(), n);
    std::vector<double> X(sz(m * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            double v = 1.0 + double(j);
            for (int64_t p = 0; p < r; ++p) v += G[sz(i + p * m)] * decades(p) * V[sz(j + p * n)];
            X[sz(i + j * m)] = v;
        }
    const PcaRef ref = pca_reference(m, n, X);
    double cov_lost = 0, qr_kept = 0;
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        const bool cov = use_method(method, {h});
        const PcaOut out = run_pca<double>(h, m, n, k, X, false, false);
        EXPECT_EQ(out.info, 0);
        for (int64_t j = 0; j < k; ++j) {
            const double s = ref.S[sz(j)], t = s * s / double(m - 1);
            const double d = double(std::fabs(out.var[sz(j)] - t));
            EXPECT_LE(d, pca_bounds(ref, j, ref.E, cov).variance) << "variance " << j;
            if (!cov) {
                EXPECT_LE(d / t, 100 * double(m) * eps<double>() * ref.S[0] / s) << j;
            }
            if (j >= k - 2) (cov ? cov_lost : qr_kept) = std::max(cov ? cov_lost : qr_kept, d / t);
        }
    }
    EXPECT_GT(cov_lost, 0.1) << "the covariance method has lost the two smallest variances";
    EXPECT_LT(qr_kept, 1e-3 * cov_lost) << "the QR method keeps them";
}

TYPED_TEST(GpuPcaTest, WideDataNotSupportedOnBackendGpu) {
    using T = TypeParam;
    if (gpu_as_cpu()) GTEST_SKIP() << "backend CPU takes wide data; NOT_SUPPORTED is backend GPU's";
    Rng rng(601);
    for (const PcaCase &c : {PcaCase{100, 200, 10}, PcaCase{2, 3, 1}, PcaCase{299, 300, 7}}) {
        SCOPED_TRACE(testing::Message() << "m=" << c.m << " n=" << c.n << " k=" << c.k);
        const std::vector<T> X = make_data<T>(rng, c.m, c.n, c.k);
        std::vector<T> Xc = X, C = sentinels<T>(sz(c.n * c.k)), var = sentinels<T>(sz(c.k)),
                       scores = sentinels<T>(sz(c.m * c.k)), mean = sentinels<T>(sz(c.n));
        int info = -777;
        const gpusvdStatus_t st =
            Api<T>::pca(this->h, c.m, c.n, Xc.data(), c.m, c.k, C.data(), c.n, var.data(),
                        scores.data(), c.m, mean.data(), &info);
        EXPECT_EQ(st, GPUSVD_STATUS_NOT_SUPPORTED) << gpusvdGetStatusName(st);
        EXPECT_STRNE(gpusvdGetErrorMessage(this->h), "") << "a message says why";
        EXPECT_EQ(info, -777) << "info untouched";
        EXPECT_TRUE(same_bits(Xc, X));
        EXPECT_TRUE(all_equal(C, sentinel<T>()));
        EXPECT_TRUE(all_equal(var, sentinel<T>()));
        EXPECT_TRUE(all_equal(scores, sentinel<T>()));
        EXPECT_TRUE(all_equal(mean, sentinel<T>()));
    }
}

TYPED_TEST(GpuPcaTest, WideDataRunsOnCpuUnderAuto) {
    // AUTO with wide data (m < n, input above AUTO's 64 KiB GPU threshold) runs on the CPU.
    using T = TypeParam;
    GPUSVD_ASSERT_OK(this->h, gpusvdSetBackend(this->h, GPUSVD_BACKEND_AUTO));
    uint64_t seed = 701;
    for (const PcaCase &c : {PcaCase{100, 200, 10}, PcaCase{60, 400, 60}, PcaCase{299, 300, 7}}) {
        SCOPED_TRACE(testing::Message() << "AUTO m=" << c.m << " n=" << c.n << " k=" << c.k);
        ASSERT_GE(sizeof(T) * sz(c.m * c.n), size_t(64) << 10);
        Rng rng(seed++);
        const std::vector<T> X = make_data<T>(rng, c.m, c.n, c.k);
        check_vs_ref<T>(run_pca<T>(this->h, c.m, c.n, c.k, X, true, true),
                        pca_reference(c.m, c.n, X), c.k,
                        pca_uses_covariance<T>(this->h, c.m, c.n));
    }
}

template <typename T>
class GpuPcaDeviceFormTest : public DeviceStreamTest<T> {};
TYPED_TEST_SUITE(GpuPcaDeviceFormTest, Precisions, PrecisionName);

TYPED_TEST(GpuPcaDeviceFormTest, OnUserStreamMatchesHostForm) {
    using T = TypeParam;
    const PcaOnDevice<T> on_device{*this->rt, *this->stream};
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        const bool cov = use_method(method, {this->h});
        uint64_t seed = 801;
        for (const PcaCase &c : pca_cases()) {
            SCOPED_TRACE(testing::Message() << "m=" << c.m << " n=" << c.n << " k=" << c.k);
            Rng rng(seed++);
            const std::vector<T> X = make_data<T>(rng, c.m, c.n, c.k, 100.0);
            const PcaRef ref = pca_reference(c.m, c.n, X);
            const PcaOut host = run_pca<T>(this->h, c.m, c.n, c.k, X, true, true);
            check_vs_ref<T>(host, ref, c.k, cov);
            for (int both = 1; both >= 0; --both) {
                SCOPED_TRACE(both ? "_gpu form" : "_gpu form, scores and mean NULL");
                const PcaOut dev =
                    run_pca<T>(this->h, c.m, c.n, c.k, X, both, both, 1, on_device);
                check_vs_ref<T>(dev, ref, c.k, cov);
                expect_same_pca<T>(dev, host, ref, c.k, cov);
            }
        }
        // NaN through the device form: info (in device memory) and the outputs.
        const int64_t m = 1000, n = 20, k = 5;
        Rng rng(899);
        std::vector<T> X = make_data<T>(rng, m, n, k);
        X[sz(m * n / 3)] = nan_v<T>();
        SCOPED_TRACE("_gpu form, NaN in X");
        expect_all_nan(run_pca<T>(this->h, m, n, k, X, true, true, 1, on_device));
    }
}

/// pca through gpusvd_Xpca_gpu on row-major X (m x n, ldx >= n), components (n x k, ldc >= k)
/// and scores (m x k, lds >= k): the device buffers hold their rows.
template <typename T>
struct PcaRowMajorOnDevice {
    const CudaRt &rt;
    const UserStream &stream;
    gpusvdStatus_t operator()(gpusvdHandle_t h, int64_t m, int64_t n, const T *X, int64_t ldx,
                              int64_t k, T *C, int64_t ldc, T *var, T *scores, int64_t lds,
                              T *mean, int *info) const {
        const auto form = rt.emulated ? Api<T>::pca : Api<T>::pca_gpu;
        return run_on_device(rt, stream,
                             {{const_cast<T *>(X), sizeof(T) * sz(m * ldx)},
                              {C, sizeof(T) * sz(n * ldc)},
                              {var, sizeof(T) * sz(k)},
                              {scores, sizeof(T) * sz(m * lds)},
                              {mean, sizeof(T) * sz(n)},
                              {info, sizeof(int)}},
                             [&](void *const *d) {
                                 return form(h, m, n, static_cast<const T *>(d[0]), ldx, k,
                                             static_cast<T *>(d[1]), ldc, static_cast<T *>(d[2]),
                                             static_cast<T *>(d[3]), lds, static_cast<T *>(d[4]),
                                             static_cast<int *>(d[5]));
                             });
    }
};

// gpusvdSetMatrixLayout: row-major X, components and scores (the centring reads X's rows through
// shared-memory tiles) through the host and `_gpu` forms, each method, against the column-major
// call on the same data (pca_checks.hpp), with gpusvdGetPcaTotalVariance after each; NaN in
// row-major X gives info NONFINITE and NaN outputs and total variance.
TYPED_TEST(GpuPcaDeviceFormTest, RowMajorMatchesColumnMajor) {
    using T = TypeParam;
    const PcaRowMajorOnDevice<T> on_device{*this->rt, *this->stream};
    for (gpusvdPcaMethod_t method : kMethods) {
        SCOPED_TRACE(method_name(method));
        use_method(method, {this->h});
        uint64_t seed = 901;
        for (const PcaCase &c : pca_cases()) {
            Rng rng(seed++);
            const std::vector<T> X = make_data<T>(rng, c.m, c.n, c.k, 100.0);
            {
                SCOPED_TRACE("host form");
                check_pca_row_major<T>(this->h, c.m, c.n, c.k, X, false, Api<T>::pca);
            }
            SCOPED_TRACE("_gpu form");
            check_pca_row_major<T>(this->h, c.m, c.n, c.k, X, false, on_device);
        }
        const int64_t m = 1000, n = 40, k = 5, ldx = n + 1;
        Rng rng(999);
        std::vector<T> X = to_row_major<T>(m, n, make_data<T>(rng, m, n, k).data(), m, ldx, T(0));
        X[sz(ldx * (m / 3) + 7)] = nan_v<T>();
        std::vector<T> C(sz(n * k)), var(sz(k)), S(sz(m * k)), mean(sz(n));
        int info = -777;
        {
            RowMajorScope row(this->h);
            GPUSVD_ASSERT_OK(this->h, on_device(this->h, m, n, X.data(), ldx, k, C.data(), k,
                                                var.data(), S.data(), k, mean.data(), &info));
        }
        EXPECT_EQ(info, GPUSVD_INFO_NONFINITE);
        EXPECT_TRUE(all_nan(k, n, C.data(), k) && all_nan(k, 1, var.data(), k) &&
                    all_nan(k, m, S.data(), k) && all_nan(n, 1, mean.data(), n))
            << "NaN outputs";
        double total = 0;
        ASSERT_EQ(gpusvdGetPcaTotalVariance(this->h, &total), GPUSVD_STATUS_SUCCESS);
        EXPECT_TRUE(std::isnan(total)) << "total variance of NaN data";
    }
}

// gpusvdGetPcaTotalVariance_gpu: on a fresh handle NaN; after a host-form call (its value is on
// the host) and after a `_gpu` call (still on the device), the host query's value, written on
// the handle's stream; a null or pageable host pointer is refused with nothing written. Its
// capture with a `_gpu` call: test_gpu_graphs.
TYPED_TEST(GpuPcaDeviceFormTest, TotalVarianceDeviceQuery) {
    using T = TypeParam;
    if (this->rt->emulated) GTEST_SKIP() << "the device query needs device memory";
    const CudaRt &rt = *this->rt;
    const DevBuf d(rt, sizeof(double));
    ASSERT_FALSE(d.failed);
    const auto device_query = [&]() -> double {
        double v = -1.0;
        EXPECT_EQ(gpusvdGetPcaTotalVariance_gpu(this->h, d.as<double>()), GPUSVD_STATUS_SUCCESS)
            << gpusvdGetErrorMessage(this->h);
        EXPECT_EQ(this->stream->sync(), 0);
        EXPECT_TRUE(d.to_host(&v));
        return v;
    };
    EXPECT_TRUE(std::isnan(device_query())) << "no pca call yet";
    const PcaOnDevice<T> on_device{rt, *this->stream};
    const int64_t m = 3000, n = 24, k = 3;
    Rng rng(77);
    const std::vector<T> X = make_data<T>(rng, m, n, k, 10.0);
    for (int dev = 0; dev < 2; ++dev) {
        SCOPED_TRACE(dev ? "after a _gpu call" : "after a host-form call");
        std::vector<T> C(sz(n * k)), var(sz(k)), mean(sz(n)), Xc = X;
        int info = -777;
        const auto form = [&](auto &&call) {
            return call(this->h, m, n, Xc.data(), m, k, C.data(), n, var.data(), nullptr, m,
                        mean.data(), &info);
        };
        GPUSVD_ASSERT_OK(this->h, dev ? form(on_device) : form(Api<T>::pca));
        ASSERT_EQ(info, 0);
        const double on_gpu = device_query();
        double host = 0;
        ASSERT_EQ(gpusvdGetPcaTotalVariance(this->h, &host), GPUSVD_STATUS_SUCCESS);
        EXPECT_EQ(on_gpu, host);
        EXPECT_GT(host, double(var[0]));
    }
    EXPECT_EQ(gpusvdGetPcaTotalVariance_gpu(this->h, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_NE(std::string(gpusvdGetErrorMessage(this->h)).find("totalVariance"), std::string::npos)
        << gpusvdGetErrorMessage(this->h);
    int dev = 0, pageable = 0;
    ASSERT_EQ(gpusvdGetDevice(this->h, &dev), GPUSVD_STATUS_SUCCESS);
    ASSERT_EQ(rt.device_attribute_(&pageable, CudaRt::kAttrPageableMemoryAccess, dev), 0);
    if (!pageable) {  // (with HMM the device reaches it, and it is valid)
        double host_value = -2.0;
        EXPECT_EQ(gpusvdGetPcaTotalVariance_gpu(this->h, &host_value), GPUSVD_STATUS_INVALID_VALUE)
            << "pageable host memory the device cannot reach";
        EXPECT_NE(std::string(gpusvdGetErrorMessage(this->h)).find("totalVariance"),
                  std::string::npos)
            << gpusvdGetErrorMessage(this->h);
        EXPECT_EQ(this->stream->sync(), 0);
        EXPECT_EQ(host_value, -2.0);
    }
}

TYPED_TEST(GpuPcaDeviceFormTest, WideDataNotSupported) {
    using T = TypeParam;
    if (gpu_as_cpu()) GTEST_SKIP() << "backend CPU takes wide data; NOT_SUPPORTED is backend GPU's";
    const PcaOnDevice<T> on_device{*this->rt, *this->stream};
    const int64_t m = 100, n = 200, k = 10;
    Rng rng(901);
    std::vector<T> X = make_data<T>(rng, m, n, k);
    const std::vector<T> X0 = X;
    std::vector<T> C = sentinels<T>(sz(n * k)), var = sentinels<T>(sz(k)),
                   scores = sentinels<T>(sz(m * k)), mean = sentinels<T>(sz(n));
    int info = -777;
    const gpusvdStatus_t st = on_device(this->h, m, n, X.data(), m, k, C.data(), n, var.data(),
                                        scores.data(), m, mean.data(), &info);
    EXPECT_EQ(st, GPUSVD_STATUS_NOT_SUPPORTED) << gpusvdGetStatusName(st);
    EXPECT_EQ(info, -777) << "info untouched";
    EXPECT_TRUE(same_bits(X, X0));
    EXPECT_TRUE(all_equal(C, sentinel<T>()));
    EXPECT_TRUE(all_equal(var, sentinel<T>()));
    EXPECT_TRUE(all_equal(scores, sentinel<T>()));
    EXPECT_TRUE(all_equal(mean, sentinel<T>()));
}

// ---- complex data (the QR method; column-major) --------------------------------------------

template <typename R>
using Cx = std::complex<R>;

/// Column j = mu_j + 0.7^j (N(0,1) + i N(0,1)): distinct variances, well separated components.
template <typename R>
std::vector<Cx<R>> complex_data(Rng &rng, int64_t m, int64_t n) {
    std::vector<Cx<R>> X(sz(m * n));
    for (int64_t j = 0; j < n; ++j) {
        const double sc = std::pow(0.7, double(j));
        const Cx<R> mu(R(5 * rng.normal()), R(5 * rng.normal()));
        for (int64_t i = 0; i < m; ++i)
            X[sz(i + j * m)] = mu + Cx<R>(R(sc * rng.normal()), R(sc * rng.normal()));
    }
    return X;
}

template <typename R>
struct CPcaOut {
    int info = -777;
    std::vector<Cx<R>> C, scores, mean;
    std::vector<R> var;
};

/// pca of complex X (m x n, ld m) through `call` (Api<P>::pca or a `_gpu` stand-in); status
/// SUCCESS expected, X unchanged.
template <typename R, typename Call>
CPcaOut<R> run_cpca(gpusvdHandle_t h, int64_t m, int64_t n, int64_t k,
                    const std::vector<Cx<R>> &X0, Call call) {
    using P = PublicComplex<R>;
    std::vector<Cx<R>> X = X0;
    CPcaOut<R> o;
    o.C.assign(sz(n * k), Cx<R>(R(-9), R(9)));
    o.scores.assign(sz(m * k), Cx<R>(R(-9), R(9)));
    o.mean.assign(sz(n), Cx<R>(R(-9), R(9)));
    o.var.assign(sz(k), R(-9));
    auto pub = [](Cx<R> *p) { return reinterpret_cast<P *>(p); };
    GPUSVD_EXPECT_OK(h, call(h, m, n, reinterpret_cast<const P *>(X.data()), m, k, pub(o.C.data()),
                             n, o.var.data(), pub(o.scores.data()), m, pub(o.mean.data()),
                             &o.info));
    EXPECT_TRUE(same_bits(X, X0)) << "X modified";
    return o;
}

template <typename R>
class GpuPcaComplexTest : public DeviceStreamTest<R> {};
TYPED_TEST_SUITE(GpuPcaComplexTest, Precisions, ComplexPrecisionName);

// The GPU's complex PCA against the CPU backend's (LAPACK ?geqrf + ?gesdd) on the same data:
// variances, components (each with its largest entry real and positive), scores and mean within
// a few hundred n eps; the `_gpu` form on a user stream gives the host form's bits; NaN gives
// info GPUSVD_INFO_NONFINITE and NaN outputs.
TYPED_TEST(GpuPcaComplexTest, MatchesCpuBackend) {
    using R = TypeParam;
    using P = PublicComplex<R>;
    const double eps = double(std::numeric_limits<R>::epsilon());
    Handle cpu;
    ASSERT_EQ(gpusvdSetBackend(cpu, GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS);
    const CudaRt &rt = *this->rt;
    const UserStream &stream = *this->stream;
    const PcaOnDevice<P, R> on_device{rt, stream};
    Rng rng(951);
    for (const PcaCase &c : {PcaCase{full_or_quick(5000, 1000), 32, 6}, PcaCase{2000, 8, 3},
                             PcaCase{300, 17, 17}, PcaCase{1000, 1, 1}}) {
        SCOPED_TRACE(testing::Message() << "m=" << c.m << " n=" << c.n << " k=" << c.k);
        const std::vector<Cx<R>> X = complex_data<R>(rng, c.m, c.n);
        const CPcaOut<R> g = run_cpca<R>(this->h, c.m, c.n, c.k, X, Api<P>::pca);
        const CPcaOut<R> ref = run_cpca<R>(cpu, c.m, c.n, c.k, X, Api<P>::pca);
        EXPECT_EQ(g.info, 0);
        EXPECT_EQ(ref.info, 0);
        const double tol = 300.0 * double(c.n) * eps;
        for (int64_t j = 0; j < c.k; ++j) {
            EXPECT_LE(std::abs(double(g.var[sz(j)]) - double(ref.var[sz(j)])),
                      tol * double(ref.var[0]))
                << "variance " << j;
            // the component's largest entry is real and positive (as zgesdd's caller makes it)
            int64_t arg = 0;
            for (int64_t i = 1; i < c.n; ++i)
                if (std::abs(g.C[sz(i + j * c.n)]) > std::abs(g.C[sz(arg + j * c.n)])) arg = i;
            const Cx<R> big = g.C[sz(arg + j * c.n)];
            EXPECT_GT(big.real(), R(0)) << "component " << j;
            EXPECT_LE(std::abs(double(big.imag())), 4 * eps * double(big.real()))
                << "component " << j;
            // variance ratios of 0.49 between neighbours: the components are well determined
            for (int64_t i = 0; i < c.n; ++i)
                EXPECT_LE(std::abs(g.C[sz(i + j * c.n)] - ref.C[sz(i + j * c.n)]), 20 * tol)
                    << "component " << j << " entry " << i;
        }
        double smax = 0, xmax = 0;
        for (const Cx<R> &v : ref.scores) smax = std::max(smax, double(std::abs(v)));
        for (const Cx<R> &v : X) xmax = std::max(xmax, double(std::abs(v)));
        for (size_t i = 0; i < g.scores.size(); ++i)
            ASSERT_LE(std::abs(g.scores[i] - ref.scores[i]), 20 * tol * smax) << "score " << i;
        for (int64_t j = 0; j < c.n; ++j)
            EXPECT_LE(std::abs(g.mean[sz(j)] - ref.mean[sz(j)]), 100 * eps * xmax) << "mean " << j;
        const CPcaOut<R> d = run_cpca<R>(this->h, c.m, c.n, c.k, X, on_device);
        EXPECT_EQ(d.info, g.info);
        EXPECT_TRUE(same_bits(d.C, g.C) && same_bits(d.var, g.var) &&
                    same_bits(d.scores, g.scores) && same_bits(d.mean, g.mean))
            << "_gpu form vs host form";
    }
    // NaN in X: info and NaN outputs, host and `_gpu` forms
    const int64_t m = 500, n = 12, k = 4;
    std::vector<Cx<R>> X = complex_data<R>(rng, m, n);
    X[sz(m * n / 2)] = Cx<R>(R(0), nan_v<R>());
    for (const CPcaOut<R> &o : {run_cpca<R>(this->h, m, n, k, X, Api<P>::pca),
                                run_cpca<R>(this->h, m, n, k, X, on_device)}) {
        EXPECT_EQ(o.info, GPUSVD_INFO_NONFINITE);
        for (R v : o.var) EXPECT_TRUE(std::isnan(v));
        for (const Cx<R> &v : o.C) EXPECT_TRUE(std::isnan(v.real()) && std::isnan(v.imag()));
        for (const Cx<R> &v : o.mean) EXPECT_TRUE(std::isnan(v.real()));
    }
}

// What backend GPU does not take for complex data: row-major layout, fewer samples than
// features, and more features than the Jacobi team kernels take in shared memory for the SVD of
// R (200: past 84, the square double-complex limit with V on H100/H200, and float's) answer
// NOT_SUPPORTED and change nothing, though complex gesvj itself takes such sizes through the
// blocked Jacobi.
TYPED_TEST(GpuPcaComplexTest, RowMajorAndWideRefused) {
    using R = TypeParam;
    using P = PublicComplex<R>;
    if (gpu_as_cpu()) GTEST_SKIP() << "backend CPU takes them; NOT_SUPPORTED is backend GPU's";
    Rng rng(952);
    for (int row = 0; row < 3; ++row) {
        const int64_t m = row == 1 ? 50 : row == 2 ? 400 : 6, n = row == 1 ? 6 : row == 2 ? 200 : 9,
                      k = 2;
        SCOPED_TRACE(row == 1 ? "row-major" : row == 2 ? "many features" : "m < n");
        ASSERT_EQ(gpusvdSetMatrixLayout(this->h, row == 1 ? GPUSVD_LAYOUT_ROW_MAJOR
                                                          : GPUSVD_LAYOUT_COL_MAJOR),
                  GPUSVD_STATUS_SUCCESS);
        const std::vector<Cx<R>> X0 = complex_data<R>(rng, m, n);
        std::vector<Cx<R>> X = X0, C(sz(n * k), Cx<R>(R(-9))), S(sz(m * k), Cx<R>(R(-9)));
        std::vector<R> var(sz(k), R(-9));
        int info = -777;
        auto pub = [](Cx<R> *p) { return reinterpret_cast<P *>(p); };
        // row-major: lds and ldc count columns (k); column-major: rows
        const bool rm = row == 1;
        const gpusvdStatus_t st =
            Api<P>::pca(this->h, m, n, pub(X.data()), rm ? n : m, k, pub(C.data()), rm ? k : n,
                        var.data(), pub(S.data()), rm ? k : m, nullptr, &info);
        EXPECT_EQ(st, GPUSVD_STATUS_NOT_SUPPORTED) << gpusvdGetStatusName(st);
        EXPECT_NE(std::string(gpusvdGetErrorMessage(this->h)).find("no GPU kernel for complex"),
                  std::string::npos)
            << gpusvdGetErrorMessage(this->h);
        EXPECT_EQ(info, -777);
        EXPECT_TRUE(X == X0);
        EXPECT_TRUE(all_equal(var, R(-9)));
    }
    ASSERT_EQ(gpusvdSetMatrixLayout(this->h, GPUSVD_LAYOUT_COL_MAJOR), GPUSVD_STATUS_SUCCESS);
}

}  // namespace
