#include "cpu/pca.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/common.hpp"
#include "cpu/lapack.hpp"
#include "gpusvd.h"

namespace gpusvd::cpu {

namespace {

template <class T>
struct PcaWork {
    int64_t rows, p;  // the matrix given to ?gesdd is rows x n, p = min(rows, n)
    T *mean, *xc, *tau, *r, *s, *u, *vt, *w, *lapack;
    lapack_int *iwork;
    lapack_int lwork;
};

template <class T>
lapack_int lwork_for(int64_t m, int64_t n, int64_t rows) {
    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n);
    const lapack_int ri = static_cast<lapack_int>(rows), p = std::min(ri, ni);
    T q1 = 0, q2 = 0, q3 = 0, dummy = 0;
    lapack_int idummy = 0;
    if (m > n) {
        lapack::geqrf(mi, ni, &dummy, mi, &dummy, &q1, -1);
        lapack::orgqr(mi, ni, ni, &dummy, mi, &dummy, &q2, -1);
    }
    lapack::gesdd('S', ri, ni, &dummy, ri, &dummy, &dummy, ri, &dummy, p, &q3, -1, &idummy);
    return std::max({lapack::query_size(q1), lapack::query_size(q2), lapack::query_size(q3)});
}

template <class T>
PcaWork<T> layout(Bump &b, int64_t m, int64_t n, int64_t k) {
    PcaWork<T> w;
    const bool tall = m > n;
    w.rows = tall ? n : m;
    w.p = std::min(w.rows, n);
    w.mean = b.take<T>(n);
    w.xc = b.take<T>(m * n);
    w.tau = b.take<T>(tall ? n : 0);
    w.r = b.take<T>(tall ? n * n : 0);
    w.s = b.take<T>(w.p);
    w.u = b.take<T>(w.rows * w.p);
    w.vt = b.take<T>(w.p * n);
    w.w = b.take<T>(tall ? n * k : 0);
    w.lwork = lwork_for<T>(m, n, w.rows);
    w.lapack = b.take<T>(w.lwork);
    w.iwork = b.take<lapack_int>(8 * w.p);
    return w;
}

enum class Centring { Ok, NonFinite, Overflow };

// xc = (X - column means) * scale and the means of the scaled data. A NaN/Inf in X makes its
// column sum non-finite, so the NaN/Inf screen costs no pass of its own; a non-finite sum of
// finite data is an overflow.
template <class T>
Centring centre(int64_t m, int64_t n, const T *X, int64_t ldx, T scale, T *xc, T *mean) {
    bool overflow = false;
    for (int64_t j = 0; j < n; ++j) {
        const T *x = X + j * ldx;
        double sum = 0;  // double accumulation keeps float means accurate for large m
        for (int64_t i = 0; i < m; ++i) sum += x[i] * scale;
        if (!std::isfinite(sum)) {
            if (has_nonfinite(m, 1, x, ldx)) return Centring::NonFinite;
            overflow = true;
        }
        const T mu = static_cast<T>(sum / static_cast<double>(m));
        mean[j] = mu;
        for (int64_t i = 0; i < m; ++i) xc[i + j * m] = x[i] * scale - mu;
    }
    return overflow ? Centring::Overflow : Centring::Ok;
}

template <class T>
T max_abs(int64_t m, int64_t n, const T *X, int64_t ldx) {
    T amax = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) amax = std::max(amax, std::abs(X[i + j * ldx]));
    return amax;
}

}  // namespace

template <class T>
size_t pca_bytes(int64_t m, int64_t n, int64_t k) {
    Bump b;
    layout<T>(b, m, n, k);
    return b.bytes();
}

template <class T>
int pca(int64_t m, int64_t n, const T *X, int64_t ldx, int64_t k, T *components, int64_t ldc,
        T *variance, T *scores, int64_t lds, T *mean, void *work) {
    Bump b(work);
    const PcaWork<T> w = layout<T>(b, m, n, k);
    const bool tall = m > n;

    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n);
    const lapack_int ri = static_cast<lapack_int>(w.rows), pi = static_cast<lapack_int>(w.p);
    T *B = tall ? w.r : w.xc;  // what ?gesdd factorizes: R of the tall QR, or the centred data
    auto factor = [&]() -> lapack_int {
        if (tall) {
            const lapack_int qr = lapack::geqrf(mi, ni, w.xc, mi, w.tau, w.lapack, w.lwork);
            if (qr < 0) return qr;
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i) w.r[i + j * n] = i <= j ? w.xc[i + j * m] : T(0);
        }
        return lapack::gesdd('S', ri, ni, B, ri, w.s, w.u, ri, w.vt, pi, w.lapack, w.lwork,
                             w.iwork);
    };
    auto finite = [&](lapack_int inf) {
        if (inf < 0) return false;
        for (int64_t j = 0; j < w.p; ++j)
            if (!std::isfinite(w.s[j])) return false;
        return true;
    };

    // Finite data near overflow can overflow the column sums, x - mean or the norms inside
    // LAPACK. That is rare and visible afterwards (non-finite sum or singular values), so only
    // then is the work redone on X * scale (a power of two, exact) with the scale undone on
    // the outputs; the common path pays nothing for it.
    T scale = 1;
    Centring c = centre(m, n, X, ldx, scale, w.xc, w.mean);
    lapack_int info = c == Centring::Ok ? factor() : 0;
    if (c == Centring::Overflow || (c == Centring::Ok && !finite(info))) {
        scale = std::ldexp(T(1), -std::ilogb(max_abs(m, n, X, ldx)));
        c = centre(m, n, X, ldx, scale, w.xc, w.mean);
        if (c == Centring::Ok) info = factor();
    }
    if (c != Centring::Ok) {
        fill_nan(n, k, components, ldc);
        fill_nan(k, 1, variance, k);
        fill_nan(m, k, scores, lds);
        fill_nan(n, 1, mean, n);
        return GPUSVD_INFO_NONFINITE;
    }
    if (mean)
        for (int64_t j = 0; j < n; ++j) mean[j] = w.mean[j] / scale;

    // Components are rows of VT. Sign convention: the entry of largest magnitude (first on ties)
    // of each component is positive; the matching left vector flips with it.
    for (int64_t j = 0; j < k; ++j) {
        int64_t arg = 0;
        for (int64_t c = 1; c < n; ++c)
            if (std::abs(w.vt[j + c * w.p]) > std::abs(w.vt[j + arg * w.p])) arg = c;
        const T sign = w.vt[j + arg * w.p] < 0 ? T(-1) : T(1);
        for (int64_t c = 0; c < n; ++c) components[c + j * ldc] = sign * w.vt[j + c * w.p];
        const T sigma = w.s[j] / scale;
        variance[j] = sigma * sigma / static_cast<T>(m - 1);
        // scores = U_k diag(s_k): of the centred data directly, or (Q U_R) diag(s) when tall
        T *dst = tall ? w.w + j * n : scores + j * lds;
        if (scores)
            for (int64_t i = 0; i < w.rows; ++i) dst[i] = sign * sigma * w.u[i + j * w.rows];
    }
    if (scores && tall && k > 0) {
        if (lapack::orgqr(mi, ni, ni, w.xc, mi, w.tau, w.lapack, w.lwork) < 0)
            return kLapackArgumentError;
        lapack::gemm(mi, static_cast<int>(k), ni, w.xc, mi, w.w, ni, scores, static_cast<int>(lds));
    }
    return lapack_info(info);
}

#define GPUSVD_INSTANTIATE(T)                                                                  \
    template size_t pca_bytes<T>(int64_t, int64_t, int64_t);                                   \
    template int pca<T>(int64_t, int64_t, const T *, int64_t, int64_t, T *, int64_t, T *, T *, \
                        int64_t, T *, void *);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpusvd::cpu
