// Host bookkeeping of the bidiagonal SVD with vectors (see bdsvd_tgk.hpp): where B splits, where
// each computed value goes in the descending output, which values are refined together and which
// are zero. O(n log n) on the host between the GPU's O(n^2) passes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "kernels/team.hpp"

namespace gpusvd {
namespace kernels {
namespace bd {

/// Values with a relative gap below kRelGap AND an absolute gap below |T_block| / (kAbsGapDiv
/// n_block) are
/// refined together. Either gap alone bounds the angle between computed and exact vectors (the
/// twisted solve's residual is below eps |T| and its error is also O(n eps / relative gap) since
/// the factorisation is relatively stable), so a pair is safe when either is large.
constexpr double kRelGap = 1e-3;
constexpr int kAbsGapDiv = 8;
/// Inverse iteration refines a group only where two of its values are within kLuRel eps of each
/// other relatively (the twisted solutions' error, about eps / relative gap, then approaches 1:
/// they are nearly parallel and Gram-Schmidt alone cannot separate them; above that, Gram-Schmidt
/// makes them orthogonal and costs a residual of error x gap ~ eps sigma), and only when every
/// other value is kLuGap eps |T| away.
constexpr double kLuGap = 1000;
constexpr double kLuRel = 1000;

/// Blocks of B that are independent to working precision: B splits after row i when
/// |e_i| <= eps min(|d_i|, |d_i+1|) (a relative change of size eps in the neighbours).
template <class T>
std::vector<int64_t> split_points(int64_t n, const T *t) {
    std::vector<int64_t> lo{0};
    for (int64_t i = 0; i + 1 < n; ++i) {
        const T e = std::fabs(t[2 * i + 1]);
        const T m = std::min(std::fabs(t[2 * i]), std::fabs(t[2 * i + 2]));
        if (e <= Real<T>::eps() * m) lo.push_back(i + 1);
    }
    lo.push_back(n);
    return lo;  // block b is rows [lo[b], lo[b+1])
}

struct Plan;
template <class T>
void pair_null_vectors(Plan &p, const T *t, const T *sig, int64_t b, int64_t r0, int64_t r1);

/// The block of each row (and of each value: value p = lo[b] + j is the j-th largest of block
/// b), which the bisection needs before the values exist.
inline std::vector<int32_t> block_of_rows(int64_t n, const std::vector<int64_t> &lo) {
    std::vector<int32_t> block(static_cast<size_t>(n));
    for (size_t b = 0; b + 1 < lo.size(); ++b)
        std::fill(block.begin() + lo[b], block.begin() + lo[b + 1], static_cast<int32_t>(b));
    return block;
}

/// Everything the vector passes need, from the block boundaries and the computed values.
/// Values are indexed like rows: value p = lo[b] + j is the j-th largest of block b.
struct Plan {
    std::vector<int64_t> lo;           // blocks + 1 boundaries
    std::vector<int32_t> block;        // n: block of value p
    std::vector<int64_t> pos;          // n: output column of value p (descending order overall)
    std::vector<int64_t> group_first;  // groups of >= 2 close values: first value p, size
    std::vector<int32_t> group_size;
    std::vector<int32_t> group_lu;  // refine by inverse iteration (1) or Gram-Schmidt only (0)
    // Zero values: the null vectors of odd pieces of T (slots [first, last]) for u and v ...
    std::vector<int64_t> zero_value, null_u_first, null_u_last, null_v_first, null_v_last;
    // ... or, where the pieces do not match the count (values below bisection's floor without a
    // zero d), an orthonormal completion of the block.
    std::vector<int64_t> zero_blocks;
    int64_t max_block = 0;  // rows of the largest block
};

/// t: the scaled Golub-Kahan off-diagonals (2n - 1), sig: the values of each block (descending
/// within it), lo: split_points.
template <class T>
Plan make_plan(int64_t n, const T *t, const T *sig, std::vector<int64_t> lo) {
    Plan p;
    p.lo = std::move(lo);
    const int64_t nb = static_cast<int64_t>(p.lo.size()) - 1;
    for (int64_t b = 0; b < nb; ++b) {
        const int64_t r0 = p.lo[size_t(b)], r1 = p.lo[size_t(b + 1)];
        p.max_block = std::max(p.max_block, r1 - r0);
        T tn = T(0);
        for (int64_t k = 2 * r0; k < 2 * r1 - 1; ++k) tn = std::max(tn, std::fabs(t[k]));
        const T abs_gap = tn / T(kAbsGapDiv * (r1 - r0));
        bool has_zero = false;
        int64_t first = r0;
        for (int64_t q = r0; q < r1; ++q) {
            has_zero |= sig[q] == T(0);
            const bool joins = q + 1 < r1 && sig[q + 1] > T(0) && sig[q] - sig[q + 1] < abs_gap &&
                               sig[q] - sig[q + 1] < T(kRelGap) * sig[q];
            if (!joins) {
                if (q > first) {
                    // Distance to every value outside the group (and to the mirrors -sigma).
                    T gap = T(2) * sig[q];
                    if (first > r0) gap = std::min(gap, sig[first - 1] - sig[first]);
                    if (q + 1 < r1) gap = std::min(gap, sig[q] - sig[q + 1]);
                    T rel = T(1);  // smallest relative gap inside
                    for (int64_t i = first; i < q; ++i)
                        rel = std::min(rel, (sig[i] - sig[i + 1]) / sig[i]);
                    p.group_lu.push_back(rel < T(kLuRel) * Real<T>::eps() &&
                                                 gap > T(kLuGap) * Real<T>::eps() * tn
                                             ? 1
                                             : 0);
                    p.group_first.push_back(first);
                    p.group_size.push_back(static_cast<int32_t>(q - first + 1));
                }
                first = q + 1;
            }
        }
        if (has_zero) pair_null_vectors(p, t, sig, b, r0, r1);
    }
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), int64_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return sig[a] > sig[b]; });
    p.pos.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) p.pos[size_t(order[size_t(i)])] = i;
    return p;
}

/// Zero values of block b (rows [r0, r1)): the odd pieces of its T between zero entries of t,
/// u pieces (starting at an odd slot) and v pieces (even) paired in order with its zero values.
template <class T>
void pair_null_vectors(Plan &p, const T *t, const T *sig, int64_t b, int64_t r0, int64_t r1) {
    std::vector<int64_t> zeros, ua, ub, va, vb;
    for (int64_t q = r0; q < r1; ++q)
        if (sig[q] == T(0)) zeros.push_back(q);
    int64_t a = 2 * r0;
    for (int64_t k = 2 * r0; k < 2 * r1; ++k) {
        if (k + 1 < 2 * r1 && t[k] != T(0)) continue;  // slot k joins k + 1
        if ((k - a) % 2 == 0) {                        // odd order: a zero eigenvalue
            (a & 1 ? ua : va).push_back(a);
            (a & 1 ? ub : vb).push_back(k);
        }
        a = k + 1;
    }
    if (ua.size() != zeros.size() || va.size() != zeros.size()) {
        p.zero_blocks.push_back(b);
        return;
    }
    for (size_t i = 0; i < zeros.size(); ++i) {
        p.zero_value.push_back(zeros[i]);
        p.null_u_first.push_back(ua[i]), p.null_u_last.push_back(ub[i]);
        p.null_v_first.push_back(va[i]), p.null_v_last.push_back(vb[i]);
    }
}

}  // namespace bd
}  // namespace kernels
}  // namespace gpusvd
