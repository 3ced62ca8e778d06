// The blocked one-sided Jacobi for one large matrix: sizes, workspace layout and the
// block ordering. Plain C++ (no CUDA): the host tests check the ordering and the layout.
//
// The working matrix W (rows x cols, rows >= cols: A or A^T, with the accumulated V below it) is
// cut into 2p column blocks ("slots") of nb columns, the last padded with zero columns. A round
// pairs slot 2k with 2k + 1 (k < p): one strided-batched GEMM forms every pair's Gram matrix
// (or, split, partial Gram matrices of row chunks that the next kernel sums), one kernel
// diagonalises each (gram_jacobi) and one batched GEMM applies each pair's rotation
// to its 2nb columns, writing the two halves of the result to the slots the pair's blocks move
// to for the next round (blocked_next_slot). So every round's pairs are adjacent in memory, and
// after the 2p - 1 rounds of a sweep every block pair has met once and each block is back in its
// starting slot. Zero (padding) columns have zero inner products with everything: never rotated,
// they stay zero and end in the padded slots.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/jacobi_types.hpp"

namespace gpusvd {
namespace gpu {

struct BlockedPlan {
    kernels::JacobiShape shape{};  // rows, voff, vrows, ld of W; shape.cols = the real columns
    int nb = 0;                    // columns per block
    int nblocks = 0;               // 2p
    int64_t cols_padded = 0;       // nblocks * nb
    int inner_threads = 0;         // threads of the per-pair Gram kernel (a block per pair)
    int inner_sweeps = 0;          // cap on gram_jacobi's sweeps per round
    int gram_split = 1;            // row chunks of the Gram GEMM (partial Grams, summed per pair)
    // Workspace layout, in bytes from the base (each offset 256-byte aligned).
    size_t off_w[2] = {0, 0}, off_gram = 0, off_rot = 0, off_ptr = 0, off_gptr = 0, off_norm = 0,
           off_ctl = 0;
    size_t bytes = 0;
};

/// Control words of one call in device memory: the sweep's counters and the scaling's inputs.
/// The first kSweepBytes are reset before every sweep.
struct BlockedControl {
    unsigned long long off_bits;   // largest |cos| of the sweep (bits of a non-negative double)
    int rotated;                   // pairs rotated in the sweep
    int nonfinite;                 // A holds NaN or Inf
    unsigned long long amax_bits;  // max |a_ij| (bits of a non-negative double)
    // The graph path's sweep loop, decided on the device (blocked_sweep_end).
    int sweeps;                    // sweeps done
    int cont;                      // another sweep is needed and allowed
    int converged;                 // the last sweep rotated nothing
    unsigned long long off_last;   // off_bits of the last sweep
    static constexpr size_t kSweepBytes = sizeof(unsigned long long) + sizeof(int);
};

/// Slot a block in `slot` moves to for the next round (circle method: slot 0 stays, the other
/// 2p - 1 slots form a ring top_1..top_{p-1}, bottom_{p-1}..bottom_0 that turns by one place).
/// Pair k of a round is slots (2k, 2k + 1).
GPUSVD_HD int blocked_next_slot(int slot, int nblocks) {
    const int p = nblocks / 2, ring = nblocks - 1;
    if (slot == 0 || ring <= 1) return slot;
    const int i = (slot % 2 == 0) ? slot / 2 - 1 : 2 * p - 2 - slot / 2;  // ring index
    const int j = i + 1 == ring ? 0 : i + 1;
    return j <= p - 2 ? 2 * (j + 1) : 2 * (2 * p - 2 - j) + 1;
}

/// The Gram GEMM's thread blocks wanted per round: with fewer pairs than this it splits the
/// rows (at n = 1024, one CTA for each of 32 pairs leaves most SMs idle for much of a round).
constexpr int64_t kBlockedGramCtas = 256;
constexpr int kBlockedMaxGramSplit = 8;
constexpr int64_t kBlockedMinGramChunk = 128;  // rows per chunk, at least

inline size_t blocked_align(size_t b) {
    return (b + 255) / 256 * 256;
}

/// Plans an m x n problem of `elem`-byte reals. nb_override > 0 (tests, tuning) replaces the
/// block width (rounded to a multiple of 8, at most 32).
inline BlockedPlan blocked_plan(size_t elem, bool wantu, bool wantv, int64_t m, int64_t n,
                                int nb_override = 0) {
    BlockedPlan pl;
    // 32-element alignment keeps every column of W on 128-byte (float) or 256-byte (double)
    // boundaries for the GEMMs.
    pl.shape = kernels::jacobi_shape(m, n, wantu, wantv, 32);
    const int64_t k = pl.shape.cols;
    // Wider blocks make each round's GEMMs more efficient (their depth is 2nb) and a sweep
    // shorter (2p - 1 rounds); narrower ones keep more pairs, one thread block each, in flight.
    int nb = k <= 1024 ? 16 : 32;
    if (nb_override > 0) nb = nb_override < 8 ? 8 : nb_override > 32 ? 32 : nb_override / 8 * 8;
    int64_t blocks = (k + nb - 1) / nb;
    blocks += blocks & 1;
    if (blocks < 2) blocks = 2;
    pl.nb = nb;
    pl.nblocks = static_cast<int>(blocks);
    pl.cols_padded = blocks * nb;
    // At 2nb = 32, 512 threads per pair block measured faster on sm_90 than 128 or 256.
    pl.inner_threads = nb >= 32 ? 256 : 512;
    // One inner sweep per round: the outer sweeps converge the pairs anyway, and the inner
    // sweeps are sequential latency (each extra one measured slower on sm_90).
    pl.inner_sweeps = 1;
    const size_t n2 = 2 * static_cast<size_t>(nb);
    const size_t p = static_cast<size_t>(blocks / 2);
    // Equal chunks of the A part's voff rows (a multiple of 32; the padding rows are zero). Float
    // only (for double the split measured no faster on sm_90): cuBLAS's strided DGEMM already
    // keeps the SMs busy there.
    const int64_t tiles = pl.shape.voff / 32;
    while (elem <= 4 && pl.gram_split < kBlockedMaxGramSplit &&
           static_cast<int64_t>(p) * pl.gram_split < kBlockedGramCtas &&
           tiles % (2 * pl.gram_split) == 0 &&
           pl.shape.voff / (2 * pl.gram_split) >= kBlockedMinGramChunk)
        pl.gram_split *= 2;
    const size_t split = static_cast<size_t>(pl.gram_split);
    size_t wbytes;
    if (__builtin_mul_overflow(elem * static_cast<size_t>(pl.shape.ld),
                               static_cast<size_t>(pl.cols_padded), &wbytes) ||
        wbytes > SIZE_MAX / 4) {
        pl.bytes = SIZE_MAX;  // no device has it: the workspace request fails cleanly
        return pl;
    }
    wbytes = blocked_align(wbytes);
    size_t at = 0;
    pl.off_w[0] = at, at += wbytes;
    pl.off_w[1] = at, at += wbytes;
    pl.off_gram = at, at += blocked_align(elem * n2 * n2 * p * split);
    pl.off_rot = at, at += blocked_align(elem * n2 * n2 * p);
    pl.off_ptr = at, at += blocked_align(sizeof(void *) * 3 * 2 * static_cast<size_t>(blocks));
    pl.off_gptr = at, at += blocked_align(sizeof(void *) * 3 * p * split);
    // norm, dot (T) and pos (int) of the finish, as jacobi_work lays them out after W.
    pl.off_norm = at, at += blocked_align((2 * elem + sizeof(int)) * static_cast<size_t>(k));
    pl.off_ctl = at, at += blocked_align(sizeof(BlockedControl));
    pl.bytes = at;
    return pl;
}

}  // namespace gpu
}  // namespace gpusvd
