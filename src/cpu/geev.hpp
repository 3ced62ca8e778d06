// CPU eigenvalues / right eigenvectors of a general matrix (LAPACK ?geev, balancing on).
#pragma once

#include <cstddef>
#include <complex>
#include <cstdint>

namespace gpusvd::cpu {

/// Sizes of one problem, worked out once per call.
struct GeevPlan {
    bool want_vr;
    int64_t n;
    int lwork;
    size_t bytes;
};

template <class T>
GeevPlan geev_plan(bool want_vr, int64_t n);

/// A destroyed; VR may be null when !want_vr. Returns info.
template <class T>
int geev(const GeevPlan &plan, T *A, int64_t lda, T *wr, T *wi, T *VR, int64_t ldvr, void *work);

/// Complex A (plan of geev_plan<std::complex<T>>): the eigenvalues in W (n), VR's columns of
/// unit 2-norm with their largest component real (LAPACK ?geev's conventions). Returns info.
template <class T>
int geev(const GeevPlan &plan, std::complex<T> *A, int64_t lda, std::complex<T> *W,
         std::complex<T> *VR, int64_t ldvr, void *work);

}  // namespace gpusvd::cpu
