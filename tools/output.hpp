// Writing results: Matrix Market array or CSV, to stdout (each block after a "% NAME" line) or to
// files DIR/NAME.mtx / DIR/NAME.csv.
#pragma once

#include <cstdint>
#include <string>

#include "options.hpp"

namespace gpusvd_cli {

class Output {
public:
    /// outdir empty: standard output; otherwise the directory is created when first written.
    Output(OutFormat format, std::string outdir) : format_(format), outdir_(std::move(outdir)) {}

    /// Write the rows x cols column-major matrix a (leading dimension ld >= max(1, rows)) under
    /// `name`, with full precision (%.17g for double, %.9g for float).
    void write(const std::string &name, int64_t rows, int64_t cols, const double *a, int64_t ld);
    void write(const std::string &name, int64_t rows, int64_t cols, const float *a, int64_t ld);

private:
    template <class T>
    void write_impl(const std::string &name, int64_t rows, int64_t cols, const T *a, int64_t ld);

    OutFormat format_;
    std::string outdir_;
    bool dir_ready_ = false;
};

}  // namespace gpusvd_cli
