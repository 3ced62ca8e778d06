// gesvj on the GPU: host form through the chunked pipeline, device form straight to the kernels.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/cublas.hpp"
#include "common/graph.hpp"
#include "common/multi.hpp"
#include "common/pipeline.hpp"
#include "common/runtime.hpp"
#include "geqrf/tall.hpp"
#include "gesvj/blocked_plan.hpp"
#include "gesvj/blocked_run.hpp"
#include "gesvj/gesvj.hpp"
#include "gesvj/plan.hpp"
#include "gpu_dispatch.hpp"
#include "kernels/team.hpp"
#include "workspace.hpp"

namespace gpusvd {
namespace gpu {

namespace {

// Paths are chosen per call (`single`: the call has one matrix), never per pipeline chunk: a
// batched call's last chunk of one matrix runs the kernels the other chunks run, in the
// workspace the pipeline sized for them.

// Complex data has no QR-first path (the tall QR's complex form is column-major only, and the
// path is a speed-up, not a capability): the team kernels and the blocked Jacobi
// (gesvj_complex_served says which sizes the GPU takes).
template <class T>
constexpr bool kTeamOnly = kernels::kIsComplex<T>;

// A tall single matrix is first reduced to its n x n R by the tall QR (geqrf/tall.hpp), as
// LAPACK's dgejsv preconditions: the Jacobi sweeps then work on n x n instead of m x n (each
// sweep reads the whole matrix), and U = Q U_R is one GEMM. Column-wise backward stable (the QR's
// triangular solves), so graded columns keep their relative accuracy.
template <class T>
bool qr_first(int64_t m, int64_t n, bool single) {
    if constexpr (kTeamOnly<T>) return false;
    int64_t mn;
    return single && m >= 2 * n && !__builtin_mul_overflow(m, n, &mn) && mn > 128 * 128 &&
           blas_available();
}

// Jacobi without a QR first: the blocked Jacobi for a single matrix too large for shared
// memory and for batches of wide enough matrices (gesvj_blocked_wanted), else the team kernels
// (gesvj.cu) on `count` matrices.
template <class T>
bool blocked(bool single, bool wantu, bool wantv, int64_t m, int64_t n) {
    return gesvj_blocked_wanted(m, n, gesvj_workspace_bytes<T>(wantu, wantv, m, n, 1), single);
}

template <class T>
size_t jacobi_bytes(bool single, bool wantu, bool wantv, int64_t m, int64_t n, int64_t count) {
    if (blocked<T>(single, wantu, wantv, m, n))
        return gesvj_blocked_bytes<T>(wantu, wantv, m, n, count, single);
    return gesvj_workspace_bytes<T>(wantu, wantv, m, n, count);
}

template <class T>
gpusvdStatus_t jacobi_run(gpusvdHandle_t h, const char *routine, bool single,
                          const GesvjProblem<T> &p, void *ws, size_t ws_bytes, cudaStream_t s) {
    if (blocked<T>(single, p.wantu, p.wantv, p.m, p.n))
        return gesvj_blocked<T>(h, routine, p, ws, ws_bytes, s, single);
    const cudaError_t e = gesvj_launch<T>(p, ws, ws_bytes, s);
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                            : cuda_fail(h, routine, "launching the Jacobi kernels", e);
}

// Workspace of the QR-first path: QR workspace, R, U_R, the Jacobi workspace of R, QR's info.
template <class T>
struct QrFirstLayout {
    void *qr, *jac;
    T *R, *UR;
    int *qinfo;
    size_t qr_bytes, jac_bytes, bytes;
    QrFirstLayout(void *base, bool wantu, bool wantv, int64_t m, int64_t n) {
        Bump b(base);
        qr_bytes = tall_workspace_bytes<T>(m, n);
        jac_bytes = jacobi_bytes<T>(true, wantu, wantv, n, n, 1);
        qr = b.take_bytes(qr_bytes);
        R = b.take<T>(n * n);
        UR = b.take<T>(wantu ? n * n : 0);
        jac = b.take_bytes(jac_bytes);
        qinfo = b.take<int>(1);
        bytes = b.bytes();
    }
};

template <class T>
gpusvdStatus_t gesvj_qr_first(gpusvdHandle_t h, const char *routine, const GesvjProblem<T> &p,
                              void *ws, cudaStream_t s) {
    const int64_t m = p.m, n = p.n;
    const QrFirstLayout<T> L(ws, p.wantu, p.wantv, m, n);
    T *R = L.R, *UR = p.wantu ? L.UR : nullptr;
    bool q_formed = true;
    gpusvdStatus_t st = geqrf_tall<T>(h, routine, true, m, n, p.A, p.lda, R, n, L.qinfo, L.qr,
                                      L.qr_bytes, s, &q_formed);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    GesvjProblem<T> q = p;
    q.m = n, q.A = R, q.lda = n, q.sA = n * n;
    q.U = UR, q.ldu = n, q.sU = n * n;
    st = jacobi_run<T>(h, routine, true, q, L.jac, L.jac_bytes, s);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    if (!p.wantu) return GPUSVD_STATUS_SUCCESS;
    cublasHandle_t b = blas_handle(h, routine, s, &st);
    if (!b) return st;
    // Without Q (well-conditioned A, see geqrf_tall): U = A (R^-1 U_R), an n x n solve instead
    // of the m x n one for Q.
    cublasStatus_t bs = CUBLAS_STATUS_SUCCESS;
    if (!q_formed) bs = blas::trsm_upper<T>(b, CUBLAS_SIDE_LEFT, n, n, R, n, UR, n);
    if (bs != CUBLAS_STATUS_SUCCESS) return blas_fail(h, routine, "TRSM R^-1 U_R", bs);
    bs = blas::gemm<T>(b, CUBLAS_OP_N, CUBLAS_OP_N, m, n, n, T(1), p.A, p.lda, UR, n, T(0), p.U,
                       p.ldu);
    return bs == CUBLAS_STATUS_SUCCESS ? GPUSVD_STATUS_SUCCESS
                                       : blas_fail(h, routine, "GEMM U = Q U_R", bs);
}

/// Workspace of `count` matrices of a call (single: the call has one matrix).
template <class T>
size_t device_bytes(bool single, bool wantu, bool wantv, int64_t m, int64_t n, int64_t count) {
    if constexpr (!kTeamOnly<T>)
        if (qr_first<T>(m, n, single)) return QrFirstLayout<T>(nullptr, wantu, wantv, m, n).bytes;
    return jacobi_bytes<T>(single, wantu, wantv, m, n, count);
}

}  // namespace

bool gesvj_complex_served(gpusvdHandle_t h, size_t elem, bool wantu, bool wantv, int64_t m,
                          int64_t n, int64_t batch, bool with_blocked) {
    if (std::min(m, n) <= 0 || batch <= 0) return true;
    // The blocked Jacobi takes any size (cuBLAS loaded).
    if (with_blocked && gesvj_blocked_wanted(m, n, 1, batch == 1)) return true;
    if (batch > 1) return std::min(m, n) < kGesvjComplexBatchMaxCols;
    // One matrix: the team kernels' plan (gesvj.cu's plan_for on that device) stays in shared
    // memory. Which path a plan takes depends on the bytes alone, not on the thread limits.
    int optin = 0;
    if (h->device < 0 ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, h->device) !=
            cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    const GesvjPlan p =
        gesvj_plan(elem, wantu, wantv, m, n, 1, static_cast<size_t>(optin), 1024, 1024);
    return p.path != GesvjPlan::kGlobal;
}

template <class T>
size_t gesvj_device_bytes(bool wantu, bool wantv, int64_t m, int64_t n, int64_t batch) {
    return device_bytes<T>(batch == 1, wantu, wantv, m, n, batch);
}

void fetch_jacobi_stats(gpusvdHandle_t h) {
    if (!h->stats_on_gpu) return;
    h->stats_on_gpu = false;
    auto *r = static_cast<Resources *>(h->gpu);
    JacobiStatsDev s{};
    if (!r || !r->stats ||
        cudaMemcpyAsync(&s, r->stats, sizeof s, cudaMemcpyDeviceToHost, user_stream(h)) !=
            cudaSuccess ||
        cudaStreamSynchronize(user_stream(h)) != cudaSuccess) {
        cudaGetLastError();
        return;  // the call's own status reported the failure
    }
    h->last_sweeps = s.sweeps;
    double off;
    static_assert(sizeof off == sizeof s.off_bits, "off-norm travels as the bits of a double");
    std::memcpy(&off, &s.off_bits, sizeof off);
    h->last_off_norm = off;
}

template <class T>
gpusvdStatus_t gesvj(gpusvdHandle_t h, const char *routine, Form form, const GesvjArgs<T> &a) {
    if (form == Form::Host && split_over_devices(h, a.batch))
        return over_devices(h, a.batch, true, [&](gpusvdHandle_t c, int64_t b0, int64_t nb) {
            GesvjArgs<T> q = a;
            q.A += b0 * a.sA, q.S += b0 * a.sS, q.info += b0, q.batch = nb;
            q.call_batch = a.call_batch > 0 ? a.call_batch : a.batch;
            if (q.U) q.U += b0 * a.sU;
            if (q.V) q.V += b0 * a.sV;
            return gesvj<T>(c, routine, form, q);
        });
    DeviceScope dev(h);
    const gpusvdStatus_t entered = dev.enter(
        routine, form == Form::Device,
        a.m == 0 || a.n == 0 || a.batch == 0
            ? std::initializer_list<PtrArg>{{"info", a.info}}
            : std::initializer_list<PtrArg>{
                  {"A", a.A},
                  {"S", a.S},
                  {"U", a.wantu ? a.U : nullptr},  // not referenced without vectors
                  {"V", a.wantv ? a.V : nullptr},
                  {"info", a.info}});
    if (entered != GPUSVD_STATUS_SUCCESS) return entered;
    cudaError_t e;
    Resources *r = resources(h, &e);
    if (r && !r->stats) {
        bool cap = false;  // cudaMalloc would break the caller's capture
        stream_capturing(user_stream(h), &cap);
        if (cap && form == Form::Device)
            return fail(h, GPUSVD_STATUS_NOT_SUPPORTED,
                        "%s: the handle's first Jacobi call cannot be inside a CUDA graph capture "
                        "(it allocates): make one call on this handle before capturing",
                        routine);
        e = cudaMalloc(&r->stats, sizeof(JacobiStatsDev));
    }
    if (e != cudaSuccess) return cuda_fail(h, routine, "allocating Jacobi statistics", e);
    auto *stats = static_cast<JacobiStatsDev *>(r->stats);
    const double tol = h->jacobi_tol > 0 ? h->jacobi_tol
                                         : std::sqrt(static_cast<double>(std::max(a.m, a.n))) *
                                               kernels::Real<kernels::RealOf<T>>::eps();
    // The whole call's batch chooses the paths: a device's part of a split call (a.call_batch)
    // computes each matrix as the call on one device would.
    const int64_t call_batch = a.call_batch > 0 ? a.call_batch : a.batch;
    const bool single = call_batch == 1;
    GesvjProblem<T> p{a.wantu,
                      a.wantv,
                      a.m,
                      a.n,
                      a.A,
                      a.lda,
                      a.sA,
                      a.S,
                      a.sS,
                      a.U,
                      a.ldu,
                      a.sU,
                      a.V,
                      a.ldv,
                      a.sV,
                      a.batch,
                      a.info,
                      tol,
                      h->jacobi_max_sweeps,
                      stats,
                      call_batch};

    if (form == Form::Device) {
        if (a.m == 0 || a.n == 0) {  // nothing to compute; info still says "success" per matrix
            e = cudaMemsetAsync(a.info, 0, sizeof(int) * a.batch, user_stream(h));
            return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                                    : cuda_fail(h, routine, "clearing info", e);
        }
        gpusvdStatus_t st;
        const size_t wsb = gesvj_device_bytes<T>(a.wantu, a.wantv, a.m, a.n, a.batch);
        void *ws = device_workspace(h, routine, wsb, &st);
        if (!ws) return st;
        e = cudaMemsetAsync(stats, 0, sizeof *stats, user_stream(h));
        if constexpr (!kTeamOnly<T>) {
            if (e == cudaSuccess && qr_first<T>(a.m, a.n, single)) {
                st = gesvj_qr_first<T>(h, routine, p, ws, user_stream(h));
                if (st != GPUSVD_STATUS_SUCCESS) return st;
                e = record_use(h);
                if (e != cudaSuccess)
                    return cuda_fail(h, routine, "recording the workspace's use", e);
                h->stats_on_gpu = true;
                return GPUSVD_STATUS_SUCCESS;
            }
        }
        if (e != cudaSuccess) return cuda_fail(h, routine, "resetting Jacobi statistics", e);
        st = jacobi_run<T>(h, routine, single, p, ws, wsb, user_stream(h));
        if (st != GPUSVD_STATUS_SUCCESS) return st;
        e = record_use(h);
        if (e != cudaSuccess) return cuda_fail(h, routine, "recording the workspace's use", e);
        h->stats_on_gpu = true;
        return GPUSVD_STATUS_SUCCESS;
    }

    e = cudaMemsetAsync(stats, 0, sizeof *stats, r->slot[0]);
    if (e == cudaSuccess) e = cudaStreamSynchronize(r->slot[0]);
    if (e != cudaSuccess) return cuda_fail(h, routine, "resetting Jacobi statistics", e);
    const int64_t k = std::min(a.m, a.n);
    const Operand ops[] = {
        {a.A, a.m, a.n, a.lda, a.sA, sizeof(T), true, false},
        {a.S, k, 1, k, a.sS, sizeof(*a.S), false, true},
        {a.U, a.wantu ? a.m : 0, k, a.ldu, a.sU, sizeof(T), false, a.wantu},
        {a.V, a.wantv ? a.n : 0, k, a.ldv, a.sV, sizeof(T), false, a.wantv},
    };
    [[maybe_unused]] const bool qr = qr_first<T>(a.m, a.n, single);
    const gpusvdStatus_t st = run_host_batched_status(
        h, routine, a.batch, ops, 4, a.info,
        [&](int64_t count) { return device_bytes<T>(single, a.wantu, a.wantv, a.m, a.n, count); },
        [&](const Chunk &c) -> gpusvdStatus_t {
            GesvjProblem<T> q = p;
            q.A = static_cast<T *>(c.dev[0]);
            q.lda = a.m, q.sA = a.m * a.n;
            q.S = static_cast<kernels::RealOf<T> *>(c.dev[1]);
            q.sS = k;
            q.U = a.wantu ? static_cast<T *>(c.dev[2]) : nullptr;
            q.ldu = std::max<int64_t>(1, a.m), q.sU = a.m * k;
            q.V = a.wantv ? static_cast<T *>(c.dev[3]) : nullptr;
            q.ldv = std::max<int64_t>(1, a.n), q.sV = a.n * k;
            q.batch = c.count;
            q.info = c.info;
            if constexpr (!kTeamOnly<T>)
                if (qr) return gesvj_qr_first<T>(h, routine, q, c.ws, c.stream);
            return jacobi_run<T>(h, routine, single, q, c.ws, c.ws_bytes, c.stream);
        });
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    h->stats_on_gpu = true;
    fetch_jacobi_stats(h);  // the host form is synchronous: read them now
    return GPUSVD_STATUS_SUCCESS;
}

#define GPUSVD_INSTANTIATE(T)                                                     \
    template size_t gesvj_device_bytes<T>(bool, bool, int64_t, int64_t, int64_t); \
    template gpusvdStatus_t gesvj<T>(gpusvdHandle_t, const char *, Form, const GesvjArgs<T> &);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
