#include "geqrf/gram.hpp"

#include <algorithm>

#include "common/cublas.hpp"
#include "common/runtime.hpp"
#include "geqrf/cholqr.hpp"
#include "kernels/complex.hpp"

namespace gpusvd {
namespace gpu {
namespace {

constexpr int64_t kGramParts = 256;    // chunks: about two per SM on an H100/H200
constexpr int64_t kGramMinRows = 512;  // below this a chunk is mostly overhead
constexpr size_t kGramPartialBytes = size_t(32) << 20;

// The row chunks of an m x w matrix: `full` of `rows` rows and the rest (rem rows).
struct Chunks {
    int64_t rows, full, rem;
};

template <class T>
Chunks chunks(int64_t m, int w) {
    const size_t per = size_t(w) * size_t(w) * sizeof(T);
    const int64_t cap =
        std::max<int64_t>(1, std::min<int64_t>(kGramParts, int64_t(kGramPartialBytes / per)));
    const int64_t rows = std::max(kGramMinRows, (m + cap - 1) / cap);
    return {rows, m / rows, m - (m / rows) * rows};
}

}  // namespace

template <class T>
int64_t gram_partials_elements(int64_t m, int w) {
    const Chunks c = chunks<T>(m, w);
    return c.full <= 1 ? 0 : int64_t(w) * w * (c.full + (c.rem > 0));
}

template <class T>
gpusvdStatus_t gram_upper(gpusvdHandle_t h, const char *routine, cublasHandle_t b, int64_t m,
                          int w, const T *W, MatLd ldw, T *P, T *G, cudaStream_t stream) {
    const Chunks c = chunks<T>(m, w);
    const int64_t rows = c.rows, full = c.full, rem = c.rem;
    // A row-major W is the column-major W^T (w x m): the same products with the operations
    // swapped, G = W^T (W^T)^T, and row chunks rows*ld apart (real T only: the tall QR takes
    // complex matrices column-major). Complex: G = W^H W, Hermitian.
    const cublasOperation_t tr = kernels::kIsComplex<T> ? CUBLAS_OP_C : CUBLAS_OP_T;
    const cublasOperation_t ta = ldw.row ? CUBLAS_OP_N : tr;
    const cublasOperation_t tb = ldw.row ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int64_t ld = ldw.ld, chunk = ldw.row_at(rows);
    if (full <= 1) {
        const cublasStatus_t s =
            blas::syrk<T>(b, CUBLAS_FILL_MODE_UPPER, ta, w, m, T(1), W, ld, T(0), G, w);
        return s == CUBLAS_STATUS_SUCCESS ? GPUSVD_STATUS_SUCCESS
                                          : blas_fail(h, routine, "SYRK W^H W", s);
    }
    const int64_t ww = int64_t(w) * w;
    cublasStatus_t s = blas::gemm_strided<T>(b, ta, tb, w, w, rows, W, ld, chunk, W, ld, chunk, P,
                                             w, ww, full);
    if (s != CUBLAS_STATUS_SUCCESS) return blas_fail(h, routine, "batched GEMM W^T W", s);
    if (rem > 0) {
        const T *last = W + full * chunk;
        s = blas::gemm<T>(b, ta, tb, w, w, rem, T(1), last, ld, last, ld, T(0), P + full * ww, w);
        if (s != CUBLAS_STATUS_SUCCESS) return blas_fail(h, routine, "GEMM W^T W (last rows)", s);
    }
    const cudaError_t e = sum_partials<T>(w, static_cast<int>(full + (rem > 0)), P, G, stream);
    return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                            : cuda_fail(h, routine, "summing Gram matrices", e);
}

#define GPUSVD_INSTANTIATE(T)                                                                   \
    template int64_t gram_partials_elements<T>(int64_t, int);                                   \
    template gpusvdStatus_t gram_upper<T>(gpusvdHandle_t, const char *, cublasHandle_t, int64_t, \
                                          int, const T *, MatLd, T *, T *, cudaStream_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
