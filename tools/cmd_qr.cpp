// gpusvd qr FILE: QR with explicit Q by Gram-Schmidt (gpusvd_?geqrf_mgs, or
// gpusvd_?geqrf_mgs_batched for a 3-D .npy).
#include "cli.hpp"
#include "factor_common.hpp"

namespace gpusvd_cli {

namespace {

template <class T>
int run(Session &s) {
    const Matrix &a = s.a;
    const int64_t m = a.rows, n = a.cols, k = std::min(m, n), B = a.batch;
    const int64_t lda = ld_of(m), ldr = ld_of(k);
    const int nd = a.batched ? 3 : 2;
    const Selection sel = s.select({{"R", nd, true}, {"Q", nd, true}}, "R");
    std::vector<T> A = to_vector<T>(a);
    A.resize(static_cast<size_t>(B * lda * n));
    std::vector<T> R(static_cast<size_t>(B * ldr * n));
    std::vector<int> info(static_cast<size_t>(std::max<int64_t>(B, 1)));
    const std::string routine = routine_name<T>(a.batched ? "geqrf_mgs_batched" : "geqrf_mgs");
    s.compute([&] {
        if (a.batched)
            check(s.handle,
                  Api<T>::geqrf_mgs_batched(s.handle, s.o.orth, m, n, A.data(), lda, lda * n,
                                            R.data(), ldr, ldr * n, B, info.data()),
                  routine);
        else
            check(s.handle,
                  Api<T>::geqrf_mgs(s.handle, s.o.orth, m, n, A.data(), lda, R.data(), ldr,
                                    info.data()),
                  routine);
    });
    if (a.batched)
        s.write(sel, {batch_result("Q", A.data(), B, m, k, lda, lda * n),
                      batch_result("R", R.data(), B, k, n, ldr, ldr * n)});
    else
        s.write(sel,
                {matrix_result("Q", A.data(), m, k, lda), matrix_result("R", R.data(), k, n, ldr)});
    s.head(static_cast<size_t>(B * m * n) * sizeof(T));
    std::vector<double> diag(static_cast<size_t>(B * k));
    for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < k; ++j)
            diag[size_t(b * k + j)] = double(R[size_t(b * ldr * n + j + j * ldr)]);
    summarize_r_diagonal(s, diag, B, k, m >= n, info.data());
    s.finish(sel);
    const char *meaning =
        "this column (1-based) is numerically dependent on the previous ones: its R diagonal "
        "entry is 0 and its Q column completes Q orthonormally";
    return report_outcome(routine, a.batched, info.data(), B, meaning);
}

}  // namespace

int cmd_qr(const ArgList &args) {
    Session s("qr", args, kAcceptOrth);
    return s.single ? run<float>(s) : run<double>(s);
}

}  // namespace gpusvd_cli
