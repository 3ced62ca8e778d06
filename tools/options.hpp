// Command-line options of the gpusvd tool.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli.hpp"
#include "gpusvd.h"

namespace gpusvd_cli {

enum class OutFormat { FromInput, MatrixMarket, Csv, Npy };
enum class Precision { FromInput, Single, Double };

/// Options of the commands that read a matrix file (svd, qr, eig, bdsvd, pca).
struct FileOptions {
    std::string command;
    std::string file;  ///< input path ("-": standard input)
    gpusvdBackend_t backend = GPUSVD_BACKEND_AUTO;
    Precision precision = Precision::FromInput;
    OutFormat format = OutFormat::FromInput;
    std::string outdir;                    ///< empty: one result goes to stdout
    std::vector<std::string> only;         ///< --only: the results to write (empty: the default)
    bool header = false;                   ///< --header: the first row of a text file holds names
    int verbosity = 1;                     ///< 0: -q, 1: summary, 2: -v
    bool values_only = false;              ///< svd, bdsvd
    gpusvdOrth_t orth = GPUSVD_ORTH_MGS2;  ///< qr
    bool vectors = false;                  ///< eig
    int64_t k = -1;                        ///< pca; -1: min(m, n)
    bool standardize = false;              ///< pca
};

/// Command-specific options a command accepts (the common ones are always accepted).
enum Accept : unsigned {
    kAcceptValuesOnly = 1u,    ///< --values-only
    kAcceptOrth = 2u,          ///< --mgs, --mgs2
    kAcceptVectors = 4u,       ///< --vectors
    kAcceptK = 8u,             ///< -k K
    kAcceptStandardize = 16u,  ///< --standardize
};

/// Parse the arguments after the command name; throws CliError(kExitUsage) on a bad one.
FileOptions parse_file_options(const std::string &command, const ArgList &args, unsigned accept);

/// "auto", "cpu" or "gpu" (any case); throws CliError(kExitUsage) otherwise.
gpusvdBackend_t parse_backend(const std::string &value);

/// "auto", "cpu", "gpu".
const char *backend_name(gpusvdBackend_t backend);

/// Throws CliError(kExitUsage) with a pointer to the command's help.
[[noreturn]] void usage_error(const std::string &command, const std::string &what);

}  // namespace gpusvd_cli
