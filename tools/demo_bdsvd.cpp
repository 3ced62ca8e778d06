// Demo row: bdsvd with vectors on a random upper bidiagonal matrix.
#include <matgen.hpp>
#include <ratios.hpp>

#include "demo.hpp"

namespace gpusvd_cli {

namespace gu = gpusvd_util;

template <class T>
Row demo_bdsvd(Runner &r, int64_t n) {
    Row row;
    row.routine = std::string(precision_letter<T>()) + "bdsvd +vectors";
    row.size = "n=" + std::to_string(n) + " upper";
    gu::Rng rng(4001);
    std::vector<T> d0 = zeros<T>(n), e0 = zeros<T>(std::max<int64_t>(n - 1, 0));
    gu::random_bidiagonal(rng, n, d0.data(), e0.data(), gu::BidiagMode::Random);
    std::vector<T> d, e, U = zeros<T>(n * n), VT = zeros<T>(n * n);
    std::vector<int> info(1);
    const bool ok = r.execute(
        row,
        [&] {
            d = d0;
            e = e0;
        },
        [&](gpusvdHandle_t h) {
            return Api<T>::bdsvd(h, GPUSVD_UPPER, GPUSVD_JOB_VEC, n, d.data(), e.data(), U.data(),
                                 n, VT.data(), n, info.data());
        });
    if (!ok) return row;
    check_info(row, info);
    row.checks = {
        {"resid",
         gu::bidiag_residual(n, true, d0.data(), e0.data(), d.data(), U.data(), n, VT.data(), n),
         kSvdLimit},
        {"orthU", gu::orthogonality(n, n, U.data(), n), kSvdLimit},
        {"orthVT", gu::orthogonality_rows(n, n, VT.data(), n), kSvdLimit},
    };
    if (!gu::is_sorted_desc_nonneg(n, d.data())) row.problem = "S not non-negative and descending";
    return row;
}

template Row demo_bdsvd<float>(Runner &, int64_t);
template Row demo_bdsvd<double>(Runner &, int64_t);

}  // namespace gpusvd_cli
