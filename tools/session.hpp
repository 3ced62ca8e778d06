// One run of a file command (svd, qr, eig, bdsvd, pca): its options, the handle, the input,
// the precision and output format it resolves to, timings, and the summary on stderr.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "library.hpp"
#include "matrix_io.hpp"
#include "options.hpp"
#include "output.hpp"

namespace gpusvd_cli {

class Session {
public:
    /// Parses the arguments, creates the handle (so a bad backend fails before reading), reads
    /// the input and prints its notes.
    Session(const std::string &command, const ArgList &args, unsigned accept,
            bool track_lines = false);

    const FileOptions o;
    Handle handle;
    Matrix a;
    bool single = false;  ///< compute in float32
    OutFormat format = OutFormat::MatrixMarket;

    /// Which results to write (see select_results).
    Selection select(const std::vector<ResultSpec> &specs, const std::string &default_name,
                     const std::string &extra_flag = "");

    /// Runs the library call(s) in f, timed as the compute time.
    template <class F>
    void compute(F f) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        compute_ms_ = ms_since(t0);
    }

    /// Writes the selected results, in the order given, timed.
    void write(const Selection &sel, const std::vector<Result> &results);

    /// Whether the summary is printed (not -q).
    bool summary() const { return o.verbosity > 0; }
    /// A summary line on stderr (nothing with -q); a newline is added.
    void say(const char *fmt, ...) const __attribute__((format(printf, 2, 3)));
    /// The first summary line: command, file, `shape` (default: the matrix or batch shape),
    /// precision, backend for `input_bytes` of matrices, compute time.
    void head(size_t input_bytes, const std::string &shape = "") const;
    /// The closing summary lines: what standard output holds, and with -v the input layout and
    /// the read / compute / write times.
    void finish(const Selection &sel) const;

    /// "float32" or "float64".
    const char *dtype() const { return single ? "float32" : "float64"; }

private:
    static double ms_since(std::chrono::steady_clock::time_point t0);
    double read_ms_ = 0, compute_ms_ = 0, write_ms_ = 0;
    std::string withheld_;  ///< the result not shown on a terminal, with its size
};

/// "0.041 ms", "12.3 ms", "1.52 s".
std::string time_text(double ms);
/// Shortest round-trip-ish form of a number for the summary (6 significant digits).
std::string num(double v);

}  // namespace gpusvd_cli
