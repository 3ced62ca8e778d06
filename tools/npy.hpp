// The .npy format (numpy.save): magic, version, a Python dict literal header, raw data.
#pragma once

#include <cstdint>
#include <cstring>
#include <istream>
#include <string>
#include <vector>

#include "matrix_io.hpp"

namespace gpusvd_cli {
namespace npy {

/// Whether this machine stores numbers little-endian (.npy files say which order they use).
inline bool host_little_endian() {
    const uint16_t one = 1;
    unsigned char b;
    std::memcpy(&b, &one, 1);
    return b == 1;
}

/// What a .npy header says about its data.
struct Header {
    std::string descr;  ///< e.g. "<f8"
    bool fortran_order = false;
    std::vector<int64_t> shape;
};

/// Parses the header dict ("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }");
/// returns an empty string on success, else what is wrong.
std::string parse_header(const std::string &dict, Header &h);

/// The bytes before the data of a C-order array: magic, version 1.0, the dict padded so that
/// the data starts at a multiple of 64 bytes.
std::string format_header(const std::string &descr, const std::vector<int64_t> &shape);

/// "<f8" or "<f4" on a little-endian host, ">f8" / ">f4" on a big-endian one.
template <class T>
std::string native_descr();

/// Reads a 1-D (one column), 2-D or 3-D (a batch) array of a real or integer dtype, in either
/// byte order and either memory order. Throws input errors naming `name`.
Matrix read(std::istream &in, const std::string &name, const ReadOptions &opt);

}  // namespace npy
}  // namespace gpusvd_cli
