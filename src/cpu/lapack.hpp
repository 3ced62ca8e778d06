// Precision-generic names for the LAPACKE *_work routines the CPU backend uses, so each
// algorithm is written once as a template. Column-major only; arguments are validated by the
// caller, so LAPACK's xerbla is never reached.
#pragma once

#include <cblas.h>
#include <lapacke.h>

namespace gpusvd::lapack {

inline lapack_int gesvj(char joba, char jobu, char jobv, lapack_int m, lapack_int n, float *a,
                        lapack_int lda, float *sva, lapack_int mv, float *v, lapack_int ldv,
                        float *work, lapack_int lwork) {
    return LAPACKE_sgesvj_work(LAPACK_COL_MAJOR, joba, jobu, jobv, m, n, a, lda, sva, mv, v, ldv,
                               work, lwork);
}
inline lapack_int gesvj(char joba, char jobu, char jobv, lapack_int m, lapack_int n, double *a,
                        lapack_int lda, double *sva, lapack_int mv, double *v, lapack_int ldv,
                        double *work, lapack_int lwork) {
    return LAPACKE_dgesvj_work(LAPACK_COL_MAJOR, joba, jobu, jobv, m, n, a, lda, sva, mv, v, ldv,
                               work, lwork);
}

inline lapack_int geqrf(lapack_int m, lapack_int n, float *a, lapack_int lda, float *tau,
                        float *work, lapack_int lwork) {
    return LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work, lwork);
}
inline lapack_int geqrf(lapack_int m, lapack_int n, double *a, lapack_int lda, double *tau,
                        double *work, lapack_int lwork) {
    return LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work, lwork);
}

/// QR with R(j,j) >= 0 (Householder vectors from ?larfgp).
inline lapack_int geqrfp(lapack_int m, lapack_int n, float *a, lapack_int lda, float *tau,
                         float *work, lapack_int lwork) {
    return LAPACKE_sgeqrfp_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work, lwork);
}
inline lapack_int geqrfp(lapack_int m, lapack_int n, double *a, lapack_int lda, double *tau,
                         double *work, lapack_int lwork) {
    return LAPACKE_dgeqrfp_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work, lwork);
}

inline lapack_int orgqr(lapack_int m, lapack_int n, lapack_int k, float *a, lapack_int lda,
                        const float *tau, float *work, lapack_int lwork) {
    return LAPACKE_sorgqr_work(LAPACK_COL_MAJOR, m, n, k, a, lda, tau, work, lwork);
}
inline lapack_int orgqr(lapack_int m, lapack_int n, lapack_int k, double *a, lapack_int lda,
                        const double *tau, double *work, lapack_int lwork) {
    return LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, m, n, k, a, lda, tau, work, lwork);
}

inline lapack_int geev(char jobvr, lapack_int n, float *a, lapack_int lda, float *wr, float *wi,
                       float *vr, lapack_int ldvr, float *work, lapack_int lwork) {
    float vl = 0;
    return LAPACKE_sgeev_work(LAPACK_COL_MAJOR, 'N', jobvr, n, a, lda, wr, wi, &vl, 1, vr, ldvr,
                              work, lwork);
}
inline lapack_int geev(char jobvr, lapack_int n, double *a, lapack_int lda, double *wr,
                       double *wi, double *vr, lapack_int ldvr, double *work, lapack_int lwork) {
    double vl = 0;
    return LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', jobvr, n, a, lda, wr, wi, &vl, 1, vr, ldvr,
                              work, lwork);
}

inline lapack_int bdsdc(char uplo, char compq, lapack_int n, float *d, float *e, float *u,
                        lapack_int ldu, float *vt, lapack_int ldvt, float *work,
                        lapack_int *iwork) {
    float q = 0;
    lapack_int iq = 0;
    return LAPACKE_sbdsdc_work(LAPACK_COL_MAJOR, uplo, compq, n, d, e, u, ldu, vt, ldvt, &q, &iq,
                               work, iwork);
}
inline lapack_int bdsdc(char uplo, char compq, lapack_int n, double *d, double *e, double *u,
                        lapack_int ldu, double *vt, lapack_int ldvt, double *work,
                        lapack_int *iwork) {
    double q = 0;
    lapack_int iq = 0;
    return LAPACKE_dbdsdc_work(LAPACK_COL_MAJOR, uplo, compq, n, d, e, u, ldu, vt, ldvt, &q, &iq,
                               work, iwork);
}

inline lapack_int gesdd(char jobz, lapack_int m, lapack_int n, float *a, lapack_int lda, float *s,
                        float *u, lapack_int ldu, float *vt, lapack_int ldvt, float *work,
                        lapack_int lwork, lapack_int *iwork) {
    return LAPACKE_sgesdd_work(LAPACK_COL_MAJOR, jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work,
                               lwork, iwork);
}
inline lapack_int gesdd(char jobz, lapack_int m, lapack_int n, double *a, lapack_int lda,
                        double *s, double *u, lapack_int ldu, double *vt, lapack_int ldvt,
                        double *work, lapack_int lwork, lapack_int *iwork) {
    return LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work,
                               lwork, iwork);
}

/// C = A * B (column-major, no transposes).
inline void gemm(int m, int n, int k, const float *a, int lda, const float *b, int ldb, float *c,
                 int ldc) {
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c,
                ldc);
}
inline void gemm(int m, int n, int k, const double *a, int lda, const double *b, int ldb,
                 double *c, int ldc) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, lda, b, ldb, 0.0, c,
                ldc);
}

/// LAPACK's workspace query result as an element count.
template <class T>
inline lapack_int query_size(T w) {
    return static_cast<lapack_int>(w) + 1;
}

}  // namespace gpusvd::lapack
