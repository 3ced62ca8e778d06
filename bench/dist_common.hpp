// What both forms of gpusvd-bench-dist (threads, processes) share: error helpers, the test
// matrices and their tiling, timing, the one-GPU baselines, NCCL loaded at run time, options.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpusvd.h"

namespace dist_bench {

constexpr int64_t kBlockRows = int64_t(1) << 20;
constexpr int64_t kPcaK = 8;
constexpr uint64_t kBlockSeed = 0x1234567ull, kQrSeed = 0x5eed01ull, kPcaSeed = 0x5eed03ull;
constexpr double kPcaCond = 1e3, kPcaOffset = 3.0;
constexpr double kQrBound = 30, kVarBound = 1e-10, kMeanBound = 1e-12, kCompBound = 1e-8;
constexpr int kIdWaitS = 120;  // NCCL's own initialisation has no timeout of its own either
constexpr int kGraceS = 15;    // a failed rank's peers may sit in a collective that never ends

extern int g_rank;  // process form: this process's rank, named in its error messages

[[noreturn]] void die(const std::string &what);
void need(bool ok, const std::string &what);
void cuda(cudaError_t e, const char *what);
void blas(cublasStatus_t s, const char *what);
// Where the process goes on (freeing): the failure is reported, not fatal.
void warn(cudaError_t e, const char *what);
void ok(gpusvdHandle_t h, gpusvdStatus_t st);

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

// ------------------------------------------------------------------------------------------
// Data, shared by both forms

std::vector<double> random_matrix(int64_t rows, int64_t cols, uint64_t seed);

// The process form's blocks: the QR's (block * W, cond(W) = cond) and the PCA's.
struct Blocks {
    std::vector<double> qr, pca;
};
Blocks make_blocks(int64_t n, double cond);

void upload(double *d, const std::vector<double> &h, const char *what);
void tile(double *A, int64_t rows, int64_t n, const double *block, int64_t first = 0);

int64_t share_of(int64_t M, int P);
int64_t rows_of(int64_t M, int P, int r);

double median(std::vector<double> t);

std::vector<double> timed(int reps, const std::function<void()> &prepare,
                          const std::function<void()> &call, const std::function<void()> &sync,
                          const char *what);

// ------------------------------------------------------------------------------------------
// One GPU

double one_gpu(int64_t rows, int64_t n, int reps, const double *block, std::vector<double> *R);
double one_gpu_pca(int64_t rows, int64_t n, int reps, const double *block,
                   std::vector<double> *var);
void print_one_gpu_qr(int64_t share, double t_share, int64_t M, double t_whole, double t_dist);
void print_one_gpu_pca(double t_pca, double t_share);

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

Nccl load_nccl();

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

Options parse(int argc, char **argv);

// The forms: dist_threads.cpp, dist_procs.cpp (a rank; the parent that starts them).
int run_threads(const Options &o);
int run_rank(const Options &o);
int run_parent(const Options &o);

}  // namespace dist_bench
