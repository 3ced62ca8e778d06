// Kernels of the blocked one-sided Jacobi (blocked_plan.hpp), enqueued by blocked.cpp between
// its cuBLAS calls. All pointers are device pointers; nothing here synchronises.
#pragma once

#include <cuda_runtime_api.h>

#include "gesvj/blocked_plan.hpp"
#include "gesvj/gesvj.hpp"
#include "kernels/jacobi_types.hpp"

namespace gpusvd {
namespace gpu {

/// The device workspace of one call, carved as the plan lays it out.
template <class T>
struct BlockedWork {
    T *w[2];     // ping-pong copies of W
    T *gram;     // p Gram blocks, 2nb x 2nb each, as gram_split partials per pair
    T *rot;      // p rotation blocks (V of each pair)
    T **ptr[2];  // per source buffer: A, B, C pointer arrays (2p each) of the update GEMM
    T **gptr[3];  // split Gram GEMM (gram_split > 1): row chunks of copy 0, of copy 1, partials
    T *norm, *dot;
    int *pos;
    BlockedControl *ctl;
    BlockedWork(const BlockedPlan &pl, void *base) {
        auto at = [&](size_t off) { return static_cast<unsigned char *>(base) + off; };
        w[0] = reinterpret_cast<T *>(at(pl.off_w[0]));
        w[1] = reinterpret_cast<T *>(at(pl.off_w[1]));
        gram = reinterpret_cast<T *>(at(pl.off_gram));
        rot = reinterpret_cast<T *>(at(pl.off_rot));
        ptr[0] = reinterpret_cast<T **>(at(pl.off_ptr));
        ptr[1] = ptr[0] + 3 * pl.nblocks;
        const int chunks = pl.nblocks / 2 * pl.gram_split;
        gptr[0] = reinterpret_cast<T **>(at(pl.off_gptr));
        gptr[1] = gptr[0] + chunks;
        gptr[2] = gptr[1] + chunks;
        norm = reinterpret_cast<T *>(at(pl.off_norm));
        dot = norm + pl.shape.cols;
        pos = reinterpret_cast<int *>(dot + pl.shape.cols);
        ctl = reinterpret_cast<BlockedControl *>(at(pl.off_ctl));
    }
    /// The finish's view of copy `c` (jacobi_finish.hpp's functions run on it).
    kernels::JacobiWork<T, int64_t> finish_view(const BlockedPlan &pl, int c) const {
        kernels::JacobiWork<T, int64_t> v;
        v.w = w[c];
        v.ld = pl.shape.ld, v.rows = pl.shape.rows, v.voff = pl.shape.voff;
        v.vrows = pl.shape.vrows, v.cols = pl.shape.cols;
        v.norm = norm, v.dot = dot, v.pos = pos;
        return v;
    }
};

/// W[0] <- [A (or A^T); I; zero padding], scaled by a power of two (jacobi_scale_exponents);
/// ctl's amax and nonfinite set; the update GEMM's pointer arrays filled.
template <class T>
cudaError_t blocked_prepare(const BlockedPlan &pl, const GesvjProblem<T> &p,
                            const BlockedWork<T> &bw, cudaStream_t s);

/// Diagonalises every pair's Gram block (gram_jacobi) into its rotation block; counts rotated
/// pairs and the largest |cos| in ctl. Does nothing (V = I) when A is not finite.
template <class T>
cudaError_t blocked_rotations(const BlockedPlan &pl, const BlockedWork<T> &bw, T tol,
                              cudaStream_t s);

/// Where the finish takes the sweep loop's outcome from: the host's values (info, sweeps, off),
/// or ctl on the device (the graph path; the finish then does nothing for a non-finite A).
struct SweepOutcome {
    bool on_device;
    int info, sweeps;
    double off;
};

/// From the converged copy `c` to S, U, V (descending; U's columns completed where S is zero),
/// info[0] and the call's statistics.
template <class T>
cudaError_t blocked_finish(const BlockedPlan &pl, const GesvjProblem<T> &p,
                           const BlockedWork<T> &bw, int c, const SweepOutcome &o,
                           cudaStream_t s);

/// NaN outputs and info[0] = GPUSVD_INFO_NONFINITE for a matrix holding NaN or Inf (with
/// `gated`: only if ctl says A is not finite).
template <class T>
cudaError_t blocked_nan(const GesvjProblem<T> &p, const BlockedWork<T> &bw, bool gated,
                        cudaStream_t s);

/// The graph path's end of a sweep: the sweep's outcome into ctl (sweeps, cont, converged,
/// off_last), its counters reset, and copy 1 (where a sweep ends) back to copy 0, so that every
/// sweep of the loop starts from the same buffers.
template <class T>
cudaError_t blocked_sweep_end(const BlockedPlan &pl, const BlockedWork<T> &bw, int max_sweeps,
                              cudaStream_t s);

}  // namespace gpu
}  // namespace gpusvd
