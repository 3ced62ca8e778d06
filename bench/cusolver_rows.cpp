// GPU tables: gpusvd's `_gpu` forms vs cuSOLVER vs LAPACK on the host CPUs, same data, same run.
// Device data is resident (no transfers timed); inputs are restored by a device-to-device copy
// before every run (untimed); device times are cudaEvent pairs on one stream, medians after a
// warm-up. Every CUDA/cuBLAS/cuSOLVER return code and every info array is checked. Results are
// compared with LAPACK on a sample of the same matrices (the "check" column).
//
// While gpusvd has no GPU kernels its `_gpu` forms return GPUSVD_STATUS_NOT_SUPPORTED and the
// gpusvd column reads "n/a (not supported yet)"; when they succeed, the same rows time them.
#include <omp.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench.hpp"
#include "cuda_util.hpp"
#include "flops.hpp"
#include "lapack_ref.hpp"

namespace bench {

namespace {

/* ---- gesvdj (one matrix) ------------------------------------------------------------------- */

Row gesvdj_row(Gpu &c, int64_t n) {
    Row r;
    r.table = "gpu:gesvj";
    r.name = "dgesvj_gpu vs cusolverDnDgesvdj +U,V";
    r.size = dims(n, n);
    const size_t nn = sz(n * n);
    const auto A0 = random_vector<double>(nn, 7000 + n);
    Dev<double> dA0(nn), dA(nn), S(n), U(nn), V(nn), Sg(n), Ug(nn), Vg(nn);
    Dev<int> info(1), infog(1);
    dA0.upload(A0.data(), nn);

    gesvdjInfo_t params = nullptr;
    CS(cusolverDnCreateGesvdjInfo(&params));
    struct Guard {
        gesvdjInfo_t p;
        ~Guard() { cusolverDnDestroyGesvdjInfo(p); }
    } guard{params};
    const int ni = int(n);
    int lwork = 0;
    CS(cusolverDnDgesvdj_bufferSize(c.sol, CUSOLVER_EIG_MODE_VECTOR, 1, ni, ni, dA.get(), ni,
                                    S.get(), U.get(), ni, V.get(), ni, &lwork, params));
    Dev<double> work(sz(std::max(lwork, 1)));
    auto prep = [&] { restore(c, dA.get(), dA0.get(), nn); };
    r.b = time_gpu(
        c, c.o.budget(), prep,
        [&] {
            CS(cusolverDnDgesvdj(c.sol, CUSOLVER_EIG_MODE_VECTOR, 1, ni, ni, dA.get(), ni, S.get(),
                                 U.get(), ni, V.get(), ni, work.get(), lwork, info.get(), params));
            return true;
        },
        nullptr);
    int sweeps = 0;
    CS(cusolverDnXgesvdjGetSweeps(c.sol, params, &sweeps));
    bool bad = false;
    std::string note = info_summary(info.download(1), &bad);

    r.a = time_gpusvd(
        c, [&] { restore(c, dA.get(), dA0.get(), nn); },
        [&] {
            return Api<double>::gesvj_gpu(c.g, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, n, n, dA.get(), n, Sg.get(),
                                  Ug.get(), n, Vg.get(), n, infog.get());
        },
        r);
    if (r.a.ok()) note += info_summary(infog.download(1), &bad);

    // Host: LAPACK dgesvj (multithreaded OpenBLAS), the same algorithm family.
    std::vector<double> Ah(nn), Sh(n), Vh(nn), wk(sz(std::max<int64_t>(6, 2 * n)));
    if (c.o.host_on_gpu_rows) {
        r.c = time_host(
            host_budget(c), [&] { std::copy(A0.begin(), A0.end(), Ah.begin()); },
            [&] {
                return ref::gesvj('G', 'U', 'V', ni, ni, Ah.data(), ni, Sh.data(), 0, Vh.data(), ni,
                                  wk.data(), lapack_int(wk.size())) >= 0;
            });
    } else {
        r.c.note = "skipped (--no-host)";
    }
    // Check against LAPACK dgesdd singular values (fast, independent of the host column).
    std::vector<double> Ad(A0), Sd(n);
    std::vector<lapack_int> iw(sz(8 * n));
    double q = 0;
    ref::gesdd('N', ni, ni, Ad.data(), ni, Sd.data(), nullptr, 1, nullptr, 1, &q, -1, iw.data());
    std::vector<double> wd(sz(ref::lwork_of(q)));
    const lapack_int e = ref::gesdd('N', ni, ni, Ad.data(), ni, Sd.data(), nullptr, 1, nullptr, 1,
                                    wd.data(), lapack_int(wd.size()), iw.data());
    double rel = e ? NAN : max_rel_diff(sz(n), S.download(n).data(), Sd.data());
    if (r.a.ok()) rel = std::max(rel, max_rel_diff(sz(n), Sg.download(n).data(), Sd.data()));
    r.flops = jacobi_flops(sweeps, double(n), double(n), true);
    r.bytes = double(nn + n + 2 * nn) * sizeof(double);
    r.check = check_text(rel, 1e-10, &r.failed) + " sweeps " + std::to_string(sweeps) + note;
    if (bad) r.failed = true;
    return r;
}

/* ---- gesvdjBatched ------------------------------------------------------------------------- */

Row gesvdj_batched_row(Gpu &c, int64_t batch, int64_t n) {
    Row r;
    r.table = "gpu:gesvj_batched";
    r.name = "dgesvj_batched_gpu vs cusolverDnDgesvdjBatched +U,V";
    r.size = std::to_string(batch) + " x " + dims(n, n);
    const int64_t nn = n * n;
    const size_t total = sz(batch * nn);
    const auto A0 = random_vector<double>(total, 7100 + n + batch);
    Dev<double> dA0(total), dA(total), S(sz(batch * n)), U(total), V(total);
    Dev<int> info(sz(batch));
    dA0.upload(A0.data(), total);

    gesvdjInfo_t params = nullptr;
    CS(cusolverDnCreateGesvdjInfo(&params));
    struct Guard {
        gesvdjInfo_t p;
        ~Guard() { cusolverDnDestroyGesvdjInfo(p); }
    } guard{params};
    CS(cusolverDnXgesvdjSetSortEig(params, 1));
    const int ni = int(n), bi = int(batch);
    int lwork = 0;
    CS(cusolverDnDgesvdjBatched_bufferSize(c.sol, CUSOLVER_EIG_MODE_VECTOR, ni, ni, dA.get(), ni,
                                           S.get(), U.get(), ni, V.get(), ni, &lwork, params, bi));
    Dev<double> work(sz(std::max(lwork, 1)));
    auto prep = [&] { restore(c, dA.get(), dA0.get(), total); };
    r.b = time_gpu(
        c, c.o.budget(), prep,
        [&] {
            CS(cusolverDnDgesvdjBatched(c.sol, CUSOLVER_EIG_MODE_VECTOR, ni, ni, dA.get(), ni,
                                        S.get(), U.get(), ni, V.get(), ni, work.get(), lwork,
                                        info.get(), params, bi));
            return true;
        },
        nullptr);
    bool bad = false;
    std::string note = info_summary(info.download(sz(batch)), &bad);
    const auto Sc = S.download(sz(batch * n));

    // gpusvd on its own outputs (reusing dA as input, restored each run).
    std::vector<double> Sg;
    {
        Dev<double> Sgd(sz(batch * n)), Ug(total), Vg(total);
        Dev<int> infog(sz(batch));
        r.a = time_gpusvd(
            c, prep,
            [&] {
                return Api<double>::gesvj_batched_gpu(c.g, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, n, n, dA.get(),
                                              n, nn, Sgd.get(), n, Ug.get(), n, nn, Vg.get(), n, nn,
                                              batch, infog.get());
            },
            r);
        if (r.a.ok()) {
            note += info_summary(infog.download(sz(batch)), &bad);
            Sg = Sgd.download(sz(batch * n));
        }
    }

    const int64_t lwork_h = std::max<int64_t>(6, 2 * n);
    auto host_loop = [&](int64_t count, std::vector<double> &Ah, std::vector<double> &Sh,
                         std::vector<double> &Vh, std::vector<double> &wk,
                         std::vector<double> *sweeps) {
        ref::omp_batch(count, [&](int64_t i, int t) {
            double *w = wk.data() + sz(t) * lwork_h;
            ref::gesvj('G', 'U', 'V', ni, ni, Ah.data() + i * nn, ni, Sh.data() + i * n, 0,
                       Vh.data() + i * nn, ni, w, lapack_int(lwork_h));
            if (sweeps) (*sweeps)[i] = w[3];
        });
    };
    const size_t th = sz(omp_get_max_threads());
    if (c.o.host_on_gpu_rows) {
        std::vector<double> Ah(total), Sh(sz(batch * n)), Vh(total), wk(th * lwork_h);
        r.c = time_host(
            host_budget(c), [&] { std::copy(A0.begin(), A0.end(), Ah.begin()); },
            [&] {
                host_loop(batch, Ah, Sh, Vh, wk, nullptr);
                return true;
            });
    } else {
        r.c.note = "skipped (--no-host)";
    }
    // Sample of the batch on the host: sweeps for the flop count, values for the check.
    const int64_t ns = std::min<int64_t>(batch, 256);
    std::vector<double> As(A0.begin(), A0.begin() + ns * nn), Ss(sz(ns * n)), Vs(sz(ns * nn)),
        wk(th * lwork_h), sw(sz(ns));
    host_loop(ns, As, Ss, Vs, wk, &sw);
    double mean_sweeps = 0;
    for (double x : sw) mean_sweeps += x / double(ns);
    const auto ref_s = sorted_desc(Ss, sz(n), sz(ns));
    double rel = max_rel_diff(sz(ns * n), sorted_desc(Sc, sz(n), sz(ns)).data(), ref_s.data());
    if (!Sg.empty())
        rel = std::max(
            rel, max_rel_diff(sz(ns * n), sorted_desc(Sg, sz(n), sz(ns)).data(), ref_s.data()));
    r.flops = double(batch) * jacobi_flops(mean_sweeps, double(n), double(n), true);
    r.bytes = double(batch) * double(nn + n + 2 * nn) * sizeof(double);
    r.check = check_text(rel, 1e-10, &r.failed) + note;
    if (bad) r.failed = true;
    return r;
}

/* ---- geqrf + orgqr ------------------------------------------------------------------------- */

Row geqrf_row(Gpu &c, int64_t m, int64_t n) {
    Row r;
    r.table = "gpu:geqrf_mgs";
    r.name = "dgeqrf_mgs_gpu(MGS2) vs cusolverDnDgeqrf+R copy+Dorgqr";
    r.size = dims(m, n);
    const size_t mn = sz(m * n), nn = sz(n * n);
    const auto A0 = random_vector<double>(mn, 7200 + m + n);
    Dev<double> dA0(mn), dA(mn), tau(sz(n)), R(nn), Ag(mn), Rg(nn);
    Dev<int> info(1), infog(1);
    dA0.upload(A0.data(), mn);
    const int mi = int(m), ni = int(n);
    int l1 = 0, l2 = 0;
    CS(cusolverDnDgeqrf_bufferSize(c.sol, mi, ni, dA.get(), mi, &l1));
    CS(cusolverDnDorgqr_bufferSize(c.sol, mi, ni, ni, dA.get(), mi, tau.get(), &l2));
    const int lwork = std::max({l1, l2, 1});
    Dev<double> work(sz(lwork));
    std::vector<double> diag_c;
    r.b = time_gpu(
        c, c.o.budget(), [&] { restore(c, dA.get(), dA0.get(), mn); },
        [&] {
            CS(cusolverDnDgeqrf(c.sol, mi, ni, dA.get(), mi, tau.get(), work.get(), lwork,
                                info.get()));
            // R (upper triangle of the factored A) out before orgqr overwrites it.
            CU(cudaMemcpy2DAsync(R.get(), sz(n) * sizeof(double), dA.get(), sz(m) * sizeof(double),
                                 sz(n) * sizeof(double), sz(n), cudaMemcpyDeviceToDevice, c.s));
            CS(cusolverDnDorgqr(c.sol, mi, ni, ni, dA.get(), mi, tau.get(), work.get(), lwork,
                                info.get()));
            return true;
        },
        nullptr);
    bool bad = false;
    std::string note = info_summary(info.download(1), &bad);
    auto diag_of = [&](const Dev<double> &Rd) {
        const auto h = Rd.download(nn);
        std::vector<double> d(sz(n));
        for (int64_t j = 0; j < n; ++j) d[j] = std::abs(h[j + j * n]);
        return d;
    };
    if (r.b.ok()) diag_c = diag_of(R);

    r.a = time_gpusvd(
        c, [&] { restore(c, Ag.get(), dA0.get(), mn); },
        [&] {
            return Api<double>::geqrf_mgs_gpu(c.g, GPUSVD_ORTH_MGS2, m, n, Ag.get(), m, Rg.get(), n,
                                      infog.get());
        },
        r);
    std::vector<double> diag_g;
    if (r.a.ok()) {
        note += info_summary(infog.download(1), &bad);
        diag_g = diag_of(Rg);
    }

    // Host: dgeqrf + R copy + dorgqr, multithreaded OpenBLAS; its |R(j,j)| is the check.
    std::vector<double> Ah(A0), th(sz(n)), Rh(nn);
    double q1 = 0, q2 = 0, d = 0;
    ref::geqrf(mi, ni, &d, mi, &d, &q1, -1);
    ref::orgqr(mi, ni, ni, &d, mi, &d, &q2, -1);
    const lapack_int lw = std::max(ref::lwork_of(q1), ref::lwork_of(q2));
    std::vector<double> wk(sz(lw));
    auto host_run = [&](bool with_q) {
        lapack_int e = ref::geqrf(mi, ni, Ah.data(), mi, th.data(), wk.data(), lw);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) Rh[i + j * n] = i <= j ? Ah[i + j * m] : 0.0;
        if (!e && with_q) e = ref::orgqr(mi, ni, ni, Ah.data(), mi, th.data(), wk.data(), lw);
        return e == 0;
    };
    if (c.o.host_on_gpu_rows)
        r.c = time_host(
            host_budget(c), [&] { std::copy(A0.begin(), A0.end(), Ah.begin()); },
            [&] { return host_run(true); });
    else
        r.c.note = "skipped (--no-host)";
    std::copy(A0.begin(), A0.end(), Ah.begin());
    double rel = NAN;
    if (host_run(false)) {
        std::vector<double> dh(sz(n));
        for (int64_t j = 0; j < n; ++j) dh[j] = std::abs(Rh[j + j * n]);
        rel = diag_c.empty() ? NAN : max_rel_diff(sz(n), diag_c.data(), dh.data());
        if (!diag_g.empty()) rel = std::max(rel, max_rel_diff(sz(n), diag_g.data(), dh.data()));
    }
    r.flops = geqrf_flops(double(m), double(n)) + orgqr_flops(double(m), double(n));
    r.bytes = double(2 * mn + nn) * sizeof(double);
    r.check = check_text(rel, 1e-10, &r.failed) + note;
    if (bad) r.failed = true;
    return r;
}

/* ---- Xgeev loop ---------------------------------------------------------------------------- */

struct GeevCase {
    int64_t n;
    bool vectors;
};

/// Times per matrix. cuSOLVER: a loop of `loop` cusolverDnXgeev calls (it has no batched geev);
/// gpusvd: one geev_batched_gpu call over a large batch (the pool tiled); host: an OpenMP loop
/// of dgeev over `host_count` matrices.
Row geev_row(Gpu &c, GeevCase gc, int64_t loop, int64_t host_count, int64_t extrapolate,
             std::string *foot) {
    const int64_t n = gc.n, nn = n * n;
    Row r;
    r.table = "gpu:geev_batched";
    r.name = std::string("dgeev_batched_gpu vs cusolverDnXgeev loop") + (gc.vectors ? " +VR" : "");
    r.size = dims(n, n) + " per matrix";
    r.per = double(extrapolate);
    const int64_t pool = std::max(loop, host_count);
    const auto A0 = random_vector<double>(sz(pool * nn), 7300 + n);
    const size_t lt = sz(loop * nn);
    Dev<double> dA0(lt), dA(lt), VR(gc.vectors ? lt : 1);
    Dev<cuDoubleComplex> W(sz(loop * n));
    Dev<int> info(sz(loop));
    dA0.upload(A0.data(), lt);

    cusolverDnParams_t params = nullptr;
    CS(cusolverDnCreateParams(&params));
    struct Guard {
        cusolverDnParams_t p;
        ~Guard() { cusolverDnDestroyParams(p); }
    } guard{params};
    const cusolverEigMode_t jv = gc.vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    size_t dws = 0, hws = 0;
    // Real A, complex W, real VR (the form of NVIDIA's Xgeev sample); VL not referenced.
    CS(cusolverDnXgeev_bufferSize(c.sol, params, CUSOLVER_EIG_MODE_NOVECTOR, jv, n, CUDA_R_64F,
                                  dA.get(), n, CUDA_C_64F, W.get(), CUDA_R_64F, nullptr, n,
                                  CUDA_R_64F, gc.vectors ? VR.get() : nullptr, n, CUDA_R_64F, &dws,
                                  &hws));
    Dev<char> dwork(std::max<size_t>(dws, 1));
    Pinned hwork(hws);
    r.b = time_gpu(
        c, c.o.budget(), [&] { restore(c, dA.get(), dA0.get(), lt); },
        [&] {
            for (int64_t i = 0; i < loop; ++i)
                CS(cusolverDnXgeev(c.sol, params, CUSOLVER_EIG_MODE_NOVECTOR, jv, n, CUDA_R_64F,
                                   dA.get() + i * nn, n, CUDA_C_64F, W.get() + i * n, CUDA_R_64F,
                                   nullptr, n, CUDA_R_64F, gc.vectors ? VR.get() + i * nn : nullptr,
                                   n, CUDA_R_64F, dwork.get(), dws, hwork.get(), hws,
                                   info.get() + i));
            return true;
        },
        nullptr);
    if (r.b.ok()) {
        r.b.ms /= double(loop);
        r.b.min_ms /= double(loop);
    }
    bool bad = false;
    std::string note = info_summary(info.download(sz(loop)), &bad);
    const auto Wc = W.download(sz(loop * n));

    // gpusvd: probe on the loop's matrices; when supported, time a large tiled batch.
    std::vector<double> wrg, wig;
    int64_t gb = loop;
    {
        Dev<double> wr(sz(loop * n)), wi(sz(loop * n)), VRg(gc.vectors ? lt : 1);
        Dev<int> infog(sz(loop));
        bool supported = false;
        {
            const gpusvdStatus_t st = Api<double>::geev_batched_gpu(
                c.g, gc.vectors ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC, n, dA.get(), n, nn, wr.get(),
                wi.get(), n, gc.vectors ? VRg.get() : nullptr, n, nn, loop, infog.get());
            CU(cudaStreamSynchronize(c.s));
            supported = st == GPUSVD_STATUS_SUCCESS;
            if (supported) {
                wrg = wr.download(sz(loop * n));
                wig = wi.download(sz(loop * n));
                note += info_summary(infog.download(sz(loop)), &bad);
            } else {
                r.a = time_gpusvd(
                    c, [] {}, [&] { return st; }, r);  // records the n/a note
            }
        }
        if (supported) {
            // Batch as large as `extrapolate`, within 40% of free memory (input, its pristine
            // copy, eigenvalues, vectors), a multiple of the loop.
            size_t freeb = 0, totalb = 0;
            CU(cudaMemGetInfo(&freeb, &totalb));
            const double per = double((2 * nn + 2 * n + (gc.vectors ? nn : 0)) * 8 + 4);
            gb = std::min<int64_t>(extrapolate, int64_t(0.4 * double(freeb) / per));
            gb = std::max<int64_t>(loop, gb / loop * loop);
            const size_t gt = sz(gb * nn);
            Dev<double> B0(gt), B(gt), bwr(sz(gb * n)), bwi(sz(gb * n)), bVR(gc.vectors ? gt : 1);
            Dev<int> binfo(sz(gb));
            for (int64_t off = 0; off < gb; off += loop)
                CU(cudaMemcpyAsync(B0.get() + off * nn, dA0.get(), lt * sizeof(double),
                                   cudaMemcpyDeviceToDevice, c.s));
            r.a = time_gpusvd(
                c, [&] { restore(c, B.get(), B0.get(), gt); },
                [&] {
                    return Api<double>::geev_batched_gpu(
                        c.g, gc.vectors ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC, n, B.get(), n, nn,
                        bwr.get(), bwi.get(), n, gc.vectors ? bVR.get() : nullptr, n, nn, gb,
                        binfo.get());
                },
                r);
            if (r.a.ok()) {
                r.a.ms /= double(gb);
                r.a.min_ms /= double(gb);
                note += info_summary(binfo.download(sz(gb)), &bad);
            }
        }
    }

    // Host: OpenMP loop of dgeev over host_count matrices, per matrix.
    const char hj = gc.vectors ? 'V' : 'N';
    double q = 0, d = 0;
    ref::geev(hj, lapack_int(n), &d, lapack_int(n), &d, &d, &d, lapack_int(n), &q, -1);
    const lapack_int lw = ref::lwork_of(q);
    const size_t th = sz(omp_get_max_threads());
    auto host_loop = [&](int64_t count, std::vector<double> &Ah, std::vector<double> &wr,
                         std::vector<double> &wi, std::vector<double> &vr,
                         std::vector<double> &wk) {
        ref::omp_batch(count, [&](int64_t i, int t) {
            ref::geev(hj, lapack_int(n), Ah.data() + i * nn, lapack_int(n), wr.data() + i * n,
                      wi.data() + i * n, gc.vectors ? vr.data() + i * nn : vr.data(),
                      lapack_int(gc.vectors ? n : 1), wk.data() + t * sz(lw), lw);
        });
    };
    if (c.o.host_on_gpu_rows) {
        const size_t ht = sz(host_count * nn);
        std::vector<double> Ah(ht), wr(sz(host_count * n)), wi(wr.size()), vr(gc.vectors ? ht : 1),
            wk(th * lw);
        r.c = time_host(
            host_budget(c), [&] { std::copy(A0.begin(), A0.begin() + ht, Ah.begin()); },
            [&] {
                host_loop(host_count, Ah, wr, wi, vr, wk);
                return true;
            });
        if (r.c.ok()) {
            r.c.ms /= double(host_count);
            r.c.min_ms /= double(host_count);
        }
    } else {
        r.c.note = "skipped (--no-host)";
    }
    // Check: eigenvalues of the first matrices, cuSOLVER (and gpusvd) vs LAPACK.
    const int64_t ns = std::min<int64_t>(loop, 32);
    std::vector<double> As(A0.begin(), A0.begin() + ns * nn), wr(sz(ns * n)), wi(wr.size()),
        vr(gc.vectors ? sz(ns * nn) : 1), wk(th * lw);
    host_loop(ns, As, wr, wi, vr, wk);
    double rel = 0;
    for (int64_t i = 0; i < ns; ++i) {
        std::vector<std::complex<double>> h(sz(n)), x(sz(n)), y(sz(n));
        for (int64_t j = 0; j < n; ++j) {
            h[j] = {wr[i * n + j], wi[i * n + j]};
            x[j] = {Wc[i * n + j].x, Wc[i * n + j].y};
            if (!wrg.empty()) y[j] = {wrg[i * n + j], wig[i * n + j]};
        }
        rel = std::max(rel, eig_distance(sz(n), x.data(), h.data()));
        if (!wrg.empty()) rel = std::max(rel, eig_distance(sz(n), y.data(), h.data()));
        if (rel != rel) break;
    }
    r.flops = geev_flops(double(n), gc.vectors);
    r.bytes = double(nn + 2 * n + (gc.vectors ? nn : 0)) * sizeof(double);
    r.check = check_text(rel, 1e-8, &r.failed) + note;
    if (bad) r.failed = true;

    char buf[256];
    auto ext = [&](const Stat &s) {
        char t[32];
        std::snprintf(t, sizeof t, "%.4g s", s.ms * double(extrapolate) / 1e3);
        return s.ok() ? std::string(t) : std::string("-");
    };
    std::snprintf(buf, sizeof buf,
                  "  %s%s: per matrix x %lld = gpusvd %s (batch %lld), cuSOLVER %s (loop of %lld), "
                  "host %s (%lld matrices)\n",
                  dims(n, n).c_str(), gc.vectors ? " +VR" : "", (long long)extrapolate,
                  ext(r.a).c_str(), (long long)gb, ext(r.b).c_str(), (long long)loop,
                  ext(r.c).c_str(), (long long)host_count);
    *foot += buf;
    return r;
}

/* ---- ceilings ------------------------------------------------------------------------------ */

Ceilings measure_device_ceilings(Gpu &c) {
    Ceilings d;
    const Budget b{5, 10.0};
    {
        const size_t bytes = sz(c.o.quick ? 64 : 1024) << 20, n = bytes / sizeof(double);
        Dev<double> x(n), y(n);
        const auto h = random_vector<double>(std::min<size_t>(n, 1 << 20), 11);
        for (size_t off = 0; off < n; off += h.size())
            CU(cudaMemcpy(x.get() + off, h.data(), std::min(h.size(), n - off) * sizeof(double),
                          cudaMemcpyHostToDevice));
        const Stat s = time_gpu(
            c, b, [] {},
            [&] {
                restore(c, y.get(), x.get(), n);
                return true;
            },
            nullptr);
        if (s.ok()) d.gbs = 2.0 * double(bytes) / (s.ms * 1e6);
    }
    {
        const int n = c.o.quick ? 2048 : 8192;
        const size_t nn = sz(n) * n;
        Dev<double> A(nn), C(nn);
        const auto h = random_vector<double>(nn, 12);
        A.upload(h.data(), nn);
        const double one = 1, zero = 0;
        const Stat s = time_gpu(
            c, Budget{3, 10.0}, [] {},
            [&] {
                CB(cublasDgemm(c.blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A.get(), n, A.get(),
                               n, &zero, C.get(), n));
                return true;
            },
            nullptr);
        if (s.ok()) d.gflops = 2.0 * double(n) * n * n / (s.ms * 1e6);
    }
    return d;
}

/// Runs one row, turning CUDA/cuSOLVER errors into a failed row instead of ending the run.
template <class F>
void guarded(Gpu &c, std::vector<Row> &rows, const char *table, const std::string &name,
             const std::string &size, F &&f) {
    if (!c.rep.wanted(table, name, size)) return;
    try {
        rows.push_back(f());
    } catch (const std::exception &e) {
        Row r;
        r.table = table;
        r.name = name;
        r.size = size;
        r.b.note = std::string("ERROR ") + e.what();
        r.failed = true;
        rows.push_back(r);
        cudaGetLastError();  // clear a non-sticky error so the next rows can run
    }
}

}  // namespace

bool gpu_present(std::string *description) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        *description =
            std::string("none (") +
            (e != cudaSuccess ? std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e)
                              : std::string("no CUDA device")) +
            "): cuSOLVER rows skipped";
        return false;
    }
    cudaDeviceProp p{};
    int drv = 0, rt = 0;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        *description = "none (cudaGetDeviceProperties failed): cuSOLVER rows skipped";
        return false;
    }
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "%s (sm_%d%d, %d SMs, %.1f GiB), %d device(s), driver CUDA %d.%d, runtime %d.%d; "
                  "device 0 used",
                  p.name, p.major, p.minor, p.multiProcessorCount,
                  double(p.totalGlobalMem) / 1073741824.0, count, drv / 1000, (drv % 1000) / 10,
                  rt / 1000, (rt % 1000) / 10);
    *description = buf;
    return true;
}

int run_cusolver_rows(const Options &o, Report &rep, const Ceilings &host) {
    Gpu c{o, rep, host, {}};
    bool ready = false;
    try {
        CU(cudaSetDevice(0));
        CU(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
        CU(cudaEventCreate(&c.e0));
        CU(cudaEventCreate(&c.e1));
        CS(cusolverDnCreate(&c.sol));
        CS(cusolverDnSetStream(c.sol, c.s));
        CB(cublasCreate(&c.blas));
        CB(cublasSetStream(c.blas, c.s));
        const gpusvdStatus_t st = gpusvdCreate(&c.g);
        if (st != GPUSVD_STATUS_SUCCESS)
            throw GpuError("gpusvdCreate: " + status_text(nullptr, st));
        const gpusvdStatus_t st2 = gpusvdSetStream(c.g, c.s);
        if (st2 != GPUSVD_STATUS_SUCCESS)
            throw GpuError("gpusvdSetStream: " + status_text(c.g, st2));
        c.dev = measure_device_ceilings(c);
        ready = true;
    } catch (const std::exception &e) {
        std::printf("\nGPU setup failed: %s\n", e.what());
        rep.fail();
    }
    if (ready) {
        std::printf(
            "\nGPU ceilings (floor column of the GPU tables): DGEMM %.0f GFLOP/s (cuBLAS, "
            "n = %d), device copy %.0f GB/s (read + write)\n",
            c.dev.gflops, o.quick ? 2048 : 8192, c.dev.gbs);
        std::printf(
            "GPU tables: ms, medians of cudaEvent-timed runs on device-resident data; "
            "ratios > 1 mean the first-named is slower (cuSOLVER/gpusvd > 1: gpusvd "
            "faster). Host = LAPACK on %d CPU threads.\n",
            omp_get_max_threads());
        const bool q = o.quick;
        std::vector<Row> rows;

        for (int64_t n : o.gesvdj_n)
            guarded(c, rows, "gpu:gesvj", "dgesvj_gpu vs cusolverDnDgesvdj +U,V", dims(n, n),
                    [&] { return gesvdj_row(c, n); });
        rep.gpu_table(
            "gesvj (one matrix, U and V; cuSOLVER default tolerance eps, max 100 "
            "sweeps; host: dgesvj)",
            rows, c.dev);
        rows.clear();

        const int64_t bj = q ? 2000 : 100000;
        for (int64_t n : {16, 32}) {
            const std::string size = std::to_string(bj) + " x " + dims(n, n);
            guarded(c, rows, "gpu:gesvj_batched",
                    "dgesvj_batched_gpu vs cusolverDnDgesvdjBatched +U,V", size,
                    [&] { return gesvdj_batched_row(c, bj, n); });
        }
        rep.gpu_table("gesvj_batched (U and V; host: OpenMP loop of dgesvj)", rows, c.dev);
        rows.clear();

        for (int64_t m : q ? std::vector<int64_t>{20000} : std::vector<int64_t>{100000, 1000000})
            guarded(c, rows, "gpu:geqrf_mgs",
                    "dgeqrf_mgs_gpu(MGS2) vs cusolverDnDgeqrf+R copy+Dorgqr", dims(m, 64),
                    [&] { return geqrf_row(c, m, 64); });
        rep.gpu_table("geqrf_mgs (explicit Q and R; host: dgeqrf + R copy + dorgqr)", rows, c.dev);
        rows.clear();

        const int64_t loop = q ? 10 : 100, extrapolate = 500000;
        std::string foot = "  extrapolated to " + std::to_string(extrapolate) + " matrices:\n";
        const std::vector<GeevCase> cases =
            q ? std::vector<GeevCase>{{10, false}, {30, false}}
              : std::vector<GeevCase>{{10, false}, {30, false}, {64, false}, {30, true}};
        for (GeevCase gc : cases) {
            const int64_t hc = q ? 200 : (gc.n >= 64 ? 4000 : 20000);
            const std::string name = std::string("dgeev_batched_gpu vs cusolverDnXgeev loop") +
                                     (gc.vectors ? " +VR" : "");
            guarded(c, rows, "gpu:geev_batched", name, dims(gc.n, gc.n) + " per matrix",
                    [&] { return geev_row(c, gc, loop, hc, extrapolate, &foot); });
        }
        rep.gpu_table(
            "geev_batched (ms PER MATRIX; cuSOLVER has no batched geev: a loop of "
            "cusolverDnXgeev; host: OpenMP loop of dgeev)",
            rows, c.dev, rows.empty() ? "" : foot);
        rows.clear();
    }
    if (c.g) gpusvdDestroy(c.g);
    if (c.blas) cublasDestroy(c.blas);
    if (c.sol) cusolverDnDestroy(c.sol);
    if (c.e0) cudaEventDestroy(c.e0);
    if (c.e1) cudaEventDestroy(c.e1);
    if (c.s) cudaStreamDestroy(c.s);
    std::fflush(stdout);
    return rep.any_failed() ? 1 : 0;
}

}  // namespace bench
