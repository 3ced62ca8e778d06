// Where a matrix's elements live, for the kernels of the tall QR and of PCA that read the
// caller's matrices in either layout (gpusvdSetMatrixLayout): element (i,j) at i + j*ld
// (column-major) or i*ld + j (row-major). Each kernel is written once against it; built from an
// int64_t it is column-major, so a column-major call site passes its leading dimension as before.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define GPUSVD_LD_HD __host__ __device__
#else
#define GPUSVD_LD_HD
#endif

namespace gpusvd {
namespace gpu {

struct MatLd {
    int64_t ld;
    bool row;  // row-major

    GPUSVD_LD_HD MatLd(int64_t ld_) : ld(ld_), row(false) {}  // NOLINT: column-major by default
    GPUSVD_LD_HD MatLd(int64_t ld_, bool row_major) : ld(ld_), row(row_major) {}

    GPUSVD_LD_HD int64_t at(int64_t i, int64_t j) const { return row ? i * ld + j : i + j * ld; }
    /// Offset of column j (its first element).
    GPUSVD_LD_HD int64_t col(int64_t j) const { return row ? j : j * ld; }
    /// Offset of row i (its first element).
    GPUSVD_LD_HD int64_t row_at(int64_t i) const { return row ? i * ld : i; }
    /// Element idx of a rows x cols matrix taken in memory order (consecutive idx, consecutive
    /// addresses along the contiguous direction): its row and column.
    GPUSVD_LD_HD void element(int64_t idx, int64_t rows, int64_t cols, int64_t *i,
                              int64_t *j) const {
        if (row) {
            *i = idx / cols;
            *j = idx % cols;
        } else {
            *i = idx % rows;
            *j = idx / rows;
        }
    }
};

}  // namespace gpu
}  // namespace gpusvd
