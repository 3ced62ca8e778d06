// The demo's runner and shared row helpers.
#include <string>

#include "demo.hpp"

namespace gpusvd_cli {

gpusvdBackend_t Runner::primary_backend(gpusvdBackend_t requested) {
    if (requested != GPUSVD_BACKEND_AUTO) return requested;
    // AUTO on a GPU machine: run on the GPU explicitly, so that a routine without GPU kernels is
    // seen (NOT_SUPPORTED) and reported as running on the CPU.
    Handle probe;
    return probe.resolved() == GPUSVD_BACKEND_GPU ? GPUSVD_BACKEND_GPU : GPUSVD_BACKEND_AUTO;
}

Runner::Runner(gpusvdBackend_t requested)
    : requested_(requested),
      primary_(primary_backend(requested)),
      cpu_(GPUSVD_BACKEND_CPU),
      primary_resolved_(primary_.resolved()) {}

void check_info(Row &row, const std::vector<int> &info) {
    int64_t bad = 0, first = -1;
    for (size_t b = 0; b < info.size(); ++b)
        if (info[b] != 0) {
            if (first < 0) first = int64_t(b);
            ++bad;
        }
    if (!bad) return;
    std::string p = "info != 0";
    if (info.size() > 1)
        p += " in " + std::to_string(bad) + " of " + std::to_string(info.size()) +
             " (first: matrix " + std::to_string(first) + ", info " +
             std::to_string(info[size_t(first)]) + ")";
    else
        p += " (info " + std::to_string(info[0]) + ")";
    if (!row.problem.empty()) row.problem += "; ";
    row.problem += p;
}

}  // namespace gpusvd_cli
