// `gpusvd demo`: one table row per routine run on generated data. The runner executes a routine
// on the requested backend (AUTO on a GPU machine: the GPU when the routine has GPU kernels, else
// the CPU, as the library's AUTO does), times it after one warm-up call, and the row functions
// compute LAPACK accuracy ratios with gpusvd_util.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gpusvd.h"
#include "library.hpp"
#include "options.hpp"

namespace gpusvd_cli {

/// One accuracy figure of a row: passes when value <= limit (NaN fails).
struct Check {
    std::string name;
    double value;
    double limit;
    bool passed() const { return value <= limit; }
};

struct Row {
    std::string routine, size, backend;
    double ms = std::nan("");
    std::vector<Check> checks;
    std::string problem;       ///< why the row failed (status, info), empty if none
    bool unsupported = false;  ///< the routine returned NOT_SUPPORTED on this backend
    bool skipped = false;      ///< unsupported, and that is acceptable (backend AUTO)
    bool passed() const {
        if (skipped) return true;
        if (!problem.empty()) return false;
        for (const Check &c : checks)
            if (!c.passed()) return false;
        return true;
    }
};

/// Thresholds of DESIGN.md.
constexpr double kSvdLimit = 50, kQrLimit = 30, kEigLimit = 20;

/// Runs routines on the requested backend.
class Runner {
public:
    explicit Runner(gpusvdBackend_t requested);
    gpusvdBackend_t requested() const { return requested_; }
    /// The backend the requested one resolves to on this machine (never AUTO).
    gpusvdBackend_t resolved() const { return primary_resolved_; }

    /// reset(): restore the inputs the routine destroys; invoke(h): the call. Fills row.backend,
    /// row.ms, and row.problem / row.unsupported / row.skipped when the call does not succeed.
    /// Returns true when the outputs are valid. (No other library call may come between a
    /// failed call and gpusvdGetErrorMessage: a success clears the message.)
    template <class Reset, class Invoke>
    bool execute(Row &row, Reset reset, Invoke invoke) {
        gpusvdHandle_t h = primary_;
        gpusvdBackend_t used = primary_resolved_;
        reset();
        gpusvdStatus_t st = invoke(h);  // warm-up: workspace, GPU module loading
        if (st == GPUSVD_STATUS_NOT_SUPPORTED && requested_ == GPUSVD_BACKEND_AUTO &&
            used == GPUSVD_BACKEND_GPU) {
            h = cpu_;  // the routine has no GPU kernel: AUTO runs it on the CPU
            used = GPUSVD_BACKEND_CPU;
            reset();
            st = invoke(h);
        }
        row.backend = backend_name(used);
        if (st == GPUSVD_STATUS_SUCCESS) {
            reset();
            const auto t0 = std::chrono::steady_clock::now();
            st = invoke(h);
            const auto t1 = std::chrono::steady_clock::now();
            row.ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
        }
        if (st == GPUSVD_STATUS_SUCCESS) return true;
        row.problem = std::string(gpusvdGetStatusName(st)) + ": " + gpusvdGetErrorMessage(h);
        row.unsupported = st == GPUSVD_STATUS_NOT_SUPPORTED;
        row.skipped = row.unsupported && requested_ == GPUSVD_BACKEND_AUTO;
        return false;
    }

private:
    static gpusvdBackend_t primary_backend(gpusvdBackend_t requested);
    gpusvdBackend_t requested_;
    Handle primary_;
    Handle cpu_;
    gpusvdBackend_t primary_resolved_;
};

/// Records info problems: "info != 0 in 3 of 1000 (first: matrix 7, info 2)".
void check_info(Row &row, const std::vector<int> &info);

/// max that propagates NaN.
inline double worst(double a, double b) {
    return (std::isnan(a) || std::isnan(b)) ? NAN : std::max(a, b);
}

/// A zero-filled vector of `count` elements.
template <class T>
std::vector<T> zeros(int64_t count) {
    return std::vector<T>(static_cast<size_t>(count), T(0));
}

template <class T>
const char *precision_letter() {
    return sizeof(T) == 4 ? "s" : "d";
}

// Row functions (demo_*.cpp), one per routine family, templated on the precision.
template <class T>
Row demo_gesvj(Runner &r, int64_t m, int64_t n);
template <class T>
Row demo_gesvj_batched(Runner &r, int64_t m, int64_t n, int64_t batch);
template <class T>
Row demo_geqrf(Runner &r, gpusvdOrth_t orth, int64_t m, int64_t n);
template <class T>
Row demo_geqrf_batched(Runner &r, int64_t m, int64_t n, int64_t batch);
template <class T>
Row demo_geev_batched(Runner &r, int64_t n, int64_t batch);
template <class T>
Row demo_bdsvd(Runner &r, int64_t n);
template <class T>
Row demo_pca(Runner &r, int64_t m, int64_t n);

}  // namespace gpusvd_cli
