#include "cpu/pca.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/common.hpp"
#include "cpu/lapack.hpp"
#include "cpu/pca_common.hpp"
#include "gpusvd.h"

namespace gpusvd::cpu {

namespace {

// T real or complex (the complex data's QR method: ?geqrf + ?gesdd of complex R).
template <class T>
struct PcaWork {
    int64_t rows, p;  // the matrix given to ?gesdd is rows x n, p = min(rows, n)
    T *mean, *xc, *tau, *r, *u, *vt, *w, *lapack;
    real_t<T> *s, *rwork;  // rwork: complex ?gesdd's RWORK (null for real T)
    lapack_int *iwork;
    lapack_int lwork;
};

// ?gesdd('S'), with complex ?gesdd's RWORK.
template <class T>
lapack_int gesdd_s(lapack_int m, lapack_int n, T *a, lapack_int lda, real_t<T> *s, T *u,
                   lapack_int ldu, T *vt, lapack_int ldvt, T *work, lapack_int lwork,
                   real_t<T> *rwork, lapack_int *iwork) {
    if constexpr (is_complex_v<T>)
        return lapack::gesdd('S', m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork);
    else
        return lapack::gesdd('S', m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork);
}

template <class T>
lapack_int lwork_for(int64_t m, int64_t n, int64_t rows) {
    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n);
    const lapack_int ri = static_cast<lapack_int>(rows), p = std::min(ri, ni);
    T q1 = 0, q2 = 0, q3 = 0, dummy = 0;
    real_t<T> rdummy = 0;
    lapack_int idummy = 0;
    if (m > n) {
        lapack::geqrf(mi, ni, &dummy, mi, &dummy, &q1, -1);
        lapack::orgqr(mi, ni, ni, &dummy, mi, &dummy, &q2, -1);
    }
    gesdd_s(ri, ni, &dummy, ri, &rdummy, &dummy, ri, &dummy, p, &q3, -1, &rdummy, &idummy);
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
    w.s = b.take<real_t<T>>(w.p);
    w.u = b.take<T>(w.rows * w.p);
    w.vt = b.take<T>(w.p * n);
    w.w = b.take<T>(tall ? n * k : 0);
    w.lwork = lwork_for<T>(m, n, w.rows);
    w.lapack = b.take<T>(w.lwork);
    w.iwork = b.take<lapack_int>(8 * w.p);
    // complex ?gesdd('S') of rows x n: max(5 p^2 + 7 p, 2 max(rows, n) p + 2 p^2 + p) reals
    const int64_t mx = std::max(w.rows, n);
    w.rwork = is_complex_v<T> ? b.take<real_t<T>>(std::max(5 * w.p * w.p + 7 * w.p,
                                                           2 * mx * w.p + 2 * w.p * w.p + w.p))
                              : nullptr;
    return w;
}

}  // namespace

template <class T>
size_t pca_qr_bytes(int64_t m, int64_t n, int64_t k) {
    Bump b;
    layout<T>(b, m, n, k);
    return b.bytes();
}

template <class T>
int pca_qr(int64_t m, int64_t n, const T *X, int64_t ldx, int64_t k, T *components, int64_t ldc,
           real_t<T> *variance, T *scores, int64_t lds, T *mean, void *work, bool row_major,
           double *total) {
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
        return gesdd_s(ri, ni, B, ri, w.s, w.u, ri, w.vt, pi, w.lapack, w.lwork, w.rwork,
                       w.iwork);
    };
    // Data near overflow overflows the column sums, x - mean, the singular values and the
    // scores; data near underflow loses the centred data's accuracy. Both are worked on as
    // X 2^e (a pass of its own only then), and the outputs scaled back.
    // Row-major data is copied into the centred copy's place as it is (column-major there) and
    // centred in place: the same passes over the data as for column-major data.
    if (row_major) {
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) w.xc[i + j * m] = X[i * ldx + j];
        X = w.xc, ldx = m;
    }
    using R = real_t<T>;
    RangeScale<R> range;
    R amax = 0;
    *total = std::numeric_limits<double>::quiet_NaN();
    if (!pca_detail::column_means(m, n, X, ldx, range, w.mean, &amax))
        return pca_detail::nonfinite_outputs(m, n, k, components, ldc, variance, scores, lds, mean,
                                             row_major);
    range = RangeScale<R>::of(amax);
    if (range.active()) pca_detail::column_means(m, n, X, ldx, range, w.mean, &amax);
    pca_detail::centre_rows(0, m, n, X, ldx, range, w.mean, w.xc, m);
    const lapack_int info = factor();
    if (info < 0) return kLapackArgumentError;
    if (mean)
        for (int64_t j = 0; j < n; ++j) mean[j] = range.undo(w.mean[j]);
    // All p singular values are there: their squares sum to ||Xc||_F^2.
    double ssq = 0;
    for (int64_t j = 0; j < w.p; ++j) ssq += double(w.s[j]) * double(w.s[j]);
    *total = double(range.undo(static_cast<R>(ssq / double(m - 1)), 2));

    // Components are rows of VT, with the sign convention; the matching left vector flips with
    // its component. Row-major components and scores: column j is at j, its entries ld apart.
    const int64_t cstep = row_major ? 1 : ldc, cinc = row_major ? ldc : 1;
    const int64_t sstep = row_major ? 1 : lds, sinc = row_major ? lds : 1;
    // Complex: VT = V^H, so component j is conj(row j of VT) (times its phase).
    if constexpr (is_complex_v<T>)
        for (int64_t j = 0; j < k; ++j)
            for (int64_t c = 0; c < n; ++c) w.vt[j + c * w.p] = std::conj(w.vt[j + c * w.p]);
    for (int64_t j = 0; j < k; ++j) {
        const T sign =
            pca_detail::signed_component(n, w.vt + j, w.p, components + j * cstep, cinc);
        const R sigma = w.s[j];
        variance[j] = range.undo(sigma * sigma / static_cast<R>(m - 1), 2);
        // scores = U_k diag(s_k): of the centred data directly, or (Q U_R) diag(s) when tall
        if (scores) {
            T *dst = tall ? w.w + j * n : scores + j * sstep;
            const int64_t inc = tall ? 1 : sinc;
            for (int64_t i = 0; i < w.rows; ++i) dst[i * inc] = sign * sigma * w.u[i + j * w.rows];
        }
    }
    if (scores && tall && k > 0) {
        if (lapack::orgqr(mi, ni, ni, w.xc, mi, w.tau, w.lapack, w.lwork) < 0)
            return kLapackArgumentError;
        lapack::gemm_layout(false, false, row_major, mi, static_cast<int>(k), ni, w.xc, mi, w.w, ni,
                            scores, static_cast<int>(lds));
    }
    if (row_major)
        range.undo(k, m, scores, lds);
    else
        range.undo(m, k, scores, lds);
    return lapack_info(info);
}

#define GPUSVD_INSTANTIATE(T)                                                                     \
    template size_t pca_qr_bytes<T>(int64_t, int64_t, int64_t);                                   \
    template int pca_qr<T>(int64_t, int64_t, const T *, int64_t, int64_t, T *, int64_t,           \
                           real_t<T> *, T *, int64_t, T *, void *, bool, double *);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(std::complex<float>)
GPUSVD_INSTANTIATE(std::complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpusvd::cpu
