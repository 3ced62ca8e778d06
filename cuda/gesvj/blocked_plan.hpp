// The blocked one-sided Jacobi for one large matrix or a batch of them: sizes, workspace layout,
// the block ordering and the per-sweep schedule of a batch. Plain C++ (no CUDA): the host tests
// check the ordering, the layout and the schedule.
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
//
// A batch keeps each matrix's W one after the other (mat_elems apart), so the pairs of all
// matrices are equally spaced too: a round is still three launches for the whole batch. The
// matrices still sweeping are listed (blocked_schedule): the Gram solve and the GEMMs of a
// round run over the listed ones only, a matrix that has converged (its sweep rotated nothing,
// or the full Gram tested after it showed that the next would not: blocked_check_near), ran out
// of sweeps or holds NaN/Inf drops out of the list and keeps its W, in the copy it ended in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

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
    bool check = true;             // the full-Gram test after a sweep (blocked_check_near)
    bool own_update = true;        // blocked_update where it applies (sm_80+), else cuBLAS's GEMM
    int64_t batch = 1;             // matrices the layout holds (a call's chunk of its batch)
    int64_t mat_elems = 0;         // ld * cols_padded: one matrix's W
    // Workspace layout, in bytes from the base (each offset 256-byte aligned).
    size_t off_w[2] = {0, 0}, off_gram = 0, off_rot = 0, off_ptr = 0, off_gptr = 0, off_norm = 0,
           off_list = 0, off_ctl = 0, off_loop = 0;
    size_t bytes = 0;
};

/// Control words of one matrix in device memory: the sweep's counters, the scaling's inputs and
/// the matrix's place in the sweep loop.
struct BlockedControl {
    unsigned long long off_bits;   // largest |cos| of the sweep (bits of a non-negative double)
    int rotated;                   // pairs rotated in the sweep
    int nonfinite;                 // A holds NaN or Inf
    unsigned long long amax_bits;  // max |a_ij| (bits of a non-negative double)
    int sweeps;                    // sweeps done
    int converged;                 // the last sweep rotated nothing, or the full Gram then passed
    unsigned long long off_last;   // off_bits of the last sweep
    int done;                      // out of the sweep loop (converged, out of sweeps, NaN/Inf)
    int copy;                      // the copy of W that holds the matrix
    unsigned long long check_bits;  // largest |cos| of the full Gram after the sweep (bits)
    int checked;                    // the full Gram was tested after the sweep
};

/// The sweep loop of the whole chunk (blocked_schedule's totals).
struct BlockedLoop {
    int active;  // matrices listed for the next sweep
    int cont;    // another sweep is needed (active > 0)
    int sweeps;  // sweeps run
};

/// The double whose bits a control word holds.
GPUSVD_HD double blocked_bits_value(unsigned long long bits) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(static_cast<long long>(bits));
#else
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
#endif
}

/// The sweep that ends the loop rotates nothing, yet costs as much as any other: every round's
/// Gram blocks, solves and (identity) updates. Instead, after a sweep that rotated, a matrix
/// whose largest |cos| was already below `near` gets its full Gram tested (check_kernel): if no
/// column pair's |cos| exceeds tol, that sweep would have rotated nothing, and the matrix has
/// converged now. Convergence is quadratic by then: after a sweep whose largest |cos| is c, the
/// full Gram's is at most about c^2 / 4 (a model of the sweeps on random and graded 128 x 128
/// matrices), so the test passes from about 2 sqrt(tol) down. It is tried from 4 sqrt(tol): a
/// test that fails costs a fraction of a sweep, one not tried a whole sweep.
GPUSVD_HD double blocked_check_near(double tol) {
    return 4 * kernels::Real<double>::sqrt(tol);
}

/// Whether a matrix's full Gram is tested after the sweep it just ran (see blocked_check_near).
GPUSVD_HD bool blocked_check_wanted(const BlockedControl &c, double near) {
    return !c.done && c.rotated > 0 && blocked_bits_value(c.off_bits) < near;
}

/// One matrix's step of the schedule, at the start (first) or after a sweep that ended in copy
/// end_copy: its counters into sweeps / converged / off_last and reset; whether it sweeps again.
/// A sweep converges the matrix when it rotated nothing or when the full Gram tested after it
/// has no |cos| above tol (off_last is then the test's). With all_move (the graph path, whose
/// rounds move every matrix, listed or not, and whose sweeps all end in copy end_copy) every
/// matrix's copy follows, else only the swept ones'.
GPUSVD_HD bool blocked_schedule(BlockedControl &c, int max_sweeps, int end_copy, bool all_move,
                                bool first, double tol) {
    if (first) {
        c.done = c.nonfinite != 0;
        c.copy = 0;
    } else {
        const bool swept = !c.done;
        if (swept) {
            ++c.sweeps;
            const bool orthogonal = c.checked && blocked_bits_value(c.check_bits) <= tol;
            c.converged = c.rotated == 0 || orthogonal;
            c.off_last = orthogonal ? c.check_bits : c.off_bits;
            c.done = c.converged || c.sweeps >= max_sweeps;
        }
        if (swept || all_move) c.copy = end_copy;
        c.off_bits = 0;
        c.rotated = 0;
        c.check_bits = 0;
        c.checked = 0;
    }
    return !c.done;
}

/// Element offsets of the update GEMM's operands for slot s of the matrix b at list position
/// i: its 2nb source columns in copy c, its half of the pair's rotation block, and the
/// destination (the slot the block moves to) in the other copy.
struct BlockedUpdateOffsets {
    int64_t src, rot, dst;
};
// (blocked_update_offsets, after blocked_next_slot)

/// Element offsets of chunk `chunk` (of `split`, `rows` rows each) of pair k of matrix b at list
/// position i: its rows in W (either copy) and its partial Gram block.
struct BlockedGramOffsets {
    int64_t src, gram;
};
GPUSVD_HD BlockedGramOffsets blocked_gram_offsets(int64_t ld, int nb, int nblocks,
                                                  int64_t mat_elems, int split, int64_t rows,
                                                  int64_t i, int64_t b, int k, int chunk) {
    const int64_t n2 = 2 * int64_t(nb), g = (i * (nblocks / 2) + k) * split + chunk;
    return {b * mat_elems + k * n2 * ld + chunk * rows, g * n2 * n2};
}

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

GPUSVD_HD BlockedUpdateOffsets blocked_update_offsets(int64_t ld, int nb, int nblocks,
                                                      int64_t mat_elems, int64_t i, int64_t b,
                                                      int s) {
    const int64_t n2 = 2 * int64_t(nb), k = s / 2, h = s % 2;
    return {b * mat_elems + 2 * k * nb * ld, (i * (nblocks / 2) + k) * n2 * n2 + h * nb * n2,
            b * mat_elems + int64_t(blocked_next_slot(s, nblocks)) * nb * ld};
}

/// The Gram GEMM's thread blocks wanted per round: with fewer pairs than this it splits the
/// rows (at n = 1024, one CTA for each of 32 pairs leaves most SMs idle for much of a round).
constexpr int64_t kBlockedGramCtas = 256;
constexpr int kBlockedMaxGramSplit = 8;
constexpr int64_t kBlockedMinGramChunk = 128;  // rows per chunk, at least

inline size_t blocked_align(size_t b) {
    return (b + 255) / 256 * 256;
}

/// A batched call's matrices with at least this many columns (min(m, n)) take the blocked path,
/// fewer the shared-memory and one-block kernels (gesvj.cu). Measured on an H100 with
/// GPUSVD_JACOBI_BLOCKED=0 and =1 (square double batches, U and V): the shared-memory kernel
/// still wins at 64 columns; at 96 the blocked path beats the one-block global-memory kernel
/// that takes over past shared memory, and its lead grows with n. Between 64 and 96 the two
/// were not compared.
constexpr int64_t kBlockedBatchMinCols = 96;

/// A batched call's workspace holds at most about this much of W and its companions: larger
/// batches run in equal chunks of matrices, one after the other.
constexpr size_t kBlockedBatchBudget = size_t(2) << 30;

/// Plans an m x n problem of `elem`-byte reals for `batch` matrices at once (a chunk of a call;
/// `batched`: the call is gesvj_batched, which sets the default block width). nb_override > 0
/// (tests, tuning) replaces the block width (rounded to a multiple of 8, at most 32).
inline BlockedPlan blocked_plan(size_t elem, bool wantu, bool wantv, int64_t m, int64_t n,
                                int nb_override = 0, int64_t batch = 1, bool batched = false) {
    BlockedPlan pl;
    // 32-element alignment keeps every column of W on 128-byte (float) or 256-byte (double)
    // boundaries for the GEMMs.
    pl.shape = kernels::jacobi_shape(m, n, wantu, wantv, 32);
    pl.batch = batch < 1 ? 1 : batch;
    const int64_t k = pl.shape.cols;
    // Wider blocks make each round's GEMMs more efficient (their depth is 2nb) and a sweep
    // shorter (2p - 1 rounds); narrower ones keep more pairs, one thread block each, in flight.
    // A batch has pairs enough to fill the device at any width, and every round reads and
    // writes all of its W: the widest blocks, the fewest rounds. One double matrix of 1024
    // columns is already faster with the wider blocks (measured on sm_90, where float at 1024
    // is not); below that, the narrower.
    const int64_t wide_from = elem >= 8 ? 1024 : 1025;
    int nb = batched || k >= wide_from ? 32 : 16;
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
           static_cast<int64_t>(p) * pl.batch * pl.gram_split < kBlockedGramCtas &&
           tiles % (2 * pl.gram_split) == 0 &&
           pl.shape.voff / (2 * pl.gram_split) >= kBlockedMinGramChunk)
        pl.gram_split *= 2;
    const size_t split = static_cast<size_t>(pl.gram_split);
    const size_t nmat = static_cast<size_t>(pl.batch);
    bool over = false;
    // bytes = a * b * c, saturating (the flag then fails the request cleanly)
    auto mul = [&](size_t a, size_t b, size_t c) {
        size_t r;
        if (__builtin_mul_overflow(a, b, &r) || __builtin_mul_overflow(r, c, &r) ||
            r > SIZE_MAX / 16) {
            over = true;
            return size_t(0);
        }
        return blocked_align(r);
    };
    pl.mat_elems = pl.shape.ld * pl.cols_padded;
    const size_t wbytes =
        mul(elem * static_cast<size_t>(pl.shape.ld), static_cast<size_t>(pl.cols_padded), nmat);
    size_t at = 0;
    pl.off_w[0] = at, at += wbytes;
    pl.off_w[1] = at, at += wbytes;
    pl.off_gram = at, at += mul(elem * n2 * n2, p * split, nmat);
    pl.off_rot = at, at += mul(elem * n2 * n2, p, nmat);
    pl.off_ptr = at, at += mul(sizeof(void *) * 3 * 2, static_cast<size_t>(blocks), nmat);
    pl.off_gptr = at, at += mul(sizeof(void *) * 3, p * split, nmat);
    // norm, dot (T) and pos (int) of the finish, each matrix's cols entries in turn.
    pl.off_norm = at, at += mul(2 * elem + sizeof(int), static_cast<size_t>(k), nmat);
    pl.off_list = at, at += mul(sizeof(int), nmat, 1);
    pl.off_ctl = at, at += mul(sizeof(BlockedControl), nmat, 1);
    pl.off_loop = at, at += blocked_align(sizeof(BlockedLoop));
    pl.bytes = over ? SIZE_MAX : at;  // no device has it: the workspace request fails cleanly
    return pl;
}

/// Matrices per chunk of a batched call of `batch` matrices: all of them if the layout fits
/// kBlockedBatchBudget, else equal chunks that do (at least one matrix each).
inline int64_t blocked_chunk(size_t elem, bool wantu, bool wantv, int64_t m, int64_t n,
                             int64_t batch, bool batched, int nb_override = 0) {
    if (batch <= 1) return 1;
    const size_t one = blocked_plan(elem, wantu, wantv, m, n, nb_override, 1, batched).bytes;
    int64_t cap = one == SIZE_MAX ? 1 : static_cast<int64_t>(kBlockedBatchBudget / one);
    if (cap < 1) cap = 1;
    if (cap >= batch) return batch;
    const int64_t chunks = (batch + cap - 1) / cap;
    return (batch + chunks - 1) / chunks;
}

}  // namespace gpu
}  // namespace gpusvd
