// gpusvd qr FILE: QR with explicit Q by Gram-Schmidt (gpusvd_?geqrf_mgs).
#include "cli.hpp"
#include "factor_common.hpp"

namespace gpusvd_cli {

namespace {

template <class T>
int run(const FileOptions &o, const Matrix &a, Handle &h) {
    const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
    std::vector<T> A = to_vector<T>(a);
    std::vector<T> R(static_cast<size_t>(k * n));
    int info = 0;
    const std::string routine = routine_name<T>("geqrf_mgs");
    check(h, Api<T>::geqrf_mgs(h, o.orth, m, n, A.data(), ld_of(m), R.data(), ld_of(k), &info),
          routine);
    Output out(o.format, o.outdir);
    out.write("Q", m, k, A.data(), ld_of(m));
    out.write("R", k, n, R.data(), ld_of(k));
    return report_info(routine, info,
                       "this column (1-based) is numerically dependent on the previous ones: its "
                       "R diagonal entry is 0 and its Q column completes Q orthonormally");
}

}  // namespace

int cmd_qr(const ArgList &args) {
    const FileOptions o = parse_file_options("qr", args, kAcceptOrth);
    Handle h(o.backend);
    const Matrix a = read_input(o);
    return o.single ? run<float>(o, a, h) : run<double>(o, a, h);
}

}  // namespace gpusvd_cli
