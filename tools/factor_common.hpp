// Shared by the file commands (svd, qr, eig, bdsvd, pca).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "library.hpp"
#include "matrix_io.hpp"
#include "options.hpp"
#include "output.hpp"
#include "session.hpp"
#include "summary.hpp"

namespace gpusvd_cli {

/// Leading dimension for `rows` rows: max(1, rows).
inline int64_t ld_of(int64_t rows) {
    return std::max<int64_t>(1, rows);
}

/// The matrix values in precision T (the reader already checked the float32 range).
template <class T>
std::vector<T> to_vector(const Matrix &a) {
    return std::vector<T>(a.values.begin(), a.values.end());
}

/// Strided values as float64, for the summary.
template <class T>
std::vector<double> gather(const T *p, int64_t count, int64_t stride = 1) {
    std::vector<double> out(size_t(std::max<int64_t>(count, 0)));
    for (int64_t i = 0; i < count; ++i) out[size_t(i)] = double(p[i * stride]);
    return out;
}

/// Throws an input error unless the matrix is square.
inline void require_square(const Matrix &a, const std::string &command) {
    if (a.rows != a.cols)
        input_error(a.source, 0,
                    command + " needs square matrices, got " + std::to_string(a.rows) + " x " +
                        std::to_string(a.cols));
}

/// Throws an input error for a batch (a 3-D .npy) given to a command without a batched form.
inline void require_single_matrix(const Matrix &a, const std::string &command) {
    if (a.batched)
        input_error(a.source, 0,
                    command + " takes one 2-D matrix, got a batch of " + std::to_string(a.batch) +
                        " (a 3-D array); svd, qr and eig take batches");
}

}  // namespace gpusvd_cli
