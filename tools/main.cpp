// gpusvd command-line tool: dispatch to the commands.
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "cli.hpp"
#include "gpusvd.h"

using namespace gpusvd_cli;

namespace {

struct Command {
    const char *name;
    int (*run)(const ArgList &);
};

const Command kCommands[] = {
    {"info", cmd_info}, {"demo", cmd_demo},   {"svd", cmd_svd}, {"qr", cmd_qr},
    {"eig", cmd_eig},   {"bdsvd", cmd_bdsvd}, {"pca", cmd_pca},
};

int dispatch(int argc, char **argv) {
    if (argc < 2) {
        print_usage("", true);
        return kExitUsage;
    }
    const std::string cmd = argv[1];
    ArgList args(argv + 2, argv + argc);
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        print_usage(args.empty() ? "" : args[0], false);
        return kExitOk;
    }
    if (cmd == "--version" || cmd == "-V" || cmd == "version") {
        std::printf("gpusvd %s\n", gpusvdGetVersionString());
        return kExitOk;
    }
    for (const Command &c : kCommands) {
        if (cmd != c.name) continue;
        for (const std::string &a : args)
            if (a == "--help" || a == "-h") {
                print_usage(cmd, false);
                return kExitOk;
            }
        return c.run(args);
    }
    std::fprintf(stderr, "error: unknown command '%s'\n\n", cmd.c_str());
    print_usage("", true);
    return kExitUsage;
}

}  // namespace

int main(int argc, char **argv) {
    // Standard input is read only through std::cin, standard output written only through stdio.
    std::ios::sync_with_stdio(false);
    try {
        const int rc = dispatch(argc, argv);
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
            std::fprintf(stderr, "error: could not write to standard output\n");
            return kExitFailure;
        }
        return rc;
    } catch (const CliError &e) {
        std::fflush(stdout);
        std::fprintf(stderr, "error: %s\n", e.what());
        return e.code;
    } catch (const std::bad_alloc &) {
        std::fflush(stdout);
        std::fprintf(stderr, "error: out of memory\n");
        return kExitFailure;
    } catch (const std::exception &e) {
        std::fflush(stdout);
        std::fprintf(stderr, "error: %s\n", e.what());
        return kExitFailure;
    }
}
