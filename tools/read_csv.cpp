// CSV reader: one row per line, comma-separated numbers, trailing blank lines allowed.
#include "text_input.hpp"

namespace gpusvd_cli {
namespace text_input {

Matrix read_csv(LineReader &r, std::string first, const ReadOptions &opt) {
    std::vector<double> rowmajor;
    std::vector<int64_t> row_lines;
    int64_t cols = -1, cols_line = 0, blank_line = 0;
    std::string line = std::move(first);
    bool have = true;
    for (; have; have = r.next(line)) {
        if (is_blank(line)) {
            if (!blank_line) blank_line = r.number();
            continue;
        }
        if (blank_line)
            input_error(r.name(), blank_line,
                        cols < 0 ? "blank line before the CSV data"
                                 : "blank line inside CSV data (only trailing blank lines are "
                                   "allowed)");
        int64_t fields = 0;
        size_t start = 0;
        while (true) {
            const size_t comma = line.find(',', start);
            const std::string tok = trim(
                line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
            ++fields;
            if (tok.empty())
                input_error(r.name(), r.number(),
                            "empty field in column " + std::to_string(fields));
            if (tok.find_first_of(" \t;") != std::string::npos)
                input_error(r.name(), r.number(),
                            shown(tok) + " in column " + std::to_string(fields) +
                                " is not a number (CSV fields are separated by commas)");
            if (tok.size() >= 2 && tok.front() == '"' && tok.back() == '"')
                rowmajor.push_back(parse_value(r, trim(tok.substr(1, tok.size() - 2)), opt.single));
            else
                rowmajor.push_back(parse_value(r, tok, opt.single));
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        if (cols < 0) {
            cols = fields;
            cols_line = r.number();
        } else if (fields != cols) {
            input_error(r.name(), r.number(),
                        "ragged CSV: this row has " + std::to_string(fields) + " fields, line " +
                            std::to_string(cols_line) + " has " + std::to_string(cols));
        }
        row_lines.push_back(r.number());
    }
    if (cols < 0) input_error(r.name(), 0, "no data (empty CSV file)");

    Matrix a;
    a.rows = int64_t(row_lines.size());
    a.cols = cols;
    a.values.resize(rowmajor.size());
    if (opt.track_lines) a.lines.resize(rowmajor.size());
    for (int64_t i = 0; i < a.rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
            a.values[size_t(i + j * a.rows)] = rowmajor[size_t(i * cols + j)];
            if (opt.track_lines) a.lines[size_t(i + j * a.rows)] = row_lines[size_t(i)];
        }
    return a;
}

}  // namespace text_input
}  // namespace gpusvd_cli
