// Thin C++ helpers over the public C API: a handle owner, status checks, and the float/double
// entry points under one name for templates.
#pragma once

#include <cstdio>
#include <string>

#include "cli.hpp"
#include "api.hpp"
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
            const std::string msg = gpusvdGetErrorMessage(h_);
            gpusvdDestroy(h_);
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

/// Prints a warning for a non-zero info; returns the exit code (kExitOk or kExitWarning).
inline int report_info(const std::string &routine, int info, const char *positive_meaning) {
    if (info == 0) return kExitOk;
    if (info == GPUSVD_INFO_NONFINITE)
        std::fprintf(stderr,
                     "warning: %s: info = %d (GPUSVD_INFO_NONFINITE): the input holds NaN or "
                     "Inf; the outputs are NaN\n",
                     routine.c_str(), info);
    else
        std::fprintf(stderr, "warning: %s: info = %d: %s\n", routine.c_str(), info,
                     positive_meaning);
    return kExitWarning;
}

/// Entry points of one precision (Api<double>::gesvj is gpusvd_dgesvj).
using gpusvd_util::Api;

/// "gpusvd_dgesvj" etc.
template <class T>
std::string routine_name(const char *base) {
    return std::string(Api<T>::prefix) + base;
}

}  // namespace gpusvd_cli
