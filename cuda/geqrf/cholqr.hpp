// Kernels of the tall QR (cuda/geqrf/tall.cpp): the small per-step Cholesky factorisation of a
// Gram matrix, the closing pass over R, and the rare-path helpers (screening, scaling, NaN
// fill). All launched on `stream`, no synchronisation.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "geqrf/matrix_ld.hpp"

namespace gpusvd {
namespace gpu {

/// What one CholeskyQR step found, read by the host after the step (one sync per step).
struct CholStepFlags {
    int bad;        // Gram matrix non-finite or out of the safe range (unscreened first step):
                    // the step's factor is the identity, so the panel is left as it was
    int shifted;    // another step is needed: the unshifted Cholesky broke down (the shifted
                    // one was used), or a later step left a dropped column unnormalised
    int dead;       // columns found vanished by this step: an exactly zero Gram diagonal, or
                    // (after the first step) one below eps^2 of the largest
    int dropped;    // columns left unnormalised this step (a pivot at rounding level)
    float offdiag;  // ||G~ - I||_F of the column-scaled Gram matrix: <= 0.5 means the step's
                    // input was well conditioned, so its output is orthonormal to O(eps)
};

/// The steps' loop control on the device, written by each step: what the host decides from the
/// flags, for the graph path, where the loop is a conditional node (tall.cpp).
struct CholStepCtl {
    int step;     // steps done on the current panel (zeroed per panel)
    int cont;     // another step is needed and allowed
    int rankdef;  // a step found vanished or dropped columns (kept over the panels)
};

/// Widest panel one Cholesky step handles (one thread block).
constexpr int kCholPanel = 256;

/// Bytes of scratch a step needs beyond shared memory (0 when w x w fits in it).
template <class T>
size_t chol_step_scratch_bytes(int w);

/// One step on the w x w Gram matrix G (upper triangle, ld w): factor G (+ shift if needed) =
/// Rs^T Rs, write Rs (w x w, ld w, lower part zero), and S <- Rs (first step) or S <- Rs * S.
/// m: rows of the panel (sizes the shift). The step number is ctl->step (advanced by the step;
/// the first is 0, the last allowed max_steps - 1). First && !screened: a zero or out-of-range
/// diagonal is `bad` (the caller screens and scales the matrix, then repeats); otherwise a zero
/// diagonal marks the column dead (dead[j] = 1, Rs row j = e_j): the caller zeroes dead columns
/// of W after the solve. After the first step a diagonal below eps^2 of the largest is dead too,
/// and a pivot at rounding level leaves the column's residual unnormalised (see cholqr.cu),
/// except on the last step allowed, where such a column is given up as dead.
template <class T>
cudaError_t chol_step(const T *G, int w, int64_t m, int max_steps, bool screened, T *Rs, T *S,
                      int64_t lds, int *dead, CholStepFlags *flags, CholStepCtl *ctl,
                      void *scratch, cudaStream_t stream);

/// Widest panel solve_right_upper takes (a row of W in one thread's registers).
constexpr int kSolveRowsMax = 64;

/// Widest panel solve_right_upper takes for element type T: a row of at most 64 doubles' worth
/// of registers (32 columns of double complex), beyond which it would spill.
template <class T>
constexpr int solve_rows_max() {
    return sizeof(T) <= sizeof(double) ? kSolveRowsMax : kSolveRowsMax / 2;
}

/// W <- W Rs^-1 for W m x w (ldw: either layout), w <= solve_rows_max<T>(), Rs upper
/// triangular (ld ldr; its strict lower part is not read): each row solved by forward
/// substitution as the reference DTRSM does, so the solve is row-wise backward stable.
/// solve_rows.cu.
template <class T>
cudaError_t solve_right_upper(int64_t m, int w, const T *Rs, int64_t ldr, T *W, MatLd ldw,
                              cudaStream_t stream);

/// W(:, j) = 0 for every j < w with dead[j] (columns dropped by a Cholesky step).
template <class T>
cudaError_t zero_dead_columns(int64_t m, int w, T *W, MatLd ldw, const int *dead,
                              cudaStream_t stream);

/// G (upper triangle of w x w) = sum of `parts` partial Gram matrices P[b] (w x w each, packed).
template <class T>
cudaError_t sum_partials(int w, int parts, const T *P, T *G, cudaStream_t stream);

/// Closing pass over R (k x n part, ld ldr): strict lower part of the first k columns zeroed;
/// a dead column or one with R(j,j) <= m eps ||R(0:j,j)|| gets R(j,j) = 0; *info = first such
/// column (1-based) or 0; column j of R scaled by 2^-exps[j] when exps is not null.
template <class T>
cudaError_t finish_r(int64_t m, int64_t k, T *R, int64_t ldr, const int *dead, const int *exps,
                     int *info, cudaStream_t stream);

/// Column max-abs (as bit patterns, atomicMax) and a non-finite flag over A (m x n, either
/// layout: a row-major A is read through shared-memory tiles, geqrf/tile.cuh).
/// amax_bits[n] and *nonfinite must be zeroed by the caller.
template <class T>
cudaError_t screen(int64_t m, int64_t n, const T *A, MatLd lda, unsigned long long *amax_bits,
                   int *nonfinite, cudaStream_t stream);

/// exps[j] = -exponent(amax_j) (0 for a zero column); A(:, j) *= 2^exps[j].
template <class T>
cudaError_t scale_columns(int64_t m, int64_t n, T *A, MatLd lda,
                          const unsigned long long *amax_bits, int *exps, cudaStream_t stream);

/// A(0:m, 0:k) and R(0:k, 0:n) set to NaN, *info = GPUSVD_INFO_NONFINITE; only if *gate != 0
/// when gate is not null.
template <class T>
cudaError_t fill_nonfinite(int64_t m, int64_t k, int64_t n, T *A, MatLd lda, T *R, MatLd ldr,
                           int *info, const int *gate, cudaStream_t stream);

/// B = A (rows x cols), each in its own layout: a transposing copy when they differ, through
/// shared-memory tiles (geqrf/tile.cuh) so both sides are coalesced.
template <class T>
cudaError_t copy_matrix(int64_t rows, int64_t cols, const T *A, MatLd lda, T *B, MatLd ldb,
                        cudaStream_t stream);

}  // namespace gpu
}  // namespace gpusvd
