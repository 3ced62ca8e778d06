// Line reading, tokens and number parsing for the matrix readers.
#include "text_input.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gpusvd_cli {
namespace text_input {

std::string lower(std::string s) {
    for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

}  // namespace

bool is_blank(const std::string &s) {
    for (char c : s)
        if (!is_space(c)) return false;
    return true;
}

std::string trim(const std::string &s) {
    size_t b = 0, e = s.size();
    while (b < e && is_space(s[b])) ++b;
    while (e > b && is_space(s[e - 1])) --e;
    return s.substr(b, e - b);
}

std::vector<std::string> split_ws(const std::string &s) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && is_space(s[i])) ++i;
        size_t j = i;
        while (j < s.size() && !is_space(s[j])) ++j;
        if (j > i) out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

std::string shown(const std::string &tok) {
    constexpr size_t kMaxShownToken = 40;
    std::string out = "'";
    for (size_t i = 0; i < tok.size() && i < kMaxShownToken; ++i) {
        const unsigned char c = static_cast<unsigned char>(tok[i]);
        if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    if (tok.size() > kMaxShownToken) out += "...";
    return out + "'";
}

bool LineReader::next(std::string &line) {
    if (!std::getline(in_, line)) {
        if (in_.bad()) input_error(name_, 0, "read error");
        return false;
    }
    ++number_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number_ == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    return true;
}

bool is_number(const std::string &tok) {
    const char *s = tok.c_str();
    char *end = nullptr;
    std::strtod(s, &end);
    return !tok.empty() && end == s + tok.size();
}

double parse_value(const LineReader &r, const std::string &tok, bool single) {
    const char *s = tok.c_str();
    char *end = nullptr;
    errno = 0;
    const double v = std::strtod(s, &end);
    if (end == s || *end != '\0' || tok.find('\0') != std::string::npos)
        input_error(r.name(), r.number(), shown(tok) + " is not a number");
    if (errno == ERANGE && std::isinf(v))
        input_error(r.name(), r.number(), "value " + shown(tok) + " overflows float64");
    if (single && std::isfinite(v) && std::isinf(static_cast<float>(v)))
        input_error(r.name(), r.number(),
                    "value " + shown(tok) + " overflows float32 (drop --single)");
    return v;
}

int64_t parse_dim(const LineReader &r, const std::string &tok, const char *what) {
    bool digits = !tok.empty();
    for (char c : tok) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    errno = 0;
    const long long v = digits ? std::strtoll(tok.c_str(), nullptr, 10) : -1;
    if (!digits || errno == ERANGE)
        input_error(r.name(), r.number(),
                    std::string(what) + " must be a non-negative integer, got " + shown(tok));
    return v;
}

int64_t checked_mul(const LineReader &r, int64_t a, int64_t b) {
    int64_t p;
    if (__builtin_mul_overflow(a, b, &p) || p > int64_t(1) << 50)
        input_error(r.name(), r.number(), "matrix dimensions are too large");
    return p;
}

}  // namespace text_input
}  // namespace gpusvd_cli
