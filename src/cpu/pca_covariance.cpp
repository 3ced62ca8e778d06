// PCA by the covariance method: column means (pca_common.hpp), the Gram matrix Xc^T Xc of the
// centred data, its eigendecomposition, components and variances from the eigenpairs, scores =
// Xc C. The centred data is never stored whole: each block of rows is centred into a buffer that
// stays in cache for the ?syrk (or the scores' ?gemm) that reads it, so the data is read twice
// (three times with scores) and the workspace does not grow with m.
#include <algorithm>
#include <limits>

#include "cpu/batch.hpp"
#include "cpu/common.hpp"
#include "cpu/lapack.hpp"
#include "cpu/openblas.hpp"
#include "cpu/pca.hpp"
#include "cpu/pca_common.hpp"
#include "cpu/thread_pool.hpp"

namespace gpusvd::cpu {

namespace {

// Rows per block: a block of the centred data (rows x n) of about 128 KiB stays in a core's L2
// cache between the centring that writes it and the BLAS call that reads it.
template <class T>
int64_t block_rows(int64_t m, int64_t n) {
    const int64_t r = (int64_t(1) << 17) / (n * static_cast<int64_t>(sizeof(T)));
    return std::min(m, std::clamp<int64_t>(r / 8 * 8, 256, 4096));
}

// The blocks are dealt in order to a fixed number of partitions, each summing its own Gram
// matrix, and the partial matrices are added in a fixed order: the result does not depend on
// how many threads ran. Where the partial matrices would be large (and one SYRK has enough
// columns for OpenBLAS's own threads), one partition.
constexpr int64_t kPartitions = 16;
constexpr size_t kPartialBytes = size_t(2) << 20;

template <class T>
int64_t partitions(int64_t blocks, int64_t n) {
    if (static_cast<size_t>(n) * static_cast<size_t>(n) * sizeof(T) > kPartialBytes) return 1;
    return std::min(kPartitions, blocks);
}

// Threads of ours over the partitions (each with a block buffer), OpenBLAS single-threaded
// inside; one (and OpenBLAS's threads) for a single partition or on a pool worker.
inline int64_t worker_slots(int64_t parts) {
    return in_pool_worker() ? 1 : std::min<int64_t>(parts, hardware_threads());
}

// ?syevr computes the top k eigenpairs alone (bisection and inverse iteration) for about half
// the time of ?syevd's full decomposition when k is at most an eighth of n; past that, the
// divide and conquer of all of them is as fast or faster.
inline bool top_k_only(int64_t n, int64_t k) { return k > 0 && 8 * k <= n; }

template <class T>
struct CovWork {
    int64_t rows, blocks, parts, slots;  // rows per block
    bool top;                            // ?syevr for the top k, else ?syevd
    T *mean, *gram, *buf, *w, *z, *lapack;
    double *acc;  // column sums of row-major data
    lapack_int *iwork, *isuppz;
    lapack_int lwork, liwork;
};

template <class T>
CovWork<T> layout(Bump &b, int64_t m, int64_t n, int64_t k) {
    CovWork<T> w;
    w.rows = block_rows<T>(m, n);
    w.blocks = m / w.rows + (m % w.rows != 0);  // m + rows - 1 may overflow (m near 2^63)
    w.parts = partitions<T>(w.blocks, n);
    w.slots = worker_slots(w.parts);
    w.top = top_k_only(n, k);
    const lapack_int ni = static_cast<lapack_int>(n), ki = static_cast<lapack_int>(k);
    T q = 0, dummy = 0;
    lapack_int iq = 0, idummy = 0, found = 0;
    if (w.top)
        lapack::syevr('U', ni, &dummy, ni, ni - ki + 1, ni, &found, &dummy, &dummy, ni, &idummy, &q,
                      -1, &iq, -1);
    else
        lapack::syevd('U', ni, &dummy, ni, &dummy, &q, -1, &iq, -1);
    w.lwork = lapack::query_size(q);
    w.liwork = std::max<lapack_int>(iq, 1);
    w.mean = b.take<T>(n);
    w.acc = b.take<double>(n);
    w.gram = b.take<T>(w.parts * n * n);  // partition 0 ends up holding the sum
    w.buf = b.take<T>(w.slots * w.rows * n);
    w.w = b.take<T>(n);
    w.z = b.take<T>(w.top ? n * k : 0);
    w.isuppz = b.take<lapack_int>(w.top ? 2 * k : 0);
    w.lapack = b.take<T>(w.lwork);
    w.iwork = b.take<lapack_int>(w.liwork);
    return w;
}

// Calls f(i, slot) for i in [0, count) on up to `slots` threads, OpenBLAS single-threaded while
// more than one runs. Where the system refuses the threads or OpenBLAS's buffers, the calling
// thread does it all (the entry point's plan already made sure one BLAS call can run).
template <class F>
void on_threads(int64_t count, int64_t slots, F &&f) {
    int threads = 1;
    bool single = false;
    if (slots > 1) {
        const BatchPlan p = plan_batch(slots, static_cast<int>(slots));
        if (!p.refused) threads = p.threads, single = p.blas_single;
    }
    BlasSingleThreaded guard(threads > 1 && single);
    parallel_for(count, threads, 1, f);
}

}  // namespace

template <class T>
size_t pca_covariance_bytes(int64_t m, int64_t n, int64_t k) {
    Bump b;
    layout<T>(b, m, n, k);
    return b.bytes();
}

template <class T>
int pca_covariance(int64_t m, int64_t n, const T *X, int64_t ldx, int64_t k, T *components,
                   int64_t ldc, T *variance, T *scores, int64_t lds, T *mean, void *work,
                   bool row_major, double *total) {
    Bump b(work);
    const CovWork<T> w = layout<T>(b, m, n, k);
    const int ni = static_cast<int>(n);

    // The range as for the QR method (pca.cpp): squares of data inside it stay normal with room
    // for eps, so the Gram matrix neither overflows nor loses its small entries to underflow
    // below the rounding error it carries anyway.
    // Row-major data (element (i,j) at i*ldx + j) is read by rows throughout: its blocks of rows
    // are contiguous, so it is centred into the block buffers as column-major data is.
    auto means = [&](const RangeScale<T> &r, T *amax) {
        return row_major
                   ? pca_detail::column_means_row_major(m, n, X, ldx, r, w.mean, amax, w.acc)
                   : pca_detail::column_means(m, n, X, ldx, r, w.mean, amax);
    };
    RangeScale<T> range;
    T amax = 0;
    *total = std::numeric_limits<double>::quiet_NaN();
    if (!means(range, &amax))
        return pca_detail::nonfinite_outputs(m, n, k, components, ldc, variance, scores, lds, mean,
                                             row_major);
    range = RangeScale<T>::of(amax);
    if (range.active()) means(range, &amax);

    // Gram matrix, upper triangle: one per partition, then their sum in partition 0.
    const int64_t nn = n * n;
    auto gram_part = [&](int64_t part, int slot) {
        T *G = w.gram + part * nn, *buf = w.buf + slot * w.rows * n;
        const int64_t b0 = w.blocks * part / w.parts, b1 = w.blocks * (part + 1) / w.parts;
        for (int64_t blk = b0; blk < b1; ++blk) {
            const int64_t r0 = blk * w.rows, r1 = std::min(m, r0 + w.rows);
            const int rows = static_cast<int>(r1 - r0);
            pca_detail::centre_rows(r0, r1, n, X, ldx, range, w.mean, buf, rows, row_major);
            lapack::syrk_upper_t(ni, rows, T(1), buf, rows, blk == b0 ? T(0) : T(1), G, ni);
        }
    };
    on_threads(w.parts, w.slots, gram_part);
    for (int64_t p = 1; p < w.parts; ++p)
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i <= j; ++i) w.gram[i + j * n] += w.gram[p * nn + i + j * n];

    // The trace of the Gram matrix is ||Xc||_F^2 (before the eigensolver overwrites it).
    double trace = 0;
    for (int64_t j = 0; j < n; ++j) trace += double(w.gram[j + j * n]);
    *total = double(range.undo(static_cast<T>(trace / double(m - 1)), 2));

    // Eigenpairs, ascending: the top k alone, or all of them (vectors in place).
    lapack_int info, found = 0;
    if (w.top)
        info = lapack::syevr('U', ni, w.gram, ni, static_cast<lapack_int>(n - k + 1), ni, &found,
                             w.w, w.z, ni, w.isuppz, w.lapack, w.lwork, w.iwork, w.liwork);
    else
        info = lapack::syevd('U', ni, w.gram, ni, w.w, w.lapack, w.lwork, w.iwork, w.liwork);
    if (info < 0) return kLapackArgumentError;
    if (mean)
        for (int64_t j = 0; j < n; ++j) mean[j] = range.undo(w.mean[j]);

    // Largest first. An eigenvalue below zero is rounding error of a zero variance.
    const T *vectors = w.top ? w.z : w.gram;
    const int64_t last = w.top ? k - 1 : n - 1;
    const int64_t cstep = row_major ? 1 : ldc, cinc = row_major ? ldc : 1;
    for (int64_t j = 0; j < k; ++j) {
        pca_detail::signed_component(n, vectors + (last - j) * n, 1, components + j * cstep, cinc);
        const T lambda = std::max(w.w[last - j], T(0));
        variance[j] = range.undo(lambda / static_cast<T>(m - 1), 2);
    }
    if (scores) {
        const int ki = static_cast<int>(k), ldsi = static_cast<int>(lds),
                  ldci = static_cast<int>(ldc);
        auto score_block = [&](int64_t blk, int slot) {
            T *buf = w.buf + slot * w.rows * n;
            const int64_t r0 = blk * w.rows, r1 = std::min(m, r0 + w.rows);
            const int rows = static_cast<int>(r1 - r0);
            pca_detail::centre_rows(r0, r1, n, X, ldx, range, w.mean, buf, rows, row_major);
            lapack::gemm_layout(false, row_major, row_major, rows, ki, ni, buf, rows, components,
                                ldci, scores + (row_major ? r0 * lds : r0), ldsi);
        };
        on_threads(w.blocks, w.slots, score_block);
        if (row_major)
            range.undo(k, m, scores, lds);
        else
            range.undo(m, k, scores, lds);
    }
    return lapack_info(info);
}

#define GPUSVD_INSTANTIATE(T)                                                                   \
    template size_t pca_covariance_bytes<T>(int64_t, int64_t, int64_t);                         \
    template int pca_covariance<T>(int64_t, int64_t, const T *, int64_t, int64_t, T *, int64_t, \
                                   T *, T *, int64_t, T *, void *, bool, double *);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpusvd::cpu
