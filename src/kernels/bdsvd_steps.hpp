// The passes of the bidiagonal SVD (bdsvd_tgk.hpp), one item each, as the GPU kernels run them
// (cuda/bdsvd/bdsvd.cu: one thread per item) and the CPU test runs them (a loop per pass):
//   prepare  (entry k)  scaled Golub-Kahan off-diagonals t, t^2
//   value    (p)        bisection for value p of its block
//   twisted  (p)        value p's vector into U's column and VT's row, zeros outside its block
//   group    (g)        refinement of group g's vectors
//   finish   (p)        unit u and v parts
//   complete (block)    orthonormal completion for the block's zero values
//   store    (p)        d[pos[p]] = the value, unscaled
#pragma once

#include <cstdint>

#include "kernels/bdsvd_tgk.hpp"

namespace gpusvd {
namespace kernels {
namespace bd {

/// Inverse-iteration steps per refined group member (dstein uses up to 5 plus 2 after
/// convergence; every member starts from its twisted solution, already accurate).
constexpr int kRefineSteps = 2;

template <class T>
struct Problem {
    int64_t n;
    bool upper;
    const T *d, *e;       // the input (e: n - 1 entries)
    const int *scale_at;  // entries scaled by 2^-*scale_at (bd::scale_exponent of max |d|, |e|)
    T *t, *t2;            // 2n - 1 scaled Golub-Kahan off-diagonals and their squares
    T *sig;               // n: value p (scaled)
    T *dout;              // n: values, descending
    T *U;                 // null: values only
    int64_t ldu;
    T *VT;
    int64_t ldvt;
    // vectors only (bdsvd_plan.hpp), device copies of the plan
    const int64_t *lo, *pos, *group_first, *zero_blocks;
    const int64_t *zero_value, *null_u_first, *null_u_last, *null_v_first, *null_v_last;
    const int32_t *block, *group_size, *group_lu;
    T *scratch;  // 3 max_block * 2 elements per group slot
    int64_t slot_elems;
};

/// max(|d|, |e|) -> the exponent that brings it into [1/2, 1).
template <class T>
GPUSVD_HD int scale_exponent(T amax) {
    return amax > T(0) ? Real<T>::exponent(amax) : 0;
}

template <class T>
GPUSVD_HD void prepare(const Problem<T> &q, int64_t k) {
    const int64_t i = k >> 1;
    const T x = Real<T>::ldexp((k & 1) ? q.e[i] : q.d[i], -*q.scale_at);
    q.t[k] = x;
    q.t2[k] = x * x;
}

template <class T>
GPUSVD_HD T pivmin() {
    return Real<T>::safe_min();
}

/// Rows [r0, r1) of value p's block; the whole matrix when there is no plan (values only).
template <class T>
GPUSVD_HD void block_rows(const Problem<T> &q, int64_t p, int64_t &r0, int64_t &r1) {
    if (!q.block) {
        r0 = 0, r1 = q.n;
        return;
    }
    const int32_t b = q.block[p];
    r0 = q.lo[b], r1 = q.lo[b + 1];
}

template <class T>
GPUSVD_HD void value(const Problem<T> &q, int64_t p) {
    int64_t r0, r1;
    block_rows(q, p, r0, r1);
    // A 1 x 1 block is exact (bisection would land within 2 ulp of |d|).
    q.sig[p] = r1 - r0 == 1 ? Real<T>::abs(q.t[2 * r0])
                            : bisect_value<T>(q.t2 + 2 * r0, r1 - r0, p - r0, pivmin<T>());
}

/// Value p's vector in the output: u slots in U's column (rows of B) for upper B, in VT's row
/// for lower B (where U and V swap, see bdsvd_tgk.hpp).
template <class T>
GPUSVD_HD Slots<T> slots(const Problem<T> &q, int64_t p, int64_t r0) {
    const int64_t c = q.pos[p];
    T *ucol = q.U + r0 + c * q.ldu, *vtrow = q.VT + c + r0 * q.ldvt;
    return q.upper ? Slots<T>{ucol, vtrow, 1, q.ldvt} : Slots<T>{vtrow, ucol, q.ldvt, 1};
}

/// Zeros in U's column and VT's row of output position c outside rows [r0, r1).
template <class T>
GPUSVD_HD void clear_outside(const Problem<T> &q, int64_t c, int64_t r0, int64_t r1) {
    for (int64_t i = 0; i < q.n; ++i) {
        if (i == r0) i = r1;
        if (i >= q.n) break;
        q.U[i + c * q.ldu] = T(0);
        q.VT[c + i * q.ldvt] = T(0);
    }
}

template <class T>
GPUSVD_HD void twisted(const Problem<T> &q, int64_t p) {
    int64_t r0, r1;
    block_rows(q, p, r0, r1);
    if (q.sig[p] == T(0)) return;  // completed later
    clear_outside(q, q.pos[p], r0, r1);
    twisted_vector<T>(q.t + 2 * r0, q.t2 + 2 * r0, 2 * (r1 - r0), q.sig[p], pivmin<T>(),
                      slots(q, p, r0));
}

/// Strided scratch vector (the LU rows of inverse_step).
template <class T>
struct Strided {
    T *p;
    int64_t s;
    GPUSVD_HD T &operator[](int64_t k) const { return p[k * s]; }
};

/// Group g, by team tm (a warp on the GPU), with scratch slot `slot` (its rows contiguous: the
/// inverse steps walk them serially).
template <class T, class Team>
GPUSVD_HD void group(const Team &tm, const Problem<T> &q, int64_t g, int64_t slot) {
    const int64_t first = q.group_first[g];
    const int k = q.group_size[g];
    int64_t r0, r1;
    block_rows(q, first, r0, r1);
    const int64_t N = 2 * (r1 - r0);
    T tn = T(0);
    for (int64_t i = 0; i + 1 < N; ++i)
        tn = Real<T>::abs(q.t[2 * r0 + i]) > tn ? Real<T>::abs(q.t[2 * r0 + i]) : tn;
    const T tol = Real<T>::eps() * (tn > T(0) ? tn : T(1));
    const Strided<T> a{q.scratch + slot * q.slot_elems, 1}, b{a.p + N, 1}, c{b.p + N, 1};
    auto vec = [&](int i) { return slots(q, first + i, r0); };
    refine_group<T>(tm, q.t + 2 * r0, N, q.sig + first, k, tol, q.group_lu[g] ? kRefineSteps : 0,
                    vec, a, b, c);
}

template <class T>
GPUSVD_HD void finish(const Problem<T> &q, int64_t p) {
    if (q.sig[p] == T(0)) return;
    int64_t r0, r1;
    block_rows(q, p, r0, r1);
    normalise_parts<T>(SerialTeam{}, slots(q, p, r0), 2 * (r1 - r0));
}

/// Zero value zi: the null vectors of its two pieces of T (bdsvd_plan.hpp), zeros elsewhere.
template <class T>
GPUSVD_HD void null_pair(const Problem<T> &q, int64_t zi) {
    const Slots<T> z = slots(q, q.zero_value[zi], 0);
    for (int64_t k = 0; k < 2 * q.n; ++k) z[k] = T(0);
    null_vector<T>(q.t, q.null_u_first[zi], q.null_u_last[zi], z);
    null_vector<T>(q.t, q.null_v_first[zi], q.null_v_last[zi], z);
    normalise_parts<T>(SerialTeam{}, z, 2 * q.n);
}

/// Column c of U (rows r0.. of the block) or row c of VT, as a column.
template <class T>
struct OutCol {
    T *base;
    int64_t ld, step;  // element i of column c: base[c * ld + i * step]
    GPUSVD_HD Strided<T> operator()(int64_t c) const { return Strided<T>{base + c * ld, step}; }
};

/// Completes block b's zero values. cols: scratch of block-size entries (output positions).
template <class T>
GPUSVD_HD void complete(const Problem<T> &q, int64_t zb, int64_t *cols) {
    const int64_t b = q.zero_blocks[zb], r0 = q.lo[b], r1 = q.lo[b + 1], nb = r1 - r0;
    int64_t m = 0;
    for (int64_t p = r0; p < r1; ++p)
        if (q.sig[p] != T(0)) cols[m++] = q.pos[p];
    const OutCol<T> u{q.U + r0, q.ldu, 1}, v{q.VT + r0 * q.ldvt, 1, q.ldvt};
    for (int64_t p = r0; p < r1; ++p) {
        if (q.sig[p] != T(0)) continue;
        const int64_t c = q.pos[p];
        clear_outside(q, c, r0, r1);
        complete_column<T>(nb, cols, m, c, u);
        complete_column<T>(nb, cols, m, c, v);
        cols[m++] = c;
    }
}

template <class T>
GPUSVD_HD void store(const Problem<T> &q, int64_t p) {
    const T s = Real<T>::ldexp(q.sig[p], *q.scale_at);
    q.dout[q.pos ? q.pos[p] : p] = s;
}

}  // namespace bd
}  // namespace kernels
}  // namespace gpusvd
