#include "cpu/geqrf.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/common.hpp"
#include "cpu/lapack.hpp"
#include "gpusvd.h"

namespace gpusvd::cpu {

namespace {

// Small matrices stay in cache, where flipping Q's columns afterwards is nearly free and ?geqrf
// is cheaper than ?geqrfp (whose ?larfgp does more work per column);
// large ones avoid the extra pass over Q with ?geqrfp.
template <class T>
bool use_geqrfp(int64_t m, int64_t n) {
    return m > (int64_t(256) << 10) / int64_t(sizeof(T)) / std::max<int64_t>(n, 1);
}

template <class T>
lapack_int lwork_for(int64_t m, int64_t n) {
    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n);
    const lapack_int k = std::min(mi, ni), ld = std::max<lapack_int>(1, mi);
    T q1 = 0, q2 = 0, dummy = 0;
    if (use_geqrfp<T>(m, n))
        lapack::geqrfp(mi, ni, &dummy, ld, &dummy, &q1, -1);
    else
        lapack::geqrf(mi, ni, &dummy, ld, &dummy, &q1, -1);
    lapack::orgqr(mi, k, k, &dummy, ld, &dummy, &q2, -1);
    return std::max({lapack::query_size(q1), lapack::query_size(q2), lapack_int(1)});
}

template <class T>
struct GeqrfWork {
    T *tau, *lapack;
};

template <class T>
GeqrfWork<T> layout(Bump &b, int64_t m, int64_t n, lapack_int lwork) {
    GeqrfWork<T> w;
    w.tau = b.take<T>(std::min(m, n));
    w.lapack = b.take<T>(lwork);
    return w;
}

// 2-norm without overflow or harmful underflow: the entries divided by the largest, scaled up
// by a power of two first where that one is subnormal (its reciprocal would overflow).
template <class T>
real_t<T> norm2(int64_t m, const T *x) {
    using R = real_t<T>;
    const R amax = max_abs(m, 1, x, m);
    if (amax == 0 || !std::isfinite(amax)) return amax;
    const RangeScale<R> up =
        amax < std::numeric_limits<R>::min() ? RangeScale<R>::to_unit(amax) : RangeScale<R>();
    const R inv = 1 / up.apply(amax);
    R ssq = 0;
    for (int64_t i = 0; i < m; ++i) ssq += abs2(up.apply(x[i]) * inv);
    return up.undo(up.apply(amax) * std::sqrt(ssq));
}

// Row-major A and R: LAPACK's Householder QR is column-major, and both its row-major
// formulations cost the same two passes over A as a transpose (LAPACKE's row-major layout
// transposes too; the LQ factorization of the column-major A^T needs its own sign fixes), so A
// is transposed into the workspace, factored there, and Q and R transposed out; next to the
// 4 m n^2 flops of the QR the two passes are small.
template <class T>
struct RowMajorCopies {
    T *A, *R;
};

template <class T>
RowMajorCopies<T> row_major_copies(Bump &b, int64_t m, int64_t n) {
    RowMajorCopies<T> c;
    c.A = b.take<T>(m * n);
    c.R = b.take<T>(std::min(m, n) * n);
    return c;
}

// dst (rows x cols, column-major, ld ldd) = src (rows x cols, row-major, ld lds), and back.
template <class T>
void from_row_major(int64_t rows, int64_t cols, const T *src, int64_t lds, T *dst, int64_t ldd) {
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) dst[i + j * ldd] = src[i * lds + j];
}
template <class T>
void to_row_major(int64_t rows, int64_t cols, const T *src, int64_t lds, T *dst, int64_t ldd) {
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) dst[i * ldd + j] = src[i + j * lds];
}

template <class T>
int geqrf_col_major(const GeqrfPlan &plan, T *A, int64_t lda, T *R, int64_t ldr, void *work);

}  // namespace

template <class T>
GeqrfPlan geqrf_plan(int64_t m, int64_t n, bool row_major) {
    GeqrfPlan p{m, n, use_geqrfp<T>(m, n), lwork_for<T>(m, n), row_major, 0};
    Bump b;
    layout<T>(b, m, n, p.lwork);
    if (row_major) row_major_copies<T>(b, m, n);
    p.bytes = b.bytes();
    return p;
}

template <class T>
int geqrf(const GeqrfPlan &plan, T *A, int64_t lda, T *R, int64_t ldr, void *work) {
    if (!plan.row_major) return geqrf_col_major(plan, A, lda, R, ldr, work);
    const int64_t m = plan.m, n = plan.n, k = std::min(m, n);
    Bump b(work);
    layout<T>(b, m, n, plan.lwork);
    const RowMajorCopies<T> c = row_major_copies<T>(b, m, n);
    from_row_major(m, n, A, lda, c.A, m);
    const int info = geqrf_col_major(plan, c.A, m, c.R, k, work);
    if (info == kLapackArgumentError) return info;
    to_row_major(m, k, c.A, m, A, lda);  // columns past k of a wide A stay as they were
    to_row_major(k, n, c.R, k, R, ldr);
    return info;
}

namespace {

template <class T>
int geqrf_col_major(const GeqrfPlan &plan, T *A, int64_t lda, T *R, int64_t ldr, void *work) {
    const int64_t m = plan.m, n = plan.n, k = std::min(m, n);
    if (has_nonfinite(m, n, A, lda)) {
        fill_nan(m, k, A, lda);
        fill_nan(k, n, R, ldr);
        return GPUSVD_INFO_NONFINITE;
    }
    // The Householder vector of a column whose norm overflows is Inf/NaN, and subnormal data
    // would be factored in subnormal arithmetic, losing bits at every step. R scales with A,
    // Q does not.
    const RangeScale<real_t<T>> range = RangeScale<real_t<T>>::of(max_abs(m, n, A, lda));
    range.apply(m, n, A, lda);
    Bump b(work);
    const GeqrfWork<T> w = layout<T>(b, m, n, plan.lwork);
    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n);
    const lapack_int ki = static_cast<lapack_int>(k), ld = static_cast<lapack_int>(lda);
    const lapack_int qr = plan.positive ? lapack::geqrfp(mi, ni, A, ld, w.tau, w.lapack, plan.lwork)
                                        : lapack::geqrf(mi, ni, A, ld, w.tau, w.lapack, plan.lwork);
    if (qr < 0) return kLapackArgumentError;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < k; ++i) R[i + j * ldr] = i <= j ? A[i + j * lda] : T(0);
    if (lapack::orgqr(mi, ki, ki, A, ld, w.tau, w.lapack, plan.lwork) < 0)
        return kLapackArgumentError;

    // R(j,j) < 0 (?geqrf), or not real (complex ?geqrf): row j of R times conj(phase) and
    // column j of Q times phase, phase = R(j,j) / |R(j,j)|, which leaves QR unchanged and R(j,j)
    // = |R(j,j)| exactly real.
    // A column whose part orthogonal to the previous ones is at most m * eps * ||a_j|| is
    // declared dependent (R(j,j) = 0); its Householder Q column already completes Q.
    // ||a_j|| = ||R(0:j, j)|| since Q is orthonormal: O(n^2) instead of another pass over A.
    using Re = real_t<T>;
    const Re thresh = static_cast<Re>(m) * std::numeric_limits<Re>::epsilon();
    int info = 0;
    for (int64_t j = 0; j < k; ++j) {
        const T d = R[j + j * ldr];
        if constexpr (is_complex_v<T>) {
            if (d.imag() != 0 || d.real() < 0) {
                const Re mag = std::abs(d);
                const T phase = d / mag, back = std::conj(phase);
                for (int64_t c = j + 1; c < n; ++c) R[j + c * ldr] *= back;
                for (int64_t i = 0; i < m; ++i) A[i + j * lda] *= phase;
                R[j + j * ldr] = T(mag, 0);
            }
        } else if (d < 0) {
            for (int64_t c = j; c < n; ++c) R[j + c * ldr] = -R[j + c * ldr];
            for (int64_t i = 0; i < m; ++i) A[i + j * lda] = -A[i + j * lda];
        }
        if (real_of(R[j + j * ldr]) <= thresh * norm2(j + 1, R + j * ldr)) {
            R[j + j * ldr] = 0;
            if (!info) info = static_cast<int>(j + 1);
        }
    }
    range.undo(k, n, R, ldr);
    return info;
}

}  // namespace

#define GPUSVD_INSTANTIATE(T)                           \
    template GeqrfPlan geqrf_plan<T>(int64_t, int64_t, bool); \
    template int geqrf<T>(const GeqrfPlan &, T *, int64_t, T *, int64_t, void *);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(std::complex<float>)
GPUSVD_INSTANTIATE(std::complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpusvd::cpu
