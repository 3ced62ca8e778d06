// Kernels of the blocked one-sided Jacobi (blocked_plan.hpp), enqueued by blocked.cpp between
// its cuBLAS calls, for one matrix or a chunk of a batch (p's batch is the chunk: matrix b of it
// at p.A + b * p.sA, ...). All pointers are device pointers; nothing here synchronises.
#pragma once

#include <cuda_runtime_api.h>

#include <type_traits>

#include "gesvj/blocked_plan.hpp"
#include "gesvj/gesvj.hpp"
#include "kernels/jacobi_types.hpp"

namespace gpusvd {
namespace gpu {

/// The device workspace of one chunk of a call, carved as the plan lays it out; `count` (<= the
/// plan's batch) matrices in it.
template <class T>
struct BlockedWork {
    T *w[2];     // ping-pong copies of W, each matrix's mat_elems in turn
    T *gram;     // per listed pair: gram_split partial Gram blocks, 2nb x 2nb each
    T *rot;      // per listed pair: its rotation block (V of the pair)
    T **ptr[2];  // per source copy: A, B, C pointer arrays (batch * nblocks each) of the update
    T **gptr[3];  // Gram GEMM by pointers: row chunks of copy 0, of copy 1, partial blocks
    kernels::RealOf<T> *norm;  // batch * cols
    T *dot;                    // batch * cols
    int *pos;       // batch * cols
    int *list;      // matrices of the next sweep (BlockedLoop::active of them)
    BlockedControl *ctl;  // one per matrix
    BlockedLoop *loop;
    int64_t count;  // matrices of this chunk
    BlockedWork(const BlockedPlan &pl, void *base, int64_t count_) : count(count_) {
        auto at = [&](size_t off) { return static_cast<unsigned char *>(base) + off; };
        w[0] = reinterpret_cast<T *>(at(pl.off_w[0]));
        w[1] = reinterpret_cast<T *>(at(pl.off_w[1]));
        gram = reinterpret_cast<T *>(at(pl.off_gram));
        rot = reinterpret_cast<T *>(at(pl.off_rot));
        const int64_t slots = pl.batch * pl.nblocks;
        ptr[0] = reinterpret_cast<T **>(at(pl.off_ptr));
        ptr[1] = ptr[0] + 3 * slots;
        const int64_t chunks = pl.batch * (pl.nblocks / 2) * pl.gram_split;
        gptr[0] = reinterpret_cast<T **>(at(pl.off_gptr));
        gptr[1] = gptr[0] + chunks;
        gptr[2] = gptr[1] + chunks;
        const int64_t cols = pl.batch * pl.shape.cols;
        // norm's entries take a T's place each (the plan reserves 2 T per column)
        norm = reinterpret_cast<kernels::RealOf<T> *>(at(pl.off_norm));
        dot = reinterpret_cast<T *>(at(pl.off_norm)) + cols;
        pos = reinterpret_cast<int *>(dot + cols);
        list = reinterpret_cast<int *>(at(pl.off_list));
        ctl = reinterpret_cast<BlockedControl *>(at(pl.off_ctl));
        loop = reinterpret_cast<BlockedLoop *>(at(pl.off_loop));
    }
    /// The finish's view of matrix b in copy c (jacobi_finish.hpp's functions run on it).
    GPUSVD_HD kernels::JacobiWork<T, int64_t> view(const BlockedPlan &pl, int64_t b,
                                                   int c) const {
        kernels::JacobiWork<T, int64_t> v;
        const int64_t cols = pl.shape.cols;
        v.w = w[c] + b * pl.mat_elems;
        v.ld = pl.shape.ld, v.rows = pl.shape.rows, v.voff = pl.shape.voff;
        v.vrows = pl.shape.vrows, v.cols = pl.shape.cols;
        v.norm = norm + b * cols, v.dot = dot + b * cols, v.pos = pos + b * cols;
        return v;
    }
};

/// W[0] <- [A (or A^T); I; zero padding] for each of the chunk's matrices, scaled by a power of
/// two (jacobi_scale_exponents); each one's amax and nonfinite set; the schedule's first step
/// (blocked_schedule) and the pointer arrays. `all_move`: the graph path (every matrix listed in
/// every sweep, see blocked_schedule).
template <class T>
cudaError_t blocked_prepare(const BlockedPlan &pl, const GesvjProblem<T> &p,
                            const BlockedWork<T> &bw, bool all_move, cudaStream_t s);

/// Whether a round's update runs gpusvd's own kernel (blocked_update) rather than cuBLAS's
/// pointer-array GEMM: double data at 2nb = 64 (the plan's own_update: sm_80 and newer).
template <class T>
bool blocked_own_update(const BlockedPlan &pl) {
    return std::is_same_v<T, double> && pl.nb == 32 && pl.own_update;
}

/// The update of a round from copy c (the pointer arrays' operands): each listed pair's 2nb
/// columns times its rotation block, the halves into the slots their blocks move to.
template <class T>
cudaError_t blocked_update(const BlockedPlan &pl, const BlockedWork<T> &bw, int64_t listed, int c,
                           cudaStream_t s);

/// Diagonalises the Gram block of each pair of the first `listed` matrices of the list
/// (gram_jacobi) into its rotation block; counts rotated pairs and the largest |cos| in each
/// matrix's control. Done matrices (and those holding NaN or Inf) get V = I. `cross`: only the
/// column pairs across the pair's two blocks (every round of a sweep but the first).
template <class T>
cudaError_t blocked_rotations(const BlockedPlan &pl, const BlockedWork<T> &bw, int64_t listed,
                              kernels::RealOf<T> tol, bool cross, cudaStream_t s);

/// The end of a sweep of the first `listed` matrices of the list, whose data it left in copy
/// data_copy: the full-Gram test of those that want it (blocked_check_near), then
/// blocked_schedule for every matrix (recording end_copy as the copy that holds each swept
/// one), the list and BlockedLoop rebuilt. The host path (all_move false) lists only the
/// matrices that sweep again and rebuilds the pointer arrays for them; the graph path keeps
/// every matrix listed and copies copy 1 (where its sweeps end) back to copy 0 (its end_copy), so
/// that every sweep of its loop starts from the same buffers.
template <class T>
cudaError_t blocked_sweep_end(const BlockedPlan &pl, const BlockedWork<T> &bw, int64_t listed,
                              kernels::RealOf<T> tol, int max_sweeps, int data_copy, int end_copy,
                              bool all_move, cudaStream_t s);

/// From each matrix's converged copy to S, U, V (descending; U's columns completed where S is
/// zero), info and the call's statistics; NaN outputs and info GPUSVD_INFO_NONFINITE for the
/// matrices holding NaN or Inf.
template <class T>
cudaError_t blocked_finish(const BlockedPlan &pl, const GesvjProblem<T> &p,
                           const BlockedWork<T> &bw, cudaStream_t s);

}  // namespace gpu
}  // namespace gpusvd
