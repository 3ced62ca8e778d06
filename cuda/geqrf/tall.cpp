// The tall QR: A = QR for one matrix with many more rows than columns (m up to 1e7, n up to a
// few hundred), where Householder QR with an explicit Q (geqrf + orgqr) leaves the GPU idle.
//
// One CholeskyQR step on a panel W (m x w): G = W^T W (batched GEMM over row chunks), G = Rs^T Rs
// (one block, cholqr.cu), W <- W Rs^-1 (a thread per row, solve_rows.cu; cuBLAS's TRSM past 64
// columns; in place, row-wise backward stable so |A - QR| stays at eps |A| whatever cond(A)). A
// step's output is orthonormal to O(eps cond(W)^2), so steps repeat until a step's input was
// already orthonormal to 0.5 (||G~ - I||_F <= 0.5 on the column-scaled Gram matrix): the step after
// that delivers O(eps). A random or well-conditioned W needs one step, cond up to ~1e7 two
// (CholQR2), beyond that the unshifted Cholesky breaks down and the shifted one (G + s I, s ~ the
// Gram matrix's rounding error) is used: three to four steps up to cond 1e15 in double. Each step
// reads W once for the Gram matrix and reads and writes it once for the solve; the host waits once
// per step for 16 bytes of flags (after the solve is enqueued, so the GPU does not idle).
//
// Wider matrices go in panels of kCholPanel columns: each panel is projected out of the Q before
// it twice (BCGS2: C1 = Q^T P, P -= Q C1, panel QR, C2 = Q^T P, P -= Q C2, panel QR), all GEMMs.
//
// Rare paths: a Gram matrix with NaN/Inf or a diagonal that may have over- or underflowed sends
// the matrix through a screen (NaN/Inf -> GPUSVD_INFO_NONFINITE and NaN outputs) and exact
// power-of-two column scaling, then the steps again. A step that finds vanished or dropped
// columns sends the matrix to the batched kernel's Gram-Schmidt (rank_deficient below).
// Dependent columns (R(j,j) <= m eps ||a_j||) get R(j,j) = 0 and info = the first of them.
//
// Inside a CUDA graph capture the host cannot read the flags (the graph is replayed on other
// data), so the call takes a fixed plan decided on the device: screen and scale first, each
// panel's steps as a while node (the step kernel writes the loop condition), the rank-deficient
// rebuild as an if node, the NaN fill gated on the screen's flag.
//
// Row-major A (gpusvdSetMatrixLayout) is factored in place by the same steps: it is the
// column-major A^T, so its Gram matrices and projections are the same GEMMs with the operations
// swapped, and the row solve reads each row contiguously. R is formed column-major in the
// workspace and transposed out at the end (k x n, small next to A). The rank-deficient rebuild,
// rare, transposes A into the workspace for the batched kernel (column-major only) and back.
//
// Complex A (kernels::Complex, column-major only): the same steps with the Hermitian Gram matrix
// A^H A (?herk / ?gemm with CUBLAS_OP_C), projections Q^H P, and a Cholesky factor with a real
// diagonal, so R(j,j) comes out real and non-negative. The row solve holds 32 double complex
// columns at most (solve_rows_max): panels up to twice that are solved in two column blocks,
// wider ones by cuBLAS's TRSM.
#include "geqrf/tall.hpp"

#include <algorithm>
#include <cstring>

#include "common/collective.hpp"
#include "common/cublas.hpp"
#include "common/graph.hpp"
#include "common/runtime.hpp"
#include "geqrf/cholqr.hpp"
#include "geqrf/geqrf.hpp"
#include "geqrf/gram.hpp"
#include "kernels/complex.hpp"
#include "workspace.hpp"

namespace gpusvd {
namespace gpu {
namespace {

// cond 1e15 in double needs 4 steps; a rank-deficient panel resolves its rounding-level columns
// over a few more. The last step gives up the columns still unresolved (the rank-deficient path).
constexpr int kMaxSteps = 12;

// Reals per element: a sum of complex elements is all-reduced as the sums of their parts.
template <class T>
constexpr int64_t kRealsPer = kernels::kIsComplex<T> ? 2 : 1;

template <class T>
struct Layout {
    T *G, *P, *Rs, *S1, *S2, *C1, *C2, *cvec, *nrm;
    void *scratch, *team;
    int *dead, *exps, *nonfinite;
    unsigned long long *amax;
    CholStepFlags *flags;
    CholStepCtl *ctl;
    void *blas_ws;  // cuBLAS's workspace on the graph path (kBlasGraphWorkspace)
    T *Rw, *Acol;   // row-major A: R column-major, and A's column-major copy for the rebuild
    size_t bytes;
};

template <class T>
Layout<T> layout(void *base, int64_t m, int64_t n, bool row_major) {
    const int64_t k = std::min(m, n);
    const int w = static_cast<int>(std::min<int64_t>(k, kCholPanel));
    const int64_t ww = int64_t(w) * w;
    Bump b(base);
    Layout<T> L{};
    L.G = b.take<T>(ww);
    L.P = b.take<T>(gram_partials_elements<T>(m, w));  // narrower panels need no more
    L.Rs = b.take<T>(ww);
    L.S1 = b.take<T>(ww);
    L.S2 = b.take<T>(ww);
    L.C1 = b.take<T>(k > w ? k * w : 0);
    L.C2 = b.take<T>(k > w ? k * w : 0);
    L.cvec = b.take<T>(k);
    L.nrm = b.take<T>(1);
    L.scratch = b.take_bytes(chol_step_scratch_bytes<T>(w));
    L.dead = b.take<int>(n);
    L.exps = b.take<int>(n);
    L.nonfinite = b.take<int>(1);
    L.amax = b.take<unsigned long long>(n);
    L.flags = b.take<CholStepFlags>(1);
    L.ctl = b.take<CholStepCtl>(1);
    L.blas_ws = b.take_bytes(kBlasGraphWorkspace);
    L.team = b.take_bytes(geqrf_batched_workspace_bytes<T>(m, n, 1));
    L.Rw = b.take<T>(row_major ? k * n : 0);
    L.Acol = b.take<T>(row_major ? m * n : 0);
    L.bytes = b.bytes();
    return L;
}

template <class T>
class TallQr {
public:
    TallQr(gpusvdHandle_t h, const char *routine, bool reorth, bool q_optional, bool graph,
           cudaStream_t st, int64_t m, int64_t n, T *A, MatLd lda, T *R, int64_t ldr, int *info,
           const Layout<T> &L)
        : h_(h),
          routine_(routine),
          reorth_(reorth),
          q_optional_(q_optional),
          graph_(graph),
          st_(st),
          m_(m),
          n_(n),
          k_(std::min(m, n)),
          A_(A),
          lda_(lda),
          R_(R),
          ldr_(ldr),
          info_(info),
          L_(L) {}

    /// false: A was left as it was (q_optional, and the first step found it well conditioned).
    bool q_formed() const { return !q_skipped_; }

    /// This rank's rows are a block of a matrix spread over d's ranks: the n x n reductions go
    /// through d.comm, R is n x n, and dependent columns are left to the caller (no rebuild).
    void distribute(const TallDist *d) {
        dist_ = d;
        k_ = n_;
    }

    gpusvdStatus_t run() {
        gpusvdStatus_t s = setup();
        if (s != GPUSVD_STATUS_SUCCESS) return s;
        if (!check(cudaMemsetAsync(L_.dead, 0, sizeof(int) * n_, st_), "clearing flags") ||
            !check(cudaMemsetAsync(L_.ctl, 0, sizeof(CholStepCtl), st_), "clearing flags"))
            return status_;
        if (graph_) return run_graph();
        bool scaled = false;
        // Fast path: one panel, nothing screened; a Gram matrix that cannot be trusted sends the
        // (untouched) matrix through the screen.
        if (n_ <= kCholPanel && m_num() >= n_) {
            bool bad = false;
            if ((s = intra(A_, static_cast<int>(n_), R_, ldr_, L_.dead, false, &bad)) !=
                GPUSVD_STATUS_SUCCESS)
                return s;
            if (bad) {
                bool nonfinite = false;
                if ((s = screen_and_scale(&nonfinite)) != GPUSVD_STATUS_SUCCESS) return s;
                if (nonfinite) return finish_nonfinite();
                scaled = true;
                if ((s = panels()) != GPUSVD_STATUS_SUCCESS) return s;
            }
        } else {
            bool nonfinite = false;
            if ((s = screen_and_scale(&nonfinite)) != GPUSVD_STATUS_SUCCESS) return s;
            if (nonfinite) return finish_nonfinite();
            scaled = true;
            if ((s = panels()) != GPUSVD_STATUS_SUCCESS) return s;
        }
        if (rank_deficient_ && !dist_ && !rank_deficient_rebuild()) return status_;
        if (!check(finish_r<T>(m_num(), k_, R_, ldr_, L_.dead, scaled ? L_.exps : nullptr, info_,
                               st_),
                   "closing R"))
            return status_;
        return rank_deficient_ ? GPUSVD_STATUS_SUCCESS : wide_r();
    }

    // Wide A: R(:, k:n) = Q^T A(:, k:n); A's columns past k stay as they were.
    gpusvdStatus_t wide_r() {
        if (n_ > k_ &&
            !blas_ok(blas::gemm<T>(b_, op(true), op(false), k_, n_ - k_, m_, T(1), A_, lda_.ld,
                                   A_ + lda_.col(k_), lda_.ld, T(0), R_ + k_ * ldr_, ldr_),
                     "GEMM Q^T A (columns past m)"))
            return status_;
        return GPUSVD_STATUS_SUCCESS;
    }

private:
    // cuBLAS's operation on a block of A that the product uses transposed or not: a row-major
    // A is the column-major A^T, so the operation flips.
    // Complex: the conjugate transpose (column-major only).
    cublasOperation_t op(bool transposed) const {
        if (transposed == lda_.row) return CUBLAS_OP_N;
        return kernels::kIsComplex<T> ? CUBLAS_OP_C : CUBLAS_OP_T;
    }

    // The fixed plan of a captured call (see the top of the file).
    gpusvdStatus_t run_graph() {
        gpusvdStatus_t s;
        bool nonfinite = false;
        if ((s = screen_and_scale(&nonfinite)) != GPUSVD_STATUS_SUCCESS ||
            (s = panels()) != GPUSVD_STATUS_SUCCESS)
            return s;
        const Enqueue rebuild = [&](cudaStream_t bs) {
            return in_body(bs, [&] { return rank_deficient_rebuild(); });
        };
        const Enqueue wide = [&](cudaStream_t bs) {
            return in_body(bs, [&] { return wide_r() == GPUSVD_STATUS_SUCCESS; });
        };
        if ((s = captured_if(h_, routine_, st_, &L_.ctl->rankdef, rebuild,
                             n_ > k_ ? wide : Enqueue())) != GPUSVD_STATUS_SUCCESS)
            return status_ != GPUSVD_STATUS_SUCCESS ? status_ : s;
        if (!check(finish_r<T>(m_, k_, R_, ldr_, L_.dead, L_.exps, info_, st_), "closing R") ||
            !check(fill_nonfinite<T>(m_, k_, n_, A_, lda_, R_, ldr_, info_, L_.nonfinite, st_),
                   "filling NaN outputs"))
            return status_;
        return GPUSVD_STATUS_SUCCESS;
    }

    // Runs `enqueue` (true on success) with the call's work going to the body stream bs, then
    // back to the call's stream.
    template <class F>
    cudaError_t in_body(cudaStream_t bs, F enqueue) {
        const cudaStream_t outer = st_;
        const bool ok = bind(bs) && enqueue();
        const bool back = bind(outer);
        return ok && back ? cudaSuccess : cudaErrorUnknown;  // status_ holds the message
    }

    // cuBLAS and the call's kernels on stream s; on the graph path cuBLAS works in the call's
    // workspace (conditional bodies may not allocate).
    bool bind(cudaStream_t s) {
        gpusvdStatus_t st;
        b_ = blas_handle(h_, routine_, s, &st);
        if (b_ && graph_)
            st = blas_set_workspace(h_, routine_, b_, L_.blas_ws, kBlasGraphWorkspace);
        if (!b_ || st != GPUSVD_STATUS_SUCCESS) {
            status_ = st;
            return false;
        }
        st_ = s;
        return true;
    }

    gpusvdStatus_t setup() {
        if (!bind(st_)) return status_;
        if (graph_) return GPUSVD_STATUS_SUCCESS;  // reads nothing back
        cudaError_t e;
        r_ = resources(h_, &e);
        if (r_ && !r_->flags_host) e = cudaHostAlloc(&r_->flags_host, 256, cudaHostAllocDefault);
        if (e == cudaSuccess && !r_->flags_ready)
            e = cudaEventCreateWithFlags(&r_->flags_ready, cudaEventDisableTiming);
        return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS
                                : cuda_fail(h_, routine_, "allocating step flags", e);
    }

    bool check(cudaError_t e, const char *step) {
        if (e == cudaSuccess) return true;
        status_ = cuda_fail(h_, routine_, step, e);
        return false;
    }
    bool blas_ok(cublasStatus_t e, const char *step) {
        if (e == CUBLAS_STATUS_SUCCESS) return true;
        status_ = blas_fail(h_, routine_, step, e);
        return false;
    }

    // Copies `bytes` of device memory to the pinned flags buffer and waits for them, with `then`
    // enqueued in between so the GPU keeps working while the host waits.
    template <class Then>
    bool read_back(const void *dev, size_t bytes, Then then, const char *step) {
        if (!check(cudaMemcpyAsync(r_->flags_host, dev, bytes, cudaMemcpyDeviceToHost, st_), step))
            return false;
        if (!check(cudaEventRecord(r_->flags_ready, st_), step)) return false;
        if (!then()) return false;
        return check(cudaEventSynchronize(r_->flags_ready), step);
    }

    // CholeskyQR steps on panel W (m x w) until orthonormal; S (w x w, ld lds) = the product of
    // the steps' factors. *bad: the unscreened first Gram matrix could not be trusted (W as it
    // was).
    gpusvdStatus_t intra(T *W, int w, T *S, int64_t lds, int *dead, bool screened, bool *bad) {
        if (!check(cudaMemsetAsync(L_.ctl, 0, 2 * sizeof(int), st_), "clearing the step count"))
            return status_;
        if (graph_) {  // the steps as a while node; the step kernel decides whether to go on
            const gpusvdStatus_t s =
                captured_while(h_, routine_, st_, &L_.ctl->cont, [&](cudaStream_t bs) {
                    return in_body(bs, [&] {
                        return gram(W, w) && factor_step(w, S, lds, dead, true) && solve(W, w) &&
                               check(zero_dead_columns<T>(m_, w, W, lda_, dead, st_),
                                     "dropping columns");
                    });
                });
            return status_ != GPUSVD_STATUS_SUCCESS ? status_ : s;
        }
        for (int step = 0; step < kMaxSteps; ++step) {
            if (!gram(W, w) || !factor_step(w, S, lds, dead, screened)) return status_;
            // A caller that can do without Q (its own solve with R is cheaper than W Rs^-1 over
            // all m rows) waits for the first step's flags before the solve: if that step is
            // the last (well-conditioned, nothing dropped), R is done and W stays A. Not after
            // screening: A is column-scaled then, and R is not.
            const bool defer = q_optional_ && step == 0 && !screened && W == A_ && w == n_;
            const bool ok = read_back(
                L_.flags, sizeof(CholStepFlags), [&] { return defer || solve(W, w); },
                "reading step flags");
            if (!ok) return status_;
            CholStepFlags f;
            std::memcpy(&f, r_->flags_host, sizeof f);
            if (defer) {
                if (!f.bad && !f.shifted && f.offdiag <= 0.5f && f.dead == 0 && f.dropped == 0) {
                    q_skipped_ = true;
                    break;
                }
                if (!f.bad && !solve(W, w)) return status_;
            }
            if (f.bad) {
                if (step == 0 && !screened) {
                    *bad = true;
                    return GPUSVD_STATUS_SUCCESS;
                }
                return fail(h_, GPUSVD_STATUS_EXECUTION_FAILED,
                            "%s: Gram matrix of step %d is not finite (input screened)", routine_,
                            step + 1);
            }
            if (f.dead > 0 || f.dropped > 0) rank_deficient_ = true;
            if (f.dead > 0 &&
                !check(zero_dead_columns<T>(m_, w, W, lda_, dead, st_), "dropping columns"))
                return status_;
            if (!f.shifted && f.offdiag <= 0.5f) break;
        }
        return GPUSVD_STATUS_SUCCESS;
    }

    // One Cholesky step on the Gram matrix L_.G; the step number is on the device (L_.ctl).
    bool factor_step(int w, T *S, int64_t lds, int *dead, bool screened) {
        return check(chol_step<T>(L_.G, w, m_num(), kMaxSteps, screened, L_.Rs, S, lds, dead, L_.flags,
                                  L_.ctl, L_.scratch, st_),
                     "Cholesky step");
    }

    // W <- W Rs^-1: our row kernel up to solve_rows_max columns (cuBLAS's TRSM ran at 0.4 TB/s
    // on a 1e5 x 64 panel, 7x below bandwidth), cuBLAS beyond.
    bool solve(T *W, int w) {
        constexpr int cap = solve_rows_max<T>();
        if (w <= cap)
            return check(solve_right_upper<T>(m_, w, L_.Rs, w, W, lda_, st_), "solving W Rs^-1");
        // Complex panels up to twice the row kernel's width (a double complex panel of 64
        // columns): two column blocks, W1 <- W1 Rs11^-1, W2 -= W1 Rs12, W2 <- W2 Rs22^-1, the
        // blocked order of the reference TRSM. Three passes over W at bandwidth beat one TRSM.
        if constexpr (kernels::kIsComplex<T>) {
            if (!lda_.row && w <= 2 * cap) {
                const int w2 = w - cap;
                T *W2 = W + lda_.col(cap);
                return check(solve_right_upper<T>(m_, cap, L_.Rs, w, W, lda_, st_),
                             "solving W Rs^-1") &&
                       blas_ok(blas::gemm<T>(b_, CUBLAS_OP_N, CUBLAS_OP_N, m_, w2, cap, T(-1), W,
                                             lda_.ld, L_.Rs + int64_t(cap) * w, w, T(1), W2,
                                             lda_.ld),
                               "GEMM W2 - W1 Rs12") &&
                       check(solve_right_upper<T>(m_, w2, L_.Rs + cap + int64_t(cap) * w, w, W2,
                                                  lda_, st_),
                             "solving W Rs^-1");
            }
        }
        // row-major: W^T <- Rs^-T W^T
        return blas_ok(lda_.row ? blas::trsm_upper<T>(b_, CUBLAS_SIDE_LEFT, w, m_, L_.Rs, w, W,
                                                      lda_.ld, CUBLAS_OP_T)
                                : blas::trsm_upper<T>(b_, CUBLAS_SIDE_RIGHT, m_, w, L_.Rs, w, W,
                                                      lda_.ld),
                       "TRSM W Rs^-1");
    }

    // G = W^T W (upper triangle), W m x w: row chunks, partials summed (geqrf/gram.hpp).
    bool gram(const T *W, int w) {
        status_ = gram_upper<T>(h_, routine_, b_, m_, w, W, lda_, L_.P, L_.G, st_);
        if (status_ == GPUSVD_STATUS_SUCCESS && dist_)
            status_ = allreduce_device(h_, routine_, "a Gram matrix", dist_->comm, L_.G,
                                       int64_t(w) * w * kRealsPer<T>,
                                       data_type<kernels::RealOf<T>>(), GPUSVD_REDUCE_SUM, st_);
        return status_ == GPUSVD_STATUS_SUCCESS;
    }

    gpusvdStatus_t screen_and_scale(bool *nonfinite) {
        if (!check(cudaMemsetAsync(L_.dead, 0, sizeof(int) * n_, st_), "clearing flags") ||
            !check(cudaMemsetAsync(L_.amax, 0, sizeof(unsigned long long) * n_, st_),
                   "clearing flags") ||
            !check(cudaMemsetAsync(L_.nonfinite, 0, sizeof(int), st_), "clearing flags") ||
            !check(screen<T>(m_, n_, A_, lda_, L_.amax, L_.nonfinite, st_), "screening A"))
            return status_;
        if (dist_ && ((status_ = allreduce_device(h_, routine_, "the column maxima", dist_->comm,
                                                  L_.amax, n_, GPUSVD_DATA_INT64,
                                                  GPUSVD_REDUCE_MAX, st_)) != GPUSVD_STATUS_SUCCESS ||
                      (status_ = allreduce_device(h_, routine_, "the non-finite flag",
                                                  dist_->comm, L_.nonfinite, 1, GPUSVD_DATA_INT32,
                                                  GPUSVD_REDUCE_MAX, st_)) != GPUSVD_STATUS_SUCCESS))
            return status_;
        if (graph_) {  // scaled whatever the screen finds; the NaN fill is gated on its flag
            *nonfinite = false;
        } else {
            if (!read_back(
                    L_.nonfinite, sizeof(int), [] { return true; }, "screening A"))
                return status_;
            int nf;
            std::memcpy(&nf, r_->flags_host, sizeof nf);
            *nonfinite = nf != 0;
        }
        if (!*nonfinite &&
            !check(scale_columns<T>(m_, k_, A_, lda_, L_.amax, L_.exps, st_), "scaling A"))
            return status_;
        return GPUSVD_STATUS_SUCCESS;
    }

    gpusvdStatus_t finish_nonfinite() {
        return check(fill_nonfinite<T>(m_, k_, n_, A_, lda_, R_, ldr_, info_, nullptr, st_),
                     "filling NaN outputs")
                   ? GPUSVD_STATUS_SUCCESS
                   : status_;
    }

    // All k columns after screening, panel by panel (BCGS2 between panels).
    gpusvdStatus_t panels() {
        gpusvdStatus_t s;
        bool bad = false;
        for (int64_t p0 = 0; p0 < k_; p0 += kCholPanel) {
            const int wp = static_cast<int>(std::min<int64_t>(kCholPanel, k_ - p0));
            T *P = A_ + lda_.col(p0);
            if (p0 == 0) {
                if ((s = intra(P, wp, R_, ldr_, L_.dead, true, &bad)) != GPUSVD_STATUS_SUCCESS)
                    return s;
                continue;
            }
            if ((s = project(P, wp, p0, L_.C1)) != GPUSVD_STATUS_SUCCESS ||
                (s = intra(P, wp, L_.S1, wp, L_.dead + p0, true, &bad)) != GPUSVD_STATUS_SUCCESS ||
                (s = project(P, wp, p0, L_.C2)) != GPUSVD_STATUS_SUCCESS ||
                (s = intra(P, wp, L_.S2, wp, L_.dead + p0, true, &bad)) != GPUSVD_STATUS_SUCCESS)
                return s;
            // P = Q (C1 + C2 S1) + Qp (S2 S1)
            T *Rtop = R_ + p0 * ldr_;
            if (!check(cudaMemcpy2DAsync(Rtop, ldr_ * sizeof(T), L_.C1, p0 * sizeof(T),
                                         p0 * sizeof(T), wp, cudaMemcpyDeviceToDevice, st_),
                       "copying R's panel") ||
                !blas_ok(blas::gemm<T>(b_, CUBLAS_OP_N, CUBLAS_OP_N, p0, wp, wp, T(1), L_.C2, p0,
                                       L_.S1, wp, T(1), Rtop, ldr_),
                         "GEMM C2 S1") ||
                !blas_ok(blas::trmm_left_upper<T>(b_, wp, wp, L_.S2, wp, L_.S1, wp,
                                                  R_ + p0 + p0 * ldr_, ldr_),
                         "TRMM S2 S1"))
                return status_;
        }
        return GPUSVD_STATUS_SUCCESS;
    }

    // C = Q^T P, P -= Q C with Q = A(:, 0:p0) (row-major: P^T -= C^T Q^T).
    gpusvdStatus_t project(T *P, int wp, int64_t p0, T *C) {
        const int64_t ld = lda_.ld;
        if (!blas_ok(blas::gemm<T>(b_, op(true), op(false), p0, wp, m_, T(1), A_, ld, P, ld, T(0),
                                   C, p0),
                     "GEMM Q^T P") ||
            (dist_ && (status_ = allreduce_device(h_, routine_, "a projection", dist_->comm, C,
                                                  p0 * wp * kRealsPer<T>,
                                                  data_type<kernels::RealOf<T>>(),
                                                  GPUSVD_REDUCE_SUM, st_)) != GPUSVD_STATUS_SUCCESS) ||
            !blas_ok(lda_.row ? blas::gemm<T>(b_, CUBLAS_OP_T, CUBLAS_OP_N, wp, m_, p0, T(-1), C,
                                              p0, A_, ld, T(1), P, ld)
                              : blas::gemm<T>(b_, CUBLAS_OP_N, CUBLAS_OP_N, m_, wp, p0, T(-1), A_,
                                              ld, C, p0, T(1), P, ld),
                     "GEMM P - Q C"))
            return status_;
        return GPUSVD_STATUS_SUCCESS;
    }

    // Numerically rank-deficient matrices: CholeskyQR resolves their rounding-level columns only
    // approximately, so the matrix (A = Q R to eps |A|, the solves being backward stable) is
    // rebuilt in place and factored by the batched team kernel's modified Gram-Schmidt, whose
    // dependent-column test and completion are exact (finish_r then closes R as on the other
    // path). One block per matrix: slow for huge m, but only rank-deficient input pays it. That
    // kernel is column-major: a row-major A is rebuilt and factored in a column-major copy
    // (L_.Acol), then copied back.
    bool rank_deficient_rebuild() {
        T *A = lda_.row ? L_.Acol : A_;
        const int64_t ld = lda_.row ? m_ : lda_.ld;
        if (lda_.row && !check(copy_matrix<T>(m_, n_, A_, lda_, A, ld, st_), "copying A"))
            return false;
        if (!blas_ok(blas::trmm_right_upper_inplace<T>(b_, m_, k_, R_, ldr_, A, ld),
                     "TRMM Q R (rebuilding A)"))
            return false;
        const GeqrfProblem<T> p{reorth_, m_, n_, A, ld, 0, R_, ldr_, 0, 1, info_};
        return check(geqrf_batched_launch<T>(p, L_.team,
                                             geqrf_batched_workspace_bytes<T>(m_, n_, 1), st_),
                     "Gram-Schmidt of a rank-deficient matrix") &&
               (!lda_.row || check(copy_matrix<T>(m_, n_, A, ld, A_, lda_, st_), "copying Q")) &&
               check(cudaMemsetAsync(L_.dead, 0, sizeof(int) * n_, st_), "clearing flags");
    }

    gpusvdHandle_t h_;
    const char *routine_;
    bool reorth_, q_optional_, graph_;
    cudaStream_t st_;
    int64_t m_, n_, k_;
    T *A_;
    MatLd lda_;
    T *R_;
    int64_t ldr_;
    int *info_;
    Layout<T> L_;
    cublasHandle_t b_ = nullptr;
    Resources *r_ = nullptr;
    gpusvdStatus_t status_ = GPUSVD_STATUS_SUCCESS;
    bool rank_deficient_ = false, q_skipped_ = false;
    const TallDist *dist_ = nullptr;

    // Rows of the whole matrix: what the shift and the dependence test scale with.
    int64_t m_num() const { return dist_ ? dist_->m_global : m_; }
};

}  // namespace

template <class T>
size_t tall_workspace_bytes(int64_t m, int64_t n, bool row_major) {
    return layout<T>(nullptr, m, n, row_major).bytes;
}

template <class T>
gpusvdStatus_t geqrf_tall(gpusvdHandle_t h, const char *routine, bool reorth, int64_t m, int64_t n,
                          T *A, MatLd lda, T *R, MatLd ldr, int *info, void *ws, size_t ws_bytes,
                          cudaStream_t stream, bool *q_formed) {
    if (q_formed) *q_formed = true;
    if (kernels::kIsComplex<T> && lda.row)  // the entry points keep complex data column-major
        return fail(h, GPUSVD_STATUS_NOT_SUPPORTED,
                    "%s: no GPU kernel for complex data in row-major layout", routine);
    const Layout<T> L = layout<T>(ws, m, n, lda.row);
    if (ws_bytes < L.bytes)
        return fail(h, GPUSVD_STATUS_INTERNAL_ERROR, "%s: tall QR workspace too small", routine);
    if (std::min(m, n) == 0) {
        const cudaError_t e = cudaMemsetAsync(info, 0, sizeof(int), stream);
        return e == cudaSuccess ? GPUSVD_STATUS_SUCCESS : cuda_fail(h, routine, "clearing info", e);
    }
    bool graph = false;
    const cudaError_t e = stream_capturing(stream, &graph);
    if (e != cudaSuccess) return cuda_fail(h, routine, "querying the stream's capture state", e);
    // Row-major: R formed column-major in the workspace, transposed out once complete.
    const int64_t k = std::min(m, n);
    TallQr<T> qr(h, routine, reorth, q_formed != nullptr, graph, stream, m, n, A, lda,
                 lda.row ? L.Rw : R, lda.row ? k : ldr.ld, info, L);
    const gpusvdStatus_t st = qr.run();
    if (q_formed) *q_formed = qr.q_formed();
    if (st != GPUSVD_STATUS_SUCCESS || !lda.row) return st;
    const cudaError_t ce = copy_matrix<T>(k, n, L.Rw, k, R, ldr, stream);
    return ce == cudaSuccess ? GPUSVD_STATUS_SUCCESS : cuda_fail(h, routine, "copying R", ce);
}

template <class T>
size_t tall_dist_workspace_bytes(int64_t m, int64_t n) {
    return layout<T>(nullptr, std::max(m, n), n, false).bytes;  // R is n x n whatever m is
}

template <class T>
gpusvdStatus_t geqrf_tall_dist(gpusvdHandle_t h, const char *routine, TallDist *d, int64_t m,
                               int64_t n, T *A, int64_t lda, T *R, int64_t ldr, int *info, void *ws,
                               size_t ws_bytes, cudaStream_t stream, bool *q_formed) {
    if (q_formed) *q_formed = true;
    const Layout<T> L = layout<T>(ws, std::max(m, n), n, false);
    if (ws_bytes < L.bytes)
        return fail(h, GPUSVD_STATUS_INTERNAL_ERROR, "%s: tall QR workspace too small", routine);
    TallQr<T> qr(h, routine, false, q_formed != nullptr, false, stream, m, n, A, lda, R, ldr, info,
                 L);
    qr.distribute(d);
    d->dead = L.dead;
    const gpusvdStatus_t st = qr.run();
    if (q_formed) *q_formed = qr.q_formed();
    return st;
}

#define GPUSVD_INSTANTIATE(T)                                                                   \
    template size_t tall_workspace_bytes<T>(int64_t, int64_t, bool);                            \
    template gpusvdStatus_t geqrf_tall<T>(gpusvdHandle_t, const char *, bool, int64_t, int64_t, \
                                          T *, MatLd, T *, MatLd, int *, void *, size_t,        \
                                          cudaStream_t, bool *);
#define GPUSVD_INSTANTIATE_DIST(T)                                                              \
    template size_t tall_dist_workspace_bytes<T>(int64_t, int64_t);                             \
    template gpusvdStatus_t geqrf_tall_dist<T>(gpusvdHandle_t, const char *, TallDist *, int64_t, \
                                               int64_t, T *, int64_t, T *, int64_t, int *, void *, \
                                               size_t, cudaStream_t, bool *);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
GPUSVD_INSTANTIATE_DIST(float)  // the distributed QR is real only
GPUSVD_INSTANTIATE_DIST(double)
#undef GPUSVD_INSTANTIATE_DIST
#undef GPUSVD_INSTANTIATE

}  // namespace gpu
}  // namespace gpusvd
