// Command-line options of the gpusvd tool.
#pragma once

#include <cstdint>
#include <string>

#include "cli.hpp"
#include "gpusvd.h"

namespace gpusvd_cli {

enum class OutFormat { MatrixMarket, Csv };

/// Options of the commands that read a matrix file (svd, qr, eig, bdsvd, pca).
struct FileOptions {
    std::string file;  ///< input path ("-": standard input)
    gpusvdBackend_t backend = GPUSVD_BACKEND_AUTO;
    bool single = false;  ///< float32 instead of float64
    OutFormat format = OutFormat::MatrixMarket;
    std::string outdir;                    ///< empty: results go to stdout
    bool values_only = false;              ///< svd, bdsvd
    gpusvdOrth_t orth = GPUSVD_ORTH_MGS2;  ///< qr
    bool vectors = false;                  ///< eig
    int64_t k = -1;                        ///< pca; -1: min(m, n)
};

/// Command-specific options a command accepts (the common ones are always accepted).
enum Accept : unsigned {
    kAcceptValuesOnly = 1u,  ///< --values-only
    kAcceptOrth = 2u,        ///< --mgs, --mgs2
    kAcceptVectors = 4u,     ///< --vectors
    kAcceptK = 8u,           ///< -k K
};

/// Parse the arguments after the command name; throws CliError(kExitUsage) on a bad one.
FileOptions parse_file_options(const std::string &command, const ArgList &args, unsigned accept);

/// "auto", "cpu" or "gpu" (any case); throws CliError(kExitUsage) otherwise.
gpusvdBackend_t parse_backend(const std::string &value);

/// "auto", "cpu", "gpu".
const char *backend_name(gpusvdBackend_t backend);

}  // namespace gpusvd_cli
