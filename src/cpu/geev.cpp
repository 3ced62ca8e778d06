#include "cpu/geev.hpp"

#include <algorithm>

#include "cpu/common.hpp"
#include "cpu/lapack.hpp"
#include "gpusvd.h"

namespace gpusvd::cpu {

namespace {

template <class T>
lapack_int lwork_for(bool want_vr, int64_t n) {
    const lapack_int ni = static_cast<lapack_int>(n), ld = std::max<lapack_int>(1, ni);
    T q = 0, dummy = 0;
    if constexpr (is_complex_v<T>) {
        real_t<T> rdummy = 0;
        lapack::geev(want_vr ? 'V' : 'N', ni, &dummy, ld, &dummy, &dummy, want_vr ? ld : 1, &q,
                     -1, &rdummy);
    } else {
        lapack::geev(want_vr ? 'V' : 'N', ni, &dummy, ld, &dummy, &dummy, &dummy,
                     want_vr ? ld : 1, &q, -1);
    }
    return std::max(lapack::query_size(q), lapack_int(1));
}

// WORK, and for complex T ?geev's RWORK (2n reals).
template <class T>
T *workspace(Bump &b, const GeevPlan &p, real_t<T> **rwork) {
    T *w = b.take<T>(p.lwork);
    *rwork = is_complex_v<T> ? b.take<real_t<T>>(2 * p.n) : nullptr;
    return w;
}

}  // namespace

template <class T>
GeevPlan geev_plan(bool want_vr, int64_t n) {
    GeevPlan p{want_vr, n, lwork_for<T>(want_vr, n), 0};
    Bump b;
    real_t<T> *rwork;
    workspace<T>(b, p, &rwork);
    p.bytes = b.bytes();
    return p;
}

template <class T>
int geev(const GeevPlan &plan, T *A, int64_t lda, T *wr, T *wi, T *VR, int64_t ldvr, void *work) {
    const bool want_vr = plan.want_vr;
    const int64_t n = plan.n;
    if (has_nonfinite(n, n, A, lda)) {
        fill_nan(n, 1, wr, n);
        fill_nan(n, 1, wi, n);
        if (want_vr) fill_nan(n, n, VR, ldvr);
        return GPUSVD_INFO_NONFINITE;
    }
    // No RangeScale (common.hpp) here: ?geev scales A into the same safe range itself and the
    // eigenvalues back, which test_range checks from near overflow to subnormal entries.
    const lapack_int lwork = plan.lwork;
    T *w = static_cast<T *>(work);
    T dummy = 0;
    return lapack_info(lapack::geev(want_vr ? 'V' : 'N', static_cast<lapack_int>(n), A,
                                    static_cast<lapack_int>(lda), wr, wi, want_vr ? VR : &dummy,
                                    static_cast<lapack_int>(want_vr ? ldvr : 1), w, lwork));
}

template <class T>
int geev(const GeevPlan &plan, std::complex<T> *A, int64_t lda, std::complex<T> *W,
         std::complex<T> *VR, int64_t ldvr, void *work) {
    using C = std::complex<T>;
    const bool want_vr = plan.want_vr;
    const int64_t n = plan.n;
    if (has_nonfinite(n, n, A, lda)) {
        fill_nan(n, 1, W, n);
        if (want_vr) fill_nan(n, n, VR, ldvr);
        return GPUSVD_INFO_NONFINITE;
    }
    // ?geev scales A into the safe range itself, and normalises each vector to unit 2-norm with
    // its largest component real.
    Bump b(work);
    T *rwork;
    C *w = workspace<C>(b, plan, &rwork);
    C dummy = 0;
    return lapack_info(lapack::geev(want_vr ? 'V' : 'N', static_cast<lapack_int>(n), A,
                                    static_cast<lapack_int>(lda), W, want_vr ? VR : &dummy,
                                    static_cast<lapack_int>(want_vr ? ldvr : 1), w, plan.lwork,
                                    rwork));
}

#define GPUSVD_INSTANTIATE(T)                                                                 \
    template GeevPlan geev_plan<T>(bool, int64_t);                                            \
    template GeevPlan geev_plan<std::complex<T>>(bool, int64_t);                              \
    template int geev<T>(const GeevPlan &, T *, int64_t, T *, T *, T *, int64_t, void *);     \
    template int geev<T>(const GeevPlan &, std::complex<T> *, int64_t, std::complex<T> *,     \
                         std::complex<T> *, int64_t, void *);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpusvd::cpu
