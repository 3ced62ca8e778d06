// Shared by the commands of the gpusvd tool: exit codes, the error type, the command entry points.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace gpusvd_cli {

/// Exit codes of the tool.
enum Exit : int {
    kExitOk = 0,       ///< success
    kExitFailure = 1,  ///< a library call failed, or output could not be written
    kExitUsage = 2,    ///< bad command line or bad input file
    kExitWarning = 3,  ///< results written, but a routine reported a non-zero info
};

/// Thrown by any command; main() prints "error: <what>" and exits with `code`.
struct CliError : std::runtime_error {
    CliError(int exit_code, const std::string &what) : std::runtime_error(what), code(exit_code) {}
    int code;
};

using ArgList = std::vector<std::string>;

/// Usage text: the whole tool (command empty) or one command.
void print_usage(const std::string &command, bool to_stderr);

int cmd_info(const ArgList &args);
int cmd_demo(const ArgList &args);
int cmd_svd(const ArgList &args);
int cmd_qr(const ArgList &args);
int cmd_eig(const ArgList &args);
int cmd_bdsvd(const ArgList &args);
int cmd_pca(const ArgList &args);

}  // namespace gpusvd_cli
