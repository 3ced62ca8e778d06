// Internal to the text matrix readers: a line reader that counts lines, token helpers, number
// parsing with file:line diagnostics, and the Matrix Market and delimited-text readers.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "matrix_io.hpp"

namespace gpusvd_cli {
namespace text_input {

/// Line-by-line reader that counts lines, drops a trailing '\r' and a leading UTF-8 BOM.
class LineReader {
public:
    LineReader(std::istream &in, std::string name) : in_(in), name_(std::move(name)) {}
    /// Next line into `line`; false at the end of the input. Throws on a read error.
    bool next(std::string &line);
    int64_t number() const { return number_; }
    const std::string &name() const { return name_; }

private:
    std::istream &in_;
    std::string name_;
    int64_t number_ = 0;
};

std::string lower(std::string s);
bool is_blank(const std::string &s);
/// s without leading and trailing blanks (space, tab, \v, \f).
std::string trim(const std::string &s);
/// Blank-separated tokens of s.
std::vector<std::string> split_ws(const std::string &s);
/// A token quoted for a message, shortened and with control bytes escaped.
std::string shown(const std::string &tok);

/// Whether the whole token is a number in strtod syntax.
bool is_number(const std::string &tok);
/// A number (strtod syntax, the whole token); `single`: must fit in float32.
double parse_value(const LineReader &r, const std::string &tok, bool single);
/// A non-negative decimal integer; `what` names it in the message.
int64_t parse_dim(const LineReader &r, const std::string &tok, const char *what);
/// a * b for a matrix size, rejecting absurd sizes.
int64_t checked_mul(const LineReader &r, int64_t a, int64_t b);

/// Never reserve more than this many values on the word of a header.
constexpr size_t kMaxReserve = size_t(1) << 22;

/// Matrix Market array body after the header line (already read into `header`).
Matrix read_mm(LineReader &r, const std::string &header, const ReadOptions &opt);
/// Delimited text (comma, tab, semicolon or blank separated; '#' comments; an optional header
/// row), starting with the already-read first line.
Matrix read_delimited(LineReader &r, std::string first, const ReadOptions &opt);

}  // namespace text_input
}  // namespace gpusvd_cli
