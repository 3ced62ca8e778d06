// pca by the covariance method on the GPU: screen and centre X on the device (the QR method's
// kernels, pca.cu), the Gram matrix G = Xc^T Xc of the centred copy (geqrf/gram.hpp: row chunks,
// one batched GEMM), G's eigendecomposition as its one-sided Jacobi SVD (G is symmetric positive
// semidefinite: its singular values are its eigenvalues and V its eigenvectors; gesvj/gesvj.hpp),
// then components, variances and mean (pca_finish) and scores = Xc C by one GEMM. The data is
// read three times and the centred copy twice (three times with scores); nothing comes back to
// the host.
#include "pca/covariance.hpp"

#include <cmath>

#include "common/cublas.hpp"
#include "common/runtime.hpp"
#include "geqrf/cholqr.hpp"
#include "geqrf/gram.hpp"
#include "gesvj/gesvj.hpp"
#include "kernels/team.hpp"
#include "pca/pca.hpp"
#include "workspace.hpp"

namespace gpusvd {
namespace gpu {
namespace {

template <class T>
struct CovLayout {
    T *Xc, *mean_s, *P, *G, *V, *S;
    unsigned long long *amax;
    int *flag, *jinfo, *scale_exp;
    double *sums;
    void *jac;
    size_t jac_bytes, bytes;
    CovLayout(void *base, int64_t m, int64_t n) {
        Bump b(base);
        jac_bytes = gesvj_workspace_bytes<T>(false, true, n, n, 1);
        Xc = b.take<T>(m * n);
        amax = b.take<unsigned long long>(n);
        flag = b.take<int>(1);
        sums = b.take<double>(n);
        mean_s = b.take<T>(n);
        scale_exp = b.take<int>(1);
        P = b.take<T>(gram_partials_elements<T>(m, static_cast<int>(n)));
        G = b.take<T>(n * n);
        V = b.take<T>(n * n);
        S = b.take<T>(n);
        jinfo = b.take<int>(1);
        jac = b.take_bytes(jac_bytes);
        bytes = b.bytes();
    }
};

}  // namespace

template <class T>
size_t pca_covariance_bytes(int64_t m, int64_t n) {
    return CovLayout<T>(nullptr, m, n).bytes;
}

template <class T>
gpusvdStatus_t pca_covariance_run(gpusvdHandle_t h, const char *routine, const PcaArgs<T> &a,
                                  void *ws, cudaStream_t s) {
    const int64_t m = a.m, n = a.n, k = a.k;
    const CovLayout<T> L(ws, m, n);
    cudaError_t e = cudaMemsetAsync(L.amax, 0, sizeof(unsigned long long) * n, s);
    if (e == cudaSuccess) e = cudaMemsetAsync(L.flag, 0, sizeof(int), s);
    if (e == cudaSuccess) e = cudaMemsetAsync(L.sums, 0, sizeof(double) * n, s);
    const bool row = a.row_major;  // X, components, scores; the centred copy Xc is column-major
    const MatLd ldx(a.ldx, row), ldc(a.ldc, row), lds(a.lds, row);
    if (e == cudaSuccess) e = screen<T>(m, n, a.X, ldx, L.amax, L.flag, s);
    if (e == cudaSuccess)
        e = pca_centre<T>(m, n, a.X, ldx, L.amax, L.sums, L.mean_s, L.scale_exp, L.Xc, s);
    if (e != cudaSuccess) return cuda_fail(h, routine, "centring the data", e);
    gpusvdStatus_t st;
    cublasHandle_t b = blas_handle(h, routine, s, &st);
    if (!b) return st;
    // The data is scaled into [0.5, 1) (pca_centre): the entries of G stay below 4 m, far from
    // overflow, and the rounding error it carries, about eps ||G||, is far above the underflow
    // threshold.
    st = gram_upper<T>(h, routine, b, m, static_cast<int>(n), L.Xc, m, L.P, L.G, s);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    e = mirror_upper<T>(n, L.G, s);
    if (e != cudaSuccess) return cuda_fail(h, routine, "completing the Gram matrix", e);
    const double tol = h->jacobi_tol > 0
                           ? h->jacobi_tol
                           : std::sqrt(static_cast<double>(n)) * kernels::Real<T>::eps();
    // wantu, wantv, m, n, A, lda, sA, S, sS, U, ldu, sU, V, ldv, sV, batch, info, tol, max
    // sweeps, statistics
    GesvjProblem<T> q{false, true, n,       n,     L.G, n, n * n, L.S, n, nullptr, n, n * n, L.V,
                      n,     n * n, 1, L.jinfo, tol, h->jacobi_max_sweeps, nullptr};
    e = gesvj_launch<T>(q, L.jac, L.jac_bytes, s);
    // A NaN/Inf in X reaches G as NaN, which the Jacobi SVD reports; the screen's flag settles
    // it whatever the arithmetic did with it.
    if (e == cudaSuccess)
        e = pca_finish<T>(m, n, k, L.S, true, L.V, nullptr, L.jinfo, L.flag, L.mean_s,
                          L.scale_exp, a.C, ldc, a.var, nullptr, a.mean, a.info, a.total, s);
    if (e != cudaSuccess)
        return cuda_fail(h, routine, "the eigendecomposition of the Gram matrix", e);
    if (!a.scores) return GPUSVD_STATUS_SUCCESS;
    // row-major C and scores: scores^T = C^T Xc^T
    const cublasStatus_t bs =
        row ? blas::gemm<T>(b, CUBLAS_OP_N, CUBLAS_OP_T, k, m, n, T(1), a.C, a.ldc, L.Xc, m, T(0),
                            a.scores, a.lds)
            : blas::gemm<T>(b, CUBLAS_OP_N, CUBLAS_OP_N, m, k, n, T(1), L.Xc, m, a.C, a.ldc, T(0),
                            a.scores, a.lds);
    if (bs != CUBLAS_STATUS_SUCCESS) return blas_fail(h, routine, "GEMM scores = Xc C", bs);
    e = pca_scale_scores<T>(m, k, a.scores, lds, L.scale_exp, false, s);
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                            : cuda_fail(h, routine, "scaling the scores", e);
}

#define GPUSVD_INSTANTIATE(T)                                                           \
    template size_t pca_covariance_bytes<T>(int64_t, int64_t);                          \
    template gpusvdStatus_t pca_covariance_run<T>(gpusvdHandle_t, const char *,         \
                                                  const PcaArgs<T> &, void *, cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
