// GPU table of the bidiagonal SVD (with its benchmark goals): gpusvd
// dbdsvd_gpu (upper bidiagonal; d, e, U, VT and info resident on the device) vs LAPACK on the
// host CPUs, same data, same run. cuSOLVER has no bidiagonal SVD: its column reads n/a and the
// goals are ratios to the host column.
//
//   values only  n = 4096, 16384, 32768: LAPACK dbdsqr with ncvt = nru = ncc = 0, i.e. dqds
//                (sequential, one thread). Goal >= 10x at 16384; 4096 and 32768 are report rows.
//   U and VT     n = 4096, 16384: LAPACK dbdsdc('U', 'I') (divide and conquer; its GEMMs run on
//                OpenBLAS's threads: all host cores unless OPENBLAS_NUM_THREADS says otherwise,
//                the count is in the table's title). Goal >= 5x at 16384; 4096 is a report row.
//                n = 32768 with vectors is left out (U and VT alone are 17 GB).
//
// Matrix: random upper bidiagonal, d and e uniform in (-1, 1) (the CPU table's generator), the
// same arrays on both sides. bdsvd overwrites d and destroys e: every run restores them from a
// device copy on the handle's stream, untimed. A slow host side is timed once (host_column: a
// warm-up longer than --budget / 8 is the only sample); --no-host skips it.
//
// Check: gpusvd's status and info 0; its values non-negative and descending, and against
// LAPACK's (the host column's own output; under --no-host one untimed dbdsqr):
// max |s_i - s_ref_i| / (s_1 n eps) < 50. With vectors, for 8 sampled j (first, last and
// between), on the host after downloading those columns of U and rows of VT:
// |B v_j - s_j u_j|_2 / (s_1 n eps) < 50 and |u_j^T u_k - delta_jk|, |v_j^T v_k - delta_jk|
// over the sampled pairs / (n eps) < 50.
//
// Floor (flops.hpp): values only: flops = 2n per Sturm count x n values x ~64 counts (bisection
// to full precision) at the DGEMM rate, bytes negligible (d, e read, d written); with U and VT:
// bytes = U and VT written once, 2 n^2 x 8 bytes, at the device copy bandwidth.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <functional>
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

constexpr double kSvdRatio = 50.0;  // DESIGN.md: SVD ratios < 50

const char *kValuesName = "dbdsvd_gpu vs LAPACK dbdsqr (dqds, values only)";
const char *kVectorsName = "dbdsvd_gpu(+U,VT) vs LAPACK dbdsdc('U','I')";

/// LAPACK's singular values of the upper bidiagonal (d0, e0), descending: one dbdsqr (dqds);
/// NaN if it fails.
std::vector<double> lapack_values(const std::vector<double> &d0, const std::vector<double> &e0) {
    std::vector<double> d(d0), e(e0), work(4 * d0.size());
    if (ref::bdsqr('U', lapack_int(d.size()), d.data(), e.data(), work.data()) != 0)
        std::fill(d.begin(), d.end(), NAN);
    std::sort(d.begin(), d.end(), std::greater<double>());
    return d;
}

/// The vector checks on sampled j: |B v_j - s_j u_j|_2 / (s_1 n eps) and, over the sampled
/// pairs, |u_j^T u_k - delta_jk| and |v_j^T v_k - delta_jk| / (n eps). Uc: the sampled columns of
/// U, Vr: the sampled rows of VT (n each, in the order of the sample); s: gpusvd's values.
void vector_checks(Check &ck, int64_t n, const std::vector<double> &d0,
                   const std::vector<double> &e0, const std::vector<double> &s,
                   const std::vector<int64_t> &idx, const std::vector<double> &Uc,
                   const std::vector<double> &Vr) {
    const double eps = std::numeric_limits<double>::epsilon(), ne = double(n) * eps;
    const double s1 = s.empty() ? 0.0 : s[0];
    auto worst = [](double a, double x) { return (x != x || a != a) ? NAN : std::max(a, x); };
    double resid = 0, orth = 0;
    for (size_t p = 0; p < idx.size(); ++p) {
        const double *u = Uc.data() + p * sz(n), *v = Vr.data() + p * sz(n);
        const double sj = s[sz(idx[p])];
        double r2 = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double bv = d0[sz(i)] * v[i] + (i + 1 < n ? e0[sz(i)] * v[i + 1] : 0.0);
            const double x = bv - sj * u[i];
            r2 += x * x;
        }
        resid = worst(resid, s1 > 0 ? std::sqrt(r2) / (s1 * ne) : std::sqrt(r2) / ne);
        for (size_t q = p; q < idx.size(); ++q) {
            const double *u2 = Uc.data() + q * sz(n), *v2 = Vr.data() + q * sz(n);
            double du = 0, dv = 0;
            for (int64_t i = 0; i < n; ++i) {
                du += u[i] * u2[i];
                dv += v[i] * v2[i];
            }
            const double delta = p == q ? 1.0 : 0.0;
            orth = worst(orth, std::max(std::fabs(du - delta), std::fabs(dv - delta)) / ne);
        }
    }
    ck.bound("resid", resid, kSvdRatio);
    ck.bound("orth", orth, kSvdRatio);
}

Row bdsvd_row(Gpu &c, int64_t n, bool vectors, double goal) {
    Row r;
    r.table = "gpu:bdsvd";
    r.name = vectors ? kVectorsName : kValuesName;
    r.size = "n=" + std::to_string(n);
    const size_t nn = vectors ? sz(n * n) : 1, ne = sz(n - 1);
    const auto d0 = random_vector<double>(sz(n), 7800 + n);
    const auto e0 = random_vector<double>(ne, 7900 + n);
    Dev<double> dd0(sz(n)), de0(ne), dd(sz(n)), de(ne), U(nn), VT(nn);
    Dev<int> ginfo(1);
    dd0.upload(d0.data(), sz(n));
    de0.upload(e0.data(), ne);
    const gpusvdJob_t job = vectors ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC;
    Check ck;

    r.a = time_gpusvd(
        c,
        [&] {
            restore(c, dd.get(), dd0.get(), sz(n));
            restore(c, de.get(), de0.get(), ne);
        },
        [&] {
            return Api<double>::bdsvd_gpu(c.g, GPUSVD_UPPER, job, n, dd.get(), de.get(),
                                          vectors ? U.get() : nullptr, n,
                                          vectors ? VT.get() : nullptr, n, ginfo.get());
        },
        r);
    r.b = note_only("n/a (no bidiagonal SVD in cuSOLVER)");

    // Host: dbdsqr values only (dqds), or dbdsdc('U','I') with OpenBLAS's threads. The large
    // buffers are allocated at the first (untimed) prep, so --no-host allocates nothing.
    std::vector<double> dh(sz(n)), eh(ne), Uh, VTh, work;
    std::vector<lapack_int> iwork;
    const lapack_int ni = lapack_int(n);
    r.c = host_column(
        c, 1, 1,
        [&] {
            if (work.empty()) {
                work.resize(vectors ? 3 * nn + 4 * sz(n) : 4 * sz(n));
                if (vectors) {
                    Uh.resize(nn);
                    VTh.resize(nn);
                    iwork.resize(8 * sz(n));
                }
            }
            std::copy(d0.begin(), d0.end(), dh.begin());
            std::copy(e0.begin(), e0.end(), eh.begin());
        },
        [&] {
            const lapack_int e = vectors ? ref::bdsdc('U', 'I', ni, dh.data(), eh.data(), Uh.data(),
                                                      ni, VTh.data(), ni, work.data(), iwork.data())
                                         : ref::bdsqr('U', ni, dh.data(), eh.data(), work.data());
            return e == 0;
        });

    if (r.a.ok()) {
        ck.info("gpusvd", ginfo, 1, true);
        const auto s = dd.download(sz(n));
        if (!gpusvd_util::is_sorted_desc_nonneg(n, s.data())) {
            ck.bad = true;
            ck.note += " S not non-negative descending";
        }
        std::vector<double> want;
        if (r.c.ok()) {
            want = dh;  // the last host run's values
            std::sort(want.begin(), want.end(), std::greater<double>());
        } else {
            want = lapack_values(d0, e0);
        }
        ck.diff(max_rel_diff(sz(n), s.data(), want.data()));
        if (vectors) {
            const auto idx = spread(n, 8);
            std::vector<double> Uc(idx.size() * sz(n)), Vr(idx.size() * sz(n));
            for (size_t p = 0; p < idx.size(); ++p) {
                const int64_t j = idx[p];
                CU(cudaMemcpy(Uc.data() + p * sz(n), U.get() + j * n, sz(n) * sizeof(double),
                              cudaMemcpyDeviceToHost));
                // Row j of VT: stride n.
                CU(cudaMemcpy2D(Vr.data() + p * sz(n), sizeof(double), VT.get() + j,
                                sz(n) * sizeof(double), sizeof(double), sz(n),
                                cudaMemcpyDeviceToHost));
            }
            vector_checks(ck, n, d0, e0, s, idx, Uc, Vr);
        }
    }

    const double nd = double(n);
    r.flops = vectors ? 0.0 : bisection_flops(nd);
    r.bytes = (3 * nd - 1 + (vectors ? 2 * nd * nd : 0)) * sizeof(double);
    if (goal > 0) r.goals = {{Goal::HostRatio, goal}};
    ck.finish(r, kSvdRatio * nd * std::numeric_limits<double>::epsilon());
    return r;
}

}  // namespace

void bdsvd_tables(Gpu &c) {
    const bool q = c.o.quick;
    std::vector<Row> rows;
    struct Case {
        int64_t n;
        bool vectors;
        double goal;  // host/gpusvd >= goal; 0: none (report rows, quick mode)
    };
    const std::vector<Case> cases = q ? std::vector<Case>{{2048, false, 0.0}, {1024, true, 0.0}}
                                      : std::vector<Case>{{4096, false, 0.0},
                                                          {16384, false, 10.0},
                                                          {32768, false, 0.0},
                                                          {4096, true, 0.0},
                                                          {16384, true, 5.0}};
    for (const Case &k : cases)
        guarded(c, rows, "gpu:bdsvd", k.vectors ? kVectorsName : kValuesName,
                "n=" + std::to_string(k.n), [&] { return bdsvd_row(c, k.n, k.vectors, k.goal); });
    c.rep.gpu_table(
        "bdsvd, random upper bidiagonal (gpusvd: dbdsvd_gpu; no cuSOLVER counterpart; "
        "host: LAPACK dbdsqr values only = dqds, sequential; dbdsdc('U','I') with "
        "OpenBLAS " +
            std::to_string(gpusvd::cpu::blas_threads()) + " threads)",
        rows, c.dev);
}

}  // namespace bench
