// gpusvd eig FILE: eigenvalues (and right eigenvectors) of general square matrices
// (gpusvd_?geev_batched: one matrix, or every matrix of a 3-D .npy).
#include "cli.hpp"
#include "factor_common.hpp"

namespace gpusvd_cli {

namespace {

template <class T>
int run(Session &s) {
    const Matrix &a = s.a;
    const int64_t n = a.rows, B = a.batch, ld = ld_of(n);
    const int nd = a.batched ? 3 : 2;
    const Selection sel = s.select({{"W", nd, true}, {"VR", nd, s.o.vectors}}, "W",
                                   s.o.vectors ? "--vectors adds VR" : "");
    const bool vectors = sel.has("VR");
    const gpusvdJob_t job = vectors ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC;
    std::vector<T> A = to_vector<T>(a);
    A.resize(static_cast<size_t>(B * ld * n));
    // W holds all real parts, then all imaginary parts: matrix b's [real, imag] columns are
    // W + b*n and W + B*n + b*n.
    std::vector<T> W(static_cast<size_t>(2 * B * n));
    T *wr = W.data(), *wi = W.data() + B * n;
    std::vector<T> VR(vectors ? static_cast<size_t>(B * ld * n) : 0);
    std::vector<int> info(static_cast<size_t>(std::max<int64_t>(B, 1)));
    const std::string routine = routine_name<T>("geev_batched");
    s.compute([&] {
        check(s.handle,
              Api<T>::geev_batched(s.handle, job, n, A.data(), ld, ld * n, wr, wi, n,
                                   vectors ? VR.data() : nullptr, ld, ld * n, B, info.data()),
              routine);
    });
    if (a.batched)
        s.write(sel, {strided_result("W", W.data(), {B, n, 2}, {n, 1, B * n}),
                      batch_result("VR", VR.data(), B, n, n, ld, ld * n)});
    else
        s.write(sel,
                {matrix_result("W", W.data(), n, 2, n), matrix_result("VR", VR.data(), n, n, ld)});
    s.head(static_cast<size_t>(B * n * n) * sizeof(T));
    summarize_eigenvalues(s, gather(wr, B * n), gather(wi, B * n), B, n);
    s.finish(sel);
    const char *meaning =
        "the QR algorithm failed to converge; only some eigenvalues are valid and no "
        "eigenvectors were computed (LAPACK ?geev's meaning)";
    return report_outcome(routine, a.batched, info.data(), B, meaning);
}

}  // namespace

int cmd_eig(const ArgList &args) {
    Session s("eig", args, kAcceptVectors);
    require_square(s.a, "eig");
    return s.single ? run<float>(s) : run<double>(s);
}

}  // namespace gpusvd_cli
