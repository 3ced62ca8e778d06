// Reading a dense matrix: format detection and error reporting.
#include "matrix_io.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli.hpp"
#include "npy.hpp"
#include "text_input.hpp"

namespace gpusvd_cli {

void input_error(const std::string &file, int64_t line, const std::string &what) {
    std::string msg = file;
    if (line > 0) msg += ":" + std::to_string(line);
    throw CliError(kExitUsage, msg + ": " + what);
}

namespace {

bool has_extension(const std::string &path, const char *ext) {
    const std::string p = text_input::lower(path);
    const size_t n = std::strlen(ext);
    return p.size() > n && p.compare(p.size() - n, n, ext) == 0;
}

}  // namespace

Matrix read_matrix(const std::string &path, const ReadOptions &opt) {
    using namespace text_input;
    const bool is_stdin = path == "-";
    const std::string name = is_stdin ? "<stdin>" : path;
    std::ifstream file;
    if (!is_stdin) {
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec)) input_error(name, 0, "is a directory");
        file.open(path, std::ios::in | std::ios::binary);
        if (!file) input_error(name, 0, std::string("cannot open: ") + std::strerror(errno));
    }
    std::istream &in = is_stdin ? std::cin : file;

    Matrix a;
    // 0x93 cannot start a text file (it is no ASCII byte and no UTF-8 lead byte).
    if (in.peek() == 0x93) {
        a = npy::read(in, name, opt);
    } else if (has_extension(path, ".npy")) {
        input_error(name, 0, "not a .npy file: it does not start with the '\\x93NUMPY' magic");
    } else {
        LineReader r(in, name);
        std::string first;
        if (!r.next(first)) input_error(name, 0, "empty file");
        if (lower(first.substr(0, 14)) == "%%matrixmarket") {
            a = read_mm(r, first, opt);
        } else if (!first.empty() && first[0] == '%') {
            input_error(name, 1,
                        "expected the Matrix Market header '%%MatrixMarket matrix array real "
                        "general'");
        } else if (has_extension(path, ".mtx") || has_extension(path, ".mm")) {
            input_error(name, 1,
                        "a Matrix Market file must start with '%%MatrixMarket matrix array real "
                        "general'");
        } else {
            a = read_delimited(r, first, opt);
        }
    }
    a.source = name;
    return a;
}

}  // namespace gpusvd_cli
