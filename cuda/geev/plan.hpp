// Which geev kernel runs a problem, with how many threads and how much shared memory or
// workspace. Plain C++ (no CUDA) so the host tests can check it.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include "common/occupancy.hpp"

namespace gpusvd {
namespace gpu {

/// One warp-path kernel's launch: `team` lanes per matrix, each matrix in its own matrix_bytes
/// of shared memory, mats_per_block matrices per block.
struct GeevWarpShape {
    int team = 32;
    int threads = 0;
    int mats_per_block = 0;
    size_t matrix_bytes = 0;
    size_t smem_bytes = 0;
    int64_t grid = 0;
};

struct GeevPlan {
    enum Path {
        kNothing,  // n = 0 or batch = 0: only info (zeros) is written
        kWarp,     // a warp per matrix, mats_per_block matrices per block, in shared memory
        kBlock,    // a block per matrix, in shared memory
        kGlobal,   // a block per matrix, in place in A and VR plus a workspace slot (any n)
    } path = kNothing;
    int threads = 0;          // per block
    int team = 32;            // kWarp: lanes per matrix (8, 16 or 32), 32 / team matrices a warp
    int mats_per_block = 1;   // kWarp
    int ld = 0;               // leading dimension of H and Z in shared memory
    size_t matrix_bytes = 0;  // one matrix's shared memory (kWarp, kBlock) or workspace slot
    size_t smem_bytes = 0;    // dynamic shared memory per block
    int64_t grid = 0;
    size_t ws_bytes = 0;  // device workspace (kGlobal)
    // kWarp without vectors, two kernels (src/kernels/geev_band.hpp) in place of the one above:
    // the reduction to Hessenberg form, then the QR iteration on band storage.
    bool band = false;
    GeevWarpShape reduce, qr;
    // kWarp with vectors: Z is the user's VR in global memory, not in shared memory (matrix_bytes
    // then holds H and the vectors of geev_shared_elems without vectors).
    bool z_global = false;
};

constexpr int kGeevWarpMaxN = 64;                   // a warp's lanes cover two rows' worth at most
constexpr int64_t kGeevMaxGrid = int64_t(1) << 20;  // blocks loop over the rest of the batch
constexpr int64_t kGeevGlobalMaxBlocks = 1024;      // bounds the workspace of the global path
constexpr size_t kGeevReservedSmem = 1024;          // per block, taken by the system on sm_80+
constexpr size_t kGeevScratchBytes = 32 * sizeof(double);  // BlockTeam's static reduction slots

/// Odd leading dimension: a warp walking a row of H (lanes on consecutive columns) hits
/// distinct banks.
inline int geev_shared_ld(int64_t n) {
    return static_cast<int>(n | 1);
}

/// Elements of one matrix's shared working set: H and Z (n x ld), wr, wi, scale (n each) and
/// the 3n work vector.
inline size_t geev_shared_elems(bool wantvr, int64_t n) {
    const size_t nn = static_cast<size_t>(n), ld = static_cast<size_t>(geev_shared_ld(n));
    return (wantvr ? 2 : 1) * nn * ld + 6 * nn;
}

/// Lanes per matrix of the warp path. A team's scalar work (shifts, reflectors, deflation
/// tests) costs the same instructions for 8 lanes as for 32, so small matrices share a warp:
/// its groups then diverge (each its own iteration), which the sm_70+ scheduler interleaves.
/// Past these sizes the narrower teams' longer row loops and fewer resident warps (a warp's
/// matrices share its shared memory slice) cost more than they save.
/// Values only, every team runs the QR on band storage (geev_use_band); 8 lanes measured faster
/// than 16 on sm_90 up to n = 29 in double and n = 32 in float. At 30x30 double the band leaves
/// room for 12 warps of four matrices per SM, too few to hide the QR's latencies; float's
/// half-size band fits 22. With vectors the 8-lane kernel measured faster than 32 lanes up to
/// n = 30 in double.
/// Complex elements (either precision) take their own widths, measured on sm_90 at n = 8..64:
/// without vectors 8 lanes up to n = 30 (band QR), then 32 (16 lanes was never the fastest);
/// with vectors (Z in the caller's VR, see geev_plan) 8 lanes up to n = 24, 16 up to 32, then
/// 32. The element's bytes do not predict them: complex float, sized as real double, measured
/// fastest with 8 lanes at n = 30 without vectors (real double: 16) and 16 with vectors (8).
constexpr int64_t kGeevTeam8MaxNComplex = 30;
constexpr int64_t kGeevTeam8MaxNComplexVectors = 24;
constexpr int64_t kGeevTeam16MaxNComplexVectors = 32;
constexpr int64_t kGeevTeam8MaxNDouble = 29;
inline int geev_team_width(size_t elem, bool cplx, bool wantvr, int64_t n) {
    if (cplx) {
        if (!wantvr) return n <= kGeevTeam8MaxNComplex ? 8 : 32;
        return n <= kGeevTeam8MaxNComplexVectors ? 8 : n <= kGeevTeam16MaxNComplexVectors ? 16 : 32;
    }
    if (wantvr) return n <= 30 ? 8 : (elem <= 4 && n <= 32) ? 16 : 32;
    if (n <= (elem <= 4 ? 32 : kGeevTeam8MaxNDouble)) return 8;
    return n <= 32 ? 16 : 32;
}

inline size_t geev_sat_mul(size_t a, size_t b) {
    size_t r;
    return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

/// Shared memory of one matrix's band storage (geev_band.hpp's BandMat: n(n+7)/2 entries).
inline size_t geev_band_bytes(size_t elem, int64_t n) {
    return (static_cast<size_t>(n) * static_cast<size_t>(n + 7) / 2 * elem + 15) / 16 * 16;
}

/// Shared memory of one matrix in the band path's stage 1: H (n x ld), the balancing scales and
/// the Householder scalars (n each); wr and wi are the caller's arrays there (cuda/geev/geev.cu).
/// 11% less than geev_shared_elems at 30x30 double: 14 warps of two matrices per SM, not 12.
inline size_t geev_reduce_bytes(size_t elem, int64_t n) {
    const size_t nn = static_cast<size_t>(n);
    return ((nn * static_cast<size_t>(geev_shared_ld(n)) + 2 * nn) * elem + 15) / 16 * 16;
}

/// The warp-path launch of a kernel with `team`-lane teams and matrix_bytes per matrix: as many
/// warps per block as maximise the warps resident on an SM (see geev_plan).
inline GeevWarpShape geev_warp_shape(int team, size_t matrix_bytes, int64_t batch,
                                     size_t smem_block, size_t smem_sm, int max_threads) {
    GeevWarpShape s;
    s.team = team;
    s.matrix_bytes = matrix_bytes;
    const int per_warp = 32 / team;
    const int warps = warp_mats_per_block(matrix_bytes * static_cast<size_t>(per_warp), 8,
                                          max_threads, smem_block, smem_sm, kGeevReservedSmem);
    s.mats_per_block = warps * per_warp;
    s.threads = 32 * warps;
    s.smem_bytes = matrix_bytes * static_cast<size_t>(s.mats_per_block);
    s.grid = (batch + s.mats_per_block - 1) / s.mats_per_block;
    if (s.grid > kGeevMaxGrid) s.grid = kGeevMaxGrid;
    return s;
}

/// The band path's QR a thread per matrix (geev.cu's geev_band_kernel with W = 1) keeps
/// kGeevBandInterleave matrices' bands interleaved entry by entry in each region of shared
/// memory, so a warp's threads, each at its own matrix's entry, spread over the banks: for 8-byte
/// entries two threads a bank (the minimum); for 4-byte entries a region holds an odd number of
/// entry rows (one of padding where the band's count is even), so that the warp's two
/// half-warps, in consecutive regions, never share a bank. team = 1, matrix_bytes is a region's
/// size; a block holds an even number of regions (whole warps) unless only one fits: as many
/// matrices per SM as fit (sm_threads: the kernel's resident threads per SM, which its
/// registers bound), in the smallest such blocks (a block keeps its shared memory until its
/// slowest matrix is done).
constexpr int kGeevBandInterleave = 16;

inline GeevWarpShape geev_thread_shape(size_t elem, int64_t n, int64_t batch, size_t smem_block,
                                       size_t smem_sm, int max_threads, int sm_threads = 2048) {
    GeevWarpShape s;
    s.team = 1;
    size_t rows = static_cast<size_t>(n) * static_cast<size_t>(n + 7) / 2;
    if (elem <= 4 && rows % 2 == 0) ++rows;
    s.matrix_bytes = rows * elem * static_cast<size_t>(kGeevBandInterleave);
    int best = 1;
    int64_t best_mats = 0;
    const int step = 2 * s.matrix_bytes <= smem_block ? 2 : 1;
    for (int r = step; r * kGeevBandInterleave <= max_threads; r += step) {
        const size_t bytes = s.matrix_bytes * static_cast<size_t>(r);
        if (bytes > smem_block) break;
        int64_t blocks = static_cast<int64_t>(smem_sm / (bytes + kGeevReservedSmem));
        if (blocks > 32) blocks = 32;  // an SM's block limit (sm_80, sm_90)
        const int64_t by_threads = sm_threads / (r * kGeevBandInterleave);
        if (blocks > by_threads) blocks = by_threads;
        const int64_t mats = blocks * r * kGeevBandInterleave;
        if (mats > best_mats) best_mats = mats, best = r;
    }
    s.mats_per_block = best * kGeevBandInterleave;
    s.threads = s.mats_per_block;
    s.smem_bytes = s.matrix_bytes * static_cast<size_t>(best);
    s.grid = (batch + s.mats_per_block - 1) / s.mats_per_block;
    if (s.grid > kGeevMaxGrid) s.grid = kGeevMaxGrid;
    return s;
}

/// Small n (values only, 8-lane teams): the band path's QR a thread per matrix
/// (geev_thread_shape), measured faster on sm_90 than the 8-lane team up to n = 15 in double
/// and n = 19 in float. Past these sizes the bands leave too few warps per SM to hide a lone
/// thread's latencies (30x30 double: 1.5 warps).
constexpr int64_t kGeevSmallMaxNDouble = 15;
constexpr int64_t kGeevSmallMaxNFloat = 19;

inline bool geev_small_n(size_t elem, int64_t n) {
    return n <= (elem <= 4 ? kGeevSmallMaxNFloat : kGeevSmallMaxNDouble);
}

/// The band path's stage 1 lanes for 8-lane teams: 8 up to these n, else 16 (8 measured faster
/// on sm_90 up to n = 20 in double and n = 25 in float; 16 above).
constexpr int64_t kGeevReduce8MaxNDouble = 20;
constexpr int64_t kGeevReduce8MaxNFloat = 25;

/// Whether the band path's QR runs a thread per matrix: small n (with 8-lane teams), or as
/// forced (qr_thread: 0 off, 1 on where its shared memory fits; -1 default).
inline bool geev_use_qr_thread(size_t elem, int64_t n, int team, int qr_thread) {
    if (qr_thread == 0) return false;
    return qr_thread == 1 || (team == 8 && geev_small_n(elem, n));
}

/// Whether values-only warp-path problems take the two band kernels: by default with 8 lanes
/// from n = kGeevBandMinN and with 16 or 32 lanes from n = 16 (the QR is latency-bound and the
/// band's smaller footprint gives it about twice the resident matrices: measured faster than
/// the one-kernel path on sm_90 for every team width at the sizes it serves), or as forced
/// (band: 0 off, 1 on for n >= 3; -1 default).
constexpr int64_t kGeevBandMinN = 3;  // stage 1 hands five scalars over in wr and wi

inline bool geev_use_band(bool wantvr, int64_t n, int team, int band) {
    if (wantvr || n < kGeevBandMinN || band == 0) return false;
    return band == 1 || team == 8 || n >= 16;
}

/// smem_block: the opt-in shared memory limit per block; smem_sm: shared memory per SM;
/// max_threads: the kernel's limit per block (registers). The warp path takes as many warps per
/// block as maximise the warps resident on an SM (ties: fewer, as a block holds its shared
/// memory until its slowest matrix is done). team: lanes per matrix (0: geev_team_width);
/// band: see geev_use_band; reduce_team: the band path's stage 1 lanes (8, 16 or 32; else the
/// team's, for 8-lane teams 8 up to kGeevReduce8MaxN* and 16 above); qr_thread: see
/// geev_use_qr_thread; thread_sm_threads: see geev_thread_shape; z_global: where the warp path
/// with vectors keeps Z (GeevPlan::z_global): 1 in the user's VR, 0 in shared memory, -1 by
/// element type. Complex elements keep it in VR: the halved shared-memory working set fits about
/// twice the matrices per SM, which measured faster on sm_90 from n = 12 at the widths
/// geev_team_width picks (level at n = 8); real double measured slower with Z in VR (n = 30), so
/// real types keep Z in shared memory.
inline GeevPlan geev_plan(size_t elem, bool cplx, bool wantvr, int64_t n, int64_t batch,
                          size_t smem_block, size_t smem_sm, int max_threads, int team = 0,
                          int band = -1, int reduce_team = 0, int qr_thread = -1,
                          int thread_sm_threads = 2048, int z_global = -1) {
    GeevPlan p;
    if (n <= 0 || batch <= 0) return p;
    const size_t small =
        n <= INT_MAX / 2 ? geev_sat_mul(geev_shared_elems(wantvr, n), elem) : SIZE_MAX;
    if (n <= kGeevWarpMaxN && small <= smem_block) {
        p.path = GeevPlan::kWarp;
        p.z_global = wantvr && (z_global == 1 || (z_global == -1 && cplx));
        const size_t working = p.z_global ? geev_shared_elems(false, n) * elem : small;
        p.team =
            team == 8 || team == 16 || team == 32 ? team : geev_team_width(elem, cplx, wantvr, n);
        p.ld = geev_shared_ld(n);
        p.matrix_bytes = (working + 15) / 16 * 16;
        if (p.matrix_bytes * static_cast<size_t>(32 / p.team) > smem_block) p.team = 32;
        const GeevWarpShape one =
            geev_warp_shape(p.team, p.matrix_bytes, batch, smem_block, smem_sm, max_threads);
        p.mats_per_block = one.mats_per_block;
        p.threads = one.threads;
        p.smem_bytes = one.smem_bytes;
        p.grid = one.grid;
        if (geev_use_band(wantvr, n, p.team, band)) {
            p.band = true;
            const int rt = reduce_team == 8 || reduce_team == 16 || reduce_team == 32 ? reduce_team
                           : p.team != 8                                              ? p.team
                           : n <= (elem <= 4 ? kGeevReduce8MaxNFloat : kGeevReduce8MaxNDouble) ? 8
                                                                                               : 16;
            p.reduce = geev_warp_shape(rt, geev_reduce_bytes(elem, n), batch, smem_block, smem_sm,
                                       max_threads);
            // A narrower forced stage-1 team puts more matrices in a warp than a block may hold:
            // the team's own width fits, since stage 1 needs less than the one-kernel path.
            if (p.reduce.smem_bytes > smem_block)
                p.reduce = geev_warp_shape(p.team, geev_reduce_bytes(elem, n), batch, smem_block,
                                           smem_sm, max_threads);
            p.qr = geev_warp_shape(p.team, geev_band_bytes(elem, n), batch, smem_block, smem_sm,
                                   max_threads);
            if (geev_use_qr_thread(elem, n, p.team, qr_thread)) {
                const GeevWarpShape thread = geev_thread_shape(elem, n, batch, smem_block, smem_sm,
                                                               max_threads, thread_sm_threads);
                if (thread.smem_bytes <= smem_block) p.qr = thread;
            }
        }
    } else if (small <= smem_block - kGeevScratchBytes) {
        p.path = GeevPlan::kBlock;
        p.ld = geev_shared_ld(n);
        p.matrix_bytes = p.smem_bytes = small;
        p.threads = n <= 128 ? 128 : 256;
        p.grid = batch;
    } else {
        p.path = GeevPlan::kGlobal;
        p.threads = 256;
        p.grid = batch < kGeevGlobalMaxBlocks ? batch : kGeevGlobalMaxBlocks;
        p.matrix_bytes = geev_sat_mul(4 * static_cast<size_t>(n), elem);  // scale, work
        p.ws_bytes = geev_sat_mul(p.matrix_bytes, static_cast<size_t>(p.grid));
    }
    if (p.threads > max_threads) p.threads = max_threads / 32 * 32;
    if (p.grid > kGeevMaxGrid) p.grid = kGeevMaxGrid;
    return p;
}

}  // namespace gpu
}  // namespace gpusvd
