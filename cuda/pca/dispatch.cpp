// pca on the GPU (samples >= features), the QR method: screen and centre X on the device, tall
// QR of the centred data (geqrf/tall.hpp), one-sided Jacobi SVD of the n x n R
// (gesvj/gesvj.hpp), then components, variances and scores = Q (U_R diag(s)) from the small
// factors (one GEMM over the samples). The covariance method is in covariance.cpp. Complex data
// (kernels::Complex, column-major) takes the same steps with the QR method only: the tall QR's
// Hermitian Gram matrices, the complex Jacobi team kernels on R, components with their largest
// entry made real and positive.
// The data is read three times (screen, column sums, centring) and the centred copy goes through
// the QR's passes; nothing but a few flags per QR step comes back to the host.
#include <algorithm>
#include <cmath>

#include "common/cublas.hpp"
#include "common/graph.hpp"
#include "common/pipeline.hpp"
#include "common/runtime.hpp"
#include "geqrf/cholqr.hpp"
#include "geqrf/tall.hpp"
#include "gesvj/gesvj.hpp"
#include "gpu_dispatch.hpp"
#include "kernels/team.hpp"
#include "pca/covariance.hpp"
#include "pca/pca.hpp"
#include "workspace.hpp"

namespace gpusvd {
namespace gpu {
namespace {

// Reals per element: the column sums of complex data are two doubles a column.
template <class T>
constexpr int64_t kSumsPer = kernels::kIsComplex<T> ? 2 : 1;

template <class T>
struct PcaLayout {
    T *Xc, *mean_s, *R, *UR, *V, *W;
    kernels::RealOf<T> *S;
    unsigned long long *amax;
    int *flag, *jinfo, *qinfo, *scale_exp;
    double *sums;
    void *qr, *jac;
    size_t qr_bytes, jac_bytes, bytes;
    PcaLayout(void *base, int64_t m, int64_t n, int64_t k, bool scores) {
        Bump b(base);
        qr_bytes = tall_workspace_bytes<T>(m, n);
        jac_bytes = gesvj_workspace_bytes<T>(scores, true, n, n, 1);
        Xc = b.take<T>(m * n);
        amax = b.take<unsigned long long>(n);
        flag = b.take<int>(1);
        sums = b.take<double>(n * kSumsPer<T>);
        mean_s = b.take<T>(n);
        scale_exp = b.take<int>(1);
        R = b.take<T>(n * n);
        UR = b.take<T>(scores ? n * n : 0);
        V = b.take<T>(n * n);
        S = b.take<kernels::RealOf<T>>(n);
        jinfo = b.take<int>(1);
        qinfo = b.take<int>(1);
        W = b.take<T>(scores ? n * k : 0);
        qr = b.take_bytes(qr_bytes);
        jac = b.take_bytes(jac_bytes);
        bytes = b.bytes();
    }
};

template <class T>
gpusvdStatus_t pca_run(gpusvdHandle_t h, const char *routine, const PcaArgs<T> &a, void *ws,
                       cudaStream_t s) {
    const int64_t m = a.m, n = a.n, k = a.k;
    const bool want_scores = a.scores != nullptr;
    const PcaLayout<T> L(ws, m, n, k, want_scores);
    T *Xc = L.Xc, *mean_s = L.mean_s, *R = L.R, *V = L.V;
    kernels::RealOf<T> *S = L.S;
    T *UR = want_scores ? L.UR : nullptr, *W = want_scores ? L.W : nullptr;
    unsigned long long *amax = L.amax;
    int *flag = L.flag, *jinfo = L.jinfo, *qinfo = L.qinfo, *scale_exp = L.scale_exp;
    double *sums = L.sums;

    cudaError_t e = cudaMemsetAsync(amax, 0, sizeof(unsigned long long) * n, s);
    if (e == cudaSuccess) e = cudaMemsetAsync(flag, 0, sizeof(int), s);
    if (e == cudaSuccess) e = cudaMemsetAsync(sums, 0, sizeof(double) * n * kSumsPer<T>, s);
    const bool row = a.row_major;  // X, components, scores; the centred copy Xc is column-major
    const MatLd ldx(a.ldx, row), ldc(a.ldc, row), lds(a.lds, row);
    if (e == cudaSuccess) e = screen<T>(m, n, a.X, ldx, amax, flag, s);
    if (e == cudaSuccess) e = pca_centre<T>(m, n, a.X, ldx, amax, sums, mean_s, scale_exp, Xc, s);
    if (e != cudaSuccess) return cuda_fail(h, routine, "centring the data", e);
    bool q_formed = true;
    gpusvdStatus_t st =
        geqrf_tall<T>(h, routine, true, m, n, Xc, m, R, n, qinfo, L.qr, L.qr_bytes, s, &q_formed);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    const double tol = h->jacobi_tol > 0
                           ? h->jacobi_tol
                           : std::sqrt(static_cast<double>(n)) *
                                 kernels::Real<kernels::RealOf<T>>::eps();
    GesvjProblem<T> q{want_scores,
                      true,
                      n,
                      n,
                      R,
                      n,
                      n * n,
                      S,
                      n,
                      UR,
                      n,
                      n * n,
                      V,
                      n,
                      n * n,
                      1,
                      jinfo,
                      tol,
                      h->jacobi_max_sweeps,
                      nullptr};
    e = gesvj_launch<T>(q, L.jac, L.jac_bytes, s);
    if (e == cudaSuccess)
        e = pca_finish<T>(m, n, k, S, false, V, UR, jinfo, nullptr, mean_s, scale_exp, a.C, ldc,
                          a.var, W, a.mean, a.info, a.total, s);
    if (e != cudaSuccess) return cuda_fail(h, routine, "the SVD of R", e);
    if (!want_scores) return GPUSVD_STATUS_SUCCESS;
    cublasHandle_t b = blas_handle(h, routine, s, &st);
    if (!b) return st;
    // Xc left as it was (well conditioned, see geqrf_tall): scores = Xc (R^-1 W).
    cublasStatus_t bs = CUBLAS_STATUS_SUCCESS;
    if (!q_formed) bs = blas::trsm_upper<T>(b, CUBLAS_SIDE_LEFT, n, k, R, n, W, n);
    if (bs != CUBLAS_STATUS_SUCCESS) return blas_fail(h, routine, "TRSM R^-1 W", bs);
    // row-major scores: scores^T = W^T Q^T
    bs = row ? blas::gemm<T>(b, CUBLAS_OP_T, CUBLAS_OP_T, k, m, n, T(1), W, n, Xc, m, T(0),
                             a.scores, a.lds)
             : blas::gemm<T>(b, CUBLAS_OP_N, CUBLAS_OP_N, m, k, n, T(1), Xc, m, W, n, T(0),
                             a.scores, a.lds);
    if (bs != CUBLAS_STATUS_SUCCESS) return blas_fail(h, routine, "GEMM scores = Q W", bs);
    e = pca_scale_scores<T>(m, k, a.scores, lds, scale_exp, true, s);
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS : cuda_fail(h, routine, "scaling the scores", e);
}

}  // namespace

template <class T>
size_t pca_device_bytes(int64_t m, int64_t n, int64_t k, bool scores, bool covariance) {
    if constexpr (!kernels::kIsComplex<T>)
        if (covariance) return pca_covariance_bytes<T>(m, n);
    return PcaLayout<T>(nullptr, m, n, k, scores).bytes;
}

// The method's run.
template <class T>
gpusvdStatus_t run_method(gpusvdHandle_t h, const char *routine, const PcaArgs<T> &a, void *ws,
                          cudaStream_t s) {
    if constexpr (!kernels::kIsComplex<T>)  // complex data: the QR method only
        if (a.covariance) return pca_covariance_run<T>(h, routine, a, ws, s);
    return pca_run<T>(h, routine, a, ws, s);
}

void fetch_pca_total(gpusvdHandle_t h) {
    // Read on every query, not once: the replay of a captured call rewrites the device word
    // without the handle knowing, and the query must then give that replay's value.
    if (!h->pca_total_on_gpu) return;
    auto *r = static_cast<Resources *>(h->gpu);
    double t = std::nan("");
    if (!r || !r->pca_total ||
        cudaMemcpyAsync(&t, r->pca_total, sizeof t, cudaMemcpyDeviceToHost, user_stream(h)) !=
            cudaSuccess ||
        cudaStreamSynchronize(user_stream(h)) != cudaSuccess) {
        cudaGetLastError();
        t = std::nan("");  // the call's own status reported the failure
    }
    h->pca_total = t;
}

gpusvdStatus_t copy_pca_total(gpusvdHandle_t h, const char *routine, double *dst) {
    DeviceScope dev(h);
    const gpusvdStatus_t entered = dev.enter(routine, true, {{"totalVariance", dst}});
    if (entered != GPUSVD_STATUS_SUCCESS) return entered;
    auto *r = static_cast<Resources *>(h->gpu);
    // After a `_gpu` call the value is still in the handle's device word (in stream order; a
    // later pca call on the handle rewrites it only after this copy); otherwise it is on the host.
    const cudaError_t e =
        h->pca_total_on_gpu && r && r->pca_total
            ? cudaMemcpyAsync(dst, r->pca_total, sizeof(double), cudaMemcpyDefault, user_stream(h))
            : store_double(dst, h->pca_total, user_stream(h));
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                            : cuda_fail(h, routine, "copying the total variance", e);
}

template <class T>
gpusvdStatus_t pca(gpusvdHandle_t h, const char *routine, Form form, const PcaArgs<T> &args) {
    const bool empty = args.m == 0 || args.n == 0 || args.k == 0;
    DeviceScope dev(h);
    const gpusvdStatus_t entered = dev.enter(
        routine, form == Form::Device,
        empty ? std::initializer_list<PtrArg>{{"info", args.info}}
              : std::initializer_list<PtrArg>{{"X", args.X},
                                              {"components", args.C},
                                              {"explainedVariance", args.var},
                                              {"scores", args.scores},
                                              {"mean", args.mean},
                                              {"info", args.info}});
    if (entered != GPUSVD_STATUS_SUCCESS) return entered;
    // The total variance goes to a handle-owned device double (gpusvdGetPcaTotalVariance reads
    // it back), allocated by the handle's first pca call: not inside a capture.
    PcaArgs<T> a = args;
    if (!empty) {
        cudaError_t e;
        Resources *r = resources(h, &e);
        if (r && !r->pca_total) {
            bool cap = false;
            stream_capturing(user_stream(h), &cap);
            if (cap && form == Form::Device)
                return fail(h, GPUSVD_STATUS_NOT_SUPPORTED,
                            "%s: the handle's first pca call cannot be inside a CUDA graph "
                            "capture (it allocates): make one call on this handle before "
                            "capturing",
                            routine);
            e = cudaMalloc(&r->pca_total, sizeof(double));
        }
        if (e != cudaSuccess) return cuda_fail(h, routine, "allocating the total variance", e);
        a.total = static_cast<double *>(r->pca_total);
    }
    const size_t wsb = pca_device_bytes<T>(a.m, a.n, a.k, a.scores != nullptr, a.covariance);
    gpusvdStatus_t st;
    if (form == Form::Device) {
        st = run_device_form(
            h, routine, empty, a.info, wsb,
            [&](void *ws, cudaStream_t s) { return run_method<T>(h, routine, a, ws, s); });
    } else {
        // Row-major matrices are copied as they are (as the column-major transposes): on the
        // device they are row-major with ld their column count.
        const bool row = a.row_major;
        const int64_t sm = a.scores ? a.m : 0;
        const Operand ops[] = {
            {const_cast<T *>(a.X), row ? a.n : a.m, row ? a.m : a.n, a.ldx, 0, sizeof(T), true,
             false},
            {a.C, row ? a.k : a.n, row ? a.n : a.k, a.ldc, 0, sizeof(T), false, true},
            {a.var, a.k, 1, a.k, 0, sizeof(*a.var), false, true},
            {a.scores, row ? (a.scores ? a.k : 0) : sm, row ? sm : a.k, a.lds, 0, sizeof(T),
             false, a.scores != nullptr},
            {a.mean, a.mean ? a.n : 0, 1, a.n, 0, sizeof(T), false, a.mean != nullptr},
        };
        st = run_host_batched_status(
            h, routine, 1, ops, 5, a.info, [&](int64_t) { return wsb; },
            [&](const Chunk &c) {
                PcaArgs<T> d = a;
                d.X = static_cast<const T *>(c.dev[0]);
                d.ldx = row ? a.n : a.m;
                d.C = static_cast<T *>(c.dev[1]);
                d.ldc = row ? a.k : a.n;
                d.var = static_cast<kernels::RealOf<T> *>(c.dev[2]);
                d.scores = a.scores ? static_cast<T *>(c.dev[3]) : nullptr;
                d.lds = row ? a.k : a.m;
                d.mean = a.mean ? static_cast<T *>(c.dev[4]) : nullptr;
                d.info = c.info;
                return run_method<T>(h, routine, d, c.ws, c.stream);
            });
    }
    if (st == GPUSVD_STATUS_SUCCESS) {
        h->pca_total = std::nan("");  // an empty problem has none
        h->pca_total_on_gpu = !empty;
    }
    return st;
}

#define GPUSVD_INSTANTIATE(T)                                             \
    template size_t pca_device_bytes<T>(int64_t, int64_t, int64_t, bool, bool); \
    template gpusvdStatus_t pca<T>(gpusvdHandle_t, const char *, Form, const PcaArgs<T> &);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
