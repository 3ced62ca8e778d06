// gpusvd svd FILE: economy SVD by one-sided Jacobi (gpusvd_?gesvj).
#include "cli.hpp"
#include "factor_common.hpp"

namespace gpusvd_cli {

namespace {

template <class T>
int run(const FileOptions &o, const Matrix &a, Handle &h) {
    const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
    const bool vec = !o.values_only;
    const gpusvdJob_t job = vec ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC;
    std::vector<T> A = to_vector<T>(a);
    std::vector<T> S(static_cast<size_t>(k));
    std::vector<T> U(vec ? static_cast<size_t>(m * k) : 0);
    std::vector<T> V(vec ? static_cast<size_t>(n * k) : 0);
    int info = 0;
    const std::string routine = routine_name<T>("gesvj");
    check(h,
          Api<T>::gesvj(h, job, job, m, n, A.data(), ld_of(m), S.data(), vec ? U.data() : nullptr,
                        ld_of(m), vec ? V.data() : nullptr, ld_of(n), &info),
          routine);
    Output out(o.format, o.outdir);
    out.write("S", k, 1, S.data(), ld_of(k));
    if (vec) {
        out.write("U", m, k, U.data(), ld_of(m));
        out.write("V", n, k, V.data(), ld_of(n));
    }
    return report_info(routine, info,
                       "Jacobi did not converge within the sweep limit; the results are the best "
                       "so far");
}

}  // namespace

int cmd_svd(const ArgList &args) {
    const FileOptions o = parse_file_options("svd", args, kAcceptValuesOnly);
    Handle h(o.backend);
    const Matrix a = read_input(o);
    return o.single ? run<float>(o, a, h) : run<double>(o, a, h);
}

}  // namespace gpusvd_cli
