// gpusvd demo: every routine on generated data (fixed seeds), one table of timings and LAPACK
// accuracy ratios with PASS/FAIL against the thresholds of DESIGN.md.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "demo.hpp"
#include "options.hpp"

namespace gpusvd_cli {

namespace {

gpusvdBackend_t parse_demo_args(const ArgList &args) {
    gpusvdBackend_t backend = GPUSVD_BACKEND_AUTO;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        if (a == "--backend" && i + 1 < args.size())
            backend = parse_backend(args[++i]);
        else if (a.compare(0, 10, "--backend=") == 0)
            backend = parse_backend(a.substr(10));
        else if (a == "--backend")
            throw CliError(kExitUsage, "option --backend needs a value (see 'gpusvd help demo')");
        else
            throw CliError(kExitUsage,
                           "unknown argument '" + a + "' for 'demo' (see 'gpusvd help demo')");
    }
    return backend;
}

std::string format_checks(const Row &row) {
    std::string s;
    char buf[64];
    for (const Check &c : row.checks) {
        std::snprintf(buf, sizeof buf, "%s%s %.3g%s", s.empty() ? "" : "  ", c.name.c_str(),
                      c.value, c.passed() ? "" : "!");
        s += buf;
    }
    return s;
}

void print_table(const std::vector<Row> &rows, std::vector<std::string> &notes) {
    size_t wr = 7, ws = 4, wb = 7;
    for (const Row &r : rows) {
        wr = std::max(wr, r.routine.size());
        ws = std::max(ws, r.size.size());
        wb = std::max(wb, r.backend.size());
    }
    std::printf("%-*s  %-*s  %-*s  %9s  %-6s  %s\n", int(wr), "routine", int(ws), "size", int(wb),
                "backend", "time ms", "result", "accuracy ratios (! = over the limit)");
    for (const Row &r : rows) {
        std::string acc = r.unsupported ? "not supported on " + r.backend : format_checks(r);
        if (r.skipped || !r.problem.empty()) {
            notes.push_back(r.routine + ": " + r.problem);
            acc += std::string(acc.empty() ? "" : "  ") + "[note " + std::to_string(notes.size()) +
                   "]";
        }
        char ms[32] = "-";
        if (r.ms == r.ms) std::snprintf(ms, sizeof ms, "%.2f", r.ms);
        const char *result = r.skipped ? "SKIP" : r.passed() ? "PASS" : "FAIL";
        std::printf("%-*s  %-*s  %-*s  %9s  %-6s  %s\n", int(wr), r.routine.c_str(), int(ws),
                    r.size.c_str(), int(wb), r.backend.c_str(), ms, result, acc.c_str());
    }
}

}  // namespace

int cmd_demo(const ArgList &args) {
    const gpusvdBackend_t backend = parse_demo_args(args);
    Runner r(backend);
    std::printf("gpusvd %s demo: backend %s", gpusvdGetVersionString(), backend_name(backend));
    if (backend == GPUSVD_BACKEND_AUTO)
        std::printf(" (resolves to %s)", backend_name(r.resolved()));
    std::printf("\n%s\n", gpusvdGetBuildInfo());
    std::printf("limits: SVD ratios %g, QR %g, eig %g; time of one call after a warm-up call\n\n",
                kSvdLimit, kQrLimit, kEigLimit);
    std::fflush(stdout);

    const std::vector<std::function<Row()>> runs = {
        [&] { return demo_gesvj<double>(r, 300, 200); },
        [&] { return demo_gesvj<float>(r, 300, 200); },
        [&] { return demo_gesvj_batched<double>(r, 16, 16, 1000); },
        [&] { return demo_gesvj_batched<float>(r, 16, 16, 1000); },
        [&] { return demo_geqrf<double>(r, GPUSVD_ORTH_MGS, 300, 200); },
        [&] { return demo_geqrf<double>(r, GPUSVD_ORTH_MGS2, 300, 200); },
        [&] { return demo_geqrf<float>(r, GPUSVD_ORTH_MGS2, 300, 200); },
        [&] { return demo_geqrf_batched<double>(r, 32, 16, 1000); },
        [&] { return demo_geqrf_batched<float>(r, 32, 16, 1000); },
        [&] { return demo_geev_batched<double>(r, 8, 1000); },
        [&] { return demo_geev_batched<float>(r, 8, 1000); },
        [&] { return demo_bdsvd<double>(r, 200); },
        [&] { return demo_bdsvd<float>(r, 200); },
        [&] { return demo_pca<double>(r, 500, 20); },
        [&] { return demo_pca<float>(r, 500, 20); },
    };
    std::vector<Row> rows;
    for (const auto &run : runs) rows.push_back(run());

    std::vector<std::string> notes;
    print_table(rows, notes);
    int failed = 0, skipped = 0, unsupported = 0;
    for (const Row &row : rows) {
        failed += !row.passed();
        skipped += row.skipped;
        unsupported += row.unsupported && !row.skipped;
    }
    if (!notes.empty()) std::printf("\n");
    for (size_t i = 0; i < notes.size(); ++i)
        std::printf("[note %zu] %s\n", i + 1, notes[i].c_str());
    std::printf("\n%zu rows: %d passed, %d failed", rows.size(),
                int(rows.size()) - failed - skipped, failed);
    if (unsupported)
        std::printf(" (%d not supported on %s)", unsupported, backend_name(r.resolved()));
    if (skipped) std::printf(", %d skipped (not supported)", skipped);
    std::printf("\n");
    return failed ? kExitFailure : kExitOk;
}

}  // namespace gpusvd_cli
