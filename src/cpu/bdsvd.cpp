#include "cpu/bdsvd.hpp"

#include <algorithm>

#include "cpu/common.hpp"
#include "cpu/lapack.hpp"
#include "gpusvd.h"

namespace gpusvd::cpu {

namespace {

template <class T>
struct BdsvdWork {
    T *lapack;
    lapack_int *iwork;
};

template <class T>
BdsvdWork<T> layout(Bump &b, bool want_vectors, int64_t n) {
    BdsvdWork<T> w;
    w.lapack = b.take<T>(want_vectors ? 3 * n * n + 4 * n : 4 * n);  // ?bdsdc's LWORK
    w.iwork = b.take<lapack_int>(8 * n);
    return w;
}

}  // namespace

template <class T>
size_t bdsvd_bytes(bool want_vectors, int64_t n) {
    Bump b;
    layout<T>(b, want_vectors, n);
    return b.bytes();
}

template <class T>
int bdsvd(bool lower, bool want_vectors, int64_t n, T *d, T *e, T *U, int64_t ldu, T *VT,
          int64_t ldvt, void *work) {
    if (has_nonfinite(n, 1, d, n) || (n > 1 && has_nonfinite(n - 1, 1, e, n - 1))) {
        fill_nan(n, 1, d, n);
        if (want_vectors) {
            fill_nan(n, n, U, ldu);
            fill_nan(n, n, VT, ldvt);
        }
        return GPUSVD_INFO_NONFINITE;
    }
    // ?bdsdc's QR iteration (n <= 25 with vectors) deflates against an absolute threshold of
    // about n^2 times the underflow level: it takes every e of a subnormal bidiagonal for zero
    // (the values come back as |d| sorted) and loses digits on entries around 1e-301. The
    // values scale with (d, e), the vectors do not.
    const RangeScale<T> range =
        RangeScale<T>::of(std::max(max_abs(n, 1, d, n), max_abs(n - 1, 1, e, n - 1)));
    range.apply(n, 1, d, n);
    range.apply(n - 1, 1, e, n - 1);
    Bump b(work);
    const BdsvdWork<T> w = layout<T>(b, want_vectors, n);
    T e0 = 0;  // ?bdsdc needs a valid e even when n == 1
    const lapack_int info =
        lapack::bdsdc(lower ? 'L' : 'U', want_vectors ? 'I' : 'N', static_cast<lapack_int>(n), d,
                      n > 1 ? e : &e0, want_vectors ? U : &e0,
                      static_cast<lapack_int>(want_vectors ? ldu : 1), want_vectors ? VT : &e0,
                      static_cast<lapack_int>(want_vectors ? ldvt : 1), w.lapack, w.iwork);
    range.undo(n, 1, d, n);
    if (want_vectors)
        sort_descending(n, d, n, U, ldu, n, static_cast<T *>(nullptr), 0, VT, ldvt);
    else
        sort_descending(n, d, 0, static_cast<T *>(nullptr), 0, 0, static_cast<T *>(nullptr), 0);
    return lapack_info(info);
}

#define GPUSVD_INSTANTIATE(T)                      \
    template size_t bdsvd_bytes<T>(bool, int64_t); \
    template int bdsvd<T>(bool, bool, int64_t, T *, T *, T *, int64_t, T *, int64_t, void *);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpusvd::cpu
