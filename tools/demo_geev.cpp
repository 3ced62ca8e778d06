// Demo row: geev_batched with vectors on random general matrices (even indices) and matrices
// with known complex-pair eigenvalues (odd indices).
#include <matgen.hpp>
#include <ratios.hpp>

#include "demo.hpp"

namespace gpusvd_cli {

namespace gu = gpusvd_util;

template <class T>
Row demo_geev_batched(Runner &r, int64_t n, int64_t batch) {
    Row row;
    row.routine = std::string(precision_letter<T>()) + "geev_batched +vectors";
    row.size = std::to_string(batch) + " x " + std::to_string(n) + "x" + std::to_string(n);
    gu::Rng rng(3001);
    std::vector<T> A0 = zeros<T>(n * n * batch);
    std::vector<double> wr_ref = zeros<double>(n * batch), wi_ref = zeros<double>(n * batch);
    for (int64_t b = 0; b < batch; ++b) {
        T *a = A0.data() + b * n * n;
        if (b % 2 == 0)
            gu::random_general(rng, n, a, n);
        else
            gu::complex_pairs(rng, n, a, n, wr_ref.data() + b * n, wi_ref.data() + b * n);
    }
    std::vector<T> A, wr = zeros<T>(n * batch), wi = zeros<T>(n * batch),
                      VR = zeros<T>(n * n * batch);
    std::vector<int> info = zeros<int>(batch);
    const bool ok = r.execute(
        row, [&] { A = A0; },
        [&](gpusvdHandle_t h) {
            return Api<T>::geev_batched(h, GPUSVD_JOB_VEC, n, A.data(), n, n * n, wr.data(),
                                        wi.data(), n, VR.data(), n, n * n, batch, info.data());
        });
    if (!ok) return row;
    check_info(row, info);
    double resid = 0, vnorm = 0, match = 0;
    bool pairs_ok = true;
    for (int64_t b = 0; b < batch; ++b) {
        const T *a0 = A0.data() + b * n * n, *vr = VR.data() + b * n * n;
        const T *pr = wr.data() + b * n, *pi = wi.data() + b * n;
        resid = worst(resid, gu::eig_residual(n, a0, n, pr, pi, vr, n));
        vnorm = worst(vnorm, gu::eigvec_normalization(n, pi, vr, n));
        pairs_ok = pairs_ok && gu::eig_pairs_ok(n, pr, pi);
        if (b % 2 == 1)
            match = worst(match, gu::eig_match(n, pr, pi, wr_ref.data() + b * n,
                                               wi_ref.data() + b * n, gu::norm1(n, n, a0, n)));
    }
    row.checks = {
        {"resid", resid, kEigLimit}, {"vnorm", vnorm, kEigLimit}, {"W", match, kEigLimit}};
    if (!pairs_ok) row.problem = "eigenvalues not in LAPACK ?geev pair order";
    return row;
}

template Row demo_geev_batched<float>(Runner &, int64_t, int64_t);
template Row demo_geev_batched<double>(Runner &, int64_t, int64_t);

}  // namespace gpusvd_cli
