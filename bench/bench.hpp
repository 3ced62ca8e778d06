// gpusvd-bench: shared declarations (options, result rows, report, random data, the gpusvd API
// as precision-generic overloads).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpusvd.h"
#include "timing.hpp"

namespace bench {

struct Options {
    bool quick = false;
    int reps = 5;
    double budget_s = 20.0;         // per measurement (see timing.hpp)
    std::string filter;             // run only rows whose "table case size" contains it
    std::string csv;                // write all rows here too
    bool gpu = true;                // cuSOLVER/GPU tables when a device is present
    bool host_on_gpu_rows = true;   // the host-LAPACK column of the GPU tables
    std::vector<int64_t> gesvdj_n;  // single-matrix Jacobi sizes of the GPU table
    Budget budget() const { return Budget{reps, budget_s}; }
};

/// Achievable rates measured at start-up, used for the floor column (0 when unknown).
struct Ceilings {
    double gflops = 0;  // large GEMM in this precision (double)
    double gbs = 0;     // large copy, bytes read + written
};

/// One benchmark row. CPU tables: a = gpusvd (CPU backend), b = direct LAPACKE.
/// GPU tables: a = gpusvd `_gpu`, b = cuSOLVER, c = LAPACK on the host CPUs.
struct Row {
    std::string table, name, size;
    Stat a, b, c;
    double flops = 0;   // of the case (formula stated where computed)
    double bytes = 0;   // each input read once, each output written once
    double per = 1;     // geev GPU rows: times, flops and bytes are per matrix; the footer
                        // extrapolates to `per` matrices
    std::string check;  // agreement of the two results, "" when not compared
    bool failed = false;
};

class Report {
public:
    explicit Report(const Options &o) : opt_(o) {}
    /// True if a row of this table/case/size passes --filter.
    bool wanted(const std::string &table, const std::string &name, const std::string &size) const;
    void cpu_table(const std::string &title, const std::vector<Row> &rows, const Ceilings &c);
    void gpu_table(const std::string &title, const std::vector<Row> &rows, const Ceilings &c,
                   const std::string &foot = "");
    bool write_csv() const;
    bool any_failed() const { return failed_; }
    size_t rows() const { return all_.size(); }
    void fail() { failed_ = true; }

private:
    const Options &opt_;
    std::vector<Row> all_;
    bool failed_ = false;
};

/// Deterministic uniform(-1, 1) data (never zeros), through gpusvd_util's generator.
void fill_random(double *p, size_t n, uint64_t seed);
void fill_random(float *p, size_t n, uint64_t seed);
template <class T>
std::vector<T> random_vector(size_t n, uint64_t seed) {
    std::vector<T> v(n);
    fill_random(v.data(), n, seed);
    return v;
}

/// max |x_i - y_i| / max |y_i|, NaN-propagating (a NaN anywhere gives NaN).
template <class T>
double max_rel_diff(size_t n, const T *x, const T *y) {
    double d = 0, s = 0;
    for (size_t i = 0; i < n; ++i) {
        const double e = static_cast<double>(x[i]) - static_cast<double>(y[i]);
        if (e != e) return e;
        d = d > (e < 0 ? -e : e) ? d : (e < 0 ? -e : e);
        const double a = y[i] < 0 ? -double(y[i]) : double(y[i]);
        s = s > a ? s : a;
    }
    return s > 0 ? d / s : d;
}

/// "ok 3.1e-16" when rel <= tol, else "MISMATCH 1e-3" (and marks the row failed).
std::string check_text(double rel, double tol, bool *failed);

/// Status text for a failed gpusvd call: "GPUSVD_STATUS_X: message".
std::string status_text(gpusvdHandle_t h, gpusvdStatus_t st);

int run_cpu_rows(const Options &o, Report &rep, const Ceilings &host);
Ceilings measure_host_ceilings(bool quick);
#ifdef GPUSVD_BENCH_CUDA
/// Prints the GPU line of the header; returns false (and says why) when no device is usable.
bool gpu_present(std::string *description);
int run_cusolver_rows(const Options &o, Report &rep, const Ceilings &host);
#endif

/* ---- the gpusvd API as overloads on the element type ------------------------------------ */
namespace api {
#define BENCH_OVERLOAD(T, X)                                                                       \
    inline gpusvdStatus_t gesvj(gpusvdHandle_t h, gpusvdJob_t ju, gpusvdJob_t jv, int64_t m,       \
                                int64_t n, T *A, int64_t lda, T *S, T *U, int64_t ldu, T *V,       \
                                int64_t ldv, int *info) {                                          \
        return gpusvd_##X##gesvj(h, ju, jv, m, n, A, lda, S, U, ldu, V, ldv, info);                \
    }                                                                                              \
    inline gpusvdStatus_t gesvj_gpu(gpusvdHandle_t h, gpusvdJob_t ju, gpusvdJob_t jv, int64_t m,   \
                                    int64_t n, T *A, int64_t lda, T *S, T *U, int64_t ldu, T *V,   \
                                    int64_t ldv, int *info) {                                      \
        return gpusvd_##X##gesvj_gpu(h, ju, jv, m, n, A, lda, S, U, ldu, V, ldv, info);            \
    }                                                                                              \
    inline gpusvdStatus_t gesvj_batched(gpusvdHandle_t h, gpusvdJob_t ju, gpusvdJob_t jv,          \
                                        int64_t m, int64_t n, T *A, int64_t lda, int64_t sA, T *S, \
                                        int64_t sS, T *U, int64_t ldu, int64_t sU, T *V,           \
                                        int64_t ldv, int64_t sV, int64_t batch, int *info) {       \
        return gpusvd_##X##gesvj_batched(h, ju, jv, m, n, A, lda, sA, S, sS, U, ldu, sU, V, ldv,   \
                                         sV, batch, info);                                         \
    }                                                                                              \
    inline gpusvdStatus_t gesvj_batched_gpu(gpusvdHandle_t h, gpusvdJob_t ju, gpusvdJob_t jv,      \
                                            int64_t m, int64_t n, T *A, int64_t lda, int64_t sA,   \
                                            T *S, int64_t sS, T *U, int64_t ldu, int64_t sU, T *V, \
                                            int64_t ldv, int64_t sV, int64_t batch, int *info) {   \
        return gpusvd_##X##gesvj_batched_gpu(h, ju, jv, m, n, A, lda, sA, S, sS, U, ldu, sU, V,    \
                                             ldv, sV, batch, info);                                \
    }                                                                                              \
    inline gpusvdStatus_t geqrf_mgs(gpusvdHandle_t h, gpusvdOrth_t o, int64_t m, int64_t n, T *A,  \
                                    int64_t lda, T *R, int64_t ldr, int *info) {                   \
        return gpusvd_##X##geqrf_mgs(h, o, m, n, A, lda, R, ldr, info);                            \
    }                                                                                              \
    inline gpusvdStatus_t geqrf_mgs_gpu(gpusvdHandle_t h, gpusvdOrth_t o, int64_t m, int64_t n,    \
                                        T *A, int64_t lda, T *R, int64_t ldr, int *info) {         \
        return gpusvd_##X##geqrf_mgs_gpu(h, o, m, n, A, lda, R, ldr, info);                        \
    }                                                                                              \
    inline gpusvdStatus_t geqrf_mgs_batched(gpusvdHandle_t h, gpusvdOrth_t o, int64_t m,           \
                                            int64_t n, T *A, int64_t lda, int64_t sA, T *R,        \
                                            int64_t ldr, int64_t sR, int64_t batch, int *info) {   \
        return gpusvd_##X##geqrf_mgs_batched(h, o, m, n, A, lda, sA, R, ldr, sR, batch, info);     \
    }                                                                                              \
    inline gpusvdStatus_t geev_batched(gpusvdHandle_t h, gpusvdJob_t jv, int64_t n, T *A,          \
                                       int64_t lda, int64_t sA, T *wr, T *wi, int64_t sW, T *VR,   \
                                       int64_t ldvr, int64_t sVR, int64_t batch, int *info) {      \
        return gpusvd_##X##geev_batched(h, jv, n, A, lda, sA, wr, wi, sW, VR, ldvr, sVR, batch,    \
                                        info);                                                     \
    }                                                                                              \
    inline gpusvdStatus_t geev_batched_gpu(                                                        \
        gpusvdHandle_t h, gpusvdJob_t jv, int64_t n, T *A, int64_t lda, int64_t sA, T *wr, T *wi,  \
        int64_t sW, T *VR, int64_t ldvr, int64_t sVR, int64_t batch, int *info) {                  \
        return gpusvd_##X##geev_batched_gpu(h, jv, n, A, lda, sA, wr, wi, sW, VR, ldvr, sVR,       \
                                            batch, info);                                          \
    }                                                                                              \
    inline gpusvdStatus_t bdsvd(gpusvdHandle_t h, gpusvdUplo_t up, gpusvdJob_t jz, int64_t n,      \
                                T *d, T *e, T *U, int64_t ldu, T *VT, int64_t ldvt, int *info) {   \
        return gpusvd_##X##bdsvd(h, up, jz, n, d, e, U, ldu, VT, ldvt, info);                      \
    }                                                                                              \
    inline gpusvdStatus_t pca(gpusvdHandle_t h, int64_t m, int64_t n, const T *X, int64_t ldx,     \
                              int64_t k, T *C, int64_t ldc, T *ev, T *sc, int64_t lds, T *mean,    \
                              int *info) {                                                         \
        return gpusvd_##X##pca(h, m, n, X, ldx, k, C, ldc, ev, sc, lds, mean, info);               \
    }
BENCH_OVERLOAD(float, s)
BENCH_OVERLOAD(double, d)
#undef BENCH_OVERLOAD
}  // namespace api

}  // namespace bench
