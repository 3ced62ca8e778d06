// The reference side of the CPU tables: the LAPACKE calls doing the same work as gpusvd's CPU
// backend, as overloads on the element type (the _work forms, workspace allocated outside the
// timed region), and OpenBLAS thread control.
#pragma once

#include <cblas.h>
#include <dlfcn.h>
#include <lapacke.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace bench::ref {

#define BENCH_REF(T, X)                                                                            \
    inline lapack_int gesvj(char ja, char ju, char jv, lapack_int m, lapack_int n, T *a,           \
                            lapack_int lda, T *sva, lapack_int mv, T *v, lapack_int ldv, T *work,  \
                            lapack_int lwork) {                                                    \
        return LAPACKE_##X##gesvj_work(LAPACK_COL_MAJOR, ja, ju, jv, m, n, a, lda, sva, mv, v,     \
                                       ldv, work, lwork);                                          \
    }                                                                                              \
    inline lapack_int geqrf(lapack_int m, lapack_int n, T *a, lapack_int lda, T *tau, T *work,     \
                            lapack_int lwork) {                                                    \
        return LAPACKE_##X##geqrf_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work, lwork);          \
    }                                                                                              \
    inline lapack_int orgqr(lapack_int m, lapack_int n, lapack_int k, T *a, lapack_int lda,        \
                            const T *tau, T *work, lapack_int lwork) {                             \
        return LAPACKE_##X##orgqr_work(LAPACK_COL_MAJOR, m, n, k, a, lda, tau, work, lwork);       \
    }                                                                                              \
    inline lapack_int geev(char jvr, lapack_int n, T *a, lapack_int lda, T *wr, T *wi, T *vr,      \
                           lapack_int ldvr, T *work, lapack_int lwork) {                           \
        T vl = 0;                                                                                  \
        return LAPACKE_##X##geev_work(LAPACK_COL_MAJOR, 'N', jvr, n, a, lda, wr, wi, &vl, 1, vr,   \
                                      ldvr, work, lwork);                                          \
    }                                                                                              \
    inline lapack_int bdsdc(char uplo, char compq, lapack_int n, T *d, T *e, T *u, lapack_int ldu, \
                            T *vt, lapack_int ldvt, T *work, lapack_int *iwork) {                  \
        T q = 0;                                                                                   \
        lapack_int iq = 0;                                                                         \
        return LAPACKE_##X##bdsdc_work(LAPACK_COL_MAJOR, uplo, compq, n, d, e, u, ldu, vt, ldvt,   \
                                       &q, &iq, work, iwork);                                      \
    }                                                                                              \
    inline void gemm(int m, int n, int k, const T *a, int lda, const T *b, int ldb, T *c,          \
                     int ldc) {                                                                    \
        cblas_##X##gemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, T(1), a, lda, b, ldb,  \
                        T(0), c, ldc);                                                             \
    }                                                                                              \
    inline lapack_int gesdd(char jobz, lapack_int m, lapack_int n, T *a, lapack_int lda, T *s,     \
                            T *u, lapack_int ldu, T *vt, lapack_int ldvt, T *work,                 \
                            lapack_int lwork, lapack_int *iwork) {                                 \
        return LAPACKE_##X##gesdd_work(LAPACK_COL_MAJOR, jobz, m, n, a, lda, s, u, ldu, vt, ldvt,  \
                                       work, lwork, iwork);                                        \
    }
BENCH_REF(float, s)
BENCH_REF(double, d)
#undef BENCH_REF

/// Workspace-query result as an element count.
template <class T>
inline lapack_int lwork_of(T q) {
    return std::max<lapack_int>(1, static_cast<lapack_int>(q) + 1);
}

/// openblas_set_num_threads / openblas_get_num_threads looked up at run time (no-ops with a
/// BLAS that is not OpenBLAS), as the library itself does.
inline void set_blas_threads(int n) {
    using F = void (*)(int);
    static F f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    if (f) f(n);
}
inline int get_blas_threads() {
    using F = int (*)(void);
    static F f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    return f ? f() : 1;
}

/// While alive, OpenBLAS runs single-threaded (the reference batched loops, like the library).
class BlasOneThread {
public:
    BlasOneThread() : saved_(get_blas_threads()) { set_blas_threads(1); }
    ~BlasOneThread() { set_blas_threads(saved_); }
    BlasOneThread(const BlasOneThread &) = delete;
    BlasOneThread &operator=(const BlasOneThread &) = delete;

private:
    int saved_;
};

/// The reference batched loop: OpenMP over matrices (dynamic schedule), OpenBLAS
/// single-threaded inside, f(matrix, thread) with thread < omp_get_max_threads() (as the library).
template <class F>
void omp_batch(int64_t batch, F &&f) {
    const int threads =
        static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(omp_get_max_threads(), batch)));
    if (threads == 1) {
        for (int64_t i = 0; i < batch; ++i) f(i, 0);
        return;
    }
    BlasOneThread guard;
    const int64_t chunk = std::max<int64_t>(1, batch / (int64_t(threads) * 8));
#pragma omp parallel for num_threads(threads) schedule(dynamic, chunk)
    for (int64_t i = 0; i < batch; ++i) f(i, omp_get_thread_num());
}

}  // namespace bench::ref
