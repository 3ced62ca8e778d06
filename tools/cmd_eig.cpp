// gpusvd eig FILE: eigenvalues (and right eigenvectors) of a general square matrix
// (gpusvd_?geev_batched with one matrix).
#include "cli.hpp"
#include "factor_common.hpp"

namespace gpusvd_cli {

namespace {

template <class T>
int run(const FileOptions &o, const Matrix &a, Handle &h) {
    const int64_t n = a.rows;
    const gpusvdJob_t job = o.vectors ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC;
    // W holds wr in its first column and wi in its second: the n x 2 result [real, imag].
    std::vector<T> A = to_vector<T>(a);
    std::vector<T> W(static_cast<size_t>(2 * n));
    std::vector<T> VR(o.vectors ? static_cast<size_t>(n * n) : 0);
    int info = 0;
    const std::string routine = routine_name<T>("geev_batched");
    check(
        h,
        Api<T>::geev_batched(h, job, n, A.data(), ld_of(n), ld_of(n) * n, W.data(), W.data() + n, n,
                             o.vectors ? VR.data() : nullptr, ld_of(n), ld_of(n) * n, 1, &info),
        routine);
    Output out(o.format, o.outdir);
    out.write("W", n, 2, W.data(), ld_of(n));
    if (o.vectors) out.write("VR", n, n, VR.data(), ld_of(n));
    return report_info(routine, info,
                       "the QR algorithm failed to converge; only some eigenvalues are valid "
                       "and no eigenvectors were computed (LAPACK ?geev's meaning)");
}

}  // namespace

int cmd_eig(const ArgList &args) {
    const FileOptions o = parse_file_options("eig", args, kAcceptVectors);
    Handle h(o.backend);
    const Matrix a = read_input(o);
    require_square(a, "eig");
    return o.single ? run<float>(o, a, h) : run<double>(o, a, h);
}

}  // namespace gpusvd_cli
