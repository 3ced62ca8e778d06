// GPU tables of batched non-symmetric eigenvalues (with their benchmark goals): gpusvd's
// geev_batched vs cuSOLVER vs LAPACK on the host CPUs, same data, same run.
//
// Each case is measured once and shown as totals for the whole batch (goal rows) and, for some
// sizes, per matrix:
//   - 500k x 30x30 values, host memory to host memory: the host-pointer form with the GPU
//     backend on pageable arrays, wall time (std::chrono); vs the published 2.19 s (Tokura et
//     al. 2017, TITAN X) and the Xgeev loop. Goal <= 250 ms.
//   - the same, device-resident (`_gpu`, cudaEvent time). Goal <= 60 ms and >= 10x host.
//   - 500k x n values, n = 5 .. 64 (`_gpu`) vs the host. Goal >= 10x.
//   - 100k x 30x30 with right eigenvectors (`_gpu`) vs the host. Goal >= 5x.
//   - double complex, 100k x 30x30 values and with vectors (`_gpu`, zgeev's conventions) vs
//     cusolverDnXgeev in CUDA_C_64F. Goals >= 1000x vs cuSOLVER, and >= 20x vs the host (zgeev
//     on all cores) with vectors.
// cuSOLVER has no batched geev: cusolverDnXgeev is called on a sample of the batch in a loop
// and extrapolated; the host column is a loop of LAPACK dgeev (zgeev) on the library's thread
// pool over a sample (all cores), extrapolated. Both are tagged "(extrap. from N)".
//
// Checks: gpusvd's status and every info entry (all zero); eigenvalues of 64 matrices spread
// over the batch (first and last included) against LAPACK dgeev (zgeev), for the device and the
// host forms; with vectors, the residual |A v - lambda v| / (|A| |v|) of those matrices and
// LAPACK's normalisation (unit 2-norm; complex: largest component real); cuSOLVER's eigenvalues
// of the first matrices of its loop. Complex rows: flops 4x the real count (flops.hpp).
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <type_traits>
#include <vector>

#include "bench.hpp"
#include "cuda_util.hpp"
#include "flops.hpp"
#include "lapack_ref.hpp"

namespace bench {

namespace {

using cplx = std::complex<double>;

const char *kTotals = "gpu:geev_batched";
const char *kPerMatrix = "gpu:geev_batched/matrix";
constexpr double kPublishedMs = 2190.0;  // Tokura et al. 2017: 500k x 30x30, values, TITAN X
constexpr int64_t kPublishedBatch = 500000, kPublishedN = 30;

struct GeevCase {
    int64_t n;
    bool vectors;
    int64_t batch;
    bool host_form;           // also the host-pointer form (GPU backend, pageable arrays)
    bool per_matrix;          // also a row of the per-matrix table
    std::vector<Goal> goals;  // of the device-resident row
};

template <class T>
std::string dev_name(bool vectors) {
    return std::string(px<T>()) + "geev_batched_gpu" + (vectors ? " +VR" : "") +
           " vs cusolverDnXgeev loop";
}
const char *kHostFormName = "dgeev_batched host->host (GPU backend, pageable) vs Xgeev loop";

/// LAPACK dgeev over `count` n x n matrices of A (the thread pool over matrices, OpenBLAS 1
/// thread).
void host_geev(int64_t count, int64_t n, bool vectors, double *A, double *wr, double *wi,
               double *vr) {
    const char jv = vectors ? 'V' : 'N';
    const lapack_int ni = lapack_int(n);
    double q = 0, d = 0;
    ref::geev(jv, ni, &d, ni, &d, &d, &d, ni, &q, -1);
    const lapack_int lw = ref::lwork_of(q);
    std::vector<double> work(sz(gpusvd::cpu::batch_threads(count)) * sz(lw));
    ref::pool_batch(count, [&](int64_t i, int t) {
        ref::geev(jv, ni, A + i * n * n, ni, wr + i * n, wi + i * n, vectors ? vr + i * n * n : vr,
                  vectors ? ni : 1, work.data() + sz(t) * sz(lw), lw);
    });
}

/// LAPACK zgeev over `count` n x n complex matrices of A (as host_geev).
void host_geev(int64_t count, int64_t n, bool vectors, cplx *A, cplx *w, cplx *vr) {
    const char jv = vectors ? 'V' : 'N';
    const lapack_int ni = lapack_int(n);
    cplx q = 0, d = 0;
    double rd = 0;
    ref::geev(jv, ni, &d, ni, &d, &d, ni, &q, -1, &rd);
    const lapack_int lw = ref::lwork_of(q);
    const size_t threads = sz(gpusvd::cpu::batch_threads(count));
    std::vector<cplx> work(threads * sz(lw));
    std::vector<double> rwork(threads * sz(2 * n));  // zgeev: RWORK 2n
    ref::pool_batch(count, [&](int64_t i, int t) {
        ref::geev(jv, ni, A + i * n * n, ni, w + i * n, vectors ? vr + i * n * n : vr,
                  vectors ? ni : 1, work.data() + sz(t) * sz(lw), lw,
                  rwork.data() + sz(t) * sz(2 * n));
    });
}

/// len eigenvalues (wr, wi) as complex numbers.
std::vector<cplx> to_complex(size_t len, const double *wr, const double *wi) {
    std::vector<cplx> w(len);
    for (size_t j = 0; j < len; ++j) w[j] = {wr[j], wi[j]};
    return w;
}

/// LAPACK ?geev's outputs for `count` n x n matrices on the host: (wr, wi) for real A, one
/// complex array for complex A; VR when `vectors`.
template <class T>
struct HostEig;
template <>
struct HostEig<double> {
    std::vector<double> wr, wi, vr;
    HostEig(int64_t count, int64_t n, bool v)
        : wr(sz(count * n)), wi(wr.size()), vr(v ? sz(count * n * n) : 1) {}
    void run(int64_t count, int64_t n, bool v, double *A) {
        host_geev(count, n, v, A, wr.data(), wi.data(), vr.data());
    }
    std::vector<cplx> values() const { return to_complex(wr.size(), wr.data(), wi.data()); }
};
template <>
struct HostEig<cplx> {
    std::vector<cplx> w, vr;
    HostEig(int64_t count, int64_t n, bool v) : w(sz(count * n)), vr(v ? sz(count * n * n) : 1) {}
    void run(int64_t count, int64_t n, bool v, cplx *A) {
        host_geev(count, n, v, A, w.data(), vr.data());
    }
    std::vector<cplx> values() const { return w; }
};

/// gpusvd's device eigenvalue outputs for a batch: (wr, wi) for real A, W for complex A; call()
/// runs geev_batched_gpu on them (strideW = n).
template <class T>
struct DevEig;
template <>
struct DevEig<double> {
    Dev<double> wr, wi;
    DevEig(int64_t batch, int64_t n) : wr(sz(batch * n)), wi(sz(batch * n)) {}
    gpusvdStatus_t call(gpusvdHandle_t g, gpusvdJob_t job, int64_t n, double *A, double *VR,
                        int64_t batch, int *info) {
        return Api<double>::geev_batched_gpu(g, job, n, A, n, n * n, wr.get(), wi.get(), n, VR, n,
                                             n * n, batch, info);
    }
    /// The eigenvalues of the batch's matrices idx.
    std::vector<cplx> values_at(int64_t n, const std::vector<int64_t> &idx) const {
        const auto r = download_at(wr, sz(n), idx), i = download_at(wi, sz(n), idx);
        return to_complex(r.size(), r.data(), i.data());
    }
};
template <>
struct DevEig<cplx> {
    Dev<cplx> w;
    DevEig(int64_t batch, int64_t n) : w(sz(batch * n)) {}
    gpusvdStatus_t call(gpusvdHandle_t g, gpusvdJob_t job, int64_t n, cplx *A, cplx *VR,
                        int64_t batch, int *info) {
        return ApiOf<cplx>::geev_batched_gpu(g, job, n, api(A), n, n * n, api(w.get()), n, api(VR),
                                             n, n * n, batch, info);
    }
    std::vector<cplx> values_at(int64_t n, const std::vector<int64_t> &idx) const {
        return download_at(w, sz(n), idx);
    }
};

/// LAPACK's eigenvalues of `count` matrices (the reference of the check).
template <class T>
std::vector<cplx> host_eigs(int64_t count, int64_t n, std::vector<T> A) {
    HostEig<T> h(count, n, false);
    h.run(count, n, false, A.data());
    return h.values();
}

/// Largest eig_distance over `count` matrices of n eigenvalues.
double eig_diff(int64_t count, int64_t n, const std::vector<cplx> &got,
                const std::vector<cplx> &want) {
    double d = 0;
    for (int64_t i = 0; i < count; ++i) {
        const double x = eig_distance(sz(n), got.data() + i * n, want.data() + i * n);
        d = (x != x || d != d) ? NAN : std::max(d, x);
    }
    return d;
}

/// max over matrices and eigenpairs of |A v - lambda v|_inf / (|A|_1 |v|_inf) and of
/// | |v|_2 - 1 | (dgeev's vectors have unit 2-norm), VR packed as LAPACK's (a complex pair
/// j, j+1: columns j and j+1 are the real and imaginary parts).
double eig_residual(int64_t count, int64_t n, const double *A, const double *wr, const double *wi,
                    const double *VR) {
    double worst = 0;
    for (int64_t b = 0; b < count; ++b) {
        const double *a = A + b * n * n, *v = VR + b * n * n;
        double anorm = 0;
        for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t i = 0; i < n; ++i) s += std::abs(a[i + j * n]);
            anorm = std::max(anorm, s);
        }
        const double *wib = wi + b * n;
        for (int64_t j = 0; j < n; ++j) {
            const cplx lam{wr[b * n + j], wib[j]};
            const bool pair = lam.imag() != 0;
            // A pair is (+, -) in adjacent places; anything else cannot be read as LAPACK's VR.
            if (pair && (lam.imag() > 0 ? j + 1 >= n || wib[j + 1] != -wib[j]
                                        : j == 0 || wib[j - 1] != -wib[j]))
                return NAN;
            const double *re = v + (pair && lam.imag() < 0 ? j - 1 : j) * n;
            const double *im = pair ? re + n : nullptr;
            const double sign = lam.imag() < 0 ? -1.0 : 1.0;  // second of a pair: conjugate
            double r = 0, vn = 0, v2 = 0;
            for (int64_t i = 0; i < n; ++i) {
                cplx av = 0;
                for (int64_t k = 0; k < n; ++k)
                    av += a[i + k * n] * cplx(re[k], pair ? sign * im[k] : 0.0);
                const cplx vi(re[i], pair ? sign * im[i] : 0.0);
                r = std::max(r, std::abs(av - lam * vi));
                vn = std::max(vn, std::abs(vi));
                v2 += std::norm(vi);
            }
            const double x = std::max(r / (std::max(anorm, 1e-300) * std::max(vn, 1e-300)),
                                      std::abs(std::sqrt(v2) - 1));
            worst = (x != x || worst != worst) ? NAN : std::max(worst, x);
        }
    }
    return worst;
}

/// The same for complex A and eigenpairs (w, VR column j), VR as zgeev gives it: also the
/// imaginary part of each column's component of largest modulus, relative to it (0 for zgeev).
double eig_residual(int64_t count, int64_t n, const cplx *A, const cplx *w, const cplx *VR) {
    double worst = 0;
    for (int64_t b = 0; b < count; ++b) {
        const cplx *a = A + b * n * n, *v = VR + b * n * n;
        double anorm = 0;
        for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t i = 0; i < n; ++i) s += std::abs(a[i + j * n]);
            anorm = std::max(anorm, s);
        }
        for (int64_t j = 0; j < n; ++j) {
            const cplx lam = w[b * n + j], *vj = v + j * n;
            double r = 0, vn = 0, v2 = 0, big_im = 0;
            for (int64_t i = 0; i < n; ++i) {
                cplx av = 0;
                for (int64_t k = 0; k < n; ++k) av += a[i + k * n] * vj[k];
                r = std::max(r, std::abs(av - lam * vj[i]));
                if (std::abs(vj[i]) > vn) {
                    vn = std::abs(vj[i]);
                    big_im = std::abs(vj[i].imag()) / vn;
                }
                v2 += std::norm(vj[i]);
            }
            const double x = std::max({r / (std::max(anorm, 1e-300) * std::max(vn, 1e-300)),
                                       std::abs(std::sqrt(v2) - 1), big_im});
            worst = (x != x || worst != worst) ? NAN : std::max(worst, x);
        }
    }
    return worst;
}

/// eig_residual of the sampled matrices with the eigenvalues as one complex array.
double eig_residual_of(int64_t count, int64_t n, const double *A, const std::vector<cplx> &w,
                       const double *VR) {
    std::vector<double> wr(w.size()), wi(w.size());
    for (size_t j = 0; j < w.size(); ++j) wr[j] = w[j].real(), wi[j] = w[j].imag();
    return eig_residual(count, n, A, wr.data(), wi.data(), VR);
}
double eig_residual_of(int64_t count, int64_t n, const cplx *A, const std::vector<cplx> &w,
                       const cplx *VR) {
    return eig_residual(count, n, A, w.data(), VR);
}

/// Copies pool matrices into a host batch (matrix i = pool matrix i % pool), all cores.
void tile_host(double *dst, const std::vector<double> &pool, int64_t pool_count, size_t per,
               int64_t batch) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < batch; ++i) {
        const double *src = pool.data() + sz(i % pool_count) * per;
        std::copy(src, src + per, dst + sz(i) * per);
    }
}

/// cusolverDnXgeev on the first `loop` matrices of the device pool, one call each (real A:
/// complex W, real VR, NVIDIA's Xgeev sample; complex A: all CUDA_C_64F); the time per matrix.
/// Its eigenvalues of the first want.size()/n matrices are checked against want.
template <class T>
Stat xgeev_loop(Gpu &c, Check &ck, int64_t n, bool vectors, const T *pool, int64_t loop,
                const std::vector<cplx> &want) {
    const int64_t nn = n * n;
    const size_t lt = sz(loop * nn);
    const cudaDataType t = cuda_type<T>();
    Dev<T> A(lt), VR(vectors ? lt : 1);
    Dev<cuDoubleComplex> W(sz(loop * n));
    Dev<int> info(sz(loop));
    DnParams params;
    const cusolverEigMode_t jv = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    size_t dws = 0, hws = 0;
    CS(cusolverDnXgeev_bufferSize(c.sol, params.get(), CUSOLVER_EIG_MODE_NOVECTOR, jv, n, t,
                                  A.get(), n, CUDA_C_64F, W.get(), t, nullptr, n, t,
                                  vectors ? VR.get() : nullptr, n, t, &dws, &hws));
    Dev<char> dwork(std::max<size_t>(dws, 1));
    Pinned hwork(hws);
    const Stat s = time_gpu(
        c, gpu_budget(c), [&] { restore(c, A.get(), pool, lt); },
        [&] {
            for (int64_t i = 0; i < loop; ++i)
                CS(cusolverDnXgeev(c.sol, params.get(), CUSOLVER_EIG_MODE_NOVECTOR, jv, n, t,
                                   A.get() + i * nn, n, CUDA_C_64F, W.get() + i * n, t, nullptr, n,
                                   t, vectors ? VR.get() + i * nn : nullptr, n, t, dwork.get(), dws,
                                   hwork.get(), hws, info.get() + i));
            return true;
        },
        nullptr);
    ck.info("cuSOLVER", info, sz(loop), false);
    const size_t nc = want.size() / sz(n);
    const auto w = W.download(nc * sz(n));
    std::vector<cplx> got(w.size());
    for (size_t j = 0; j < w.size(); ++j) got[j] = {w[j].x, w[j].y};
    ck.diff(eig_diff(int64_t(nc), n, got, want), "cuSOLVER");
    return scaled(s, 1.0 / double(loop));
}

/// The published time of the 500k x 30x30 host-to-host case, or why it does not apply.
Stat published(const GeevCase &gc) {
    if (gc.n != kPublishedN || gc.vectors || gc.batch != kPublishedBatch)
        return note_only("n/a (published for 500000 x 30x30 values)");
    Stat s = stat_from({kPublishedMs});
    s.tag = "(published)";
    return s;
}

/// Times one case (T: double or std::complex<double>); returns its rows: the device-resident
/// totals row, the host-form totals row (host_form, real only), the per-matrix row
/// (per_matrix).
template <class T>
std::vector<Row> geev_case(Gpu &c, const GeevCase &gc, int64_t loop, int64_t host_sample) {
    const int64_t n = gc.n, nn = n * n, batch = gc.batch;
    const bool v = gc.vectors;
    const gpusvdJob_t job = v ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC;
    Row r;
    r.table = kTotals;
    r.name = dev_name<T>(v);
    r.size = bdims(batch, n, n);
    const auto idx = spread(batch, 64);  // the check sample
    const int64_t hs = std::min(batch, host_sample), lp = std::min(batch, loop);
    const int64_t pool = std::min(batch, std::max({hs, lp, int64_t(idx.size())}));
    const auto P = random_vector<T>(sz(pool * nn), 7300 + n + batch);
    Dev<T> dP(P.size());
    dP.upload(P.data(), P.size());
    const auto As = gather(P, pool, sz(nn), idx);
    const auto want = host_eigs(int64_t(idx.size()), n, As);
    Check ck;
    // Checks gpusvd's eigenvalues (and vectors) of the sampled matrices.
    auto check_sample = [&](Check &k, const std::vector<cplx> &w, const std::vector<T> &VR) {
        const int64_t ns = int64_t(idx.size());
        k.diff(eig_diff(ns, n, w, want));
        if (v) k.bound("resid", eig_residual_of(ns, n, As.data(), w, VR.data()), 1e-12);
    };

    const auto first = spread(std::min<int64_t>(lp, 8), 8);
    const Stat x = xgeev_loop(c, ck, n, v, dP.get(), lp,
                              host_eigs(int64_t(first.size()), n, gather(P, pool, sz(nn), first)));
    r.b = scaled(x, double(batch), extrap_tag(lp));

    {
        const size_t t = sz(batch * nn);
        Dev<T> A(t), VR(v ? t : 1);
        DevEig<T> W(batch, n);
        Dev<int> info(sz(batch));
        r.a = time_gpusvd(
            c, [&] { tile(c, A.get(), dP.get(), pool, sz(nn), batch); },
            [&] { return W.call(c.g, job, n, A.get(), v ? VR.get() : nullptr, batch, info.get()); },
            r);
        if (r.a.ok()) {
            ck.info("gpusvd", info, sz(batch), true);
            check_sample(ck, W.values_at(n, idx),
                         v ? download_at(VR, sz(nn), idx) : std::vector<T>());
        }
    }

    std::vector<T> Ah(sz(hs * nn));
    HostEig<T> he(hs, n, v);
    r.c = host_column(
        c, hs, batch,
        [&] { std::copy(P.begin(), P.begin() + std::ptrdiff_t(Ah.size()), Ah.begin()); },
        [&] {
            he.run(hs, n, v, Ah.data());
            return true;
        });
    r.flops = double(batch) * flop_factor<T>() * geev_flops(double(n), v);
    // A, W (n complex values, or wr and wi) and VR.
    r.bytes = double(batch) * (double(nn + (v ? nn : 0)) * sizeof(T) + double(n) * sizeof(cplx));
    r.goals = gc.goals;
    ck.finish(r, 1e-8);

    std::vector<Row> out;
    if constexpr (std::is_same_v<T, double>) {
        if (gc.host_form) {
            // Host memory to host memory: the host-pointer form on a handle with the GPU backend,
            // pageable arrays (the library stages them through its pinned buffers).
            Row h = r;
            h.name = kHostFormName;
            h.d = published(gc);
            h.pcie_bytes =
                double(batch) * double(std::max(nn, 2 * n + (v ? nn : 0))) * sizeof(double);
            h.goals = {{Goal::MaxMs, 250.0}};
            h.failed = false;
            Check hk;
            gpusvdHandle_t hg = nullptr;
            gpusvdStatus_t st = gpusvdCreate(&hg);
            if (st == GPUSVD_STATUS_SUCCESS) st = gpusvdSetBackend(hg, GPUSVD_BACKEND_GPU);
            std::string err;
            bool hard = false;
            if (st != GPUSVD_STATUS_SUCCESS) {
                gpusvd_ok(hg, st, &err, &hard);
                h.a = note_only(err);
            } else {
                std::vector<double> HA(sz(batch * nn)), Hwr(sz(batch * n)), Hwi(Hwr.size()),
                    HVR(v ? HA.size() : 1);
                std::vector<int> Hinfo(sz(batch), -1);
                h.a = time_host(
                    gpu_budget(c), [&] { tile_host(HA.data(), P, pool, sz(nn), batch); },
                    [&] {
                        return gpusvd_ok(
                            hg,
                            Api<double>::geev_batched(hg, job, n, HA.data(), n, nn, Hwr.data(),
                                                      Hwi.data(), n, v ? HVR.data() : nullptr, n,
                                                      nn, batch, Hinfo.data()),
                            &err, &hard);
                    },
                    &err);
                if (h.a.ok()) {
                    hk.info_of("gpusvd", Hinfo, true);
                    const auto wr = gather(Hwr, batch, sz(n), idx),
                               wi = gather(Hwi, batch, sz(n), idx);
                    check_sample(hk, to_complex(wr.size(), wr.data(), wi.data()),
                                 v ? gather(HVR, batch, sz(nn), idx) : std::vector<double>());
                }
            }
            gpusvdDestroy(hg);
            if (hard) h.failed = true;
            hk.finish(h, 1e-8);
            out.push_back(h);
        }
    }
    out.push_back(r);
    if (gc.per_matrix) {
        Row p = r;
        p.table = kPerMatrix;
        p.size = dims(n, n) + " per matrix";
        p.a = scaled(r.a, 1.0 / double(batch));
        p.b = scaled(r.b, 1.0 / double(batch), "(loop of " + std::to_string(lp) + ")");
        p.c = scaled(r.c, 1.0 / double(batch),
                     hs < batch ? "(" + std::to_string(hs) + " matrices)" : "");
        p.flops = r.flops / double(batch);
        p.bytes = r.bytes / double(batch);
        p.per = double(batch);
        p.goals.clear();
        out.push_back(p);
    }
    return out;
}

}  // namespace

void geev_tables(Gpu &c) {
    const bool q = c.o.quick;
    const int64_t B = 500000, loop = q ? 10 : 100;
    auto host_ratio = [](double x) { return std::vector<Goal>{{Goal::HostRatio, x}}; };
    std::vector<GeevCase> cases;
    if (q) {
        cases = {{30, false, 20000, true, true, {}}};
    } else {
        cases = {{30, false, B, true, true, {{Goal::MaxMs, 60.0}, {Goal::HostRatio, 10.0}}}};
        for (int64_t n : {5, 10, 15, 20, 25, 64})
            cases.push_back({n, false, B, false, n == 10 || n == 64, host_ratio(10.0)});
        cases.push_back({30, true, 100000, false, true, host_ratio(5.0)});
    }
    std::vector<Row> rows;
    for (const GeevCase &gc : cases) {
        const int64_t hs = q ? 2000 : (gc.n >= 64 ? 4000 : 20000);
        guarded(c, rows, kTotals, dev_name<double>(gc.vectors), bdims(gc.batch, gc.n, gc.n),
                [&] { return geev_case<double>(c, gc, loop, hs); });
    }
    // Double complex, device-resident (zgeev's conventions; LAPACK zgeev on the host).
    std::vector<GeevCase> zcases;
    if (q) {
        zcases = {{30, true, 2000, false, false, {}}};
    } else {
        const Goal xgeev{Goal::CusolverRatio, 1000.0}, host{Goal::HostRatio, 20.0};
        zcases = {{30, false, 100000, false, true, {xgeev}},
                  {30, true, 100000, false, true, {xgeev, host}}};
    }
    for (const GeevCase &gc : zcases) {
        const int64_t hs = q ? 2000 : 10000;
        guarded(c, rows, kTotals, dev_name<cplx>(gc.vectors), bdims(gc.batch, gc.n, gc.n),
                [&] { return geev_case<cplx>(c, gc, loop, hs); });
    }
    c.rep.gpu_table(
        "geev_batched, whole batch (gpusvd: one call, device-resident unless host->host; "
        "cuSOLVER: loop of cusolverDnXgeev over a sample, extrapolated; host: thread-pool loop "
        "of LAPACK dgeev / zgeev on all cores over a sample, extrapolated; published: Tokura et "
        "al. 2017, 500k x 30x30 values host->host on a TITAN X)",
        of_table(rows, kTotals), c.dev, "", "published");
    c.rep.gpu_table(
        "geev_batched, ms PER MATRIX (the same runs: gpusvd's batch time / batch; cuSOLVER has "
        "no batched geev: one cusolverDnXgeev call per matrix; host: thread-pool loop of dgeev / "
        "zgeev)",
        of_table(rows, kPerMatrix), c.dev);
}

}  // namespace bench
