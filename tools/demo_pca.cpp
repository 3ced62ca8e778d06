// Demo row: pca with all components of column-graded data with nonzero means. With k = n the
// centred data equals U diag(sigma) C^T, U = scores / sigma, sigma = sqrt((m-1) variance), so the
// SVD ratios apply.
#include <cmath>
#include <matgen.hpp>
#include <ratios.hpp>

#include "demo.hpp"

namespace gpusvd_cli {

namespace gu = gpusvd_util;

template <class T>
Row demo_pca(Runner &r, int64_t m, int64_t n) {
    const int64_t k = std::min(m, n);
    Row row;
    row.routine = std::string(precision_letter<T>()) + "pca";
    row.size = std::to_string(m) + "x" + std::to_string(n) + " k=" + std::to_string(k);
    gu::Rng rng(5001);
    std::vector<T> X = zeros<T>(m * n);
    gu::graded(rng, m, n, X.data(), m, 1.0, 1e-2);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) X[size_t(i + j * m)] += T(0.5 * double(j + 1));
    std::vector<T> C = zeros<T>(n * k), var = zeros<T>(k), scores = zeros<T>(m * k),
                   mean = zeros<T>(n);
    std::vector<int> info(1);
    const bool ok = r.execute(
        row, [] {},
        [&](gpusvdHandle_t h) {
            return Api<T>::pca(h, m, n, X.data(), m, k, C.data(), n, var.data(), scores.data(), m,
                               mean.data(), info.data());
        });
    if (!ok) return row;
    check_info(row, info);

    // Reference mean and centred data in double, stored as T.
    std::vector<double> mref = zeros<double>(n);
    std::vector<T> Xc = zeros<T>(m * n);
    double mean_err = 0;
    for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t i = 0; i < m; ++i) s += double(X[size_t(i + j * m)]);
        mref[size_t(j)] = s / double(m);
        for (int64_t i = 0; i < m; ++i)
            Xc[size_t(i + j * m)] = T(double(X[size_t(i + j * m)]) - mref[size_t(j)]);
        mean_err = worst(mean_err, std::fabs(double(mean[size_t(j)]) - mref[size_t(j)]));
    }
    const double eps = double(std::numeric_limits<T>::epsilon());
    const double xmax = double(gu::max_abs(m, n, X.data(), m));
    std::vector<T> sigma = zeros<T>(k), U = zeros<T>(m * k);
    for (int64_t p = 0; p < k; ++p) {
        sigma[size_t(p)] = T(std::sqrt(double(var[size_t(p)]) * double(m - 1)));
        for (int64_t i = 0; i < m; ++i)
            U[size_t(i + p * m)] = scores[size_t(i + p * m)] / sigma[size_t(p)];
    }
    row.checks = {
        {"resid", gu::svd_residual(m, n, Xc.data(), m, sigma.data(), U.data(), m, C.data(), n, k),
         kSvdLimit},
        {"orthU", gu::orthogonality(m, k, U.data(), m), kSvdLimit},
        {"orthC", gu::orthogonality(n, k, C.data(), n), kSvdLimit},
        {"mean", mean_err / (double(m) * xmax * eps), kSvdLimit},
    };
    if (!gu::is_sorted_desc_nonneg(k, var.data()))
        row.problem = "explained variance not non-negative and descending";
    return row;
}

template Row demo_pca<float>(Runner &, int64_t, int64_t);
template Row demo_pca<double>(Runner &, int64_t, int64_t);

}  // namespace gpusvd_cli
