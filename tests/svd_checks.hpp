// Shared checks of the gesvj tests (test_gesvj, test_gesvj_batched, test_gpu_gesvj): run a call
// with the signature of gpusvd_Xgesvj / gpusvd_Xgesvj_batched on padded layouts and check every
// DESIGN.md SVD ratio, that nothing outside the outputs is written, and per-matrix info.
// The `call` arguments default to the host forms; the GPU tests pass wrappers of the `_gpu` forms.
#pragma once

#include <type_traits>

#include "test_common.hpp"

namespace gpusvd_test {

constexpr double kSvdThreshold = 50.0;  // DESIGN.md: SVD ratios < 50

/// Threshold of |S - S_lapack| / (|S| eps): kSvdThreshold up to 64 rows or columns, growing like
/// sqrt(max(m,n)) beyond (both SVDs' rounding errors build up over O(max(m,n)) transformations;
/// LAPACK's own dgesvj against dgesvd reaches ~45 at 300 x 300).
inline double sv_threshold(int64_t m, int64_t n) {
    return kSvdThreshold * std::max(1.0, std::sqrt(double(std::max(m, n)) / 64.0));
}

/// Singular values of A (m x n, leading dimension lda) by LAPACK dgesvd on a double copy: for float
/// results a reference whose own error is negligible (a float reference would add its own).
template <typename T>
std::vector<double> ref_singular_values_double(int64_t m, int64_t n, const T *A, int64_t lda) {
    std::vector<double> D(sz(m * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) D[sz(i + j * m)] = double(A[i + j * lda]);
    return ref_singular_values(m, n, D.data(), m);
}

/// Ratios of one SVD result (0 for what was not computed).
struct SvdRatios {
    double resid = 0, orth_u = 0, orth_v = 0, sv = 0;
};

/// EXPECTs what DESIGN.md asks of the economy SVD A0 = U diag(S) V^T (A0 m x n, leading dimension
/// lda0; U or V NULL when not computed): S non-negative and descending, close to Sref (LAPACK's
/// values of A0, from ref_singular_values_double; see sv_threshold), orthonormal U and V, small
/// residual.
template <typename T>
SvdRatios expect_svd(int64_t m, int64_t n, const T *A0, int64_t lda0, const T *S, const T *U,
                     int64_t ldu, const T *V, int64_t ldv, const double *Sref) {
    SvdRatios r;
    const int64_t k = std::min(m, n);
    EXPECT_TRUE(is_sorted_desc_nonneg(k, S)) << "S non-negative and descending";
    r.sv = sv_compare(k, S, Sref);
    EXPECT_LT(r.sv, sv_threshold(m, n)) << "|S - S_lapack| / (|S| eps)";
    if (U) {
        r.orth_u = orthogonality(m, k, U, ldu);
        EXPECT_LT(r.orth_u, kSvdThreshold) << "|I - U^T U| / (m eps)";
    }
    if (V) {
        r.orth_v = orthogonality(n, k, V, ldv);
        EXPECT_LT(r.orth_v, kSvdThreshold) << "|I - V^T V| / (n eps)";
    }
    if (U && V) {
        r.resid = svd_residual(m, n, A0, lda0, S, U, ldu, V, ldv);
        EXPECT_LT(r.resid, kSvdThreshold) << "|A - U S V^T| / (|A| max(m,n) eps)";
    }
    return r;
}

struct GesvjResult {
    int info = 0;
    double resid = 0, orth_u = 0, orth_v = 0, sv_vs_lapack = 0;
};

template <typename T>
using GesvjFn = std::remove_const_t<decltype(Api<T>::gesvj)>;
template <typename T>
using GesvjBatchedFn = std::remove_const_t<decltype(Api<T>::gesvj_batched)>;

/// Runs gesvj (or `call`) on A0 (m x n, leading dimension m) in all four job combinations with
/// padded leading dimensions and checks everything DESIGN.md asks of an SVD. Returns the ratios of
/// the VEC/VEC run and S through *S_out.
template <typename T, typename Call = GesvjFn<T>>
GesvjResult check_gesvj(gpusvdHandle_t h, int64_t m, int64_t n, const std::vector<T> &A0,
                        std::vector<T> *S_out = nullptr, Call call = Api<T>::gesvj) {
    GesvjResult r;
    const int64_t k = std::min(m, n);
    const int64_t lda = m + 2, ldu = m + 1, ldv = n + 3;
    const T pad = sentinel<T>();
    const std::vector<double> Sref = ref_singular_values_double(m, n, A0.data(), m);

    std::vector<T> S_vec;
    for (int ju = 1; ju >= 0; --ju)
        for (int jv = 1; jv >= 0; --jv) {
            SCOPED_TRACE(testing::Message() << "jobu=" << ju << " jobv=" << jv);
            std::vector<T> A = with_ld(m, n, A0.data(), m, lda, pad);
            std::vector<T> S = sentinels<T>(sz(k + 2));
            std::vector<T> U = sentinels<T>(sz(ldu * k + 1));
            std::vector<T> V = sentinels<T>(sz(ldv * k + 1));
            int info = -777;
            GPUSVD_EXPECT_OK(
                h, call(h, ju ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC,
                        jv ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC, m, n, A.data(), lda, S.data(),
                        ju ? U.data() : nullptr, ldu, jv ? V.data() : nullptr, ldv, &info));
            EXPECT_EQ(info, 0);
            EXPECT_EQ(S[sz(k)], pad) << "S written past k";
            EXPECT_EQ(S[sz(k + 1)], pad) << "S written past k";
            EXPECT_TRUE(padding_intact(m, n, A.data(), lda, pad)) << "A written outside m x n";
            if (ju) {
                EXPECT_TRUE(padding_intact(m, k, U.data(), ldu, pad)) << "U written outside m x k";
                EXPECT_EQ(U.back(), pad);
            }
            if (jv) {
                EXPECT_TRUE(padding_intact(n, k, V.data(), ldv, pad)) << "V written outside n x k";
                EXPECT_EQ(V.back(), pad);
            }
            const SvdRatios q = expect_svd(m, n, A0.data(), m, S.data(), ju ? U.data() : nullptr,
                                           ldu, jv ? V.data() : nullptr, ldv, Sref.data());
            if (ju && jv) {
                r = GesvjResult{info, q.resid, q.orth_u, q.orth_v, q.sv};
                S_vec.assign(S.begin(), S.begin() + k);
            } else if (!S_vec.empty()) {
                // Values do not depend on whether vectors are accumulated.
                EXPECT_LT(sv_compare(k, S.data(), S_vec.data()), sv_threshold(m, n));
            }
        }
    if (verbose())
        std::printf("  gesvj %lld x %lld: resid %.3g orthU %.3g orthV %.3g sv %.3g\n", (long long)m,
                    (long long)n, r.resid, r.orth_u, r.orth_v, r.sv_vs_lapack);
    if (S_out) *S_out = S_vec;
    return r;
}

/// What check_gesvj_batched returns: S of matrix b at S.data() + b * sS, and info.
template <typename T>
struct GesvjBatchOut {
    std::vector<T> S;
    int64_t sS = 0;
    std::vector<int> info;
};

/// Runs gesvj_batched (or `call`) on `mats` (each m x n, leading dimension m) as one batch with
/// padded (tight = false) or tight leading dimensions and strides, and checks every matrix: one
/// holding NaN/Inf gets GPUSVD_INFO_NONFINITE and NaN outputs, every other info 0 and the
/// DESIGN.md ratios; nothing between the matrices is written.
template <typename T, typename Call = GesvjBatchedFn<T>>
GesvjBatchOut<T> check_gesvj_batched(gpusvdHandle_t h, gpusvdJob_t jobu, gpusvdJob_t jobv,
                                     int64_t m, int64_t n, const std::vector<std::vector<T>> &mats,
                                     bool tight, Call call = Api<T>::gesvj_batched) {
    const bool wu = jobu == GPUSVD_JOB_VEC, wv = jobv == GPUSVD_JOB_VEC;
    const int64_t batch = int64_t(mats.size()), k = std::min(m, n);
    const int64_t lda = tight ? m : m + 1, ldu = tight ? m : m + 2, ldv = tight ? n : n + 1;
    const int64_t sA = lda * n + (tight ? 0 : 5), sS = k + (tight ? 0 : 3),
                  sU = ldu * k + (tight ? 0 : 2), sV = ldv * k + (tight ? 0 : 7);
    const T pad = sentinel<T>();
    std::vector<T> A(sz(sA * batch), pad), S(sz(sS * batch), pad), U(sz(wu ? sU * batch : 0), pad),
        V(sz(wv ? sV * batch : 0), pad);
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i)
                A[sz(b * sA + i + j * lda)] = mats[sz(b)][sz(i + j * m)];
    GesvjBatchOut<T> out{{}, sS, std::vector<int>(sz(batch), -777)};
    GPUSVD_EXPECT_OK(
        h, call(h, jobu, jobv, m, n, A.data(), lda, sA, S.data(), sS, wu ? U.data() : nullptr, ldu,
                sU, wv ? V.data() : nullptr, ldv, sV, batch, out.info.data()));
    for (int64_t b = 0; b < batch; ++b) {
        SCOPED_TRACE(testing::Message() << "matrix " << b << " of " << batch);
        const std::vector<T> &A0 = mats[sz(b)];
        const T *Sb = S.data() + b * sS, *Ub = wu ? U.data() + b * sU : nullptr,
                *Vb = wv ? V.data() + b * sV : nullptr;
        if (has_nonfinite(m, n, A0.data(), m)) {
            EXPECT_EQ(out.info[sz(b)], GPUSVD_INFO_NONFINITE);
            EXPECT_TRUE(all_nan(k, 1, Sb, k));
            if (Ub) {
                EXPECT_TRUE(all_nan(m, k, Ub, ldu));
            }
            if (Vb) {
                EXPECT_TRUE(all_nan(n, k, Vb, ldv));
            }
        } else {
            EXPECT_EQ(out.info[sz(b)], 0);
            const std::vector<double> Sref = ref_singular_values_double(m, n, A0.data(), m);
            expect_svd(m, n, A0.data(), m, Sb, Ub, ldu, Vb, ldv, Sref.data());
        }
        // Nothing between the matrices was written.
        for (int64_t i = k; i < sS; ++i) EXPECT_EQ(Sb[i], pad);
        for (int64_t i = lda * n; i < sA; ++i) EXPECT_EQ(A[sz(b * sA + i)], pad);
        EXPECT_TRUE(padding_intact(m, n, A.data() + b * sA, lda, pad));
        if (Ub) {
            EXPECT_TRUE(padding_intact(m, k, Ub, ldu, pad));
            for (int64_t i = ldu * k; i < sU; ++i) EXPECT_EQ(Ub[i], pad);
        }
        if (Vb) {
            EXPECT_TRUE(padding_intact(n, k, Vb, ldv, pad));
            for (int64_t i = ldv * k; i < sV; ++i) EXPECT_EQ(Vb[i], pad);
        }
    }
    out.S = std::move(S);
    return out;
}

/// A graded test matrix A = B * D, D = diag(1 .. 1e-10) (for wide shapes D * B: the rows are
/// graded, the columns of the A^T that Jacobi works on), and cond(B) with B's columns (rows)
/// normalised to unit length.
template <typename T>
struct GradedCase {
    std::vector<T> A;
    double condB = 0;
};

template <typename T>
GradedCase<T> graded_case(Rng &rng, int64_t m, int64_t n) {
    GradedCase<T> g;
    g.A.resize(sz(m * n));
    const bool tall = m >= n;
    graded(rng, m, n, g.A.data(), m, tall ? 1.0 : 1e-10, tall ? 1e-10 : 1.0);
    // Normalise the graded side: column j (tall) or row i (wide) of A to unit length.
    std::vector<T> Bn = g.A;
    const int64_t lines = tall ? n : m, len = tall ? m : n;
    const int64_t step = tall ? 1 : m,
                  stride = tall ? m : 1;  // element p of line l: l*stride + p*step
    for (int64_t l = 0; l < lines; ++l) {
        long double nr = 0;
        for (int64_t p = 0; p < len; ++p)
            nr += (long double)g.A[sz(l * stride + p * step)] * g.A[sz(l * stride + p * step)];
        for (int64_t p = 0; p < len; ++p)
            Bn[sz(l * stride + p * step)] = T(g.A[sz(l * stride + p * step)] / std::sqrt(nr));
    }
    const std::vector<long double> sb = ref_jacobi_long_double(m, n, Bn.data(), m);
    g.condB = double(sb.front() / sb.back());
    return g;
}

/// check_gesvj on a graded case, then the relative error of every singular value, including the
/// ~1e-10 ones, against one-sided Jacobi in long double: O(eps cond(B)) for one-sided Jacobi
/// (Demmel & Veselic), unlike bidiagonalization.
template <typename T, typename Call = GesvjFn<T>>
void check_graded_accuracy(gpusvdHandle_t h, int64_t m, int64_t n, const GradedCase<T> &g,
                           Call call = Api<T>::gesvj) {
    const int64_t k = std::min(m, n);
    std::vector<T> S;
    check_gesvj<T>(h, m, n, g.A, &S, call);
    ASSERT_EQ(S.size(), sz(k));
    const std::vector<long double> ref = ref_jacobi_long_double(m, n, g.A.data(), m);
    if (k >= 4) {  // the grading is real
        EXPECT_LT(double(ref.front() / ref.back()), 1e13);
        EXPECT_GT(double(ref.front() / ref.back()), 1e8);
    }
    const double rel = sv_relative(k, S.data(), ref.data());
    EXPECT_LT(rel, 50.0 * g.condB)
        << "max_i |S_i - S_ref_i| / (S_ref_i eps), cond(B) = " << g.condB;
    if (verbose())
        std::printf("  graded %lld x %lld: rel %.3g cond(B) %.3g\n", (long long)m, (long long)n,
                    rel, g.condB);
}

}  // namespace gpusvd_test
