// Precision-generic names for the LAPACKE *_work routines (and the cblas GEMM and SYRK) the CPU
// backend uses, so each algorithm is written once as a template; the benchmark's reference
// side calls the same wrappers. Column-major only; arguments are validated by the caller, so
// LAPACK's xerbla is never reached. Complex element types are std::complex (LAPACKE's
// LAPACK_COMPLEX_CPP), with the same names as the real wrappers where the algorithm is the same
// (orgqr is ?ungqr for complex T) and an extra real workspace argument where LAPACK has one.
#pragma once

#include <cblas.h>
#include <complex>
#ifndef LAPACK_COMPLEX_CPP
#define LAPACK_COMPLEX_CPP
#endif
#ifndef lapack_complex_float
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#endif
#include <lapacke.h>

#include <limits>

namespace gpusvd::lapack {

#define GPUSVD_LAPACK_WRAPPERS(T, X)                                                               \
    inline lapack_int gesvj(char joba, char jobu, char jobv, lapack_int m, lapack_int n, T *a,     \
                            lapack_int lda, T *sva, lapack_int mv, T *v, lapack_int ldv, T *work,  \
                            lapack_int lwork) {                                                    \
        return LAPACKE_##X##gesvj_work(LAPACK_COL_MAJOR, joba, jobu, jobv, m, n, a, lda, sva, mv,  \
                                       v, ldv, work, lwork);                                       \
    }                                                                                              \
    inline lapack_int geqrf(lapack_int m, lapack_int n, T *a, lapack_int lda, T *tau, T *work,     \
                            lapack_int lwork) {                                                    \
        return LAPACKE_##X##geqrf_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work, lwork);          \
    }                                                                                              \
    /* QR with R(j,j) >= 0 (Householder vectors from ?larfgp). */                                  \
    inline lapack_int geqrfp(lapack_int m, lapack_int n, T *a, lapack_int lda, T *tau, T *work,    \
                             lapack_int lwork) {                                                   \
        return LAPACKE_##X##geqrfp_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work, lwork);         \
    }                                                                                              \
    inline lapack_int orgqr(lapack_int m, lapack_int n, lapack_int k, T *a, lapack_int lda,        \
                            const T *tau, T *work, lapack_int lwork) {                             \
        return LAPACKE_##X##orgqr_work(LAPACK_COL_MAJOR, m, n, k, a, lda, tau, work, lwork);       \
    }                                                                                              \
    /* Right eigenvectors only (no VL). */                                                         \
    inline lapack_int geev(char jobvr, lapack_int n, T *a, lapack_int lda, T *wr, T *wi, T *vr,    \
                           lapack_int ldvr, T *work, lapack_int lwork) {                           \
        T vl = 0;                                                                                  \
        return LAPACKE_##X##geev_work(LAPACK_COL_MAJOR, 'N', jobvr, n, a, lda, wr, wi, &vl, 1, vr, \
                                      ldvr, work, lwork);                                          \
    }                                                                                              \
    /* COMPQ = 'N' or 'I' only (no compact Q form). */                                             \
    inline lapack_int bdsdc(char uplo, char compq, lapack_int n, T *d, T *e, T *u, lapack_int ldu, \
                            T *vt, lapack_int ldvt, T *work, lapack_int *iwork) {                  \
        T q = 0;                                                                                   \
        lapack_int iq = 0;                                                                         \
        return LAPACKE_##X##bdsdc_work(LAPACK_COL_MAJOR, uplo, compq, n, d, e, u, ldu, vt, ldvt,   \
                                       &q, &iq, work, iwork);                                      \
    }                                                                                              \
    inline lapack_int gesdd(char jobz, lapack_int m, lapack_int n, T *a, lapack_int lda, T *s,     \
                            T *u, lapack_int ldu, T *vt, lapack_int ldvt, T *work,                 \
                            lapack_int lwork, lapack_int *iwork) {                                 \
        return LAPACKE_##X##gesdd_work(LAPACK_COL_MAJOR, jobz, m, n, a, lda, s, u, ldu, vt, ldvt,  \
                                       work, lwork, iwork);                                        \
    }                                                                                              \
    /* Symmetric eigenvalues and vectors ('V', in place), ascending, divide and conquer. */        \
    inline lapack_int syevd(char uplo, lapack_int n, T *a, lapack_int lda, T *w, T *work,          \
                            lapack_int lwork, lapack_int *iwork, lapack_int liwork) {              \
        return LAPACKE_##X##syevd_work(LAPACK_COL_MAJOR, 'V', uplo, n, a, lda, w, work, lwork,     \
                                       iwork, liwork);                                             \
    }                                                                                              \
    /* Eigenpairs il..iu (1-based, ascending) of a symmetric matrix ('V', RANGE = 'I'). */         \
    inline lapack_int syevr(char uplo, lapack_int n, T *a, lapack_int lda, lapack_int il,          \
                            lapack_int iu, lapack_int *found, T *w, T *z, lapack_int ldz,          \
                            lapack_int *isuppz, T *work, lapack_int lwork, lapack_int *iwork,      \
                            lapack_int liwork) {                                                   \
        return LAPACKE_##X##syevr_work(LAPACK_COL_MAJOR, 'V', 'I', uplo, n, a, lda, T(0), T(0),   \
                                       il, iu, T(0), found, w, z, ldz, isuppz, work, lwork, iwork, \
                                       liwork);                                                    \
    }                                                                                              \
    /* C = alpha A^T A + beta C, upper triangle (A is k x n). */                                   \
    inline void syrk_upper_t(int n, int k, T alpha, const T *a, int lda, T beta, T *c, int ldc) {  \
        cblas_##X##syrk(CblasColMajor, CblasUpper, CblasTrans, n, k, alpha, a, lda, beta, c, ldc); \
    }                                                                                              \
    /* C = A * B, no transposes. */                                                                \
    inline void gemm(int m, int n, int k, const T *a, int lda, const T *b, int ldb, T *c,          \
                     int ldc) {                                                                    \
        cblas_##X##gemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, T(1), a, lda, b, ldb,  \
                        T(0), c, ldc);                                                             \
    }                                                                                              \
    /* C = A * B, each matrix column-major or (its flag set) row-major; a row-major C is formed   \
       as C^T = B^T A^T. */                                                                        \
    inline void gemm_layout(bool a_row, bool b_row, bool c_row, int m, int n, int k, const T *a,   \
                            int lda, const T *b, int ldb, T *c, int ldc) {                         \
        if (!c_row)                                                                                \
            cblas_##X##gemm(CblasColMajor, a_row ? CblasTrans : CblasNoTrans,                      \
                            b_row ? CblasTrans : CblasNoTrans, m, n, k, T(1), a, lda, b, ldb,      \
                            T(0), c, ldc);                                                         \
        else                                                                                       \
            cblas_##X##gemm(CblasColMajor, b_row ? CblasNoTrans : CblasTrans,                      \
                            a_row ? CblasNoTrans : CblasTrans, n, m, k, T(1), b, ldb, a, lda,      \
                            T(0), c, ldc);                                                         \
    }                                                                                              \
    /* Cholesky A = R^T R of the upper triangle, in place. */                                      \
    inline lapack_int potrf_upper(lapack_int n, T *a, lapack_int lda) {                            \
        return LAPACKE_##X##potrf_work(LAPACK_COL_MAJOR, 'U', n, a, lda);                          \
    }                                                                                              \
    /* B <- B R^-1, R upper triangular, non-unit (B is m x n). */                                  \
    inline void trsm_right_upper(int m, int n, const T *r, int ldr, T *b, int ldb) {              \
        cblas_##X##trsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, m, n,  \
                        T(1), r, ldr, b, ldb);                                                     \
    }                                                                                              \
    /* B <- R B, R upper triangular, non-unit (n x n). */                                          \
    inline void trmm_left_upper(int n, const T *r, int ldr, T *b, int ldb) {                      \
        cblas_##X##trmm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, n, n,   \
                        T(1), r, ldr, b, ldb);                                                     \
    }                                                                                              \
    /* y = alpha op(A) x + beta y (A is m x n). */                                                 \
    inline void gemv(bool trans, int m, int n, T alpha, const T *a, int lda, const T *x, T beta,   \
                     T *y) {                                                                       \
        cblas_##X##gemv(CblasColMajor, trans ? CblasTrans : CblasNoTrans, m, n, alpha, a, lda, x,  \
                        1, beta, y, 1);                                                            \
    }

GPUSVD_LAPACK_WRAPPERS(float, s)
GPUSVD_LAPACK_WRAPPERS(double, d)
#undef GPUSVD_LAPACK_WRAPPERS

#define GPUSVD_LAPACK_COMPLEX_WRAPPERS(R, X)                                                       \
    using X##T = std::complex<R>;                                                                  \
    /* RWORK: LRWORK >= max(6, n); RWORK(1) is CTOL on entry with jobu = 'C', and RWORK(1..6)     \
       hold the statistics ?gesvj's real WORK holds. */                                            \
    inline lapack_int gesvj(char joba, char jobu, char jobv, lapack_int m, lapack_int n, X##T *a,  \
                            lapack_int lda, R *sva, lapack_int mv, X##T *v, lapack_int ldv,        \
                            X##T *cwork, lapack_int lwork, R *rwork, lapack_int lrwork) {          \
        return LAPACKE_##X##gesvj_work(LAPACK_COL_MAJOR, joba, jobu, jobv, m, n, a, lda, sva, mv,  \
                                       v, ldv, cwork, lwork, rwork, lrwork);                       \
    }                                                                                              \
    inline lapack_int geqrf(lapack_int m, lapack_int n, X##T *a, lapack_int lda, X##T *tau,        \
                            X##T *work, lapack_int lwork) {                                        \
        return LAPACKE_##X##geqrf_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work, lwork);          \
    }                                                                                              \
    /* Real non-negative R(j,j) (Householder vectors from ?larfgp). */                             \
    inline lapack_int geqrfp(lapack_int m, lapack_int n, X##T *a, lapack_int lda, X##T *tau,       \
                             X##T *work, lapack_int lwork) {                                       \
        return LAPACKE_##X##geqrfp_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work, lwork);         \
    }                                                                                              \
    inline lapack_int orgqr(lapack_int m, lapack_int n, lapack_int k, X##T *a, lapack_int lda,     \
                            const X##T *tau, X##T *work, lapack_int lwork) {                       \
        return LAPACKE_##X##ungqr_work(LAPACK_COL_MAJOR, m, n, k, a, lda, tau, work, lwork);       \
    }                                                                                              \
    /* Right eigenvectors only (no VL); eigenvalues in one complex array; RWORK 2n. */             \
    inline lapack_int geev(char jobvr, lapack_int n, X##T *a, lapack_int lda, X##T *w, X##T *vr,   \
                           lapack_int ldvr, X##T *work, lapack_int lwork, R *rwork) {              \
        X##T vl = 0;                                                                               \
        return LAPACKE_##X##geev_work(LAPACK_COL_MAJOR, 'N', jobvr, n, a, lda, w, &vl, 1, vr,      \
                                      ldvr, work, lwork, rwork);                                   \
    }                                                                                              \
    /* RWORK: 5 p^2 + 7 p (jobz 'S'), p = min(m, n). */                                            \
    inline lapack_int gesdd(char jobz, lapack_int m, lapack_int n, X##T *a, lapack_int lda, R *s,  \
                            X##T *u, lapack_int ldu, X##T *vt, lapack_int ldvt, X##T *work,        \
                            lapack_int lwork, R *rwork, lapack_int *iwork) {                       \
        return LAPACKE_##X##gesdd_work(LAPACK_COL_MAJOR, jobz, m, n, a, lda, s, u, ldu, vt, ldvt,  \
                                       work, lwork, rwork, iwork);                                 \
    }                                                                                              \
    /* C = A * B as gemm_layout above (a row-major operand is transposed, not conjugated). */      \
    inline void gemm_layout(bool a_row, bool b_row, bool c_row, int m, int n, int k,               \
                            const X##T *a, int lda, const X##T *b, int ldb, X##T *c, int ldc) {    \
        const X##T one = 1, zero = 0;                                                              \
        if (!c_row)                                                                                \
            cblas_##X##gemm(CblasColMajor, a_row ? CblasTrans : CblasNoTrans,                      \
                            b_row ? CblasTrans : CblasNoTrans, m, n, k, &one, a, lda, b, ldb,      \
                            &zero, c, ldc);                                                        \
        else                                                                                       \
            cblas_##X##gemm(CblasColMajor, b_row ? CblasNoTrans : CblasTrans,                      \
                            a_row ? CblasNoTrans : CblasTrans, n, m, k, &one, b, ldb, a, lda,      \
                            &zero, c, ldc);                                                        \
    }

GPUSVD_LAPACK_COMPLEX_WRAPPERS(float, c)
GPUSVD_LAPACK_COMPLEX_WRAPPERS(double, z)
#undef GPUSVD_LAPACK_COMPLEX_WRAPPERS

/// LAPACK's workspace query result as an element count.
template <class T>
inline lapack_int query_size(T w) {
    const T limit = static_cast<T>(std::numeric_limits<lapack_int>::max() - 1);
    return w >= limit ? std::numeric_limits<lapack_int>::max() : static_cast<lapack_int>(w) + 1;
}

template <class T>
inline lapack_int query_size(std::complex<T> w) {
    return query_size(w.real());
}

}  // namespace gpusvd::lapack
