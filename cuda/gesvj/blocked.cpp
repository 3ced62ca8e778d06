// The blocked one-sided Jacobi of one large matrix (blocked_plan.hpp): the sweep loop. Per
// round: a strided-batched GEMM for every pair's Gram block (float with few pairs: a batched GEMM
// over row chunks, gram_split partial blocks per pair), gram_block_kernel for their rotations, a
// batched GEMM applying them (and moving the blocks to the next round's slots). One host read
// per sweep: the count of pairs that rotated (zero: converged).
#include "gesvj/blocked.hpp"

#include <cstdlib>
#include <cstring>

#include "common/cublas.hpp"
#include "common/runtime.hpp"
#include "gesvj/blocked_run.hpp"

namespace gpusvd {
namespace gpu {

namespace {

/// GPUSVD_JACOBI_NB in the environment overrides the block width (tuning, tests).
int nb_override() {
    const char *v = std::getenv("GPUSVD_JACOBI_NB");
    return v ? std::atoi(v) : 0;
}

/// GPUSVD_JACOBI_INNER (>= 1) overrides the cap on each pair's inner sweeps per round,
/// GPUSVD_JACOBI_THREADS the Gram kernel's block size, GPUSVD_JACOBI_GRAM_SPLIT=1 turns the Gram
/// GEMM's row split off (tuning).
BlockedPlan plan_of(size_t elem, bool wantu, bool wantv, int64_t m, int64_t n) {
    BlockedPlan pl = blocked_plan(elem, wantu, wantv, m, n, nb_override());
    const char *v = std::getenv("GPUSVD_JACOBI_INNER");
    if (v && std::atoi(v) >= 1) pl.inner_sweeps = std::atoi(v);
    v = std::getenv("GPUSVD_JACOBI_GRAM_SPLIT");    // "1": one Gram GEMM chunk (comparisons)
    if (v && std::atoi(v) == 1) pl.gram_split = 1;  // the layout still fits: it only shrinks
    v = std::getenv("GPUSVD_JACOBI_THREADS");  // 32..1024, a multiple of 32 (tuning)
    if (v && std::atoi(v) >= 32 && std::atoi(v) <= 1024 && std::atoi(v) % 32 == 0)
        pl.inner_threads = std::atoi(v);
    return pl;
}

}  // namespace

bool gesvj_blocked_wanted(int64_t m, int64_t n, size_t team_ws_bytes) {
    if (team_ws_bytes == 0 || !blas_available()) return false;
    const char *v = std::getenv("GPUSVD_JACOBI_BLOCKED");  // "0": the one-block kernel instead
    return !(v && std::strcmp(v, "0") == 0) && (m < n ? m : n) >= 2;
}

template <class T>
size_t gesvj_blocked_bytes(bool wantu, bool wantv, int64_t m, int64_t n) {
    return plan_of(sizeof(T), wantu, wantv, m, n).bytes;
}

template <class T>
gpusvdStatus_t gesvj_blocked(gpusvdHandle_t h, const char *routine, const GesvjProblem<T> &p,
                             void *ws, size_t ws_bytes, cudaStream_t s) {
    const BlockedPlan pl = plan_of(sizeof(T), p.wantu, p.wantv, p.m, p.n);
    if (!ws || ws_bytes < pl.bytes)
        return cuda_fail(h, routine, "checking the blocked Jacobi's workspace",
                         cudaErrorInvalidValue);
    const BlockedWork<T> bw(pl, ws);
    cudaError_t e = blocked_prepare<T>(pl, p, bw, s);
    if (e != cudaSuccess) return cuda_fail(h, routine, "loading the blocked Jacobi", e);
    gpusvdStatus_t st;
    cublasHandle_t b = blas_handle(h, routine, s, &st);
    if (!b) return st;
    const int64_t ld = pl.shape.ld, rows = pl.shape.rows, nb = pl.nb, n2 = 2 * nb;
    const int64_t pairs = pl.nblocks / 2;
    const T tol = static_cast<T>(p.tol);
    int c = 0, sweeps = 0;
    bool converged = false;
    double off = 0;
    BlockedControl ctl{};
    while (sweeps < p.max_sweeps) {
        ++sweeps;
        e = cudaMemsetAsync(bw.ctl, 0, BlockedControl::kSweepBytes, s);
        if (e != cudaSuccess) return cuda_fail(h, routine, "resetting the sweep's counters", e);
        // 2p - 1 rounds: the sweep ends in the other copy, every block back in its slot. (A CUDA
        // graph of a sweep cannot be captured: cuBLAS frees memory inside the capture.)
        for (int round = 0; round < pl.nblocks - 1; ++round, c ^= 1) {
            // Few pairs: row chunks, each a partial Gram block (gram_pair sums them).
            cublasStatus_t bs =
                pl.gram_split == 1
                    ? blas::gemm_strided<T>(b, CUBLAS_OP_T, CUBLAS_OP_N, n2, n2, rows, bw.w[c], ld,
                                            n2 * ld, bw.w[c], ld, n2 * ld, bw.gram, n2, n2 * n2,
                                            pairs)
                    : blas::gemm_batched<T>(b, CUBLAS_OP_T, CUBLAS_OP_N, n2, n2,
                                            pl.shape.voff / pl.gram_split, bw.gptr[c], ld,
                                            bw.gptr[c], ld, bw.gptr[2], n2, pairs * pl.gram_split);
            if (bs != CUBLAS_STATUS_SUCCESS) return blas_fail(h, routine, "Gram blocks GEMM", bs);
            e = blocked_rotations<T>(pl, bw, tol, s);
            if (e != cudaSuccess) return cuda_fail(h, routine, "launching the Gram Jacobi", e);
            bs = blas::gemm_batched<T>(b, CUBLAS_OP_N, CUBLAS_OP_N, ld, nb, n2, bw.ptr[c], ld,
                                       bw.ptr[c] + pl.nblocks, n2, bw.ptr[c] + 2 * pl.nblocks, ld,
                                       pl.nblocks);
            if (bs != CUBLAS_STATUS_SUCCESS) return blas_fail(h, routine, "block update GEMM", bs);
        }
        e = cudaMemcpyAsync(&ctl, bw.ctl, sizeof ctl, cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) return cuda_fail(h, routine, "reading the sweep's counters", e);
        if (ctl.nonfinite) break;
        static_assert(sizeof off == sizeof ctl.off_bits, "off-norm travels as a double's bits");
        std::memcpy(&off, &ctl.off_bits, sizeof off);
        if (ctl.rotated == 0) {
            converged = true;
            break;
        }
    }
    e = ctl.nonfinite
            ? blocked_nan<T>(p, s)
            : blocked_finish<T>(pl, p, bw, c, converged ? 0 : p.max_sweeps, sweeps, off, s);
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                            : cuda_fail(h, routine, "launching the blocked Jacobi's finish", e);
}

#define GPUSVD_INSTANTIATE(T)                                             \
    template size_t gesvj_blocked_bytes<T>(bool, bool, int64_t, int64_t); \
    template gpusvdStatus_t gesvj_blocked<T>(                             \
        gpusvdHandle_t, const char *, const GesvjProblem<T> &, void *, size_t, cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
