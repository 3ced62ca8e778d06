// Results and where they go: one result on standard output, or every result to DIR/NAME.ext, in
// Matrix Market array, CSV or .npy format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "options.hpp"

namespace gpusvd_cli {

/// One result as numpy sees it: a shape (0 to 3 axes) and element strides over float or double
/// data owned by the command.
struct Result {
    std::string name;
    std::vector<int64_t> shape, strides;
    const double *d = nullptr;
    const float *f = nullptr;
    bool is_float = false;

    double at(int64_t offset) const { return is_float ? double(f[offset]) : d[offset]; }
    int64_t size() const;
    /// "(3, 2)", "(3,)", "()".
    std::string shape_text() const;
};

/// Any shape over strides (in elements).
template <class T>
Result strided_result(const std::string &name, const T *p, std::vector<int64_t> shape,
                      std::vector<int64_t> strides);
/// A vector of k values (stride apart); a 1-D result.
template <class T>
Result vector_result(const std::string &name, const T *p, int64_t k, int64_t stride = 1);
/// A rows x cols column-major matrix (leading dimension ld).
template <class T>
Result matrix_result(const std::string &name, const T *p, int64_t rows, int64_t cols, int64_t ld);
/// `batch` column-major rows x cols matrices, `stride` apart: shape (batch, rows, cols).
template <class T>
Result batch_result(const std::string &name, const T *p, int64_t batch, int64_t rows, int64_t cols,
                    int64_t ld, int64_t stride);
/// One value: a 0-d result (1 x 1 in Matrix Market and CSV).
template <class T>
Result scalar_result(const std::string &name, const T *p);

/// A result the command can produce: its name, its number of axes for this input, and whether
/// it belongs to the command's full set (written by -o DIR without --only).
struct ResultSpec {
    std::string name;
    int ndim;
    bool in_full_set;
};

/// Which results a run writes, decided before computing: --only, else with -o DIR the full set,
/// else the command's default result alone. Throws CliError(kExitUsage) for unknown names, more
/// than one result for standard output, 3-D results in a 2-D format, or .npy to a terminal.
struct Selection {
    std::vector<std::string> names;
    std::string left_out;  ///< results of the full set not written (standard output only)
    bool has(const std::string &name) const;
};
Selection select_results(const FileOptions &o, OutFormat format,
                         const std::vector<ResultSpec> &specs, const std::string &default_name,
                         const std::string &extra_flag);

class Output {
public:
    /// outdir empty: standard output; otherwise the directory is created when first written.
    /// `quiet`: no "wrote FILE" lines on stderr.
    Output(OutFormat format, std::string outdir, bool quiet)
        : format_(format), outdir_(std::move(outdir)), quiet_(quiet) {}

    /// Writes r with full precision (17 significant digits for double, 9 for float).
    void write(const Result &r);

private:
    OutFormat format_;
    std::string outdir_;
    bool quiet_;
    bool dir_ready_ = false;
};

/// File name extension of a format: "mtx", "csv", "npy".
const char *extension(OutFormat format);

}  // namespace gpusvd_cli
