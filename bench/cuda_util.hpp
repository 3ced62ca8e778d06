// CUDA helpers of gpusvd-bench's GPU tables: checked calls, device buffers, the bench's GPU
// context, event timing (warm-up, median, budget), batches tiled from a pool of distinct
// matrices, and the result checks. Used by cusolver_rows.cpp (set-up), gpu_gesvj_rows.cpp,
// gpu_geqrf_rows.cpp, gpu_pca_rows.cpp, gpu_bdsvd_rows.cpp and gpu_geev_rows.cpp.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench.hpp"

namespace bench {

/// cuBLAS/cuSOLVER's element type for T (cuComplex / cuDoubleComplex for std::complex: the same
/// layout) and its cudaDataType; cu() casts a pointer for the typed entry points.
template <class T>
struct CuOf {
    using type = T;
};
template <>
struct CuOf<std::complex<float>> {
    using type = cuComplex;
};
template <>
struct CuOf<std::complex<double>> {
    using type = cuDoubleComplex;
};
template <class T>
typename CuOf<T>::type *cu(T *p) {
    return reinterpret_cast<typename CuOf<T>::type *>(p);
}
template <class T>
const typename CuOf<T>::type *cu(const T *p) {
    return reinterpret_cast<const typename CuOf<T>::type *>(p);
}
template <class T>
constexpr cudaDataType cuda_type() {
    if constexpr (is_complex_v<T>)
        return sizeof(real_t<T>) == 4 ? CUDA_C_32F : CUDA_C_64F;
    else
        return sizeof(T) == 4 ? CUDA_R_32F : CUDA_R_64F;
}

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
    /// n elements from element `offset` on.
    std::vector<T> download(size_t n, size_t offset = 0) const {
        std::vector<T> h(n);
        CU(cudaMemcpy(h.data(), p_ + offset, n * sizeof(T), cudaMemcpyDeviceToHost));
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

/// A cuSOLVER parameter object, created by Create and destroyed on scope exit.
template <class P, cusolverStatus_t (*Create)(P *), cusolverStatus_t (*Destroy)(P)>
class SolverObject {
public:
    SolverObject() { CS(Create(&p_)); }
    ~SolverObject() { Destroy(p_); }
    SolverObject(const SolverObject &) = delete;
    SolverObject &operator=(const SolverObject &) = delete;
    P get() const { return p_; }

private:
    P p_ = nullptr;
};
using GesvdjParams =
    SolverObject<gesvdjInfo_t, cusolverDnCreateGesvdjInfo, cusolverDnDestroyGesvdjInfo>;
using DnParams = SolverObject<cusolverDnParams_t, cusolverDnCreateParams, cusolverDnDestroyParams>;

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

/// Budgets of the GPU tables: --budget / 2 for the GPU columns and --budget / 4 for the host
/// column (context, not the subject), so that the slow cases of a default run (the host's
/// single-matrix Jacobi, gpusvd's fallback paths) keep the whole run within minutes.
inline Budget gpu_budget(const Gpu &c) {
    return Budget{c.o.reps, c.o.budget_s / 2};
}
inline Budget host_budget(const Gpu &c) {
    return Budget{c.o.reps, c.o.budget_s / 4};
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

/// A Stat that only says why there is no time ("skipped (...)", "n/a (...)").
inline Stat note_only(const std::string &note) {
    Stat s;
    s.note = note;
    return s;
}

/// The run() of a timed gpusvd call: true on success; else *err says why: NOT_SUPPORTED (no GPU
/// kernel yet) and NO_DEVICE give an "n/a" note, any other status is an error (*hard).
inline bool gpusvd_ok(gpusvdHandle_t h, gpusvdStatus_t st, std::string *err, bool *hard) {
    if (st == GPUSVD_STATUS_SUCCESS) return true;
    if (st == GPUSVD_STATUS_NOT_SUPPORTED)
        *err = "n/a (not supported yet)";
    else if (st == GPUSVD_STATUS_NO_DEVICE)
        *err = "n/a (" + status_text(h, st) + ")";
    else {
        *err = "ERROR " + status_text(h, st);
        *hard = true;
    }
    return false;
}

/// Times a gpusvd `_gpu` call (see gpusvd_ok); an error marks the row failed.
template <class Prep, class Call>
Stat time_gpusvd(Gpu &c, Prep &&prep, Call &&call, Row &r) {
    std::string err;
    bool hard = false;
    Stat s = time_gpu(
        c, gpu_budget(c), prep, [&] { return gpusvd_ok(c.g, call(), &err, &hard); }, &err);
    if (hard) r.failed = true;
    return s;
}

/// The host-LAPACK column: run() does `sample` of the row's `total` matrices (time_host, prep
/// untimed); the time is extrapolated to the total, tagged, when sample < total.
template <class Prep, class Run>
Stat host_column(const Gpu &c, int64_t sample, int64_t total, Prep &&prep, Run &&run) {
    if (!c.o.host_on_gpu_rows) return note_only("skipped (--no-host)");
    const Stat s = time_host(host_budget(c), prep, run);
    return sample < total ? scaled(s, double(total) / double(sample), extrap_tag(sample)) : s;
}

/// Counts of info > 0 and info < 0 in a downloaded info array; info < 0 is always bad, info > 0
/// (not converged) too when strict (gpusvd's own results).
inline std::string info_summary(const std::vector<int> &info, bool *bad, bool strict = false) {
    int64_t pos = 0, neg = 0;
    for (int v : info) {
        pos += v > 0;
        neg += v < 0;
    }
    if (neg || (strict && pos)) *bad = true;
    if (!pos && !neg) return "";
    return " info>0: " + std::to_string(pos) + (neg ? " info<0: " + std::to_string(neg) : "");
}

/// What a row's "check" column says. gpusvd's results: the largest relative difference to
/// LAPACK over all that was compared (NaN sticks), "ok" or "MISMATCH" (a failure), or "gpusvd not
/// checked" when it did not run. Counterparts (cuSOLVER): their difference to LAPACK is shown
/// when gpusvd was not checked or when it exceeds the tolerance ("[Xgesvdp off 2e-04]"), which
/// is not a failure of the row: it says how far the reference and the counterpart agree. Info
/// arrays: gpusvd's must be all zero; any negative info (an argument error) fails the row.
struct Check {
    void diff(double x, const char *counterpart = nullptr) {
        if (!counterpart) {
            rel_ = worst(rel_, x);
            compared_ = true;
            return;
        }
        for (auto &o : others_)
            if (o.first == counterpart) {
                o.second = worst(o.second, x);
                return;
            }
        others_.emplace_back(counterpart, x);
    }
    /// Summarises an info array; gpusvd's (strict) must be all zero.
    void info_of(const char *who, const std::vector<int> &info, bool strict) {
        const std::string s = info_summary(info, &bad, strict);
        if (!s.empty()) note += std::string(" ") + who + ":" + s;
    }
    /// The same for the first `count` entries of a device info array.
    void info(const char *who, const Dev<int> &d, size_t count, bool strict) {
        info_of(who, d.download(count), strict);
    }
    /// A quantity of gpusvd's with its own bound (a residual): noted, and bad above tol or NaN.
    void bound(const char *what, double x, double tol) {
        char buf[64];
        std::snprintf(buf, sizeof buf, " %s %.1e%s", what, x, x <= tol ? "" : " (TOO LARGE)");
        note += buf;
        if (!(x <= tol)) bad = true;
    }
    void finish(Row &r, double tol) {
        char buf[64];
        std::string t = compared_ ? check_text(rel_, tol, &r.failed) : "gpusvd not checked";
        double ok = 0;
        bool any_ok = false;
        for (const auto &o : others_) {
            if (o.second <= tol) {
                ok = std::max(ok, o.second);
                any_ok = true;
                continue;
            }
            std::snprintf(buf, sizeof buf, " [%s off %.1e]", o.first.c_str(), o.second);
            t += buf;
        }
        if (!compared_ && any_ok) {
            std::snprintf(buf, sizeof buf, " (counterparts ok %.1e)", ok);
            t += buf;
        }
        r.check = t + note;
        if (bad) r.failed = true;
    }

    bool bad = false;
    std::string note;

private:
    static double worst(double a, double x) { return (x != x || a != a) ? NAN : std::max(a, x); }
    double rel_ = 0;
    bool compared_ = false;
    std::vector<std::pair<std::string, double>> others_;
};

template <class T>
std::vector<T> sorted_desc(std::vector<T> v, size_t per, size_t count) {
    for (size_t i = 0; i < count; ++i)
        std::sort(v.begin() + i * per, v.begin() + (i + 1) * per, std::greater<T>());
    return v;
}

/// Agreement tolerance of singular values / eigenvalues of n x n problems with LAPACK, relative to
/// the largest: 10 n eps (rounding accumulates over the ~n rotations or reflections each column
/// sees; float Jacobi at n = 1024 differs by ~1e-4 from the exact values, gpusvd and cuSOLVER
/// alike), at least 1e-10 in double and 1e-4 in float (complex: those of the real parts).
template <class T>
double value_tol(int64_t n) {
    using R = real_t<T>;
    const double floor = sizeof(R) == 4 ? 1e-4 : 1e-10;
    return std::max(floor, 10.0 * double(n) * std::numeric_limits<R>::epsilon());
}

/* ---- batches tiled from a pool ------------------------------------------------------------
 * A large batch is `pool` distinct random matrices repeated: the pool is generated on the host
 * once (cheap for 500k matrices), uploaded, and copied device-to-device into the batch; the same
 * copy restores a destroyed input before each timed run. Matrix i of the batch is pool matrix
 * i % pool, which is what the check compares against. */

/// Fills dst (batch matrices of `per` elements) with copies of the device pool, on c.s.
template <class T>
void tile(Gpu &c, T *dst, const T *pool, int64_t pool_count, size_t per, int64_t batch) {
    for (int64_t off = 0; off < batch; off += pool_count)
        restore(c, dst + sz(off) * per, pool, sz(std::min(pool_count, batch - off)) * per);
}

/// `count` matrix indices spread over [0, batch), first and last included.
inline std::vector<int64_t> spread(int64_t batch, int64_t count) {
    count = std::max<int64_t>(1, std::min(count, batch));
    std::vector<int64_t> idx(sz(count));
    for (int64_t k = 0; k < count; ++k) idx[sz(k)] = count == 1 ? 0 : k * (batch - 1) / (count - 1);
    return idx;
}

/// The pool matrices behind the batch indices idx, gathered into one array.
template <class T>
std::vector<T> gather(const std::vector<T> &pool, int64_t pool_count, size_t per,
                      const std::vector<int64_t> &idx) {
    std::vector<T> out(idx.size() * per);
    for (size_t k = 0; k < idx.size(); ++k) {
        const auto src = pool.begin() + std::ptrdiff_t(sz(idx[k] % pool_count) * per);
        std::copy(src, src + std::ptrdiff_t(per), out.begin() + std::ptrdiff_t(k * per));
    }
    return out;
}

/// Downloads `per` elements of each indexed matrix (stride `per`) into one array.
template <class T>
std::vector<T> download_at(const Dev<T> &d, size_t per, const std::vector<int64_t> &idx) {
    std::vector<T> out(idx.size() * per);
    for (size_t k = 0; k < idx.size(); ++k) {
        const auto h = d.download(per, sz(idx[k]) * per);
        std::copy(h.begin(), h.end(), out.begin() + std::ptrdiff_t(k * per));
    }
    return out;
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

/// Runs one case, turning CUDA/cuSOLVER errors into a failed row instead of ending the run.
/// f returns the case's Row, or several (a case measured once and shown in two tables).
inline void add_rows(std::vector<Row> &rows, Row r) {
    rows.push_back(std::move(r));
}
inline void add_rows(std::vector<Row> &rows, std::vector<Row> more) {
    for (Row &r : more) rows.push_back(std::move(r));
}
template <class F>
void guarded(Gpu &c, std::vector<Row> &rows, const char *table, const std::string &name,
             const std::string &size, F &&f) {
    if (!c.rep.wanted(table, name, size)) return;
    try {
        add_rows(rows, f());
    } catch (const std::exception &e) {
        Row r;
        r.table = table;
        r.name = name;
        r.size = size;
        r.b.note = std::string("ERROR ") + e.what();
        r.failed = true;
        rows.push_back(r);
        cudaGetLastError();  // clear a non-sticky error so the next rows can run
    }
}

/// Rows of `rows` whose table is `table`, in order.
inline std::vector<Row> of_table(const std::vector<Row> &rows, const std::string &table) {
    std::vector<Row> out;
    for (const Row &r : rows)
        if (r.table == table) out.push_back(r);
    return out;
}

/// The tables of one routine family, each in its own file.
void gesvj_tables(Gpu &c);  // gpu_gesvj_rows.cpp: gesvj, gesvj_batched, tall gesvj
void geev_tables(Gpu &c);   // gpu_geev_rows.cpp: geev_batched totals and per matrix
void pca_tables(Gpu &c);    // gpu_pca_rows.cpp: pca vs centring + gesvdj
void bdsvd_tables(Gpu &c);  // gpu_bdsvd_rows.cpp: bdsvd vs host LAPACK dbdsqr / dbdsdc
void geqrf_tables(Gpu &c);  // gpu_geqrf_rows.cpp: geqrf_mgs tall, geqrf_mgs_batched

}  // namespace bench
