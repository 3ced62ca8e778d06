// gpusvd-bench: shared declarations (options, result rows, report, random data, the gpusvd API
// as precision-generic overloads).
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "api.hpp"
#include "gpusvd.h"
#include "timing.hpp"

namespace bench {

struct Options {
    bool quick = false;
    int reps = 5;
    double budget_s = 20.0;           // per measurement (see timing.hpp)
    std::string filter;               // run only rows whose "table case size" contains it
    std::string csv;                  // write all rows here too
    bool gpu = true;                  // cuSOLVER/GPU tables when a device is present
    bool host_on_gpu_rows = true;     // the host-LAPACK column of the GPU tables
    std::vector<int64_t> gesvdj_n;    // single-matrix Jacobi sizes of the GPU table
    int64_t gpusvd_gesvj_max = 4096;  // GPU tables: gpusvd's single-matrix gesvj skipped above n
    Budget budget() const { return Budget{reps, budget_s}; }
};

/// Achievable rates measured at start-up, used for the floor column (0 when unknown).
struct Ceilings {
    double gflops = 0;    // large GEMM in this precision (double)
    double gbs = 0;       // large copy, bytes read + written
    double pcie_gbs = 0;  // GPU only: pinned host-to-device copy, one direction
};

/// A benchmark goal of a GPU row, judged in the report: a ratio of a
/// counterpart's time to gpusvd's (cuSOLVER = Row::b, host = Row::c, other = Row::d), or a
/// limit on gpusvd's own time. A goal not met is reported, not counted as a failure.
struct Goal {
    enum Kind { CusolverRatio, HostRatio, OtherRatio, MaxMs } kind;
    double value;  // ratio >= value, or gpusvd ms <= value
};

/// One benchmark row. CPU tables: a = gpusvd (CPU backend), b = direct LAPACKE.
/// GPU tables: a = gpusvd `_gpu`, b = cuSOLVER, c = LAPACK on the host CPUs, d = a second
/// counterpart where the table names one (Xgesvdp, gesvdaStridedBatched, a published time).
struct Row {
    std::string table, name, size;
    Stat a, b, c, d;
    double flops = 0;       // of the case (formula stated where computed)
    double bytes = 0;       // each input read once, each output written once
    double pcie_bytes = 0;  // host-memory GPU rows: bytes over PCIe, the larger direction
    double per = 1;         // per-matrix geev GPU rows: times, flops and bytes are per matrix
                            // of a batch of `per` matrices
    std::string check;      // agreement of the two results, "" when not compared
    std::vector<Goal> goals;
    bool failed = false;
};

class Report {
public:
    explicit Report(const Options &o) : opt_(o) {}
    /// True if a row of this table/case/size passes --filter.
    bool wanted(const std::string &table, const std::string &name, const std::string &size) const;
    void cpu_table(const std::string &title, const std::vector<Row> &rows, const Ceilings &c);
    /// `other`: the heading of the d column (the second counterpart); "" = no such column.
    void gpu_table(const std::string &title, const std::vector<Row> &rows, const Ceilings &c,
                   const std::string &foot = "", const std::string &other = "");
    bool write_csv() const;
    bool any_failed() const { return failed_; }
    size_t rows() const { return all_.size(); }
    void fail() { failed_ = true; }

private:
    const Options &opt_;
    std::vector<Row> all_;
    std::vector<std::string> goal_results_;  // the goal column of each row of all_ (CSV)
    bool failed_ = false;
};

/// The element types of the rows: float, double, std::complex<float>, std::complex<double>.
/// Complex data lives in std::complex arrays (arithmetic on the host side) and is passed to
/// gpusvd as its public complex types, which have the same layout (api() casts the pointer).
template <class T>
struct Elem {
    using real = T;
    using api = T;
    static constexpr bool complex = false;
};
template <class R>
struct Elem<std::complex<R>> {
    using real = R;
    using api = std::conditional_t<sizeof(R) == 4, gpusvdComplex_t, gpusvdDoubleComplex_t>;
    static constexpr bool complex = true;
};
template <class T>
using real_t = typename Elem<T>::real;
template <class T>
constexpr bool is_complex_v = Elem<T>::complex;
/// gpusvd's API for the element type T.
template <class T>
using ApiOf = gpusvd_util::Api<typename Elem<T>::api>;
template <class T>
typename Elem<T>::api *api(T *p) {
    return reinterpret_cast<typename Elem<T>::api *>(p);
}

/// Row labels: "s"/"d"/"c"/"z", "MxN", "B x MxN".
template <class T>
const char *px() {
    if constexpr (is_complex_v<T>)
        return sizeof(real_t<T>) == 4 ? "c" : "z";
    else
        return sizeof(T) == 4 ? "s" : "d";
}
inline std::string dims(int64_t m, int64_t n) {
    return std::to_string(m) + "x" + std::to_string(n);
}
inline std::string bdims(int64_t b, int64_t m, int64_t n) {
    return std::to_string(b) + " x " + dims(m, n);
}

/// Deterministic uniform(-1, 1) data (never zeros), through gpusvd_util's generator.
void fill_random(double *p, size_t n, uint64_t seed);
void fill_random(float *p, size_t n, uint64_t seed);
/// Complex: real and imaginary parts each uniform(-1, 1), never zero.
void fill_random(std::complex<double> *p, size_t n, uint64_t seed);
void fill_random(std::complex<float> *p, size_t n, uint64_t seed);
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

/* ---- the gpusvd API: gpusvd_util::Api<T> (testing/api.hpp) ---------------------------- */
using gpusvd_util::Api;

}  // namespace bench
