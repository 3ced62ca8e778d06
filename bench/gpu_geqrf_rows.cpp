// GPU tables of the Gram-Schmidt QR (with their benchmark goals): gpusvd's geqrf_mgs `_gpu` forms
// (MGS2, explicit Q and R, device-resident data) vs the vendor's route to the same outputs vs
// LAPACK on the host CPUs, same data, same run.
//
//   geqrf_mgs          one tall m x n matrix: cusolverDnDgeqrf + R copied out + cusolverDnDorgqr.
//                      Goal >= 10x at 1e5 x 64 and 1e6 x 64; 1e5 x 256 and 4096 x 4096 are
//                      report rows (no goal). Host: dgeqrf + R copy + dorgqr, multithreaded.
//                      Double complex at 1e6 x 64: zgeqrf_mgs vs cusolverDnZgeqrf + R copy +
//                      cusolverDnZungqr, goal >= 10x; host zgeqrf + R copy + zungqr.
//   geqrf_mgs_batched  many small square matrices: cublas?geqrfBatched on A, with Q formed
//                      explicitly as Q = A0 R^-1 by cublas?trsmBatched on a copy of A made first
//                      (the copy is timed: the vendor route consumes A twice; R is left in the
//                      upper triangle of the factored A, not copied out). Goal >= 3x at
//                      100k x 32x32 (double); 100k x 16x16 and the float 32x32 are report rows.
//                      Host: a thread-pool loop of ?geqrf + R copy + ?orgqr over a sample,
//                      extrapolated and tagged.
//
// Every gpusvd result is checked (the check column; a failed check fails the row): status, info
// all zero, |A - QR| / (m |A| eps) < 30 and |I - Q^H Q| / (m eps) < 30 (on the device with cuBLAS
// for one matrix, on the host for a sample of 64 matrices of a batch), R upper triangular with
// R(j,j) >= 0 (complex: real and non-negative), and |R(j,j)| against LAPACK ?geqrf's on the same
// matrices (relative to the largest). The vendor's |R(j,j)| are compared too (shown when off,
// not a failure).
//
// Floor: bytes = A read once, Q and R written once; flops = 2mn^2 per Gram-Schmidt pass, two
// passes for MGS2, 4x for complex (flops.hpp).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "bench.hpp"
#include "cuda_util.hpp"
#include "flops.hpp"
#include "lapack_ref.hpp"
#include "ratios.hpp"

namespace bench {

namespace {

constexpr double kQrRatio = 30.0;  // DESIGN.md: QR ratios < 30

/* ---- cuBLAS in both precisions ------------------------------------------------------------- */

inline void gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                 double alpha, const double *A, int lda, const double *B, int ldb, double beta,
                 double *C, int ldc) {
    CB(cublasDgemm(h, ta, tb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc));
}
inline void gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                 float alpha, const float *A, int lda, const float *B, int ldb, float beta,
                 float *C, int ldc) {
    CB(cublasSgemm(h, ta, tb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc));
}
inline double asum(cublasHandle_t h, int n, const double *x) {
    double r = 0;
    CB(cublasDasum(h, n, x, 1, &r));
    return r;
}
inline double asum(cublasHandle_t h, int n, const float *x) {
    float r = 0;
    CB(cublasSasum(h, n, x, 1, &r));
    return double(r);
}
// Complex: the op of the Gram matrix is CUBLAS_OP_C (Q^H Q); asum is sum |re| + |im|.
inline void gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                 std::complex<double> alpha, const std::complex<double> *A, int lda,
                 const std::complex<double> *B, int ldb, std::complex<double> beta,
                 std::complex<double> *C, int ldc) {
    CB(cublasZgemm(h, ta, tb, m, n, k, cu(&alpha), cu(A), lda, cu(B), ldb, cu(&beta), cu(C), ldc));
}
inline double asum(cublasHandle_t h, int n, const std::complex<double> *x) {
    double r = 0;
    CB(cublasDzasum(h, n, cu(x), 1, &r));
    return r;
}
inline void geqrf_batched(cublasHandle_t h, int m, int n, double *const A[], int lda,
                          double *const tau[], int *info, int batch) {
    CB(cublasDgeqrfBatched(h, m, n, A, lda, tau, info, batch));
}
inline void geqrf_batched(cublasHandle_t h, int m, int n, float *const A[], int lda,
                          float *const tau[], int *info, int batch) {
    CB(cublasSgeqrfBatched(h, m, n, A, lda, tau, info, batch));
}
/// B_i = B_i R_i^-1, R_i the upper triangle of A_i (right side, non-unit).
inline void trsm_right_upper_batched(cublasHandle_t h, int m, int n, const double *const A[],
                                     int lda, double *const B[], int ldb, int batch) {
    const double one = 1;
    CB(cublasDtrsmBatched(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                          CUBLAS_DIAG_NON_UNIT, m, n, &one, A, lda, B, ldb, batch));
}
inline void trsm_right_upper_batched(cublasHandle_t h, int m, int n, const float *const A[],
                                     int lda, float *const B[], int ldb, int batch) {
    const float one = 1;
    CB(cublasStrsmBatched(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                          CUBLAS_DIAG_NON_UNIT, m, n, &one, A, lda, B, ldb, batch));
}

template <class T>
double eps_of() {
    return double(std::numeric_limits<real_t<T>>::epsilon());
}

/// x real and >= 0 (complex: imaginary part exactly 0, as LAPACK ?geqrfp gives R(j,j)).
template <class T>
bool nonneg_real(T x) {
    if constexpr (is_complex_v<T>)
        return x.real() >= 0 && x.imag() == 0;
    else
        return x >= T(0);
}

/// |x| in double.
template <class T>
double magnitude(T x) {
    if constexpr (is_complex_v<T>)
        return std::abs(std::complex<double>(x));
    else
        return std::fabs(double(x));
}

/// R (k x n, leading dimension ldr) upper triangular with R(j,j) >= 0? Notes what is not.
template <class T>
void check_r_shape(Check &ck, int64_t k, int64_t n, const T *R, int64_t ldr) {
    int64_t below = 0, negative = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j + 1; i < k; ++i) below += R[i + j * ldr] != T(0);
    for (int64_t j = 0; j < k; ++j) negative += !nonneg_real(R[j + j * ldr]);
    if (below || negative) {
        ck.bad = true;
        ck.note += " R: " + std::to_string(below) + " nonzero below the diagonal, " +
                   std::to_string(negative) +
                   (is_complex_v<T> ? " R(j,j) not real >= 0" : " R(j,j) < 0");
    }
}

/// |R(j,j)|, j < k, of an R with leading dimension ldr, in double.
template <class T>
std::vector<double> abs_diag(int64_t k, const T *R, int64_t ldr) {
    std::vector<double> d(sz(k));
    for (int64_t j = 0; j < k; ++j) d[sz(j)] = magnitude(R[j + j * ldr]);
    return d;
}

/// The QR ratios of one m x n (m >= n) matrix on the device with cuBLAS, in precision T:
/// |A0 - Q R|_1 / (m |A0|_1 eps) and |I - Q^H Q|_1 / (m eps) (R: k x n, leading dimension n).
/// Complex: the column sums of the residual and of A0 are cuBLAS's sum |re| + |im| (within a
/// factor sqrt(2) of the moduli's), the Gram matrix's norm the moduli's.
template <class T>
void qr_ratios_device(Gpu &c, Check &ck, int64_t m, int64_t n, const T *A0, const T *Q,
                      const T *R) {
    const size_t mn = sz(m * n), nn = sz(n * n);
    const int mi = int(m), ni = int(n);
    Dev<T> E(mn), G(nn);
    restore(c, E.get(), A0, mn);
    gemm(c.blas, CUBLAS_OP_N, CUBLAS_OP_N, mi, ni, ni, T(-1), Q, mi, R, ni, T(1), E.get(), mi);
    std::vector<T> I(nn, T(0));
    for (int64_t j = 0; j < n; ++j) I[sz(j + j * n)] = T(1);
    G.upload(I.data(), nn);
    gemm(c.blas, is_complex_v<T> ? CUBLAS_OP_C : CUBLAS_OP_T, CUBLAS_OP_N, ni, ni, mi, T(-1), Q, mi,
         Q, mi, T(1), G.get(), ni);
    double ne = 0, na = 0;
    for (int64_t j = 0; j < n; ++j) {
        const double e = asum(c.blas, mi, E.get() + j * m), a = asum(c.blas, mi, A0 + j * m);
        ne = (e != e || ne != ne) ? NAN : std::max(ne, e);
        na = std::max(na, a);
    }
    const auto g = G.download(nn);
    const double eps = eps_of<T>();
    ck.bound("resid", ne / (double(m) * na * eps), kQrRatio);
    double gn = 0;
    if constexpr (is_complex_v<T>)
        gn = gpusvd_util::norm1_h(n, n, g.data(), n);
    else
        gn = double(gpusvd_util::norm1(n, n, g.data(), n));
    ck.bound("orth", gn / (double(m) * eps), kQrRatio);
}

/* ---- one tall matrix ----------------------------------------------------------------------- */

/// cuSOLVER's Householder QR and explicit Q (?orgqr, ?ungqr for complex); pointers through cu().
template <class T>
struct QrSol;
template <>
struct QrSol<double> {
    static constexpr const char *x = "D", *form_q = "orgqr";
    static constexpr auto geqrf_bufferSize = &cusolverDnDgeqrf_bufferSize;
    static constexpr auto geqrf = &cusolverDnDgeqrf;
    static constexpr auto orgqr_bufferSize = &cusolverDnDorgqr_bufferSize;
    static constexpr auto orgqr = &cusolverDnDorgqr;
};
template <>
struct QrSol<std::complex<double>> {
    static constexpr const char *x = "Z", *form_q = "ungqr";
    static constexpr auto geqrf_bufferSize = &cusolverDnZgeqrf_bufferSize;
    static constexpr auto geqrf = &cusolverDnZgeqrf;
    static constexpr auto orgqr_bufferSize = &cusolverDnZungqr_bufferSize;
    static constexpr auto orgqr = &cusolverDnZungqr;
};

template <class T>
std::string tall_name() {
    const std::string x = QrSol<T>::x;
    return std::string(px<T>()) + "geqrf_mgs_gpu(MGS2) vs cusolverDn" + x + "geqrf+R copy+" + x +
           QrSol<T>::form_q;
}

template <class T>
Row tall_row(Gpu &c, int64_t m, int64_t n, double goal) {
    using S = QrSol<T>;
    Row r;
    r.table = "gpu:geqrf_mgs";
    r.name = tall_name<T>();
    r.size = dims(m, n);
    const size_t mn = sz(m * n), nn = sz(n * n);
    const auto A0 = random_vector<T>(mn, 7200 + m + n);
    Dev<T> dA0(mn), dA(mn), tau(sz(n)), R(nn), Ag(mn), Rg(nn);
    Dev<int> info(1), infog(1);
    dA0.upload(A0.data(), mn);
    const int mi = int(m), ni = int(n);
    int l1 = 0, l2 = 0;
    CS(S::geqrf_bufferSize(c.sol, mi, ni, cu(dA.get()), mi, &l1));
    CS(S::orgqr_bufferSize(c.sol, mi, ni, ni, cu(dA.get()), mi, cu(tau.get()), &l2));
    const int lwork = std::max({l1, l2, 1});
    Dev<T> work(sz(lwork));
    std::vector<double> diag_c;
    r.b = time_gpu(
        c, gpu_budget(c), [&] { restore(c, dA.get(), dA0.get(), mn); },
        [&] {
            CS(S::geqrf(c.sol, mi, ni, cu(dA.get()), mi, cu(tau.get()), cu(work.get()), lwork,
                        info.get()));
            // R (upper triangle of the factored A) out before orgqr overwrites it.
            CU(cudaMemcpy2DAsync(R.get(), sz(n) * sizeof(T), dA.get(), sz(m) * sizeof(T),
                                 sz(n) * sizeof(T), sz(n), cudaMemcpyDeviceToDevice, c.s));
            CS(S::orgqr(c.sol, mi, ni, ni, cu(dA.get()), mi, cu(tau.get()), cu(work.get()), lwork,
                        info.get()));
            return true;
        },
        nullptr);
    Check ck;
    ck.info("cuSOLVER", info, 1, false);
    if (r.b.ok()) {
        const auto h = R.download(nn);
        diag_c = abs_diag(n, h.data(), n);
    }

    r.a = time_gpusvd(
        c, [&] { restore(c, Ag.get(), dA0.get(), mn); },
        [&] {
            return ApiOf<T>::geqrf_mgs_gpu(c.g, GPUSVD_ORTH_MGS2, m, n, api(Ag.get()), m,
                                           api(Rg.get()), n, infog.get());
        },
        r);
    std::vector<double> diag_g;
    if (r.a.ok()) {
        ck.info("gpusvd", infog, 1, true);
        const auto h = Rg.download(nn);
        check_r_shape(ck, n, n, h.data(), n);
        diag_g = abs_diag(n, h.data(), n);
        qr_ratios_device(c, ck, m, n, dA0.get(), Ag.get(), Rg.get());
    }

    // Host: ?geqrf + R copy + ?orgqr (?ungqr), multithreaded OpenBLAS; its |R(j,j)| is the
    // check.
    std::vector<T> Ah(A0), th(sz(n)), Rh(nn);
    T q1 = 0, q2 = 0, d = 0;
    ref::geqrf(mi, ni, &d, mi, &d, &q1, -1);
    ref::orgqr(mi, ni, ni, &d, mi, &d, &q2, -1);
    const lapack_int lw = std::max(ref::lwork_of(q1), ref::lwork_of(q2));
    std::vector<T> wk(sz(lw));
    auto host_run = [&](bool with_q) {
        lapack_int e = ref::geqrf(mi, ni, Ah.data(), mi, th.data(), wk.data(), lw);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) Rh[sz(i + j * n)] = i <= j ? Ah[sz(i + j * m)] : T(0);
        if (!e && with_q) e = ref::orgqr(mi, ni, ni, Ah.data(), mi, th.data(), wk.data(), lw);
        return e == 0;
    };
    r.c = host_column(
        c, 1, 1, [&] { std::copy(A0.begin(), A0.end(), Ah.begin()); },
        [&] { return host_run(true); });
    std::copy(A0.begin(), A0.end(), Ah.begin());
    if (host_run(false)) {
        const std::vector<double> dh = abs_diag(n, Rh.data(), n);
        ck.diff(diag_c.empty() ? NAN : max_rel_diff(sz(n), diag_c.data(), dh.data()), "cuSOLVER");
        if (!diag_g.empty()) ck.diff(max_rel_diff(sz(n), diag_g.data(), dh.data()));
    } else {
        ck.diff(NAN, "LAPACK reference");
    }
    r.flops = flop_factor<T>() * mgs_flops(double(m), double(n), 2);
    r.bytes = double(2 * mn + nn) * sizeof(T);
    if (goal > 0) r.goals = {{Goal::CusolverRatio, goal}};
    ck.finish(r, 1e-10);
    return r;
}

/* ---- many small matrices ------------------------------------------------------------------- */

struct BatchCase {
    int64_t batch, n;     // batch matrices of n x n
    int64_t host_sample;  // matrices of the host loop (extrapolated)
    double goal;          // cuBLAS/gpusvd >= goal; 0: none
};

template <class T>
std::string batched_name() {
    const char *X = sizeof(T) == 4 ? "S" : "D";
    return std::string(px<T>()) + "geqrf_mgs_batched_gpu(MGS2) vs cublas" + X +
           "geqrfBatched+copy A+" + X + "trsmBatched (Q = A R^-1)";
}

/// LAPACK ?geqrf + R copy + ?orgqr over `count` n x n matrices (the thread pool over matrices):
/// Q over A, R (n x n each). False if any call fails.
template <class T>
bool host_qr(int64_t count, int64_t n, T *A, T *R) {
    const lapack_int ni = lapack_int(n);
    T q1 = 0, q2 = 0, d = 0;
    ref::geqrf(ni, ni, &d, ni, &d, &q1, -1);
    ref::orgqr(ni, ni, ni, &d, ni, &d, &q2, -1);
    const lapack_int lw = std::max(ref::lwork_of(q1), ref::lwork_of(q2));
    const int threads = std::max(1, gpusvd::cpu::hardware_threads());
    std::vector<T> work(sz(threads) * sz(lw + n));
    std::vector<int> bad(sz(threads), 0);
    ref::pool_batch(count, [&](int64_t i, int t) {
        T *w = work.data() + sz(t) * sz(lw + n), *tau = w + lw;
        T *a = A + i * n * n, *rr = R + i * n * n;
        lapack_int e = ref::geqrf(ni, ni, a, ni, tau, w, lw);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t p = 0; p < n; ++p) rr[p + j * n] = p <= j ? a[p + j * n] : T(0);
        if (!e) e = ref::orgqr(ni, ni, ni, a, ni, tau, w, lw);
        if (e) bad[sz(t)] = 1;
    });
    return std::none_of(bad.begin(), bad.end(), [](int b) { return b != 0; });
}

template <class T>
Row batched_row(Gpu &c, const BatchCase &bc) {
    const int64_t batch = bc.batch, n = bc.n, nn = n * n;
    Row r;
    r.table = "gpu:geqrf_mgs_batched";
    r.name = batched_name<T>();
    r.size = bdims(batch, n, n);
    const auto idx = spread(batch, 64);  // the check sample
    const int64_t hs = std::min(batch, bc.host_sample);
    const int64_t pool = std::min(batch, std::max<int64_t>(hs, int64_t(idx.size())));
    const auto P = random_vector<T>(sz(pool * nn), 7300 + n + batch);
    const size_t total = sz(batch * nn);
    Dev<T> dP(P.size()), dA(total), dR(total);
    Dev<int> dinfo(sz(batch));
    dP.upload(P.data(), P.size());
    auto prep = [&] { tile(c, dA.get(), dP.get(), pool, sz(nn), batch); };
    const std::vector<T> sample = gather(P, pool, sz(nn), idx);

    // Reference: |R(j,j)| of the sample by LAPACK dgeqrf (in double for both precisions).
    std::vector<std::vector<double>> want;
    {
        std::vector<double> Ad(sample.begin(), sample.end()), Rd(Ad.size());
        if (!host_qr(int64_t(idx.size()), n, Ad.data(), Rd.data()))
            std::fill(Rd.begin(), Rd.end(), NAN);
        for (size_t s = 0; s < idx.size(); ++s) want.push_back(abs_diag(n, Rd.data() + s * nn, n));
    }
    Check ck;
    auto compare_diag = [&](const std::vector<T> &R, const char *who) {
        double worst = 0;
        for (size_t s = 0; s < idx.size(); ++s) {
            const auto d = abs_diag(n, R.data() + s * nn, n);
            const double x = max_rel_diff(sz(n), d.data(), want[s].data());
            worst = (x != x || worst != worst) ? NAN : std::max(worst, x);
        }
        ck.diff(worst, who);
    };

    {  // cuBLAS: geqrfBatched on A, Q = copy of A times R^-1 by trsmBatched
        Dev<T> dQ(total), tau(sz(batch * n));
        std::vector<T *> a(sz(batch)), q(sz(batch)), t(sz(batch));
        for (int64_t i = 0; i < batch; ++i) {
            a[sz(i)] = dA.get() + i * nn;
            q[sz(i)] = dQ.get() + i * nn;
            t[sz(i)] = tau.get() + i * n;
        }
        Dev<T *> pa(sz(batch)), pq(sz(batch)), pt(sz(batch));
        pa.upload(a.data(), a.size());
        pq.upload(q.data(), q.size());
        pt.upload(t.data(), t.size());
        int hinfo = 0;
        r.b = time_gpu(
            c, gpu_budget(c), prep,
            [&] {
                restore(c, dQ.get(), dA.get(), total);  // A is consumed twice: copy it first
                geqrf_batched(c.blas, int(n), int(n), pa.get(), int(n), pt.get(), &hinfo,
                              int(batch));
                trsm_right_upper_batched(c.blas, int(n), int(n), pa.get(), int(n), pq.get(),
                                         int(n), int(batch));
                return true;
            },
            nullptr);
        if (hinfo != 0) {
            ck.bad = true;
            ck.note += " cuBLAS geqrfBatched info " + std::to_string(hinfo);
        }
        compare_diag(download_at(dA, sz(nn), idx), "cuBLAS");
    }

    r.a = time_gpusvd(
        c, prep,
        [&] {
            return Api<T>::geqrf_mgs_batched_gpu(c.g, GPUSVD_ORTH_MGS2, n, n, dA.get(), n, nn,
                                                 dR.get(), n, nn, batch, dinfo.get());
        },
        r);
    if (r.a.ok()) {
        ck.info("gpusvd", dinfo, sz(batch), true);
        const auto Q = download_at(dA, sz(nn), idx), R = download_at(dR, sz(nn), idx);
        double resid = 0, orth = 0;
        for (size_t s = 0; s < idx.size(); ++s) {
            const T *a0 = sample.data() + s * nn, *qs = Q.data() + s * nn, *rs = R.data() + s * nn;
            const double x = gpusvd_util::qr_residual(n, n, a0, n, qs, n, rs, n);
            const double y = gpusvd_util::orthogonality(n, n, qs, n);
            resid = (x != x || resid != resid) ? NAN : std::max(resid, x);
            orth = (y != y || orth != orth) ? NAN : std::max(orth, y);
            check_r_shape(ck, n, n, rs, n);
        }
        ck.bound("resid", resid, kQrRatio);
        ck.bound("orth", orth, kQrRatio);
        compare_diag(R, nullptr);
    }

    std::vector<T> Ah(sz(hs * nn)), Rh(sz(hs * nn));
    r.c = host_column(
        c, hs, batch,
        [&] { std::copy(P.begin(), P.begin() + std::ptrdiff_t(Ah.size()), Ah.begin()); },
        [&] { return host_qr(hs, n, Ah.data(), Rh.data()); });
    r.flops = double(batch) * mgs_flops(double(n), double(n), 2);
    r.bytes = double(batch) * double(3 * nn) * sizeof(T);
    if (bc.goal > 0) r.goals = {{Goal::CusolverRatio, bc.goal}};
    ck.finish(r, value_tol<T>(n));
    return r;
}

}  // namespace

void geqrf_tables(Gpu &c) {
    const bool q = c.o.quick;
    std::vector<Row> rows;
    struct Tall {
        int64_t m, n;
        double goal;
    };
    for (const Tall &t : q ? std::vector<Tall>{{20000, 64, 0.0}}
                           : std::vector<Tall>{{100000, 64, 10.0},
                                               {1000000, 64, 10.0},
                                               {100000, 256, 0.0},
                                               {4096, 4096, 0.0}})
        guarded(c, rows, "gpu:geqrf_mgs", tall_name<double>(), dims(t.m, t.n),
                [&] { return tall_row<double>(c, t.m, t.n, t.goal); });
    {  // double complex
        using Z = std::complex<double>;
        const Tall t = q ? Tall{20000, 64, 0.0} : Tall{1000000, 64, 10.0};
        guarded(c, rows, "gpu:geqrf_mgs", tall_name<Z>(), dims(t.m, t.n),
                [&] { return tall_row<Z>(c, t.m, t.n, t.goal); });
    }
    c.rep.gpu_table(
        "geqrf_mgs, one matrix, explicit Q and R (gpusvd: MGS2; cuSOLVER: ?geqrf + R copy + "
        "Dorgqr / Zungqr; host: LAPACK the same)",
        rows, c.dev);
    rows.clear();

    // {batch, n, host sample, goal}; goals are set for these sizes only: none in quick mode.
    const std::vector<BatchCase> dcases =
        q ? std::vector<BatchCase>{{2000, 32, 2000, 0.0}}
          : std::vector<BatchCase>{{100000, 32, 10000, 3.0}, {100000, 16, 10000, 0.0}};
    for (const BatchCase &bc : dcases)
        guarded(c, rows, "gpu:geqrf_mgs_batched", batched_name<double>(),
                bdims(bc.batch, bc.n, bc.n), [&] { return batched_row<double>(c, bc); });
    if (!q) {
        const BatchCase bc{100000, 32, 10000, 0.0};
        guarded(c, rows, "gpu:geqrf_mgs_batched", batched_name<float>(),
                bdims(bc.batch, bc.n, bc.n), [&] { return batched_row<float>(c, bc); });
    }
    c.rep.gpu_table(
        "geqrf_mgs_batched, explicit Q and R (gpusvd: MGS2; \"cuSOLVER\" column: cuBLAS "
        "?geqrfBatched + copy of A + ?trsmBatched, Q = A R^-1; host: thread-pool loop of "
        "LAPACK ?geqrf + R copy + ?orgqr over a sample, extrapolated)",
        rows, c.dev);
}

}  // namespace bench
