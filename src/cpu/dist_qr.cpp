// CholeskyQR over the ranks' blocks of rows. Each step: G = W^T W on every rank (?syrk), summed
// over the ranks, the column-scaled Cholesky of the sum (shifted when it breaks down, as the
// GPU's step kernel does), W <- W Rs^-1 on every rank (?trsm). The steps repeat until a step's
// input was orthonormal to 0.5 (||G~ - I||_F <= 0.5), which makes its output orthonormal to
// O(eps). Every rank factors the same summed Gram matrix, so all take the same steps and get
// the same R. Before the steps the columns are scaled by powers of two from their largest
// entries over all ranks (NaN/Inf found on any rank stops the call on all of them); exactly
// vanished columns are completed at the end by a vector orthogonalised against the others.
#include "cpu/dist_qr.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "cpu/lapack.hpp"
#include "kernels/dist_start.hpp"
#include "workspace.hpp"

namespace gpusvd::cpu {
namespace {

// As the GPU path (cuda/geqrf/tall.cpp): cond 1e15 needs 4 steps in double.
constexpr int kMaxSteps = 12;

template <class T>
struct Work {
    T *G, *M, *acc, *vec, *sc;
    int *dead, *exps;
};

template <class T>
Work<T> layout(Bump &b, int64_t n) {
    Work<T> w;
    w.G = b.take<T>(n * n);
    w.M = b.take<T>(n * n);
    w.acc = b.take<T>(n * n);
    w.vec = b.take<T>(n + 1);
    w.sc = b.take<T>(n);
    w.dead = b.take<int>(n);
    w.exps = b.take<int>(n);
    return w;
}

template <class T>
class DistQr {
public:
    DistQr(gpusvdHandle_t h, const char *routine, gpusvdComm_t c, const Agreement &g, int64_t m,
           int64_t n, T *A, int64_t lda, T *R, int64_t ldr, void *ws)
        : h_(h), routine_(routine), c_(c), g_(g), m_(static_cast<int>(m)),
          n_(static_cast<int>(n)), A_(A), lda_(static_cast<int>(lda)), R_(R),
          ldr_(static_cast<int>(ldr)) {
        Bump b(ws);
        w_ = layout<T>(b, n);
    }

    gpusvdStatus_t run(int *info) {
        gpusvdStatus_t st;
        bool nonfinite = false;
        if ((st = screen_and_scale(&nonfinite)) != GPUSVD_STATUS_SUCCESS) return st;
        if (nonfinite) {
            fill_nan();
            *info = GPUSVD_INFO_NONFINITE;
            return GPUSVD_STATUS_SUCCESS;
        }
        std::fill(w_.dead, w_.dead + n_, 0);
        for (int step = 0; step < kMaxSteps; ++step) {
            bool done = false;
            if ((st = cholesky_step(step, &done)) != GPUSVD_STATUS_SUCCESS) return st;
            if (done) break;
        }
        *info = finish_r();
        return complete_vanished();
    }

private:
    gpusvdStatus_t reduce(void *buf, int64_t count, gpusvdDataType_t t, gpusvdReduceOp_t op,
                          const char *what) {
        return allreduce_host(h_, routine_, what, c_, buf, count, t, op);
    }

    // Column maxima over all ranks, and whether any rank holds NaN/Inf; then A's columns scaled
    // by powers of two so the largest entry of each is in [0.5, 1).
    gpusvdStatus_t screen_and_scale(bool *nonfinite) {
        T *amax = w_.vec;  // n maxima, then the non-finite flag
        T bad = 0;
        for (int j = 0; j < n_; ++j) {
            T mx = 0;
            const T *col = A_ + int64_t(j) * lda_;
            for (int i = 0; i < m_; ++i) {
                const T v = std::fabs(col[i]);
                if (!std::isfinite(v)) bad = 1;
                else mx = std::max(mx, v);
            }
            amax[j] = mx;
        }
        amax[n_] = bad;
        const gpusvdStatus_t st =
            reduce(amax, n_ + 1, data_type<T>(), GPUSVD_REDUCE_MAX, "the column maxima");
        if (st != GPUSVD_STATUS_SUCCESS) return st;
        *nonfinite = amax[n_] != 0;
        if (*nonfinite) return GPUSVD_STATUS_SUCCESS;
        for (int j = 0; j < n_; ++j) {
            int e = 0;
            if (amax[j] > 0) std::frexp(amax[j], &e);
            w_.exps[j] = -e;
            T *col = A_ + int64_t(j) * lda_;
            for (int i = 0; i < m_; ++i) col[i] = std::ldexp(col[i], -e);
        }
        return GPUSVD_STATUS_SUCCESS;
    }

    // One CholeskyQR step; *done when its input was orthonormal to 0.5 and nothing was shifted.
    gpusvdStatus_t cholesky_step(int step, bool *done) {
        const int n = n_;
        T *G = w_.G, *M = w_.M;
        std::fill(G, G + int64_t(n) * n, T(0));
        if (m_ > 0) lapack::syrk_upper_t(n, m_, T(1), A_, lda_, T(0), G, n);
        const gpusvdStatus_t st =
            reduce(G, int64_t(n) * n, data_type<T>(), GPUSVD_REDUCE_SUM, "a Gram matrix");
        if (st != GPUSVD_STATUS_SUCCESS) return st;
        const T eps = kernels::Real<T>::eps();
        T dmax = 0;
        for (int j = 0; j < n; ++j)
            if (std::isfinite(G[j + int64_t(j) * n])) dmax = std::max(dmax, G[j + int64_t(j) * n]);
        // After the first step the live columns have unit norm: one below eps^2 of the largest
        // has vanished (a dependent column's rounding-level residual).
        const T vanish = step == 0 ? T(0) : dmax * eps * eps;
        T *sc = w_.sc;
        bool newly_dead = false;
        for (int j = 0; j < n; ++j) {
            const T d = G[j + int64_t(j) * n];
            if (!std::isfinite(d) || d < 0)
                return fail(h_, GPUSVD_STATUS_EXECUTION_FAILED,
                            "%s: Gram matrix of step %d is not finite (input screened)", routine_,
                            step + 1);
            if (!w_.dead[j] && d <= vanish) w_.dead[j] = 1, newly_dead = true;
            sc[j] = w_.dead[j] ? T(1) : T(1) / std::sqrt(d);
        }
        // Scaled Gram matrix (unit diagonal; a vanished column's row and column e_j) and its
        // distance from the identity.
        T off = 0;
        auto scaled = [&](int i, int j, T shift) {
            if (i == j) return w_.dead[j] ? T(1) : T(1) + shift;
            if (w_.dead[i] || w_.dead[j]) return T(0);
            return G[i + int64_t(j) * n] * sc[i] * sc[j];
        };
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < j; ++i) off += scaled(i, j, 0) * scaled(i, j, 0);
        off = std::sqrt(2 * off);
        // Unshifted first; on breakdown shift by about the Gram matrix's rounding error (shifted
        // CholeskyQR, Fukaya et al. 2020), growing it while that is not enough.
        T shift = 0;
        bool shifted = false;
        for (int attempt = 0;; ++attempt) {
            for (int j = 0; j < n; ++j)
                for (int i = 0; i <= j; ++i) M[i + int64_t(j) * n] = scaled(i, j, shift);
            if (lapack::potrf_upper(n, M, n) == 0) break;
            if (attempt == 6)
                return fail(h_, GPUSVD_STATUS_EXECUTION_FAILED,
                            "%s: the shifted Cholesky factorisation of step %d failed", routine_,
                            step + 1);
            shifted = true;
            shift = attempt == 0 ? T(10) * (T(n) + std::sqrt(T(g_.m_global))) * eps *
                                       std::sqrt(T(n) + off * off)
                                 : shift * 100;
        }
        // Rs = R~ D^-1 with D = diag(sc): the factor of the unscaled Gram matrix.
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i)
                M[i + int64_t(j) * n] = i <= j ? M[i + int64_t(j) * n] / sc[j] : T(0);
        if (m_ > 0) lapack::trsm_right_upper(m_, n, M, n, A_, lda_);
        for (int j = 0; j < n; ++j)
            if (w_.dead[j]) std::fill(A_ + int64_t(j) * lda_, A_ + int64_t(j) * lda_ + m_, T(0));
        if (step == 0)
            std::memcpy(w_.acc, M, sizeof(T) * size_t(n) * size_t(n));
        else
            lapack::trmm_left_upper(n, M, n, w_.acc, n);
        *done = !shifted && !newly_dead && off <= T(0.5);
        return GPUSVD_STATUS_SUCCESS;
    }

    // R from the steps' product: R(j,j) = 0 for a vanished column or one at rounding level
    // (R(j,j) <= M eps ||R(0:j, j)||, as the one-matrix QR decides dependence), columns scaled
    // back. A vanished column's row is zeroed too: its Q column was zeroed at rounding level
    // (what the row multiplied was below eps), and is replaced by the completion. Returns info:
    // the first such column (1-based) or 0.
    int finish_r() {
        const T eps = kernels::Real<T>::eps();
        int info = 0;
        for (int j = 0; j < n_; ++j) {
            T *r = R_ + int64_t(j) * ldr_;
            const T *a = w_.acc + int64_t(j) * n_;
            T ss = 0;
            for (int i = 0; i < n_; ++i) {
                r[i] = i <= j && !(i < j && w_.dead[i] == 1) ? a[i] : T(0);
                if (i <= j) ss += r[i] * r[i];
            }
            if (w_.dead[j] || r[j] <= T(g_.m_global) * eps * std::sqrt(ss)) {
                r[j] = 0;
                if (!w_.dead[j]) w_.dead[j] = 2;  // dependent; its Q column is kept
                if (!info) info = j + 1;
            }
            for (int i = 0; i <= j; ++i) r[i] = std::ldexp(r[i], -w_.exps[j]);
        }
        return info;
    }

    // Q's vanished columns (zeroed by the steps) become unit vectors orthogonal to the others:
    // a reproducible start vector projected out of Q twice (CGS2), then normalised.
    gpusvdStatus_t complete_vanished() {
        T *c = w_.vec;
        for (int j = 0; j < n_; ++j) {
            if (w_.dead[j] != 1) continue;
            T *q = A_ + int64_t(j) * lda_;
            for (int i = 0; i < m_; ++i) q[i] = kernels::dist_start_entry<T>(g_.row_offset + i, j);
            for (int pass = 0; pass < 2; ++pass) {
                if (m_ > 0) lapack::gemv(true, m_, n_, T(1), A_, lda_, q, T(0), c);
                else std::fill(c, c + n_, T(0));
                c[j] = 0;
                gpusvdStatus_t st = reduce(c, n_, data_type<T>(), GPUSVD_REDUCE_SUM,
                                           "a completion's projection");
                if (st != GPUSVD_STATUS_SUCCESS) return st;
                if (m_ > 0) lapack::gemv(false, m_, n_, T(-1), A_, lda_, c, T(1), q);
            }
            T ss = 0;
            for (int i = 0; i < m_; ++i) ss += q[i] * q[i];
            gpusvdStatus_t st =
                reduce(&ss, 1, data_type<T>(), GPUSVD_REDUCE_SUM, "a completion's norm");
            if (st != GPUSVD_STATUS_SUCCESS) return st;
            const T inv = T(1) / std::sqrt(ss);
            for (int i = 0; i < m_; ++i) q[i] *= inv;
        }
        return GPUSVD_STATUS_SUCCESS;
    }

    void fill_nan() {
        const T nan = std::numeric_limits<T>::quiet_NaN();
        for (int j = 0; j < n_; ++j) {
            std::fill(A_ + int64_t(j) * lda_, A_ + int64_t(j) * lda_ + m_, nan);
            std::fill(R_ + int64_t(j) * ldr_, R_ + int64_t(j) * ldr_ + n_, nan);
        }
    }

    gpusvdHandle_t h_;
    const char *routine_;
    gpusvdComm_t c_;
    Agreement g_;
    int m_, n_;
    T *A_;
    int lda_;
    T *R_;
    int ldr_;
    Work<T> w_;
};

}  // namespace

template <class T>
size_t dist_qr_bytes(int64_t n) {
    Bump b;
    layout<T>(b, n);
    return b.bytes();
}

template <class T>
gpusvdStatus_t dist_qr(gpusvdHandle_t h, const char *routine, gpusvdComm_t c, const Agreement &g,
                       int64_t m, int64_t n, T *A, int64_t lda, T *R, int64_t ldr, int *info,
                       void *ws) {
    return DistQr<T>(h, routine, c, g, m, n, A, lda, R, ldr, ws).run(info);
}

#define GPUSVD_INSTANTIATE(T)                                                                  \
    template size_t dist_qr_bytes<T>(int64_t);                                                 \
    template gpusvdStatus_t dist_qr<T>(gpusvdHandle_t, const char *, gpusvdComm_t,             \
                                       const Agreement &, int64_t, int64_t, T *, int64_t, T *, \
                                       int64_t, int *, void *);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
#undef GPUSVD_INSTANTIATE

}  // namespace gpusvd::cpu
