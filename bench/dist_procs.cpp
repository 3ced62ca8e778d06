// The process form of gpusvd-bench-dist: one rank per process and GPU (NCCL id through a file,
// the QR and PCA checked at full size), and the parent that starts the ranks and waits for them.
#include <cublas_v2.h>
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
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "dist_common.hpp"

extern char **environ;

namespace dist_bench {

namespace {

// NaN wins, so a check cannot pass on NaN.
double worst(double a, double b) {
    return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN()
                                          : std::max(a, b);
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

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace dist_bench
