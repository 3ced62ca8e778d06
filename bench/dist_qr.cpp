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
#include "dist_common.hpp"

using namespace dist_bench;

int main(int argc, char **argv) {
    const Options o = parse(argc, argv);
    if (o.rank >= 0) return run_rank(o);
    if (o.processes > 0) return run_parent(o);
    return run_threads(o);
}
