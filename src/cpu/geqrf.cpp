#include "cpu/geqrf.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/common.hpp"
#include "cpu/lapack.hpp"
#include "gpusvd.h"

namespace gpusvd::cpu {

namespace {

template <class T>
lapack_int lwork_for(int64_t m, int64_t n) {
    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n);
    const lapack_int k = std::min(mi, ni), ld = std::max<lapack_int>(1, mi);
    T q1 = 0, q2 = 0, dummy = 0;
    lapack::geqrf(mi, ni, &dummy, ld, &dummy, &q1, -1);
    lapack::orgqr(mi, k, k, &dummy, ld, &dummy, &q2, -1);
    return std::max({lapack::query_size(q1), lapack::query_size(q2), lapack_int(1)});
}

template <class T>
struct GeqrfWork {
    T *tau, *colnorm, *lapack;
    lapack_int lwork;
};

template <class T>
GeqrfWork<T> layout(Bump &b, int64_t m, int64_t n) {
    GeqrfWork<T> w;
    w.tau = b.take<T>(std::min(m, n));
    w.colnorm = b.take<T>(n);
    w.lwork = lwork_for<T>(m, n);
    w.lapack = b.take<T>(w.lwork);
    return w;
}

// 2-norm without overflow or harmful underflow (scaled sum of squares, as LAPACK's ?lassq).
template <class T>
T norm2(int64_t m, const T *x) {
    T scale = 0, ssq = 1;
    for (int64_t i = 0; i < m; ++i) {
        const T a = std::abs(x[i]);
        if (a == 0) continue;
        if (scale < a) {
            ssq = 1 + ssq * (scale / a) * (scale / a);
            scale = a;
        } else {
            ssq += (a / scale) * (a / scale);
        }
    }
    return scale * std::sqrt(ssq);
}

}  // namespace

template <class T>
size_t geqrf_bytes(int64_t m, int64_t n) {
    Bump b;
    layout<T>(b, m, n);
    return b.bytes();
}

template <class T>
int geqrf(int64_t m, int64_t n, T *A, int64_t lda, T *R, int64_t ldr, void *work) {
    const int64_t k = std::min(m, n);
    if (has_nonfinite(m, n, A, lda)) {
        fill_nan(m, k, A, lda);
        fill_nan(k, n, R, ldr);
        return GPUSVD_INFO_NONFINITE;
    }
    Bump b(work);
    const GeqrfWork<T> w = layout<T>(b, m, n);
    for (int64_t j = 0; j < n; ++j) w.colnorm[j] = norm2(m, A + j * lda);

    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n);
    const lapack_int ki = static_cast<lapack_int>(k), ld = static_cast<lapack_int>(lda);
    lapack::geqrf(mi, ni, A, ld, w.tau, w.lapack, w.lwork);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < k; ++i) R[i + j * ldr] = i <= j ? A[i + j * lda] : T(0);
    lapack::orgqr(mi, ki, ki, A, ld, w.tau, w.lapack, w.lwork);

    // Householder gives R(j,j) of either sign: flip row j of R and column j of Q together.
    // A column whose part orthogonal to the previous ones is at most m * eps * ||a_j|| is
    // declared dependent (R(j,j) = 0); its Householder Q column already completes Q.
    const T thresh = static_cast<T>(m) * std::numeric_limits<T>::epsilon();
    int info = 0;
    for (int64_t j = 0; j < k; ++j) {
        if (R[j + j * ldr] < 0) {
            for (int64_t c = j; c < n; ++c) R[j + c * ldr] = -R[j + c * ldr];
            for (int64_t i = 0; i < m; ++i) A[i + j * lda] = -A[i + j * lda];
        }
        if (R[j + j * ldr] <= thresh * w.colnorm[j]) {
            R[j + j * ldr] = 0;
            if (!info) info = static_cast<int>(j + 1);
        }
    }
    return info;
}

#define GPUSVD_INSTANTIATE(T)                                 \
    template size_t geqrf_bytes<T>(int64_t, int64_t);         \
    template int geqrf<T>(int64_t, int64_t, T *, int64_t, T *, int64_t, void *);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpusvd::cpu
