// The blocked one-sided Jacobi of one large matrix or a batch (blocked_plan.hpp): the sweep loop.
// Per round, for all listed matrices at once: a strided-batched GEMM for every pair's Gram block
// (a pointer-array GEMM where the list skips matrices, or, float with few pairs, over row chunks:
// gram_split partial blocks per pair), gram_block_kernel for their rotations, a batched GEMM
// applying them (and moving the blocks to the next round's slots). One host read per sweep: the
// matrices that sweep again (none: done); inside a CUDA graph capture the sweeps are a while
// node instead, decided on the device.
#include "gesvj/blocked.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/cublas.hpp"
#include "common/graph.hpp"
#include "common/launch.cuh"
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
/// GEMM's row split off, GPUSVD_JACOBI_CHECK=0 the full-Gram test, GPUSVD_JACOBI_OWN_UPDATE=0
/// the own update kernel (tuning, comparisons).
BlockedPlan plan_of(size_t elem, bool wantu, bool wantv, int64_t m, int64_t n, int64_t batch,
                    bool batched) {
    BlockedPlan pl = blocked_plan(elem, wantu, wantv, m, n, nb_override(), batch, batched);
    const char *v = std::getenv("GPUSVD_JACOBI_INNER");
    if (v && std::atoi(v) >= 1) pl.inner_sweeps = std::atoi(v);
    v = std::getenv("GPUSVD_JACOBI_GRAM_SPLIT");    // "1": one Gram GEMM chunk (comparisons)
    if (v && std::atoi(v) == 1) pl.gram_split = 1;  // the layout still fits: it only shrinks
    v = std::getenv("GPUSVD_JACOBI_CHECK");
    if (v && std::strcmp(v, "0") == 0) pl.check = false;
    // The own update kernel needs sm_80's cp.async and FP64 MMA.
    const int major = device_attribute(cudaDevAttrComputeCapabilityMajor, 0);
    v = std::getenv("GPUSVD_JACOBI_OWN_UPDATE");
    if (major < 8 || (v && std::strcmp(v, "0") == 0)) pl.own_update = false;
    v = std::getenv("GPUSVD_JACOBI_THREADS");  // 32..1024, a multiple of 32 (tuning)
    if (v && std::atoi(v) >= 32 && std::atoi(v) <= 1024 && std::atoi(v) % 32 == 0)
        pl.inner_threads = std::atoi(v);
    return pl;
}

/// Matrices per chunk of the call (one matrix: 1). GPUSVD_JACOBI_CHUNK (>= 1) caps it (tests:
/// several chunks of a small batch).
int64_t chunk_of(size_t elem, bool wantu, bool wantv, int64_t m, int64_t n, int64_t batch,
                 bool single) {
    if (single) return 1;
    const int64_t c = blocked_chunk(elem, wantu, wantv, m, n, batch, true, nb_override());
    const char *v = std::getenv("GPUSVD_JACOBI_CHUNK");
    const int64_t cap = v ? std::atoll(v) : 0;
    return cap >= 1 && cap < c ? cap : c;
}

}  // namespace

bool gesvj_blocked_wanted(int64_t m, int64_t n, size_t team_ws_bytes, bool single) {
    const int64_t k = m < n ? m : n;
    if (k < 2 || !blas_available()) return false;
    const char *v = std::getenv("GPUSVD_JACOBI_BLOCKED");
    if (v && std::strcmp(v, "0") == 0) return false;
    if (v && std::strcmp(v, "1") == 0) return true;
    return single ? team_ws_bytes > 0 : k >= kBlockedBatchMinCols;
}

// The plan's buffers, then cuBLAS's workspace for the graph path.
template <class T>
size_t gesvj_blocked_bytes(bool wantu, bool wantv, int64_t m, int64_t n, int64_t batch,
                           bool single) {
    const int64_t chunk = chunk_of(sizeof(T), wantu, wantv, m, n, batch, single);
    const size_t b = plan_of(sizeof(T), wantu, wantv, m, n, chunk, !single).bytes;
    return b > SIZE_MAX - kBlasGraphWorkspace ? SIZE_MAX : b + kBlasGraphWorkspace;
}

namespace {

/// One sweep (2p - 1 rounds) of the first `listed` matrices of the list, from copy c; returns
/// the copy it ends in through c.
template <class T>
gpusvdStatus_t enqueue_sweep(gpusvdHandle_t h, const char *routine, const BlockedPlan &pl,
                             const BlockedWork<T> &bw, cublasHandle_t b, kernels::RealOf<T> tol,
                             int64_t listed, int &c, cudaStream_t s) {
    const int64_t ld = pl.shape.ld, rows = pl.shape.rows, nb = pl.nb, n2 = 2 * nb;
    const int64_t pairs = listed * (pl.nblocks / 2), slots = pl.batch * pl.nblocks;
    // Every matrix listed, in order (blocked_schedule keeps the order): the pairs are equally
    // spaced through all the chunk's W.
    const bool strided = pl.gram_split == 1 && listed == bw.count;
    const int64_t chunk_rows = pl.gram_split == 1 ? rows : pl.shape.voff / pl.gram_split;
    const cublasOperation_t adj = kernels::kIsComplex<T> ? CUBLAS_OP_C : CUBLAS_OP_T;  // X^H X
    // The sweep ends in the other copy, every block back in its slot.
    for (int round = 0; round < pl.nblocks - 1; ++round, c ^= 1) {
        cublasStatus_t bs =
            strided ? blas::gemm_strided<T>(b, adj, CUBLAS_OP_N, n2, n2, rows, bw.w[c], ld,
                                            n2 * ld, bw.w[c], ld, n2 * ld, bw.gram, n2, n2 * n2,
                                            pairs)
                    : blas::gemm_batched<T>(b, adj, CUBLAS_OP_N, n2, n2, chunk_rows,
                                            bw.gptr[c], ld, bw.gptr[c], ld, bw.gptr[2], n2,
                                            pairs * pl.gram_split);
        if (bs != CUBLAS_STATUS_SUCCESS) return blas_fail(h, routine, "Gram blocks GEMM", bs);
        // The first round pairs every block once: its full solves meet the pairs inside the
        // blocks, so the later rounds solve only the pairs across (gram_jacobi's `cross`).
        const cudaError_t e = blocked_rotations<T>(pl, bw, listed, tol, round > 0, s);
        if (e != cudaSuccess) return cuda_fail(h, routine, "launching the Gram Jacobi", e);
        if (blocked_own_update<T>(pl)) {
            const cudaError_t ue = blocked_update<T>(pl, bw, listed, c, s);
            if (ue != cudaSuccess) return cuda_fail(h, routine, "launching the block update", ue);
        } else {
            bs = blas::gemm_batched<T>(b, CUBLAS_OP_N, CUBLAS_OP_N, ld, nb, n2, bw.ptr[c], ld,
                                       bw.ptr[c] + slots, n2, bw.ptr[c] + 2 * slots, ld,
                                       listed * pl.nblocks);
            if (bs != CUBLAS_STATUS_SUCCESS) return blas_fail(h, routine, "block update GEMM", bs);
        }
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

/// Inside a capture: the sweeps as a while node over every matrix of the chunk (sweep_end
/// decides on the device whether to go on).
template <class T>
gpusvdStatus_t sweeps_captured(gpusvdHandle_t h, const char *routine, const BlockedPlan &pl,
                               const GesvjProblem<T> &p, const BlockedWork<T> &bw, void *blas_ws,
                               cudaStream_t s) {
    const kernels::RealOf<T> tol = static_cast<kernels::RealOf<T>>(p.tol);
    gpusvdStatus_t inner = GPUSVD_STATUS_SUCCESS;
    gpusvdStatus_t st = captured_while(h, routine, s, &bw.loop->cont, [&](cudaStream_t bs) {
        cublasHandle_t b = bind_blas(h, routine, bs, blas_ws, &inner);
        int c = 0;
        if (b) inner = enqueue_sweep<T>(h, routine, pl, bw, b, tol, bw.count, c, bs);
        if (inner == GPUSVD_STATUS_SUCCESS) {
            const cudaError_t e =
                blocked_sweep_end<T>(pl, bw, bw.count, tol, p.max_sweeps, c, 0, true, bs);
            if (e != cudaSuccess) inner = cuda_fail(h, routine, "ending a sweep", e);
        }
        return inner == GPUSVD_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
    });
    if (inner != GPUSVD_STATUS_SUCCESS) return inner;
    return st;
}

/// Uncaptured: one host read of the loop's totals per sweep; each sweep runs only the matrices
/// still listed.
template <class T>
gpusvdStatus_t sweeps_host(gpusvdHandle_t h, const char *routine, const BlockedPlan &pl,
                           const GesvjProblem<T> &p, const BlockedWork<T> &bw, cudaStream_t s) {
    gpusvdStatus_t st;
    cublasHandle_t b = blas_handle(h, routine, s, &st);
    if (!b) return st;
    const kernels::RealOf<T> tol = static_cast<kernels::RealOf<T>>(p.tol);
    BlockedLoop loop{};
    auto read = [&] {
        cudaError_t e = cudaMemcpyAsync(&loop, bw.loop, sizeof loop, cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        return e;
    };
    cudaError_t e = read();
    int c = 0;
    // blocked_schedule ends every matrix's loop by max_sweeps: so does this one.
    while (e == cudaSuccess && loop.cont) {
        if ((st = enqueue_sweep<T>(h, routine, pl, bw, b, tol, loop.active, c, s)) !=
            GPUSVD_STATUS_SUCCESS)
            return st;
        e = blocked_sweep_end<T>(pl, bw, loop.active, tol, p.max_sweeps, c, c, false, s);
        if (e == cudaSuccess) e = read();
    }
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                            : cuda_fail(h, routine, "running the blocked Jacobi's sweeps", e);
}

}  // namespace

template <class T>
gpusvdStatus_t gesvj_blocked(gpusvdHandle_t h, const char *routine, const GesvjProblem<T> &p,
                             void *ws, size_t ws_bytes, cudaStream_t s, bool single) {
    const int64_t chunk = chunk_of(sizeof(T), p.wantu, p.wantv, p.m, p.n, p.batch, single);
    const BlockedPlan pl = plan_of(sizeof(T), p.wantu, p.wantv, p.m, p.n, chunk, !single);
    if (!ws || pl.bytes == SIZE_MAX || ws_bytes < pl.bytes + kBlasGraphWorkspace)
        return cuda_fail(h, routine, "checking the blocked Jacobi's workspace",
                         cudaErrorInvalidValue);
    bool graph = false;
    cudaError_t e = stream_capturing(s, &graph);
    if (e != cudaSuccess) return cuda_fail(h, routine, "querying the stream's capture state", e);
    if (!graph && single && device_loop()) {  // the same call as a graph of its own
        const auto u = [](const void *q) { return uint64_t(reinterpret_cast<uintptr_t>(q)); };
        uint64_t tol_bits;
        std::memcpy(&tol_bits, &p.tol, sizeof tol_bits);
        const std::vector<uint64_t> key{
            sizeof(T),      uint64_t(p.wantu), uint64_t(p.wantv), uint64_t(p.m),
            uint64_t(p.n),  u(p.A),            uint64_t(p.lda),   u(p.S),
            u(p.U),         uint64_t(p.ldu),   u(p.V),            uint64_t(p.ldv),
            u(p.info),      u(p.stats),        u(ws),             uint64_t(ws_bytes),
            tol_bits,       uint64_t(p.max_sweeps), uint64_t(pl.nb), uint64_t(pl.inner_sweeps),
            uint64_t(pl.gram_split), uint64_t(pl.inner_threads), uint64_t(pl.check),
            uint64_t(pl.own_update)};
        gpusvdStatus_t bst;  // cuBLAS starts outside the capture (it allocates)
        if (!blas_handle(h, routine, s, &bst)) return bst;
        return run_as_graph(h, routine, s, key, [&](cudaStream_t cs) {
            return gesvj_blocked<T>(h, routine, p, ws, ws_bytes, cs, single);
        });
    }
    void *blas_ws = static_cast<char *>(ws) + pl.bytes;
    for (int64_t b0 = 0; b0 < p.batch; b0 += chunk) {
        GesvjProblem<T> q = p;
        q.A += b0 * p.sA, q.S += b0 * p.sS, q.info += b0;
        if (q.U) q.U += b0 * p.sU;
        if (q.V) q.V += b0 * p.sV;
        q.batch = p.batch - b0 < chunk ? p.batch - b0 : chunk;
        const BlockedWork<T> bw(pl, ws, q.batch);
        e = blocked_prepare<T>(pl, q, bw, graph, s);
        if (e != cudaSuccess) return cuda_fail(h, routine, "loading the blocked Jacobi", e);
        const gpusvdStatus_t st = graph ? sweeps_captured<T>(h, routine, pl, q, bw, blas_ws, s)
                                        : sweeps_host<T>(h, routine, pl, q, bw, s);
        if (st != GPUSVD_STATUS_SUCCESS) return st;
        e = blocked_finish<T>(pl, q, bw, s);
        if (e != cudaSuccess)
            return cuda_fail(h, routine, "launching the blocked Jacobi's finish", e);
    }
    if (graph) {
        gpusvdStatus_t st;
        cublasHandle_t b = blas_handle(h, routine, s, &st);  // back on the caller's stream
        return b ? GPUSVD_STATUS_SUCCESS : st;
    }
    return GPUSVD_STATUS_SUCCESS;
}

#define GPUSVD_INSTANTIATE(T)                                                              \
    template size_t gesvj_blocked_bytes<T>(bool, bool, int64_t, int64_t, int64_t, bool);   \
    template gpusvdStatus_t gesvj_blocked<T>(gpusvdHandle_t, const char *,                 \
                                             const GesvjProblem<T> &, void *, size_t,      \
                                             cudaStream_t, bool);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
