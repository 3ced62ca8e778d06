// Shared checks of the geev_batched tests (test_geev_batched, test_gpu_geev): run a call with the
// signature of gpusvd_Xgeev_batched on padded layouts, compare with LAPACK ?geevx per matrix
// (sort-independent matching relative to ||A|| eps and the eigenvalue condition number), residual
// |A VR - VR W| / (n |A| eps) < 20 and ?geev's normalisation of the vectors.
#pragma once

#include <type_traits>

#include "test_common.hpp"

namespace gpusvd_test {

constexpr double kEigThreshold = 20.0;  // DESIGN.md: eig residual < 20

template <typename T>
struct EigOut {
    std::vector<T> wr, wi, VR;  // VR: n x n, leading dimension n
    int info = -777;
};

template <typename T>
using GeevBatchedFn = std::remove_const_t<decltype(Api<T>::geev_batched)>;

/// Runs geev_batched (or `call`, same signature) over `mats` (each n x n, leading dimension n) as
/// one batch with padded leading dimensions and strides; checks that padding is untouched.
template <typename T, typename Call = GeevBatchedFn<T>>
std::vector<EigOut<T>> run_geev(gpusvdHandle_t h, int64_t n,
                                const std::vector<std::vector<T>> &mats, bool vectors,
                                Call call = Api<T>::geev_batched) {
    const int64_t batch = int64_t(mats.size());
    const int64_t lda = n + 1, sA = lda * n + 2, sW = n + 1, ldvr = n + 2, sVR = ldvr * n + 3;
    const T pad = sentinel<T>();
    std::vector<T> A(sz(std::max<int64_t>(sA * batch, 1)), pad), wr(sz(sW * batch), pad),
        wi(sz(sW * batch), pad), VR(sz(std::max<int64_t>(sVR * batch, 1)), pad);
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i)
                A[sz(b * sA + i + j * lda)] = mats[sz(b)][sz(i + j * n)];
    std::vector<int> info(sz(batch), -777);
    const gpusvdJob_t job = vectors ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC;
    const gpusvdStatus_t st =
        call(h, job, n, A.data(), lda, sA, wr.data(), wi.data(), sW, vectors ? VR.data() : nullptr,
             vectors ? ldvr : 1, sVR, batch, info.data());
    EXPECT_EQ(st, GPUSVD_STATUS_SUCCESS) << gpusvdGetErrorMessage(h);
    std::vector<EigOut<T>> out(sz(batch));
    for (int64_t b = 0; b < batch; ++b) {
        EigOut<T> &o = out[sz(b)];
        o.info = info[sz(b)];
        o.wr.assign(wr.begin() + b * sW, wr.begin() + b * sW + n);
        o.wi.assign(wi.begin() + b * sW, wi.begin() + b * sW + n);
        EXPECT_EQ(wr[sz(b * sW + n)], pad) << "wr written past n";
        EXPECT_EQ(wi[sz(b * sW + n)], pad) << "wi written past n";
        EXPECT_TRUE(padding_intact(n, n, A.data() + b * sA, lda, pad)) << "A padding";
        if (vectors) {
            const T *V = VR.data() + b * sVR;
            EXPECT_TRUE(padding_intact(n, n, V, ldvr, pad)) << "VR written outside n x n";
            for (int64_t i = ldvr * n; i < sVR; ++i) EXPECT_EQ(V[i], pad);
            o.VR.resize(sz(n * n));
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i) o.VR[sz(i + j * n)] = V[i + j * ldvr];
        } else {
            EXPECT_TRUE(all_equal(VR, pad)) << "VR referenced with jobvr = NOVEC";
        }
    }
    return out;
}

/// LAPACK ?geevx reference: eigenvalues and the largest eigenvalue condition number 1/rconde.
template <typename T>
struct EigRef {
    std::vector<T> wr, wi;
    double kappa = 1;  // max_i 1 / rconde_i
};

template <typename T>
EigRef<T> ref_eig(int64_t n, const std::vector<T> &A0) {
    EigRef<T> r;
    const int64_t nn = std::max<int64_t>(n * n, 1);
    std::vector<T> A = A0, vl(sz(nn)), vr(sz(nn)), rconde(sz(std::max<int64_t>(n, 1)));
    r.wr.resize(sz(n));
    r.wi.resize(sz(n));
    if (n == 0) return r;
    const lapack_int info = lapacke_geevx(lapack_int(n), A.data(), lapack_int(n), r.wr.data(),
                                          r.wi.data(), vl.data(), vr.data(), rconde.data());
    EXPECT_EQ(info, 0) << "reference ?geevx failed";
    for (T rc : rconde)
        r.kappa =
            std::max(r.kappa, rc > 0 ? 1.0 / double(rc) : std::numeric_limits<double>::infinity());
    return r;
}

/// All checks of one matrix's result against LAPACK and, if given, the exact eigenvalues.
template <typename T>
void check_eig(int64_t n, const std::vector<T> &A0, const EigOut<T> &o, bool vectors,
               const double *exact_re = nullptr, const double *exact_im = nullptr) {
    EXPECT_EQ(o.info, 0);
    EXPECT_TRUE(eig_pairs_ok(n, o.wr.data(), o.wi.data()))
        << "complex pairs adjacent with positive imaginary part first";
    const double anorm = double(norm1(n, n, A0.data(), n));
    const EigRef<T> ref = ref_eig(n, A0);
    // |lambda - lambda_ref| <~ (backward error) * kappa: allow 20 n eps |A| kappa.
    const double tol = 20.0 * double(n) * ref.kappa;
    const double match =
        eig_match(n, o.wr.data(), o.wi.data(), ref.wr.data(), ref.wi.data(), anorm);
    EXPECT_LE(match, tol) << "eigenvalues vs LAPACK ?geev: max |lambda - lambda_ref| / (|A| eps), "
                          << "kappa = " << ref.kappa;
    if (exact_re) {
        const double me = eig_match(n, o.wr.data(), o.wi.data(), exact_re, exact_im, anorm);
        EXPECT_LE(me, tol) << "eigenvalues vs the exact ones";
    }
    double resid = 0, nrm = 0;
    if (vectors) {
        resid = eig_residual(n, A0.data(), n, o.wr.data(), o.wi.data(), o.VR.data(), n);
        EXPECT_LT(resid, kEigThreshold) << "|A VR - VR W| / (n |A| eps)";
        nrm = eigvec_normalization(n, o.wi.data(), o.VR.data(), n);
        EXPECT_LT(nrm, 10.0) << "unit 2-norm, largest component real";
    }
    if (verbose())
        std::printf("  geev n=%lld: match %.3g (tol %.3g) resid %.3g norm %.3g\n", (long long)n,
                    match, tol, resid, nrm);
}

/// EXPECTs the outcome of a matrix holding NaN/Inf: info GPUSVD_INFO_NONFINITE, NaN outputs.
template <typename T>
void expect_eig_nonfinite(int64_t n, const EigOut<T> &o, bool vectors) {
    EXPECT_EQ(o.info, GPUSVD_INFO_NONFINITE);
    EXPECT_TRUE(all_nan(n, 1, o.wr.data(), n));
    EXPECT_TRUE(all_nan(n, 1, o.wi.data(), n));
    if (vectors) {
        EXPECT_TRUE(all_nan(n, n, o.VR.data(), n));
    }
}

/// EXPECTs that two results for the same matrix A0 (n x n, leading dimension n) have the same
/// eigenvalues up to both errors, 2 x 20 n eps |A| kappa; kappa (from ?geevx) is computed only
/// when the difference exceeds the bound for kappa = 1, which keeps large batches cheap.
template <typename T>
void expect_same_eigenvalues(int64_t n, const std::vector<T> &A0, const EigOut<T> &a,
                             const EigOut<T> &b) {
    const double anorm = double(norm1(n, n, A0.data(), n));
    const double d = eig_match(n, a.wr.data(), a.wi.data(), b.wr.data(), b.wi.data(), anorm);
    if (d <= 40.0 * double(n)) return;
    const double kappa = ref_eig(n, A0).kappa;
    EXPECT_LE(d, 40.0 * double(n) * kappa)
        << "max |lambda_a - lambda_b| / (|A| eps), kappa = " << kappa;
}

}  // namespace gpusvd_test
