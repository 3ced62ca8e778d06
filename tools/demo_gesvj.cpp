// Demo rows: gesvj on a matrix with prescribed singular values, gesvj_batched on random matrices.
#include <matgen.hpp>
#include <ratios.hpp>

#include "demo.hpp"

namespace gpusvd_cli {

namespace gu = gpusvd_util;

template <class T>
Row demo_gesvj(Runner &r, int64_t m, int64_t n) {
    const int64_t k = std::min(m, n);
    const double cond = 1e4;
    Row row;
    row.routine = std::string(precision_letter<T>()) + "gesvj";
    row.size = std::to_string(m) + "x" + std::to_string(n) + " cond 1e4";
    gu::Rng rng(1001);
    const std::vector<double> sigma = gu::singular_values(rng, gu::SigmaMode::Geometric, k, cond);
    std::vector<T> A0 = zeros<T>(m * n);
    gu::prescribed_sv(rng, m, n, sigma.data(), A0.data(), m);
    std::vector<T> A, S = zeros<T>(k), U = zeros<T>(m * k), V = zeros<T>(n * k);
    std::vector<int> info(1);
    const bool ok = r.execute(
        row, [&] { A = A0; },
        [&](gpusvdHandle_t h) {
            return Api<T>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m, S.data(),
                                 U.data(), m, V.data(), n, info.data());
        });
    if (!ok) return row;
    check_info(row, info);
    row.checks = {
        {"resid", gu::svd_residual(m, n, A0.data(), m, S.data(), U.data(), m, V.data(), n),
         kSvdLimit},
        {"orthU", gu::orthogonality(m, k, U.data(), m), kSvdLimit},
        {"orthV", gu::orthogonality(n, k, V.data(), n), kSvdLimit},
        // LAPACK's ddrvbd test 4: |S - S_exact| / (min(m,n) eps S_max).
        {"S", gu::sv_compare(k, S.data(), sigma.data()) / double(k), kSvdLimit},
    };
    return row;
}

template <class T>
Row demo_gesvj_batched(Runner &r, int64_t m, int64_t n, int64_t batch) {
    const int64_t k = std::min(m, n);
    Row row;
    row.routine = std::string(precision_letter<T>()) + "gesvj_batched";
    row.size = std::to_string(batch) + " x " + std::to_string(m) + "x" + std::to_string(n);
    gu::Rng rng(1002);
    std::vector<T> A0 = gu::gaussian<T>(rng, m, n * batch);  // matrix b at column b*n
    std::vector<T> A, S = zeros<T>(k * batch), U = zeros<T>(m * k * batch),
                      V = zeros<T>(n * k * batch);
    std::vector<int> info = zeros<int>(batch);
    const bool ok = r.execute(
        row, [&] { A = A0; },
        [&](gpusvdHandle_t h) {
            return Api<T>::gesvj_batched(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m,
                                         m * n, S.data(), k, U.data(), m, m * k, V.data(), n, n * k,
                                         batch, info.data());
        });
    if (!ok) return row;
    check_info(row, info);
    double resid = 0, orthu = 0, orthv = 0;
    bool sorted = true;
    for (int64_t b = 0; b < batch; ++b) {
        const T *a = A0.data() + b * m * n, *s = S.data() + b * k, *u = U.data() + b * m * k,
                *v = V.data() + b * n * k;
        resid = worst(resid, gu::svd_residual(m, n, a, m, s, u, m, v, n));
        orthu = worst(orthu, gu::orthogonality(m, k, u, m));
        orthv = worst(orthv, gu::orthogonality(n, k, v, n));
        sorted = sorted && gu::is_sorted_desc_nonneg(k, s);
    }
    row.checks = {
        {"resid", resid, kSvdLimit}, {"orthU", orthu, kSvdLimit}, {"orthV", orthv, kSvdLimit}};
    if (!sorted) row.problem = "S not non-negative and descending";
    return row;
}

template Row demo_gesvj<float>(Runner &, int64_t, int64_t);
template Row demo_gesvj<double>(Runner &, int64_t, int64_t);
template Row demo_gesvj_batched<float>(Runner &, int64_t, int64_t, int64_t);
template Row demo_gesvj_batched<double>(Runner &, int64_t, int64_t, int64_t);

}  // namespace gpusvd_cli
