// Usage text of the gpusvd tool.
#include <cstdio>
#include <string>

#include "cli.hpp"

namespace gpusvd_cli {

namespace {

const char *const kGeneral =
    "usage: gpusvd COMMAND [options]\n"
    "\n"
    "Commands:\n"
    "  info                         library version, the backend AUTO picks, build and device\n"
    "  demo  [--backend B]          run every routine on generated data; accuracy table\n"
    "  svd   FILE [--values-only]   economy SVD A = U diag(S) V^T      -> S, U, V\n"
    "  qr    FILE [--mgs|--mgs2]    QR with explicit Q (default mgs2)   -> Q, R\n"
    "  eig   FILE [--vectors]       eigenvalues of a square matrix      -> W = [real, imag], VR\n"
    "  bdsvd FILE [--values-only]   SVD of an upper or lower bidiagonal -> S, U, VT\n"
    "  pca   FILE [-k K]            PCA of the rows (samples)           -> components,\n"
    "                               explained_variance, scores, mean (default K = min(m, n))\n"
    "  help [COMMAND]               this text, or one command's\n"
    "\n"
    "Options of the FILE commands:\n"
    "  --backend auto|cpu|gpu       where to run (default auto)\n"
    "  --single                     compute in float32 (default float64)\n"
    "  --format mm|csv              output format (default mm: Matrix Market array)\n"
    "  -o DIR                       write DIR/NAME.mtx (or .csv) instead of standard output\n"
    "\n"
    "Input FILE ('-' = standard input): a dense Matrix Market array file\n"
    "('%%MatrixMarket matrix array real general', values column by column) or CSV (one row\n"
    "per line, comma-separated). On standard output each result is a block after a\n"
    "'% NAME' line. Numbers are written with full precision (17 digits, 9 with --single).\n"
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
     "Prints the library version, the backend AUTO resolves to on this machine, and the build\n"
     "information (BLAS vendor, CUDA, device).\n"},
    {"demo",
     "usage: gpusvd demo [--backend auto|cpu|gpu]\n"
     "Runs every routine on generated matrices (fixed seeds) and prints one table: routine,\n"
     "size, backend, time, LAPACK accuracy ratios and PASS/FAIL against the thresholds\n"
     "(SVD 50, QR 30, eig 20). Exit status 0 only if every row passes. A routine without a\n"
     "kernel on the chosen backend gets a 'not supported' row, a failure unless the backend\n"
     "is auto.\n"},
    {"svd",
     "usage: gpusvd svd FILE [--values-only] [--backend B] [--single] [--format mm|csv] [-o DIR]\n"
     "Economy SVD by one-sided Jacobi: A (m x n) = U diag(S) V^T, k = min(m, n).\n"
     "Writes S (k x 1, descending), U (m x k) and V (n x k); --values-only: S only.\n"},
    {"qr",
     "usage: gpusvd qr FILE [--mgs|--mgs2] [--backend B] [--single] [--format mm|csv] [-o DIR]\n"
     "QR by Gram-Schmidt (mgs2: reorthogonalised, the default): A = Q R.\n"
     "Writes Q (m x k) and R (k x n, upper, R(j,j) >= 0), k = min(m, n).\n"},
    {"eig",
     "usage: gpusvd eig FILE [--vectors] [--backend B] [--single] [--format mm|csv] [-o DIR]\n"
     "Eigenvalues of a general square matrix (LAPACK dgeev conventions).\n"
     "Writes W (n x 2: real and imaginary parts; complex pairs adjacent, positive imaginary\n"
     "part first) and with --vectors VR (n x n; a pair's columns are the real and imaginary\n"
     "parts of the first eigenvalue's vector).\n"},
    {"bdsvd",
     "usage: gpusvd bdsvd FILE [--values-only] [--backend B] [--single] [--format mm|csv] [-o "
     "DIR]\n"
     "SVD of an n x n bidiagonal matrix given densely; upper or lower is detected (any other\n"
     "nonzero entry is an error). Writes S (n x 1, descending), U and VT (n x n): B = U diag(S) "
     "VT.\n"},
    {"pca",
     "usage: gpusvd pca FILE [-k K] [--backend B] [--single] [--format mm|csv] [-o DIR]\n"
     "PCA of X (m samples in rows x n features), mean-centred, top K components\n"
     "(default K = min(m, n)). Writes components (n x K), explained_variance (K x 1),\n"
     "scores (m x K) and mean (n x 1).\n"},
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
