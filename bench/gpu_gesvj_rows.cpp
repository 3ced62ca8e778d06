// GPU tables of the one-sided Jacobi SVD (with their benchmark goals): gpusvd's gesvj `_gpu`
// forms vs cuSOLVER vs LAPACK on the host CPUs, same data, same run.
//
//   gesvj          one n x n matrix (--gesvdj-sizes), U and V: cusolverDn?gesvdj and, as a
//                  second counterpart, cusolverDnXgesvdp (polar decomposition + syevd).
//                  Goal: faster than gesvdj at every n. gpusvd skipped above --gpusvd-gesvj-max.
//                  zgesvj at the first size against Zgesvdj (goal: faster); gpusvd's column says
//                  "n/a" where the size has no complex GPU path.
//   gesvj_batched  many small matrices, U and V: cusolverDn?gesvdjBatched where it exists
//                  (n <= 32; goal >= 3x, also for z at 100k x 32x32), else a loop of
//                  cusolverDn?gesvdj over a sample of the batch, extrapolated and tagged (goal
//                  >= 5x; z at 10k x 64x64: >= 50x).
//   gesvj tall     one m x n matrix, m >> n, U and V: cusolverDnDgesvdj (economy) and
//                  cusolverDnDgesvdaStridedBatched (batch 1, rank n). Goal >= 5x both.
//
// Batches are tiled from a pool of distinct matrices (cuda_util.hpp); the host column times a
// loop of LAPACK ?gesvj on the library's thread pool (lapack_ref.hpp) over a sample of the
// batch, extrapolated and tagged. Every result is checked: gpusvd's status and info (all
// zero), and the singular values of sampled matrices of every GPU side against LAPACK (zgesvj /
// zgesdd for complex rows). Complex rows: flops 4x the real count (flops.hpp).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "bench.hpp"
#include "cuda_util.hpp"
#include "flops.hpp"
#include "lapack_ref.hpp"

namespace bench {

namespace {

constexpr auto VEC = GPUSVD_JOB_VEC;

/// cuSOLVER's Jacobi and approximate SVD entry points (pointers through cu()).
template <class T>
struct Sol;
#define BENCH_SOL(T, X)                                                                            \
    template <>                                                                                    \
    struct Sol<T> {                                                                                \
        static constexpr const char *prefix = "cusolverDn" #X;                                     \
        static constexpr auto gesvdj_bufferSize = &cusolverDn##X##gesvdj_bufferSize;               \
        static constexpr auto gesvdj = &cusolverDn##X##gesvdj;                                     \
        static constexpr auto batched_bufferSize = &cusolverDn##X##gesvdjBatched_bufferSize;       \
        static constexpr auto batched = &cusolverDn##X##gesvdjBatched;                             \
        static constexpr auto gesvda_bufferSize = &cusolverDn##X##gesvdaStridedBatched_bufferSize; \
        static constexpr auto gesvda = &cusolverDn##X##gesvdaStridedBatched;                       \
    };
BENCH_SOL(float, S)
BENCH_SOL(double, D)
BENCH_SOL(std::complex<float>, C)
BENCH_SOL(std::complex<double>, Z)
#undef BENCH_SOL

/// cusolverDn?gesvdj on m x n matrices with U and V (economy when m != n; cuSOLVER's default
/// tolerance and sweeps), workspace sized once for the pointers given.
template <class T, class R = real_t<T>>
class Gesvdj {
public:
    Gesvdj(Gpu &c, int64_t m, int64_t n, T *A, R *S, T *U, T *V)
        : c_(c), m_(int(m)), n_(int(n)), econ_(m != n) {
        int lwork = 0;
        CS(Sol<T>::gesvdj_bufferSize(c.sol, CUSOLVER_EIG_MODE_VECTOR, econ_, m_, n_, cu(A), m_, S,
                                     cu(U), m_, cu(V), n_, &lwork, params_.get()));
        lwork_ = std::max(lwork, 1);
        work_ = std::make_unique<Dev<T>>(sz(lwork_));
    }
    void operator()(T *A, R *S, T *U, T *V, int *info) {
        CS(Sol<T>::gesvdj(c_.sol, CUSOLVER_EIG_MODE_VECTOR, econ_, m_, n_, cu(A), m_, S, cu(U), m_,
                          cu(V), n_, cu(work_->get()), lwork_, info, params_.get()));
    }
    /// Sweeps of the last call.
    int sweeps() const {
        int s = 0;
        CS(cusolverDnXgesvdjGetSweeps(c_.sol, params_.get(), &s));
        return s;
    }

private:
    Gpu &c_;
    int m_, n_, econ_, lwork_ = 1;
    GesvdjParams params_;
    std::unique_ptr<Dev<T>> work_;
};

/// LAPACK ?gesvj('G','U','V') over `count` m x n matrices (the thread pool over matrices when
/// count > 1; one multithreaded call otherwise); its sweep counts (work(4), rwork(4) for complex)
/// into sweeps when given.
template <class T, class R = real_t<T>>
void host_gesvj(int64_t count, int64_t m, int64_t n, T *A, R *S, T *V, double *sweeps) {
    const size_t threads = sz(gpusvd::cpu::batch_threads(count));
    const lapack_int mi = lapack_int(m), ni = lapack_int(n);
    if constexpr (is_complex_v<T>) {
        // Complex ?gesvj: LWORK >= m + n (cwork), LRWORK >= max(6, n).
        const lapack_int lw = lapack_int(std::max<int64_t>(6, m + n)),
                         lr = lapack_int(std::max<int64_t>(6, n));
        std::vector<T> work(threads * sz(lw));
        std::vector<R> rwork(threads * sz(lr));
        ref::pool_batch(count, [&](int64_t i, int t) {
            R *rw = rwork.data() + sz(t) * sz(lr);
            ref::gesvj('G', 'U', 'V', mi, ni, A + i * m * n, mi, S + i * n, 0, V + i * n * n, ni,
                       work.data() + sz(t) * sz(lw), lw, rw, lr);
            if (sweeps) sweeps[i] = double(rw[3]);
        });
    } else {
        const lapack_int lw = lapack_int(std::max<int64_t>(6, m + n));
        std::vector<T> work(threads * sz(lw));
        ref::pool_batch(count, [&](int64_t i, int t) {
            T *w = work.data() + sz(t) * sz(lw);
            ref::gesvj('G', 'U', 'V', mi, ni, A + i * m * n, mi, S + i * n, 0, V + i * n * n, ni, w,
                       lw);
            if (sweeps) sweeps[i] = double(w[3]);
        });
    }
}

/// The references of the checks are computed in double for both precisions (a float LAPACK
/// reference is itself off by ~n eps_float, as much as what it checks), then rounded to T.
template <class To, class From>
std::vector<To> convert(const std::vector<From> &v) {
    return std::vector<To>(v.begin(), v.end());
}
/// T's double-precision counterpart (double, std::complex<double>).
template <class T>
using wide_t = std::conditional_t<is_complex_v<T>, std::complex<double>, double>;

/// Singular values (descending) of `count` m x n matrices by LAPACK dgesvj (zgesvj), the
/// reference of the batched check; the mean of its sweep counts into *mean_sweeps (the flop
/// count).
template <class T, class R = real_t<T>>
std::vector<R> host_values(int64_t count, int64_t m, int64_t n, const std::vector<T> &A,
                           double *mean_sweeps) {
    auto Ad = convert<wide_t<T>>(A);
    std::vector<double> S(sz(count * n)), sw(sz(count));
    std::vector<wide_t<T>> V(sz(count * n * n));
    host_gesvj(count, m, n, Ad.data(), S.data(), V.data(), sw.data());
    *mean_sweeps = 0;
    for (double x : sw) *mean_sweeps += x / double(count);
    return convert<R>(sorted_desc(S, sz(n), sz(count)));
}

/// Singular values of one m x n matrix by LAPACK dgesdd / zgesdd (fast for tall m: QR first).
template <class T, class R = real_t<T>>
std::vector<R> gesdd_values(int64_t m, int64_t n, const std::vector<T> &A) {
    auto Ad = convert<wide_t<T>>(A);
    const lapack_int mi = lapack_int(m), ni = lapack_int(n), k = std::min(mi, ni);
    std::vector<double> S(sz(k));
    std::vector<lapack_int> iw(sz(8 * k));
    wide_t<T> q = 0;
    lapack_int e = 0;
    if constexpr (is_complex_v<T>) {
        std::vector<double> rw(sz(7 * k + 1));  // jobz 'N': LRWORK >= 7 min(m, n)
        ref::gesdd('N', mi, ni, Ad.data(), mi, S.data(), nullptr, 1, nullptr, 1, &q, -1, rw.data(),
                   iw.data());
        std::vector<wide_t<T>> w(sz(ref::lwork_of(q)));
        e = ref::gesdd('N', mi, ni, Ad.data(), mi, S.data(), nullptr, 1, nullptr, 1, w.data(),
                       lapack_int(w.size()), rw.data(), iw.data());
    } else {
        ref::gesdd('N', mi, ni, Ad.data(), mi, S.data(), nullptr, 1, nullptr, 1, &q, -1, iw.data());
        std::vector<double> w(sz(ref::lwork_of(q)));
        e = ref::gesdd('N', mi, ni, Ad.data(), mi, S.data(), nullptr, 1, nullptr, 1, w.data(),
                       lapack_int(w.size()), iw.data());
    }
    if (e != 0) std::fill(S.begin(), S.end(), NAN);
    return convert<R>(S);
}

/// Device outputs of the economy SVD of `count` m x n matrices (k = min(m, n)), contiguous.
template <class T, class R = real_t<T>>
struct SvdOut {
    int64_t k;
    Dev<R> S;
    Dev<T> U, V;
    Dev<int> info;
    SvdOut(int64_t count, int64_t m, int64_t n)
        : k(std::min(m, n)),
          S(sz(count * k)),
          U(sz(count * m * k)),
          V(sz(count * n * k)),
          info(sz(count)) {}
    /// One matrix: its info (all zero when strict: gpusvd's) and its values against want.
    void check_one(Check &ck, const char *who, bool strict, const std::vector<R> &want) const {
        ck.info(who, info, 1, strict);
        ck.diff(max_rel_diff(sz(k), S.download(sz(k)).data(), want.data()), strict ? nullptr : who);
    }
};

/// gpusvd's single-matrix gesvj_gpu (U and V), timed and checked against `want`; "skipped"
/// above --gpusvd-gesvj-max (to keep a run short on a machine where large n is slow).
template <class T, class Prep>
Stat gpusvd_one(Gpu &c, Row &r, Check &ck, Prep &&prep, int64_t m, int64_t n, T *A,
                const std::vector<real_t<T>> &want) {
    if (n > c.o.gpusvd_gesvj_max)
        return note_only("skipped (> --gpusvd-gesvj-max " + std::to_string(c.o.gpusvd_gesvj_max) +
                         ")");
    SvdOut<T> o(1, m, n);
    const Stat s = time_gpusvd(
        c, prep,
        [&] {
            return ApiOf<T>::gesvj_gpu(c.g, VEC, VEC, m, n, api(A), m, o.S.get(), api(o.U.get()), m,
                                       api(o.V.get()), n, o.info.get());
        },
        r);
    if (s.ok()) o.check_one(ck, "gpusvd", true, want);
    return s;
}

/// cuSOLVER ?gesvdj on one m x n matrix (U and V), timed and checked against want; its sweeps.
template <class T, class Prep>
Stat gesvdj_one(Gpu &c, Check &ck, Prep &&prep, int64_t m, int64_t n, T *A,
                const std::vector<real_t<T>> &want, int *sweeps) {
    SvdOut<T> o(1, m, n);
    Gesvdj<T> gj(c, m, n, A, o.S.get(), o.U.get(), o.V.get());
    const Stat s = time_gpu(
        c, gpu_budget(c), prep,
        [&] {
            gj(A, o.S.get(), o.U.get(), o.V.get(), o.info.get());
            return true;
        },
        nullptr);
    *sweeps = gj.sweeps();
    o.check_one(ck, "gesvdj", false, want);
    return s;
}

/// One random m x n matrix: on the host (the reference's input), a pristine device copy, and the
/// device work copy A that prep() restores before each timed run.
template <class T>
struct OneMatrix {
    Gpu &c;
    std::vector<T> host;
    Dev<T> pristine, A;
    OneMatrix(Gpu &c_, int64_t m, int64_t n, uint64_t seed)
        : c(c_), host(random_vector<T>(sz(m * n), seed)), pristine(host.size()), A(host.size()) {
        pristine.upload(host.data(), host.size());
    }
    void prep() { restore(c, A.get(), pristine.get(), host.size()); }
};

/* ---- one square matrix --------------------------------------------------------------------- */

/// cusolverDnXgesvdp (U and V) on the n x n matrix A, timed; values checked against want.
template <class T, class Prep>
Stat xgesvdp(Gpu &c, Check &ck, Prep &&prep, int64_t n, T *A, const std::vector<real_t<T>> &want) {
    SvdOut<T> o(1, n, n);
    DnParams params;
    const cudaDataType t = cuda_type<T>(), ts = cuda_type<real_t<T>>();
    size_t dws = 0, hws = 0;
    CS(cusolverDnXgesvdp_bufferSize(c.sol, params.get(), CUSOLVER_EIG_MODE_VECTOR, 0, n, n, t, A, n,
                                    ts, o.S.get(), t, o.U.get(), n, t, o.V.get(), n, t, &dws,
                                    &hws));
    Dev<char> dwork(std::max<size_t>(dws, 1));
    Pinned hwork(hws);
    double err_sigma = 0;
    const Stat s = time_gpu(
        c, gpu_budget(c), prep,
        [&] {
            CS(cusolverDnXgesvdp(c.sol, params.get(), CUSOLVER_EIG_MODE_VECTOR, 0, n, n, t, A, n,
                                 ts, o.S.get(), t, o.U.get(), n, t, o.V.get(), n, t, dwork.get(),
                                 dws, hwork.get(), hws, o.info.get(), &err_sigma));
            return true;
        },
        nullptr);
    o.check_one(ck, "gesvdp", false, want);
    return s;
}

constexpr int64_t kHostGesvjMax = 1024;  // host column of the single-matrix rows

template <class T>
std::string one_name() {
    return std::string(px<T>()) + "gesvj_gpu vs " + Sol<T>::prefix + "gesvdj | Xgesvdp +U,V";
}

template <class T>
Row gesvj_row(Gpu &c, int64_t n) {
    Row r;
    r.table = "gpu:gesvj";
    r.name = one_name<T>();
    r.size = dims(n, n);
    const size_t nn = sz(n * n);
    OneMatrix<T> M(c, n, n, 7000 + n);
    auto prep = [&] { M.prep(); };
    const auto want = gesdd_values(n, n, M.host);
    Check ck;
    int sweeps = 0;
    r.b = gesvdj_one(c, ck, prep, n, n, M.A.get(), want, &sweeps);
    // The second counterpart's own failure (a CUDA or cuSOLVER error) fails the row but leaves
    // the other columns measured.
    try {
        r.d = xgesvdp(c, ck, prep, n, M.A.get(), want);
    } catch (const GpuError &e) {
        r.d = note_only(std::string("ERROR ") + e.what());
        r.failed = true;
        cudaGetLastError();
    }
    r.a = gpusvd_one(c, r, ck, prep, n, n, M.A.get(), want);

    // Host: LAPACK ?gesvj (multithreaded OpenBLAS), the same algorithm family. It takes about a
    // minute at n = 2048 on 16 cores (8x per doubling), so it is skipped above kHostGesvjMax;
    // complex ?gesvj (~4x the work) above half that.
    std::vector<T> Ah(nn), Vh(nn);
    std::vector<real_t<T>> Sh(sz(n));
    const int64_t host_max = is_complex_v<T> ? kHostGesvjMax / 2 : kHostGesvjMax;
    if (n > host_max)
        r.c = note_only("skipped (n > " + std::to_string(host_max) + ": minutes)");
    else
        r.c = host_column(
            c, 1, 1, [&] { std::copy(M.host.begin(), M.host.end(), Ah.begin()); },
            [&] {
                host_gesvj(1, n, n, Ah.data(), Sh.data(), Vh.data(), nullptr);
                return true;
            });
    r.flops = flop_factor<T>() * jacobi_flops(sweeps, double(n), double(n), true);
    r.bytes = double(3 * nn) * sizeof(T) + double(n) * sizeof(real_t<T>);
    r.goals = {{Goal::CusolverRatio, 1.0}};
    ck.note = " sweeps " + std::to_string(sweeps) + ck.note;
    ck.finish(r, value_tol<T>(n));
    return r;
}

/* ---- batched ------------------------------------------------------------------------------- */

struct BatchCase {
    int64_t batch, n;
    int64_t loop;         // 0: cusolverDn?gesvdjBatched over the batch; else a loop of ?gesvdj
                          // over this many matrices, extrapolated
    int64_t host_sample;  // matrices of the host loop (extrapolated when < batch)
    double goal;          // cuSOLVER/gpusvd >= goal; 0: none
};

template <class T>
std::string batched_name(bool looped) {
    return std::string(px<T>()) + "gesvj_batched_gpu vs " + Sol<T>::prefix +
           (looped ? "gesvdj loop" : "gesvdjBatched") + " +U,V";
}

template <class T>
Row gesvj_batched_row(Gpu &c, const BatchCase &bc) {
    const int64_t batch = bc.batch, n = bc.n, nn = n * n;
    const bool looped = bc.loop > 0;
    Row r;
    r.table = "gpu:gesvj_batched";
    r.name = batched_name<T>(looped);
    r.size = bdims(batch, n, n);
    const auto idx = spread(batch, 64);  // the check sample
    const int64_t pool = std::min(batch, std::max({bc.loop, bc.host_sample, int64_t(idx.size())}));
    const auto P = random_vector<T>(sz(pool * nn), 7100 + n + batch);
    const size_t total = sz(batch * nn);
    Dev<T> dP(P.size()), dA(total);
    dP.upload(P.data(), P.size());
    auto prep = [&] { tile(c, dA.get(), dP.get(), pool, sz(nn), batch); };
    Check ck;
    double sweeps = 0;
    const auto want = host_values(int64_t(idx.size()), n, n, gather(P, pool, sz(nn), idx), &sweeps);
    // Values of the matrices `at` of the batch (sorted) against LAPACK's of the same; who:
    // the counterpart, nullptr for gpusvd.
    auto compare = [&](const Dev<real_t<T>> &S, const std::vector<int64_t> &at,
                       const std::vector<real_t<T>> &expect, const char *who) {
        const auto got = sorted_desc(download_at(S, sz(n), at), sz(n), at.size());
        ck.diff(max_rel_diff(got.size(), got.data(), expect.data()), who);
    };

    if (!looped) {
        SvdOut<T> o(batch, n, n);
        GesvdjParams params;
        CS(cusolverDnXgesvdjSetSortEig(params.get(), 1));
        int lwork = 0;
        CS(Sol<T>::batched_bufferSize(c.sol, CUSOLVER_EIG_MODE_VECTOR, int(n), int(n), cu(dA.get()),
                                      int(n), o.S.get(), cu(o.U.get()), int(n), cu(o.V.get()),
                                      int(n), &lwork, params.get(), int(batch)));
        Dev<T> work(sz(std::max(lwork, 1)));
        r.b = time_gpu(
            c, gpu_budget(c), prep,
            [&] {
                CS(Sol<T>::batched(c.sol, CUSOLVER_EIG_MODE_VECTOR, int(n), int(n), cu(dA.get()),
                                   int(n), o.S.get(), cu(o.U.get()), int(n), cu(o.V.get()), int(n),
                                   cu(work.get()), lwork, o.info.get(), params.get(), int(batch)));
                return true;
            },
            nullptr);
        ck.info("cuSOLVER", o.info, sz(batch), false);
        compare(o.S, idx, want, "cuSOLVER");
    } else {
        // gesvdjBatched takes n <= 32 only: one ?gesvdj call per matrix over the first `loop`.
        const int64_t loop = std::min(bc.loop, batch);
        SvdOut<T> o(loop, n, n);
        Gesvdj<T> gj(c, n, n, dA.get(), o.S.get(), o.U.get(), o.V.get());
        const Stat s = time_gpu(
            c, gpu_budget(c), [&] { restore(c, dA.get(), dP.get(), sz(loop * nn)); },
            [&] {
                for (int64_t i = 0; i < loop; ++i)
                    gj(dA.get() + i * nn, o.S.get() + i * n, o.U.get() + i * nn, o.V.get() + i * nn,
                       o.info.get() + i);
                return true;
            },
            nullptr);
        r.b = scaled(s, double(batch) / double(loop), extrap_tag(loop));
        ck.info("cuSOLVER", o.info, sz(loop), false);
        const auto first = spread(std::min<int64_t>(loop, 8), 8);  // matrices 0..7
        double unused = 0;
        compare(o.S, first,
                host_values(int64_t(first.size()), n, n, gather(P, pool, sz(nn), first), &unused),
                "cuSOLVER");
    }

    {
        SvdOut<T> o(batch, n, n);
        r.a = time_gpusvd(
            c, prep,
            [&] {
                return ApiOf<T>::gesvj_batched_gpu(c.g, VEC, VEC, n, n, api(dA.get()), n, nn,
                                                   o.S.get(), n, api(o.U.get()), n, nn,
                                                   api(o.V.get()), n, nn, batch, o.info.get());
            },
            r);
        if (r.a.ok()) {
            ck.info("gpusvd", o.info, sz(batch), true);
            compare(o.S, idx, want, nullptr);
        }
    }

    const int64_t hs = std::min(batch, bc.host_sample);
    std::vector<T> Ah(sz(hs * nn)), Vh(sz(hs * nn));
    std::vector<real_t<T>> Sh(sz(hs * n));
    r.c = host_column(
        c, hs, batch,
        [&] { std::copy(P.begin(), P.begin() + std::ptrdiff_t(Ah.size()), Ah.begin()); },
        [&] {
            host_gesvj(hs, n, n, Ah.data(), Sh.data(), Vh.data(), nullptr);
            return true;
        });
    r.flops = double(batch) * flop_factor<T>() * jacobi_flops(sweeps, double(n), double(n), true);
    r.bytes = double(batch) * (double(3 * nn) * sizeof(T) + double(n) * sizeof(real_t<T>));
    if (bc.goal > 0) r.goals = {{Goal::CusolverRatio, bc.goal}};
    ck.finish(r, value_tol<T>(n));
    return r;
}

/* ---- tall ---------------------------------------------------------------------------------- */

const char *kTallName = "dgesvj_gpu vs cusolverDnDgesvdj(econ) | gesvdaStridedBatched +U,V";

Row tall_row(Gpu &c, int64_t m, int64_t n, bool goals) {
    Row r;
    r.table = "gpu:gesvj_tall";
    r.name = kTallName;
    r.size = dims(m, n);
    const size_t mn = sz(m * n), nn = sz(n * n);
    OneMatrix<double> M(c, m, n, 7400 + m + n);
    auto prep = [&] { M.prep(); };
    const auto want = gesdd_values(m, n, M.host);
    Check ck;
    int sweeps = 0;
    r.b = gesvdj_one(c, ck, prep, m, n, M.A.get(), want, &sweeps);

    // gesvda: eigenvalues of A^T A (approximate; the residual norm is not asked for).
    const int mi = int(m), ni = int(n);
    const long long smn = (long long)mn, snn = (long long)nn;
    SvdOut<double> o(1, m, n);
    int lwork = 0;
    CS(Sol<double>::gesvda_bufferSize(c.sol, CUSOLVER_EIG_MODE_VECTOR, ni, mi, ni, M.A.get(), mi,
                                      smn, o.S.get(), ni, o.U.get(), mi, smn, o.V.get(), ni, snn,
                                      &lwork, 1));
    Dev<double> work(sz(std::max(lwork, 1)));
    r.d = time_gpu(
        c, gpu_budget(c), prep,
        [&] {
            CS(Sol<double>::gesvda(c.sol, CUSOLVER_EIG_MODE_VECTOR, ni, mi, ni, M.A.get(), mi, smn,
                                   o.S.get(), ni, o.U.get(), mi, smn, o.V.get(), ni, snn,
                                   work.get(), lwork, o.info.get(), nullptr, 1));
            return true;
        },
        nullptr);
    o.check_one(ck, "gesvda", false, want);
    r.a = gpusvd_one(c, r, ck, prep, m, n, M.A.get(), want);

    // Host: LAPACK dgesdd 'S' (QR first for m >> n), multithreaded OpenBLAS.
    std::vector<double> Ah(mn), Sh(sz(n)), Uh(mn), VTh(nn);
    std::vector<lapack_int> iw(sz(8 * n));
    double q = 0;
    ref::gesdd('S', mi, ni, Ah.data(), mi, Sh.data(), Uh.data(), mi, VTh.data(), ni, &q, -1,
               iw.data());
    std::vector<double> wk(sz(ref::lwork_of(q)));
    r.c = host_column(
        c, 1, 1, [&] { std::copy(M.host.begin(), M.host.end(), Ah.begin()); },
        [&] {
            return ref::gesdd('S', mi, ni, Ah.data(), mi, Sh.data(), Uh.data(), mi, VTh.data(), ni,
                              wk.data(), lapack_int(wk.size()), iw.data()) == 0;
        });
    r.flops = tall_svd_flops(double(m), double(n), sweeps);
    r.bytes = double(2 * mn + sz(n) + nn) * sizeof(double);
    if (goals) r.goals = {{Goal::CusolverRatio, 5.0}, {Goal::OtherRatio, 5.0}};
    ck.note = " gesvdj sweeps " + std::to_string(sweeps) + ck.note;
    ck.finish(r, value_tol<double>(n));
    return r;
}

}  // namespace

void gesvj_tables(Gpu &c) {
    const bool q = c.o.quick;
    std::vector<Row> rows;

    for (int64_t n : c.o.gesvdj_n)
        guarded(c, rows, "gpu:gesvj", one_name<double>(), dims(n, n),
                [&] { return gesvj_row<double>(c, n); });
    if (!q && !c.o.gesvdj_n.empty()) {
        const int64_t n = c.o.gesvdj_n.front();
        guarded(c, rows, "gpu:gesvj", one_name<float>(), dims(n, n),
                [&] { return gesvj_row<float>(c, n); });
    }
    if (!c.o.gesvdj_n.empty()) {  // double complex at the first size, quick mode too
        using Z = std::complex<double>;
        const int64_t n = c.o.gesvdj_n.front();
        guarded(c, rows, "gpu:gesvj", one_name<Z>(), dims(n, n),
                [&] { return gesvj_row<Z>(c, n); });
    }
    c.rep.gpu_table(
        "gesvj, one matrix, U and V (cuSOLVER: ?gesvdj, tolerance eps, max 100 sweeps; Xgesvdp: "
        "polar decomposition + syevd; host: LAPACK ?gesvj, complex up to n = " +
            std::to_string(kHostGesvjMax / 2) +
            "; gpusvd skipped above "
            "--gpusvd-gesvj-max " +
            std::to_string(c.o.gpusvd_gesvj_max) + ")",
        rows, c.dev, "", "Xgesvdp");
    rows.clear();

    // {batch, n, cuSOLVER loop (0: gesvdjBatched), host sample, goal}; goals are set for these
    // sizes only: none in quick mode (likewise the tall rows).
    const std::vector<BatchCase> dcases = q ? std::vector<BatchCase>{{2000, 32, 0, 2000, 0.0}}
                                            : std::vector<BatchCase>{{100000, 16, 0, 10000, 3.0},
                                                                     {100000, 32, 0, 10000, 3.0},
                                                                     {10000, 64, 100, 2000, 5.0},
                                                                     {10000, 128, 50, 500, 5.0},
                                                                     {1000, 256, 20, 100, 5.0},
                                                                     {1000, 512, 10, 20, 5.0}};
    for (const BatchCase &bc : dcases)
        guarded(c, rows, "gpu:gesvj_batched", batched_name<double>(bc.loop > 0),
                bdims(bc.batch, bc.n, bc.n), [&] { return gesvj_batched_row<double>(c, bc); });
    if (!q) {
        const BatchCase bc{100000, 32, 0, 10000, 0.0};
        guarded(c, rows, "gpu:gesvj_batched", batched_name<float>(false),
                bdims(bc.batch, bc.n, bc.n), [&] { return gesvj_batched_row<float>(c, bc); });
    }
    // Double complex (LAPACK zgesvj on the host is ~4x dgesvj: smaller host samples).
    const std::vector<BatchCase> zcases =
        q ? std::vector<BatchCase>{{2000, 32, 0, 2000, 0.0}}
          : std::vector<BatchCase>{{100000, 32, 0, 4000, 3.0}, {10000, 64, 100, 1000, 50.0}};
    for (const BatchCase &bc : zcases) {
        using Z = std::complex<double>;
        guarded(c, rows, "gpu:gesvj_batched", batched_name<Z>(bc.loop > 0),
                bdims(bc.batch, bc.n, bc.n), [&] { return gesvj_batched_row<Z>(c, bc); });
    }
    c.rep.gpu_table(
        "gesvj_batched, U and V (cuSOLVER: ?gesvdjBatched for n <= 32, else a loop of ?gesvdj "
        "over the first matrices, extrapolated; host: thread-pool loop of LAPACK ?gesvj over a "
        "sample, extrapolated)",
        rows, c.dev);
    rows.clear();

    struct MN {
        int64_t m, n;
    };
    for (MN s : q ? std::vector<MN>{{20000, 32}} : std::vector<MN>{{100000, 64}, {1000000, 32}})
        guarded(c, rows, "gpu:gesvj_tall", kTallName, dims(s.m, s.n),
                [&] { return tall_row(c, s.m, s.n, !q); });
    c.rep.gpu_table(
        "gesvj, tall matrix, U and V (cuSOLVER: Dgesvdj economy; gesvdaSB: "
        "DgesvdaStridedBatched, batch 1, rank n, no residual; host: LAPACK dgesdd 'S')",
        rows, c.dev, "", "gesvdaSB");
}

}  // namespace bench
