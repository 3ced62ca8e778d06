// CUDA helpers of gpusvd-bench's GPU tables: checked calls, device buffers, the bench's GPU
// context, and event timing (warm-up, median, budget). Used by cusolver_rows.cpp only.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench.hpp"

namespace bench {

/// Element count as size_t (a function, so `Dev<int> x(sz(n));` declares a variable).
inline size_t sz(int64_t v) {
    return static_cast<size_t>(v);
}

struct GpuError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline std::string where(const char *what, const char *file, int line) {
    return std::string(what) + " (" + file + ":" + std::to_string(line) + ")";
}
inline void check_cuda(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess)
        throw GpuError(where(what, file, line) + ": " + cudaGetErrorName(e) + " " +
                       cudaGetErrorString(e));
}
inline void check_solver(cusolverStatus_t e, const char *what, const char *file, int line) {
    if (e != CUSOLVER_STATUS_SUCCESS)
        throw GpuError(where(what, file, line) + ": cusolverStatus " + std::to_string(int(e)));
}
inline void check_blas(cublasStatus_t e, const char *what, const char *file, int line) {
    if (e != CUBLAS_STATUS_SUCCESS)
        throw GpuError(where(what, file, line) + ": " + cublasGetStatusString(e));
}
#define CU(x) check_cuda((x), #x, __FILE__, __LINE__)
#define CS(x) check_solver((x), #x, __FILE__, __LINE__)
#define CB(x) check_blas((x), #x, __FILE__, __LINE__)

/// Device array of n elements (at least one is allocated), freed on scope exit.
template <class T>
class Dev {
public:
    explicit Dev(size_t n) : n_(n) { CU(cudaMalloc(&p_, std::max<size_t>(n, 1) * sizeof(T))); }
    ~Dev() { cudaFree(p_); }
    Dev(const Dev &) = delete;
    Dev &operator=(const Dev &) = delete;
    T *get() const { return p_; }
    size_t size() const { return n_; }
    void upload(const T *h, size_t n) {
        CU(cudaMemcpy(p_, h, n * sizeof(T), cudaMemcpyHostToDevice));
    }
    std::vector<T> download(size_t n) const {
        std::vector<T> h(n);
        CU(cudaMemcpy(h.data(), p_, n * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }

private:
    T *p_ = nullptr;
    size_t n_;
};

/// Pinned host buffer (cuSOLVER Xgeev's host workspace).
class Pinned {
public:
    explicit Pinned(size_t bytes) {
        if (bytes) CU(cudaMallocHost(&p_, bytes));
    }
    ~Pinned() {
        if (p_) cudaFreeHost(p_);
    }
    Pinned(const Pinned &) = delete;
    Pinned &operator=(const Pinned &) = delete;
    void *get() const { return p_; }

private:
    void *p_ = nullptr;
};

struct Gpu {
    const Options &o;
    Report &rep;
    const Ceilings &host;
    Ceilings dev;
    cudaStream_t s = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    cusolverDnHandle_t sol = nullptr;
    cublasHandle_t blas = nullptr;
    gpusvdHandle_t g = nullptr;
};

/// Device-to-device copy of n elements on the bench stream (the untimed input restore).
template <class T>
void restore(Gpu &c, T *dst, const T *src, size_t n) {
    CU(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyDeviceToDevice, c.s));
}

/// Times run() (work enqueued on c.s) with events: prep() restores inputs (untimed), one warm-up,
/// then up to reps runs within the budget. run() returns false on failure (error in *err).
template <class Prep, class Run>
Stat time_gpu(Gpu &c, const Budget &b, Prep &&prep, Run &&run, const std::string *err) {
    auto once = [&](double *ms) {
        prep();
        CU(cudaStreamSynchronize(c.s));
        CU(cudaEventRecord(c.e0, c.s));
        if (!run()) {
            CU(cudaStreamSynchronize(c.s));
            return false;
        }
        CU(cudaEventRecord(c.e1, c.s));
        CU(cudaEventSynchronize(c.e1));
        CU(cudaGetLastError());
        float f = 0;
        CU(cudaEventElapsedTime(&f, c.e0, c.e1));
        *ms = f;
        return true;
    };
    Stat fail;
    fail.note = err && !err->empty() ? *err : "error";
    double warm = 0;
    if (!once(&warm)) {
        fail.note = err && !err->empty() ? *err : "error";
        return fail;
    }
    if (warm > 0.5e3 * b.seconds) return stat_from({warm});
    std::vector<double> samples;
    const double start = now_ms();
    for (int r = 0; r < std::max(1, b.reps); ++r) {
        double ms = 0;
        if (!once(&ms)) {
            fail.note = err && !err->empty() ? *err : "error";
            return fail;
        }
        samples.push_back(ms);
        if (now_ms() - start > 1e3 * b.seconds) break;
    }
    return stat_from(samples);
}

/// Times a gpusvd `_gpu` call. NOT_SUPPORTED (no GPU kernel yet) and NO_DEVICE give an "n/a"
/// note; any other failure is an error of the row.
template <class Prep, class Call>
Stat time_gpusvd(Gpu &c, Prep &&prep, Call &&call, Row &r) {
    std::string err;
    bool hard = false;
    Stat s = time_gpu(
        c, c.o.budget(), prep,
        [&] {
            const gpusvdStatus_t st = call();
            if (st == GPUSVD_STATUS_SUCCESS) return true;
            if (st == GPUSVD_STATUS_NOT_SUPPORTED)
                err = "n/a (not supported yet)";
            else if (st == GPUSVD_STATUS_NO_DEVICE)
                err = "n/a (" + status_text(c.g, st) + ")";
            else {
                err = "ERROR " + status_text(c.g, st);
                hard = true;
            }
            return false;
        },
        &err);
    if (hard) r.failed = true;
    return s;
}

/// Host time of the same case, or a note when --no-host. Budget halved: the host column is
/// context, not the subject.
inline Budget host_budget(const Gpu &c) {
    return Budget{c.o.reps, c.o.budget_s / 2};
}

/// Counts of info > 0 and info < 0 in a downloaded info array.
inline std::string info_summary(const std::vector<int> &info, bool *bad) {
    int64_t pos = 0, neg = 0;
    for (int v : info) {
        pos += v > 0;
        neg += v < 0;
    }
    if (neg) *bad = true;
    if (!pos && !neg) return "";
    return " info>0: " + std::to_string(pos) + (neg ? " info<0: " + std::to_string(neg) : "");
}

inline std::vector<double> sorted_desc(std::vector<double> v, size_t per, size_t count) {
    for (size_t i = 0; i < count; ++i)
        std::sort(v.begin() + i * per, v.begin() + (i + 1) * per, std::greater<double>());
    return v;
}

/// Largest distance between two sets of n complex eigenvalues (greedy nearest matching),
/// relative to the largest |lambda|.
inline double eig_distance(size_t n, const std::complex<double> *a, const std::complex<double> *b) {
    std::vector<bool> used(n, false);
    double d = 0, s = 0;
    for (size_t i = 0; i < n; ++i) {
        size_t best = n;
        double bd = INFINITY;
        for (size_t j = 0; j < n; ++j)
            if (!used[j] && std::abs(a[i] - b[j]) < bd) {
                bd = std::abs(a[i] - b[j]);
                best = j;
            }
        if (best == n) return NAN;
        used[best] = true;
        d = std::max(d, bd);
        s = std::max(s, std::abs(b[best]));
    }
    return s > 0 ? d / s : d;
}

inline std::string dims(int64_t m, int64_t n) {
    return std::to_string(m) + "x" + std::to_string(n);
}

}  // namespace bench
