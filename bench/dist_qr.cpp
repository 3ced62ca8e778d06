// gpusvd-bench-dist: the distributed tall QR and PCA (gpusvd_dgeqrf_mgs_dist_gpu,
// gpusvd_dpca_dist_gpu, 8 components, no scores) over NCCL, one rank per GPU, against one GPU.
//   gpusvd-bench-dist [--rows M] [--cols n] [--reps r]
//   gpusvd-bench-dist --processes P [--rows M] [--cols n] [--reps r] [--cond c] [--baseline 0|1]
//                     [--timeout s]
// Both forms: medians of --reps calls (after a warm-up), device to device. The matrix is a
// random block of 2^20 x n rows repeated down the rows, so no host array of the whole size is
// needed.
// Threads (the first form): one rank per GPU of the machine, a thread each (ncclCommInitAll),
// against one GPU on one rank's share of the rows and, for the QR, on all of them
// (gpusvd_dgeqrf_mgs_gpu, gpusvd_dpca_gpu with the QR method), same data, same run. The
// distributed R is checked against the one-GPU R of the same matrix, and every rank's R against
// rank 0's (bitwise).
// Processes (--processes P): one process per GPU, the way the routines are used under torchrun
// or mpirun. The library only sees the communicator, but separate processes do not share what
// the threads share implicitly (one CUDA context, one address space, one NCCL instance), so
// this is the set-up the results must hold in. The parent starts P copies of itself (rank r on
// GPU r, each with a clean CUDA state) and does not touch CUDA until they have ended; rank 0's
// ncclGetUniqueId reaches the others through a file, then ncclCommInitRank. Checked at full
// size, every reduction over NCCL: the QR of block * W (W = U diag(sigma) V^T, sigma from 1 to
// 1/c, default c = 1e12): |I - Q^T Q|_1 / (M eps) and |A - Q R|_1 / (M |A|_1 eps) below 30,
// the tests' bound, and R bitwise the same on every rank; the PCA of block * W' + 3 (cond(W') =
// 1e3, the offset so that centring matters): variances, mean and components against the
// eigenpairs of the exact covariance matrix (rank 0 weights each block row by its count in the
// whole), from the CPU backend's gesvj. With --baseline 1 (the default) the parent then times
// one GPU on the same matrices as the thread form does. Exit status non-zero when a check or a
// rank fails; a failed rank's peers are killed after a grace period, and every rank after
// --timeout seconds (default 1800). Where M eps > 1/c, trailing columns fall under the QR's
// rank rule (R(j,j) <= M eps |R(:,j)|): they are reported (info > 0, R(j,j) = 0, Q completed)
// and the ratios still apply. --rank, --nranks, --id-file and --times-file are what the parent
// passes its ranks.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gpusvd.h"

extern char **environ;

namespace {

constexpr int64_t kBlockRows = int64_t(1) << 20;
constexpr int64_t kPcaK = 8;
constexpr uint64_t kBlockSeed = 0x1234567ull, kQrSeed = 0x5eed01ull, kPcaSeed = 0x5eed03ull;
constexpr double kPcaCond = 1e3, kPcaOffset = 3.0;
constexpr double kQrBound = 30, kVarBound = 1e-10, kMeanBound = 1e-12, kCompBound = 1e-8;
constexpr int kIdWaitS = 120;  // NCCL's own initialisation has no timeout of its own either
constexpr int kGraceS = 15;    // a failed rank's peers may sit in a collective that never ends

int g_rank = -1;  // process form: this process's rank, named in its error messages

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

// NaN wins, so a check cannot pass on NaN.
double worst(double a, double b) {
    return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN()
                                          : std::max(a, b);
}

template <class T>
class Dev {
public:
    Dev(int64_t count, const char *what) {
        cuda(cudaMalloc(reinterpret_cast<void **>(&p_),
                        sizeof(T) * size_t(std::max<int64_t>(count, 1))),
             what);
    }
    ~Dev() { warn(cudaFree(p_), "cudaFree"); }
    Dev(const Dev &) = delete;
    Dev &operator=(const Dev &) = delete;
    T *get() const { return p_; }

private:
    T *p_ = nullptr;
};

class Barrier {
public:
    explicit Barrier(int n) : n_(n) {}
    void wait() {
        std::unique_lock<std::mutex> lk(m_);
        const long g = gen_;
        if (++arrived_ == n_) {
            arrived_ = 0, ++gen_;
            cv_.notify_all();
        } else {
            cv_.wait(lk, [&] { return gen_ != g; });
        }
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    int n_, arrived_ = 0;
    long gen_ = 0;
};

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

// The process form's blocks: the QR's (block * W, cond(W) = cond) and the PCA's.
struct Blocks {
    std::vector<double> qr, pca;
};
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
void tile(double *A, int64_t rows, int64_t n, const double *block, int64_t first = 0) {
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

struct NcclId {
    char internal[128];  // ncclUniqueId
};
constexpr int kNcclUint64 = 5, kNcclFloat64 = 8;
constexpr int kNcclSum = 0, kNcclMax = 2, kNcclMin = 3;

struct Nccl {
    int (*init_all)(void **, int, const int *) = nullptr;
    int (*get_id)(NcclId *) = nullptr;
    int (*init_rank)(void **, int, NcclId, int) = nullptr;
    int (*all_reduce)(const void *, void *, size_t, int, int, void *, cudaStream_t) = nullptr;
    int (*destroy)(void *) = nullptr;
    const char *(*error)(int) = nullptr;

    void check(int r, const char *what) const {
        if (r != 0) die(std::string(what) + ": " + (error ? error(r) : "NCCL error"));
    }
};

template <class F>
void bind(void *lib, F *f, const char *name) {
    *f = reinterpret_cast<F>(dlsym(lib, name));
}

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

struct Options {
    int64_t M = 100000000, n = 64;
    int reps = 3;
    int processes = 0;          // > 0: the process form's parent
    int rank = -1, nranks = 0;  // >= 0: one of its ranks
    std::string id_file, times_file;
    double cond = 1e12;
    bool baseline = true;
    int timeout = 1800;
};

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

// ------------------------------------------------------------------------------------------
// Threads: one process, a thread per GPU

int run_threads(const Options &o) {
    const int64_t M = o.M, n = o.n;
    const int reps = o.reps;
    int P = 0;
    cuda(cudaGetDeviceCount(&P), "counting devices");
    const Nccl nc = load_nccl();
    need(nc.init_all && nc.destroy, "NCCL without ncclCommInitAll");

    // The random block, on every device.
    const std::vector<double> host = random_matrix(kBlockRows, n, kBlockSeed);
    std::vector<double *> block(static_cast<size_t>(P));
    for (int d = 0; d < P; ++d) {
        cuda(cudaSetDevice(d), "setting the device");
        cuda(cudaMalloc(reinterpret_cast<void **>(&block[size_t(d)]), sizeof(double) * host.size()),
             "allocating the block");
        upload(block[size_t(d)], host, "copying the block");
    }

    std::vector<void *> comms(static_cast<size_t>(P));
    nc.check(nc.init_all(comms.data(), P, nullptr), "ncclCommInitAll");
    const int64_t share = share_of(M, P);
    std::vector<double> times, pca_times, pca_var;
    std::vector<std::vector<double>> R(size_t(P), std::vector<double>(size_t(n * n)));
    Barrier bar(P);
    std::vector<std::thread> th;
    for (int r = 0; r < P; ++r)
        th.emplace_back([&, r] {
            cuda(cudaSetDevice(r), "setting the device");
            const int64_t rows = rows_of(M, P, r), lda = std::max<int64_t>(rows, 1);
            gpusvdHandle_t h = nullptr;
            ok(nullptr, gpusvdCreate(&h));
            gpusvdComm_t c = nullptr;
            ok(nullptr, gpusvdCommCreateNccl(&c, comms[size_t(r)]));
            const auto sync = [&] { bar.wait(); };
            {
                Dev<double> A(rows * n, "allocating A"), dR(n * n, "allocating R");
                Dev<int> info(1, "allocating info");
                const std::vector<double> t = timed(
                    reps,
                    [&] {
                        tile(A.get(), rows, n, block[size_t(r)], r * share);
                        cuda(cudaDeviceSynchronize(), "tiling");
                    },
                    [&] {
                        ok(h, gpusvd_dgeqrf_mgs_dist_gpu(h, c, GPUSVD_ORTH_MGS2, rows, n, A.get(),
                                                         lda, dR.get(), n, info.get()));
                    },
                    sync, "the QR");
                if (r == 0) times = t;
                cuda(cudaMemcpy(R[size_t(r)].data(), dR.get(), sizeof(double) * n * n,
                                cudaMemcpyDeviceToHost),
                     "R");
                // PCA of the same data (X is read, not overwritten), 8 components.
                Dev<double> C(n * kPcaK, "C"), var(kPcaK, "var");
                tile(A.get(), rows, n, block[size_t(r)], r * share);
                const std::vector<double> tp = timed(
                    reps, [] { cuda(cudaDeviceSynchronize(), "tiling"); },
                    [&] {
                        ok(h, gpusvd_dpca_dist_gpu(h, c, rows, n, A.get(), lda, kPcaK, C.get(), n,
                                                   var.get(), nullptr, 1, nullptr, info.get()));
                    },
                    sync, "the PCA");
                if (r == 0) {
                    pca_times = tp;
                    pca_var.resize(size_t(kPcaK));
                    cuda(cudaMemcpy(pca_var.data(), var.get(), sizeof(double) * kPcaK,
                                    cudaMemcpyDeviceToHost),
                         "var");
                }
            }
            ok(nullptr, gpusvdCommDestroy(c));
            ok(nullptr, gpusvdDestroy(h));
        });
    for (auto &t : th) t.join();
    for (void *c : comms) nc.check(nc.destroy(c), "ncclCommDestroy");
    int identical = 1;
    for (int r = 1; r < P; ++r)
        identical &= std::memcmp(R[size_t(r)].data(), R[0].data(), sizeof(double) * n * n) == 0;
    std::vector<double> R1, Rq;
    const double t_quarter = one_gpu(share, n, reps, block[0], &Rq);
    const double t_whole = one_gpu(M, n, reps, block[0], &R1);
    double diff = 0, ref = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= j; ++i) {
            diff = std::max(diff, std::fabs(R[0][size_t(i + j * n)] - R1[size_t(i + j * n)]));
            ref = std::max(ref, std::fabs(R1[size_t(i + j * n)]));
        }
    const double t_dist = median(times);
    std::printf(
        "gpusvd-bench-dist: dgeqrf_mgs of %lld x %lld over %d GPUs (NCCL, one rank per "
        "GPU), medians of %d\n",
        (long long)M, (long long)n, P, reps);
    std::printf("  distributed, %d GPUs:              %10.2f ms\n", P, t_dist);
    print_one_gpu_qr(share, t_quarter, M, t_whole, t_dist);
    std::printf(
        "  R identical on every rank: %s; max |R_dist - R_one| / max |R_one| = %.2e (the same "
        "matrix)\n",
        identical ? "yes" : "NO", diff / ref);
    std::vector<double> vq;
    const double t_pca_quarter = one_gpu_pca(share, n, reps, block[0], &vq);
    const double t_pca = median(pca_times);
    print_one_gpu_pca(t_pca, t_pca_quarter);
    std::printf(
        "  PCA: largest variance distributed %.6e, one share on one GPU %.6e (of another "
        "matrix: the first share's rows)\n",
        pca_var.empty() ? 0.0 : pca_var[0], vq[0]);
    for (double *b : block) cuda(cudaFree(b), "freeing the block");
    return identical ? 0 : 1;
}

// ------------------------------------------------------------------------------------------
// Processes: one rank

void write_atomically(const std::string &path, const void *data, size_t bytes) {
    const std::string tmp = path + ".tmp";
    const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    need(fd >= 0, "cannot create " + tmp + ": " + std::strerror(errno));
    const bool written = write(fd, data, bytes) == ssize_t(bytes);
    need(close(fd) == 0 && written, "cannot write " + tmp);
    need(rename(tmp.c_str(), path.c_str()) == 0,
         "cannot rename " + tmp + ": " + std::strerror(errno));
}

bool read_exactly(const std::string &path, void *data, size_t bytes) {
    const int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) return false;
    const bool got = read(fd, data, bytes) == ssize_t(bytes);
    close(fd);
    return got;
}

// Rank 0's NCCL id, through a file that appears whole (written beside it, then renamed).
NcclId exchange_id(const Nccl &nc, const Options &o) {
    NcclId id{};
    if (o.rank == 0) {
        nc.check(nc.get_id(&id), "ncclGetUniqueId");
        write_atomically(o.id_file, &id, sizeof id);
        return id;
    }
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(kIdWaitS);
    while (!read_exactly(o.id_file, &id, sizeof id)) {
        if (std::chrono::steady_clock::now() > end)
            die("no NCCL id from rank 0 in " + std::to_string(kIdWaitS) + " s (" + o.id_file + ")");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return id;
}

// This process's rank in the NCCL communicator, and blocking all-reduces over it.
class Ranks {
public:
    Ranks(const Nccl &nc, const Options &o)
        : nc_(nc), words_(size_t(std::max(o.n * o.n, 2 * o.n))) {
        const NcclId id = exchange_id(nc, o);
        nc_.check(nc_.init_rank(&comm_, o.nranks, id, o.rank), "ncclCommInitRank");
        cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
        cuda(cudaMalloc(&buf_, 8 * words_), "allocating the reduction buffer");
    }
    ~Ranks() {
        warn(cudaFree(buf_), "cudaFree");
        warn(cudaStreamDestroy(stream_), "cudaStreamDestroy");
        if (nc_.destroy(comm_) != 0)
            std::fprintf(stderr, "gpusvd-bench-dist: rank %d: ncclCommDestroy failed\n", g_rank);
    }
    Ranks(const Ranks &) = delete;
    Ranks &operator=(const Ranks &) = delete;
    void *comm() const { return comm_; }

    // In place over `count` 8-byte words of device memory, after all work queued so far; on
    // return every rank has taken part.
    void allreduce(void *dev, size_t count, int type, int op, const char *what) {
        cuda(cudaDeviceSynchronize(), what);
        nc_.check(nc_.all_reduce(dev, dev, count, type, op, comm_, stream_), what);
        cuda(cudaStreamSynchronize(stream_), what);
    }
    void allreduce_host(void *host, size_t count, int type, int op, const char *what) {
        need(count <= words_, std::string(what) + ": reduction too large");
        cuda(cudaMemcpy(buf_, host, 8 * count, cudaMemcpyHostToDevice), what);
        allreduce(buf_, count, type, op, what);
        cuda(cudaMemcpy(host, buf_, 8 * count, cudaMemcpyDeviceToHost), what);
    }
    double reduce(double x, int op, const char *what) {
        allreduce_host(&x, 1, kNcclFloat64, op, what);
        return x;
    }
    void barrier() { reduce(0.0, kNcclSum, "barrier"); }

private:
    const Nccl &nc_;
    size_t words_;
    void *comm_ = nullptr;
    cudaStream_t stream_ = nullptr;
    void *buf_ = nullptr;
};

// The rank's place in the whole matrix and its handles.
struct Rank {
    const Options &o;
    Ranks &comm;
    gpusvdHandle_t h;
    gpusvdComm_t c;
    cublasHandle_t cb;
    int64_t rows, first, lda;
};

struct QrRun {
    std::vector<double> R;
    int info = 0;
    double ms = 0, ms_slowest = 0;
};

// Times the QR of this rank's rows of the tiled block; Q is left in A.
QrRun rank_qr(const Rank &k, double *A, const double *block) {
    const int64_t n = k.o.n;
    Dev<double> dR(n * n, "allocating R");
    Dev<int> info(1, "allocating info");
    const std::vector<double> t = timed(
        k.o.reps,
        [&] {
            tile(A, k.rows, n, block, k.first);
            cuda(cudaDeviceSynchronize(), "tiling");
        },
        [&] {
            ok(k.h, gpusvd_dgeqrf_mgs_dist_gpu(k.h, k.c, GPUSVD_ORTH_MGS2, k.rows, n, A, k.lda,
                                               dR.get(), n, info.get()));
        },
        [&] { k.comm.barrier(); }, "the QR");
    QrRun q;
    q.R.resize(size_t(n * n));
    cuda(cudaMemcpy(q.R.data(), dR.get(), sizeof(double) * n * n, cudaMemcpyDeviceToHost), "R");
    cuda(cudaMemcpy(&q.info, info.get(), sizeof(int), cudaMemcpyDeviceToHost), "info");
    q.ms = median(t);
    q.ms_slowest = k.comm.reduce(q.ms, kNcclMax, "the slowest median");
    return q;
}

// |I - sum over ranks of Q_r^T Q_r|_1 / (M eps).
double orthogonality_ratio(const Rank &k, const double *Q) {
    const int64_t n = k.o.n;
    Dev<double> G(n * n, "allocating Q^T Q");
    cuda(cudaMemset(G.get(), 0, sizeof(double) * n * n), "clearing Q^T Q");
    const double one = 1, zero = 0;
    if (k.rows > 0)
        blas(cublasDgemm_64(k.cb, CUBLAS_OP_T, CUBLAS_OP_N, n, n, k.rows, &one, Q, k.lda, Q, k.lda,
                            &zero, G.get(), n),
             "Q^T Q");
    k.comm.allreduce(G.get(), size_t(n * n), kNcclFloat64, kNcclSum, "summing Q^T Q");
    std::vector<double> g(size_t(n * n));
    cuda(cudaMemcpy(g.data(), G.get(), sizeof(double) * n * n, cudaMemcpyDeviceToHost), "Q^T Q");
    double norm = 0;
    for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t i = 0; i < n; ++i) s += std::fabs((i == j ? 1.0 : 0.0) - g[size_t(i + j * n)]);
        norm = worst(norm, s);
    }
    return norm / (double(k.o.M) * std::numeric_limits<double>::epsilon());
}

// |A - Q R|_1 / (M |A|_1 eps), A regenerated by slices of kBlockRows rows.
double residual_ratio(const Rank &k, const double *Q, const double *block,
                      const std::vector<double> &R) {
    const int64_t n = k.o.n;
    std::vector<double> upper(R);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j + 1; i < n; ++i) upper[size_t(i + j * n)] = 0;
    Dev<double> dR(n * n, "allocating R"),
        S(std::min(k.rows, kBlockRows) * n, "allocating a slice");
    upload(dR.get(), upper, "copying R");
    std::vector<double> sums(size_t(2 * n), 0.0);  // column sums of |A - QR|, then of |A|
    const auto add_column_sums = [&](int64_t h, double *to, const char *what) {
        for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            blas(cublasDasum_64(k.cb, h, S.get() + j * h, 1, &s), what);
            to[j] += s;
        }
    };
    const double minus = -1, one = 1;
    for (int64_t r0 = 0; r0 < k.rows; r0 += kBlockRows) {
        const int64_t h = std::min(kBlockRows, k.rows - r0);
        tile(S.get(), h, n, block, k.first + r0);
        add_column_sums(h, sums.data() + n, "|A|");
        blas(cublasDgemm_64(k.cb, CUBLAS_OP_N, CUBLAS_OP_N, h, n, n, &minus, Q + r0, k.lda,
                            dR.get(), n, &one, S.get(), h),
             "A - Q R");
        add_column_sums(h, sums.data(), "|A - Q R|");
    }
    k.comm.allreduce_host(sums.data(), sums.size(), kNcclFloat64, kNcclSum, "the column sums");
    double e = 0, a = 0;
    for (int64_t j = 0; j < n; ++j)
        e = worst(e, sums[size_t(j)]), a = worst(a, sums[size_t(n + j)]);
    return e / (double(k.o.M) * a * std::numeric_limits<double>::epsilon());
}

// FNV-1a of R's upper triangle (what the call defines), compared by its max and min over ranks.
bool same_on_every_rank(const Rank &k, const std::vector<double> &R) {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (int64_t j = 0; j < k.o.n; ++j)
        for (int64_t i = 0; i <= j; ++i) {
            unsigned char b[sizeof(double)];
            std::memcpy(b, &R[size_t(i + j * k.o.n)], sizeof b);
            for (unsigned char x : b) hash = (hash ^ x) * 0x100000001b3ull;
        }
    uint64_t hi = hash, lo = hash;
    k.comm.allreduce_host(&hi, 1, kNcclUint64, kNcclMax, "the largest hash of R");
    k.comm.allreduce_host(&lo, 1, kNcclUint64, kNcclMin, "the smallest hash of R");
    return hi == lo;
}

struct Checked {
    bool pass;
    double ms;  // this rank's median
};

// The QR: timing and checks, printed by rank 0.
Checked rank_qr_checks(const Rank &k, double *A, const double *block) {
    const QrRun q = rank_qr(k, A, block);
    const double orth = orthogonality_ratio(k, A), resid = residual_ratio(k, A, block, q.R);
    const bool same = same_on_every_rank(k, q.R);
    const bool pass = orth < kQrBound && resid < kQrBound && same && q.info >= 0;
    if (k.o.rank != 0) return {pass, q.ms};
    int64_t dropped = 0;
    for (int64_t j = 0; j < k.o.n; ++j) dropped += q.R[size_t(j + j * k.o.n)] == 0.0;
    std::printf(
        "  QR (dgeqrf_mgs_dist, MGS2) of block * W, cond(W) = %.1e: rank 0 %.2f ms, "
        "slowest rank %.2f ms (medians)\n",
        k.o.cond, q.ms, q.ms_slowest);
    std::printf(
        "  info = %d; %lld columns numerically dependent (R(j,j) <= M eps |R(:,j)|, M eps "
        "= %.1e: R(j,j) = 0, Q completed)\n",
        q.info, (long long)dropped, double(k.o.M) * std::numeric_limits<double>::epsilon());
    std::printf("  orthogonality ratio |I - Q^T Q|_1 / (M eps):  %10.3g  (bound %.0f)\n", orth,
                kQrBound);
    std::printf("  residual ratio |A - Q R|_1 / (M |A|_1 eps):   %10.3g  (bound %.0f)\n", resid,
                kQrBound);
    std::printf("  R identical on every rank: %s\n", same ? "yes" : "NO");
    std::printf("  QR: %s\n", pass ? "PASS" : "FAIL");
    return {pass, q.ms};
}

struct Pca {
    std::vector<double> comp, var, mean;
};

struct PcaRun {
    Pca out;
    int info = 0;
    double ms = 0, ms_slowest = 0;
};

// Times the PCA of this rank's rows of the tiled block; X is not changed.
PcaRun rank_pca(const Rank &k, double *X, const double *block) {
    const int64_t n = k.o.n;
    tile(X, k.rows, n, block, k.first);
    Dev<double> C(n * kPcaK, "allocating the components"), var(kPcaK, "allocating the variances"),
        mean(n, "allocating the mean");
    Dev<int> info(1, "allocating info");
    const std::vector<double> t = timed(
        k.o.reps, [] { cuda(cudaDeviceSynchronize(), "tiling"); },
        [&] {
            ok(k.h, gpusvd_dpca_dist_gpu(k.h, k.c, k.rows, n, X, k.lda, kPcaK, C.get(), n,
                                         var.get(), nullptr, 1, mean.get(), info.get()));
        },
        [&] { k.comm.barrier(); }, "the PCA");
    PcaRun p;
    p.out.comp.resize(size_t(n * kPcaK)), p.out.var.resize(size_t(kPcaK)),
        p.out.mean.resize(size_t(n));
    cuda(cudaMemcpy(p.out.comp.data(), C.get(), sizeof(double) * n * kPcaK, cudaMemcpyDeviceToHost),
         "the components");
    cuda(cudaMemcpy(p.out.var.data(), var.get(), sizeof(double) * kPcaK, cudaMemcpyDeviceToHost),
         "the variances");
    cuda(cudaMemcpy(p.out.mean.data(), mean.get(), sizeof(double) * n, cudaMemcpyDeviceToHost),
         "the mean");
    cuda(cudaMemcpy(&p.info, info.get(), sizeof(int), cudaMemcpyDeviceToHost), "info");
    p.ms = median(t);
    p.ms_slowest = k.comm.reduce(p.ms, kNcclMax, "the slowest median");
    return p;
}

// Mean and covariance of the whole tiled matrix from the block alone (row b appears
// floor(M / 2^20) times, once more when b < M mod 2^20), the covariance's eigenpairs by the CPU
// backend's one-sided Jacobi SVD (C is symmetric positive semidefinite: its singular values are
// its eigenvalues, its right singular vectors eigenvectors).
Pca pca_reference(const std::vector<double> &X, int64_t n, int64_t M) {
    const int64_t q = M / kBlockRows, rem = M % kBlockRows;
    const auto count = [&](int64_t b) { return double(q + (b < rem ? 1 : 0)); };
    Pca ref;
    ref.mean.resize(size_t(n));
    for (int64_t j = 0; j < n; ++j) {
        long double s = 0;
        for (int64_t b = 0; b < kBlockRows; ++b)
            s += (long double)count(b) * X[size_t(b + j * kBlockRows)];
        ref.mean[size_t(j)] = double(s / (long double)M);
    }
    // Outer products of rows (row-major slices, so the inner loop runs along contiguous memory)
    // summed in double over a slice, the slices in long double.
    constexpr int64_t kSlice = 1024;
    std::vector<long double> acc(size_t(n * n), 0.0L);
    std::vector<double> d(size_t(kSlice * n)), wd(size_t(kSlice * n)), part(size_t(n * n));
    for (int64_t b0 = 0; b0 < kBlockRows; b0 += kSlice) {
        for (int64_t i = 0; i < kSlice; ++i)
            for (int64_t j = 0; j < n; ++j) {
                d[size_t(i * n + j)] = X[size_t(b0 + i + j * kBlockRows)] - ref.mean[size_t(j)];
                wd[size_t(i * n + j)] = count(b0 + i) * d[size_t(i * n + j)];
            }
        std::fill(part.begin(), part.end(), 0.0);
        for (int64_t i = 0; i < kSlice; ++i)
            for (int64_t c = 0; c < n; ++c) {
                const double dc = d[size_t(i * n + c)];
                const double *w = &wd[size_t(i * n)];
                double *p = &part[size_t(c * n)];
                for (int64_t r = 0; r <= c; ++r) p[r] += w[r] * dc;
            }
        for (size_t e = 0; e < part.size(); ++e) acc[e] += part[e];
    }
    std::vector<double> C(size_t(n * n));
    for (int64_t c = 0; c < n; ++c)
        for (int64_t r = 0; r <= c; ++r)
            C[size_t(r + c * n)] = C[size_t(c + r * n)] =
                double(acc[size_t(r + c * n)] / (long double)(M - 1));
    gpusvdHandle_t h = nullptr;
    ok(nullptr, gpusvdCreate(&h));
    ok(h, gpusvdSetBackend(h, GPUSVD_BACKEND_CPU));
    std::vector<double> S(static_cast<size_t>(n)), V(size_t(n * n));
    int info = 0;
    ok(h, gpusvd_dgesvj(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_VEC, n, n, C.data(), n, S.data(), nullptr,
                        n, V.data(), n, &info));
    ok(nullptr, gpusvdDestroy(h));
    need(info == 0,
         "the reference eigensolver (CPU gesvj) did not converge: info " + std::to_string(info));
    ref.var.assign(S.begin(), S.begin() + kPcaK);
    ref.comp.assign(V.begin(), V.begin() + n * kPcaK);
    return ref;
}

struct PcaErrors {
    double var = 0, mean = 0, comp = 0;
};

// Components compared after turning each one's sign to the reference's.
PcaErrors compare(const Pca &got, const Pca &ref, int64_t n) {
    PcaErrors e;
    for (int64_t j = 0; j < kPcaK; ++j)
        e.var =
            worst(e.var, std::fabs(got.var[size_t(j)] - ref.var[size_t(j)]) / ref.var[size_t(j)]);
    double scale = 0;
    for (int64_t j = 0; j < n; ++j) {
        e.mean = worst(e.mean, std::fabs(got.mean[size_t(j)] - ref.mean[size_t(j)]));
        scale = std::max(scale, std::fabs(ref.mean[size_t(j)]));
    }
    e.mean /= scale;
    for (int64_t j = 0; j < kPcaK; ++j) {
        const double *c = &got.comp[size_t(j * n)], *r = &ref.comp[size_t(j * n)];
        double dot = 0, ss = 0;
        for (int64_t i = 0; i < n; ++i) dot += c[i] * r[i];
        const double s = dot < 0 ? -1.0 : 1.0;
        for (int64_t i = 0; i < n; ++i) ss += (c[i] - s * r[i]) * (c[i] - s * r[i]);
        e.comp = worst(e.comp, std::sqrt(ss));
    }
    return e;
}

// The PCA: timing, and on rank 0 the checks (printed) and the times file. Returns whether the
// checks passed (true on the other ranks).
bool rank_pca_checks(const Rank &k, double *X, const double *block, const std::vector<double> &host,
                     double qr_ms) {
    const PcaRun p = rank_pca(k, X, block);
    if (k.o.rank != 0) return true;
    const PcaErrors e = compare(p.out, pca_reference(host, k.o.n, k.o.M), k.o.n);
    const bool pass =
        p.info == 0 && e.var < kVarBound && e.mean < kMeanBound && e.comp < kCompBound;
    std::printf(
        "  PCA (8 components, mean, no scores) of block * W' + %.0f, cond(W') = %.0e: rank 0 "
        "%.2f ms, slowest rank %.2f ms (medians); info = %d\n",
        kPcaOffset, kPcaCond, p.ms, p.ms_slowest, p.info);
    std::printf(
        "  against the exact covariance's eigenpairs (CPU gesvj): variances max rel. diff "
        "%.2e (bound %.0e), mean max |diff| / max |mean| %.2e (bound %.0e), components "
        "max |c - c_ref|_2 %.2e (bound %.0e)\n",
        e.var, kVarBound, e.mean, kMeanBound, e.comp, kCompBound);
    std::printf("  PCA: %s\n", pass ? "PASS" : "FAIL");
    char line[64];
    const int len = std::snprintf(line, sizeof line, "%.17g %.17g\n", qr_ms, p.ms);
    write_atomically(k.o.times_file, line, size_t(len));
    return pass;
}

int run_rank(const Options &o) {
    g_rank = o.rank;
    // The parent's death (a kill from outside) takes the ranks with it.
    need(prctl(PR_SET_PDEATHSIG, SIGKILL) == 0, "prctl(PR_SET_PDEATHSIG)");
    int devices = 0;
    cuda(cudaGetDeviceCount(&devices), "counting devices");
    need(o.rank < devices,
         "no GPU " + std::to_string(o.rank) + " (" + std::to_string(devices) + " visible)");
    cuda(cudaSetDevice(o.rank), "setting the device");
    const Nccl nc = load_nccl();
    need(nc.get_id && nc.init_rank && nc.all_reduce && nc.destroy,
         "NCCL without ncclGetUniqueId, ncclCommInitRank or ncclAllReduce");
    Ranks ranks(nc, o);
    const Blocks data = make_blocks(o.n, o.cond);
    const int64_t rows = rows_of(o.M, o.nranks, o.rank), first = o.rank * share_of(o.M, o.nranks);
    Rank k{o, ranks, nullptr, nullptr, nullptr, rows, first, std::max<int64_t>(rows, 1)};
    ok(nullptr, gpusvdCreate(&k.h));
    ok(nullptr, gpusvdCommCreateNccl(&k.c, ranks.comm()));
    blas(cublasCreate(&k.cb), "cublasCreate");
    if (o.rank == 0)
        std::printf(
            "gpusvd-bench-dist: %lld x %lld over %d processes (one GPU each; NCCL by "
            "ncclGetUniqueId and ncclCommInitRank), medians of %d\n",
            (long long)o.M, (long long)o.n, o.nranks, o.reps);
    bool pass = false;
    {
        Dev<double> A(k.lda * o.n, "allocating A"), block(kBlockRows * o.n, "allocating the block");
        upload(block.get(), data.qr, "copying the block");
        const Checked qr = rank_qr_checks(k, A.get(), block.get());
        upload(block.get(), data.pca, "copying the block");
        pass = rank_pca_checks(k, A.get(), block.get(), data.pca, qr.ms) && qr.pass;
    }
    blas(cublasDestroy(k.cb), "cublasDestroy");
    ok(nullptr, gpusvdCommDestroy(k.c));
    ok(nullptr, gpusvdDestroy(k.h));
    return pass ? 0 : 1;
}

// ------------------------------------------------------------------------------------------
// Processes: the parent

std::string self_path() {
    char buf[4096];
    const ssize_t len = readlink("/proc/self/exe", buf, sizeof buf - 1);
    need(len > 0, std::string("cannot read /proc/self/exe: ") + std::strerror(errno));
    buf[len] = '\0';
    return buf;
}

// The rank's own process: exec, so that it starts with no CUDA state at all.
pid_t spawn_rank(const std::string &exe, const Options &o, int r, const std::string &dir) {
    char cond[32];
    std::snprintf(cond, sizeof cond, "%.17g", o.cond);
    const std::vector<std::string> args = {exe,
                                           "--rank",
                                           std::to_string(r),
                                           "--nranks",
                                           std::to_string(o.processes),
                                           "--id-file",
                                           dir + "/nccl-id",
                                           "--times-file",
                                           dir + "/times",
                                           "--rows",
                                           std::to_string(o.M),
                                           "--cols",
                                           std::to_string(o.n),
                                           "--reps",
                                           std::to_string(o.reps),
                                           "--cond",
                                           cond};
    std::vector<char *> argv;
    for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int e = posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), environ);
    if (e == 0) return pid;
    std::fprintf(stderr, "gpusvd-bench-dist: cannot start rank %d: %s\n", r, std::strerror(e));
    return -1;
}

// Every rank's end. After a failure the others get kGraceS seconds (they may wait in a collective
// that will never complete), then SIGKILL; so do all after `timeout_s` seconds.
bool wait_ranks(std::vector<pid_t> pids, int timeout_s) {
    using clock = std::chrono::steady_clock;
    auto deadline = clock::now() + std::chrono::seconds(timeout_s);
    bool good = true, killed = false;
    size_t left = size_t(std::count_if(pids.begin(), pids.end(), [](pid_t p) { return p > 0; }));
    while (left > 0) {
        int status = 0;
        const pid_t p = waitpid(-1, &status, WNOHANG);
        if (p < 0 && errno != EINTR) {
            std::fprintf(stderr, "gpusvd-bench-dist: waitpid: %s\n", std::strerror(errno));
            return false;
        }
        const auto it = p > 0 ? std::find(pids.begin(), pids.end(), p) : pids.end();
        if (it != pids.end()) {
            *it = 0, --left;
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
            if (!killed) {
                if (WIFSIGNALED(status))
                    std::fprintf(stderr, "gpusvd-bench-dist: rank %d killed by signal %d\n",
                                 int(it - pids.begin()), WTERMSIG(status));
                else
                    std::fprintf(stderr, "gpusvd-bench-dist: rank %d failed (exit status %d)\n",
                                 int(it - pids.begin()), WEXITSTATUS(status));
            }
            if (good) deadline = std::min(deadline, clock::now() + std::chrono::seconds(kGraceS));
            good = false;
            continue;
        }
        if (clock::now() >= deadline) {
            if (killed) {
                std::fprintf(stderr, "gpusvd-bench-dist: %zu ranks still there after SIGKILL\n",
                             left);
                return false;
            }
            std::fprintf(stderr, "gpusvd-bench-dist: %s; killing the %zu ranks left\n",
                         good ? "time limit reached" : "a rank failed", left);
            for (pid_t q : pids)
                if (q > 0) kill(q, SIGKILL);
            killed = true, good = false;
            deadline = clock::now() + std::chrono::seconds(kGraceS);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return good;
}

void remove_run_dir(const std::string &dir) {
    for (const char *f : {"/nccl-id", "/nccl-id.tmp", "/times", "/times.tmp"})
        if (unlink((dir + f).c_str()) != 0 && errno != ENOENT)
            std::fprintf(stderr, "gpusvd-bench-dist: cannot remove %s%s: %s\n", dir.c_str(), f,
                         std::strerror(errno));
    if (rmdir(dir.c_str()) != 0)
        std::fprintf(stderr, "gpusvd-bench-dist: cannot remove %s: %s\n", dir.c_str(),
                     std::strerror(errno));
}

// One GPU on the ranks' matrices, as the thread form prints it; CUDA only now that no rank is
// left.
void parent_baselines(const Options &o, double t_qr, double t_pca) {
    const Blocks data = make_blocks(o.n, o.cond);
    const int64_t share = share_of(o.M, o.processes);
    cuda(cudaSetDevice(0), "device 0");
    std::printf(
        "gpusvd-bench-dist: one GPU (device 0, the parent), the same matrices, medians of "
        "%d; distributed: rank 0's medians\n",
        o.reps);
    {
        Dev<double> block(kBlockRows * o.n, "allocating the block");
        upload(block.get(), data.qr, "copying the block");
        std::vector<double> Rq, R1;
        const double t_share = one_gpu(share, o.n, o.reps, block.get(), &Rq);
        const double t_whole = one_gpu(o.M, o.n, o.reps, block.get(), &R1);
        print_one_gpu_qr(share, t_share, o.M, t_whole, t_qr);
    }
    Dev<double> block(kBlockRows * o.n, "allocating the block");
    upload(block.get(), data.pca, "copying the block");
    std::vector<double> v;
    print_one_gpu_pca(t_pca, one_gpu_pca(share, o.n, o.reps, block.get(), &v));
}

int run_parent(const Options &o) {
    const std::string exe = self_path();
    const char *tmp = std::getenv("TMPDIR");
    std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/gpusvd-bench-dist.XXXXXX";
    need(mkdtemp(&dir[0]) != nullptr, "mkdtemp " + dir + ": " + std::strerror(errno));
    std::fflush(stdout);
    std::vector<pid_t> pids;
    bool started = true;
    for (int r = 0; r < o.processes && started; ++r) {
        pids.push_back(spawn_rank(exe, o, r, dir));
        started = pids.back() > 0;
    }
    if (!started)
        for (pid_t p : pids)
            if (p > 0) kill(p, SIGKILL);
    const bool good = wait_ranks(pids, started ? o.timeout : kGraceS) && started;
    double t_qr = 0, t_pca = 0;
    bool have_times = false;
    if (good) {
        FILE *f = std::fopen((dir + "/times").c_str(), "r");
        have_times = f && std::fscanf(f, "%lf %lf", &t_qr, &t_pca) == 2;
        if (f) std::fclose(f);
    }
    remove_run_dir(dir);
    if (!good) return 1;
    need(have_times, "rank 0 left no times");
    if (o.baseline) parent_baselines(o, t_qr, t_pca);
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    const Options o = parse(argc, argv);
    if (o.rank >= 0) return run_rank(o);
    if (o.processes > 0) return run_parent(o);
    return run_threads(o);
}
