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

/// Throws an input error unless the matrix is square.
inline void require_square(const Matrix &a, const std::string &command) {
    if (a.rows != a.cols)
        input_error(a.source, 0,
                    command + " needs a square matrix, got " + std::to_string(a.rows) + " x " +
                        std::to_string(a.cols));
}

/// Reads the input in the requested precision.
inline Matrix read_input(const FileOptions &o, bool track_lines = false) {
    ReadOptions r;
    r.single = o.single;
    r.track_lines = track_lines;
    return read_matrix(o.file, r);
}

}  // namespace gpusvd_cli
