// Communicators and the distributed tall QR's entry points: validate on this rank, take the
// workspace, agree with the other ranks (one all-reduce), then run on the CPU or the GPU.
#include <cstring>
#include <new>
#include <vector>

#include "api_common.hpp"
#include "comm.hpp"
#include "cpu/dist_pca.hpp"
#include "cpu/dist_qr.hpp"
#include "dist_dispatch.hpp"
#include "lapack_sizes.hpp"

namespace gpusvd {

gpusvdStatus_t allreduce_host(gpusvdHandle_t h, const char *routine, const char *what,
                              gpusvdComm_t c, void *buf, int64_t count, gpusvdDataType_t type,
                              gpusvdReduceOp_t op) {
    if (count == 0 || c->size == 1) return GPUSVD_STATUS_SUCCESS;
    if (c->kind == gpusvdComm_st::Kind::Nccl)
        return gpu::nccl_allreduce_host(h, routine, what, c, buf, count, type, op);
    const int rc = c->fn(buf, count, type, op, c->user);
    if (rc != 0)
        return fail(h, GPUSVD_STATUS_EXECUTION_FAILED,
                    "%s: the communicator's all-reduce of %s returned %d", routine, what, rc);
    return GPUSVD_STATUS_SUCCESS;
}

namespace {

// One slot per rank in the agreement table.
enum Slot { kStatus, kRows, kCols, kOption, kForm, kSlots };

}  // namespace

gpusvdStatus_t agree(gpusvdHandle_t h, const char *routine, gpusvdComm_t c, gpusvdStatus_t local,
                     int64_t m_local, int64_t n, const char *option_name, int64_t option,
                     bool device, Agreement *out) {
    std::vector<int64_t> table;
    try {
        table.assign(static_cast<size_t>(c->size) * kSlots, 0);
    } catch (const std::bad_alloc &) {
        // Cannot take part: the other ranks wait, as after any failed collective.
        return fail(h, GPUSVD_STATUS_ALLOC_FAILED, "%s: no memory for the argument exchange",
                    routine);
    }
    int64_t *mine = table.data() + static_cast<size_t>(c->rank) * kSlots;
    mine[kStatus] = local, mine[kRows] = m_local, mine[kCols] = n, mine[kOption] = option;
    mine[kForm] = device ? 1 : 0;
    const std::string own = local != GPUSVD_STATUS_SUCCESS ? h->error : std::string();
    const gpusvdStatus_t st = allreduce_host(h, routine, "the ranks' arguments", c, table.data(),
                                             static_cast<int64_t>(table.size()),
                                             GPUSVD_DATA_INT64, GPUSVD_REDUCE_SUM);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    if (local != GPUSVD_STATUS_SUCCESS) {  // keep this rank's own message
        h->error = own;
        return local;
    }
    int64_t total = 0, offset = 0;
    const int64_t *first = table.data();
    for (int r = 0; r < c->size; ++r) {
        const int64_t *s = table.data() + static_cast<size_t>(r) * kSlots;
        if (s[kStatus] != GPUSVD_STATUS_SUCCESS)
            return fail(h, static_cast<gpusvdStatus_t>(s[kStatus]),
                        "%s: rank %d of %d refused the call (status %lld; its message says why); "
                        "nothing was changed",
                        routine, r, c->size, static_cast<long long>(s[kStatus]));
        if (s[kCols] != first[kCols] || s[kOption] != first[kOption] || s[kForm] != first[kForm])
            return fail(h, GPUSVD_STATUS_INVALID_VALUE,
                        "%s: the ranks disagree: rank %d passed n = %lld, %s = %lld, %s form; "
                        "rank 0 n = %lld, %s = %lld, %s form",
                        routine, r, static_cast<long long>(s[kCols]), option_name,
                        static_cast<long long>(s[kOption]), s[kForm] ? "device" : "host",
                        static_cast<long long>(first[kCols]), option_name,
                        static_cast<long long>(first[kOption]), first[kForm] ? "device" : "host");
        if (r < c->rank) offset += s[kRows];
        if (__builtin_add_overflow(total, s[kRows], &total))
            return fail(h, GPUSVD_STATUS_INVALID_VALUE,
                        "%s: the ranks' rows add up to more than 2^63 - 1", routine);
    }
    if (total < n)
        return fail(h, GPUSVD_STATUS_INVALID_VALUE,
                    "%s: argument n = %lld is invalid: must be <= the rows of all ranks, %lld",
                    routine, static_cast<long long>(n), static_cast<long long>(total));
    out->m_global = total;
    out->row_offset = offset;
    return GPUSVD_STATUS_SUCCESS;
}

namespace {

bool comm_ok(Args &a, gpusvdComm_t c) {
    if (a.ok() && !c)
        a.set(fail(a.handle(), GPUSVD_STATUS_INVALID_VALUE,
                   "%s: argument comm = NULL is invalid: create one with gpusvdCommCreate or "
                   "gpusvdCommCreateNccl",
                   a.routine()));
    return a.ok();
}

// Where a call on communicator c runs: NCCL on the GPU; a host communicator on the handle's
// backend for host forms (never by size: every rank must decide alike), on the GPU for `_gpu`.
bool dist_on_gpu(Args &a, gpusvdComm_t c, Form form) {
    if (!a.ok()) return false;
    if (form == Form::Device || c->kind == gpusvdComm_st::Kind::Nccl) {
        require_gpu(a, true,
                    form == Form::Device ? "device-memory form needs a GPU"
                                         : "an NCCL communicator needs a GPU",
                    "", "this routine");
        if (a.ok() && a.handle()->backend == GPUSVD_BACKEND_CPU && form == Form::Host)
            a.set(fail(a.handle(), GPUSVD_STATUS_NOT_SUPPORTED,
                       "%s: an NCCL communicator runs on the GPU but the handle's backend is CPU; "
                       "use a communicator made with gpusvdCommCreate",
                       a.routine()));
        return a.ok();
    }
    if (a.handle()->backend != GPUSVD_BACKEND_GPU) return false;
    require_gpu(a, true, "backend GPU requested", "", "this routine");
    return a.ok();
}

template <class T>
gpusvdStatus_t geqrf_dist_entry(const char *name, Form form, gpusvdHandle_t h, gpusvdComm_t c,
                                gpusvdOrth_t orth, int64_t m, int64_t n, T *A, int64_t lda, T *R,
                                int64_t ldr, int *info) {
    Args a(h, name);
    if (!a.ok() || !comm_ok(a, c)) return a.status();
    a.column_major_only().orth("orth", orth).nonneg("mLocal", m).nonneg("n", n);
    a.ld("lda", lda, m, "mLocal").ld("ldr", ldr, n, "n");
    a.extent("A", m, n, lda, 0, 1, sizeof(T)).extent("R", n, n, ldr, 0, 1, sizeof(T));
    a.ptr("A", A, m > 0 && n > 0).ptr("R", R, n > 0).ptr("info", info, true);
    const bool on_gpu = dist_on_gpu(a, c, form);
    if (on_gpu)
        return gpu::geqrf_dist<T>(h, name, form, c, orth == GPUSVD_ORTH_MGS2, m, n, A, lda, R, ldr,
                                  info);
    if (n > 0) {  // a zero-size call reaches no LAPACK: it succeeds whatever mLocal and lda are
        a.lapack_int("mLocal", m).lapack_int("lda", lda).lapack_int("ldr", ldr);
        a.lapack_int("n * n", sat_mul(n, n));
    }
    void *ws = nullptr;
    if (a.ok() && n > 0) {
        gpusvdStatus_t st;
        ws = host_workspace(h, name, cpu::dist_qr_bytes<T>(n), &st);
        if (!ws) a.set(st);
    }
    Agreement g;
    const gpusvdStatus_t st = agree(h, name, c, a.status(), m, n, "orth", orth, form == Form::Device, &g);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    if (n == 0) {
        *info = 0;
        return GPUSVD_STATUS_SUCCESS;
    }
    return cpu::dist_qr<T>(h, name, c, g, m, n, A, lda, R, ldr, info, ws);
}

template <class T>
gpusvdStatus_t geqrf_dist_size(const char *name, gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m,
                               int64_t n, size_t *dev, size_t *host) {
    Args a(h, name);
    a.orth("orth", orth).nonneg("mLocal", m).nonneg("n", n);
    const bool gpu_ok = a.ok() && device_status().usable;
    // The CPU path's limits, as the call applies them (and its layout's sizes stay in range).
    const LapackSizes cpu = LapackSizes().add("mLocal", m).add("n * n", sat_mul(n, n));
    if (!gpu_ok && n > 0) cpu.check(a);
    if (!a.ok()) return a.status();
    set_sizes(dev, host, n > 0 && gpu_ok ? gpu::geqrf_dist_device_bytes<T>(m, n) : 0,
              n > 0 && cpu.fit() ? cpu::dist_qr_bytes<T>(n) : 0);
    return GPUSVD_STATUS_SUCCESS;
}

template <class T>
gpusvdStatus_t pca_dist_entry(const char *name, Form form, gpusvdHandle_t h, gpusvdComm_t c,
                              int64_t m, int64_t n, const T *X, int64_t ldx, int64_t k, T *C,
                              int64_t ldc, T *var, T *scores, int64_t lds, T *mean, int *info) {
    Args a(h, name);
    if (!a.ok() || !comm_ok(a, c)) return a.status();
    a.column_major_only().nonneg("mLocal", m).nonneg("n", n).range("k", k, 0, n, "must be in [0, n]");
    a.ld("ldx", ldx, m, "mLocal").ld("ldc", ldc, n, "n");
    if (scores) a.ld("lds", lds, m, "mLocal");
    a.extent("X", m, n, ldx, 0, 1, sizeof(T)).extent("components", n, k, ldc, 0, 1, sizeof(T));
    if (scores) a.extent("scores", m, k, lds, 0, 1, sizeof(T));
    const bool work = n > 0 && k > 0;
    a.ptr("X", X, work && m > 0).ptr("components", C, work).ptr("explainedVariance", var, work);
    a.ptr("info", info, true);
    if (dist_on_gpu(a, c, form))
        return gpu::pca_dist<T>(h, name, form, c, m, n, X, ldx, k, C, ldc, var, scores, lds, mean,
                                info);
    if (work) {  // a zero-size call reaches no LAPACK
        a.lapack_int("mLocal", m).lapack_int("ldx", ldx).lapack_int("ldc", ldc);
        if (scores) a.lapack_int("lds", lds);
        a.lapack_int("n * n", sat_mul(n, n)).lapack_int("mLocal * n", sat_mul(m, n));
    }
    void *ws = nullptr;
    if (a.ok() && work) {
        gpusvdStatus_t st;
        ws = host_workspace(h, name, cpu::dist_pca_bytes<T>(m, n, k), &st);
        if (!ws) a.set(st);
    }
    Agreement g;
    gpusvdStatus_t st = agree(h, name, c, a.status(), m, n, "k", k, form == Form::Device, &g);
    if (st != GPUSVD_STATUS_SUCCESS) return st;
    if (g.m_global < 2 && work)
        return fail(h, GPUSVD_STATUS_INVALID_VALUE,
                    "%s: argument mLocal = %lld is invalid: the ranks hold %lld samples in all, "
                    "PCA needs at least 2",
                    name, static_cast<long long>(m), static_cast<long long>(g.m_global));
    if (!work) {
        *info = 0;
        return GPUSVD_STATUS_SUCCESS;
    }
    return cpu::dist_pca<T>(h, name, c, g, m, n, X, ldx, k, C, ldc, var, scores, lds, mean, info,
                            ws);
}

template <class T>
gpusvdStatus_t pca_dist_size(const char *name, gpusvdHandle_t h, int64_t m, int64_t n, int64_t k,
                             size_t *dev, size_t *host) {
    Args a(h, name);
    a.nonneg("mLocal", m).nonneg("n", n).range("k", k, 0, n, "must be in [0, n]");
    const bool gpu_ok = a.ok() && device_status().usable;
    const bool work = n > 0 && k > 0;
    // The CPU path's limits, as the call applies them (and its layout's sizes stay in range).
    const LapackSizes cpu = LapackSizes()
                                .add("mLocal", m)
                                .add("n * n", sat_mul(n, n))
                                .add("mLocal * n", sat_mul(m, n));
    if (!gpu_ok && work) cpu.check(a);
    if (!a.ok()) return a.status();
    set_sizes(dev, host, work && gpu_ok ? gpu::pca_dist_device_bytes<T>(m, n, k) : 0,
              work && cpu.fit() ? cpu::dist_pca_bytes<T>(m, n, k) : 0);
    return GPUSVD_STATUS_SUCCESS;
}

}  // namespace
}  // namespace gpusvd

using gpusvd::Form;

extern "C" {

GPUSVD_API gpusvdStatus_t gpusvdCommCreate(gpusvdComm_t *comm, int size, int rank,
                                           gpusvdAllreduceFn_t allreduce, void *user) {
    const char *name = "gpusvdCommCreate";
    if (!comm || !allreduce)
        return gpusvd::fail(nullptr, GPUSVD_STATUS_INVALID_VALUE,
                            "%s: argument %s = NULL is invalid", name, !comm ? "comm" : "allreduce");
    if (size < 1)
        return gpusvd::fail(nullptr, GPUSVD_STATUS_INVALID_VALUE,
                            "%s: argument size = %d is invalid: must be >= 1", name, size);
    if (rank < 0 || rank >= size)
        return gpusvd::fail(nullptr, GPUSVD_STATUS_INVALID_VALUE,
                            "%s: argument rank = %d is invalid: must be in [0, size) = [0, %d)",
                            name, rank, size);
    auto *c = new (std::nothrow) gpusvdComm_st{gpusvdComm_st::Kind::Host};
    if (!c) return gpusvd::fail(nullptr, GPUSVD_STATUS_ALLOC_FAILED, "%s: out of memory", name);
    c->size = size, c->rank = rank, c->fn = allreduce, c->user = user;
    *comm = c;
    return GPUSVD_STATUS_SUCCESS;
}

GPUSVD_API gpusvdStatus_t gpusvdCommCreateNccl(gpusvdComm_t *comm, void *ncclComm) {
    const char *name = "gpusvdCommCreateNccl";
    if (!comm || !ncclComm)
        return gpusvd::fail(nullptr, GPUSVD_STATUS_INVALID_VALUE,
                            "%s: argument %s = NULL is invalid", name, !comm ? "comm" : "ncclComm");
    int size = 0, rank = 0, device = -1;
    char why[256];
    if (!gpusvd::gpu::nccl_query(ncclComm, &size, &rank, &device, why, sizeof why))
        return gpusvd::fail(nullptr, GPUSVD_STATUS_NOT_SUPPORTED, "%s: %s", name, why);
    auto *c = new (std::nothrow) gpusvdComm_st{gpusvdComm_st::Kind::Nccl};
    if (!c) return gpusvd::fail(nullptr, GPUSVD_STATUS_ALLOC_FAILED, "%s: out of memory", name);
    c->size = size, c->rank = rank, c->nccl = ncclComm, c->device = device;
    *comm = c;
    return GPUSVD_STATUS_SUCCESS;
}

GPUSVD_API gpusvdStatus_t gpusvdCommGetRank(gpusvdComm_t comm, int *size, int *rank) {
    if (!comm)
        return gpusvd::fail(nullptr, GPUSVD_STATUS_INVALID_VALUE,
                            "gpusvdCommGetRank: argument comm = NULL is invalid");
    if (size) *size = comm->size;
    if (rank) *rank = comm->rank;
    return GPUSVD_STATUS_SUCCESS;
}

GPUSVD_API gpusvdStatus_t gpusvdCommDestroy(gpusvdComm_t comm) {
    if (comm) {
        gpusvd::gpu::comm_release(comm);
        delete comm;
    }
    return GPUSVD_STATUS_SUCCESS;
}

#define GPUSVD_GEQRF_DIST(X, T)                                                                   \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geqrf_mgs_dist(gpusvdHandle_t h, gpusvdComm_t c,        \
                                                         gpusvdOrth_t orth, int64_t m, int64_t n, \
                                                         T *A, int64_t lda, T *R, int64_t ldr,    \
                                                         int *info) {                             \
        return gpusvd::geqrf_dist_entry<T>("gpusvd_" #X "geqrf_mgs_dist", Form::Host, h, c, orth, \
                                           m, n, A, lda, R, ldr, info);                           \
    }                                                                                             \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geqrf_mgs_dist_gpu(                                     \
        gpusvdHandle_t h, gpusvdComm_t c, gpusvdOrth_t orth, int64_t m, int64_t n, T *A,          \
        int64_t lda, T *R, int64_t ldr, int *info) {                                              \
        return gpusvd::geqrf_dist_entry<T>("gpusvd_" #X "geqrf_mgs_dist_gpu", Form::Device, h, c, \
                                           orth, m, n, A, lda, R, ldr, info);                     \
    }                                                                                             \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##geqrf_mgs_dist_bufferSize(                              \
        gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m, int64_t n, size_t *dev, size_t *host) {   \
        return gpusvd::geqrf_dist_size<T>("gpusvd_" #X "geqrf_mgs_dist_bufferSize", h, orth, m,  \
                                          n, dev, host);                                          \
    }

GPUSVD_GEQRF_DIST(s, float)
GPUSVD_GEQRF_DIST(d, double)

#define GPUSVD_PCA_DIST(X, T)                                                                     \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##pca_dist(                                               \
        gpusvdHandle_t h, gpusvdComm_t c, int64_t m, int64_t n, const T *A, int64_t lda,          \
        int64_t k, T *C, int64_t ldc, T *var, T *scores, int64_t lds, T *mean, int *info) {       \
        return gpusvd::pca_dist_entry<T>("gpusvd_" #X "pca_dist", Form::Host, h, c, m, n, A, lda, \
                                         k, C, ldc, var, scores, lds, mean, info);                \
    }                                                                                             \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##pca_dist_gpu(                                           \
        gpusvdHandle_t h, gpusvdComm_t c, int64_t m, int64_t n, const T *A, int64_t lda,          \
        int64_t k, T *C, int64_t ldc, T *var, T *scores, int64_t lds, T *mean, int *info) {       \
        return gpusvd::pca_dist_entry<T>("gpusvd_" #X "pca_dist_gpu", Form::Device, h, c, m, n,   \
                                         A, lda, k, C, ldc, var, scores, lds, mean, info);        \
    }                                                                                             \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##pca_dist_bufferSize(                                    \
        gpusvdHandle_t h, int64_t m, int64_t n, int64_t k, size_t *dev, size_t *host) {           \
        return gpusvd::pca_dist_size<T>("gpusvd_" #X "pca_dist_bufferSize", h, m, n, k, dev,      \
                                        host);                                                    \
    }

GPUSVD_PCA_DIST(s, float)
GPUSVD_PCA_DIST(d, double)
}
