// CPU tables: gpusvd on the CPU backend against the direct LAPACKE calls doing the same work,
// with the same thread settings (single matrices: OpenBLAS threads as set; batches: the
// library's thread pool over matrices with OpenBLAS single-threaded, see lapack_ref.hpp).
// One table, cpu:gesvj_vs_gesdd, sets gpusvd's Jacobi SVD against a different LAPACK method,
// ?gesdd: what choosing Jacobi on the CPU costs in time and buys in accuracy.
//
// Flop counts and bytes: see flops.hpp.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bench.hpp"
#include "flops.hpp"
#include "lapack_ref.hpp"
#include "matgen.hpp"

namespace bench {

namespace {

constexpr auto VEC = GPUSVD_JOB_VEC;
constexpr auto NOVEC = GPUSVD_JOB_NOVEC;

template <class T>
double tol_for(int64_t size) {  // same algorithm on both sides: agreement to rounding
    return 10.0 * double(std::max<int64_t>(size, 1)) * std::numeric_limits<T>::epsilon();
}
template <class T>
std::vector<T> nans(size_t n) {
    return std::vector<T>(n, std::numeric_limits<T>::quiet_NaN());
}
struct Cpu {
    const Options &o;
    Report &rep;
    const Ceilings &host;
    gpusvdHandle_t h;
    Budget b;
};

/// Runs a gpusvd call inside a timed region: false and `err` on a non-success status.
#define GS_CALL(call)                       \
    do {                                    \
        const gpusvdStatus_t st_ = (call);  \
        if (st_ != GPUSVD_STATUS_SUCCESS) { \
            err = status_text(c.h, st_);    \
            return false;                   \
        }                                   \
    } while (0)

int64_t count_nonzero(const std::vector<int> &v) {
    return std::count_if(v.begin(), v.end(), [](int x) { return x != 0; });
}

/// Final "check" text: info problems first, then the value comparison.
std::string finish_check(Row &r, int64_t bad_a, int64_t bad_b, double rel, double tol) {
    if (!r.a.ok() || !r.b.ok()) {
        r.failed = true;
        return "not compared";
    }
    if (bad_a || bad_b) {
        r.failed = true;
        return "info != 0: gpusvd " + std::to_string(bad_a) + ", LAPACK " + std::to_string(bad_b);
    }
    return check_text(rel, tol, &r.failed);
}

// Both sides use the same input/output buffers wherever their outputs coincide (A, V, VR, U/VT),
// so that buffer placement (cache-set conflicts, 4K aliasing) cannot favour one side; only the
// outputs that are compared (singular values, R, eigenvalues, ...) have a copy per side.

/* ---- gesvj --------------------------------------------------------------------------------- */

template <class T>
Row gesvj_row(Cpu &c, int64_t batch, int64_t m, int64_t n, bool batched) {
    Row r;
    r.table = batched ? "cpu:gesvj_batched" : "cpu:gesvj";
    r.name = std::string(px<T>()) + (batched ? "gesvj_batched" : "gesvj");
    r.size = batched ? bdims(batch, m, n) : dims(m, n);
    const int64_t mn = m * n, nn = n * n;  // cases are tall: m >= n, k = n
    const auto A0 = random_vector<T>(size_t(batch * mn), 1000 + m * 7 + n + batch);
    std::vector<T> A(A0.size()), U = nans<T>(A0.size()), V = nans<T>(batch * nn),
                                 S = nans<T>(batch * n), Sr = nans<T>(batch * n);
    std::vector<int> info(batch, 0), rinfo(batch, 0);
    std::string err, err_b;
    auto prep = [&] { std::copy(A0.begin(), A0.end(), A.begin()); };
    auto run_a = [&] {
        if (batched)
            GS_CALL(Api<T>::gesvj_batched(c.h, VEC, VEC, m, n, A.data(), m, mn, S.data(), n, U.data(),
                                       m, mn, V.data(), n, nn, batch, info.data()));
        else
            GS_CALL(Api<T>::gesvj(c.h, VEC, VEC, m, n, A.data(), m, S.data(), U.data(), m, V.data(), n,
                               info.data()));
        return true;
    };
    // LAPACKE ?gesvj('G', 'U', 'V'): U overwrites A.
    const lapack_int lwork = static_cast<lapack_int>(std::max<int64_t>(6, m + n));
    std::vector<T> work(size_t(batched ? gpusvd::cpu::hardware_threads() : 1) * lwork);
    std::vector<double> sweeps(batch, 0);
    auto one = [&](int64_t i, int t) {
        T *w = work.data() + size_t(t) * lwork;
        rinfo[i] = ref::gesvj('G', 'U', 'V', lapack_int(m), lapack_int(n), A.data() + i * mn,
                              lapack_int(m), Sr.data() + i * n, 0, V.data() + i * nn, lapack_int(n),
                              w, lwork);
        sweeps[i] = double(w[3]);
    };
    auto run_b = [&] {
        if (batched)
            ref::pool_batch(batch, one);
        else
            one(0, 0);
        if (*std::min_element(rinfo.begin(), rinfo.end()) < 0) {
            err_b = "LAPACKE ?gesvj: illegal argument";
            return false;
        }
        return true;
    };
    std::tie(r.a, r.b) = time_pair(c.b, prep, run_a, prep, run_b, &err, &err_b);
    double mean_sweeps = 0;
    for (double s : sweeps) mean_sweeps += s / double(batch);
    r.flops = double(batch) * jacobi_flops(mean_sweeps, double(m), double(n), true);
    r.bytes = double(batch) * double(mn + n + mn + nn) * sizeof(T);
    r.check = finish_check(r, count_nonzero(info), count_nonzero(rinfo),
                           max_rel_diff(S.size(), S.data(), Sr.data()), tol_for<T>(m));
    return r;
}

/* ---- gesvj vs gesdd ------------------------------------------------------------------------ */

// What a user trades by choosing gpusvd's one-sided Jacobi SVD on the CPU over LAPACK's divide
// and conquer ?gesdd, both computing S, thin U and V: time on random matrices, and the relative
// error of every singular value on a graded matrix.
//
// The graded matrix (m >= n) is A = Q B: Q has orthonormal columns (Householder QR of a random
// matrix) and B is upper bidiagonal, B(j,j) = d_j, B(j-1,j) = c_j d_j, with c_j uniform in
// (-1/2, 1/2) and the column scales d_j = 10^(-14 k/(n-1)), k = 0..n-1, in a random column
// order. So A = G D with D = diag(d) and G = Q (I + N), N strictly upper with ||N|| < 1/2:
// cond(G) < 3. A column-scaled matrix with well-conditioned G determines its singular values to
// relative accuracy about eps cond(G) whatever D is, and one-sided Jacobi attains it (Demmel and
// Veselic); ?gesdd bidiagonalises with Householder transforms from both sides, whose errors are
// about eps ||A|| in absolute terms: up to eps / 1e-14 relative on the smallest values. Only
// neighbouring columns of B overlap, so Jacobi needs few rotations there: its time on this
// matrix is not typical, the random rows are the time comparison.
//
// Reference: the singular values of B by dqds (?bdsqr without vectors), accurate in the relative
// sense to a modest multiple of n eps for any bidiagonal (Demmel and Kahan; Fernando and
// Parlett). They are A's to about that accuracy too: rounding A = fl(Q B) moves each column of
// G by at most 1.5 eps in norm, so ||dG|| <= 1.5 sqrt(n) eps, and each singular value of A moves
// relatively by at most ||dG|| ||G^+|| <= 3 sqrt(n) eps (1.5e-14 at n = 500); Q's departure from
// orthonormality is a left factor I + F with ||F|| at most of order n eps. The check fails when
// gpusvd's relative error exceeds 10 n eps (the other rows' tolerance), which covers both;
// ?gesdd's error is reported, not judged. The random rows check that the two agree (normwise,
// as the other tables do).

struct Graded {
    std::vector<double> A, s;  // m x n matrix, its singular values (descending)
};

Graded graded_matrix(int64_t m, int64_t n, uint64_t seed) {
    gpusvd_util::Rng rng(seed);
    const auto Q = gpusvd_util::random_orthonormal<double>(rng, m, n);
    const size_t nz = static_cast<size_t>(n);
    std::vector<double> key(nz), d(nz), e(std::max<size_t>(nz - 1, 1));
    std::vector<int64_t> order(nz);
    for (int64_t j = 0; j < n; ++j) {
        key[j] = rng.uniform();
        order[j] = j;
    }
    std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return key[x] < key[y]; });
    for (int64_t k = 0; k < n; ++k)
        d[order[k]] = std::pow(10.0, -14.0 * double(k) / double(std::max<int64_t>(n - 1, 1)));
    for (int64_t j = 1; j < n; ++j) e[j - 1] = (rng.uniform() - 0.5) * d[j];
    Graded g{std::vector<double>(size_t(m * n)), d};
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i)
            g.A[i + j * m] = Q[i + j * m] * d[j] + (j ? Q[i + (j - 1) * m] * e[j - 1] : 0.0);
    std::vector<double> work(size_t(4 * n));
    if (ref::bdsqr('U', lapack_int(n), g.s.data(), e.data(), work.data()) != 0) g.s.assign(n, NAN);
    return g;
}

/// max_i |s_i - ref_i| / ref_i (NaN-propagating).
double max_elementwise_rel(const std::vector<double> &s, const std::vector<double> &ref) {
    double worst = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const double r = std::abs(s[i] - ref[i]) / ref[i];
        if (r != r) return r;
        worst = std::max(worst, r);
    }
    return worst;
}

Row gesvj_vs_gesdd_row(Cpu &c, int64_t m, int64_t n, bool graded) {
    Row r;
    r.table = "cpu:gesvj_vs_gesdd";
    r.name = graded ? "dgesvj vs dgesdd, graded" : "dgesvj vs dgesdd, random";
    r.size = dims(m, n);
    const int64_t mn = m * n, nn = n * n;  // cases are tall: m >= n
    Graded g;
    if (graded)
        g = graded_matrix(m, n, 6000 + m + n);
    else
        g.A = random_vector<double>(size_t(mn), 6100 + m * 7 + n);
    std::vector<double> A(g.A.size()), U = nans<double>(mn), V = nans<double>(nn),
                                       S = nans<double>(n), Sr = nans<double>(n);
    int info = 0, sweeps = 0;
    lapack_int rinfo = 0;
    std::string err, err_b;
    auto prep = [&] { std::copy(g.A.begin(), g.A.end(), A.begin()); };
    auto run_a = [&] {
        GS_CALL(Api<double>::gesvj(c.h, VEC, VEC, m, n, A.data(), m, S.data(), U.data(), m,
                                   V.data(), n, &info));
        return true;
    };
    // LAPACKE dgesdd('S'): thin U (m x n) and V^T (n x n) into the same buffers as gpusvd's.
    const lapack_int mi = lapack_int(m), ni = lapack_int(n);
    std::vector<lapack_int> iwork(size_t(8 * n));
    double q = 0, dummy = 0;
    ref::gesdd('S', mi, ni, &dummy, mi, &dummy, &dummy, mi, &dummy, ni, &q, -1, iwork.data());
    std::vector<double> work(size_t(ref::lwork_of(q)));
    auto run_b = [&] {
        rinfo = ref::gesdd('S', mi, ni, A.data(), mi, Sr.data(), U.data(), mi, V.data(), ni,
                           work.data(), lapack_int(work.size()), iwork.data());
        if (rinfo < 0) {
            err_b = "LAPACKE dgesdd: illegal argument";
            return false;
        }
        return true;
    };
    std::tie(r.a, r.b) = time_pair(c.b, prep, run_a, prep, run_b, &err, &err_b);
    if (r.a.ok()) gpusvdGetJacobiStats(c.h, &sweeps, nullptr);  // of gpusvd's last call here
    // No flop count: Jacobi's is an upper bound (LAPACK skips converged pairs, most of them on
    // the graded matrix) and the two methods' counts differ; the floor is the bytes moved.
    r.bytes = double(mn + n + mn + nn) * sizeof(double);
    const double tol = tol_for<double>(std::max(m, n));
    if (!graded) {
        r.check = finish_check(r, info != 0, rinfo != 0,
                               max_rel_diff(S.size(), S.data(), Sr.data()), tol);
    } else {
        // "ok <gpusvd's error>, gesdd <its error>": max_i |s_i - ref_i| / ref_i for each.
        const double ea = max_elementwise_rel(S, g.s), eb = max_elementwise_rel(Sr, g.s);
        char buf[64];
        std::snprintf(buf, sizeof buf, ", gesdd %.1e", eb);
        r.check = finish_check(r, info != 0, rinfo != 0, ea, tol) + buf;
    }
    r.check += " sweeps " + std::to_string(sweeps);
    return r;
}

/* ---- geqrf_mgs ----------------------------------------------------------------------------- */

template <class T>
Row geqrf_row(Cpu &c, int64_t batch, int64_t m, int64_t n, bool batched) {
    Row r;
    r.table = batched ? "cpu:geqrf_mgs_batched" : "cpu:geqrf_mgs";
    r.name = std::string(px<T>()) + (batched ? "geqrf_mgs_batched" : "geqrf_mgs");
    r.size = batched ? bdims(batch, m, n) : dims(m, n);
    const int64_t k = std::min(m, n), mn = m * n, kn = k * n;
    const auto A0 = random_vector<T>(size_t(batch * mn), 2000 + m * 7 + n + batch);
    std::vector<T> A(A0.size()), R = nans<T>(batch * kn), Rr = nans<T>(batch * kn);
    std::vector<int> info(batch, 0), rinfo(batch, 0);
    std::string err, err_b;
    auto prep = [&] { std::copy(A0.begin(), A0.end(), A.begin()); };
    auto run_a = [&] {
        if (batched)
            GS_CALL(Api<T>::geqrf_mgs_batched(c.h, GPUSVD_ORTH_MGS2, m, n, A.data(), m, mn, R.data(),
                                           k, kn, batch, info.data()));
        else
            GS_CALL(
                Api<T>::geqrf_mgs(c.h, GPUSVD_ORTH_MGS2, m, n, A.data(), m, R.data(), k, info.data()));
        return true;
    };
    // LAPACKE ?geqrf, R copied out, ?orgqr: Q overwrites A.
    T q1 = 0, q2 = 0, dummy = 0;
    ref::geqrf(lapack_int(m), lapack_int(n), &dummy, lapack_int(m), &dummy, &q1, -1);
    ref::orgqr(lapack_int(m), lapack_int(k), lapack_int(k), &dummy, lapack_int(m), &dummy, &q2, -1);
    const lapack_int lwork = std::max(ref::lwork_of(q1), ref::lwork_of(q2));
    const int threads = batched ? gpusvd::cpu::hardware_threads() : 1;
    std::vector<T> tau(size_t(threads) * k), work(size_t(threads) * lwork);
    auto one = [&](int64_t i, int t) {
        T *a = A.data() + i * mn, *rr = Rr.data() + i * kn, *tu = tau.data() + size_t(t) * k;
        T *w = work.data() + size_t(t) * lwork;
        lapack_int e = ref::geqrf(lapack_int(m), lapack_int(n), a, lapack_int(m), tu, w, lwork);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i2 = 0; i2 < k; ++i2) rr[i2 + j * k] = i2 <= j ? a[i2 + j * m] : T(0);
        if (!e)
            e = ref::orgqr(lapack_int(m), lapack_int(k), lapack_int(k), a, lapack_int(m), tu, w,
                           lwork);
        rinfo[i] = int(e);
    };
    auto run_b = [&] {
        if (batched)
            ref::pool_batch(batch, one);
        else
            one(0, 0);
        if (count_nonzero(rinfo)) {
            err_b = "LAPACKE ?geqrf/?orgqr: illegal argument";
            return false;
        }
        return true;
    };
    std::tie(r.a, r.b) = time_pair(c.b, prep, run_a, prep, run_b, &err, &err_b);
    // Compare |R(j,j)| (gpusvd makes them non-negative, Householder gives either sign).
    std::vector<T> da(size_t(batch * k)), db(size_t(batch * k));
    for (int64_t i = 0; i < batch; ++i)
        for (int64_t j = 0; j < k; ++j) {
            da[i * k + j] = R[i * kn + j + j * k];
            db[i * k + j] = std::abs(Rr[i * kn + j + j * k]);
        }
    r.flops =
        double(batch) * (geqrf_flops(double(m), double(n)) + orgqr_flops(double(m), double(k)));
    r.bytes = double(batch) * double(mn + m * k + kn) * sizeof(T);
    r.check = finish_check(r, count_nonzero(info), 0, max_rel_diff(da.size(), da.data(), db.data()),
                           tol_for<T>(m));
    return r;
}

/* ---- geev_batched -------------------------------------------------------------------------- */

template <class T>
Row geev_row(Cpu &c, int64_t batch, int64_t n, bool vectors) {
    Row r;
    r.table = "cpu:geev_batched";
    r.name = std::string(px<T>()) + "geev_batched" + (vectors ? " +VR" : "");
    r.size = bdims(batch, n, n);
    const int64_t nn = n * n;
    const auto A0 = random_vector<T>(size_t(batch * nn), 3000 + n + batch);
    std::vector<T> A(A0.size()), VR = nans<T>(vectors ? batch * nn : 1), wr = nans<T>(batch * n),
                                 wi = nans<T>(batch * n), wrr = nans<T>(batch * n),
                                 wir = nans<T>(batch * n);
    std::vector<int> info(batch, 0), rinfo(batch, 0);
    std::string err, err_b;
    const gpusvdJob_t job = vectors ? VEC : NOVEC;
    auto prep = [&] { std::copy(A0.begin(), A0.end(), A.begin()); };
    auto run_a = [&] {
        GS_CALL(Api<T>::geev_batched(c.h, job, n, A.data(), n, nn, wr.data(), wi.data(), n,
                                  vectors ? VR.data() : nullptr, n, nn, batch, info.data()));
        return true;
    };
    const char jv = vectors ? 'V' : 'N';
    T q = 0, dummy = 0;
    ref::geev(jv, lapack_int(n), &dummy, lapack_int(n), &dummy, &dummy, &dummy, lapack_int(n), &q,
              -1);
    const lapack_int lwork = ref::lwork_of(q);
    std::vector<T> work(size_t(gpusvd::cpu::hardware_threads()) * lwork);
    std::atomic<bool> bad{false};
    auto one = [&](int64_t i, int t) {
        rinfo[i] =
            int(ref::geev(jv, lapack_int(n), A.data() + i * nn, lapack_int(n), wrr.data() + i * n,
                          wir.data() + i * n, vectors ? VR.data() + i * nn : VR.data(),
                          lapack_int(vectors ? n : 1), work.data() + size_t(t) * lwork, lwork));
        if (rinfo[i] < 0) bad = true;
    };
    auto run_b = [&] {
        ref::pool_batch(batch, one);
        if (bad) {
            err_b = "LAPACKE ?geev: illegal argument";
            return false;
        }
        return true;
    };
    std::tie(r.a, r.b) = time_pair(c.b, prep, run_a, prep, run_b, &err, &err_b);
    r.flops = double(batch) * geev_flops(double(n), vectors);
    r.bytes = double(batch) * double(nn + 2 * n + (vectors ? nn : 0)) * sizeof(T);
    const double rel = std::max(max_rel_diff(wr.size(), wr.data(), wrr.data()),
                                max_rel_diff(wi.size(), wi.data(), wir.data()));
    r.check = finish_check(r, count_nonzero(info), count_nonzero(rinfo), rel, tol_for<T>(n));
    return r;
}

/* ---- bdsvd --------------------------------------------------------------------------------- */

template <class T>
Row bdsvd_row(Cpu &c, int64_t n, bool vectors) {
    Row r;
    r.table = "cpu:bdsvd";
    r.name = std::string(px<T>()) + "bdsvd" + (vectors ? " +U,VT" : "");
    r.size = "n=" + std::to_string(n);
    const auto d0 = random_vector<T>(size_t(n), 4000 + n);
    const auto e0 = random_vector<T>(size_t(std::max<int64_t>(n - 1, 1)), 4100 + n);
    std::vector<T> d(d0.size()), dr(d0.size()), e(e0.size()), U = nans<T>(vectors ? n * n : 1),
                                                              VT = nans<T>(vectors ? n * n : 1);
    int info = 0, rinfo = 0;
    std::string err, err_b;
    const gpusvdJob_t job = vectors ? VEC : NOVEC;
    auto prep_a = [&] {
        std::copy(d0.begin(), d0.end(), d.begin());
        std::copy(e0.begin(), e0.end(), e.begin());
    };
    auto prep_b = [&] {
        std::copy(d0.begin(), d0.end(), dr.begin());
        std::copy(e0.begin(), e0.end(), e.begin());
    };
    auto run_a = [&] {
        GS_CALL(Api<T>::bdsvd(c.h, GPUSVD_UPPER, job, n, d.data(), e.data(),
                           vectors ? U.data() : nullptr, n, vectors ? VT.data() : nullptr, n,
                           &info));
        return true;
    };
    std::vector<T> work(size_t(vectors ? 3 * n * n + 4 * n : 4 * n));
    std::vector<lapack_int> iwork(size_t(8 * n));
    auto run_b = [&] {
        rinfo =
            int(ref::bdsdc('U', vectors ? 'I' : 'N', lapack_int(n), dr.data(), e.data(), U.data(),
                           lapack_int(n), VT.data(), lapack_int(n), work.data(), iwork.data()));
        if (rinfo < 0) {
            err_b = "LAPACKE ?bdsdc: illegal argument";
            return false;
        }
        return true;
    };
    std::tie(r.a, r.b) = time_pair(c.b, prep_a, run_a, prep_b, run_b, &err, &err_b);
    std::sort(dr.begin(), dr.end(), [](T x, T y) { return x > y; });
    // Vectors: the work depends on deflation (small for random data), so no flop count: the
    // floor is the bandwidth one.
    r.flops = vectors ? 0.0 : 20.0 * double(n) * double(n);
    r.bytes = double(2 * n - 1 + n + (vectors ? 2 * n * n : 0)) * sizeof(T);
    r.check = finish_check(r, info != 0, rinfo != 0, max_rel_diff(d.size(), d.data(), dr.data()),
                           tol_for<T>(n));
    return r;
}

/* ---- pca ----------------------------------------------------------------------------------- */

// Each method against the LAPACK calls of the same method: QR (centring into a copy, ?geqrf,
// ?gesdd of R, scores through ?orgqr and a GEMM) and covariance (centring into a copy, ?syrk of
// the whole copy on OpenBLAS's threads, ?syevd, scores by a GEMM).
template <class T>
Row pca_row(Cpu &c, int64_t m, int64_t n, int64_t k, bool scores, gpusvdPcaMethod_t method) {
    const bool cov = method == GPUSVD_PCA_COVARIANCE;
    Row r;
    r.table = "cpu:pca";
    r.name = std::string(px<T>()) + "pca" + (cov ? " covariance" : " QR") +
             (scores ? " +scores,mean" : "");
    r.size = dims(m, n) + " k=" + std::to_string(k);
    const auto X = random_vector<T>(size_t(m * n), 5000 + m + n);
    std::vector<T> C = nans<T>(n * k), Sc = nans<T>(scores ? m * k : 1), mean = nans<T>(n),
                   ev = nans<T>(k), evr = nans<T>(k);
    int info = 0;
    std::string err, err_b;
    auto run_a = [&] {
        GS_CALL(Api<T>::pca(c.h, m, n, X.data(), m, k, C.data(), n, ev.data(),
                         scores ? Sc.data() : nullptr, m, scores ? mean.data() : nullptr, &info));
        return true;
    };
    const lapack_int mi = lapack_int(m), ni = lapack_int(n), ki = lapack_int(k);
    T q1 = 0, q2 = 0, q3 = 0, dummy = 0;
    lapack_int idummy = 0, liwork = 8 * ni;
    if (cov) {
        ref::syevd('U', ni, &dummy, ni, &dummy, &q1, -1, &liwork, -1);
    } else {
        ref::geqrf(mi, ni, &dummy, mi, &dummy, &q1, -1);
        ref::orgqr(mi, ni, ni, &dummy, mi, &dummy, &q2, -1);
        ref::gesdd('S', ni, ni, &dummy, ni, &dummy, &dummy, ni, &dummy, ni, &q3, -1, &idummy);
    }
    const lapack_int lwork = std::max({ref::lwork_of(q1), ref::lwork_of(q2), ref::lwork_of(q3)});
    std::vector<T> Xc(size_t(m * n)), tau(n), R(size_t(n * n)), s(n), u(size_t(n * n)),
        vt(size_t(n * n)), W(size_t(n * k)), work(lwork);
    std::vector<lapack_int> iwork(size_t(std::max<lapack_int>(liwork, 8 * ni)));
    auto centre = [&] {
        for (int64_t j = 0; j < n; ++j) {
            const T *x = X.data() + j * m;
            double sum = 0;
            for (int64_t i = 0; i < m; ++i) sum += x[i];
            mean[j] = T(sum / double(m));
            for (int64_t i = 0; i < m; ++i) Xc[i + j * m] = x[i] - mean[j];
        }
    };
    auto run_qr = [&]() -> lapack_int {
        lapack_int e = ref::geqrf(mi, ni, Xc.data(), mi, tau.data(), work.data(), lwork);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) R[i + j * n] = i <= j ? Xc[i + j * m] : T(0);
        if (!e)
            e = ref::gesdd('S', ni, ni, R.data(), ni, s.data(), u.data(), ni, vt.data(), ni,
                           work.data(), lwork, iwork.data());
        for (int64_t j = 0; j < k; ++j) {
            for (int64_t i = 0; i < n; ++i) C[i + j * n] = vt[j + i * n];
            evr[j] = s[j] * s[j] / T(m - 1);
            for (int64_t i = 0; i < n; ++i) W[i + j * n] = s[j] * u[i + j * n];
        }
        if (scores && !e) {
            e = ref::orgqr(mi, ni, ni, Xc.data(), mi, tau.data(), work.data(), lwork);
            ref::gemm(mi, ki, ni, Xc.data(), mi, W.data(), ni, Sc.data(), mi);
        }
        return e;
    };
    auto run_cov = [&]() -> lapack_int {
        ref::syrk_upper_t(ni, mi, T(1), Xc.data(), mi, T(0), R.data(), ni);
        const lapack_int e = ref::syevd('U', ni, R.data(), ni, s.data(), work.data(), lwork,
                                        iwork.data(), liwork);
        for (int64_t j = 0; j < k; ++j) {
            for (int64_t i = 0; i < n; ++i) C[i + j * n] = R[i + (n - 1 - j) * n];
            evr[j] = std::max(s[n - 1 - j], T(0)) / T(m - 1);
        }
        if (scores && !e) ref::gemm(mi, ki, ni, Xc.data(), mi, C.data(), ni, Sc.data(), mi);
        return e;
    };
    auto run_b = [&] {
        centre();
        const lapack_int e = cov ? run_cov() : run_qr();
        if (e) {
            err_b = "LAPACKE reference of pca failed, info " + std::to_string(e);
            return false;
        }
        return true;
    };
    auto none = [] {};
    gpusvdSetPcaMethod(c.h, method);
    std::tie(r.a, r.b) = time_pair(c.b, none, run_a, none, run_b, &err, &err_b);
    gpusvdSetPcaMethod(c.h, GPUSVD_PCA_AUTO);
    const double md = double(m), nd = double(n), kd = double(k);
    r.flops = cov ? 2 * md * nd + md * nd * nd + 9 * nd * nd * nd + (scores ? 2 * md * nd * kd : 0)
                  : 2 * md * nd + geqrf_flops(md, nd) + 21 * nd * nd * nd +
                        (scores ? orgqr_flops(md, nd) + 2 * md * nd * kd : 0);
    r.bytes = (md * nd + nd * kd + kd + (scores ? md * kd + nd : 0)) * sizeof(T);
    r.check = finish_check(r, info != 0, 0, max_rel_diff(ev.size(), ev.data(), evr.data()),
                           tol_for<T>(m));
    return r;
}

}  // namespace

int run_cpu_rows(const Options &o, Report &rep, const Ceilings &host) {
    gpusvdHandle_t h = nullptr;
    gpusvdStatus_t st = gpusvdCreate(&h);
    if (st == GPUSVD_STATUS_SUCCESS) st = gpusvdSetBackend(h, GPUSVD_BACKEND_CPU);
    if (st != GPUSVD_STATUS_SUCCESS) {
        std::printf("gpusvd-bench: CPU backend unavailable: %s\n", status_text(h, st).c_str());
        gpusvdDestroy(h);
        rep.fail();
        return 1;
    }
    Cpu c{o, rep, host, h, o.budget()};
    const bool q = o.quick;
    std::vector<Row> rows;
    // Adds the row made by f() when table/name/size pass --filter.
    auto add = [&](const char *table, const std::string &name, const std::string &size, auto &&f) {
        if (rep.wanted(table, name, size)) rows.push_back(f());
    };
    auto flush = [&](const std::string &title) {
        rep.cpu_table(title, rows, host);
        rows.clear();
    };

    struct MN {
        int64_t m, n;
    };
    for (MN s : q ? std::vector<MN>{{128, 128}, {300, 50}}
                  : std::vector<MN>{{256, 256}, {1000, 100}, {2000, 500}})
        add("cpu:gesvj", "dgesvj", dims(s.m, s.n),
            [&] { return gesvj_row<double>(c, 1, s.m, s.n, false); });
    {
        const MN s = q ? MN{300, 50} : MN{1000, 100};
        add("cpu:gesvj", "sgesvj", dims(s.m, s.n),
            [&] { return gesvj_row<float>(c, 1, s.m, s.n, false); });
    }
    flush("gesvj: gpusvd CPU backend vs LAPACKE ?gesvj('G','U','V'), U and V");

    struct BN {
        int64_t b, m, n;
    };
    for (BN s : q ? std::vector<BN>{{1000, 16, 16}, {200, 32, 32}}
                  : std::vector<BN>{{10000, 16, 16}, {2000, 32, 32}})
        add("cpu:gesvj_batched", "dgesvj_batched", bdims(s.b, s.m, s.n),
            [&] { return gesvj_row<double>(c, s.b, s.m, s.n, true); });
    flush("gesvj_batched: gpusvd CPU backend vs thread-pool loop of LAPACKE ?gesvj (OpenBLAS 1 "
          "thread)");

    for (MN s :
         q ? std::vector<MN>{{200, 200}, {1000, 50}} : std::vector<MN>{{1000, 1000}, {4000, 200}})
        add("cpu:gesvj_vs_gesdd", "dgesvj vs dgesdd, random", dims(s.m, s.n),
            [&] { return gesvj_vs_gesdd_row(c, s.m, s.n, false); });
    {
        const int64_t n = q ? 100 : 500;
        add("cpu:gesvj_vs_gesdd", "dgesvj vs dgesdd, graded", dims(n, n),
            [&] { return gesvj_vs_gesdd_row(c, n, n, true); });
    }
    flush(
        "gesvj_vs_gesdd: gpusvd CPU backend dgesvj vs LAPACKE dgesdd('S'), U and V (overhead % "
        "= Jacobi's extra time; check of the graded row: max relative error of each singular "
        "value, gesvj then gesdd)");

    for (MN s :
         q ? std::vector<MN>{{20000, 64}, {400, 400}} : std::vector<MN>{{100000, 64}, {2000, 2000}})
        add("cpu:geqrf_mgs", "dgeqrf_mgs", dims(s.m, s.n),
            [&] { return geqrf_row<double>(c, 1, s.m, s.n, false); });
    {
        const MN s = q ? MN{20000, 64} : MN{100000, 64};
        add("cpu:geqrf_mgs", "sgeqrf_mgs", dims(s.m, s.n),
            [&] { return geqrf_row<float>(c, 1, s.m, s.n, false); });
    }
    flush("geqrf_mgs (MGS2): gpusvd CPU backend vs LAPACKE ?geqrf + R copy + ?orgqr");

    for (BN s : q ? std::vector<BN>{{1000, 100, 10}, {500, 32, 32}}
                  : std::vector<BN>{{10000, 100, 10}, {5000, 32, 32}})
        add("cpu:geqrf_mgs_batched", "dgeqrf_mgs_batched", bdims(s.b, s.m, s.n),
            [&] { return geqrf_row<double>(c, s.b, s.m, s.n, true); });
    flush("geqrf_mgs_batched (MGS2): gpusvd CPU backend vs thread-pool loop of ?geqrf + ?orgqr");

    struct BV {
        int64_t b, n;
        bool v;
    };
    for (BV s : q ? std::vector<BV>{{2000, 10, false}, {500, 30, false}, {500, 30, true}}
                  : std::vector<BV>{{20000, 10, false}, {5000, 30, false}, {5000, 30, true}})
        add("cpu:geev_batched", std::string("dgeev_batched") + (s.v ? " +VR" : ""),
            bdims(s.b, s.n, s.n), [&] { return geev_row<double>(c, s.b, s.n, s.v); });
    {
        const BV s = q ? BV{2000, 10, false} : BV{20000, 10, false};
        add("cpu:geev_batched", "sgeev_batched", bdims(s.b, s.n, s.n),
            [&] { return geev_row<float>(c, s.b, s.n, s.v); });
    }
    flush("geev_batched: gpusvd CPU backend vs thread-pool loop of LAPACKE ?geev (OpenBLAS 1 "
          "thread)");

    const int64_t nb = q ? 300 : 2000;
    for (bool v : {false, true})
        add("cpu:bdsvd", std::string("dbdsvd") + (v ? " +U,VT" : ""), "n=" + std::to_string(nb),
            [&] { return bdsvd_row<double>(c, nb, v); });
    flush("bdsvd: gpusvd CPU backend vs LAPACKE ?bdsdc (upper)");

    const MN p = q ? MN{20000, 32} : MN{100000, 64};
    const int64_t pk = q ? 5 : 10;
    const std::string psize = dims(p.m, p.n) + " k=" + std::to_string(pk);
    for (gpusvdPcaMethod_t method : {GPUSVD_PCA_QR, GPUSVD_PCA_COVARIANCE}) {
        const std::string mname = method == GPUSVD_PCA_QR ? " QR" : " covariance";
        for (bool sc : {false, true})
            add("cpu:pca", "dpca" + mname + (sc ? " +scores,mean" : ""), psize,
                [&] { return pca_row<double>(c, p.m, p.n, pk, sc, method); });
        add("cpu:pca", "spca" + mname, psize,
            [&] { return pca_row<float>(c, p.m, p.n, pk, false, method); });
    }
    flush(
        "pca: gpusvd CPU backend vs the same method's LAPACK calls: QR (centring + ?geqrf + "
        "?gesdd of R, + ?orgqr + ?gemm for scores) and covariance (centring + ?syrk + ?syevd, "
        "+ ?gemm for scores)");

    gpusvdDestroy(h);
    return rep.any_failed() ? 1 : 0;
}

}  // namespace bench
