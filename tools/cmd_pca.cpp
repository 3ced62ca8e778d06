// gpusvd pca FILE: principal components of the rows (samples) of X (gpusvd_?pca), with the
// total variance and explained-variance ratios, optionally of standardized features.
#include <cmath>
#include <cstdio>

#include "cli.hpp"
#include "factor_common.hpp"

namespace gpusvd_cli {

namespace {

/// Column means and sample variances (divisor m - 1) of the m x n column-major x, in float64.
template <class T>
void column_moments(const std::vector<T> &x, int64_t m, int64_t n, std::vector<double> &mean,
                    std::vector<double> &var) {
    mean.assign(size_t(n), std::nan(""));
    var.assign(size_t(n), std::nan(""));
    for (int64_t j = 0; j < n && m > 0; ++j) {
        const T *c = &x[size_t(j * m)];
        double s = 0;
        for (int64_t i = 0; i < m; ++i) s += double(c[i]);
        const double mu = s / double(m);
        double q = 0;
        for (int64_t i = 0; i < m; ++i) q += (double(c[i]) - mu) * (double(c[i]) - mu);
        mean[size_t(j)] = mu;
        if (m > 1) var[size_t(j)] = q / double(m - 1);
    }
}

template <class T>
int run(Session &s, int64_t k) {
    const Matrix &a = s.a;
    const int64_t m = a.rows, n = a.cols, ldm = ld_of(m), ldn = ld_of(n);
    std::vector<ResultSpec> specs = {{"explained_variance", 1, true},
                                     {"explained_variance_ratio", 1, true},
                                     {"total_variance", 0, true},
                                     {"components", 2, true},
                                     {"scores", 2, true},
                                     {"mean", 1, true}};
    if (s.o.standardize) specs.push_back({"scale", 1, true});
    const Selection sel = s.select(specs, "explained_variance");

    std::vector<T> X = to_vector<T>(a);
    std::vector<double> mean, var;
    column_moments(X, m, n, mean, var);
    std::vector<T> scale;
    if (s.o.standardize) {
        // Dividing by the sample standard deviation makes each feature's variance 1 (PCA of the
        // correlation matrix); a constant feature keeps scale 1, as in scikit-learn.
        int64_t constant = 0;
        scale.resize(size_t(n));
        for (int64_t j = 0; j < n; ++j) {
            const double sd = std::sqrt(var[size_t(j)]);
            const double sc = sd > 0 ? sd : 1.0;
            constant += !(sd > 0);
            scale[size_t(j)] = T(sc);
            for (int64_t i = 0; i < m; ++i) {
                T &x = X[size_t(i + j * m)];
                x = T((double(x) - mean[size_t(j)]) / sc);
            }
        }
        if (constant && m > 1)
            s.say("note: %lld constant feature(s) left unscaled (scale 1)",
                  static_cast<long long>(constant));
    }
    // The total variance of the data the library sees: what the explained variances add up to
    // when k = min(m - 1, n).
    std::vector<double> seen_mean, seen_var;
    column_moments(X, m, n, seen_mean, seen_var);
    double total = m > 1 ? 0.0 : std::nan("");
    for (double v : seen_var) total += v;

    std::vector<T> C(static_cast<size_t>(ldn * k)), ev(static_cast<size_t>(k));
    // The scores cost an m x n times n x k product: computed only when written.
    const bool want_scores = sel.has("scores");
    std::vector<T> scores(want_scores ? static_cast<size_t>(ldm * k) : 0);
    std::vector<T> lib_mean(static_cast<size_t>(n));
    int info = 0;
    const std::string routine = routine_name<T>("pca");
    s.compute([&] {
        check(s.handle,
              Api<T>::pca(s.handle, m, n, X.data(), ldm, k, C.data(), ldn, ev.data(),
                          want_scores ? scores.data() : nullptr, ldm, lib_mean.data(), &info),
              routine);
    });
    std::vector<T> ratio(static_cast<size_t>(k)), mean_out(static_cast<size_t>(n));
    for (int64_t j = 0; j < k; ++j) ratio[size_t(j)] = T(double(ev[size_t(j)]) / total);
    for (int64_t j = 0; j < n; ++j) mean_out[size_t(j)] = T(mean[size_t(j)]);
    const T total_out = T(total);
    s.write(sel,
            {matrix_result("components", C.data(), n, k, ldn),
             vector_result("explained_variance", ev.data(), k),
             vector_result("explained_variance_ratio", ratio.data(), k),
             scalar_result("total_variance", &total_out),
             matrix_result("scores", scores.data(), m, k, ldm),
             vector_result("mean", mean_out.data(), n), vector_result("scale", scale.data(), n)});
    s.head(static_cast<size_t>(m * n) * sizeof(T), std::to_string(m) + " samples x " +
                                                       std::to_string(n) +
                                                       " features, k = " + std::to_string(k));
    summarize_pca(s, gather(ev.data(), k), total, n);
    s.finish(sel);
    return report_info(routine, info, "the SVD did not converge");
}

}  // namespace

int cmd_pca(const ArgList &args) {
    Session s("pca", args, kAcceptK | kAcceptStandardize);
    const Matrix &a = s.a;
    require_single_matrix(a, "pca");
    const int64_t kmax = std::min(a.rows, a.cols);
    if (s.o.k > kmax)
        throw CliError(kExitUsage, "pca: -k " + std::to_string(s.o.k) +
                                       " exceeds min(rows, cols) = " + std::to_string(kmax) +
                                       " of " + a.source);
    const int64_t k = s.o.k < 0 ? kmax : s.o.k;
    if (a.rows == 1 && k > 0)
        input_error(a.source, 0, "pca needs at least 2 samples (rows), got 1");
    return s.single ? run<float>(s, k) : run<double>(s, k);
}

}  // namespace gpusvd_cli
