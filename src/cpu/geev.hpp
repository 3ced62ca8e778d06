// CPU eigenvalues / right eigenvectors of a general matrix (LAPACK ?geev, balancing on).
#pragma once

#include <cstddef>
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

}  // namespace gpusvd::cpu
