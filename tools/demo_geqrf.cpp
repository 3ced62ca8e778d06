// Demo rows: geqrf_mgs (MGS and MGS2) on a matrix with prescribed singular values,
// geqrf_mgs_batched on random matrices.
#include <matgen.hpp>
#include <ratios.hpp>

#include "demo.hpp"

namespace gpusvd_cli {

namespace gu = gpusvd_util;

namespace {

/// "R(j,j) < 0" problem if any diagonal entry of R (k x n, ld k) is negative.
template <class T>
bool r_diag_ok(int64_t k, const T *R, int64_t ldr) {
    for (int64_t j = 0; j < k; ++j)
        if (!(R[j + j * ldr] >= T(0))) return false;
    return true;
}

}  // namespace

template <class T>
Row demo_geqrf(Runner &r, gpusvdOrth_t orth, int64_t m, int64_t n) {
    const int64_t k = std::min(m, n);
    const double cond = 1e3;
    const bool mgs2 = orth == GPUSVD_ORTH_MGS2;
    Row row;
    row.routine = std::string(precision_letter<T>()) + "geqrf_mgs " + (mgs2 ? "MGS2" : "MGS");
    row.size = std::to_string(m) + "x" + std::to_string(n) + " cond 1e3";
    gu::Rng rng(2001);
    const std::vector<T> A0 = gu::prescribed_sv<T>(rng, m, n, gu::SigmaMode::Geometric, cond);
    std::vector<T> A, R = zeros<T>(k * n);
    std::vector<int> info(1);
    const bool ok = r.execute(
        row, [&] { A = A0; },
        [&](gpusvdHandle_t h) {
            return Api<T>::geqrf_mgs(h, orth, m, n, A.data(), m, R.data(), k, info.data());
        });
    if (!ok) return row;
    check_info(row, info);
    const double orthq = gu::orthogonality(m, k, A.data(), m);
    row.checks = {
        {"resid", gu::qr_residual(m, n, A0.data(), m, A.data(), m, R.data(), k), kQrLimit}};
    // MGS loses orthogonality like eps * cond(A): its bound is scaled by the condition number.
    if (mgs2)
        row.checks.push_back({"orthQ", orthq, kQrLimit});
    else
        row.checks.push_back({"orthQ/cond", orthq / cond, kQrLimit});
    if (!r_diag_ok(k, R.data(), k)) row.problem = "R has a negative diagonal entry";
    return row;
}

template <class T>
Row demo_geqrf_batched(Runner &r, int64_t m, int64_t n, int64_t batch) {
    const int64_t k = std::min(m, n);
    Row row;
    row.routine = std::string(precision_letter<T>()) + "geqrf_mgs_batched MGS2";
    row.size = std::to_string(batch) + " x " + std::to_string(m) + "x" + std::to_string(n);
    gu::Rng rng(2002);
    const std::vector<T> A0 = gu::gaussian<T>(rng, m, n * batch);
    std::vector<T> A, R = zeros<T>(k * n * batch);
    std::vector<int> info = zeros<int>(batch);
    const bool ok = r.execute(
        row, [&] { A = A0; },
        [&](gpusvdHandle_t h) {
            return Api<T>::geqrf_mgs_batched(h, GPUSVD_ORTH_MGS2, m, n, A.data(), m, m * n,
                                             R.data(), k, k * n, batch, info.data());
        });
    if (!ok) return row;
    check_info(row, info);
    double resid = 0, orthq = 0;
    bool diag_ok = true;
    for (int64_t b = 0; b < batch; ++b) {
        const T *a0 = A0.data() + b * m * n, *q = A.data() + b * m * n, *rr = R.data() + b * k * n;
        resid = worst(resid, gu::qr_residual(m, n, a0, m, q, m, rr, k));
        orthq = worst(orthq, gu::orthogonality(m, k, q, m));
        diag_ok = diag_ok && r_diag_ok(k, rr, k);
    }
    row.checks = {{"resid", resid, kQrLimit}, {"orthQ", orthq, kQrLimit}};
    if (!diag_ok) row.problem = "R has a negative diagonal entry";
    return row;
}

template Row demo_geqrf<float>(Runner &, gpusvdOrth_t, int64_t, int64_t);
template Row demo_geqrf<double>(Runner &, gpusvdOrth_t, int64_t, int64_t);
template Row demo_geqrf_batched<float>(Runner &, int64_t, int64_t, int64_t);
template Row demo_geqrf_batched<double>(Runner &, int64_t, int64_t, int64_t);

}  // namespace gpusvd_cli
