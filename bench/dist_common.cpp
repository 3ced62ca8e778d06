// What both forms of gpusvd-bench-dist share, behind dist_common.hpp: error helpers, the test
// matrices, timing, the one-GPU baselines, NCCL loading and the command line.
#include "dist_common.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace dist_bench {

int g_rank = -1;

[[noreturn]] void die(const std::string &what) {
    if (g_rank >= 0)
        std::fprintf(stderr, "gpusvd-bench-dist: rank %d: %s\n", g_rank, what.c_str());
    else
        std::fprintf(stderr, "gpusvd-bench-dist: %s\n", what.c_str());
    std::exit(1);
}
void need(bool ok, const std::string &what) {
    if (!ok) die(what);
}
void cuda(cudaError_t e, const char *what) {
    if (e != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(e));
}
void blas(cublasStatus_t s, const char *what) {
    if (s != CUBLAS_STATUS_SUCCESS) die(std::string(what) + ": " + cublasGetStatusString(s));
}
// Where the process goes on (freeing): the failure is reported, not fatal.
void warn(cudaError_t e, const char *what) {
    if (e == cudaSuccess) return;
    if (g_rank >= 0)
        std::fprintf(stderr, "gpusvd-bench-dist: rank %d: %s: %s\n", g_rank, what,
                     cudaGetErrorString(e));
    else
        std::fprintf(stderr, "gpusvd-bench-dist: %s: %s\n", what, cudaGetErrorString(e));
}
void ok(gpusvdHandle_t h, gpusvdStatus_t st) {
    if (st != GPUSVD_STATUS_SUCCESS) die(gpusvdGetErrorMessage(h));
}

// ------------------------------------------------------------------------------------------
// Data, shared by both forms

// Uniform in [-1, 1): the same numbers for the same seed in every process and run.
std::vector<double> random_matrix(int64_t rows, int64_t cols, uint64_t seed) {
    std::vector<double> a(size_t(rows * cols));
    for (double &x : a) {
        seed ^= seed >> 12, seed ^= seed << 25, seed ^= seed >> 27;
        x = double((seed * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-52 - 1.0;
    }
    return a;
}

namespace {

// Gram-Schmidt twice over a random matrix's columns: orthogonal to rounding.
std::vector<double> random_orthogonal(int64_t n, uint64_t seed) {
    std::vector<double> q = random_matrix(n, n, seed);
    for (int64_t j = 0; j < n; ++j) {
        double *c = &q[size_t(j * n)];
        for (int pass = 0; pass < 2; ++pass)
            for (int64_t p = 0; p < j; ++p) {
                const double *b = &q[size_t(p * n)];
                double d = 0;
                for (int64_t i = 0; i < n; ++i) d += b[i] * c[i];
                for (int64_t i = 0; i < n; ++i) c[i] -= d * b[i];
            }
        double s = 0;
        for (int64_t i = 0; i < n; ++i) s += c[i] * c[i];
        s = std::sqrt(s);
        need(s > 0, "a dependent random matrix");
        for (int64_t i = 0; i < n; ++i) c[i] /= s;
    }
    return q;
}

// W = U diag(sigma) V^T (n x n), sigma geometric from 1 down to 1 / cond.
std::vector<double> conditioned(int64_t n, double cond, uint64_t seed) {
    const std::vector<double> U = random_orthogonal(n, seed), V = random_orthogonal(n, seed + 1);
    std::vector<double> W(size_t(n * n), 0.0);
    for (int64_t p = 0; p < n; ++p) {
        const double sigma = n > 1 ? std::pow(cond, -double(p) / double(n - 1)) : 1.0;
        for (int64_t j = 0; j < n; ++j) {
            const double v = V[size_t(j + p * n)] * sigma;
            for (int64_t i = 0; i < n; ++i) W[size_t(i + j * n)] += U[size_t(i + p * n)] * v;
        }
    }
    return W;
}

// block * W + shift (kBlockRows x n), by slices of rows that stay in cache. Plain host code,
// so every process computes the same bits.
std::vector<double> times_w(const std::vector<double> &block, int64_t n,
                            const std::vector<double> &W, double shift) {
    constexpr int64_t kSlice = 512;
    std::vector<double> out(block.size(), 0.0);
    for (int64_t i0 = 0; i0 < kBlockRows; i0 += kSlice)
        for (int64_t j = 0; j < n; ++j) {
            double *o = &out[size_t(i0 + j * kBlockRows)];
            for (int64_t p = 0; p < n; ++p) {
                const double w = W[size_t(p + j * n)];
                const double *b = &block[size_t(i0 + p * kBlockRows)];
                for (int64_t i = 0; i < kSlice; ++i) o[i] += b[i] * w;
            }
            for (int64_t i = 0; i < kSlice; ++i) o[i] += shift;
        }
    return out;
}

}  // namespace

Blocks make_blocks(int64_t n, double cond) {
    const std::vector<double> block = random_matrix(kBlockRows, n, kBlockSeed);
    return {times_w(block, n, conditioned(n, cond, kQrSeed), 0.0),
            times_w(block, n, conditioned(n, kPcaCond, kPcaSeed), kPcaOffset)};
}

void upload(double *d, const std::vector<double> &h, const char *what) {
    cuda(cudaMemcpy(d, h.data(), sizeof(double) * h.size(), cudaMemcpyHostToDevice), what);
}

// A (rows x n, ld rows) on the current device: rows first .. first + rows - 1 of the matrix made
// of copies of the block (kBlockRows x n) down its rows, so the ranks' shares stack into the
// matrix one GPU factors whole.
void tile(double *A, int64_t rows, int64_t n, const double *block, int64_t first) {
    for (int64_t r0 = 0; r0 < rows;) {
        const int64_t b = (first + r0) % kBlockRows, h = std::min(kBlockRows - b, rows - r0);
        cuda(cudaMemcpy2D(A + r0, sizeof(double) * rows, block + b, sizeof(double) * kBlockRows,
                          sizeof(double) * h, n, cudaMemcpyDeviceToDevice),
             "tiling A");
        r0 += h;
    }
}

int64_t share_of(int64_t M, int P) {
    return (M + P - 1) / P;
}
int64_t rows_of(int64_t M, int P, int r) {
    return std::clamp<int64_t>(M - r * share_of(M, P), 0, share_of(M, P));
}

double median(std::vector<double> t) {
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// ms of `reps` calls after a warm-up one; sync() on both sides of each (the ranks' barrier).
std::vector<double> timed(int reps, const std::function<void()> &prepare,
                          const std::function<void()> &call, const std::function<void()> &sync,
                          const char *what) {
    std::vector<double> t;
    for (int r = 0; r <= reps; ++r) {
        prepare();
        sync();
        const auto t0 = std::chrono::steady_clock::now();
        call();
        cuda(cudaDeviceSynchronize(), what);
        sync();
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        if (r > 0) t.push_back(ms);
    }
    return t;
}

// ------------------------------------------------------------------------------------------
// One GPU

// One GPU (device 0): median ms of gpusvd_dgeqrf_mgs_gpu on `rows` rows; R to host.
double one_gpu(int64_t rows, int64_t n, int reps, const double *block, std::vector<double> *R) {
    cuda(cudaSetDevice(0), "device 0");
    gpusvdHandle_t h = nullptr;
    ok(nullptr, gpusvdCreate(&h));
    double ms = 0;
    {
        Dev<double> A(rows * n, "allocating A"), dR(n * n, "allocating R");
        Dev<int> info(1, "allocating info");
        ms = median(timed(
            reps,
            [&] {
                tile(A.get(), rows, n, block);
                cuda(cudaDeviceSynchronize(), "tiling");
            },
            [&] {
                ok(h, gpusvd_dgeqrf_mgs_gpu(h, GPUSVD_ORTH_MGS2, rows, n, A.get(), rows, dR.get(),
                                            n, info.get()));
            },
            [] {}, "the QR"));
        R->resize(size_t(n * n));
        cuda(cudaMemcpy(R->data(), dR.get(), sizeof(double) * n * n, cudaMemcpyDeviceToHost), "R");
    }
    ok(nullptr, gpusvdDestroy(h));
    return ms;
}

// One GPU (device 0): median ms of gpusvd_dpca_gpu (QR method) on `rows` rows; variances out.
double one_gpu_pca(int64_t rows, int64_t n, int reps, const double *block,
                   std::vector<double> *var) {
    cuda(cudaSetDevice(0), "device 0");
    gpusvdHandle_t h = nullptr;
    ok(nullptr, gpusvdCreate(&h));
    ok(h, gpusvdSetPcaMethod(h, GPUSVD_PCA_QR));
    double ms = 0;
    {
        Dev<double> A(rows * n, "allocating X"), C(n * kPcaK, "C"), dv(kPcaK, "var");
        Dev<int> info(1, "info");
        tile(A.get(), rows, n, block);
        ms = median(timed(
            reps, [] { cuda(cudaDeviceSynchronize(), "tiling"); },
            [&] {
                ok(h, gpusvd_dpca_gpu(h, rows, n, A.get(), rows, kPcaK, C.get(), n, dv.get(),
                                      nullptr, 1, nullptr, info.get()));
            },
            [] {}, "the PCA"));
        var->resize(size_t(kPcaK));
        cuda(cudaMemcpy(var->data(), dv.get(), sizeof(double) * kPcaK, cudaMemcpyDeviceToHost),
             "var");
    }
    ok(nullptr, gpusvdDestroy(h));
    return ms;
}

void print_one_gpu_qr(int64_t share, double t_share, int64_t M, double t_whole, double t_dist) {
    std::printf("  one GPU, %lld rows (one share):  %10.2f ms  (distributed / this = %.2f)\n",
                (long long)share, t_share, t_dist / t_share);
    std::printf("  one GPU, all %lld rows:          %10.2f ms  (speed-up %.2fx)\n", (long long)M,
                t_whole, t_whole / t_dist);
}

void print_one_gpu_pca(double t_pca, double t_share) {
    std::printf(
        "  PCA (8 components): distributed %.2f ms; one GPU on one share %.2f ms "
        "(distributed / this = %.2f); the whole does not fit one GPU with its centred "
        "copy\n",
        t_pca, t_share, t_pca / t_share);
}

// ------------------------------------------------------------------------------------------
// NCCL, loaded at run time as libgpusvd.so loads it: ncclResult_t is an int (0: success),
// ncclComm_t an opaque pointer, data types and reductions ints.

namespace {

template <class F>
void bind(void *lib, F *f, const char *name) {
    *f = reinterpret_cast<F>(dlsym(lib, name));
}

}  // namespace

Nccl load_nccl() {
    void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    need(lib != nullptr, "cannot load libnccl.so.2");
    Nccl x;
    bind(lib, &x.init_all, "ncclCommInitAll");
    bind(lib, &x.get_id, "ncclGetUniqueId");
    bind(lib, &x.init_rank, "ncclCommInitRank");
    bind(lib, &x.all_reduce, "ncclAllReduce");
    bind(lib, &x.destroy, "ncclCommDestroy");
    bind(lib, &x.error, "ncclGetErrorString");
    return x;
}

// ------------------------------------------------------------------------------------------
// Options

namespace {

[[noreturn]] void usage(const std::string &why) {
    die(why +
        "\nusage: gpusvd-bench-dist [--rows M] [--cols n] [--reps r]\n"
        "       gpusvd-bench-dist --processes P [--rows M] [--cols n] [--reps r] [--cond c] "
        "[--baseline 0|1] [--timeout s]");
}

int64_t parse_int(const char *opt, const char *v) {
    char *end = nullptr;
    errno = 0;
    const long long x = std::strtoll(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0') usage(std::string(opt) + ": not an integer: " + v);
    return x;
}

}  // namespace

Options parse(int argc, char **argv) {
    Options o;
    bool process_only = false;
    for (int i = 1; i < argc; i += 2) {
        const std::string a = argv[i];
        if (i + 1 >= argc) usage(a + " without its value");
        const char *v = argv[i + 1];
        if (a == "--rows")
            o.M = parse_int(argv[i], v);
        else if (a == "--cols")
            o.n = parse_int(argv[i], v);
        else if (a == "--reps")
            o.reps = int(parse_int(argv[i], v));
        else if (a == "--processes")
            o.processes = int(parse_int(argv[i], v));
        else if (a == "--rank")
            o.rank = int(parse_int(argv[i], v));
        else if (a == "--nranks")
            o.nranks = int(parse_int(argv[i], v));
        else if (a == "--id-file")
            o.id_file = v;
        else if (a == "--times-file")
            o.times_file = v;
        else if (a == "--baseline")
            o.baseline = parse_int(argv[i], v) != 0, process_only = true;
        else if (a == "--timeout")
            o.timeout = int(parse_int(argv[i], v)), process_only = true;
        else if (a == "--cond") {
            char *end = nullptr;
            o.cond = std::strtod(v, &end);
            if (end == v || *end != '\0' || !(o.cond >= 1) || !std::isfinite(o.cond))
                usage("--cond: a number >= 1, not " + std::string(v));
            process_only = true;
        } else
            usage("unknown option " + a);
    }
    if (o.n < kPcaK) usage("--cols: at least 8 (the PCA's components)");
    if (o.M < std::max<int64_t>(o.n, 2)) usage("--rows: at least --cols and 2");
    if (o.reps < 1) usage("--reps: at least 1");
    if (o.rank >= 0) {
        if (o.nranks < 1 || o.rank >= o.nranks || o.id_file.empty() || o.times_file.empty())
            usage("--rank needs --nranks, --id-file and --times-file");
    } else if (o.processes == 0 && process_only) {
        usage("--cond, --baseline and --timeout go with --processes");
    } else if (o.processes < 0 || o.timeout < 1) {
        usage("--processes and --timeout: at least 1");
    }
    return o;
}

}  // namespace dist_bench
