#include "cpu/gesvj.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/common.hpp"
#include "cpu/lapack.hpp"
#include "gpusvd.h"

namespace gpusvd::cpu {

namespace {

template <class T>
struct GesvjWork {
    T *transposed;      // n x m copy of A when m < n
    T *lapack;          // ?gesvj's WORK (CWORK for complex T)
    real_t<T> *rwork;   // complex T: ?gesvj's RWORK; real T: lapack
    real_t<T> *stats;   // where ?gesvj takes CTOL and leaves its statistics (WORK or RWORK)
    real_t<T> *rownorm; // for the orthonormal completion
    unsigned char *accepted;
};

template <class T>
GesvjWork<T> layout(Bump &b, int64_t m, int64_t n) {
    const int64_t rows = std::max(m, n), cols = std::min(m, n);
    GesvjWork<T> w;
    w.transposed = b.take<T>(m < n ? m * n : 0);
    w.lapack = b.take<T>(std::max<int64_t>(6, rows + cols));
    if constexpr (is_complex_v<T>) {
        w.rwork = b.take<real_t<T>>(std::max<int64_t>(6, cols));
        w.stats = w.rwork;
    } else {
        w.rwork = w.stats = w.lapack;
    }
    w.rownorm = b.take<real_t<T>>(rows);
    w.accepted = b.take<unsigned char>(cols);
    return w;
}

// Columns of U (rows x cols) that ?gesvj left zero (zero or underflowed singular values) are
// replaced by unit vectors orthogonal to all the others, so U^H U = I whenever U is returned.
// Each new column starts from the e_i least represented in the current span (largest
// ||(I - U U^T) e_i||, at least sqrt(1 - r/rows)) and is orthogonalised twice.
template <class T>
void complete_orthonormal(int64_t rows, int64_t cols, T *U, int64_t ldu, real_t<T> *rownorm,
                          unsigned char *accepted) {
    using R = real_t<T>;
    auto col = [&](int64_t j) { return U + j * ldu; };
    bool complete = true;
    for (int64_t j = 0; j < cols; ++j) {
        R s = 0;
        for (int64_t i = 0; i < rows; ++i) s += abs2(col(j)[i]);
        accepted[j] = std::abs(s - R(1)) < R(0.5);
        complete = complete && accepted[j];
    }
    if (complete) return;
    for (int64_t j = 0; j < cols; ++j) {
        if (accepted[j]) continue;
        // rownorm_i = sum over accepted columns c of U(i,c)^2
        std::fill(rownorm, rownorm + rows, R(0));
        for (int64_t c = 0; c < cols; ++c)
            if (accepted[c])
                for (int64_t i = 0; i < rows; ++i) rownorm[i] += abs2(col(c)[i]);
        const int64_t pick = std::min_element(rownorm, rownorm + rows) - rownorm;
        T *v = col(j);
        std::fill(v, v + rows, T(0));
        v[pick] = T(1);
        for (int pass = 0; pass < 2; ++pass)
            for (int64_t c = 0; c < cols; ++c) {
                if (!accepted[c]) continue;
                T dot = 0;
                for (int64_t i = 0; i < rows; ++i) dot += conj_of(col(c)[i]) * v[i];
                for (int64_t i = 0; i < rows; ++i) v[i] -= dot * col(c)[i];
            }
        R nrm = 0;
        for (int64_t i = 0; i < rows; ++i) nrm += abs2(v[i]);
        nrm = std::sqrt(nrm);
        for (int64_t i = 0; i < rows; ++i) v[i] /= nrm;
        accepted[j] = 1;
    }
}

// Largest |u_p^H u_q| over the columns of U (rows x cols, unit or zero columns) whose singular
// values are nonzero: ?gesvj's own convergence measure, on its output.
template <class T>
double max_cosine(int64_t rows, int64_t cols, const T *U, int64_t ldu, const real_t<T> *S) {
    using D = std::conditional_t<is_complex_v<T>, std::complex<double>, double>;
    double worst = 0;
    for (int64_t p = 0; p < cols; ++p)
        for (int64_t q = p + 1; q < cols; ++q) {
            if (!(S[p] > 0) || !(S[q] > 0)) continue;
            D dot = 0;
            for (int64_t i = 0; i < rows; ++i)
                dot += conj_of(D(U[i + p * ldu])) * D(U[i + q * ldu]);
            worst = std::max(worst, std::abs(dot));
        }
    return worst;
}

// rows >= cols: A (rows x cols) = Uo diag(S) Vo^T with Uo rows x cols, Vo cols x cols.
template <class T>
int gesvj_tall(int64_t rows, int64_t cols, T *A, int64_t lda, real_t<T> *S, T *Uo, int64_t ldu,
               T *Vo, int64_t ldv, double tol, const GesvjWork<T> &w, JacobiStats *stats) {
    using R = real_t<T>;
    // ?gesvj's CTOL is relative to its EPS = unit roundoff and must exceed 1.
    const double u = std::numeric_limits<R>::epsilon() / 2;
    const double t = tol > 0 ? tol : std::sqrt(double(rows)) * u;
    const int64_t lwork = std::max<int64_t>(6, rows + cols);
    w.stats[0] = static_cast<R>(std::max(t / u, 2.0));
    // JOBU = 'C' passes our tolerance, but ?gesvj's one-column quick return then leaves U
    // unnormalised; one column needs no tolerance, so use 'U' there.
    const char jobu = cols == 1 ? 'U' : 'C';
    const char jobv = Vo ? 'V' : 'N';
    const lapack_int mi = static_cast<lapack_int>(rows), ni = static_cast<lapack_int>(cols);
    const lapack_int ldai = static_cast<lapack_int>(lda);
    T vdummy = 0;
    const lapack_int ldvi = static_cast<lapack_int>(Vo ? ldv : 1);
    lapack_int info;
    if constexpr (is_complex_v<T>)
        info = lapack::gesvj('G', jobu, jobv, mi, ni, A, ldai, S, 0, Vo ? Vo : &vdummy, ldvi,
                             w.lapack, static_cast<lapack_int>(lwork), w.rwork,
                             static_cast<lapack_int>(std::max<int64_t>(6, cols)));
    else
        info = lapack::gesvj('G', jobu, jobv, mi, ni, A, ldai, S, 0, Vo ? Vo : &vdummy, ldvi,
                             w.lapack, static_cast<lapack_int>(lwork));
    // ?gesvj can report 30 sweeps without convergence on an exactly rank-deficient matrix
    // (ones(5, 4): its sweep counter runs out on columns it has already made zero) while its
    // output meets its own criterion. Judge the output, not the counter.
    lapack_int outcome = info;
    if (info > 0 && max_cosine(rows, cols, A, lda, S) <= t) outcome = 0;
    const R scale = w.stats[0];
    if (scale != R(1))
        for (int64_t j = 0; j < cols; ++j) S[j] *= scale;
    stats->sweeps = static_cast<int>(std::lround(w.stats[3]));
    stats->off_norm = w.stats[4];
    if (Uo) {
        for (int64_t j = 0; j < cols; ++j) std::copy(A + j * lda, A + j * lda + rows, Uo + j * ldu);
    }
    sort_descending(cols, S, rows, Uo, ldu, cols, Vo, ldv);
    if (Uo) complete_orthonormal(rows, cols, Uo, ldu, w.rownorm, w.accepted);
    return lapack_info(outcome);
}

}  // namespace

template <class T>
size_t gesvj_bytes(int64_t m, int64_t n) {
    Bump b;
    layout<T>(b, m, n);
    return b.bytes();
}

template <class T>
int gesvj(bool want_u, bool want_v, int64_t m, int64_t n, T *A, int64_t lda, real_t<T> *S, T *U,
          int64_t ldu, T *V, int64_t ldv, double tol, void *work, JacobiStats *stats) {
    const int64_t k = std::min(m, n);
    *stats = JacobiStats{};
    if (has_nonfinite(m, n, A, lda)) {
        fill_nan(k, 1, S, k);
        if (want_u) fill_nan(m, k, U, ldu);
        if (want_v) fill_nan(n, k, V, ldv);
        return GPUSVD_INFO_NONFINITE;
    }
    // ?gesvj's U is its rotated columns of A divided by their norms: for data near underflow
    // those columns are subnormal and U keeps only their few bits (S, which ?gesvj returns
    // scaled, is right). S scales with A, U and V do not.
    const RangeScale<real_t<T>> range = RangeScale<real_t<T>>::of(max_abs(m, n, A, lda));
    range.apply(m, n, A, lda);
    Bump b(work);
    const GesvjWork<T> w = layout<T>(b, m, n);
    int info;
    if (m >= n) {
        info = gesvj_tall(m, n, A, lda, S, want_u ? U : nullptr, ldu, want_v ? V : nullptr, ldv,
                          tol, w, stats);
    } else {
        // A^H = U' S V'^H, so A = V' S U'^H: the roles of U and V swap.
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) w.transposed[j + i * n] = conj_of(A[i + j * lda]);
        info = gesvj_tall(n, m, w.transposed, n, S, want_v ? V : nullptr, ldv, want_u ? U : nullptr,
                          ldu, tol, w, stats);
    }
    range.undo(k, 1, S, k);
    return info;
}

#define GPUSVD_INSTANTIATE(T)                                                                    \
    template size_t gesvj_bytes<T>(int64_t, int64_t);                                            \
    template int gesvj<T>(bool, bool, int64_t, int64_t, T *, int64_t, real_t<T> *, T *, int64_t, \
                          T *, int64_t, double, void *, JacobiStats *);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(std::complex<float>)
GPUSVD_INSTANTIATE(std::complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace gpusvd::cpu
