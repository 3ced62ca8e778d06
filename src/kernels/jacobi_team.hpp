// One-sided (Hestenes) Jacobi SVD of one matrix by one team (see team.hpp, jacobi_types.hpp):
// the host reference (SerialTeam) and the GPU kernels (cuda/gesvj) run this same code.
//
// A (m x n) = U diag(S) V^H, k = min(m,n) (V^T for real data). The team works on rows x cols =
// max x min: A itself, or A^H for m < n (then A = V' S U'^H: the roles of U and V swap). Steps:
// load (and screen for NaN/Inf), scale by a power of two, sweep, take column norms, normalise,
// complete, sort, store.
#pragma once

#include "kernels/jacobi_finish.hpp"
#include "kernels/jacobi_sweeps.hpp"

namespace gpusvd {
namespace kernels {

/// Copies A (or A^H) into w's A part and sets the V part to the identity. Returns the largest
/// part_abs_max of an entry in *amax and whether any entry is NaN/Inf.
template <class T, class I, class Team, class PairTeam>
GPUSVD_HD bool jacobi_load(const Team &t, const PairTeam &pt, const JacobiIO<T> &io,
                           const JacobiWork<T, I> &w, RealOf<T> *amax) {
    const int W = pt.size(), r = pt.rank();
    RealOf<T> big = RealOf<T>(0);
    int bad = 0;
    auto take = [&](T v) {
        bad |= !is_finite(v);
        if (part_abs_max(v) > big) big = part_abs_max(v);
        return v;
    };
    if (io.m >= io.n) {
        for_each_group_item(t, pt, w.cols, [&](int j, bool active) {
            if (!active) return;
            const T *a = io.A + j * io.lda;
            T *x = w.w + static_cast<I>(j) * w.ld;
            for (I i = r; i < w.rows; i += W) x[i] = take(a[i]);
        });
    } else {
        // Read A's columns (coalesced); they are the rows of the working matrix.
        for_each_group_item(t, pt, w.rows, [&](I c, bool active) {
            if (!active) return;
            const T *a = io.A + c * io.lda;
            for (I i = r; i < w.cols; i += W) w.w[c + i * w.ld] = take(conj(a[i]));
        });
    }
    for_each_group_item(t, pt, w.cols, [&](int j, bool active) {
        if (!active) return;
        T *v = w.w + w.voff + static_cast<I>(j) * w.ld;
        for (I i = r; i < w.vrows; i += W) v[i] = i == j ? T(1) : T(0);
    });
    *amax = t.max(big);
    const bool nonfinite = t.max(bad) != 0;
    t.sync();
    return nonfinite;
}

/// Power-of-two scaling 2^(e1+e2) that brings amax (the largest real or imaginary part) just
/// below 2^tex, where parts * 2^(2 tex) <= 2^(max_exp - 2), parts = rows * cols reals (twice as
/// many for complex T): no column's sum of squares (bounded by |A|_F^2, which rotations
/// preserve) can overflow, and the largest entries sit as far above underflow as that allows.
/// Two factors, each a normal number, so that subnormal inputs scale up exactly.
template <class T, class I>
GPUSVD_HD void jacobi_scale_exponents(const JacobiWork<T, I> &w, RealOf<T> amax, int &e1, int &e2) {
    using R = Real<RealOf<T>>;
    e1 = e2 = 0;
    if (!(amax > RealOf<T>(0))) return;
    int lg = 0;
    const int64_t parts = static_cast<int64_t>(w.rows) * w.cols * (kIsComplex<T> ? 2 : 1);
    while ((int64_t(1) << lg) < parts) ++lg;
    const int tex = (R::max_exp() - 2 - lg) / 2;
    const int e = tex - R::exponent(amax);
    e1 = e / 2;
    e2 = e - e1;
}

template <class T, class I, class Team, class PairTeam>
GPUSVD_HD void jacobi_apply_scale(const Team &t, const PairTeam &pt, const JacobiWork<T, I> &w,
                                  int e1, int e2) {
    if (e1 == 0 && e2 == 0) return;
    using Rl = RealOf<T>;
    const Rl f1 = Real<Rl>::ldexp(Rl(1), e1), f2 = Real<Rl>::ldexp(Rl(1), e2);
    const int W = pt.size(), r = pt.rank();
    for_each_group_item(t, pt, w.cols, [&](int j, bool active) {
        if (!active) return;
        T *x = w.w + static_cast<I>(j) * w.ld;
        for (I i = r; i < w.rows; i += W) x[i] = x[i] * f1 * f2;  // f1 first: see above
    });
    t.sync();
}

/// The whole SVD of io's matrix (m, n >= 1) in w (shaped by jacobi_shape(m, n, U wanted, V
/// wanted)). tol in (0, 1): pairs with |cos| <= tol count as orthogonal. Returns info, the sweeps
/// and the final off-norm (GPUSVD_INFO_NONFINITE = -1 with NaN outputs for NaN/Inf input).
/// Slots: see jacobi_sweeps.
template <class T, class I, int CAP, class Slots = RuntimeSlots, class Team, class PairTeam>
GPUSVD_HD JacobiResult<T> jacobi_svd(const Team &t, const PairTeam &pt, const JacobiIO<T> &io,
                                     const JacobiWork<T, I> &w, RealOf<T> tol, int max_sweeps) {
    const bool tr = io.m < io.n;
    T *uw = tr ? io.V : io.U;  // the normalised columns
    T *vw = tr ? io.U : io.V;  // the accumulated rotations
    const int64_t lduw = tr ? io.ldv : io.ldu, ldvw = tr ? io.ldu : io.ldv;

    RealOf<T> amax;
    if (jacobi_load(t, pt, io, w, &amax)) {
        jacobi_store_nan(t, pt, io);
        t.sync();
        return JacobiResult<T>{-1, 0, RealOf<T>(0)};
    }
    int e1, e2;
    jacobi_scale_exponents(w, amax, e1, e2);
    jacobi_apply_scale(t, pt, w, e1, e2);

    const SweepResult<T> sw = jacobi_sweeps<T, I, CAP, Slots>(t, pt, w, tol, max_sweeps);

    jacobi_column_norms(t, pt, w, uw != nullptr);
    if (uw) jacobi_complete(t, w);
    jacobi_rank_columns(t, w);
    jacobi_store(t, pt, w, e1, e2, io.S, uw, lduw, vw, ldvw);
    t.sync();  // the caller may reuse w
    return JacobiResult<T>{sw.converged ? 0 : max_sweeps, sw.sweeps, sw.off};
}

}  // namespace kernels
}  // namespace gpusvd
