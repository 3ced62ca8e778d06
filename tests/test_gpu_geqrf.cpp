// geqrf_mgs / geqrf_mgs_batched on the GPU backend (label `gpu`): the DESIGN.md QR ratios on every
// matrix type, for the small batched team kernels (warp, block, global memory) and the tall
// single-matrix path (CholeskyQR with reorthogonalisation, column panels above n = 256), both
// orth modes, both precisions, the host and the `_gpu` forms.
//
// Every result is checked against these bounds (eps of the precision, 1-norms):
//   residual        |A - QR| / (m |A| eps) < 30
//   MGS2            |I - Q^T Q| / (m eps) < 30
//   MGS             |I - Q^T Q| / (m eps) < 30 cond(A), i.e. |I - Q^T Q|_1 <= c eps cond(A) with
//                   c = 30 m (cond: 2-norm condition number of the columns the CPU backend does
//                   not find dependent: MGS loses orthogonality like eps cond(A), Bjorck 1967;
//                   with dependent columns, the larger of that and the condition number of the
//                   unit-column A whose dependent columns are replaced by their Q columns, the
//                   matrix MGS actually orthogonalises)
//   R               upper trapezoidal (strict lower part of the k x n R exactly 0), R(j,j) >= 0
//   R(j,j)          max_j |R(j,j) - R_cpu(j,j)| / (m |A| eps) < 30 (the residual's scale), R_cpu
//   the CPU
//                   backend's (Householder; R's diagonal is determined to ~eps |A| whatever the
//                   conditioning, for MGS, MGS2 and CholeskyQR2 alike), over the columns up to
//                   the first dependent one (past it, R(j,j) depends on the arbitrary completion
//                   of Q)
//   info            exactly dependent columns (duplicated, zero, integer rank 3, zero matrix):
//                   the CPU backend's info (> 0), R(info,info) = 0, Q still orthonormal;
//                   matrices whose unit-column form has sigma_min > 100 m eps: info 0; in
//                   between (ill-conditioned): any info >= 0, and a column reported dependent
//                   must be near dependent (its R_cpu(j,j) small); NaN/Inf: info
//                   GPUSVD_INFO_NONFINITE, Q (m x k) and R (k x n) all NaN, the other matrices
//                   of a batch unaffected.
//   layout          rows past m of A (lda > m) and past k of R (ldr > k), and the gaps between
//                   strided matrices, untouched.
//
// Every test first puts its handle on GPUSVD_BACKEND_GPU and skips when that says NO_DEVICE (CI
// has no GPU; these tests run on the device machine).
//
// GPUSVD_TEST_QUICK=1 shrinks the large batch and the tall matrices (for compute-sanitizer runs);
// the sanitizer runs select *EveryKernelPathOnce* (one small case per kernel path).
//
// GPUSVD_TEST_GPU_AS_CPU=1 in the environment runs the same checks on the CPU backend, with host
// memory standing in for device memory and the host forms for the `_gpu` forms: it checks the
// tests themselves on a machine without a GPU (the comparisons with the CPU backend are then
// trivially met).
#include "cuda_rt.hpp"
#include "layout_checks.hpp"

using namespace gpusvd_test;

namespace {

constexpr double kQrThreshold = 30.0;    // DESIGN.md: QR ratios < 30
constexpr double kMgsFactor = 30.0;      // MGS: |I - Q^T Q| / (m eps) < 30 cond
constexpr double kDiagThreshold = 30.0;  // |R(j,j) - R_cpu(j,j)| / (m |A| eps), as the residual
constexpr int kUnset = -777;             // info before the call

const gpusvdOrth_t kOrths[] = {GPUSVD_ORTH_MGS, GPUSVD_ORTH_MGS2};

const char *orth_name(gpusvdOrth_t o) { return o == GPUSVD_ORTH_MGS ? "MGS" : "MGS2"; }

struct Shape {
    int64_t m, n;
};

// Batched team kernels: warp, block (shared memory), global memory. (cuda/geqrf/dispatch.cpp:
// the team kernels take up to 128 x 128 entries for one matrix and 256 x 256 in a batch; larger
// ones, batched or not, take the tall path one matrix at a time. The shapes below straddle
// both limits: 300 x 200 and 200 x 300 are the team's global-memory path in a batch and the tall
// path alone.)
const std::vector<Shape> kSmallShapes = {{1, 1},   {16, 16}, {32, 32}, {31, 17},
                                         {17, 31}, {64, 64}, {100, 40}};
const std::vector<Shape> kLargerShapes =
    full_or_quick(1, 0)
        ? std::vector<Shape>{{100, 100}, {130, 121}, {40, 100}, {300, 200}, {200, 300}}
        : std::vector<Shape>{{100, 100}, {300, 200}};
// The tall single-matrix path; n > 256 takes column panels.
const std::vector<Shape> kTallShapes =
    full_or_quick(1, 0)
        ? std::vector<Shape>{{5000, 64}, {20000, 32}, {3000, 256}, {2000, 300}, {70000, 8}}
        : std::vector<Shape>{{3000, 32}, {1200, 260}};

/// One test matrix.
template <typename T>
struct Case {
    std::string name;
    std::vector<T> A;  // m x n, leading dimension m
    bool dependent = false;  // exactly dependent columns by construction (info = the CPU's, > 0)
    bool nonfinite = false;  // holds NaN or Inf
};

/// Condition numbers of the prescribed-singular-value matrices: up to 1e12 in double, 1e6 in
/// float (beyond, float MGS2 itself cannot tell the columns apart).
template <typename T>
std::vector<double> conds() {
    return std::is_same<T, float>::value ? std::vector<double>{1e0, 1e3, 1e6}
                                         : std::vector<double>{1e0, 1e4, 1e8, 1e12};
}

std::string cond_name(double c) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0e", c);
    return buf;
}

/// One m x n matrix of every type: random, prescribed singular values (cond 1 .. 1e12/1e6),
/// column and two-sided graded, identity, near overflow / underflow, and the exactly dependent
/// ones (zero matrix, duplicated columns, a zero column, integer rank 3) where the shape allows.
template <typename T>
std::vector<Case<T>> all_cases(Rng &rng, int64_t m, int64_t n) {
    const int64_t k = std::min(m, n);
    std::vector<Case<T>> out;
    out.push_back({"gaussian", gaussian<T>(rng, m, n)});
    for (double c : conds<T>())
        out.push_back({"geometric " + cond_name(c),
                       prescribed_sv<T>(rng, m, n, SigmaMode::Geometric, c)});
    const double cmax = conds<T>().back(), cmid = conds<T>()[1];
    out.push_back({"one small " + cond_name(cmax),
                   prescribed_sv<T>(rng, m, n, SigmaMode::OneSmall, cmax)});
    out.push_back({"cluster one large " + cond_name(cmid),
                   prescribed_sv<T>(rng, m, n, SigmaMode::ClusterOneLarge, cmid)});
    std::vector<T> A(sz(m * n));
    graded(rng, m, n, A.data(), m, 1.0, 1e-10);
    out.push_back({"column graded 1e-10", A});
    graded(rng, m, n, A.data(), m, 1e-3, 1e-5);
    out.push_back({"two-sided graded", A});
    identity(m, n, A.data(), m);
    out.push_back({"identity", A});
    for (bool over : {true, false}) {
        A = prescribed_sv<T>(rng, m, n, SigmaMode::Geometric, 1e3);
        scale_max_abs(m, n, A.data(), m, over ? near_overflow_max<T>() : near_underflow_max<T>());
        out.push_back({over ? "near overflow" : "near underflow", A});
    }
    out.push_back({"zero", std::vector<T>(sz(m * n), T(0)), true});
    if (k >= 3) {  // every third column repeats the one before: info 3
        A = gaussian<T>(rng, m, n);
        for (int64_t j = 2; j < n; j += 3)
            for (int64_t i = 0; i < m; ++i) A[sz(i + j * m)] = A[sz(i + (j - 1) * m)];
        out.push_back({"duplicated columns", A, true});
    }
    if (k >= 2) {  // column k/2 zero
        A = gaussian<T>(rng, m, n);
        for (int64_t i = 0; i < m; ++i) A[sz(i + (k / 2) * m)] = T(0);
        out.push_back({"zero column", A, true});
    }
    if (k >= 5) out.push_back({"integer rank 3", integer_rank3<T>(rng, m, n), true});
    return out;
}

/// What the checks need to know about a matrix, from the CPU backend and LAPACK (in double).
template <typename T>
struct Ref {
    int info = 0;                 // the CPU backend's
    std::vector<T> rdiag;         // the CPU backend's R(j,j), j < k
    double anorm = 0;             // |A|_1
    std::vector<double> colnorm;  // ||A(:,j)||_2, j < k
    double sigma_eq = 0;          // smallest singular value of A(:, 0:k) scaled to unit columns
    double cond = 1;              // 2-norm condition number of the columns j < k that the CPU
                                  // backend did not find dependent (inf if none)
};

/// Singular values of the listed columns of A (each scaled to unit 2-norm when `unit`), in double.
template <typename T>
std::vector<double> column_svals(int64_t m, const T *A, int64_t lda,
                                 const std::vector<int64_t> &cols, bool unit) {
    const int64_t c = int64_t(cols.size());
    if (m == 0 || c == 0) return {};
    std::vector<double> W(sz(m * c));
    for (int64_t p = 0; p < c; ++p) {
        double s = 0;
        for (int64_t i = 0; i < m; ++i) {
            const double x = double(A[i + cols[sz(p)] * lda]);
            W[sz(i + p * m)] = x;
            s += x * x;
        }
        if (unit && s > 0)
            for (int64_t i = 0; i < m; ++i) W[sz(i + p * m)] /= std::sqrt(s);
    }
    std::vector<double> S(sz(std::min(m, c))), superb(S.size() + 1);
    double dummy = 0;
    const lapack_int info = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', lapack_int(m), lapack_int(c),
                                           W.data(), lapack_int(m), S.data(), &dummy, 1, &dummy, 1,
                                           superb.data());
    EXPECT_EQ(info, 0) << "reference dgesvd";
    return S;
}

/// A handle on the CPU backend: the reference.
struct CpuHandle : Handle {
    CpuHandle() { EXPECT_EQ(gpusvdSetBackend(get(), GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS); }
};

template <typename T>
Ref<T> reference(gpusvdHandle_t cpu, int64_t m, int64_t n, const T *A0, int64_t lda) {
    Ref<T> r;
    const int64_t k = std::min(m, n);
    if (k == 0) return r;
    std::vector<T> W = with_ld(m, n, A0, lda, m, T(0)), R(sz(k * n));
    GPUSVD_EXPECT_OK(cpu, Api<T>::geqrf_mgs(cpu, GPUSVD_ORTH_MGS2, m, n, W.data(), m, R.data(), k,
                                            &r.info));
    if (r.info == GPUSVD_INFO_NONFINITE) return r;
    r.anorm = double(norm1(m, n, A0, lda));
    std::vector<int64_t> lead, kept;
    for (int64_t j = 0; j < k; ++j) {
        r.rdiag.push_back(R[sz(j + j * k)]);
        double s = 0;
        for (int64_t i = 0; i < m; ++i) s += double(A0[i + j * lda]) * double(A0[i + j * lda]);
        r.colnorm.push_back(std::sqrt(s));
        lead.push_back(j);
        if (R[sz(j + j * k)] != T(0)) kept.push_back(j);
    }
    const std::vector<double> se = column_svals(m, A0, lda, lead, true);
    r.sigma_eq = se.empty() ? 0.0 : se.back();
    const std::vector<double> sk = column_svals(m, A0, lda, kept, false);
    r.cond = sk.empty() || !(sk.back() > 0) ? std::numeric_limits<double>::infinity()
                                            : sk.front() / sk.back();
    return r;
}

template <typename T>
std::vector<Ref<T>> references(gpusvdHandle_t cpu, int64_t m, int64_t n,
                               const std::vector<Case<T>> &cases) {
    std::vector<Ref<T>> refs;
    for (const Case<T> &c : cases) refs.push_back(reference(cpu, m, n, c.A.data(), m));
    return refs;
}

/// Checks one factorization: Q (m x k, first columns of the overwritten A), R (k x n), info.
template <typename T>
void check_qr(gpusvdOrth_t orth, int64_t m, int64_t n, const Case<T> &c, const Ref<T> &ref,
              const T *Q, int64_t ldq, const T *R, int64_t ldr, int info) {
    const int64_t k = std::min(m, n);
    if (k == 0) return;
    const double e = eps<T>();
    if (c.nonfinite) {
        EXPECT_EQ(info, GPUSVD_INFO_NONFINITE);
        EXPECT_TRUE(all_nan(m, k, Q, ldq)) << "Q is NaN";
        EXPECT_TRUE(all_nan(k, n, R, ldr)) << "R is NaN";
        return;
    }
    ASSERT_NE(ref.info, GPUSVD_INFO_NONFINITE) << "test construction: a finite matrix";
    // info
    if (c.dependent) {
        // Exactly dependent columns of integer matrices leave rounding-level residuals right at
        // the m eps ||a_j|| threshold, so two correct implementations (even two LAPACK runs in
        // another order) may name neighbouring columns: both must find one, and a GPU column
        // that the CPU did not name must be nearly dependent (below).
        EXPECT_GT(ref.info, 0) << "test construction: the CPU backend finds a dependent column";
        EXPECT_GT(info, 0) << "a dependent column is found";
        if (info > 0 && info <= k && info != ref.info) {
            const size_t j = sz(info - 1);
            const double bound = 10.0 * double(m) * e * ref.colnorm[j] +
                                 kDiagThreshold * std::sqrt(double(m)) * e * ref.anorm;
            EXPECT_LE(double(ref.rdiag[j]), bound)
                << "column " << info << " reported dependent, the CPU backend said " << ref.info;
        }
    } else if (ref.sigma_eq > 100.0 * double(m) * e) {
        EXPECT_EQ(ref.info, 0) << "test construction: clearly full rank";
        EXPECT_EQ(info, 0) << "full rank, sigma_min of the unit-column matrix " << ref.sigma_eq;
    } else {
        EXPECT_GE(info, 0);
        if (info > 0 && info <= k) {  // then it must be nearly dependent
            const size_t j = sz(info - 1);
            const double bound = 10.0 * double(m) * e * ref.colnorm[j] +
                                 kDiagThreshold * std::sqrt(double(m)) * e * ref.anorm;
            EXPECT_LE(double(ref.rdiag[j]), bound)
                << "column " << info << " reported dependent; the CPU backend's R(j,j) "
                << ref.rdiag[j] << ", ||a_j|| " << ref.colnorm[j];
        }
    }
    EXPECT_LE(info, k) << "info names one of the first min(m,n) columns";
    if (info > 0 && info <= k) {
        EXPECT_EQ(R[(info - 1) + (info - 1) * ldr], T(0)) << "R(info,info) of a dependent column";
    }
    // R: upper trapezoidal, non-negative diagonal
    int64_t below = 0, negative = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j + 1; i < k; ++i) below += R[i + j * ldr] != T(0);
    for (int64_t j = 0; j < k; ++j) negative += !(R[j + j * ldr] >= T(0));
    EXPECT_EQ(below, 0) << "entries of R below the diagonal not exactly zero";
    EXPECT_EQ(negative, 0) << "R(j,j) < 0 (or NaN)";
    // ratios
    const double resid = qr_residual(m, n, c.A.data(), m, Q, ldq, R, ldr);
    EXPECT_LT(resid, kQrThreshold) << "|A - QR| / (m |A| eps)";
    const double oq = orthogonality(m, k, Q, ldq);
    if (orth == GPUSVD_ORTH_MGS2) {
        EXPECT_LT(oq, kQrThreshold) << "|I - Q^T Q| / (m eps)";
    } else {
        // With dependent columns, MGS goes on with the completing Q columns in their place: the
        // condition number that governs it is that of A with those columns replaced (unit
        // columns: MGS does not see column scaling).
        double cond = ref.cond;
        if (info > 0 || ref.info > 0) {
            std::vector<T> B(sz(m * k));
            std::vector<int64_t> all;
            for (int64_t j = 0; j < k; ++j) {
                const bool dep = R[j + j * ldr] == T(0);
                for (int64_t i = 0; i < m; ++i)
                    B[sz(i + j * m)] = dep ? Q[i + j * ldq] : c.A[sz(i + j * m)];
                all.push_back(j);
            }
            const std::vector<double> sb = column_svals(m, B.data(), m, all, true);
            cond = std::max(cond, sb.empty() || !(sb.back() > 0)
                                      ? std::numeric_limits<double>::infinity()
                                      : sb.front() / sb.back());
        }
        EXPECT_LT(oq, kMgsFactor * std::max(1.0, cond))
            << "MGS: |I - Q^T Q| / (m eps) < 30 cond, cond " << cond;
    }
    // Past the first dependent column Q holds an arbitrary completion, on which the later R(j,j)
    // depend: the diagonals are compared up to that column (where both are 0).
    int64_t upto = k;
    for (int i : {info, ref.info})
        if (i > 0) upto = std::min<int64_t>(upto, i);
    double d = 0;
    for (int64_t j = 0; j < upto; ++j)
        d = std::max(d, std::fabs(std::fabs(double(R[j + j * ldr])) - std::fabs(double(ref.rdiag[sz(j)]))));
    // Both factorizations are exact for A + E with |E| <= 30 m |A| eps (the residual test), so
    // their R(j,j) may differ by that much: Gram-Schmidt's backward error grows like m n eps, not
    // Householder's sqrt(m) (seen: 470 |A| eps on a 32 x 32 matrix with cond 1e12).
    const double diag = gpusvd_util::detail::safe_ratio(T(d), T(ref.anorm), double(m));
    EXPECT_LT(diag, kDiagThreshold) << "max |R(j,j) - R_cpu(j,j)| / (m |A| eps)";
    if (verbose())
        std::printf("  %s %-22s %lld x %lld: info %d (cpu %d) resid %.3g orth %.3g cond %.3g "
                    "diag %.3g\n",
                    orth_name(orth), c.name.c_str(), (long long)m, (long long)n, info, ref.info,
                    resid, oq, ref.cond, diag);
}


/* ---- running the routines ------------------------------------------------------------------ */

/// Output of one single-matrix call: A (Q in its first k columns) and R with leading dimensions.
template <typename T>
struct One {
    int64_t lda, ldr;
    std::vector<T> A, R;
    int info = kUnset;
};

/// gpusvd_Xgeqrf_mgs (or `call`, same signature) on A0 copied into lda = m + extra (rows past m
/// hold a sentinel), R with ldr = min(m,n) + 2; status, and that the padding is untouched.
template <typename T, typename Call>
One<T> run_one(gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m, int64_t n, const std::vector<T> &A0,
               int64_t extra, Call call) {
    const int64_t k = std::min(m, n);
    const T pad = sentinel<T>();
    One<T> o;
    o.lda = m + extra;
    o.ldr = k + 2;
    o.A = with_ld(m, n, A0.data(), m, o.lda, pad);
    o.R = sentinels<T>(sz(o.ldr * n));
    GPUSVD_EXPECT_OK(h, call(h, orth, m, n, o.A.data(), o.lda, o.R.data(), o.ldr, &o.info));
    EXPECT_TRUE(padding_intact(m, n, o.A.data(), o.lda, pad)) << "A written outside m x n";
    EXPECT_TRUE(padding_intact(k, n, o.R.data(), o.ldr, pad)) << "R written outside k x n";
    return o;
}

/// Output of one batched call, matrix b at A + b * sA, R + b * sR.
template <typename T>
struct Batch {
    int64_t lda, sA, ldr, sR;
    std::vector<T> A, R;
    std::vector<int> info;
};

/// gpusvd_Xgeqrf_mgs_batched (or `call`) on the cases: tight (lda = m, strides lda n, ldr = k)
/// or padded (lda = m + 1, ldr = k + 1, gaps between the matrices); every matrix checked with
/// check_qr, padding and gaps untouched.
template <typename T, typename Call>
Batch<T> run_batch(gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m, int64_t n,
                   const std::vector<Case<T>> &cases, const std::vector<Ref<T>> &refs, bool tight,
                   Call call) {
    const int64_t k = std::min(m, n), batch = int64_t(cases.size());
    const T pad = sentinel<T>();
    Batch<T> o;
    o.lda = tight ? m : m + 1;
    o.sA = tight ? o.lda * n : o.lda * n + 3;
    o.ldr = tight ? k : k + 1;
    o.sR = tight ? o.ldr * n : o.ldr * n + 2;
    o.A.assign(sz(o.sA * batch), pad);
    o.R.assign(sz(o.sR * batch), pad);
    o.info.assign(sz(batch), kUnset);
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i)
                o.A[sz(b * o.sA + i + j * o.lda)] = cases[sz(b)].A[sz(i + j * m)];
    GPUSVD_EXPECT_OK(h, call(h, orth, m, n, o.A.data(), o.lda, o.sA, o.R.data(), o.ldr, o.sR,
                             batch, o.info.data()));
    for (int64_t b = 0; b < batch; ++b) {
        SCOPED_TRACE(testing::Message() << "matrix " << b << " (" << cases[sz(b)].name << ")");
        const T *Q = o.A.data() + b * o.sA, *R = o.R.data() + b * o.sR;
        check_qr(orth, m, n, cases[sz(b)], refs[sz(b)], Q, o.lda, R, o.ldr, o.info[sz(b)]);
        EXPECT_TRUE(padding_intact(m, n, Q, o.lda, pad)) << "A written outside m x n";
        EXPECT_TRUE(padding_intact(k, n, R, o.ldr, pad)) << "R written outside k x n";
        int64_t gaps = 0;
        for (int64_t i = o.lda * n; i < o.sA; ++i) gaps += !(Q[i] == pad);
        for (int64_t i = o.ldr * n; i < o.sR; ++i) gaps += !(R[i] == pad);
        EXPECT_EQ(gaps, 0) << "written between strided matrices";
    }
    return o;
}

/// geqrf_mgs through gpusvd_Xgeqrf_mgs_gpu on the user stream (same signature as the host form).
template <typename T>
struct GeqrfOnDevice {
    const CudaRt &rt;
    const UserStream &stream;
    gpusvdStatus_t operator()(gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m, int64_t n, T *A,
                              int64_t lda, T *R, int64_t ldr, int *info) const {
        const auto form = rt.emulated ? Api<T>::geqrf_mgs : Api<T>::geqrf_mgs_gpu;
        return run_on_device(rt, stream,
                             {{A, sizeof(T) * sz(lda * n)},
                              {R, sizeof(T) * sz(ldr * n)},
                              {info, sizeof(int)}},
                             [&](void *const *d) {
                                 return form(h, orth, m, n, static_cast<T *>(d[0]), lda,
                                             static_cast<T *>(d[1]), ldr, static_cast<int *>(d[2]));
                             });
    }
};

/// geqrf_mgs_batched through gpusvd_Xgeqrf_mgs_batched_gpu on the user stream.
template <typename T>
struct GeqrfBatchedOnDevice {
    const CudaRt &rt;
    const UserStream &stream;
    gpusvdStatus_t operator()(gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m, int64_t n, T *A,
                              int64_t lda, int64_t sA, T *R, int64_t ldr, int64_t sR,
                              int64_t batch, int *info) const {
        const auto form = rt.emulated ? Api<T>::geqrf_mgs_batched : Api<T>::geqrf_mgs_batched_gpu;
        return run_on_device(rt, stream,
                             {{A, sizeof(T) * sz(sA * batch)},
                              {R, sizeof(T) * sz(sR * batch)},
                              {info, sizeof(int) * sz(batch)}},
                             [&](void *const *d) {
                                 return form(h, orth, m, n, static_cast<T *>(d[0]), lda, sA,
                                             static_cast<T *>(d[1]), ldr, sR, batch,
                                             static_cast<int *>(d[2]));
                             });
    }
};

/// Every case of `cases` through the single-matrix host form, both orth modes, checked.
template <typename T>
void check_each(gpusvdHandle_t h, int64_t m, int64_t n, const std::vector<Case<T>> &cases,
                const std::vector<Ref<T>> &refs, bool vary_ld) {
    for (size_t c = 0; c < cases.size(); ++c)
        for (gpusvdOrth_t o : kOrths) {
            SCOPED_TRACE(testing::Message() << orth_name(o) << " " << cases[c].name << " " << m
                                            << " x " << n);
            const int64_t extra = vary_ld ? int64_t(c % 2) * 5 : 1;
            const One<T> r = run_one(h, o, m, n, cases[c].A, extra, Api<T>::geqrf_mgs);
            check_qr(o, m, n, cases[c], refs[c], r.A.data(), r.lda, r.R.data(), r.ldr, r.info);
        }
}

/// `batch` matrices cycling through all_cases, with NaN in matrix 7, +Inf in 13, -Inf in 23, a
/// zero matrix at 31 and duplicated columns at 40 (whichever of those exist).
template <typename T>
std::vector<Case<T>> mixed_batch(Rng &rng, int64_t m, int64_t n, int64_t batch) {
    std::vector<Case<T>> out;
    while (int64_t(out.size()) < batch)
        for (Case<T> &c : all_cases<T>(rng, m, n))
            if (int64_t(out.size()) < batch) out.push_back(std::move(c));
    const size_t mid = sz(m * n / 2), last = sz(m * n - 1);
    auto poison = [&](int64_t b, size_t at, T v, const char *name) {
        if (batch <= b) return;
        out[sz(b)] = {name, gaussian<T>(rng, m, n), false, true};
        out[sz(b)].A[at] = v;
    };
    poison(7, mid, nan_v<T>(), "NaN");
    poison(13, 0, std::numeric_limits<T>::infinity(), "+Inf");
    poison(23, last, -std::numeric_limits<T>::infinity(), "-Inf");
    if (batch > 31) out[31] = {"zero", std::vector<T>(sz(m * n), T(0)), true};
    if (batch > 40 && std::min(m, n) >= 2) {
        std::vector<T> A = gaussian<T>(rng, m, n);
        for (int64_t i = 0; i < m; ++i) A[sz(i + m)] = A[sz(i)];  // column 2 = column 1
        out[40] = {"column 2 = column 1", A, true};
    }
    return out;
}

template <typename T>
class GpuGeqrfTest : public DeviceTest<T> {
protected:
    CpuHandle cpu;
};
TYPED_TEST_SUITE(GpuGeqrfTest, Precisions, PrecisionName);

TYPED_TEST(GpuGeqrfTest, SmallShapesOneMatrix) {
    using T = TypeParam;
    Rng rng(31);
    for (const Shape &s : kSmallShapes) {
        const std::vector<Case<T>> cases = all_cases<T>(rng, s.m, s.n);
        check_each(this->h, s.m, s.n, cases, references(this->cpu, s.m, s.n, cases), false);
    }
}

TYPED_TEST(GpuGeqrfTest, SmallShapesBatched) {
    using T = TypeParam;
    Rng rng(32);
    for (const Shape &s : kSmallShapes) {
        const std::vector<Case<T>> cases = all_cases<T>(rng, s.m, s.n);
        const std::vector<Ref<T>> refs = references(this->cpu, s.m, s.n, cases);
        for (gpusvdOrth_t o : kOrths)
            for (bool tight : {true, false}) {
                SCOPED_TRACE(testing::Message() << orth_name(o) << " " << s.m << " x " << s.n
                                                << (tight ? " tight" : " padded"));
                run_batch(this->h, o, s.m, s.n, cases, refs, tight, Api<T>::geqrf_mgs_batched);
            }
    }
}

TYPED_TEST(GpuGeqrfTest, LargerShapesBatched) {
    using T = TypeParam;
    Rng rng(33);
    for (const Shape &s : kLargerShapes) {
        const std::vector<Case<T>> cases = all_cases<T>(rng, s.m, s.n);
        const std::vector<Ref<T>> refs = references(this->cpu, s.m, s.n, cases);
        for (gpusvdOrth_t o : kOrths) {
            SCOPED_TRACE(testing::Message() << orth_name(o) << " " << s.m << " x " << s.n);
            run_batch(this->h, o, s.m, s.n, cases, refs, false, Api<T>::geqrf_mgs_batched);
        }
        // and one at a time through the single-matrix routine
        check_each(this->h, s.m, s.n, cases, refs, false);
    }
}

TYPED_TEST(GpuGeqrfTest, TallOneMatrix) {
    using T = TypeParam;
    Rng rng(34);
    for (const Shape &s : kTallShapes) {
        const std::vector<Case<T>> cases = all_cases<T>(rng, s.m, s.n);
        check_each(this->h, s.m, s.n, cases, references(this->cpu, s.m, s.n, cases), true);
    }
}

TYPED_TEST(GpuGeqrfTest, TallBatched) {
    using T = TypeParam;
    Rng rng(35);
    const std::vector<Shape> shapes = full_or_quick(1, 0)
                                          ? std::vector<Shape>{{3000, 64}, {2000, 300}}
                                          : std::vector<Shape>{{1100, 64}};
    for (const Shape &s : shapes) {
        std::vector<Case<T>> cases;
        cases.push_back({"gaussian", gaussian<T>(rng, s.m, s.n)});
        cases.push_back({"geometric " + cond_name(conds<T>().back()),
                         prescribed_sv<T>(rng, s.m, s.n, SigmaMode::Geometric, conds<T>().back())});
        cases.push_back({"NaN", gaussian<T>(rng, s.m, s.n), false, true});
        cases.back().A[sz(s.m * s.n / 3)] = nan_v<T>();
        std::vector<T> A = gaussian<T>(rng, s.m, s.n);
        for (int64_t i = 0; i < s.m; ++i) A[sz(i + 9 * s.m)] = A[sz(i + 4 * s.m)];
        cases.push_back({"column 10 = column 5", A, true});
        const std::vector<Ref<T>> refs = references(this->cpu, s.m, s.n, cases);
        EXPECT_EQ(refs[3].info, 10);
        for (gpusvdOrth_t o : kOrths) {
            SCOPED_TRACE(testing::Message() << orth_name(o) << " " << s.m << " x " << s.n);
            run_batch(this->h, o, s.m, s.n, cases, refs, false, Api<T>::geqrf_mgs_batched);
        }
    }
}

// Dependent columns at known places: info is the 1-based index of the first, R(j,j) = 0 there,
// Q orthonormal in both modes (the rest of these matrices is well conditioned).
TYPED_TEST(GpuGeqrfTest, DependentColumnsKnownInfo) {
    using T = TypeParam;
    Rng rng(36);
    const std::vector<Shape> shapes = {{15, 8},    {64, 64},  {17, 31},
                                       {300, 200}, {full_or_quick(5000, 2000), 64}};
    for (const Shape &s : shapes) {
        const int64_t m = s.m, n = s.n;
        struct Dep {
            const char *name;
            int64_t col, src;  // column `col` (0-based) := column src (-1: zero)
            int info;
        };
        for (const Dep &d : {Dep{"column 5 = column 2", 4, 1, 5}, Dep{"first column zero", 0, -1, 1},
                             Dep{"last column zero", std::min(m, n) - 1, -1, int(std::min(m, n))}}) {
            std::vector<T> A = gaussian<T>(rng, m, n);
            for (int64_t i = 0; i < m; ++i)
                A[sz(i + d.col * m)] = d.src < 0 ? T(0) : A[sz(i + d.src * m)];
            const std::vector<Case<T>> cases = {{d.name, A, true}};
            const std::vector<Ref<T>> refs = references(this->cpu, m, n, cases);
            for (gpusvdOrth_t o : kOrths) {
                SCOPED_TRACE(testing::Message() << orth_name(o) << " " << d.name << " " << m
                                                << " x " << n);
                const One<T> r = run_one(this->h, o, m, n, A, 0, Api<T>::geqrf_mgs);
                EXPECT_EQ(r.info, d.info);
                check_qr(o, m, n, cases[0], refs[0], r.A.data(), r.lda, r.R.data(), r.ldr, r.info);
                const Batch<T> b =
                    run_batch(this->h, o, m, n, cases, refs, false, Api<T>::geqrf_mgs_batched);
                EXPECT_EQ(b.info[0], d.info) << "batched";
            }
        }
    }
}

TYPED_TEST(GpuGeqrfTest, NonFinite) {
    using T = TypeParam;
    Rng rng(37);
    const std::vector<Shape> shapes = {{1, 1}, {16, 16}, {31, 17}, {17, 31}, {300, 200},
                                       {full_or_quick(5000, 2000), 64}};
    const T inf = std::numeric_limits<T>::infinity();
    for (const Shape &s : shapes) {
        const int64_t m = s.m, n = s.n;
        for (T bad : {nan_v<T>(), inf, -inf})
            for (size_t at : {size_t(0), sz(m * n / 2), sz(m * n - 1)}) {
                std::vector<T> A = gaussian<T>(rng, m, n);
                A[at] = bad;
                const std::vector<Case<T>> cases = {{"non-finite", A, false, true}};
                const std::vector<Ref<T>> refs = {Ref<T>{}};
                for (gpusvdOrth_t o : kOrths) {
                    SCOPED_TRACE(testing::Message() << orth_name(o) << " " << bad << " at " << at
                                                    << " " << m << " x " << n);
                    const One<T> r = run_one(this->h, o, m, n, A, 1, Api<T>::geqrf_mgs);
                    check_qr(o, m, n, cases[0], refs[0], r.A.data(), r.lda, r.R.data(), r.ldr,
                             r.info);
                    run_batch(this->h, o, m, n, cases, refs, true, Api<T>::geqrf_mgs_batched);
                }
            }
    }
}

TYPED_TEST(GpuGeqrfTest, MixedBatches) {
    using T = TypeParam;
    Rng rng(38);
    for (const Shape &s : {Shape{16, 16}, Shape{32, 32}, Shape{31, 17}, Shape{17, 31},
                           Shape{64, 64}, Shape{100, 40}, Shape{300, 200}}) {
        const std::vector<Case<T>> cases = mixed_batch<T>(rng, s.m, s.n, 50);
        const std::vector<Ref<T>> refs = references(this->cpu, s.m, s.n, cases);
        for (gpusvdOrth_t o : kOrths) {
            SCOPED_TRACE(testing::Message() << orth_name(o) << " " << s.m << " x " << s.n);
            const Batch<T> b =
                run_batch(this->h, o, s.m, s.n, cases, refs, false, Api<T>::geqrf_mgs_batched);
            EXPECT_EQ(b.info[7], GPUSVD_INFO_NONFINITE);
            EXPECT_EQ(b.info[13], GPUSVD_INFO_NONFINITE);
            EXPECT_EQ(b.info[23], GPUSVD_INFO_NONFINITE);
            EXPECT_EQ(b.info[31], 1) << "zero matrix";
            EXPECT_EQ(b.info[40], 2) << "column 2 = column 1";
            EXPECT_EQ(b.info[0], 0) << "gaussian";
        }
    }
}

TYPED_TEST(GpuGeqrfTest, LargeBatch) {
    using T = TypeParam;
    Rng rng(39);
    const int64_t m = 32, n = 32, batch = full_or_quick(20000, 200);
    const std::vector<Case<T>> cases = mixed_batch<T>(rng, m, n, batch);
    const std::vector<Ref<T>> refs = references(this->cpu, m, n, cases);
    for (gpusvdOrth_t o : kOrths) {
        SCOPED_TRACE(orth_name(o));
        const Batch<T> b = run_batch(this->h, o, m, n, cases, refs, true, Api<T>::geqrf_mgs_batched);
        int64_t nonfinite = 0;
        for (int v : b.info) nonfinite += v == GPUSVD_INFO_NONFINITE;
        EXPECT_EQ(nonfinite, 3) << "exactly the three NaN/Inf matrices";
    }
}

/// The host form in many small chunks (a staging slot of a dozen matrices or so, so the pipeline
/// ramps up and down and reuses each slot many times): every matrix passes the checks, and the
/// results are bitwise those of one chunk, A (read and written) included.
TYPED_TEST(GpuGeqrfTest, HostFormInSmallChunksMatchesOneChunk) {
    using T = TypeParam;
    Rng rng(40);
    const int64_t m = 32, n = 32;
    const std::vector<Case<T>> cases = mixed_batch<T>(rng, m, n, 300);
    const std::vector<Ref<T>> refs = references(this->cpu, m, n, cases);
    for (bool tight : {true, false})
        for (gpusvdOrth_t o : kOrths) {
            SCOPED_TRACE(testing::Message() << orth_name(o) << (tight ? " tight" : " padded"));
            const Batch<T> one =
                run_batch(this->h, o, m, n, cases, refs, tight, Api<T>::geqrf_mgs_batched);
            const ScopedEnv slot("GPUSVD_PIPELINE_SLOT_BYTES", "200000");
            const Batch<T> small =
                run_batch(this->h, o, m, n, cases, refs, tight, Api<T>::geqrf_mgs_batched);
            EXPECT_EQ(small.info, one.info);
            EXPECT_EQ(std::memcmp(small.A.data(), one.A.data(), one.A.size() * sizeof(T)), 0);
            EXPECT_EQ(std::memcmp(small.R.data(), one.R.data(), one.R.size() * sizeof(T)), 0);
        }
}

template <typename T>
class GpuGeqrfDeviceFormTest : public DeviceStreamTest<T> {
protected:
    CpuHandle cpu;
};
TYPED_TEST_SUITE(GpuGeqrfDeviceFormTest, Precisions, PrecisionName);

/// max |X(i,j) - Y(i,j)| over the rows x cols entries (NaN if either holds NaN).
template <typename T>
double max_diff(int64_t rows, int64_t cols, const T *X, const T *Y, int64_t ld) {
    double d = 0;
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i) {
            const double x = std::fabs(double(X[i + j * ld]) - double(Y[i + j * ld]));
            if (std::isnan(x)) return x;
            d = std::max(d, x);
        }
    return d;
}

/// The `_gpu` result of a full-rank matrix equals the host form's to rounding:
/// max |dQ| / (m eps) and max |dR| / (m max|A| eps) below 30 max(1, cond).
template <typename T>
void expect_same_to_rounding(int64_t m, int64_t n, const T *A0, double cond, const T *Qh,
                             const T *Qd, int64_t ldq, const T *Rh, const T *Rd, int64_t ldr) {
    const int64_t k = std::min(m, n);
    const double e = eps<T>(), tol = kQrThreshold * std::max(1.0, cond);
    const double amax = double(max_abs(m, n, A0, m));
    EXPECT_LT(max_diff(m, k, Qd, Qh, ldq) / (double(m) * e), tol) << "Q: _gpu form vs host form";
    EXPECT_LT(max_diff(k, n, Rd, Rh, ldr) / (double(m) * e * std::max(amax, 1e-300)), tol)
        << "R: _gpu form vs host form";
}

TYPED_TEST(GpuGeqrfDeviceFormTest, OneMatrixOnUserStreamMatchesHostForm) {
    using T = TypeParam;
    Rng rng(40);
    const GeqrfOnDevice<T> on_device{*this->rt, *this->stream};
    std::vector<Shape> shapes = {{1, 1}, {32, 32}, {31, 17}, {17, 31}, {100, 40}, {300, 200}};
    for (const Shape &s : full_or_quick(1, 0) ? std::vector<Shape>{{5000, 64}, {2000, 300}}
                                              : std::vector<Shape>{{2000, 64}})
        shapes.push_back(s);
    for (const Shape &s : shapes) {
        const int64_t m = s.m, n = s.n, k = std::min(m, n);
        std::vector<Case<T>> cases = {
            {"log-uniform 1e2", prescribed_sv<T>(rng, m, n, SigmaMode::LogUniform, 1e2)}};
        if (k >= 3) {
            std::vector<T> A = gaussian<T>(rng, m, n);
            for (int64_t i = 0; i < m; ++i) A[sz(i + 2 * m)] = A[sz(i)];
            cases.push_back({"column 3 = column 1", A, true});
        }
        const std::vector<Ref<T>> refs = references(this->cpu, m, n, cases);
        for (size_t c = 0; c < cases.size(); ++c)
            for (gpusvdOrth_t o : kOrths) {
                SCOPED_TRACE(testing::Message() << orth_name(o) << " " << cases[c].name << " "
                                                << m << " x " << n);
                const One<T> host = run_one(this->h, o, m, n, cases[c].A, 1, Api<T>::geqrf_mgs);
                check_qr(o, m, n, cases[c], refs[c], host.A.data(), host.lda, host.R.data(),
                         host.ldr, host.info);
                SCOPED_TRACE("_gpu form");
                const One<T> dev = run_one(this->h, o, m, n, cases[c].A, 1, on_device);
                check_qr(o, m, n, cases[c], refs[c], dev.A.data(), dev.lda, dev.R.data(), dev.ldr,
                         dev.info);
                EXPECT_EQ(dev.info, host.info);
                if (!cases[c].dependent)  // a dependent column's Q is any completion
                    expect_same_to_rounding(m, n, cases[c].A.data(), refs[c].cond, host.A.data(),
                                            dev.A.data(), host.lda, host.R.data(), dev.R.data(),
                                            host.ldr);
            }
    }
}

/// geqrf_mgs through gpusvd_Xgeqrf_mgs_gpu on row-major A (m x n, ld lda >= n) and R (k x n,
/// ld ldr >= n): the device buffers hold m rows of A and k rows of R.
template <typename T>
struct GeqrfRowMajorOnDevice {
    const CudaRt &rt;
    const UserStream &stream;
    gpusvdStatus_t operator()(gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m, int64_t n, T *A,
                              int64_t lda, T *R, int64_t ldr, int *info) const {
        const auto form = rt.emulated ? Api<T>::geqrf_mgs : Api<T>::geqrf_mgs_gpu;
        const int64_t k = std::min(m, n);
        return run_on_device(rt, stream,
                             {{A, sizeof(T) * sz(m * lda)},
                              {R, sizeof(T) * sz(k * ldr)},
                              {info, sizeof(int)}},
                             [&](void *const *d) {
                                 return form(h, orth, m, n, static_cast<T *>(d[0]), lda,
                                             static_cast<T *>(d[1]), ldr, static_cast<int *>(d[2]));
                             });
    }
};

// gpusvdSetMatrixLayout: row-major A and R through the host and `_gpu` forms, every case of
// all_cases (rank-deficient rebuild, screening and scaling near overflow and underflow, the
// zero matrix) and NaN, on the shapes of every path a row-major matrix takes (small ones run the
// tall path too; w > 64 the TRSM solve; n > 256 panels; wide), checked as the column-major
// results are and against the column-major host form to rounding.
TYPED_TEST(GpuGeqrfDeviceFormTest, RowMajorMatchesColumnMajor) {
    using T = TypeParam;
    Rng rng(45);
    const GeqrfRowMajorOnDevice<T> on_device{*this->rt, *this->stream};
    // Quick (the sanitizer runs): one shape of each row-major path, the cases that take distinct
    // branches (a dependent column, zero, near overflow) and NaN.
    const bool quick = full_or_quick(0, 1) != 0;
    std::vector<Shape> shapes = {{1, 1}, {31, 17}, {17, 31}, {100, 40}, {300, 200}, {200, 300},
                                 {5000, 64}, {3000, 100}, {2000, 300}, {70000, 8}};
    if (quick) shapes = {{31, 17}, {100, 40}, {2000, 64}};
    for (const Shape &s : shapes) {
        const int64_t m = s.m, n = s.n, k = std::min(m, n);
        std::vector<Case<T>> cases = all_cases<T>(rng, m, n);
        if (quick) {
            std::vector<Case<T>> kept;
            for (Case<T> &c : cases)
                if (c.name == "gaussian" || c.name == "near overflow" || c.name == "zero" ||
                    c.name == "duplicated columns")
                    kept.push_back(std::move(c));
            cases = std::move(kept);
        }
        std::vector<T> A = gaussian<T>(rng, m, n);
        A[sz(m * n / 2)] = nan_v<T>();
        cases.push_back({"NaN", A, false, true});
        const std::vector<Ref<T>> refs = references(this->cpu, m, n, cases);
        for (size_t c = 0; c < cases.size(); ++c)
            for (gpusvdOrth_t o : kOrths) {
                SCOPED_TRACE(testing::Message() << orth_name(o) << " " << cases[c].name << " "
                                                << m << " x " << n << " row-major");
                const One<T> col = run_one(this->h, o, m, n, cases[c].A, 1, Api<T>::geqrf_mgs);
                for (int device = 0; device <= 1; ++device) {
                    SCOPED_TRACE(device ? "_gpu form" : "host form");
                    const RowMajorQr<T> r =
                        device ? row_major_qr(this->h, o, m, n, cases[c].A, on_device)
                               : row_major_qr(this->h, o, m, n, cases[c].A, Api<T>::geqrf_mgs);
                    check_qr(o, m, n, cases[c], refs[c], r.Q.data(), m, r.R.data(), k, r.info);
                    if (cases[c].nonfinite) continue;
                    EXPECT_EQ(r.info, col.info) << "info: row-major vs column-major";
                    if (!cases[c].dependent && refs[c].info == 0) {
                        // both repacked column-major with ld m (Q) and k (R)
                        const std::vector<T> Qc = with_ld(m, n, col.A.data(), col.lda, m, T(0));
                        const std::vector<T> Rc = with_ld(k, n, col.R.data(), col.ldr, k, T(0));
                        expect_same_to_rounding(m, n, cases[c].A.data(), refs[c].cond, Qc.data(),
                                                r.Q.data(), m, Rc.data(), r.R.data(), k);
                    }
                }
            }
    }
}

TYPED_TEST(GpuGeqrfDeviceFormTest, BatchOnUserStreamMatchesHostForm) {
    using T = TypeParam;
    Rng rng(41);
    const GeqrfBatchedOnDevice<T> on_device{*this->rt, *this->stream};
    for (const Shape &s : {Shape{16, 16}, Shape{32, 32}, Shape{31, 17}, Shape{17, 31},
                           Shape{64, 64}, Shape{100, 40}, Shape{300, 200}}) {
        const int64_t m = s.m, n = s.n;
        const std::vector<Case<T>> cases = mixed_batch<T>(rng, m, n, 50);
        const std::vector<Ref<T>> refs = references(this->cpu, m, n, cases);
        for (gpusvdOrth_t o : kOrths)
            for (bool tight : {false, true}) {
                SCOPED_TRACE(testing::Message() << orth_name(o) << " " << m << " x " << n
                                                << (tight ? " tight" : " padded"));
                const Batch<T> host =
                    run_batch(this->h, o, m, n, cases, refs, tight, Api<T>::geqrf_mgs_batched);
                SCOPED_TRACE("_gpu form");
                const Batch<T> dev = run_batch(this->h, o, m, n, cases, refs, tight, on_device);
                EXPECT_EQ(dev.info, host.info);
                for (size_t b = 0; b < cases.size(); ++b) {
                    if (cases[b].nonfinite || cases[b].dependent || refs[b].info != 0 ||
                        host.info[b] != 0)
                        continue;
                    SCOPED_TRACE(testing::Message() << "matrix " << b << " (" << cases[b].name
                                                    << ")");
                    expect_same_to_rounding(m, n, cases[b].A.data(), refs[b].cond,
                                            host.A.data() + b * sz(host.sA),
                                            dev.A.data() + b * sz(dev.sA), host.lda,
                                            host.R.data() + b * sz(host.sR),
                                            dev.R.data() + b * sz(dev.sR), host.ldr);
                }
            }
    }
}

// One small case per kernel path: batched warp (16 x 16), block in shared memory (64 x 64,
// 100 x 100), global memory (300 x 200), and the tall single-matrix path (4000 x 64), both
// modes. The racecheck run on the device uses only these (--gtest_filter=*EveryKernelPath*):
// racecheck slows shared-memory kernels down by orders of magnitude.
TYPED_TEST(GpuGeqrfTest, EveryKernelPathOnce) {
    using T = TypeParam;
    Rng rng(77);
    for (const Shape &s : {Shape{16, 16}, Shape{64, 64}, Shape{100, 100}, Shape{300, 200}}) {
        std::vector<Case<T>> cases;
        for (int b = 0; b < 2; ++b) cases.push_back({"gaussian", gaussian<T>(rng, s.m, s.n)});
        cases.push_back({"NaN", gaussian<T>(rng, s.m, s.n), false, true});  // the rare path
        cases.back().A[sz(s.m * s.n / 2)] = nan_v<T>();
        const std::vector<Ref<T>> refs = references(this->cpu, s.m, s.n, cases);
        for (gpusvdOrth_t o : kOrths) {
            SCOPED_TRACE(testing::Message() << orth_name(o) << " " << s.m << " x " << s.n);
            run_batch(this->h, o, s.m, s.n, cases, refs, false, Api<T>::geqrf_mgs_batched);
        }
    }
    // The tall path: the row solve's three widths (16, 32, 64), cuBLAS's TRSM beyond 64 columns,
    // and two panels joined by BCGS2.
    for (const Shape &s :
         {Shape{4000, 64}, Shape{3000, 24}, Shape{2000, 10}, Shape{1500, 100}, Shape{1200, 260}}) {
        SCOPED_TRACE(testing::Message() << "tall " << s.m << " x " << s.n);
        const std::vector<Case<T>> cases = {{"gaussian", gaussian<T>(rng, s.m, s.n)}};
        check_each(this->h, s.m, s.n, cases, references(this->cpu, s.m, s.n, cases), false);
    }
}

// ------------------------------------------------------------------------------------------------
// Complex data (c, z): the batched team kernels and the tall CholeskyQR path with Hermitian Gram
// matrices, against zgeqrf + zungqr's convention (R(j,j) real and non-negative) and the same
// ratios with conjugate transposes (|A - QR| / (m |A| eps) < 30, |I - Q^H Q| / (m eps) < 30 for
// MGS2 and < 30 cond for MGS), R's diagonal against the CPU backend's (LAPACK), the CPU backend's
// info on exactly dependent columns, NaN/Inf members all NaN with the others unaffected, the
// `_gpu` forms bitwise equal to the host forms, and row-major complex kept off the GPU.
// *EveryComplexPathOnce* is the sanitizer selection.
// ------------------------------------------------------------------------------------------------

template <typename R>
using Cx = std::complex<R>;

template <typename R>
PublicComplex<R> *pub(Cx<R> *p) {
    return reinterpret_cast<PublicComplex<R> *>(p);
}

template <typename R>
struct CCase {
    std::string name;
    std::vector<Cx<R>> A;
    double cond = 1;         // of the columns (prescribed), 0: unknown / ill-conditioned
    bool dependent = false;  // exactly dependent columns: info = the CPU backend's
    bool nonfinite = false;
};

template <typename R>
std::vector<CCase<R>> complex_cases(Rng &rng, int64_t m, int64_t n) {
    const int64_t k = std::min(m, n);
    std::vector<CCase<R>> out;
    const bool dbl = std::is_same<R, double>::value;
    for (double c : dbl ? std::vector<double>{1, 1e4, 1e10} : std::vector<double>{1, 1e3, 1e5})
        out.push_back({"geometric " + cond_name(c),
                       prescribed_sv_complex<R>(rng, m, n, SigmaMode::Geometric, c), c});
    out.push_back({"log uniform 1e2", prescribed_sv_complex<R>(rng, m, n, SigmaMode::LogUniform, 1e2),
                   1e2});
    out.push_back({"column graded 1e-8", graded_complex<R>(rng, m, n, 1.0, 1e-8), 0});
    for (bool over : {true, false}) {
        auto A = prescribed_sv_complex<R>(rng, m, n, SigmaMode::Geometric, 10);
        // as near_overflow_max / near_underflow_max: overflow times eps, underflow over eps
        const int e = over ? std::numeric_limits<R>::max_exponent - std::numeric_limits<R>::digits
                           : std::numeric_limits<R>::min_exponent + std::numeric_limits<R>::digits;
        for (auto &x : A) x = Cx<R>(std::ldexp(x.real(), e), std::ldexp(x.imag(), e));
        out.push_back({over ? "near overflow" : "near underflow", A, 10});
    }
    out.push_back({"zero", std::vector<Cx<R>>(sz(m * n), Cx<R>(0)), 0, true});
    if (k >= 3) {  // column 3 = i * column 2
        auto A = prescribed_sv_complex<R>(rng, m, n, SigmaMode::LogUniform, 10);
        for (int64_t i = 0; i < m; ++i) A[sz(i + 2 * m)] = Cx<R>(0, 1) * A[sz(i + m)];
        out.push_back({"column 3 = i column 2", A, 0, true});
    }
    if (k >= 2) {
        auto A = prescribed_sv_complex<R>(rng, m, n, SigmaMode::LogUniform, 10);
        for (int64_t i = 0; i < m; ++i) A[sz(i + (k / 2) * m)] = Cx<R>(0);
        out.push_back({"zero column", A, 0, true});
    }
    return out;
}

/// The CPU backend's info and R(j,j) (LAPACK) for a case.
template <typename R>
struct CRef {
    int info = 0;
    std::vector<R> rdiag;
};

template <typename R>
CRef<R> complex_ref(int64_t m, int64_t n, const std::vector<Cx<R>> &A0) {
    Handle cpu;
    EXPECT_EQ(gpusvdSetBackend(cpu, GPUSVD_BACKEND_CPU), GPUSVD_STATUS_SUCCESS);
    const int64_t k = std::min(m, n);
    std::vector<Cx<R>> A = A0, Rm(sz(k * n));
    CRef<R> ref;
    GPUSVD_EXPECT_OK(cpu, Api<PublicComplex<R>>::geqrf_mgs(
                              cpu, GPUSVD_ORTH_MGS2, m, n, pub(A.data()), m, pub(Rm.data()), k,
                              &ref.info));
    for (int64_t j = 0; j < k; ++j) ref.rdiag.push_back(Rm[sz(j + j * k)].real());
    return ref;
}

/// The checks of one result: Q (m x k, ld ldq), R (k x n, ld ldr).
template <typename R>
void check_complex_qr(gpusvdOrth_t orth, int64_t m, int64_t n, const CCase<R> &c,
                      const CRef<R> &ref, const Cx<R> *Q, int64_t ldq, const Cx<R> *Rm,
                      int64_t ldr, int info) {
    const int64_t k = std::min(m, n);
    if (c.nonfinite) {
        EXPECT_EQ(info, GPUSVD_INFO_NONFINITE);
        for (int64_t j = 0; j < k; ++j)
            for (int64_t i = 0; i < m; ++i)
                EXPECT_TRUE(std::isnan(Q[i + j * ldq].real()) && std::isnan(Q[i + j * ldq].imag()));
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < k; ++i)
                EXPECT_TRUE(std::isnan(Rm[i + j * ldr].real()) &&
                            std::isnan(Rm[i + j * ldr].imag()));
        return;
    }
    // The prescribed condition is the whole matrix's; a wide matrix's first m columns (Q's) may
    // be worse: only the residual and MGS2's orthogonality are bounded there.
    const double cond = m >= n ? c.cond : 0;
    if (c.dependent) {
        EXPECT_EQ(info, ref.info) << "the CPU backend's info";
        EXPECT_GT(ref.info, 0);
    } else if (cond > 0 && 1.0 / cond > 100.0 * double(m) * eps<R>()) {
        EXPECT_EQ(info, 0);
    } else {
        EXPECT_GE(info, 0);
    }
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j + 1; i < k; ++i) EXPECT_EQ(Rm[i + j * ldr], Cx<R>(0));
    for (int64_t j = 0; j < k; ++j) {
        EXPECT_EQ(Rm[j + j * ldr].imag(), R(0)) << "R(j,j) real, j = " << j;
        EXPECT_GE(Rm[j + j * ldr].real(), R(0)) << "R(j,j) >= 0, j = " << j;
    }
    EXPECT_LT(qr_residual_h(m, n, c.A.data(), m, Q, ldq, Rm, ldr), kQrThreshold);
    const double orth_ratio = orthogonality_h(m, k, Q, ldq);
    if (orth == GPUSVD_ORTH_MGS2 || c.dependent) {
        if (orth == GPUSVD_ORTH_MGS2 || c.name == "zero") {
            EXPECT_LT(orth_ratio, kQrThreshold) << "|I - Q^H Q| / (m eps)";
        } else if (c.name == "zero column") {
            // One Gram-Schmidt pass over the columns beside the completed one: its loss of
            // orthogonality grows with their condition, which these cases do not prescribe (the
            // wide ones' leading square block is not well conditioned).
            EXPECT_LT(orth_ratio, 4 * kQrThreshold) << "|I - Q^H Q| / (m eps), one pass";
        }
    } else if (cond > 0) {
        EXPECT_LT(orth_ratio, kMgsFactor * std::max(1.0, cond)) << "MGS: < 30 cond";
    }
    // R(j,j) against LAPACK's |R(j,j)| up to the first dependent column
    const double a = norm1_h(m, n, c.A.data(), m);
    const int64_t upto = ref.info > 0 ? ref.info - 1 : k;
    for (int64_t j = 0; j < upto && a > 0; ++j)
        EXPECT_LT(std::abs(double(Rm[j + j * ldr].real()) - double(ref.rdiag[sz(j)])) / a /
                      (double(m) * eps<R>()),
                  kDiagThreshold)
            << "R(" << j << "," << j << ") against the CPU backend's";
}

/// The cases as one batch (padded: lda = m + 1, ldr = k + 2, gaps between matrices), with a NaN
/// member and an Inf member, through `call` (the host or the `_gpu` form); everything checked,
/// the padding untouched. Returns A and R as written.
template <typename R, typename Call>
std::pair<std::vector<Cx<R>>, std::vector<Cx<R>>> run_complex_batch(
    gpusvdHandle_t h, gpusvdOrth_t o, int64_t m, int64_t n, std::vector<CCase<R>> cases,
    Call call, std::vector<int> *info_out = nullptr) {
    Rng rng(7);
    const int64_t k = std::min(m, n);
    CCase<R> bad{"NaN", prescribed_sv_complex<R>(rng, m, n, SigmaMode::Geometric, 10), 0, false,
                 true};
    bad.A[sz(m * n / 2)] = Cx<R>(R(1), nan_v<R>());
    cases.insert(cases.begin() + 1, bad);
    bad.name = "Inf";
    bad.A[sz(m * n / 2)] = Cx<R>(std::numeric_limits<R>::infinity(), R(0));
    cases.push_back(bad);
    const int64_t batch = int64_t(cases.size()), lda = m + 1, ldr = k + 2;
    const int64_t sA = lda * n + 3, sR = ldr * n + 2;
    const Cx<R> pad(R(-7.5), R(3.25));
    std::vector<Cx<R>> A(sz(sA * batch), pad), Rm(sz(sR * batch), pad);
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i)
                A[sz(b * sA + i + j * lda)] = cases[sz(b)].A[sz(i + j * m)];
    std::vector<int> info(sz(batch), kUnset);
    EXPECT_EQ(call(h, o, m, n, pub(A.data()), lda, sA, pub(Rm.data()), ldr, sR, batch,
                   info.data()),
              GPUSVD_STATUS_SUCCESS)
        << gpusvdGetErrorMessage(h);
    for (int64_t b = 0; b < batch; ++b) {
        SCOPED_TRACE(testing::Message() << orth_name(o) << " " << m << " x " << n << " matrix "
                                        << b << " (" << cases[sz(b)].name << ")");
        const CRef<R> ref = cases[sz(b)].nonfinite ? CRef<R>{} : complex_ref(m, n, cases[sz(b)].A);
        check_complex_qr(o, m, n, cases[sz(b)], ref, A.data() + b * sA, lda, Rm.data() + b * sR,
                         ldr, info[sz(b)]);
        for (int64_t j = 0; j < n; ++j) EXPECT_EQ(A[sz(b * sA + m + j * lda)], pad) << "lda pad";
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = k; i < ldr; ++i) EXPECT_EQ(Rm[sz(b * sR + i + j * ldr)], pad);
        EXPECT_EQ(A[sz(b * sA + sA - 1)], pad);
        EXPECT_EQ(Rm[sz(b * sR + sR - 1)], pad);
    }
    if (info_out) *info_out = info;
    return {A, Rm};
}

/// One matrix through the single-matrix host form (lda = m + 2, ldr = k + 1), checked.
template <typename R>
void run_complex_one(gpusvdHandle_t h, gpusvdOrth_t o, int64_t m, int64_t n, const CCase<R> &c) {
    SCOPED_TRACE(testing::Message() << orth_name(o) << " " << c.name << " " << m << " x " << n);
    const int64_t k = std::min(m, n), lda = m + 2, ldr = k + 1;
    const Cx<R> pad(R(-7.5), R(3.25));
    std::vector<Cx<R>> A = with_ld(m, n, c.A.data(), m, lda, pad), Rm(sz(ldr * n), pad);
    int info = kUnset;
    ASSERT_EQ(Api<PublicComplex<R>>::geqrf_mgs(h, o, m, n, pub(A.data()), lda,
                                                        pub(Rm.data()), ldr, &info),
              GPUSVD_STATUS_SUCCESS)
        << gpusvdGetErrorMessage(h);
    const CRef<R> ref = c.nonfinite ? CRef<R>{} : complex_ref(m, n, c.A);
    check_complex_qr(o, m, n, c, ref, A.data(), lda, Rm.data(), ldr, info);
    EXPECT_TRUE(padding_intact(m, n, A.data(), lda, pad));
    EXPECT_TRUE(padding_intact(k, n, Rm.data(), ldr, pad));
}

template <typename R>
class GpuGeqrfComplexTest : public DeviceTest<R> {};
TYPED_TEST_SUITE(GpuGeqrfComplexTest, Precisions, ComplexPrecisionName);

TYPED_TEST(GpuGeqrfComplexTest, BatchedTeamKernels) {
    using R = TypeParam;
    Rng rng(281);
    // warp (n <= 32), block in shared memory, global memory (300 x 200 in a batch)
    for (const Shape &s : {Shape{1, 1}, Shape{16, 16}, Shape{32, 32}, Shape{31, 17}, Shape{17, 31},
                           Shape{64, 64}, Shape{100, 40}, Shape{300, 200}, Shape{200, 300}})
        for (gpusvdOrth_t o : kOrths)
            run_complex_batch<R>(this->h, o, s.m, s.n, complex_cases<R>(rng, s.m, s.n),
                                 Api<PublicComplex<R>>::geqrf_mgs_batched);
}

TYPED_TEST(GpuGeqrfComplexTest, SmallOneMatrix) {
    using R = TypeParam;
    Rng rng(282);
    for (const Shape &s : {Shape{1, 1}, Shape{5, 3}, Shape{3, 5}, Shape{32, 32}, Shape{100, 100}})
        for (const CCase<R> &c : complex_cases<R>(rng, s.m, s.n))
            for (gpusvdOrth_t o : kOrths) run_complex_one(this->h, o, s.m, s.n, c);
}

TYPED_TEST(GpuGeqrfComplexTest, TallOneMatrix) {
    using R = TypeParam;
    Rng rng(283);
    // the row solve (16, 32 columns; 64 for single complex), two column blocks (64 columns of
    // double complex, 100 of single), cuBLAS's TRSM beyond, two panels, wide (R past column m
    // from Q^H A)
    const std::vector<Shape> shapes =
        full_or_quick(1, 0) ? std::vector<Shape>{{5000, 64}, {20000, 32}, {3000, 100}, {3000, 256},
                                                 {2000, 300}, {70000, 8}, {200, 400}}
                            : std::vector<Shape>{{3000, 32}, {1200, 260}};
    for (const Shape &s : shapes) {
        std::vector<CCase<R>> cases = complex_cases<R>(rng, s.m, s.n);
        CCase<R> bad{"NaN", cases[0].A, 0, false, true};
        bad.A[sz(s.m * s.n - 1)] = Cx<R>(nan_v<R>(), R(0));
        cases.push_back(bad);
        // The host-side checks cost O(m n^2) each: the widest shapes take an ill-conditioned, a
        // rank-deficient and a NaN matrix only.
        const bool wide_panels = double(s.m) * double(s.n) * double(s.n) > 5e7;
        for (size_t i = 0; i < cases.size(); ++i) {
            const CCase<R> &c = cases[i];
            if (wide_panels && i != 2 && c.name != "zero column" && !c.nonfinite) continue;
            for (gpusvdOrth_t o : kOrths) run_complex_one(this->h, o, s.m, s.n, c);
        }
    }
}

TYPED_TEST(GpuGeqrfComplexTest, TallBatched) {
    using R = TypeParam;
    Rng rng(284);
    for (const Shape &s : {Shape{2000, 40}, Shape{600, 300}}) {
        std::vector<CCase<R>> cases;
        for (int b = 0; b < 3; ++b)
            cases.push_back({"log uniform 1e3",
                             prescribed_sv_complex<R>(rng, s.m, s.n, SigmaMode::LogUniform, 1e3),
                             1e3});
        for (gpusvdOrth_t o : kOrths)
            run_complex_batch<R>(this->h, o, s.m, s.n, cases,
                                 Api<PublicComplex<R>>::geqrf_mgs_batched);
    }
}

template <typename R>
class GpuGeqrfComplexDeviceFormTest : public DeviceStreamTest<R> {};
TYPED_TEST_SUITE(GpuGeqrfComplexDeviceFormTest, Precisions, ComplexPrecisionName);

// The `_gpu` forms run the host forms' kernels: the same bits.
TYPED_TEST(GpuGeqrfComplexDeviceFormTest, DeviceFormsMatchHostForms) {
    using R = TypeParam;
    using P = PublicComplex<R>;
    Rng rng(285);
    const CudaRt &rt = *this->rt;
    const UserStream &stream = *this->stream;
    auto on_device = [&](gpusvdHandle_t h, gpusvdOrth_t o, int64_t m, int64_t n, P *A, int64_t lda,
                         int64_t sA, P *Rm, int64_t ldr, int64_t sR, int64_t batch, int *info) {
        const auto form = rt.emulated ? Api<P>::geqrf_mgs_batched : Api<P>::geqrf_mgs_batched_gpu;
        return run_on_device(rt, stream,
                             {{A, sizeof(P) * sz(sA * batch)},
                              {Rm, sizeof(P) * sz(sR * batch)},
                              {info, sizeof(int) * sz(batch)}},
                             [&](void *const *d) {
                                 return form(h, o, m, n, static_cast<P *>(d[0]), lda, sA,
                                             static_cast<P *>(d[1]), ldr, sR, batch,
                                             static_cast<int *>(d[2]));
                             });
    };
    for (const Shape &s : {Shape{16, 16}, Shape{64, 64}, Shape{300, 200}})
        for (gpusvdOrth_t o : kOrths) {
            const auto cases = complex_cases<R>(rng, s.m, s.n);
            std::vector<int> ih, id;
            const auto host = run_complex_batch<R>(this->h, o, s.m, s.n, cases,
                                                   Api<P>::geqrf_mgs_batched, &ih);
            const auto dev = run_complex_batch<R>(this->h, o, s.m, s.n, cases, on_device, &id);
            EXPECT_EQ(ih, id);
            EXPECT_TRUE(same_bits(host.first, dev.first)) << "Q: _gpu form vs host form";
            EXPECT_TRUE(same_bits(host.second, dev.second)) << "R: _gpu form vs host form";
        }
    // one tall matrix through gpusvd_Xgeqrf_mgs_gpu
    const int64_t m = full_or_quick(20000, 3000), n = 48, k = n;
    const auto A0 = prescribed_sv_complex<R>(rng, m, n, SigmaMode::Geometric, 1e3);
    std::vector<Cx<R>> Ah = A0, Ad = A0, Rh(sz(k * n)), Rd(sz(k * n));
    int ih = kUnset, id = kUnset;
    ASSERT_EQ(Api<P>::geqrf_mgs(this->h, GPUSVD_ORTH_MGS2, m, n, pub(Ah.data()), m, pub(Rh.data()),
                                k, &ih),
              GPUSVD_STATUS_SUCCESS);
    const auto form = rt.emulated ? Api<P>::geqrf_mgs : Api<P>::geqrf_mgs_gpu;
    ASSERT_EQ(run_on_device(rt, stream,
                            {{Ad.data(), sizeof(P) * sz(m * n)},
                             {Rd.data(), sizeof(P) * sz(k * n)},
                             {&id, sizeof(int)}},
                            [&](void *const *d) {
                                return form(this->h, GPUSVD_ORTH_MGS2, m, n,
                                            static_cast<P *>(d[0]), m, static_cast<P *>(d[1]), k,
                                            static_cast<int *>(d[2]));
                            }),
              GPUSVD_STATUS_SUCCESS)
        << gpusvdGetErrorMessage(this->h);
    EXPECT_EQ(ih, 0);
    EXPECT_EQ(id, 0);
    EXPECT_TRUE(same_bits(Ah, Ad));
    EXPECT_TRUE(same_bits(Rh, Rd));
    EXPECT_LT(qr_residual_h(m, n, A0.data(), m, Ad.data(), m, Rd.data(), k), kQrThreshold);
    EXPECT_LT(orthogonality_h(m, k, Ad.data(), m), kQrThreshold);
}

// Row-major complex data has no GPU path: the `_gpu` form and backend GPU refuse it, changing
// nothing; AUTO runs it on the CPU; _bufferSize sizes no device workspace for it.
TYPED_TEST(GpuGeqrfComplexTest, RowMajorStaysOffTheGpu) {
    using R = TypeParam;
    using P = PublicComplex<R>;
    if (gpu_as_cpu()) GTEST_SKIP() << "refusals of the GPU backend: device machine only";
    Rng rng(286);
    const int64_t m = 400, n = 30;  // large enough for AUTO to pick the GPU were it allowed
    const auto A0 = prescribed_sv_complex<R>(rng, m, n, SigmaMode::Geometric, 10);
    std::vector<Cx<R>> Ar(sz(m * n));
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) Ar[sz(i * n + j)] = A0[sz(i + j * m)];
    const auto Ar0 = Ar;
    std::vector<Cx<R>> Rm(sz(n * n), Cx<R>(5)), R0 = Rm;
    int info = kUnset;
    ASSERT_EQ(gpusvdSetMatrixLayout(this->h, GPUSVD_LAYOUT_ROW_MAJOR), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(Api<P>::geqrf_mgs(this->h, GPUSVD_ORTH_MGS2, m, n, pub(Ar.data()), n,
                                pub(Rm.data()), n, &info),
              GPUSVD_STATUS_NOT_SUPPORTED);
    const std::string msg = gpusvdGetErrorMessage(this->h);
    EXPECT_NE(msg.find("complex data in row-major layout"), std::string::npos) << msg;
    EXPECT_EQ(Ar, Ar0);
    EXPECT_EQ(Rm, R0);
    EXPECT_EQ(info, kUnset);
    // _gpu form (host pointers never reached: refused first)
    EXPECT_EQ(Api<P>::geqrf_mgs_gpu(this->h, GPUSVD_ORTH_MGS2, m, n, pub(Ar.data()), n,
                                    pub(Rm.data()), n, &info),
              GPUSVD_STATUS_NOT_SUPPORTED);
    size_t dev = 1, host = 0;
    ASSERT_EQ(Api<P>::geqrf_mgs_bufferSize(this->h, GPUSVD_ORTH_MGS2, m, n, &dev, &host),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(dev, 0u);
    ASSERT_EQ(gpusvdSetBackend(this->h, GPUSVD_BACKEND_AUTO), GPUSVD_STATUS_SUCCESS);
    ASSERT_EQ(Api<P>::geqrf_mgs(this->h, GPUSVD_ORTH_MGS2, m, n, pub(Ar.data()), n,
                                pub(Rm.data()), n, &info),
              GPUSVD_STATUS_SUCCESS)
        << gpusvdGetErrorMessage(this->h);
    EXPECT_EQ(info, 0);
    std::vector<Cx<R>> Q(sz(m * n)), Rc(sz(n * n));
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) Q[sz(i + j * m)] = Ar[sz(i * n + j)];
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) Rc[sz(i + j * n)] = Rm[sz(i * n + j)];
    EXPECT_LT(qr_residual_h(m, n, A0.data(), m, Q.data(), m, Rc.data(), n), kQrThreshold);
    // column-major complex: a device workspace
    ASSERT_EQ(gpusvdSetMatrixLayout(this->h, GPUSVD_LAYOUT_COL_MAJOR), GPUSVD_STATUS_SUCCESS);
    ASSERT_EQ(Api<P>::geqrf_mgs_bufferSize(this->h, GPUSVD_ORTH_MGS2, 100000, 64, &dev, &host),
              GPUSVD_STATUS_SUCCESS);
    EXPECT_GT(dev, 0u);
}

// One small case per complex kernel path (the sanitizer selection): batched warp, block, global
// memory; the tall path's row solve, TRSM and two panels.
TYPED_TEST(GpuGeqrfComplexTest, EveryComplexPathOnce) {
    using R = TypeParam;
    Rng rng(287);
    for (const Shape &s : {Shape{16, 16}, Shape{64, 64}, Shape{300, 200}}) {
        std::vector<CCase<R>> cases;
        for (int b = 0; b < 2; ++b)
            cases.push_back(
                {"log uniform", prescribed_sv_complex<R>(rng, s.m, s.n, SigmaMode::LogUniform, 10),
                 10});
        for (gpusvdOrth_t o : kOrths)
            run_complex_batch<R>(this->h, o, s.m, s.n, cases,
                                 Api<PublicComplex<R>>::geqrf_mgs_batched);
    }
    for (const Shape &s : {Shape{4000, 64}, Shape{3000, 24}, Shape{1500, 100}, Shape{1200, 260}}) {
        const CCase<R> c{"log uniform",
                         prescribed_sv_complex<R>(rng, s.m, s.n, SigmaMode::LogUniform, 100), 100};
        for (gpusvdOrth_t o : kOrths) run_complex_one(this->h, o, s.m, s.n, c);
    }
}

}  // namespace
