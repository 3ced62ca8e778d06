// Delimited text reader: CSV, TSV, semicolon- or blank-separated rows (numpy.savetxt's default),
// '#' comments, an optional header row of column names, optional row labels.
#include "text_input.hpp"

namespace gpusvd_cli {
namespace text_input {

namespace {

constexpr char kBlanks = 0;  // delimiter value: fields separated by runs of blanks

/// The line up to a '#' outside double quotes.
std::string strip_comment(const std::string &line) {
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '"') quoted = !quoted;
        if (line[i] == '#' && !quoted) return line.substr(0, i);
    }
    return line;
}

bool has_unquoted(const std::string &line, char c) {
    bool quoted = false;
    for (char x : line) {
        if (x == '"') quoted = !quoted;
        if (x == c && !quoted) return true;
    }
    return false;
}

/// The first of ',', tab, ';' that separates fields on this line, else runs of blanks.
char detect_delimiter(const std::string &line) {
    for (char c : {',', '\t', ';'})
        if (has_unquoted(line, c)) return c;
    return kBlanks;
}

const char *delimiter_name(char d) {
    switch (d) {
        case ',':
            return "','";
        case '\t':
            return "tab";
        case ';':
            return "';'";
        default:
            return "blanks";
    }
}

/// Fields of a line, trimmed, with double quotes removed ("" inside quotes is one quote).
std::vector<std::string> split_fields(const std::string &line, char delim) {
    std::vector<std::string> out;
    std::string field;
    bool quoted = false, any = false;
    auto finish = [&] {
        out.push_back(any ? field : trim(field));
        field.clear();
        any = false;
    };
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            // A quoted field keeps its inner blanks; blanks around the quotes are dropped.
            field = trim(field);
            quoted = any = true;
        } else if (delim == kBlanks ? (c == ' ' || c == '\t') : c == delim) {
            if (delim == kBlanks && field.empty() && !any) continue;
            finish();
        } else if (!(any && (c == ' ' || c == '\t'))) {
            field += c;
        }
    }
    if (delim != kBlanks || !field.empty() || any) finish();
    return out;
}

}  // namespace

Matrix read_delimited(LineReader &r, std::string first, const ReadOptions &opt) {
    std::vector<double> rowmajor;
    std::vector<int64_t> row_lines;
    std::vector<std::string> names;
    int64_t cols = -1, cols_line = 0, blank_line = 0, comments = 0, header_line = 0;
    bool delim_known = false, labels = false, label_text = false;
    char delim = kBlanks;
    std::string line = std::move(first);
    for (bool have = true; have; have = r.next(line)) {
        const std::string content = strip_comment(line);
        if (content.size() != line.size()) ++comments;
        if (is_blank(content)) {
            if (cols >= 0 && !blank_line) blank_line = r.number();
            continue;
        }
        if (blank_line)
            input_error(r.name(), blank_line,
                        "blank line inside the data (only trailing blank lines are allowed)");
        if (!delim_known) {
            delim = detect_delimiter(content);
            delim_known = true;
        }
        std::vector<std::string> fields = split_fields(content, delim);
        if (!header_line && cols < 0) {
            // A first row without any number is a header; a mix of names and numbers is an
            // error below (most likely a typo), unless --header says it is names.
            bool any_number = false;
            for (const std::string &f : fields) any_number = any_number || is_number(f);
            if (opt.header || !any_number) {
                names = std::move(fields);
                header_line = r.number();
                // An empty first name (pandas' and R's index column) marks row labels.
                labels = names.size() > 1 && names[0].empty();
                continue;
            }
        }
        if (cols < 0 && header_line) {
            // One name fewer than fields: the first column is row labels without a name. Text
            // in the first column under a header, numbers in the others: named row labels.
            if (!labels && fields.size() == names.size() + 1) labels = true;
            bool rest_numbers = fields.size() > 1 && !is_number(fields[0]);
            for (size_t j = 1; j < fields.size() && rest_numbers; ++j)
                rest_numbers = is_number(fields[j]);
            if (!labels && rest_numbers) {
                labels = true;
                label_text = true;
            }
            const size_t want = names.size() + (labels && !label_text && !names[0].empty() ? 1 : 0);
            if (fields.size() != want)
                input_error(r.name(), r.number(),
                            "the header row (line " + std::to_string(header_line) + ") has " +
                                std::to_string(names.size()) + " names, this row has " +
                                std::to_string(fields.size()) + " fields");
        }
        const size_t skip = labels ? 1 : 0;
        const int64_t n = int64_t(fields.size()) - int64_t(skip);
        if (cols < 0) {
            cols = n;
            cols_line = r.number();
        } else if (n != cols) {
            input_error(r.name(), r.number(),
                        "ragged rows: this row has " + std::to_string(n) + " values, line " +
                            std::to_string(cols_line) + " has " + std::to_string(cols));
        }
        for (size_t j = skip; j < fields.size(); ++j) {
            const std::string &tok = fields[j];
            const std::string column = "column " + std::to_string(j + 1);
            if (tok.empty()) input_error(r.name(), r.number(), "empty field in " + column);
            if (!header_line && row_lines.empty() && !is_number(tok))
                input_error(r.name(), r.number(),
                            shown(tok) + " in " + column +
                                " is not a number (a header row of column names has no number "
                                "in it; pass --header if this row is one)");
            if (delim != kBlanks && tok.find_first_of(" \t") != std::string::npos &&
                !is_number(tok))
                input_error(r.name(), r.number(),
                            shown(tok) + " in " + column + " is not a number (fields are " +
                                "separated by " + delimiter_name(delim) + ")");
            rowmajor.push_back(parse_value(r, tok, opt.single));
        }
        row_lines.push_back(r.number());
    }
    if (cols < 0)
        input_error(r.name(), 0, header_line ? "no data after the header row" : "no data");

    Matrix a;
    a.format = InputFormat::Text;
    a.rows = int64_t(row_lines.size());
    a.cols = cols;
    a.values.resize(rowmajor.size());
    if (opt.track_lines) a.lines.resize(rowmajor.size());
    for (int64_t i = 0; i < a.rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
            a.values[size_t(i + j * a.rows)] = rowmajor[size_t(i * cols + j)];
            if (opt.track_lines) a.lines[size_t(i + j * a.rows)] = row_lines[size_t(i)];
        }
    a.layout = std::string("text, fields separated by ") + delimiter_name(delim);
    if (header_line) a.layout += ", header row on line " + std::to_string(header_line);
    if (comments) a.layout += ", " + std::to_string(comments) + " comment line(s)";
    if (labels)
        a.notes.push_back(std::string("the first column is taken as row labels and skipped (") +
                          (label_text         ? "it holds text, the other columns numbers"
                           : names[0].empty() ? "the header row leaves its name empty"
                                              : "the header row has one name fewer than the rows") +
                          ")");
    return a;
}

}  // namespace text_input
}  // namespace gpusvd_cli
