// gpusvd info: library version, the backend AUTO resolves to, build, and whether a GPU is
// usable (and if not, why, in plain words).
#include <cstdio>

#include "cli.hpp"
#include "gpu_probe.hpp"
#include "library.hpp"
#include "options.hpp"

namespace gpusvd_cli {

int cmd_info(const ArgList &args) {
    if (!args.empty())
        throw CliError(kExitUsage, "'info' takes no arguments, got '" + args[0] + "'");
    Handle h;  // AUTO
    const int v = gpusvdGetVersion();
    std::printf("gpusvd library   %s (encoded %d; this tool was built against %d.%d.%d)\n",
                gpusvdGetVersionString(), v, GPUSVD_VERSION_MAJOR, GPUSVD_VERSION_MINOR,
                GPUSVD_VERSION_PATCH);
    std::printf("backend AUTO ->  %s\n", backend_name(h.resolved()));
    std::printf("build            %s\n", library_build_text().c_str());
    std::printf("GPU              %s\n", gpu_diagnosis().c_str());
    if (v / 10000 != GPUSVD_VERSION_MAJOR) {
        std::fprintf(stderr,
                     "warning: the loaded library (major %d) does not match the header this tool "
                     "was built with (major %d)\n",
                     v / 10000, GPUSVD_VERSION_MAJOR);
        return kExitWarning;
    }
    return kExitOk;
}

}  // namespace gpusvd_cli
