// One-sided Jacobi SVD (team code): from converged columns to S, U, V (norms, normalisation,
// orthonormal completion, descending order, output).
#pragma once

#include "kernels/jacobi_types.hpp"

namespace gpusvd {
namespace kernels {

/// norm[j] = |a_j|; with `normalise`, a_j /= |a_j| for nonzero columns (zero ones stay zero).
template <class T, class I, class Team, class PairTeam>
GPUSVD_HD void jacobi_column_norms(const Team &t, const PairTeam &pt, const JacobiWork<T, I> &w,
                                   bool normalise) {
    using Rl = RealOf<T>;
    const int W = pt.size(), r = pt.rank();
    for_each_group_item(t, pt, w.cols, [&](int j, bool active) {
        T *x = w.w + static_cast<I>(j) * w.ld;
        Rl ss = Rl(0);
        if (active)
            for (I i = r; i < w.rows; i += W) ss += abs2(x[i]);
        ss = pt.sum(ss);
        if (!active) return;
        const Rl nrm = Real<Rl>::sqrt(ss);
        if (r == 0) w.norm[j] = nrm;
        if (normalise && nrm > Rl(0))
            for (I i = r; i < w.rows; i += W) x[i] = x[i] / nrm;  // division: nrm may be tiny
    });
    t.sync();
}

/// Replaces zero column j of the orthonormal columns (pos[c] != 0: accepted) by a unit vector
/// orthogonal to all accepted ones: e_i for the row i least represented in their span (largest
/// |(I - U U^H) e_i|^2 >= 1 - accepted/rows > 0), orthogonalised twice (classical Gram-Schmidt;
/// the first pass needs no dot products: U^H e_i is row i of U, conjugated).
template <class T, class I, class Team>
GPUSVD_HD void jacobi_complete_column(const Team &t, const JacobiWork<T, I> &w, int j) {
    using Rl = RealOf<T>;
    const int cols = w.cols;
    auto u = [&](I i, int c) -> T & { return w.w[i + static_cast<I>(c) * w.ld]; };

    Rl best = Rl(4);  // row norms of orthonormal columns are <= 1
    I best_i = w.rows;
    for (I i = t.rank(); i < w.rows; i += t.size()) {
        Rl s = Rl(0);
        for (int c = 0; c < cols; ++c)
            if (w.pos[c]) s += abs2(u(i, c));
        if (s < best) {
            best = s;
            best_i = i;
        }
    }
    const Rl least = -t.max(-best);
    const I pick = -t.max(best == least ? -best_i : -w.rows);

    for (int c = t.rank(); c < cols; c += t.size()) w.dot[c] = w.pos[c] ? conj(u(pick, c)) : T(0);
    t.sync();
    for (I i = t.rank(); i < w.rows; i += t.size()) {
        T v = i == pick ? T(1) : T(0);
        for (int c = 0; c < cols; ++c)
            if (w.dot[c] != T(0)) v -= w.dot[c] * u(i, c);
        u(i, j) = v;
    }
    t.sync();
    for (int c = t.rank(); c < cols; c += t.size()) {
        T d = T(0);
        if (w.pos[c])
            for (I i = 0; i < w.rows; ++i) d += mul_conj(u(i, c), u(i, j));
        w.dot[c] = d;
    }
    t.sync();
    Rl nn = Rl(0);
    for (I i = t.rank(); i < w.rows; i += t.size()) {
        T v = u(i, j);
        for (int c = 0; c < cols; ++c)
            if (w.dot[c] != T(0)) v -= w.dot[c] * u(i, c);
        u(i, j) = v;
        nn += abs2(v);
    }
    const Rl nrm = Real<Rl>::sqrt(t.sum(nn));
    for (I i = t.rank(); i < w.rows; i += t.size()) u(i, j) = u(i, j) / nrm;
    if (t.rank() == 0) w.pos[j] = 1;
    t.sync();
}

/// Makes the normalised columns orthonormal: zero columns (zero singular values) get an
/// orthonormal completion, in column order.
template <class T, class I, class Team>
GPUSVD_HD void jacobi_complete(const Team &t, const JacobiWork<T, I> &w) {
    int missing = 0;
    for (int c = t.rank(); c < w.cols; c += t.size()) {
        w.pos[c] = w.norm[c] > RealOf<T>(0);
        missing |= !w.pos[c];
    }
    missing = t.max(missing);
    t.sync();
    if (!missing) return;
    for (int j = 0; j < w.cols; ++j)
        if (!w.pos[j]) jacobi_complete_column(t, w, j);
    t.sync();  // everyone has read the flags before jacobi_rank_columns overwrites them
}

/// pos[j] = place of column j in descending order of norm (ties keep column order).
template <class T, class I, class Team>
GPUSVD_HD void jacobi_rank_columns(const Team &t, const JacobiWork<T, I> &w) {
    for (int j = t.rank(); j < w.cols; j += t.size()) {
        const RealOf<T> nj = w.norm[j];
        int before = 0;
        for (int i = 0; i < w.cols; ++i) before += (w.norm[i] > nj) || (w.norm[i] == nj && i < j);
        w.pos[j] = before;
    }
    t.sync();
}

/// Writes the result in descending order: S (norms times 2^-(e1+e2), undoing the scaling
/// exactly), the normalised columns to `uw` (rows x cols) and the V part to `vw` (cols x cols)
/// where these are non-null.
template <class T, class I, class Team, class PairTeam>
GPUSVD_HD void jacobi_store(const Team &t, const PairTeam &pt, const JacobiWork<T, I> &w, int e1,
                            int e2, RealOf<T> *S, T *uw, int64_t lduw, T *vw, int64_t ldvw) {
    using Rl = RealOf<T>;
    const Rl f1 = Real<Rl>::ldexp(Rl(1), -e1), f2 = Real<Rl>::ldexp(Rl(1), -e2);
    for (int j = t.rank(); j < w.cols; j += t.size()) S[w.pos[j]] = w.norm[j] * f1 * f2;
    const int W = pt.size(), r = pt.rank();
    for_each_group_item(t, pt, w.cols, [&](int j, bool active) {
        if (!active) return;
        const T *x = w.w + static_cast<I>(j) * w.ld;
        const int64_t to = w.pos[j];
        if (uw)
            for (I i = r; i < w.rows; i += W) uw[i + to * lduw] = x[i];
        if (vw)
            for (I i = r; i < w.vrows; i += W) vw[i + to * ldvw] = x[w.voff + i];
    });
}

/// NaN in every output of a matrix that holds NaN or Inf (both parts of complex ones).
template <class T, class Team, class PairTeam>
GPUSVD_HD void jacobi_store_nan(const Team &t, const PairTeam &pt, const JacobiIO<T> &io) {
    const RealOf<T> rnan = Real<RealOf<T>>::nan();
    T nan;
    if constexpr (kIsComplex<T>)
        nan = T(rnan, rnan);
    else
        nan = rnan;
    const int64_t k = io.m < io.n ? io.m : io.n;
    for (int64_t j = t.rank(); j < k; j += t.size()) io.S[j] = rnan;
    const int W = pt.size(), r = pt.rank();
    for_each_group_item(t, pt, k, [&](int64_t j, bool active) {
        if (!active) return;
        if (io.U)
            for (int64_t i = r; i < io.m; i += W) io.U[i + j * io.ldu] = nan;
        if (io.V)
            for (int64_t i = r; i < io.n; i += W) io.V[i + j * io.ldv] = nan;
    });
}

}  // namespace kernels
}  // namespace gpusvd
