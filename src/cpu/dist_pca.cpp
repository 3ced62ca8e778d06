// The distributed PCA on the CPU: the data scaled by one power of two (2^-e, from the largest
// entry over all ranks) so that neither the sums nor the centred values overflow or lose
// subnormal digits, the column means over all ranks, the distributed QR of the centred copy
// (cpu/dist_qr.cpp), and the SVD of R (LAPACK ?gesdd, as the CPU backend's pca takes it; it
// converges on the singular R that centring leaves), which every rank computes on the same R.
#include "cpu/dist_pca.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/dist_qr.hpp"
#include "cpu/lapack.hpp"
#include "cpu/openblas.hpp"
#include "workspace.hpp"

namespace gpusvd::cpu {
namespace {

// Up to this n the SVD of R takes well under a second on one core.
constexpr int64_t kSingleThreadedMaxN = 512;

template <class T>
struct FromR {
    T *U, *VT, *sv, *work;
    lapack_int *iwork;
    lapack_int lwork;
};

// ?gesdd('S') of the n x n R: its workspace from LAPACK's query.
template <class T>
lapack_int gesdd_lwork(int64_t n) {
    const lapack_int ni = static_cast<lapack_int>(n);
    T q = 0, dummy = 0;
    lapack_int iq = 0;
    lapack::gesdd('S', ni, ni, &dummy, std::max<lapack_int>(ni, 1), &dummy, &dummy,
                  std::max<lapack_int>(ni, 1), &dummy, std::max<lapack_int>(ni, 1), &q, -1, &iq);
    return std::max(lapack::query_size(q), lapack_int(1));
}

template <class T>
FromR<T> from_r_layout(Bump &b, int64_t n) {
    FromR<T> w;
    w.lwork = gesdd_lwork<T>(n);
    w.U = b.take<T>(n * n);
    w.VT = b.take<T>(n * n);
    w.sv = b.take<T>(n);
    w.work = b.take<T>(w.lwork);
    w.iwork = b.take<lapack_int>(8 * n);
    return w;
}

template <class T>
struct PcaWork {
    T *Xc, *R, *Us, *stats;
    double *sums;
    void *from_r, *qr;
};

template <class T>
PcaWork<T> pca_layout(Bump &b, int64_t m, int64_t n, int64_t k) {
    PcaWork<T> w;
    w.Xc = b.take<T>(std::max<int64_t>(m, 1) * n);
    w.R = b.take<T>(n * n);
    w.Us = b.take<T>(n * k);
    w.stats = b.take<T>(2);
    w.sums = b.take<double>(n);
    w.from_r = b.take_bytes(pca_from_r_bytes<T>(n, k));
    w.qr = b.take_bytes(dist_qr_bytes<T>(n));
    return w;
}

}  // namespace

template <class T>
size_t pca_from_r_bytes(int64_t n, int64_t) {
    Bump b;
    from_r_layout<T>(b, n);
    return b.bytes();
}

template <class T>
int pca_from_r(int64_t n, int64_t k, int64_t M, int e, T *R, T *components, int64_t ldc, T *var,
               T *Us, void *ws) {
    Bump b(ws);
    const FromR<T> w = from_r_layout<T>(b, n);
    const lapack_int ni = static_cast<lapack_int>(n);
    lapack_int info;
    {
        // Every rank runs this SVD, usually one process per GPU of a node: each process's full
        // BLAS thread pool on a small R only oversubscribes the node's cores, and one thread
        // gives the same bits on every rank whatever its BLAS thread setting. (Setting the
        // count starts OpenBLAS's threads if they are down: only where they can start.)
        BlasSingleThreaded one(n <= kSingleThreadedMaxN && blas_threads_startable());
        info = lapack::gesdd('S', ni, ni, R, ni, w.sv, w.U, ni, w.VT, ni, w.work, w.lwork,
                             w.iwork);
    }
    const T root = std::sqrt(T(M - 1));
    for (int64_t j = 0; j < k; ++j) {  // ?gesdd's singular values are descending
        int64_t big = 0;
        for (int64_t i = 1; i < n; ++i)
            if (std::fabs(w.VT[j + i * n]) > std::fabs(w.VT[j + big * n])) big = i;
        const T sign = w.VT[j + big * n] < 0 ? T(-1) : T(1);
        const T sigma = w.sv[j];  // of the scaled data
        for (int64_t i = 0; i < n; ++i) {
            components[i + j * ldc] = sign * w.VT[j + i * n];
            Us[i + j * n] = std::ldexp(sign * w.U[i + j * n] * sigma, e);
        }
        const T q = sigma / root;
        var[j] = std::ldexp(q * q, 2 * e);  // +Inf only where the exact value overflows
    }
    return info > 0 ? static_cast<int>(info) : 0;
}

template <class T>
size_t dist_pca_bytes(int64_t m, int64_t n, int64_t k) {
    Bump b;
    pca_layout<T>(b, m, n, k);
    return b.bytes();
}

template <class T>
gpusvdStatus_t dist_pca(gpusvdHandle_t h, const char *routine, gpusvdComm_t c, const Agreement &g,
                        int64_t m, int64_t n, const T *X, int64_t ldx, int64_t k, T *components,
                        int64_t ldc, T *var, T *scores, int64_t lds, T *mean, int *info, void *ws) {
    Bump b(ws);
    const PcaWork<T> w = pca_layout<T>(b, m, n, k);
    const int64_t ld = std::max<int64_t>(m, 1);
    // Largest magnitude over all ranks, and NaN/Inf anywhere.
    T amax = 0, bad = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            const T v = std::fabs(X[i + j * ldx]);
            if (!std::isfinite(v)) bad = 1;
            else amax = std::max(amax, v);
        }
    w.stats[0] = amax, w.stats[1] = bad;
    gpusvdStatus_t st =
        allreduce_host(h, routine, "the data's maximum", c, w.stats, 2, data_type<T>(), GPUSVD_REDUCE_MAX);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    if (w.stats[1] != 0) {
        const T nan = std::numeric_limits<T>::quiet_NaN();
        for (int64_t j = 0; j < k; ++j) {
            std::fill(components + j * ldc, components + j * ldc + n, nan);
            if (scores) std::fill(scores + j * lds, scores + j * lds + m, nan);
        }
        std::fill(var, var + k, nan);
        if (mean) std::fill(mean, mean + n, nan);
        *info = GPUSVD_INFO_NONFINITE;
        return GPUSVD_STATUS_SUCCESS;
    }
    int e = 0;
    if (w.stats[0] > 0) std::frexp(w.stats[0], &e);
    // Column sums of X 2^-e in double over all ranks, then the centred, scaled copy.
    for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t i = 0; i < m; ++i) s += double(std::ldexp(X[i + j * ldx], -e));
        w.sums[j] = s;
    }
    st = allreduce_host(h, routine, "the column sums", c, w.sums, n, GPUSVD_DATA_DOUBLE,
                        GPUSVD_REDUCE_SUM);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    for (int64_t j = 0; j < n; ++j) {
        const T mu = static_cast<T>(w.sums[j] / double(g.m_global));
        if (mean) mean[j] = std::ldexp(mu, e);
        for (int64_t i = 0; i < m; ++i) w.Xc[i + j * ld] = std::ldexp(X[i + j * ldx], -e) - mu;
    }
    int qinfo = 0;
    st = dist_qr<T>(h, routine, c, g, m, n, w.Xc, ld, w.R, n, &qinfo, w.qr);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    *info = pca_from_r<T>(n, k, g.m_global, e, w.R, components, ldc, var, w.Us, w.from_r);
    if (scores && m > 0 && k > 0)
        lapack::gemm(static_cast<int>(m), static_cast<int>(k), static_cast<int>(n), w.Xc,
                     static_cast<int>(ld), w.Us, static_cast<int>(n), scores,
                     static_cast<int>(lds));
    return GPUSVD_STATUS_SUCCESS;
}

#define GPUSVD_INSTANTIATE(T)                                                                   \
    template size_t pca_from_r_bytes<T>(int64_t, int64_t);                                      \
    template int pca_from_r<T>(int64_t, int64_t, int64_t, int, T *, T *, int64_t, T *, T *,     \
                               void *);                                                         \
    template size_t dist_pca_bytes<T>(int64_t, int64_t, int64_t);                               \
    template gpusvdStatus_t dist_pca<T>(gpusvdHandle_t, const char *, gpusvdComm_t,             \
                                        const Agreement &, int64_t, int64_t, const T *, int64_t, \
                                        int64_t, T *, int64_t, T *, T *, int64_t, T *, int *,   \
                                        void *);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpusvd::cpu
