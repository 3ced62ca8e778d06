// CPU QR with explicit Q (Householder ?geqrf or ?geqrfp + ?orgqr, R(j,j) >= 0).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpusvd::cpu {

/// Sizes of one m x n problem, worked out once per call (LAPACK workspace queries are not free
/// next to a 10 x 10 QR).
struct GeqrfPlan {
    int64_t m, n;
    bool positive;  // ?geqrfp (R(j,j) >= 0 directly) instead of ?geqrf + sign flips
    int lwork;      // elements of ?geqrf/?orgqr WORK
    bool row_major; // A and R row-major (gpusvdSetMatrixLayout)
    size_t bytes;   // workspace of one matrix
};

template <class T>
GeqrfPlan geqrf_plan(int64_t m, int64_t n, bool row_major = false);

/// Q overwrites the first min(m,n) columns of A; R is min(m,n) x n; both column-major, or
/// row-major (element (i,j) at i*ld + j) with plan.row_major. Returns info.
template <class T>
int geqrf(const GeqrfPlan &plan, T *A, int64_t lda, T *R, int64_t ldr, void *work);

}  // namespace gpusvd::cpu
