// gpusvd-bench: gpusvd vs LAPACKE (CPU backend overhead) and, when built with CUDA and a GPU is
// present, gpusvd's `_gpu` forms vs cuSOLVER vs LAPACK on the host CPUs, in one run.
//
//   gpusvd-bench [--quick] [--reps N] [--filter SUBSTRING] [--csv FILE] [--budget SECONDS]
//                [--gesvdj-sizes N1,N2,...] [--gpusvd-gesvj-max N] [--no-gpu] [--no-host]
#include <dlfcn.h>
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench.hpp"
#include "lapack_ref.hpp"
#include "cpu/thread_pool.hpp"
#include "matgen.hpp"

namespace bench {

void fill_random(double *p, size_t n, uint64_t seed) {
    gpusvd_util::fill_uniform(p, n, seed);
}
void fill_random(float *p, size_t n, uint64_t seed) {
    gpusvd_util::fill_uniform(p, n, seed);
}
// std::complex<R> arrays are arrays of (re, im) pairs of R ([complex.numbers]).
void fill_random(std::complex<double> *p, size_t n, uint64_t seed) {
    gpusvd_util::fill_uniform(reinterpret_cast<double *>(p), 2 * n, seed);
}
void fill_random(std::complex<float> *p, size_t n, uint64_t seed) {
    gpusvd_util::fill_uniform(reinterpret_cast<float *>(p), 2 * n, seed);
}

Ceilings measure_host_ceilings(bool quick) {
    Ceilings c;
    const int n = quick ? 512 : 2000;
    const auto A = random_vector<double>(size_t(n) * n, 1),
               B = random_vector<double>(size_t(n) * n, 2);
    std::vector<double> C(size_t(n) * n);
    const Stat g = time_host(
        Budget{3, 5.0}, [] {},
        [&] {
            ref::gemm(n, n, n, A.data(), n, B.data(), n, C.data(), n);
            return true;
        });
    if (g.ok()) c.gflops = 2.0 * n * n * n / (g.ms * 1e6);
    // Copy bandwidth with all OpenMP threads (one thread cannot saturate memory), each thread
    // copying its own contiguous slice; pages are first touched by the thread that uses them.
    const size_t bytes = size_t(quick ? 256 : 512) << 20;
    std::unique_ptr<char[]> src(new char[bytes]), dst(new char[bytes]);  // untouched pages
    const int threads = omp_get_max_threads();
    auto slices = [&](auto &&f) {
#pragma omp parallel num_threads(threads)
        {
            const size_t t = size_t(omp_get_thread_num()), nt = size_t(omp_get_num_threads());
            const size_t lo = bytes * t / nt, hi = bytes * (t + 1) / nt;
            f(lo, hi);
        }
    };
    slices([&](size_t lo, size_t hi) {
        std::memset(src.get() + lo, 1, hi - lo);
        std::memset(dst.get() + lo, 2, hi - lo);
    });
    const Stat m = time_host(
        Budget{5, 5.0}, [] {},
        [&] {
            slices([&](size_t lo, size_t hi) {
                std::memcpy(dst.get() + lo, src.get() + lo, hi - lo);
            });
            return true;
        });
    if (m.ok()) c.gbs = 2.0 * double(bytes) / (m.ms * 1e6);
    return c;
}

}  // namespace bench

namespace {

void usage(std::FILE *f) {
    std::fprintf(f,
                 "usage: gpusvd-bench [--quick] [--reps N] [--filter SUBSTRING] [--csv FILE]\n"
                 "                    [--budget SECONDS] [--gesvdj-sizes N1,N2,...]\n"
                 "                    [--gpusvd-gesvj-max N] [--no-gpu] [--no-host]\n"
                 "  --quick          small sizes, one small case per GPU table and a double-\n"
                 "                   complex one where the table has complex rows (CPU part\n"
                 "                   < 30 s on 2 cores; whole run < 1 min on an H100/H200 host)\n"
                 "  --reps N         timed runs per measurement after one warm-up (default 5);\n"
                 "                   the median is reported\n"
                 "  --filter S       only rows whose \"table case size\" contains S (tables are\n"
                 "                   cpu:<routine> and gpu:<routine>, e.g. --filter gpu: ; the\n"
                 "                   double-complex rows: --filter \" z\")\n"
                 "  --csv FILE       also write every row to FILE\n"
                 "  --budget S       stop repeating a measurement after S seconds (default 20,\n"
                 "                   quick 5); a warm-up longer than S/2 is the only sample.\n"
                 "                   GPU tables: S/2 for the GPU columns, S/4 for the host one\n"
                 "  --gesvdj-sizes   single-matrix Jacobi sizes of the GPU table (default\n"
                 "                   1024,2048,4096; quick 256): gpusvd dgesvj_gpu vs cuSOLVER\n"
                 "                   Dgesvdj and Xgesvdp; sgesvj at the first size (not quick)\n"
                 "  --gpusvd-gesvj-max N\n"
                 "                   skip gpusvd's single-matrix gesvj_gpu above n = N in the GPU\n"
                 "                   tables (\"skipped\"; cuSOLVER and host still run; default\n"
                 "                   4096)\n"
                 "  --no-gpu         skip the cuSOLVER/GPU tables\n"
                 "  --no-host        skip the host-LAPACK column of the GPU tables\n");
}

bool parse_sizes(const char *s, std::vector<int64_t> *out) {
    out->clear();
    while (*s) {
        char *end = nullptr;
        const long long v = std::strtoll(s, &end, 10);
        if (end == s || v <= 0) return false;
        out->push_back(v);
        s = end;
        if (*s == ',')
            ++s;
        else if (*s)
            return false;
    }
    return !out->empty();
}

std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) {
            const size_t c = line.find(':');
            return c == std::string::npos ? line : line.substr(c + 2);
        }
    return "unknown CPU";
}

const char *openblas_config() {
    using F = char *(*)(void);
    static F f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, "openblas_get_config"));
    return f ? f() : "not OpenBLAS";
}

}  // namespace

int main(int argc, char **argv) {
    const double t_start = bench::now_ms();
    bench::Options o;
    bool budget_set = false, sizes_set = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> const char * {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "gpusvd-bench: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--quick") {
            o.quick = true;
        } else if (a == "--reps") {
            o.reps = std::atoi(value());
            if (o.reps < 1) {
                std::fprintf(stderr, "gpusvd-bench: --reps must be >= 1\n");
                return 2;
            }
        } else if (a == "--filter") {
            o.filter = value();
        } else if (a == "--csv") {
            o.csv = value();
        } else if (a == "--budget") {
            o.budget_s = std::atof(value());
            budget_set = true;
            if (!(o.budget_s > 0)) {
                std::fprintf(stderr, "gpusvd-bench: --budget must be > 0\n");
                return 2;
            }
        } else if (a == "--gesvdj-sizes") {
            if (!parse_sizes(value(), &o.gesvdj_n)) {
                std::fprintf(stderr, "gpusvd-bench: --gesvdj-sizes wants N1,N2,... (N > 0)\n");
                return 2;
            }
            sizes_set = true;
        } else if (a == "--gpusvd-gesvj-max") {
            const char *v = value();
            char *end = nullptr;
            o.gpusvd_gesvj_max = std::strtoll(v, &end, 10);
            if (end == v || *end || o.gpusvd_gesvj_max < 0) {
                std::fprintf(stderr, "gpusvd-bench: --gpusvd-gesvj-max wants N >= 0\n");
                return 2;
            }
        } else if (a == "--no-gpu") {
            o.gpu = false;
        } else if (a == "--no-host") {
            o.host_on_gpu_rows = false;
        } else if (a == "--help" || a == "-h") {
            usage(stdout);
            return 0;
        } else {
            std::fprintf(stderr, "gpusvd-bench: unknown argument %s\n", a.c_str());
            usage(stderr);
            return 2;
        }
    }
    if (!budget_set && o.quick) o.budget_s = 5.0;
    if (!sizes_set)
        o.gesvdj_n = o.quick ? std::vector<int64_t>{256} : std::vector<int64_t>{1024, 2048, 4096};

    std::printf(
        "gpusvd-bench: gpusvd %s, %s sizes, median of %d runs after a warm-up, budget %g s "
        "per measurement%s%s\n",
        gpusvdGetVersionString(), o.quick ? "quick" : "full", o.reps, o.budget_s,
        o.filter.empty() ? "" : ", filter ", o.filter.c_str());
    std::printf("build: %s\n", gpusvdGetBuildInfo());
    std::printf("host: %s, %d threads, OpenBLAS %d threads (%s)\n", cpu_model().c_str(),
                gpusvd::cpu::hardware_threads(), gpusvd::cpu::blas_threads(), openblas_config());
    const bench::Ceilings host = bench::measure_host_ceilings(o.quick);
    std::printf(
        "host ceilings (floor column of the CPU tables): dgemm %.1f GFLOP/s, memcpy "
        "%.1f GB/s (read + write)\n",
        host.gflops, host.gbs);

    bool gpu = false;
#ifdef GPUSVD_BENCH_CUDA
    std::string gpu_desc;
    gpu = o.gpu && bench::gpu_present(&gpu_desc);
    std::printf("GPU: %s\n", gpu_desc.empty() ? "not used (--no-gpu)" : gpu_desc.c_str());
#else
    std::printf("GPU: bench built without CUDA (GPUSVD_ENABLE_CUDA=OFF): no cuSOLVER rows\n");
#endif
    std::fflush(stdout);

    bench::Report rep(o);
    int rc = bench::run_cpu_rows(o, rep, host);
    const double t_gpu = bench::now_ms();
#ifdef GPUSVD_BENCH_CUDA
    if (gpu && bench::run_cusolver_rows(o, rep, host) != 0) rc = 1;
#endif
    const double t_end = bench::now_ms();
    (void)gpu;
    if (!rep.write_csv()) rc = 1;
    if (rep.any_failed()) rc = 1;
    if (rc)
        std::printf("\ngpusvd-bench: FAILED (see ERROR / MISMATCH above)\n");
    else if (rep.rows() == 0)
        std::printf("\ngpusvd-bench: no rows ran (--filter \"%s\" matched nothing here)\n",
                    o.filter.c_str());
    else
        std::printf("\ngpusvd-bench: all %zu rows ran and agree\n", rep.rows());
    std::printf("gpusvd-bench: took %.0f s (start-up and CPU tables %.0f s, GPU tables %.0f s)\n",
                (t_end - t_start) / 1e3, (t_gpu - t_start) / 1e3, (t_end - t_gpu) / 1e3);
    return rc;
}
