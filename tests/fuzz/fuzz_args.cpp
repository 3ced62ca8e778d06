// libFuzzer target: the input bytes choose a routine, form, precision, handle set-up and every
// argument (through the same generator and model as test_arg_model, tests/arg_model.hpp); any
// difference from the model aborts with the C call that reproduces it. Memory the library touches
// without being given it is AddressSanitizer's to report (calls are not forked here).
//
//   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
//         -DGPUSVD_BUILD_FUZZ=ON -DGPUSVD_ENABLE_CUDA=OFF -DGPUSVD_BUILD_TESTS=OFF \
//         -DGPUSVD_BUILD_CLI=OFF -DGPUSVD_BUILD_BENCH=OFF -DGPUSVD_BUILD_FORTRAN=OFF
//   cmake --build build-fuzz -t fuzz_args
//   fuzz_args -max_total_time=120 <corpus dir>      (a copy of tests/fuzz/corpus: libFuzzer adds
//                                                    what it finds to the first directory)
//   fuzz_args crash-<hash>                          (replays one input; GPUSVD_FUZZ_PRINT=1
//                                                    prints the call first)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "arg_model.hpp"

namespace {

arg_model::Env *env = nullptr;
int report_fd = 2;         // the real stderr, whatever fds 1 and 2 are redirected to meanwhile
bool print_cases = false;  // GPUSVD_FUZZ_PRINT=1: each call before it is made (for a replay
                           // that ends in a sanitizer report)

}  // namespace

// The model checks that the library prints nothing by pointing fds 1 and 2 at a file around each
// call; libFuzzer's own reports (a crash inside such a call included) must not land there, which
// its -close_fd_mask=3 arranges (it keeps a private copy of stderr for them). The flag is added
// here unless given.
extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
    report_fd = dup(2);
    print_cases = std::getenv("GPUSVD_FUZZ_PRINT") != nullptr;
    bool has_mask = false;
    for (int i = 1; i < *argc; ++i)
        has_mask = has_mask || std::strncmp((*argv)[i], "-close_fd_mask=", 15) == 0;
    if (!has_mask) {
        static std::vector<char *> args;
        static char mask[] = "-close_fd_mask=3";
        args.assign(*argv, *argv + *argc);
        args.insert(args.begin() + 1, mask);
        args.push_back(nullptr);
        *argc += 1;
        *argv = args.data();
    }
    env = new arg_model::Env;
    env->allow_fork = false;
    env->device = arg_model::device_present();
    if (!env->capture.ok()) {
        dprintf(report_fd, "fuzz_args: cannot create a temporary file for stdout/stderr\n");
        std::abort();
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    arg_model::Bytes src(data, size);
    const arg_model::Case c = arg_model::generate(src);
    if (print_cases) dprintf(report_fd, "%s\n", arg_model::describe(c).c_str());
    const arg_model::Outcome o = arg_model::check(c, *env);
    if (o.failures.empty()) return 0;
    std::string text = "\nfuzz_args: the library disagrees with the argument model\n  " +
                       arg_model::describe(c) + "\n  model: " + arg_model::describe(o.predicted) +
                       "\n";
    for (const std::string &f : o.failures) text += "  - " + f + "\n";
    dprintf(report_fd, "%s\n", text.c_str());
    std::abort();
}
