// Result selection and the Matrix Market array / CSV / .npy writers.
#include "output.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <type_traits>

#include "cli.hpp"
#include "npy.hpp"

namespace gpusvd_cli {

int64_t Result::size() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
}

std::string Result::shape_text() const {
    std::string out = "(";
    for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + (shape.size() == 1 ? ",)" : ")");
}

template <class T>
Result strided_result(const std::string &name, const T *p, std::vector<int64_t> shape,
                      std::vector<int64_t> strides) {
    Result r;
    r.name = name;
    r.shape = std::move(shape);
    r.strides = std::move(strides);
    if constexpr (std::is_same<T, double>::value) {
        r.d = p;
    } else {
        r.f = p;
        r.is_float = true;
    }
    return r;
}

template <class T>
Result vector_result(const std::string &name, const T *p, int64_t k, int64_t stride) {
    return strided_result(name, p, {k}, {stride});
}
template <class T>
Result matrix_result(const std::string &name, const T *p, int64_t rows, int64_t cols, int64_t ld) {
    return strided_result(name, p, {rows, cols}, {1, ld});
}
template <class T>
Result batch_result(const std::string &name, const T *p, int64_t batch, int64_t rows, int64_t cols,
                    int64_t ld, int64_t stride) {
    return strided_result(name, p, {batch, rows, cols}, {stride, 1, ld});
}
template <class T>
Result scalar_result(const std::string &name, const T *p) {
    return strided_result(name, p, {}, {});
}

#define GPUSVD_CLI_RESULTS(T)                                                                    \
    template Result strided_result<T>(const std::string &, const T *, std::vector<int64_t>,      \
                                      std::vector<int64_t>);                                     \
    template Result vector_result<T>(const std::string &, const T *, int64_t, int64_t);          \
    template Result matrix_result<T>(const std::string &, const T *, int64_t, int64_t, int64_t); \
    template Result batch_result<T>(const std::string &, const T *, int64_t, int64_t, int64_t,   \
                                    int64_t, int64_t);                                           \
    template Result scalar_result<T>(const std::string &, const T *);
GPUSVD_CLI_RESULTS(float)
GPUSVD_CLI_RESULTS(double)
#undef GPUSVD_CLI_RESULTS

bool Selection::has(const std::string &name) const {
    return std::find(names.begin(), names.end(), name) != names.end();
}

const char *extension(OutFormat format) {
    switch (format) {
        case OutFormat::Csv:
            return "csv";
        case OutFormat::Npy:
            return "npy";
        default:
            return "mtx";
    }
}

Selection select_results(const FileOptions &o, OutFormat format,
                         const std::vector<ResultSpec> &specs, const std::string &default_name,
                         const std::string &extra_flag) {
    const std::string &cmd = o.command;
    std::string all;
    for (const ResultSpec &s : specs) all += (all.empty() ? "" : ", ") + s.name;
    auto spec = [&](const std::string &name) -> const ResultSpec * {
        for (const ResultSpec &s : specs)
            if (s.name == name) return &s;
        return nullptr;
    };
    Selection sel;
    if (!o.only.empty()) {
        for (const std::string &name : o.only) {
            if (!spec(name))
                usage_error(cmd, "'" + cmd + "' has no result '" + name + "'; its results: " + all);
            if (!sel.has(name)) sel.names.push_back(name);
        }
        if (o.outdir.empty() && sel.names.size() > 1)
            usage_error(cmd, "standard output holds one result, --only names " +
                                 std::to_string(sel.names.size()) +
                                 ": add -o DIR to write several");
    } else if (!o.outdir.empty()) {
        for (const ResultSpec &s : specs)
            if (s.in_full_set) sel.names.push_back(s.name);
    } else {
        if (!extra_flag.empty())
            usage_error(cmd, extra_flag + ", but standard output holds one result (" +
                                 default_name + "): add -o DIR, or --only NAME to pick one");
        sel.names.push_back(default_name);
        for (const ResultSpec &s : specs)
            if (s.in_full_set && s.name != default_name)
                sel.left_out += (sel.left_out.empty() ? "" : ", ") + s.name;
    }
    if (format != OutFormat::Npy)
        for (const std::string &name : sel.names)
            if (spec(name)->ndim == 3)
                usage_error(cmd, "result " + name + " of a batch is 3-D (batch, rows, cols), but " +
                                     "--format " + (format == OutFormat::Csv ? "csv" : "mm") +
                                     " holds 2-D matrices: use --format npy");
    if (o.outdir.empty() && format == OutFormat::Npy && isatty(STDOUT_FILENO))
        throw CliError(kExitUsage,
                       "standard output is a terminal and .npy is binary: redirect it, write "
                       "files with -o DIR, or choose --format csv");
    return sel;
}

namespace {

/// Calls f(offset) for every element in C order (last axis fastest).
template <class F>
void c_order(const Result &r, F f) {
    const size_t nd = r.shape.size();
    if (nd == 0) return f(int64_t(0));
    for (int64_t s : r.shape)
        if (s == 0) return;
    std::vector<int64_t> idx(nd, 0);
    while (true) {
        int64_t off = 0;
        for (size_t a = 0; a < nd; ++a) off += idx[a] * r.strides[a];
        f(off);
        size_t a = nd;
        while (a > 0 && ++idx[a - 1] == r.shape[a - 1]) idx[--a] = 0;
        if (a == 0) return;
    }
}

/// Rows and columns a result has as a 2-D matrix (a vector is one column, a scalar 1 x 1), and
/// the strides between them.
void as_matrix(const Result &r, int64_t &rows, int64_t &cols, int64_t &si, int64_t &sj) {
    rows = r.shape.empty() ? 1 : r.shape[0];
    cols = r.shape.size() < 2 ? 1 : r.shape[1];
    si = r.shape.empty() ? 0 : r.strides[0];
    sj = r.shape.size() < 2 ? 0 : r.strides[1];
}

void write_text(std::FILE *f, OutFormat format, const Result &r) {
    const int digits = r.is_float ? 9 : 17;
    int64_t rows, cols, si, sj;
    as_matrix(r, rows, cols, si, sj);
    if (format == OutFormat::MatrixMarket) {
        std::fprintf(f, "%%%%MatrixMarket matrix array real general\n%% %s\n%lld %lld\n",
                     r.name.c_str(), static_cast<long long>(rows), static_cast<long long>(cols));
        for (int64_t j = 0; j < cols; ++j)
            for (int64_t i = 0; i < rows; ++i)
                std::fprintf(f, "%.*g\n", digits, r.at(i * si + j * sj));
        return;
    }
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j)
            std::fprintf(f, j + 1 < cols ? "%.*g," : "%.*g\n", digits, r.at(i * si + j * sj));
        if (cols == 0) std::fputc('\n', f);
    }
}

template <class T>
void write_npy_data(std::FILE *f, const Result &r) {
    std::vector<T> buf;
    buf.reserve(size_t(1) << 16);
    c_order(r, [&](int64_t off) {
        buf.push_back(static_cast<T>(r.at(off)));
        if (buf.size() == buf.capacity()) {
            std::fwrite(buf.data(), sizeof(T), buf.size(), f);
            buf.clear();
        }
    });
    std::fwrite(buf.data(), sizeof(T), buf.size(), f);
}

void write_npy(std::FILE *f, const Result &r) {
    const std::string h = npy::format_header(
        r.is_float ? npy::native_descr<float>() : npy::native_descr<double>(), r.shape);
    std::fwrite(h.data(), 1, h.size(), f);
    if (r.is_float)
        write_npy_data<float>(f, r);
    else
        write_npy_data<double>(f, r);
}

void write_to(std::FILE *f, OutFormat format, const Result &r) {
    if (format == OutFormat::Npy)
        write_npy(f, r);
    else
        write_text(f, format, r);
}

}  // namespace

void Output::write(const Result &r) {
    if (outdir_.empty()) {
        write_to(stdout, format_, r);
        return;
    }
    if (!dir_ready_) {
        std::error_code ec;
        std::filesystem::create_directories(outdir_, ec);
        if (ec || !std::filesystem::is_directory(outdir_))
            throw CliError(kExitFailure, "cannot create directory '" + outdir_ +
                                             "': " + (ec ? ec.message() : "not a directory"));
        dir_ready_ = true;
    }
    const std::string path = outdir_ + "/" + r.name + "." + extension(format_);
    std::FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) throw CliError(kExitFailure, "cannot write '" + path + "': " + std::strerror(errno));
    write_to(f, format_, r);
    const bool failed = std::ferror(f) != 0;
    const int err = errno;
    if (std::fclose(f) != 0 || failed)
        throw CliError(kExitFailure,
                       "cannot write '" + path + "': " + std::strerror(err ? err : EIO));
    if (!quiet_)
        std::fprintf(stderr, "wrote %s %s %s\n", path.c_str(), r.shape_text().c_str(),
                     r.is_float ? "float32" : "float64");
}

}  // namespace gpusvd_cli
