// Usage text of the gpusvd tool.
#include <cstdio>
#include <string>

#include "cli.hpp"

namespace gpusvd_cli {

namespace {

const char *const kGeneral =
    "usage: gpusvd COMMAND [options]\n"
    "\n"
    "Commands (-> their results; standard output gets the first unless --only picks another):\n"
    "  info                         version, build, and why a GPU is or is not used\n"
    "  demo  [--backend B]          run every routine on generated data; accuracy table\n"
    "  svd   FILE [--values-only]   economy SVD A = U diag(S) V^T      -> S, U, V\n"
    "  qr    FILE [--mgs|--mgs2]    QR with explicit Q (default mgs2)   -> R, Q\n"
    "  eig   FILE [--vectors]       eigenvalues of square matrices      -> W, VR\n"
    "  bdsvd FILE [--values-only]   SVD of an upper or lower bidiagonal -> S, U, VT\n"
    "  pca   FILE [-k K] [--standardize]  PCA of the rows (samples)    -> explained_variance,\n"
    "                               explained_variance_ratio, total_variance, components,\n"
    "                               scores, mean (and scale)\n"
    "  help [COMMAND]               this text, or one command's (result shapes, summary)\n"
    "\n"
    "Input FILE ('-' = standard input), recognised by its content:\n"
    "  .npy           2-D array; 3-D (batch, m, n) = a batch of matrices for svd, qr and eig,\n"
    "                 which then run the batched routines; 1-D = one column. float64, float32\n"
    "                 and float16 (computed in float32 unless --double), integers and bool\n"
    "                 (computed in float64); either byte order, C or Fortran order.\n"
    "  Matrix Market  '%%MatrixMarket matrix array real general' (or symmetric,\n"
    "                 skew-symmetric; real, double or integer), dense, column by column.\n"
    "  text           one row per line, fields separated by commas, tabs, semicolons or\n"
    "                 blanks (whichever the first row uses; numpy.savetxt's default works).\n"
    "                 '#' starts a comment. A first row with no number in it is a header of\n"
    "                 column names and is skipped (--header: the first row is one even if\n"
    "                 numeric). Under a header, the first column is taken as row labels and\n"
    "                 skipped when the header leaves its name empty, has one name fewer than\n"
    "                 the rows have fields, or the first row has text there, numbers elsewhere.\n"
    "\n"
    "Output:\n"
    "  --format mm|csv|npy          default: the input's (csv for text input, and for .npy\n"
    "                               input when standard output is a terminal)\n"
    "  -o DIR                       write each result to DIR/NAME.mtx, .csv or .npy; one line\n"
    "                               per file on stderr ('wrote DIR/S.npy (2,) float64')\n"
    "  --only NAME[,NAME...]        write only these results\n"
    "  Without -o, standard output holds exactly one result and nothing else: the one --only\n"
    "  names, else the command's first result above; the summary says which were left out.\n"
    "  At a terminal, without --only or -q, a result of more than 100 values is not shown.\n"
    "  It reads back with numpy.loadtxt(f, delimiter=',') (csv), scipy.io.mmread (mm),\n"
    "  numpy.load (npy), and as input of this tool. A vector is one column in csv and mm,\n"
    "  1-D in npy; a batch's 3-D results need --format npy. Numbers carry 17 significant\n"
    "  digits (9 in float32), enough to round-trip.\n"
    "\n"
    "Summary: after the results, a few lines on stderr: input shape, precision, backend (and\n"
    "GPU), compute time, and what the results say (svd: largest and smallest singular value,\n"
    "condition number, numerical rank; eig: spectral abscissa and eigenvalues with positive\n"
    "real part; pca: variance ratio and cumulative ratio per component; qr: R's diagonal).\n"
    "It is always printed unless -q, whether or not a terminal is attached: standard output\n"
    "never holds it. -v adds how the input was read and the read/compute/write times. The\n"
    "compute time is that of the library call; on a GPU it includes the CUDA start-up.\n"
    "\n"
    "Other options: --backend auto|cpu|gpu (default auto); --single | --double (the precision\n"
    "to compute in; default float64, float32 for float32 .npy input); -q; -v.\n"
    "\n"
    "Exit status: 0 success; 1 a library call failed; 2 bad command line or input file;\n"
    "3 results written but a routine reported a non-zero info (warning on stderr).\n"
    "Other: gpusvd --version, gpusvd --help.\n";

struct CommandHelp {
    const char *name;
    const char *text;
};

const CommandHelp kCommandHelp[] = {
    {"info",
     "usage: gpusvd info\n"
     "Prints the library version, the backend AUTO resolves to on this machine, the build\n"
     "(BLAS vendor, CUDA) and the GPU used, or why none is: no NVIDIA driver installed\n"
     "(libcuda.so.1 cannot be loaded), a driver too old for the CUDA runtime gpusvd was\n"
     "built with, a driver that finds no device, or a build without the CUDA backend.\n"},
    {"demo",
     "usage: gpusvd demo [--backend auto|cpu|gpu]\n"
     "Runs every routine on generated matrices (fixed seeds) and prints one table: routine,\n"
     "size, backend, time, LAPACK accuracy ratios and PASS/FAIL against the thresholds\n"
     "(SVD 50, QR 30, eig 20). Exit status 0 only if every row passes. A routine without a\n"
     "kernel on the chosen backend gets a 'not supported' row, a failure unless the backend\n"
     "is auto.\n"},
    {"svd",
     "usage: gpusvd svd FILE [--values-only] [--only S|U|V] [-o DIR] [--format mm|csv|npy]\n"
     "                  [--backend B] [--single|--double] [-q|-v]\n"
     "Economy SVD by one-sided Jacobi: A (m x n) = U diag(S) V^T, k = min(m, n).\n"
     "Results: S (k,) descending, U (m, k), V (n, k). A 3-D .npy (batch, m, n) runs\n"
     "gpusvd_?gesvj_batched: S (batch, k), U (batch, m, k), V (batch, n, k).\n"
     "Standard output gets S unless --only picks U or V; -o DIR writes all three.\n"
     "--values-only: S only (U and V are not computed; neither are they when not written).\n"
     "Layout: as gpusvd.svd / svd_batched in Python, except that V is written, not\n"
     "Vh = V^T (numpy.linalg.svd and scipy return Vh).\n"
     "Summary: largest and smallest singular value, condition number S[0]/S[k-1], numerical\n"
     "rank (values above max(m, n) * eps * S[0], numpy.linalg.matrix_rank's rule); for a\n"
     "batch their extremes, with the index (0-based) of the matrix.\n"},
    {"qr",
     "usage: gpusvd qr FILE [--mgs|--mgs2] [--only Q|R] [-o DIR] [--format mm|csv|npy]\n"
     "                 [--backend B] [--single|--double] [-q|-v]\n"
     "QR by Gram-Schmidt (mgs2: reorthogonalised, the default): A = Q R, k = min(m, n).\n"
     "Results: R (k, n) upper, R(j,j) >= 0, and Q (m, k). A 3-D .npy (batch, m, n) runs\n"
     "gpusvd_?geqrf_mgs_batched: R (batch, k, n), Q (batch, m, k).\n"
     "Standard output gets R unless --only Q; -o DIR writes both. Layout as gpusvd.qr.\n"
     "Summary: largest and smallest |R(j,j)| and their ratio (for m >= n a lower bound on the\n"
     "condition number), the first dependent column.\n"},
    {"eig",
     "usage: gpusvd eig FILE [--vectors] [--only W|VR] [-o DIR] [--format mm|csv|npy]\n"
     "                  [--backend B] [--single|--double] [-q|-v]\n"
     "Eigenvalues of general square matrices (gpusvd_?geev_batched, LAPACK dgeev\n"
     "conventions). Results: W (n, 2): real and imaginary parts, complex pairs adjacent,\n"
     "positive imaginary part first; with --vectors (or --only VR) VR (n, n): for a pair,\n"
     "columns j and j+1 are the real and imaginary parts of the first eigenvalue's vector.\n"
     "A 3-D .npy (batch, n, n) is one call for the whole batch: W (batch, n, 2),\n"
     "VR (batch, n, n).\n"
     "Standard output gets W; --vectors needs -o DIR (or --only VR).\n"
     "Layout: gpusvd.eig_batched in Python returns complex arrays; here W holds real and\n"
     "imaginary parts in its last axis and VR is LAPACK's real layout.\n"
     "Summary: spectral abscissa (largest real part), how many eigenvalues have a positive\n"
     "real part, spectral radius; for a batch: the largest and smallest abscissa and how many\n"
     "matrices have an eigenvalue with positive real part (the unstable ones).\n"},
    {"bdsvd",
     "usage: gpusvd bdsvd FILE [--values-only] [--only S|U|VT] [-o DIR] [--format mm|csv|npy]\n"
     "                    [--backend B] [--single|--double] [-q|-v]\n"
     "SVD of an n x n bidiagonal matrix given densely; upper or lower is detected (any other\n"
     "nonzero entry is an error). Results: S (n,) descending, U and VT (n, n):\n"
     "B = U diag(S) VT. Standard output gets S; -o DIR writes all three.\n"
     "Summary: as for svd.\n"},
    {"pca",
     "usage: gpusvd pca FILE [-k K] [--standardize] [--only NAME,...] [-o DIR]\n"
     "                  [--format mm|csv|npy] [--backend B] [--single|--double] [-q|-v]\n"
     "PCA of X (m samples in rows x n features), mean-centred, top K components (default\n"
     "K = min(m, n)). Results:\n"
     "  explained_variance (K,)        sigma_j^2 / (m - 1), descending\n"
     "  explained_variance_ratio (K,)  explained_variance / total_variance\n"
     "  total_variance ()              sum of the features' variances (divisor m - 1): what\n"
     "                                 all components together explain, also for K < min(m, n)\n"
     "                                 (1 x 1 in csv and mm)\n"
     "  components (n, K)              principal axes as columns\n"
     "  scores (m, K)                  centred (and scaled) X times components\n"
     "  mean (n,)                      the features' means\n"
     "  scale (n,)                     with --standardize: the standard deviations divided by\n"
     "Standard output gets explained_variance unless --only picks another; -o DIR writes all.\n"
     "--standardize divides each centred feature by its sample standard deviation (divisor\n"
     "m - 1, as R's prcomp(scale. = TRUE); a constant feature keeps scale 1), i.e. PCA of the\n"
     "correlation matrix; total_variance is then the number of non-constant features.\n"
     "Layout: gpusvd.pca in Python (and scikit-learn) give components as rows (K, n); here\n"
     "they are columns (n, K).\n"
     "Summary: total variance and a table of variance, ratio and cumulative ratio per\n"
     "component.\n"},
};

}  // namespace

void print_usage(const std::string &command, bool to_stderr) {
    std::FILE *f = to_stderr ? stderr : stdout;
    for (const CommandHelp &c : kCommandHelp)
        if (command == c.name) {
            std::fputs(c.text, f);
            return;
        }
    if (!command.empty()) std::fprintf(f, "unknown command '%s'\n\n", command.c_str());
    std::fputs(kGeneral, f);
}

}  // namespace gpusvd_cli
