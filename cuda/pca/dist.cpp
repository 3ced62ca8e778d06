// pca_dist on the GPU: the data's maximum and column sums over all ranks (kernels in
// geqrf/dist_kernels.cu, reductions over the communicator), the centred copy scaled by 2^-e,
// the distributed QR (geqrf/dist_core.hpp), then R to the host, where every rank takes the same
// Jacobi SVD (cpu/dist_pca.hpp's pca_from_r), and the scores as one GEMM Q Us on the device.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/collective.hpp"
#include "common/cublas.hpp"
#include "common/runtime.hpp"
#include "cpu/dist_pca.hpp"
#include "dist_dispatch.hpp"
#include "geqrf/dist.hpp"
#include "geqrf/dist_core.hpp"
#include "workspace.hpp"

namespace gpusvd {
namespace gpu {
namespace {

template <class T>
struct DevLayout {
    T *X, *Xc, *R, *Us, *mean_s, *C, *var, *mean, *S;
    double *sums;
    long long *stats;
    int *info;
    void *core;
    size_t core_bytes, bytes;
    DevLayout(void *base, int64_t m, int64_t n, int64_t k, bool host_form, bool scores) {
        const int64_t rows = std::max<int64_t>(m, 1);
        Bump b(base);
        core_bytes = dist_qr_core_bytes<T>(rows, n);
        core = b.take_bytes(core_bytes);
        X = b.take<T>(host_form ? m * n : 0);
        S = b.take<T>(host_form && scores ? m * k : 0);  // host form: the scores on the device
        Xc = b.take<T>(rows * n);
        R = b.take<T>(n * n);
        Us = b.take<T>(n * k);
        mean_s = b.take<T>(n);
        C = b.take<T>(host_form ? 0 : n * k);  // `_gpu`: the host's results on their way out
        var = b.take<T>(host_form ? 0 : k);
        mean = b.take<T>(host_form ? 0 : n);
        sums = b.take<double>(n);
        stats = b.take<long long>(2);
        info = b.take<int>(1);
        bytes = b.bytes();
    }
};

// Host workspace: the dead flags of the QR, R, the host side of pca_from_r and its outputs.
template <class T>
struct HostLayout {
    int *dead;
    T *R, *C, *var, *mean, *Us, *mean_s;
    long long *stats;
    void *from_r;
    size_t bytes;
    HostLayout(void *base, int64_t n, int64_t k) {
        Bump b(base);
        dead = b.take<int>(n);
        R = b.take<T>(n * n);
        C = b.take<T>(n * k);
        var = b.take<T>(k);
        mean = b.take<T>(n);
        Us = b.take<T>(n * k);
        mean_s = b.take<T>(n);
        stats = b.take<long long>(2);
        from_r = b.take_bytes(cpu::pca_from_r_bytes<T>(n, k));
        bytes = b.bytes();
    }
};

}  // namespace

template <class T>
size_t pca_dist_device_bytes(int64_t m, int64_t n, int64_t k) {
    return DevLayout<T>(nullptr, m, n, k, false, true).bytes;
}

template <class T>
gpusvdStatus_t pca_dist(gpusvdHandle_t h, const char *routine, Form form, gpusvdComm_t c,
                        int64_t m, int64_t n, const T *X, int64_t ldx, int64_t k, T *C, int64_t ldc,
                        T *var, T *scores, int64_t lds, T *mean, int *info) {
    const bool host_form = form == Form::Host;
    const cudaStream_t s = user_stream(h);
    const bool work = n > 0 && k > 0;
    DeviceScope dev(h);
    gpusvdStatus_t st = dist_prepare(
        h, routine, form, c, dev,
        {{"X", X}, {"components", C}, {"explainedVariance", var}, {"scores", scores},
         {"mean", mean}, {"info", info}});
    void *ws = nullptr, *hws = nullptr;
    cublasHandle_t b = nullptr;
    if (st == GPUSVD_STATUS_SUCCESS && work)
        ws = device_workspace(h, routine,
                              DevLayout<T>(nullptr, m, n, k, host_form, scores != nullptr).bytes,
                              &st);
    if (st == GPUSVD_STATUS_SUCCESS && work)
        hws = host_workspace(h, routine, HostLayout<T>(nullptr, n, k).bytes, &st);
    if (st == GPUSVD_STATUS_SUCCESS && work) b = blas_handle(h, routine, s, &st);
    Agreement g;
    st = agree(h, routine, c, st, m, n, "k", k, !host_form, &g);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    if (g.m_global < 2 && work)
        return fail(h, GPUSVD_STATUS_INVALID_VALUE,
                    "%s: the ranks hold %lld samples in all: PCA needs at least 2", routine,
                    static_cast<long long>(g.m_global));
    cudaError_t e = cudaSuccess;
    if (!work) {
        if (host_form) *info = 0;
        else e = cudaMemsetAsync(info, 0, sizeof(int), s);
        return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS : cuda_fail(h, routine, "clearing info", e);
    }
    const DevLayout<T> D(ws, m, n, k, host_form, scores != nullptr);
    T *Sd = host_form ? D.S : scores;  // where the scores are formed
    const int64_t ldsd = host_form ? m : lds;
    const HostLayout<T> H(hws, n, k);
    auto failed = [&](const char *step) { return cuda_fail(h, routine, step, e); };
    const T *Xd = X;
    int64_t ldxd = ldx;
    if (host_form && m > 0) {
        e = cudaMemcpy2DAsync(D.X, sizeof(T) * m, X, sizeof(T) * ldx, sizeof(T) * m, n,
                              cudaMemcpyHostToDevice, s);
        Xd = D.X, ldxd = m;
        if (e != cudaSuccess) return failed("copying X to the device");
    }
    // The data's maximum and NaN/Inf over all ranks.
    e = cudaMemsetAsync(D.stats, 0, sizeof(long long) * 2, s);
    if (e == cudaSuccess) e = dist_data_stats<T>(m, n, Xd, ldxd, D.stats, s);
    if (e != cudaSuccess) return failed("screening X");
    st = allreduce_device(h, routine, "the data's maximum", c, D.stats, 2, GPUSVD_DATA_INT64,
                          GPUSVD_REDUCE_MAX, s);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    e = cudaMemcpyAsync(H.stats, D.stats, sizeof(long long) * 2, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) return failed("reading the data's maximum");
    int iout = 0;
    if (H.stats[1] != 0) {
        const T nan = std::numeric_limits<T>::quiet_NaN();
        std::fill(H.C, H.C + n * k, nan);
        std::fill(H.var, H.var + k, nan);
        std::fill(H.mean, H.mean + n, nan);
        if (scores && m > 0) e = cudaMemset2DAsync(Sd, sizeof(T) * ldsd, 0xFF, sizeof(T) * m, k, s);
        if (e != cudaSuccess) return failed("filling NaN scores");  // all-ones bits: a NaN
        iout = GPUSVD_INFO_NONFINITE;
    } else {
        double amax;
        std::memcpy(&amax, &H.stats[0], sizeof amax);
        int ex = 0;
        if (amax > 0) std::frexp(amax, &ex);
        // Column sums of X 2^-ex over all ranks; the centred, scaled copy.
        e = cudaMemsetAsync(D.sums, 0, sizeof(double) * n, s);
        if (e == cudaSuccess) e = dist_scaled_sums<T>(m, n, Xd, ldxd, ex, D.sums, s);
        if (e != cudaSuccess) return failed("summing the columns");
        st = allreduce_device(h, routine, "the column sums", c, D.sums, n, GPUSVD_DATA_DOUBLE,
                              GPUSVD_REDUCE_SUM, s);
        if (st != GPUSVD_STATUS_SUCCESS) return st;
        const int64_t rows = std::max<int64_t>(m, 1);
        if (m == 0) e = cudaMemsetAsync(D.Xc, 0, sizeof(T) * n, s);  // one zero row, see dist_qr_core
        if (e == cudaSuccess)
            e = dist_centre<T>(m, n, Xd, ldxd, ex, D.sums, g.m_global, D.Xc, rows, D.mean_s, s);
        if (e != cudaSuccess) return failed("centring X");
        st = dist_qr_core<T>(h, routine, c, g, m, n, D.Xc, rows, D.R, n, D.info, D.core, H.dead, b,
                             s, scores != nullptr);
        if (st != GPUSVD_STATUS_SUCCESS) return st;
        e = cudaMemcpyAsync(H.R, D.R, sizeof(T) * n * n, cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(H.mean_s, D.mean_s, sizeof(T) * n, cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) return failed("reading R");
        iout = cpu::pca_from_r<T>(n, k, g.m_global, ex, H.R, H.C, n, H.var, H.Us, H.from_r);
        for (int64_t j = 0; j < n; ++j) H.mean[j] = std::ldexp(H.mean_s[j], ex);
        if (scores && m > 0) {
            e = cudaMemcpyAsync(D.Us, H.Us, sizeof(T) * n * k, cudaMemcpyHostToDevice, s);
            if (e != cudaSuccess) return failed("copying the score factors");
            const cublasStatus_t be = blas::gemm<T>(b, CUBLAS_OP_N, CUBLAS_OP_N, m, k, n, T(1),
                                                    D.Xc, rows, D.Us, n, T(0), Sd, ldsd);
            if (be != CUBLAS_STATUS_SUCCESS) return blas_fail(h, routine, "GEMM Q Us", be);
        }
    }
    // The results: host form straight to the caller; `_gpu` through device copies.
    if (host_form) {
        for (int64_t j = 0; j < k; ++j) std::copy(H.C + j * n, H.C + j * n + n, C + j * ldc);
        std::copy(H.var, H.var + k, var);
        if (mean) std::copy(H.mean, H.mean + n, mean);
        *info = iout;
        if (scores && m > 0) {
            e = cudaMemcpy2DAsync(scores, sizeof(T) * lds, Sd, sizeof(T) * ldsd, sizeof(T) * m, k,
                                  cudaMemcpyDeviceToHost, s);
            if (e == cudaSuccess) e = cudaStreamSynchronize(s);
            if (e != cudaSuccess) return failed("copying the scores back");
        }
        return GPUSVD_STATUS_SUCCESS;
    }
    e = cudaMemcpy2DAsync(C, sizeof(T) * ldc, H.C, sizeof(T) * n, sizeof(T) * n, k,
                          cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(var, H.var, sizeof(T) * k, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess && mean)
        e = cudaMemcpyAsync(mean, H.mean, sizeof(T) * n, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = cudaMemcpyAsync(info, &iout, sizeof(int), cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);  // iout and the host buffers are reused
    if (e == cudaSuccess) e = record_use(h);
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS : failed("copying the results");
}

#define GPUSVD_INSTANTIATE(T)                                                                  \
    template size_t pca_dist_device_bytes<T>(int64_t, int64_t, int64_t);                       \
    template gpusvdStatus_t pca_dist<T>(gpusvdHandle_t, const char *, Form, gpusvdComm_t,     \
                                        int64_t, int64_t, const T *, int64_t, int64_t, T *,   \
                                        int64_t, T *, T *, int64_t, T *, int *);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
