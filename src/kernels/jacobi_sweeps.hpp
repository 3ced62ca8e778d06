// One-sided Jacobi SVD (team code): sweeps of parallel rounds until a sweep rotates nothing.
#pragma once

#include "kernels/jacobi_rotate.hpp"

namespace gpusvd {
namespace kernels {

template <class T>
struct SweepResult {
    int sweeps;
    RealOf<T> off;  // largest |cos| of the last sweep
    bool converged;
};

/// Sweeps over w (scaled, V part initialised) until one rotates no pair or max_sweeps ran. One
/// sweep is the N-1 rounds of the round-robin ordering; the pairs of a round are disjoint, so
/// the groups rotate them concurrently and only the round boundary needs a team sync. Slots:
/// RuntimeSlots, or FixedSlots<NA, NV> over zero-padded storage.
template <class T, class I, int CAP, class Slots = RuntimeSlots, class Team, class PairTeam>
GPUSVD_HD SweepResult<T> jacobi_sweeps(const Team &t, const PairTeam &pt, const JacobiWork<T, I> &w,
                                       RealOf<T> tol, int max_sweeps) {
    const int groups = t.size() / pt.size(), g = t.rank() / pt.size();
    const int N = w.cols + (w.cols & 1);
    const int npairs = N / 2;
    const auto ps = Slots::make(w.rows, w.voff, w.vrows, pt.size(), pt.rank(), g);
    const I na = ps.a_slots(), nv = ps.v_slots();
    // Slot starts of pair k: k mod na (and k mod nv), stepped along as k grows by `groups`.
    const I sa0 = na > 0 ? static_cast<I>(g) % na : 0, da = na > 0 ? groups % na : 0;
    const I sv0 = nv > 0 ? static_cast<I>(g) % nv : 0, dv = nv > 0 ? groups % nv : 0;
    SweepResult<T> res{0, RealOf<T>(0), false};
    while (res.sweeps < max_sweeps) {
        ++res.sweeps;
        RealOf<T> off = RealOf<T>(0);
        int rotated = 0;
        for (int round = 0; round < N - 1; ++round) {
            I sa = sa0, sv = sv0;
            for (int base = 0; base < npairs; base += groups) {
                const int k = base + g;
                int p = 0, q = 0;
                const bool active = k < npairs && round_robin_pair(k, round, w.cols, p, q);
                jacobi_pair<T, I, CAP>(pt, active, w.w + static_cast<I>(p) * w.ld,
                                       w.w + static_cast<I>(q) * w.ld, ps, sa, sv, tol, off,
                                       rotated);
                sa += da;
                if (sa >= na) sa -= na;
                sv += dv;
                if (sv >= nv) sv -= nv;
            }
            t.sync();
        }
        res.off = t.max(off);
        if (t.max(rotated) == 0) {
            res.converged = true;
            break;
        }
    }
    return res;
}

}  // namespace kernels
}  // namespace gpusvd
