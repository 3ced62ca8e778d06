// pca on the GPU (samples >= features): screen and centre X on the device, tall QR of the centred
// data (geqrf/tall.hpp), one-sided Jacobi SVD of the n x n R (gesvj/gesvj.hpp), then components,
// variances and scores = Q (U_R diag(s)) from the small factors (one GEMM over the samples).
// The data is read three times (screen, column sums, centring) and the centred copy goes through
// the QR's passes; nothing but a few flags per QR step comes back to the host.
#include <algorithm>
#include <cmath>

#include "common/cublas.hpp"
#include "common/pipeline.hpp"
#include "common/runtime.hpp"
#include "geqrf/cholqr.hpp"
#include "geqrf/tall.hpp"
#include "gesvj/gesvj.hpp"
#include "gpu_dispatch.hpp"
#include "kernels/team.hpp"
#include "pca/pca.hpp"

namespace gpusvd {
namespace gpu {
namespace {

size_t align256(size_t x) {
    return x > SIZE_MAX - 255 ? SIZE_MAX : (x + 255) & ~size_t(255);
}

size_t sat_bytes(int64_t rows, int64_t cols, size_t elem) {
    size_t b;
    if (__builtin_mul_overflow(static_cast<size_t>(rows), static_cast<size_t>(cols), &b) ||
        __builtin_mul_overflow(b, elem, &b))
        return SIZE_MAX;
    return align256(b);
}

template <class T>
struct PcaLayout {
    size_t off[16] = {};
    size_t bytes = 0;
    enum {
        kXc,
        kAmax,
        kFlag,
        kSums,
        kMean,
        kScale,
        kR,
        kUR,
        kV,
        kS,
        kJinfo,
        kQinfo,
        kW,
        kQr,
        kJac
    };
    PcaLayout(int64_t m, int64_t n, int64_t k, bool scores) {
        const size_t sizes[] = {
            sat_bytes(m, n, sizeof(T)),
            sat_bytes(n, 1, sizeof(unsigned long long)),
            256,
            sat_bytes(n, 1, sizeof(double)),
            sat_bytes(n, 1, sizeof(T)),
            256,
            sat_bytes(n, n, sizeof(T)),
            scores ? sat_bytes(n, n, sizeof(T)) : 0,
            sat_bytes(n, n, sizeof(T)),
            sat_bytes(n, 1, sizeof(T)),
            256,
            256,
            scores ? sat_bytes(n, k, sizeof(T)) : 0,
            align256(tall_workspace_bytes<T>(m, n)),
            align256(gesvj_workspace_bytes<T>(scores, true, n, n, 1)),
        };
        for (int i = 0; i <= kJac; ++i) {
            off[i] = bytes;
            bytes = sizes[i] > SIZE_MAX - bytes ? SIZE_MAX : bytes + sizes[i];
        }
    }
};

template <class T>
gpusvdStatus_t pca_run(gpusvdHandle_t h, const char *routine, const PcaArgs<T> &a, void *ws,
                       cudaStream_t s) {
    const int64_t m = a.m, n = a.n, k = a.k;
    const bool want_scores = a.scores != nullptr;
    const PcaLayout<T> L(m, n, k, want_scores);
    char *base = static_cast<char *>(ws);
    auto at = [&](int i) { return static_cast<void *>(base + L.off[i]); };
    T *Xc = static_cast<T *>(at(L.kXc));
    auto *amax = static_cast<unsigned long long *>(at(L.kAmax));
    int *flag = static_cast<int *>(at(L.kFlag));
    auto *sums = static_cast<double *>(at(L.kSums));
    T *mean_s = static_cast<T *>(at(L.kMean)), *scale = static_cast<T *>(at(L.kScale));
    T *R = static_cast<T *>(at(L.kR)), *UR = want_scores ? static_cast<T *>(at(L.kUR)) : nullptr;
    T *V = static_cast<T *>(at(L.kV)), *S = static_cast<T *>(at(L.kS));
    int *jinfo = static_cast<int *>(at(L.kJinfo)), *qinfo = static_cast<int *>(at(L.kQinfo));
    T *W = want_scores ? static_cast<T *>(at(L.kW)) : nullptr;

    cudaError_t e = cudaMemsetAsync(amax, 0, sizeof(unsigned long long) * n, s);
    if (e == cudaSuccess) e = cudaMemsetAsync(flag, 0, sizeof(int), s);
    if (e == cudaSuccess) e = cudaMemsetAsync(sums, 0, sizeof(double) * n, s);
    if (e == cudaSuccess) e = screen<T>(m, n, a.X, a.ldx, amax, flag, s);
    if (e == cudaSuccess) e = pca_centre<T>(m, n, a.X, a.ldx, amax, sums, mean_s, scale, Xc, s);
    if (e != cudaSuccess) return cuda_fail(h, routine, "centring the data", e);
    gpusvdStatus_t st = geqrf_tall<T>(h, routine, true, m, n, Xc, m, R, n, qinfo, at(L.kQr),
                                      L.off[L.kJac] - L.off[L.kQr], s);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    const double tol = h->jacobi_tol > 0
                           ? h->jacobi_tol
                           : std::sqrt(static_cast<double>(n)) * kernels::Real<T>::eps();
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
    e = gesvj_launch<T>(q, at(L.kJac), L.bytes - L.off[L.kJac], s);
    if (e == cudaSuccess)
        e = pca_finish<T>(m, n, k, S, V, UR, jinfo, mean_s, scale, a.C, a.ldc, a.var, W, a.mean,
                          a.info, s);
    if (e != cudaSuccess) return cuda_fail(h, routine, "the SVD of R", e);
    if (!want_scores) return GPUSVD_STATUS_SUCCESS;
    cublasHandle_t b = blas_handle(h, routine, s, &st);
    if (!b) return st;
    const cublasStatus_t bs = blas::gemm<T>(b, CUBLAS_OP_N, CUBLAS_OP_N, m, k, n, T(1), Xc, m, W, n,
                                            T(0), a.scores, a.lds);
    return bs == CUBLAS_STATUS_SUCCESS ? GPUSVD_STATUS_SUCCESS
                                       : blas_fail(h, routine, "GEMM scores = Q W", bs);
}

}  // namespace

template <class T>
size_t pca_device_bytes(int64_t m, int64_t n, int64_t k, bool scores) {
    return PcaLayout<T>(m, n, k, scores).bytes;
}

template <class T>
gpusvdStatus_t pca(gpusvdHandle_t h, const char *routine, Form form, const PcaArgs<T> &a) {
    const size_t wsb = pca_device_bytes<T>(a.m, a.n, a.k, a.scores != nullptr);
    if (form == Form::Device) {
        if (a.m == 0 || a.n == 0 || a.k == 0) {  // nothing to compute; info still says "success"
            const cudaError_t e = cudaMemsetAsync(a.info, 0, sizeof(int), user_stream(h));
            return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                                    : cuda_fail(h, routine, "clearing info", e);
        }
        gpusvdStatus_t st;
        void *ws = device_workspace(h, routine, wsb, &st);
        if (!ws) return st;
        st = pca_run<T>(h, routine, a, ws, user_stream(h));
        if (st != GPUSVD_STATUS_SUCCESS) return st;
        const cudaError_t e = record_use(h);
        return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                                : cuda_fail(h, routine, "recording the workspace's use", e);
    }
    const Operand ops[] = {
        {const_cast<T *>(a.X), a.m, a.n, a.ldx, 0, sizeof(T), true, false},
        {a.C, a.n, a.k, a.ldc, 0, sizeof(T), false, true},
        {a.var, a.k, 1, a.k, 0, sizeof(T), false, true},
        {a.scores, a.scores ? a.m : 0, a.k, a.lds, 0, sizeof(T), false, a.scores != nullptr},
        {a.mean, a.mean ? a.n : 0, 1, a.n, 0, sizeof(T), false, a.mean != nullptr},
    };
    return run_host_batched_status(
        h, routine, 1, ops, 5, a.info, [&](int64_t) { return wsb; },
        [&](const Chunk &c) {
            PcaArgs<T> d = a;
            d.X = static_cast<const T *>(c.dev[0]);
            d.ldx = a.m;
            d.C = static_cast<T *>(c.dev[1]);
            d.ldc = a.n;
            d.var = static_cast<T *>(c.dev[2]);
            d.scores = a.scores ? static_cast<T *>(c.dev[3]) : nullptr;
            d.lds = a.m;
            d.mean = a.mean ? static_cast<T *>(c.dev[4]) : nullptr;
            d.info = c.info;
            return pca_run<T>(h, routine, d, c.ws, c.stream);
        });
}

#define GPUSVD_INSTANTIATE(T)                                             \
    template size_t pca_device_bytes<T>(int64_t, int64_t, int64_t, bool); \
    template gpusvdStatus_t pca<T>(gpusvdHandle_t, const char *, Form, const PcaArgs<T> &);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
