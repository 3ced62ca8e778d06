// .npy header dict: parsing the Python literal numpy writes, and writing one.
#include <cctype>
#include <cstring>

#include "npy.hpp"

namespace gpusvd_cli {
namespace npy {

namespace {

/// A cursor over the dict literal; each method skips blanks first.
struct Cursor {
    const std::string &s;
    size_t i = 0;
    void blanks() {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    }
    bool eat(char c) {
        blanks();
        if (i < s.size() && s[i] == c) {
            ++i;
            return true;
        }
        return false;
    }
    bool string(std::string &out) {
        blanks();
        if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return false;
        const char q = s[i++];
        const size_t end = s.find(q, i);
        if (end == std::string::npos) return false;
        out = s.substr(i, end - i);
        i = end + 1;
        return true;
    }
    bool word(const char *w) {
        blanks();
        const size_t n = std::strlen(w);
        if (s.compare(i, n, w) != 0) return false;
        i += n;
        return true;
    }
    bool integer(int64_t &v) {
        blanks();
        const size_t start = i;
        v = 0;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
            if (v > (int64_t(1) << 53)) return false;
            v = v * 10 + (s[i++] - '0');
        }
        if (i < s.size() && s[i] == 'L') ++i;  // Python 2's long literal
        return i > start;
    }
};

}  // namespace

std::string parse_header(const std::string &dict, Header &h) {
    Cursor c{dict};
    bool have_descr = false, have_order = false, have_shape = false;
    if (!c.eat('{')) return "the header is not a dict";
    while (!c.eat('}')) {
        std::string key;
        if (!c.string(key) || !c.eat(':')) return "malformed header dict";
        if (key == "descr") {
            if (!c.string(h.descr)) {
                c.blanks();
                if (c.i < dict.size() && dict[c.i] == '[')
                    return "structured arrays (record dtypes) are not supported";
                return "malformed 'descr'";
            }
            have_descr = true;
        } else if (key == "fortran_order") {
            if (c.word("True"))
                h.fortran_order = true;
            else if (c.word("False"))
                h.fortran_order = false;
            else
                return "malformed 'fortran_order'";
            have_order = true;
        } else if (key == "shape") {
            if (!c.eat('(')) return "malformed 'shape'";
            h.shape.clear();
            while (!c.eat(')')) {
                int64_t v;
                if (!c.integer(v)) return "malformed 'shape'";
                h.shape.push_back(v);
                if (!c.eat(',') && !(c.blanks(), c.i < dict.size() && dict[c.i] == ')'))
                    return "malformed 'shape'";
            }
            have_shape = true;
        } else {
            return "unknown header key '" + key + "'";
        }
        if (!c.eat(',') && !(c.blanks(), c.i < dict.size() && dict[c.i] == '}'))
            return "malformed header dict";
    }
    if (!have_descr || !have_order || !have_shape)
        return "the header lacks 'descr', 'fortran_order' or 'shape'";
    return "";
}

std::string format_header(const std::string &descr, const std::vector<int64_t> &shape) {
    std::string dims;
    for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
    if (shape.size() == 1) dims += ",";
    std::string dict =
        "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
    constexpr size_t kPrefix = 10;  // magic (6), version (2), header length (2)
    const size_t total = (kPrefix + dict.size() + 1 + 63) / 64 * 64;
    dict.append(total - kPrefix - dict.size() - 1, ' ');
    dict += '\n';
    std::string out = "\x93NUMPY";
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(dict.size() & 0xff);
    out += static_cast<char>(dict.size() >> 8);
    return out + dict;
}

template <>
std::string native_descr<double>() {
    return host_little_endian() ? "<f8" : ">f8";
}
template <>
std::string native_descr<float>() {
    return host_little_endian() ? "<f4" : ">f4";
}

}  // namespace npy
}  // namespace gpusvd_cli
