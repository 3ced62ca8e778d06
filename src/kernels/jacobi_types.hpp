// One-sided Jacobi SVD (team code, see team.hpp): the data one matrix's team works on, and the
// round-robin pair ordering.
//
// Teams: the algorithm takes the matrix team `t` and a pair team `pt` whose members are
// consecutive ranks of t (pt.size() divides t.size()). Team t splits into t.size() / pt.size()
// groups; in one Jacobi round group g rotates the pairs g, g + groups, ... at the same time as the
// other groups. SerialTeam for both is the plain serial algorithm. Every member runs every
// pt.sum / t.sum / t.max (loops over pairs and columns have the same trip count in all members),
// so a pair team may reduce with whole-warp shuffles.
//
// Element types: T is float, double or Complex<R> (complex.hpp). Norms, cosines, tolerances and
// singular values are RealOf<T>; the dot products are x^H y.
#pragma once

#include <cstdint>

#include "kernels/complex.hpp"

namespace gpusvd {
namespace kernels {

/// Working storage of one matrix, oriented so that rows >= cols (A^H when m < n). Column j
/// starts at w + j * ld: A's part in [0, rows), the accumulated V's in [voff, voff + vrows).
/// I is the index type: int where everything is small (shared memory), int64_t otherwise.
template <class T, class I>
struct JacobiWork {
    T *w;
    I ld, rows, voff, vrows;  // vrows: cols when V is accumulated, else 0
    int cols;
    RealOf<T> *norm;  // cols: column norms (of the scaled matrix)
    T *dot;           // cols: scratch of the orthonormal completion
    int *pos;         // cols: completion flags, then each column's place in descending order
};

/// One problem as the caller gave it (column-major, any m, n >= 1). U / V null: not wanted.
template <class T>
struct JacobiIO {
    int64_t m, n;
    const T *A;
    int64_t lda;
    RealOf<T> *S;
    T *U;
    int64_t ldu;
    T *V;
    int64_t ldv;
};

template <class T>
struct JacobiResult {
    int info;       // 0, max_sweeps (not converged) or GPUSVD_INFO_NONFINITE (-1)
    int sweeps;     // sweeps run, the last one included
    RealOf<T> off;  // largest |cos(a_i, a_j)| met in the last sweep
};

/// Where each part lives inside one matrix's working storage, in elements of T.
struct JacobiShape {
    int64_t rows, voff, vrows, ld;
    int cols;
    int64_t elems;  // ld * cols + 2 * cols (w, norm, dot: a T each); the cols ints of pos after
};

/// Layout for an m x n problem. `align` (elements, >= 1) pads V's offset and the leading
/// dimension to a multiple of it (shared memory uses 128 bytes: see jacobi_pair's bank note).
inline JacobiShape jacobi_shape(int64_t m, int64_t n, bool wantu, bool wantv, int64_t align) {
    JacobiShape s;
    const bool tr = m < n;
    s.rows = tr ? n : m;
    s.cols = static_cast<int>(tr ? m : n);
    s.vrows = (tr ? wantu : wantv) ? s.cols : 0;
    s.voff = (s.rows + align - 1) / align * align;
    s.ld = (s.voff + s.vrows + align - 1) / align * align;
    s.elems = s.ld * s.cols + 2 * int64_t(s.cols);
    return s;
}

/// Points a JacobiWork at `base` (elements of T, then cols ints; base suitably aligned).
template <class T, class I>
GPUSVD_HD JacobiWork<T, I> jacobi_work(const JacobiShape &s, T *base) {
    JacobiWork<T, I> w;
    w.w = base;
    w.ld = static_cast<I>(s.ld);
    w.rows = static_cast<I>(s.rows);
    w.voff = static_cast<I>(s.voff);
    w.vrows = static_cast<I>(s.vrows);
    w.cols = s.cols;
    T *const tail = base + s.ld * s.cols;
    w.norm = reinterpret_cast<RealOf<T> *>(tail);  // (the first half of its T's, if complex)
    w.dot = tail + s.cols;
    w.pos = reinterpret_cast<int *>(w.dot + s.cols);
    return w;
}

/// max(|re x|, |im x|) (|x| for real x): the scaling's measure of an entry, never overflowing.
template <class T>
GPUSVD_HD RealOf<T> part_abs_max(T x) {
    using R = Real<RealOf<T>>;
    if constexpr (kIsComplex<T>) {
        const RealOf<T> a = R::abs(x.re), b = R::abs(x.im);
        return a > b ? a : b;
    } else {
        return R::abs(x);
    }
}

/// Round-robin (circle method) tournament over N players (N even): in round r (0 <= r < N-1),
/// position p holds this player; pair k is positions (k, N-1-k). Player 0 stays, the others
/// turn, so every pair meets exactly once in N-1 rounds. An odd cols plays with a dummy N-1.
GPUSVD_HD int round_robin_player(int pos, int round, int N) {
    if (pos == 0) return 0;
    int v = pos - 1 + round;  // < 2 (N - 1): one subtraction instead of a modulo
    if (v >= N - 1) v -= N - 1;
    return 1 + v;
}

/// Columns (p < q) of pair k in round r for `cols` columns; false for the dummy's pair.
GPUSVD_HD bool round_robin_pair(int k, int round, int cols, int &p, int &q) {
    const int N = cols + (cols & 1);
    int a = round_robin_player(k, round, N), b = round_robin_player(N - 1 - k, round, N);
    if (a > b) {
        const int c = a;
        a = b;
        b = c;
    }
    p = a;
    q = b;
    return b < cols;
}

/// Calls f(j, active) for j in [0, count) split over the groups of pt inside t: group g gets
/// g, g + groups, ...; every member makes the same number of calls (active false past count).
template <class I, class Team, class PairTeam, class F>
GPUSVD_HD void for_each_group_item(const Team &t, const PairTeam &pt, I count, F &&f) {
    const int groups = t.size() / pt.size(), g = t.rank() / pt.size();
    for (I base = 0; base < count; base += groups) f(base + g, base + g < count);
}

}  // namespace kernels
}  // namespace gpusvd
