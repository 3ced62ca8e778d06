// gpusvd svd FILE: economy SVD by one-sided Jacobi (gpusvd_?gesvj, or gpusvd_?gesvj_batched for
// a 3-D .npy).
#include "cli.hpp"
#include "factor_common.hpp"

namespace gpusvd_cli {

namespace {

template <class T>
int run(Session &s) {
    const Matrix &a = s.a;
    const int64_t m = a.rows, n = a.cols, k = std::min(m, n), B = a.batch;
    const int64_t lda = ld_of(m), ldv = ld_of(n);  // strides follow them (a 0-row batch)
    const int nd = a.batched ? 1 : 0;
    std::vector<ResultSpec> specs = {{"S", 1 + nd, true}};
    if (!s.o.values_only) {
        specs.push_back({"U", 2 + nd, true});
        specs.push_back({"V", 2 + nd, true});
    }
    const Selection sel = s.select(specs, "S");
    const bool want_u = sel.has("U"), want_v = sel.has("V");
    std::vector<T> A = to_vector<T>(a);
    A.resize(static_cast<size_t>(B * lda * n));
    std::vector<T> S(static_cast<size_t>(B * k));
    std::vector<T> U(want_u ? static_cast<size_t>(B * lda * k) : 0);
    std::vector<T> V(want_v ? static_cast<size_t>(B * ldv * k) : 0);
    std::vector<int> info(static_cast<size_t>(std::max<int64_t>(B, 1)));
    const gpusvdJob_t ju = want_u ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC;
    const gpusvdJob_t jv = want_v ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC;
    const std::string routine = routine_name<T>(a.batched ? "gesvj_batched" : "gesvj");
    T *u = want_u ? U.data() : nullptr, *v = want_v ? V.data() : nullptr;
    s.compute([&] {
        if (a.batched)
            check(s.handle,
                  Api<T>::gesvj_batched(s.handle, ju, jv, m, n, A.data(), lda, lda * n, S.data(), k,
                                        u, lda, lda * k, v, ldv, ldv * k, B, info.data()),
                  routine);
        else
            check(s.handle,
                  Api<T>::gesvj(s.handle, ju, jv, m, n, A.data(), lda, S.data(), u, lda, v, ldv,
                                info.data()),
                  routine);
    });
    if (a.batched)
        s.write(sel, {strided_result("S", S.data(), {B, k}, {k, 1}),
                      batch_result("U", U.data(), B, m, k, lda, lda * k),
                      batch_result("V", V.data(), B, n, k, ldv, ldv * k)});
    else
        s.write(sel, {vector_result("S", S.data(), k), matrix_result("U", U.data(), m, k, lda),
                      matrix_result("V", V.data(), n, k, ldv)});
    s.head(static_cast<size_t>(B * m * n) * sizeof(T));
    summarize_singular_values(s, gather(S.data(), B * k), B, k, m, n);
    s.finish(sel);
    const char *meaning =
        "Jacobi did not converge within the sweep limit; the results are the best so far";
    return report_outcome(routine, a.batched, info.data(), B, meaning);
}

}  // namespace

int cmd_svd(const ArgList &args) {
    Session s("svd", args, kAcceptValuesOnly);
    return s.single ? run<float>(s) : run<double>(s);
}

}  // namespace gpusvd_cli
