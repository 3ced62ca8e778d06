// Entry points of gesvj and gesvj_batched: validate once, then dispatch.
#include <atomic>
#include <cstdio>

#include "api_common.hpp"
#include "api_complex.hpp"
#include "cpu/gesvj.hpp"
#include "gpu_dispatch.hpp"
#include "lapack_sizes.hpp"

namespace gpusvd {
namespace {

// cuda/gesvj/: real data of every size; complex data where the Jacobi team kernels serve it
// (gesvj_gpu_kernel).
template <class T>
constexpr bool kGesvjOnGpu = true;

/// Whether a call has a GPU kernel: the one rule of the entry points and _bufferSize. Complex
/// data: gpu::gesvj_complex_served, asked only where a device is usable (it reads the shared
/// memory size of the handle's device).
template <class T>
bool gesvj_gpu_kernel(gpusvdHandle_t h, bool wantu, bool wantv, int64_t m, int64_t n,
                      int64_t batch) {
    if constexpr (is_complex_v<T>)
        return device_status().usable &&
               gpu::gesvj_complex_served(h, sizeof(T), wantu, wantv, m, n, batch);
    else
        return kGesvjOnGpu<T>;
}

/// What a refused complex call's message names: the sizes the GPU takes (the largest square
/// matrix whose working copy fits in shared memory for these jobs, found by bisection).
template <class T>
std::string gesvj_kernel_subject(gpusvdHandle_t h, bool wantu, bool wantv, int64_t m, int64_t n,
                                 int64_t batch) {
    if constexpr (!is_complex_v<T>) {
        return gpu_kernel_subject<T>();
    } else {
        int64_t lo = 0, hi = 4096;  // served at lo x lo (or lo = 0), not at hi x hi
        while (hi - lo > 1) {
            const int64_t mid = (lo + hi) / 2;
            (gesvj_gpu_kernel<T>(h, wantu, wantv, mid, mid, 1) ? lo : hi) = mid;
        }
        char buf[400];
        std::snprintf(buf, sizeof buf,
                      "complex matrices of %lld x %lld in a batch of %lld (the GPU takes one "
                      "complex matrix whose working copy fits in a block's shared memory, square "
                      "up to %lld x %lld for these jobs, and batches of complex matrices with "
                      "min(m, n) < %lld; with cuBLAS loaded, any size through the blocked Jacobi)",
                      static_cast<long long>(m), static_cast<long long>(n),
                      static_cast<long long>(batch), static_cast<long long>(lo),
                      static_cast<long long>(lo),
                      static_cast<long long>(gpu::kGesvjComplexBatchMaxCols));
        return buf;
    }
}

// A rejected call leaves the statistics of the handle's last gesvj as they were; a call that
// runs starts them afresh. A pending `_gpu` call's statistics are read first by the host form
// (synchronous anyway), so the device copy never has to be restored.
class JacobiStatsScope {
public:
    JacobiStatsScope(gpusvdHandle_t h, Form form) : h_(h) {
        if (form == Form::Host) gpu::fetch_jacobi_stats(h);
        sweeps_ = h->last_sweeps;
        off_ = h->last_off_norm;
        on_gpu_ = h->stats_on_gpu;
        h->last_sweeps = 0;
        h->last_off_norm = 0.0;
        h->stats_on_gpu = false;
    }
    gpusvdStatus_t finish(gpusvdStatus_t st) {
        if (is_rejection(st)) {
            h_->last_sweeps = sweeps_;
            h_->last_off_norm = off_;
            h_->stats_on_gpu = on_gpu_;
        }
        return st;
    }

private:
    gpusvdHandle_t h_;
    int sweeps_;
    double off_;
    bool on_gpu_;
};

// T: float, double, std::complex<float>, std::complex<double>; S is real.
template <class T>
gpusvdStatus_t gesvj_entry(const char *name, Form form, bool batched, gpusvdHandle_t h,
                           gpusvdJob_t jobu, gpusvdJob_t jobv, int64_t m, int64_t n, T *A,
                           int64_t lda, int64_t sA, real_t<T> *S, int64_t sS, T *U, int64_t ldu,
                           int64_t sU, T *V, int64_t ldv, int64_t sV, int64_t batch, int *info) {
    Args a(h, name);
    a.column_major_only();  // gpusvdSetMatrixLayout: column-major matrices only
    a.job("jobu", jobu).job("jobv", jobv).nonneg("m", m).nonneg("n", n);
    if (batched) a.nonneg("batchCount", batch);
    const bool wu = jobu == GPUSVD_JOB_VEC, wv = jobv == GPUSVD_JOB_VEC;
    const int64_t k = std::min(m, n);
    a.ld("lda", lda, m, "m");
    if (wu) a.ld("ldu", ldu, m, "m");
    if (wv) a.ld("ldv", ldv, n, "n");
    if (batched) {
        a.stride("strideA", sA, sat_mul(lda, n), batch, "lda * n");
        a.stride("strideS", sS, k, batch, "min(m, n)");
        if (wu) a.stride("strideU", sU, sat_mul(ldu, k), batch, "ldu * min(m, n)");
        if (wv) a.stride("strideV", sV, sat_mul(ldv, k), batch, "ldv * min(m, n)");
    }
    a.extent("A", m, n, lda, sA, batch, sizeof(T))
        .extent("S", k, 1, k, sS, batch, sizeof(real_t<T>));
    if (wu) a.extent("U", m, k, ldu, sU, batch, sizeof(T));
    if (wv) a.extent("V", n, k, ldv, sV, batch, sizeof(T));
    const bool work = k > 0 && batch > 0;
    a.ptr("A", A, work).ptr("S", S, work).ptr("U", U, work && wu).ptr("V", V, work && wv);
    a.ptr("info", info, batch > 0);
    auto run_gpu = [&]() -> gpusvdStatus_t {
        if constexpr (kGesvjOnGpu<T>) {
            using G = gpu_t<T>;
            const GesvjArgs<G> g{wu,
                                 wv,
                                 m,
                                 n,
                                 gpu_ptr(A),
                                 lda,
                                 sA,
                                 S,
                                 sS,
                                 wu ? gpu_ptr(U) : nullptr,
                                 ldu,
                                 sU,
                                 wv ? gpu_ptr(V) : nullptr,
                                 ldv,
                                 sV,
                                 batch,
                                 info};
            return gpu::gesvj<G>(h, name, form, g);
        } else {
            return fail(h, GPUSVD_STATUS_INTERNAL_ERROR, "%s: no GPU path", name);
        }
    };
    // (backend CPU never asks: its host forms do not run on the GPU)
    const bool gpu_kernel = a.ok() && (form == Form::Device || h->backend != GPUSVD_BACKEND_CPU) &&
                            gesvj_gpu_kernel<T>(h, wu, wv, m, n, batch);
    const std::string subject =
        gpu_kernel || !a.ok() ? std::string() : gesvj_kernel_subject<T>(h, wu, wv, m, n, batch);
    if (form == Form::Device) {
        require_device_form(a, gpu_kernel, subject.c_str());
        if (!a.ok()) return a.status();
        JacobiStatsScope stats(h, form);
        return stats.finish(batch > 0 ? run_gpu() : GPUSVD_STATUS_SUCCESS);
    }
    const bool on_gpu =
        host_runs_on_gpu(a, gpu_kernel, input_bytes<T>(m, n, batch), subject.c_str());
    if (!on_gpu && work) gesvj_lapack_sizes(m, n, lda, wu ? ldu : 1, wv ? ldv : 1).check(a);
    if (!a.ok()) return a.status();

    JacobiStatsScope stats(h, form);
    if (!work) {
        zero_info(info, batch);
        return stats.finish(GPUSVD_STATUS_SUCCESS);
    }
    if (on_gpu) return stats.finish(run_gpu());
    std::atomic<int> sweeps{0};
    std::atomic<double> off{0.0};
    const double tol = h->jacobi_tol;
    const gpusvdStatus_t st =
        run_cpu_batch(h, name, batch, cpu::gesvj_bytes<T>(m, n), info, [&](int64_t b, void *ws) {
            cpu::JacobiStats js;
            info[b] =
                cpu::gesvj<T>(wu, wv, m, n, A + b * sA, lda, S + b * sS, wu ? U + b * sU : nullptr,
                              ldu, wv ? V + b * sV : nullptr, ldv, tol, ws, &js);
            int s = sweeps.load();
            while (js.sweeps > s && !sweeps.compare_exchange_weak(s, js.sweeps)) {
            }
            double o = off.load();
            while (js.off_norm > o && !off.compare_exchange_weak(o, js.off_norm)) {
            }
        });
    h->last_sweeps = sweeps.load();
    h->last_off_norm = off.load();
    return stats.finish(st);
}

template <class T>
gpusvdStatus_t gesvj_size(const char *name, gpusvdHandle_t h, gpusvdJob_t jobu, gpusvdJob_t jobv,
                          int64_t m, int64_t n, int64_t batch, size_t *dev, size_t *host) {
    Args a(h, name);
    a.column_major_only();  // gpusvdSetMatrixLayout: column-major matrices only
    a.job("jobu", jobu).job("jobv", jobv).nonneg("m", m).nonneg("n", n).nonneg("batchCount", batch);
    const bool wu = jobu == GPUSVD_JOB_VEC, wv = jobv == GPUSVD_JOB_VEC;
    const bool gpu_ok = a.ok() && gpu_reachable(h) && gesvj_gpu_kernel<T>(h, wu, wv, m, n, batch);
    const bool work = m > 0 && n > 0 && batch > 0;
    const LapackSizes cpu =
        gesvj_lapack_sizes(m, n, std::max<int64_t>(1, m), wu ? m : 1, wv ? n : 1);
    if (!gpu_ok && work) cpu.check(a);
    if (!a.ok()) return a.status();
    size_t dev_bytes = 0;
    if constexpr (kGesvjOnGpu<T>)
        if (work && gpu_ok) dev_bytes = gpu::gesvj_device_bytes<gpu_t<T>>(wu, wv, m, n, batch);
    set_sizes(dev, host, dev_bytes,
              work && cpu.fit() ? batch_bytes(cpu::gesvj_bytes<T>(m, n), batch) : 0);
    return GPUSVD_STATUS_SUCCESS;
}

}  // namespace
}  // namespace gpusvd

using gpusvd::Form;

#define GPUSVD_GESVJ(X, T, S_T)                                                                    \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##gesvj(                                                   \
        gpusvdHandle_t h, gpusvdJob_t jobu, gpusvdJob_t jobv, int64_t m, int64_t n, T *A,          \
        int64_t lda, S_T *S, T *U, int64_t ldu, T *V, int64_t ldv, int *info) {                    \
        return gpusvd::gesvj_entry("gpusvd_" #X "gesvj", Form::Host, false, h, jobu, jobv, m, n,   \
                                   gpusvd::internal(A), lda, 0, S, 0, gpusvd::internal(U), ldu, 0, \
                                   gpusvd::internal(V), ldv, 0, 1, info);                          \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##gesvj_gpu(                                               \
        gpusvdHandle_t h, gpusvdJob_t jobu, gpusvdJob_t jobv, int64_t m, int64_t n, T *A,          \
        int64_t lda, S_T *S, T *U, int64_t ldu, T *V, int64_t ldv, int *info) {                    \
        return gpusvd::gesvj_entry("gpusvd_" #X "gesvj_gpu", Form::Device, false, h, jobu, jobv,   \
                                   m, n, gpusvd::internal(A), lda, 0, S, 0, gpusvd::internal(U),   \
                                   ldu, 0, gpusvd::internal(V), ldv, 0, 1, info);                  \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##gesvj_bufferSize(gpusvdHandle_t h, gpusvdJob_t jobu,     \
                                                           gpusvdJob_t jobv, int64_t m, int64_t n, \
                                                           size_t *dev, size_t *host) {            \
        return gpusvd::gesvj_size<gpusvd::internal_t<T>>("gpusvd_" #X "gesvj_bufferSize", h, jobu, \
                                                         jobv, m, n, 1, dev, host);                \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##gesvj_batched(                                           \
        gpusvdHandle_t h, gpusvdJob_t jobu, gpusvdJob_t jobv, int64_t m, int64_t n, T *A,          \
        int64_t lda, int64_t sA, S_T *S, int64_t sS, T *U, int64_t ldu, int64_t sU, T *V,          \
        int64_t ldv, int64_t sV, int64_t batch, int *info) {                                       \
        return gpusvd::gesvj_entry("gpusvd_" #X "gesvj_batched", Form::Host, true, h, jobu, jobv,  \
                                   m, n, gpusvd::internal(A), lda, sA, S, sS, gpusvd::internal(U), \
                                   ldu, sU, gpusvd::internal(V), ldv, sV, batch, info);            \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##gesvj_batched_gpu(                                       \
        gpusvdHandle_t h, gpusvdJob_t jobu, gpusvdJob_t jobv, int64_t m, int64_t n, T *A,          \
        int64_t lda, int64_t sA, S_T *S, int64_t sS, T *U, int64_t ldu, int64_t sU, T *V,          \
        int64_t ldv, int64_t sV, int64_t batch, int *info) {                                       \
        return gpusvd::gesvj_entry("gpusvd_" #X "gesvj_batched_gpu", Form::Device, true, h, jobu,  \
                                   jobv, m, n, gpusvd::internal(A), lda, sA, S, sS,                \
                                   gpusvd::internal(U), ldu, sU, gpusvd::internal(V), ldv, sV,     \
                                   batch, info);                                                   \
    }                                                                                              \
    GPUSVD_API gpusvdStatus_t gpusvd_##X##gesvj_batched_bufferSize(                                \
        gpusvdHandle_t h, gpusvdJob_t jobu, gpusvdJob_t jobv, int64_t m, int64_t n, int64_t batch, \
        size_t *dev, size_t *host) {                                                               \
        return gpusvd::gesvj_size<gpusvd::internal_t<T>>("gpusvd_" #X "gesvj_batched_bufferSize",  \
                                                         h, jobu, jobv, m, n, batch, dev, host);   \
    }

extern "C" {
GPUSVD_GESVJ(s, float, float)
GPUSVD_GESVJ(d, double, double)
GPUSVD_GESVJ(c, gpusvdComplex_t, float)
GPUSVD_GESVJ(z, gpusvdDoubleComplex_t, double)
}
