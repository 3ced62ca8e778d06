// The start vector that completes a vanished column of the distributed QR's Q (src/cpu/dist_qr.cpp,
// cuda/geqrf/dist.cpp), before it is orthogonalised against the other columns.
#pragma once

#include <cstdint>

#include "kernels/team.hpp"

namespace gpusvd::kernels {

/// A reproducible entry in [-1, 1) for (global row, column) (a splitmix64 hash): the start
/// vector depends on the stacked matrix only, not on how its rows are spread over the ranks.
template <class T>
GPUSVD_HD T dist_start_entry(int64_t row, int64_t col) {
    uint64_t z = static_cast<uint64_t>(row) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(col);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<T>(static_cast<double>(z >> 11) * 0x1p-52 - 1.0);
}

}  // namespace gpusvd::kernels
