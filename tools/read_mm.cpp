// Matrix Market array reader (general, symmetric, skew-symmetric; real, double, integer).
#include <algorithm>

#include "text_input.hpp"

namespace gpusvd_cli {
namespace text_input {

namespace {
enum class Symmetry { General, Symmetric, Skew };
}  // namespace

Matrix read_mm(LineReader &r, const std::string &header, const ReadOptions &opt) {
    const std::vector<std::string> h = split_ws(header);
    const std::string expected =
        "expected '%%MatrixMarket matrix array real general' (or symmetric, skew-symmetric)";
    if (h.size() != 5 || lower(h[0]) != "%%matrixmarket")
        input_error(r.name(), r.number(), "malformed Matrix Market header: " + expected);
    const std::string object = lower(h[1]), format = lower(h[2]), field = lower(h[3]),
                      symmetry = lower(h[4]);
    if (object != "matrix")
        input_error(r.name(), r.number(),
                    "Matrix Market object " + shown(h[1]) + " is not supported: " + expected);
    if (format == "coordinate")
        input_error(r.name(), r.number(),
                    "Matrix Market 'coordinate' (sparse) format is not supported; the matrix "
                    "must be dense, in 'array' format");
    if (format != "array")
        input_error(r.name(), r.number(),
                    "Matrix Market format " + shown(h[2]) + " is not supported: " + expected);
    if (field != "real" && field != "double" && field != "integer")
        input_error(r.name(), r.number(),
                    "Matrix Market field " + shown(h[3]) +
                        " is not supported: only real matrices (real, double, integer)");
    Symmetry sym;
    if (symmetry == "general")
        sym = Symmetry::General;
    else if (symmetry == "symmetric")
        sym = Symmetry::Symmetric;
    else if (symmetry == "skew-symmetric")
        sym = Symmetry::Skew;
    else
        input_error(r.name(), r.number(),
                    "Matrix Market symmetry " + shown(h[4]) +
                        " is not supported: general, symmetric or skew-symmetric");

    // Size line, after comments and blank lines.
    std::string line;
    int64_t m = -1, n = -1;
    while (r.next(line)) {
        const std::string t = trim(line);
        if (t.empty() || t[0] == '%') continue;
        const std::vector<std::string> tok = split_ws(t);
        if (tok.size() != 2)
            input_error(r.name(), r.number(),
                        "expected the size line 'ROWS COLS' of an array file, got " +
                            std::to_string(tok.size()) + " fields");
        m = parse_dim(r, tok[0], "the number of rows");
        n = parse_dim(r, tok[1], "the number of columns");
        break;
    }
    if (m < 0) input_error(r.name(), r.number(), "missing the size line 'ROWS COLS'");
    if (sym != Symmetry::General && m != n)
        input_error(r.name(), r.number(),
                    "a " + symmetry + " matrix must be square, got " + std::to_string(m) + " x " +
                        std::to_string(n));
    const int64_t total = checked_mul(r, m, n);
    int64_t expect = total;
    if (sym == Symmetry::Symmetric) expect = checked_mul(r, n, n + 1) / 2;
    if (sym == Symmetry::Skew) expect = n > 0 ? checked_mul(r, n, n - 1) / 2 : 0;

    std::vector<double> vals;
    std::vector<int64_t> lines;
    vals.reserve(std::min<size_t>(size_t(expect), kMaxReserve));
    if (opt.track_lines) lines.reserve(vals.capacity());
    const std::string size_text = std::to_string(m) + " x " + std::to_string(n);
    const int64_t size_line = r.number();
    while (r.next(line)) {
        const std::string t = trim(line);
        if (t.empty() || t[0] == '%') continue;
        for (const std::string &tok : split_ws(t)) {
            if (int64_t(vals.size()) == expect)
                input_error(r.name(), r.number(),
                            "more values than the " + std::to_string(expect) + " expected for a " +
                                size_text + " " + symmetry + " array (size on line " +
                                std::to_string(size_line) + ")");
            vals.push_back(parse_value(r, tok, opt.single));
            if (opt.track_lines) lines.push_back(r.number());
        }
    }
    if (int64_t(vals.size()) != expect)
        input_error(r.name(), r.number(),
                    "expected " + std::to_string(expect) + " values for a " + size_text + " " +
                        symmetry + " array (size on line " + std::to_string(size_line) +
                        "), found " + std::to_string(vals.size()));

    Matrix a;
    a.format = InputFormat::MatrixMarket;
    a.layout = "Matrix Market array, " + symmetry;
    a.rows = m;
    a.cols = n;
    if (sym == Symmetry::General) {
        a.values = std::move(vals);
        a.lines = std::move(lines);
        return a;
    }
    // Lower triangle (with the diagonal unless skew) stored column by column: mirror it.
    a.values.assign(size_t(total), 0.0);
    if (opt.track_lines) a.lines.assign(size_t(total), size_line);
    size_t p = 0;
    const double sign = sym == Symmetry::Skew ? -1.0 : 1.0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = sym == Symmetry::Skew ? j + 1 : j; i < n; ++i, ++p) {
            a.values[size_t(i + j * n)] = vals[p];
            a.values[size_t(j + i * n)] = i == j ? vals[p] : sign * vals[p];
            if (opt.track_lines) a.lines[size_t(i + j * n)] = a.lines[size_t(j + i * n)] = lines[p];
        }
    return a;
}

}  // namespace text_input
}  // namespace gpusvd_cli
