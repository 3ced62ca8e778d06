// Matrix Market array / CSV writers.
#include "output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <type_traits>

#include "cli.hpp"

namespace gpusvd_cli {

namespace {

template <class T>
void write_block(std::FILE *f, OutFormat format, int64_t rows, int64_t cols, const T *a,
                 int64_t ld) {
    const int digits = std::is_same<T, float>::value ? 9 : 17;
    if (format == OutFormat::MatrixMarket) {
        std::fprintf(f, "%lld %lld\n", static_cast<long long>(rows), static_cast<long long>(cols));
        for (int64_t j = 0; j < cols; ++j)
            for (int64_t i = 0; i < rows; ++i)
                std::fprintf(f, "%.*g\n", digits, static_cast<double>(a[i + j * ld]));
    } else {
        for (int64_t i = 0; i < rows; ++i) {
            for (int64_t j = 0; j < cols; ++j)
                std::fprintf(f, j + 1 < cols ? "%.*g," : "%.*g\n", digits,
                             static_cast<double>(a[i + j * ld]));
            if (cols == 0) std::fputc('\n', f);
        }
    }
}

constexpr const char *kMmHeader = "%%MatrixMarket matrix array real general\n";

}  // namespace

void Output::write(const std::string &name, int64_t rows, int64_t cols, const double *a,
                   int64_t ld) {
    write_impl(name, rows, cols, a, ld);
}

void Output::write(const std::string &name, int64_t rows, int64_t cols, const float *a,
                   int64_t ld) {
    write_impl(name, rows, cols, a, ld);
}

template <class T>
void Output::write_impl(const std::string &name, int64_t rows, int64_t cols, const T *a,
                        int64_t ld) {
    if (outdir_.empty()) {
        std::printf("%% %s\n", name.c_str());
        if (format_ == OutFormat::MatrixMarket) std::fputs(kMmHeader, stdout);
        write_block(stdout, format_, rows, cols, a, ld);
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
    const std::string path =
        outdir_ + "/" + name + (format_ == OutFormat::MatrixMarket ? ".mtx" : ".csv");
    std::FILE *f = std::fopen(path.c_str(), "w");
    if (!f) throw CliError(kExitFailure, "cannot write '" + path + "': " + std::strerror(errno));
    if (format_ == OutFormat::MatrixMarket) {
        std::fputs(kMmHeader, f);
        std::fprintf(f, "%% %s\n", name.c_str());
    }
    write_block(f, format_, rows, cols, a, ld);
    const bool failed = std::ferror(f) != 0;
    const int err = errno;
    if (std::fclose(f) != 0 || failed)
        throw CliError(kExitFailure,
                       "cannot write '" + path + "': " + std::strerror(err ? err : EIO));
}

}  // namespace gpusvd_cli
