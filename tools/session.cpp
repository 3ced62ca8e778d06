// The shared frame of the file commands: reading, result selection, writing, the summary.
#include "session.hpp"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>

#include "gpu_probe.hpp"

namespace gpusvd_cli {

namespace {

FileOptions parse(const std::string &command, const ArgList &args, unsigned accept) {
    return parse_file_options(command, args, accept);
}

/// Where the library runs a call of `input_bytes` under the handle's backend (gpusvd.h:
/// AUTO keeps inputs under 64 KiB on the CPU).
std::string backend_text(const Handle &h, gpusvdBackend_t requested, size_t input_bytes) {
    constexpr size_t kAutoGpuMinBytes = size_t(64) << 10;
    if (h.resolved() == GPUSVD_BACKEND_CPU) {
        if (requested == GPUSVD_BACKEND_AUTO && library_has_cuda())
            return "cpu (no usable GPU: see 'gpusvd info')";
        return "cpu";
    }
    // The device name without the library's details (capability, memory, index).
    std::string dev = library_gpu_description();
    dev = dev.substr(0, dev.find(" ("));
    if (requested == GPUSVD_BACKEND_GPU) return "gpu (" + dev + ")";
    if (input_bytes < kAutoGpuMinBytes) return "cpu (auto keeps inputs under 64 KiB on the CPU)";
    return "auto -> gpu (" + dev + "; the CPU for routines without GPU kernels)";
}

}  // namespace

std::string time_text(double ms) {
    char buf[32];
    if (ms >= 1000)
        std::snprintf(buf, sizeof buf, "%.3g s", ms / 1000);
    else
        std::snprintf(buf, sizeof buf, "%.3g ms", ms);
    return buf;
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

double Session::ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

Session::Session(const std::string &command, const ArgList &args, unsigned accept, bool track_lines)
    : o(parse(command, args, accept)), handle(o.backend) {
    const auto t0 = std::chrono::steady_clock::now();
    ReadOptions r;
    r.single = o.precision == Precision::Single;
    r.track_lines = track_lines;
    r.header = o.header;
    a = read_matrix(o.file, r);
    read_ms_ = ms_since(t0);
    single = o.precision == Precision::Single || (o.precision == Precision::FromInput && a.float32);
    format = o.format;
    // The input's format by default; but binary .npy is never sent to a terminal unasked.
    if (format == OutFormat::FromInput)
        format = a.format == InputFormat::MatrixMarket ? OutFormat::MatrixMarket
                 : a.format == InputFormat::Npy && !(o.outdir.empty() && isatty(STDOUT_FILENO))
                     ? OutFormat::Npy
                     : OutFormat::Csv;
    if (summary())
        for (const std::string &n : a.notes)
            std::fprintf(stderr, "note: %s: %s\n", a.source.c_str(), n.c_str());
}

Selection Session::select(const std::vector<ResultSpec> &specs, const std::string &default_name,
                          const std::string &extra_flag) {
    return select_results(o, format, specs, default_name, extra_flag);
}

void Session::write(const Selection &sel, const std::vector<Result> &results) {
    const auto t0 = std::chrono::steady_clock::now();
    Output out(format, o.outdir, !summary());
    // A person at a terminal gets the summary, not a screenful of numbers they did not ask for.
    constexpr int64_t kTerminalMaxValues = 100;
    const bool terminal = o.outdir.empty() && summary() && o.only.empty() && isatty(STDOUT_FILENO);
    for (const std::string &name : sel.names)
        for (const Result &r : results) {
            if (r.name != name) continue;
            if (terminal && r.size() > kTerminalMaxValues)
                withheld_ = name + " (" + std::to_string(r.size()) + " values)";
            else
                out.write(r);
        }
    std::fflush(stdout);
    write_ms_ = ms_since(t0);
}

void Session::say(const char *fmt, ...) const {
    if (!summary()) return;
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(stderr, fmt, ap);
    va_end(ap);
    std::fputc('\n', stderr);
}

void Session::head(size_t input_bytes, const std::string &shape) const {
    if (!summary()) return;
    std::string s = shape;
    if (s.empty()) {
        s = std::to_string(a.rows) + " x " + std::to_string(a.cols);
        if (a.batched)
            s = std::to_string(a.batch) + (a.batch == 1 ? " matrix of " : " matrices of ") + s;
    }
    std::string per;
    if (a.batched && a.batch > 0)
        per = " (" + time_text(compute_ms_ / double(a.batch)) + " per matrix)";
    say("%s: %s: %s, %s; backend %s; compute %s%s", o.command.c_str(), a.source.c_str(), s.c_str(),
        dtype(), backend_text(handle, o.backend, input_bytes).c_str(),
        time_text(compute_ms_).c_str(), per.c_str());
}

void Session::finish(const Selection &sel) const {
    if (!summary()) return;
    if (!withheld_.empty()) {
        say("  standard output is a terminal: %s not shown; redirect it, or name it with --only "
            "to see it, or write files with -o DIR",
            withheld_.c_str());
    } else if (o.outdir.empty()) {
        std::string line = "  standard output: " + sel.names[0] + " (" + extension(format) + ")";
        if (!sel.left_out.empty())
            line +=
                "; not written: " + sel.left_out + " (--only NAME picks one, -o DIR writes all)";
        say("%s", line.c_str());
    }
    if (o.verbosity > 1) {
        say("  input: %s", a.layout.c_str());
        say("  time: read %s, compute %s, write %s", time_text(read_ms_).c_str(),
            time_text(compute_ms_).c_str(), time_text(write_ms_).c_str());
    }
}

}  // namespace gpusvd_cli
