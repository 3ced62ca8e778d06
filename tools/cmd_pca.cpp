// gpusvd pca FILE: principal components of the rows (samples) of X (gpusvd_?pca).
#include <cstdio>

#include "cli.hpp"
#include "factor_common.hpp"

namespace gpusvd_cli {

namespace {

template <class T>
int run(const FileOptions &o, const Matrix &a, Handle &h, int64_t k) {
    const int64_t m = a.rows, n = a.cols;
    std::vector<T> X = to_vector<T>(a);
    std::vector<T> C(static_cast<size_t>(n * k)), var(static_cast<size_t>(k));
    std::vector<T> scores(static_cast<size_t>(m * k)), mean(static_cast<size_t>(n));
    int info = 0;
    const std::string routine = routine_name<T>("pca");
    check(h,
          Api<T>::pca(h, m, n, X.data(), ld_of(m), k, C.data(), ld_of(n), var.data(), scores.data(),
                      ld_of(m), mean.data(), &info),
          routine);
    Output out(o.format, o.outdir);
    out.write("components", n, k, C.data(), ld_of(n));
    out.write("explained_variance", k, 1, var.data(), ld_of(k));
    out.write("scores", m, k, scores.data(), ld_of(m));
    // Zero-size problems (m = 0 or k = 0) write no output, the mean included (gpusvd.h).
    if (m > 0 && k > 0)
        out.write("mean", n, 1, mean.data(), ld_of(n));
    else if (n > 0)
        std::fprintf(stderr, "note: with %s = 0 the library computes no mean; none written\n",
                     m == 0 ? "m" : "k");
    return report_info(routine, info, "the SVD did not converge");
}

}  // namespace

int cmd_pca(const ArgList &args) {
    const FileOptions o = parse_file_options("pca", args, kAcceptK);
    Handle h(o.backend);
    const Matrix a = read_input(o);
    const int64_t kmax = std::min(a.rows, a.cols);
    if (o.k > kmax)
        throw CliError(kExitUsage, "pca: -k " + std::to_string(o.k) +
                                       " exceeds min(rows, cols) = " + std::to_string(kmax) +
                                       " of " + a.source);
    const int64_t k = o.k < 0 ? kmax : o.k;
    if (a.rows == 1 && k > 0)
        input_error(a.source, 0, "pca needs at least 2 samples (rows), got 1");
    return o.single ? run<float>(o, a, h, k) : run<double>(o, a, h, k);
}

}  // namespace gpusvd_cli
