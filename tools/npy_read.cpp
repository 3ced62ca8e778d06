// .npy reader: 1-D, 2-D or 3-D arrays of floats, integers or bools, either byte order, either
// memory order, converted to column-major float64 matrices.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "npy.hpp"

namespace gpusvd_cli {
namespace npy {

namespace {

float half_to_float(uint16_t h) {
    const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    const float sign = (h & 0x8000) ? -1.0f : 1.0f;
    if (exp == 0) return sign * std::ldexp(float(mant), -24);
    if (exp == 31) return mant ? std::nanf("") : sign * INFINITY;
    return sign * std::ldexp(float(mant | 0x400), exp - 25);
}

enum class Kind { Float, Signed, Unsigned, Bool };

struct Dtype {
    Kind kind;
    int size;   ///< bytes per element
    bool swap;  ///< stored in the other byte order than the host's
};

/// Parses descr ("<f8", "|u1", ">i4", ...); returns an empty string or what is unsupported.
std::string parse_descr(const std::string &d, Dtype &t) {
    if (d.size() < 3) return "unsupported dtype '" + d + "'";
    const char order = d[0], code = d[1];
    int size = 0;
    for (size_t i = 2; i < d.size(); ++i) {
        if (d[i] < '0' || d[i] > '9') return "unsupported dtype '" + d + "'";
        size = size * 10 + (d[i] - '0');
    }
    if (order != '<' && order != '>' && order != '|' && order != '=')
        return "unsupported dtype '" + d + "'";
    switch (code) {
        case 'f':
            t.kind = Kind::Float;
            if (size != 2 && size != 4 && size != 8)
                return "dtype '" + d + "' is not supported (float16, float32, float64 are)";
            break;
        case 'i':
        case 'u':
            t.kind = code == 'i' ? Kind::Signed : Kind::Unsigned;
            if (size != 1 && size != 2 && size != 4 && size != 8)
                return "unsupported dtype '" + d + "'";
            break;
        case 'b':
            t.kind = Kind::Bool;
            if (size != 1) return "unsupported dtype '" + d + "'";
            break;
        case 'c':
            return "complex arrays are not supported (dtype '" + d + "'): the routines are real";
        default:
            return "dtype '" + d + "' is not numeric (floats, integers and bools are accepted)";
    }
    t.size = size;
    const bool little = order == '<' || (order == '=' && host_little_endian());
    t.swap = size > 1 && order != '|' && little != host_little_endian();
    return "";
}

/// One element stored as Raw, byte-swapped if needed, as a double.
template <class Raw>
double load(const unsigned char *p, bool swap) {
    unsigned char b[sizeof(Raw)];
    for (size_t i = 0; i < sizeof(Raw); ++i) b[i] = swap ? p[sizeof(Raw) - 1 - i] : p[i];
    Raw v;
    std::memcpy(&v, b, sizeof(Raw));
    return double(v);
}

double load_half(const unsigned char *p, bool swap) {
    return half_to_float(uint16_t(load<uint16_t>(p, swap)));
}

double load_bool(const unsigned char *p, bool) {
    return *p ? 1.0 : 0.0;
}

using Loader = double (*)(const unsigned char *, bool);

Loader loader(const Dtype &t) {
    switch (t.kind) {
        case Kind::Bool:
            return load_bool;
        case Kind::Float:
            return t.size == 8 ? load<double> : t.size == 4 ? load<float> : load_half;
        case Kind::Signed:
            return t.size == 1   ? load<int8_t>
                   : t.size == 2 ? load<int16_t>
                   : t.size == 4 ? load<int32_t>
                                 : load<int64_t>;
        case Kind::Unsigned:
            return t.size == 1   ? load<uint8_t>
                   : t.size == 2 ? load<uint16_t>
                   : t.size == 4 ? load<uint32_t>
                                 : load<uint64_t>;
    }
    return load_bool;
}

std::string shape_text(const std::vector<int64_t> &s) {
    std::string out = "(";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + (s.size() == 1 ? ",)" : ")");
}

void read_exactly(std::istream &in, const std::string &name, char *dst, size_t n,
                  const char *what) {
    in.read(dst, std::streamsize(n));
    if (size_t(in.gcount()) != n)
        input_error(name, 0,
                    std::string("truncated .npy file: it ends inside the ") + what + " (" +
                        std::to_string(in.gcount()) + " of " + std::to_string(n) + " bytes)");
}

}  // namespace

Matrix read(std::istream &in, const std::string &name, const ReadOptions &opt) {
    unsigned char pre[10];
    read_exactly(in, name, reinterpret_cast<char *>(pre), 8, "magic");
    if (std::memcmp(pre, "\x93NUMPY", 6) != 0)
        input_error(name, 0, "not a .npy file: it does not start with the '\\x93NUMPY' magic");
    const int major = pre[6];
    if (major < 1 || major > 3)
        input_error(name, 0, ".npy format version " + std::to_string(major) + " is not supported");
    size_t hlen;
    if (major == 1) {
        read_exactly(in, name, reinterpret_cast<char *>(pre + 8), 2, "header length");
        hlen = size_t(pre[8]) | size_t(pre[9]) << 8;
    } else {
        unsigned char l[4];
        read_exactly(in, name, reinterpret_cast<char *>(l), 4, "header length");
        hlen = size_t(l[0]) | size_t(l[1]) << 8 | size_t(l[2]) << 16 | size_t(l[3]) << 24;
        if (hlen > (size_t(1) << 20)) input_error(name, 0, "implausible .npy header length");
    }
    std::string dict(hlen, '\0');
    read_exactly(in, name, &dict[0], hlen, "header");

    Header h;
    std::string why = parse_header(dict, h);
    if (!why.empty()) input_error(name, 0, ".npy header: " + why);
    Dtype t{};
    why = parse_descr(h.descr, t);
    if (!why.empty()) input_error(name, 0, why);
    const size_t nd = h.shape.size();
    if (nd < 1 || nd > 3)
        input_error(name, 0,
                    "expected a 2-D array (or 3-D: a batch of matrices, or 1-D: one column), "
                    "got shape " +
                        shape_text(h.shape));

    Matrix a;
    a.format = InputFormat::Npy;
    a.float32 = t.kind == Kind::Float && t.size <= 4;
    a.batched = nd == 3;
    a.batch = nd == 3 ? h.shape[0] : 1;
    a.rows = h.shape[nd == 3 ? 1 : 0];
    a.cols = nd == 1 ? 1 : h.shape[nd - 1];
    int64_t count = 0;
    if (__builtin_mul_overflow(a.batch, a.rows, &count) ||
        __builtin_mul_overflow(count, a.cols, &count) || count > (int64_t(1) << 50))
        input_error(name, 0, "array shape " + shape_text(h.shape) + " is too large");
    // In chunks, so that a header promising more than the file holds fails without first
    // allocating what it promises.
    const size_t want = size_t(count) * size_t(t.size);
    std::vector<unsigned char> raw;
    while (raw.size() < want) {
        const size_t have = raw.size(), chunk = std::min(want - have, size_t(64) << 20);
        raw.resize(have + chunk);
        in.read(reinterpret_cast<char *>(raw.data() + have), std::streamsize(chunk));
        if (size_t(in.gcount()) != chunk)
            input_error(name, 0,
                        "truncated .npy file: shape " + shape_text(h.shape) + " needs " +
                            std::to_string(want) + " bytes of data, the file has " +
                            std::to_string(have + size_t(in.gcount())));
    }

    // Element (b, i, j) of the array sits at b*sb + i*si + j*sj in the file's memory order.
    const int64_t B = a.batch, m = a.rows, n = a.cols;
    const int64_t sb = h.fortran_order ? 1 : m * n;
    const int64_t si = h.fortran_order ? B : n;
    const int64_t sj = h.fortran_order ? B * m : 1;
    a.values.resize(size_t(count));
    double *dst = a.values.data();
    const Loader decode = loader(t);
    for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) {
                const double v =
                    decode(&raw[size_t(b * sb + i * si + j * sj) * size_t(t.size)], t.swap);
                if (opt.single && std::isfinite(v) && std::isinf(static_cast<float>(v)))
                    input_error(name, 0,
                                "value " + std::to_string(v) + " at index (" +
                                    (nd == 3 ? std::to_string(b) + ", " : "") + std::to_string(i) +
                                    (nd > 1 ? ", " + std::to_string(j) : "") +
                                    ") overflows float32 (drop --single)");
                *dst++ = v;
            }
    a.layout = ".npy " + h.descr + " " + shape_text(h.shape) +
               (h.fortran_order ? ", Fortran order" : ", C order");
    return a;
}

}  // namespace npy
}  // namespace gpusvd_cli
