// Reading dense matrices (or a batch of them) from .npy, Matrix Market array and delimited text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpusvd_cli {

enum class InputFormat { MatrixMarket, Text, Npy };

/// A dense matrix, or a batch of equally sized ones, as read from a file; column-major.
struct Matrix {
    int64_t batch = 1;           ///< number of matrices
    bool batched = false;        ///< read from a 3-D array: results keep the batch axis
    int64_t rows = 0, cols = 0;  ///< of each matrix
    std::vector<double> values;  ///< matrix b at b * rows * cols, each column-major
    std::vector<int64_t> lines;  ///< line of each value in the file (only with track_lines)
    std::string source;          ///< file name for messages ("<stdin>" for "-")
    InputFormat format = InputFormat::Text;
    bool float32 = false;            ///< .npy of float32 or float16: computed in float32 by default
    std::string layout;              ///< how the file was read (delimiter, header), for -v
    std::vector<std::string> notes;  ///< facts about the input the user should see

    double operator()(int64_t i, int64_t j) const { return values[size_t(i + j * rows)]; }
    /// The file line an entry came from (0 when lines were not tracked).
    int64_t line(int64_t i, int64_t j) const {
        return lines.empty() ? 0 : lines[size_t(i + j * rows)];
    }
};

struct ReadOptions {
    bool single = false;       ///< values must fit in float32
    bool track_lines = false;  ///< fill Matrix::lines (text formats)
    bool header = false;       ///< text: the first row holds column names even if numeric
};

/// Read FILE ("-": standard input), its format recognised by content: the .npy magic, the
/// '%%MatrixMarket' banner, else delimited text (see 'gpusvd help'). Throws
/// CliError(kExitUsage, "FILE:LINE: ...") on any defect.
Matrix read_matrix(const std::string &path, const ReadOptions &opt);

/// Throws CliError(kExitUsage) with "FILE:LINE: what" (or "FILE: what" when line <= 0).
[[noreturn]] void input_error(const std::string &file, int64_t line, const std::string &what);

}  // namespace gpusvd_cli
