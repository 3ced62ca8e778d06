// The accumulated rotations of a 64 x 64 Gram solve (gram_jacobi, src/kernels/jacobi_gram.hpp)
// held in registers instead of shared memory, for a block of kThreads threads: lane k of every
// warp holds, for each of the warp's rows of V, V's entries in the two columns of pair k. A
// round then turns V by register arithmetic alone, without V's shared-memory loads and stores
// (two thirds of the update pass's items otherwise), and both orderings move a column from one
// round to the next only between neighbouring pairs, so one to three warp shuffles a row bring
// every lane its next columns.
#pragma once

#include "kernels/jacobi_gram.hpp"

namespace gpusvd {
namespace gpu {

/// V of gram_jacobi for real data (complex data keep V in shared memory: here it would take
/// twice the registers), 2nb = 64 (32 pairs: a lane each) and blocks of kThreads threads. Lane k
/// holds, in round r, the columns of pair k: with the cross ordering column k (x) and
/// 32 + (k + r) mod 32 (y); with the round-robin one the players at positions k (x) and 63 - k
/// (y) of round_robin_player. After a whole number of sweeps (the only way gram_jacobi returns)
/// the columns are those of round 0: x = column k, y = column 32 + k (cross) or 63 - k.
template <class T, int kThreads>
struct GramRegisterV {
    static constexpr int kN2 = 64, kRows = kN2 / (kThreads / 32);
    static_assert(!kernels::kIsComplex<T>, "real data only");
    static_assert(kThreads % 32 == 0 && kN2 % (kThreads / 32) == 0, "whole rows per warp");
    bool cross;  // the solve's ordering
    T x[kRows], y[kRows];  // rows row0 + i of the lane's two columns

    __device__ explicit GramRegisterV(bool cross_ordering) : cross(cross_ordering) {}
    __device__ int lane() const { return threadIdx.x & 31; }
    __device__ int row0() const { return (threadIdx.x >> 5) * kRows; }

    template <class Team>
    __device__ void init(const Team &, int) {
        const int k = lane(), r0 = row0(), ycol = cross ? 32 + k : 63 - k;
#pragma unroll
        for (int i = 0; i < kRows; ++i) {
            x[i] = r0 + i == k ? T(1) : T(0);
            y[i] = r0 + i == ycol ? T(1) : T(0);
        }
    }
    __device__ int items(int) const { return 0; }
    __device__ void item(int, int, int, int, bool, const T *, const T *, const T *) const {}

    /// Turns the lane's columns by pair k's rotation of this round, then fetches the next
    /// round's columns from the neighbouring lanes.
    template <class Team>
    __device__ void after_round(const Team &, int round, int, bool, const T *rs,
                                const T *rtau, const T *) {
        const int k = lane();
        const T s = rs[k], tau = rtau[k], e = T(1);  // e: the phase, 1 for real data
        // x is the pair's p (the smaller column) except where the round-robin places the
        // larger player at position k.
        const bool x_is_p = cross || kernels::round_robin_player(k, round, kN2) <
                                         kernels::round_robin_player(kN2 - 1 - k, round, kN2);
        if (s != T(0)) {
            if (x_is_p) {
#pragma unroll
                for (int i = 0; i < kRows; ++i) kernels::gram_turn(x[i], y[i], s, tau, e);
            } else {
#pragma unroll
                for (int i = 0; i < kRows; ++i) kernels::gram_turn(y[i], x[i], s, tau, e);
            }
        }
        if (cross) {
            // next round: column 32 + (k + r + 1) mod 32, lane k + 1's this round
#pragma unroll
            for (int i = 0; i < kRows; ++i) y[i] = __shfl_sync(0xffffffffu, y[i], (k + 1) & 31);
            return;
        }
        // Circle method: position 0 stays; position j >= 1 takes position j + 1's player,
        // position 63 position 1's. Position k (x) is lane k + 1's x, or lane 31's own y (32);
        // position 63 - k (y) is lane k - 1's y, or lane 1's x for lane 0.
#pragma unroll
        for (int i = 0; i < kRows; ++i) {
            const T up = __shfl_sync(0xffffffffu, x[i], (k + 1) & 31),
                    down = __shfl_sync(0xffffffffu, y[i], (k + 31) & 31),
                    first = __shfl_sync(0xffffffffu, x[i], 1);
            const T nx = k == 0 ? x[i] : k == 31 ? y[i] : up;
            y[i] = k == 0 ? first : down;
            x[i] = nx;
        }
    }

    /// V (n2 x n2, column-major, leading dimension 64) to global memory at v, through the
    /// team-shared `stage` (64 x 65 values, an odd leading dimension so that a warp's column
    /// writes spread over the banks) so that the global stores are coalesced.
    template <class Team>
    __device__ void store(const Team &t, T *stage, T *v) const {
        constexpr int ld = kN2 + 1;
        const int k = lane(), r0 = row0(), ycol = cross ? 32 + k : 63 - k;
#pragma unroll
        for (int i = 0; i < kRows; ++i) {
            stage[r0 + i + k * ld] = x[i];
            stage[r0 + i + ycol * ld] = y[i];
        }
        t.sync();
        for (int idx = t.rank(); idx < kN2 * kN2; idx += t.size())
            v[idx] = stage[idx % kN2 + idx / kN2 * ld];
    }
};

}  // namespace gpu
}  // namespace gpusvd
