// The blocked one-sided Jacobi of one large matrix (blocked_plan.hpp): the sweep loop. Per
// round: a strided-batched GEMM for every pair's Gram block (float with few pairs: a batched GEMM
// over row chunks, gram_split partial blocks per pair), gram_block_kernel for their rotations, a
// batched GEMM applying them (and moving the blocks to the next round's slots). One host read
// per sweep: the count of pairs that rotated (zero: converged); inside a CUDA graph capture the
// sweeps are a while node instead, decided on the device.
#include "gesvj/blocked.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/cublas.hpp"
#include "common/graph.hpp"
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

/// Whether an uncaptured call runs its sweeps as a device-decided loop too (the call captured as
/// a graph of its own and launched): a sweep is hundreds of small launches, which a graph issues
/// faster than the host, and no sweep waits for the host's read of its counter; that gain
/// outweighs the graph's instantiation from n = 512 (measured on an H100 with
/// gpusvd-bench-graphs). GPUSVD_JACOBI_HOST_LOOP=1 keeps the host-read loop (comparisons).
bool device_loop() {
    const char *v = std::getenv("GPUSVD_JACOBI_HOST_LOOP");
    return !(v && std::strcmp(v, "1") == 0);
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

// The plan's buffers, then cuBLAS's workspace for the graph path.
template <class T>
size_t gesvj_blocked_bytes(bool wantu, bool wantv, int64_t m, int64_t n) {
    return plan_of(sizeof(T), wantu, wantv, m, n).bytes + kBlasGraphWorkspace;
}

namespace {

/// One sweep (2p - 1 rounds) from copy c; returns the copy it ends in through c.
template <class T>
gpusvdStatus_t enqueue_sweep(gpusvdHandle_t h, const char *routine, const BlockedPlan &pl,
                             const BlockedWork<T> &bw, cublasHandle_t b, T tol, int &c,
                             cudaStream_t s) {
    const int64_t ld = pl.shape.ld, rows = pl.shape.rows, nb = pl.nb, n2 = 2 * nb;
    const int64_t pairs = pl.nblocks / 2;
    // The sweep ends in the other copy, every block back in its slot.
    for (int round = 0; round < pl.nblocks - 1; ++round, c ^= 1) {
        // Few pairs: row chunks, each a partial Gram block (gram_pair sums them).
        cublasStatus_t bs =
            pl.gram_split == 1
                ? blas::gemm_strided<T>(b, CUBLAS_OP_T, CUBLAS_OP_N, n2, n2, rows, bw.w[c], ld,
                                        n2 * ld, bw.w[c], ld, n2 * ld, bw.gram, n2, n2 * n2, pairs)
                : blas::gemm_batched<T>(b, CUBLAS_OP_T, CUBLAS_OP_N, n2, n2,
                                        pl.shape.voff / pl.gram_split, bw.gptr[c], ld, bw.gptr[c],
                                        ld, bw.gptr[2], n2, pairs * pl.gram_split);
        if (bs != CUBLAS_STATUS_SUCCESS) return blas_fail(h, routine, "Gram blocks GEMM", bs);
        const cudaError_t e = blocked_rotations<T>(pl, bw, tol, s);
        if (e != cudaSuccess) return cuda_fail(h, routine, "launching the Gram Jacobi", e);
        bs = blas::gemm_batched<T>(b, CUBLAS_OP_N, CUBLAS_OP_N, ld, nb, n2, bw.ptr[c], ld,
                                   bw.ptr[c] + pl.nblocks, n2, bw.ptr[c] + 2 * pl.nblocks, ld,
                                   pl.nblocks);
        if (bs != CUBLAS_STATUS_SUCCESS) return blas_fail(h, routine, "block update GEMM", bs);
    }
    return GPUSVD_STATUS_SUCCESS;
}

/// cuBLAS on stream s, working in the call's own workspace (a graph's conditional body may not
/// allocate memory).
cublasHandle_t bind_blas(gpusvdHandle_t h, const char *routine, cudaStream_t s, void *blas_ws,
                         gpusvdStatus_t *st) {
    cublasHandle_t b = blas_handle(h, routine, s, st);
    if (b && (*st = blas_set_workspace(h, routine, b, blas_ws, kBlasGraphWorkspace)) !=
                 GPUSVD_STATUS_SUCCESS)
        return nullptr;
    return b;
}

/// Inside a capture: the sweeps as a while node (sweep_end decides on the device whether to go
/// on), the finish reading the outcome from the device.
template <class T>
gpusvdStatus_t sweeps_captured(gpusvdHandle_t h, const char *routine, const BlockedPlan &pl,
                               const GesvjProblem<T> &p, const BlockedWork<T> &bw, void *blas_ws,
                               cudaStream_t s) {
    const T tol = static_cast<T>(p.tol);
    gpusvdStatus_t inner = GPUSVD_STATUS_SUCCESS;
    gpusvdStatus_t st = captured_while(h, routine, s, &bw.ctl->cont, [&](cudaStream_t bs) {
        cublasHandle_t b = bind_blas(h, routine, bs, blas_ws, &inner);
        int c = 0;
        if (b) inner = enqueue_sweep<T>(h, routine, pl, bw, b, tol, c, bs);
        if (inner == GPUSVD_STATUS_SUCCESS) {
            const cudaError_t e = blocked_sweep_end<T>(pl, bw, p.max_sweeps, bs);
            if (e != cudaSuccess) inner = cuda_fail(h, routine, "ending a sweep", e);
        }
        return inner == GPUSVD_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
    });
    if (inner != GPUSVD_STATUS_SUCCESS) return inner;
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    cudaError_t e = blocked_finish<T>(pl, p, bw, 0, SweepOutcome{true, 0, 0, 0.0}, s);
    if (e == cudaSuccess) e = blocked_nan<T>(p, bw, true, s);
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                            : cuda_fail(h, routine, "launching the blocked Jacobi's finish", e);
}

}  // namespace

template <class T>
gpusvdStatus_t gesvj_blocked(gpusvdHandle_t h, const char *routine, const GesvjProblem<T> &p,
                             void *ws, size_t ws_bytes, cudaStream_t s) {
    const BlockedPlan pl = plan_of(sizeof(T), p.wantu, p.wantv, p.m, p.n);
    if (!ws || ws_bytes < pl.bytes + kBlasGraphWorkspace)
        return cuda_fail(h, routine, "checking the blocked Jacobi's workspace",
                         cudaErrorInvalidValue);
    bool graph = false;
    cudaError_t e = stream_capturing(s, &graph);
    if (e != cudaSuccess) return cuda_fail(h, routine, "querying the stream's capture state", e);
    if (!graph && device_loop()) {  // the same call as a graph of its own (see device_loop)
        const auto u = [](const void *q) { return uint64_t(reinterpret_cast<uintptr_t>(q)); };
        uint64_t tol_bits;
        std::memcpy(&tol_bits, &p.tol, sizeof tol_bits);
        const std::vector<uint64_t> key{
            sizeof(T),      uint64_t(p.wantu), uint64_t(p.wantv), uint64_t(p.m),
            uint64_t(p.n),  u(p.A),            uint64_t(p.lda),   u(p.S),
            u(p.U),         uint64_t(p.ldu),   u(p.V),            uint64_t(p.ldv),
            u(p.info),      u(p.stats),        u(ws),             uint64_t(ws_bytes),
            tol_bits,       uint64_t(p.max_sweeps), uint64_t(pl.nb), uint64_t(pl.inner_sweeps),
            uint64_t(pl.gram_split), uint64_t(pl.inner_threads)};
        gpusvdStatus_t bst;  // cuBLAS starts outside the capture (it allocates)
        if (!blas_handle(h, routine, s, &bst)) return bst;
        return run_as_graph(h, routine, s, key, [&](cudaStream_t cs) {
            return gesvj_blocked<T>(h, routine, p, ws, ws_bytes, cs);
        });
    }
    const BlockedWork<T> bw(pl, ws);
    void *blas_ws = static_cast<char *>(ws) + pl.bytes;
    e = blocked_prepare<T>(pl, p, bw, s);
    if (e != cudaSuccess) return cuda_fail(h, routine, "loading the blocked Jacobi", e);
    gpusvdStatus_t st;
    if (graph) {
        st = sweeps_captured<T>(h, routine, pl, p, bw, blas_ws, s);
        if (st != GPUSVD_STATUS_SUCCESS) return st;
        cublasHandle_t b = blas_handle(h, routine, s, &st);  // back on the caller's stream
        return b ? GPUSVD_STATUS_SUCCESS : st;
    }
    cublasHandle_t b = blas_handle(h, routine, s, &st);
    if (!b) return st;
    const T tol = static_cast<T>(p.tol);
    int c = 0, sweeps = 0;
    bool converged = false;
    double off = 0;
    BlockedControl ctl{};
    // One host read per sweep (the graph path decides on the device instead).
    while (sweeps < p.max_sweeps) {
        ++sweeps;
        e = cudaMemsetAsync(bw.ctl, 0, BlockedControl::kSweepBytes, s);
        if (e != cudaSuccess) return cuda_fail(h, routine, "resetting the sweep's counters", e);
        if ((st = enqueue_sweep<T>(h, routine, pl, bw, b, tol, c, s)) != GPUSVD_STATUS_SUCCESS)
            return st;
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
    e = ctl.nonfinite ? blocked_nan<T>(p, bw, false, s)
                      : blocked_finish<T>(pl, p, bw, c,
                                          SweepOutcome{false, converged ? 0 : p.max_sweeps,
                                                       sweeps, off},
                                          s);
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
