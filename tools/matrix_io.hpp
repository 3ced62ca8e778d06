// Reading dense matrices from Matrix Market array files and CSV files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpusvd_cli {

/// A dense matrix as read from a file, column-major.
struct Matrix {
    int64_t rows = 0, cols = 0;
    std::vector<double> values;  ///< rows * cols, column-major
    std::vector<int64_t> lines;  ///< line of each value in the file (only with track_lines)
    std::string source;          ///< file name for messages ("<stdin>" for "-")

    double operator()(int64_t i, int64_t j) const { return values[size_t(i + j * rows)]; }
    /// The file line an entry came from (0 when lines were not tracked).
    int64_t line(int64_t i, int64_t j) const {
        return lines.empty() ? 0 : lines[size_t(i + j * rows)];
    }
};

struct ReadOptions {
    bool single = false;       ///< values must fit in float32
    bool track_lines = false;  ///< fill Matrix::lines
};

/// Read FILE ("-": standard input) as Matrix Market array (`%%MatrixMarket matrix array real
/// general|symmetric|skew-symmetric`; `integer` and `double` fields are accepted too) when it
/// starts with the %%MatrixMarket header, else as CSV (one row per line, comma-separated,
/// trailing blank lines allowed). Throws CliError(kExitUsage, "FILE:LINE: ...") on any defect.
Matrix read_matrix(const std::string &path, const ReadOptions &opt);

/// Throws CliError(kExitUsage) with "FILE:LINE: what" (or "FILE: what" when line <= 0).
[[noreturn]] void input_error(const std::string &file, int64_t line, const std::string &what);

}  // namespace gpusvd_cli
