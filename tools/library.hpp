// Thin C++ helpers over the public C API: a handle owner, status checks, and the float/double
// entry points under one name for templates.
#pragma once

#include <cstdio>
#include <string>

#include "api.hpp"
#include "cli.hpp"
#include "gpu_probe.hpp"
#include "gpusvd.h"

namespace gpusvd_cli {

/// Owns a gpusvdHandle_t; failures to create it or to select the backend throw CliError.
class Handle {
public:
    explicit Handle(gpusvdBackend_t backend = GPUSVD_BACKEND_AUTO) {
        if (gpusvdCreate(&h_) != GPUSVD_STATUS_SUCCESS)
            throw CliError(kExitFailure, "gpusvdCreate failed: could not create a handle");
        const gpusvdStatus_t st = gpusvdSetBackend(h_, backend);
        if (st != GPUSVD_STATUS_SUCCESS) {
            std::string msg = gpusvdGetErrorMessage(h_);
            gpusvdDestroy(h_);
            // The library's reason comes from the CUDA runtime, which words a missing driver as
            // an old one; the probe tells which it is.
            const std::string gpu = gpu_diagnosis();
            if (st == GPUSVD_STATUS_NO_DEVICE && gpu.compare(0, 6, "none: ") == 0)
                msg += "\n  cause: " + gpu.substr(6);
            throw CliError(kExitFailure, std::string(gpusvdGetStatusName(st)) + ": " + msg);
        }
    }
    ~Handle() { gpusvdDestroy(h_); }
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;
    operator gpusvdHandle_t() const { return h_; }

    /// The backend a call on this handle resolves to (never AUTO).
    gpusvdBackend_t resolved() const {
        gpusvdBackend_t b = GPUSVD_BACKEND_CPU;
        gpusvdGetBackend(h_, &b);
        return b;
    }

private:
    gpusvdHandle_t h_ = nullptr;
};

/// Throws CliError(kExitFailure) with the status name and the handle's error message.
inline void check(gpusvdHandle_t h, gpusvdStatus_t st, const std::string &routine) {
    if (st == GPUSVD_STATUS_SUCCESS) return;
    throw CliError(kExitFailure, routine + " failed: " + gpusvdGetStatusName(st) + ": " +
                                     gpusvdGetErrorMessage(h));
}

/// What a non-zero info means: "info = 5: <positive_meaning>" or the NaN/Inf case.
inline std::string info_text(int info, const char *positive_meaning) {
    if (info == GPUSVD_INFO_NONFINITE)
        return "info = " + std::to_string(info) +
               " (GPUSVD_INFO_NONFINITE): the input holds NaN or Inf; the outputs are NaN";
    return "info = " + std::to_string(info) + ": " + positive_meaning;
}

/// Prints a warning for a non-zero info; returns the exit code (kExitOk or kExitWarning).
inline int report_info(const std::string &routine, int info, const char *positive_meaning) {
    if (info == 0) return kExitOk;
    std::fprintf(stderr, "warning: %s: %s\n", routine.c_str(),
                 info_text(info, positive_meaning).c_str());
    return kExitWarning;
}

/// report_info for the info array of a batch: how many matrices, and the first of them.
inline int report_batch_info(const std::string &routine, const int *info, int64_t batch,
                             const char *positive_meaning) {
    int64_t bad = 0, first = -1;
    for (int64_t b = 0; b < batch; ++b)
        if (info[b] != 0 && bad++ == 0) first = b;
    if (!bad) return kExitOk;
    std::fprintf(stderr,
                 "warning: %s: %lld of %lld matrices have info != 0; the first, at index "
                 "%lld: %s\n",
                 routine.c_str(), static_cast<long long>(bad), static_cast<long long>(batch),
                 static_cast<long long>(first), info_text(info[first], positive_meaning).c_str());
    return kExitWarning;
}

/// report_info of a single call, or report_batch_info of a batched one.
inline int report_outcome(const std::string &routine, bool batched, const int *info,
                          int64_t batch, const char *positive_meaning) {
    return batched ? report_batch_info(routine, info, batch, positive_meaning)
                   : report_info(routine, info[0], positive_meaning);
}

/// Entry points of one precision (Api<double>::gesvj is gpusvd_dgesvj).
using gpusvd_util::Api;

/// "gpusvd_dgesvj" etc.
template <class T>
std::string routine_name(const char *base) {
    return std::string(Api<T>::prefix) + base;
}

}  // namespace gpusvd_cli
