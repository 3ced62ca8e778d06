// Shared checks of the geev_batched tests (test_geev_batched, test_gpu_geev, the complex team
// test): run a call with the signature of gpusvd_Xgeev_batched on padded layouts, compare with
// LAPACK ?geevx per matrix (sort-independent matching relative to ||A|| eps and the eigenvalue
// condition number), residual |A VR - VR W| / (n |A| eps) < 20 and ?geev's normalisation of the
// vectors; real (wr, wi) and complex (one array W) eigenvalues.
#pragma once

#include <algorithm>
#include <complex>
#include <type_traits>

#include "test_common.hpp"
#include "worst_ratios.hpp"

namespace gpusvd_test {

constexpr double kEigThreshold = 20.0;  // DESIGN.md: eig residual < 20
constexpr double kNormThreshold = 10.0;  // | |v|_2 - 1 | / eps, largest component real

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

// ---- Complex matrices (zgeev's conventions: one eigenvalue array W) ----------------------------

template <typename R>
using Cx = std::complex<R>;

inline lapack_int ref_geevx_c(int n, Cx<float> *a, Cx<float> *w, float *rconde) {
    int ilo, ihi;
    float abnrm;
    const size_t nn = sz(std::max(n, 1));
    std::vector<float> scale(nn), rcondv(nn);
    std::vector<Cx<float>> vl(nn * nn), vr(nn * nn);  // rconde needs both sides' vectors
    return LAPACKE_cgeevx(LAPACK_COL_MAJOR, 'B', 'V', 'V', 'E', n, a, std::max(1, n), w,
                          vl.data(), std::max(1, n), vr.data(), std::max(1, n), &ilo, &ihi,
                          scale.data(), &abnrm, rconde, rcondv.data());
}
inline lapack_int ref_geevx_c(int n, Cx<double> *a, Cx<double> *w, double *rconde) {
    int ilo, ihi;
    double abnrm;
    const size_t nn = sz(std::max(n, 1));
    std::vector<double> scale(nn), rcondv(nn);
    std::vector<Cx<double>> vl(nn * nn), vr(nn * nn);
    return LAPACKE_zgeevx(LAPACK_COL_MAJOR, 'B', 'V', 'V', 'E', n, a, std::max(1, n), w,
                          vl.data(), std::max(1, n), vr.data(), std::max(1, n), &ilo, &ihi,
                          scale.data(), &abnrm, rconde, rcondv.data());
}

/// LAPACK ?geevx of a complex matrix: eigenvalues and the largest condition number 1/rconde.
template <typename R>
struct EigRefC {
    std::vector<Cx<R>> w;
    double kappa = 1;
};
template <typename R>
EigRefC<R> ref_eig_c(int64_t n, const std::vector<Cx<R>> &A) {
    EigRefC<R> r;
    if (n == 0) return r;
    std::vector<Cx<R>> B = A;
    std::vector<R> rconde(sz(n));
    r.w.resize(sz(n));
    EXPECT_EQ(ref_geevx_c(int(n), B.data(), r.w.data(), rconde.data()), 0);
    for (R c : rconde) r.kappa = std::max(r.kappa, c > R(0) ? 1.0 / double(c) : 1e30);
    return r;
}

/// max |w_i - ref_p(i)| / (anorm eps) over the matching that sorts both sets (real part, then
/// imaginary part) and pairs each value with the nearest unused reference value.
template <typename R>
double eig_match_c(int64_t n, const Cx<R> *w, const Cx<R> *ref, double anorm) {
    std::vector<Cx<double>> a(sz(n)), b(sz(n));
    for (int64_t i = 0; i < n; ++i) a[sz(i)] = Cx<double>(w[i]), b[sz(i)] = Cx<double>(ref[i]);
    const auto less = [](Cx<double> x, Cx<double> y) {
        return x.real() < y.real() || (x.real() == y.real() && x.imag() < y.imag());
    };
    std::sort(a.begin(), a.end(), less);
    std::sort(b.begin(), b.end(), less);
    std::vector<char> used(sz(n), 0);
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
        int64_t best = -1;
        double d = 0;
        for (int64_t j = 0; j < n; ++j) {
            if (used[sz(j)]) continue;
            const double e = std::abs(a[sz(i)] - b[sz(j)]);
            if (best < 0 || e < d) d = e, best = j;
        }
        if (best < 0 || !std::isfinite(d)) return std::numeric_limits<double>::infinity();
        used[sz(best)] = 1;
        worst = std::max(worst, d);
    }
    return anorm > 0 ? worst / (anorm * eps<R>()) : worst / eps<R>();
}

/// zgeev's normalisation of VR's columns (n x n, ld n): max | |v|_2 - 1 | / eps, or +Inf where
/// no component of (within rounding) the largest modulus is real. Exact ties (a companion
/// matrix's vectors (lambda^k) for |lambda| = 1) leave the choice among them to rounding.
template <typename R>
double normalisation_c(int64_t n, const Cx<R> *VR) {
    double worst = 0;
    for (int64_t j = 0; j < n; ++j) {
        double ss = 0, big = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double a = std::abs(Cx<double>(VR[i + j * n]));
            ss += a * a;
            big = std::max(big, a);
        }
        bool real_found = false;
        for (int64_t i = 0; i < n; ++i) {
            const Cx<double> v(VR[i + j * n]);
            if (std::abs(v) >= big * (1 - 16 * eps<R>()) &&
                std::abs(v.imag()) <= 4 * eps<R>() * big)
                real_found = true;
        }
        if (!real_found) return std::numeric_limits<double>::infinity();
        worst = std::max(worst, std::abs(std::sqrt(ss) - 1.0) / eps<R>());
    }
    return worst;
}

/// One complex geev result: eigenvalues, vectors (n x n, ld n), info.
template <typename R>
struct EigOutC {
    std::vector<Cx<R>> w, VR;
    int info = -777;
};

template <typename R>
using GeevBatchedFnC = std::remove_const_t<decltype(Api<PublicComplex<R>>::geev_batched)>;

/// run_geev for complex matrices: `call` has the signature of gpusvd_Xgeev_batched for X = c, z.
template <typename R, typename Call = GeevBatchedFnC<R>>
std::vector<EigOutC<R>> run_geev_c(gpusvdHandle_t h, int64_t n,
                                   const std::vector<std::vector<Cx<R>>> &mats, bool vectors,
                                   Call call = Api<PublicComplex<R>>::geev_batched) {
    using P = PublicComplex<R>;
    const int64_t batch = int64_t(mats.size());
    const int64_t lda = n + 1, sA = lda * n + 2, sW = n + 1, ldvr = n + 2, sVR = ldvr * n + 3;
    const Cx<R> pad(sentinel<R>(), -sentinel<R>());
    std::vector<Cx<R>> A(sz(std::max<int64_t>(sA * batch, 1)), pad), W(sz(sW * batch), pad),
        VR(sz(std::max<int64_t>(sVR * batch, 1)), pad);
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i)
                A[sz(b * sA + i + j * lda)] = mats[sz(b)][sz(i + j * n)];
    std::vector<int> info(sz(batch), -777);
    const auto P_ = [](Cx<R> *p) { return reinterpret_cast<P *>(p); };
    const gpusvdStatus_t st =
        call(h, vectors ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC, n, P_(A.data()), lda, sA,
             P_(W.data()), sW, vectors ? P_(VR.data()) : nullptr, vectors ? ldvr : 1, sVR, batch,
             info.data());
    EXPECT_EQ(st, GPUSVD_STATUS_SUCCESS) << gpusvdGetErrorMessage(h);
    std::vector<EigOutC<R>> out(sz(batch));
    for (int64_t b = 0; b < batch; ++b) {
        EigOutC<R> &o = out[sz(b)];
        o.info = info[sz(b)];
        o.w.assign(W.begin() + b * sW, W.begin() + b * sW + n);
        EXPECT_EQ(W[sz(b * sW + n)], pad) << "W written past n";
        EXPECT_TRUE(padding_intact(n, n, A.data() + b * sA, lda, pad)) << "A padding";
        if (vectors) {
            const Cx<R> *V = VR.data() + b * sVR;
            EXPECT_TRUE(padding_intact(n, n, V, ldvr, pad)) << "VR written outside n x n";
            for (int64_t i = ldvr * n; i < sVR; ++i) EXPECT_EQ(V[i], pad);
            o.VR.resize(sz(n * n));
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i) o.VR[sz(i + j * n)] = V[i + j * ldvr];
        } else {
            EXPECT_TRUE(std::all_of(VR.begin(), VR.end(), [&](Cx<R> z) { return z == pad; }))
                << "VR referenced with jobvr = NOVEC";
        }
    }
    return out;
}

/// The ratios of one checked eigen-decomposition; kappa is the reference's condition estimate.
struct EigRatios {
    double match = 0, resid = 0, norm = 0, kappa = 1;
};

/// Worst eigenvalue match (of results with kappa < 1e3: ill-conditioned ones say little),
/// residual and normalisation met, per precision (tests/worst_ratios.hpp).
struct EigWorst {
    double match = 0, resid = 0, norm = 0;
    int checked = 0;
    void record(const EigRatios &r, bool vectors) {
        ++checked;
        if (r.kappa < 1e3) match = std::max(match, r.match);
        if (vectors) {
            resid = std::max(resid, r.resid);
            norm = std::max(norm, r.norm);
        }
    }
    static void print(const EigWorst &w, const char *name) {
        std::printf(
            "[team geev %s] %d results checked; worst: eigenvalue match %.3g (|A| eps, "
            "kappa < 1e3), residual %.3g (< %g), normalisation %.3g (< %g)\n",
            name, w.checked, w.match, w.resid, kEigThreshold, w.norm, kNormThreshold);
    }
};

/// Checks one complex result: info 0, eigenvalues matched to LAPACK's (and to `exact` if given)
/// within 20 n kappa |A| eps, and with vectors the residual (< 20) and zgeev's normalisation.
/// Returns the ratios; match is infinite when info is not 0 (nothing else is checked then).
template <typename R>
EigRatios eig_ratios_c(int64_t n, const std::vector<Cx<R>> &A0, const EigOutC<R> &o,
                       bool vectors, const std::vector<Cx<R>> *exact = nullptr) {
    EigRatios r;
    EXPECT_EQ(o.info, 0);
    if (o.info != 0) {
        r.match = std::numeric_limits<double>::infinity();
        return r;
    }
    const double anorm = norm1_h(n, n, A0.data(), n);
    const EigRefC<R> ref = ref_eig_c(n, A0);
    r.kappa = ref.kappa;
    const double tol = 20.0 * double(std::max<int64_t>(n, 1)) * ref.kappa;
    r.match = eig_match_c(n, o.w.data(), ref.w.data(), anorm);
    EXPECT_LE(r.match, tol)
        << "eigenvalues vs LAPACK: max |lambda - lambda_ref| / (|A| eps), kappa " << ref.kappa;
    if (exact) {
        EXPECT_LE(eig_match_c(n, o.w.data(), exact->data(), anorm), tol)
            << "eigenvalues vs the exact ones";
    }
    if (vectors) {
        r.resid = eig_residual_c(n, A0.data(), n, o.w.data(), o.VR.data(), n);
        EXPECT_LT(r.resid, kEigThreshold) << "|A VR - VR W| / (n |A| eps)";
        r.norm = normalisation_c(n, o.VR.data());
        EXPECT_LT(r.norm, kNormThreshold) << "unit 2-norm, largest component real";
        if (verbose())
            std::printf("  n=%lld match %.3g (tol %.3g) resid %.3g norm %.3g\n", (long long)n,
                        r.match, tol, r.resid, r.norm);
    }
    return r;
}

/// eig_ratios_c's checks; returns the match ratio.
template <typename R>
double check_eig_c(int64_t n, const std::vector<Cx<R>> &A0, const EigOutC<R> &o, bool vectors,
                   const std::vector<Cx<R>> *exact = nullptr) {
    return eig_ratios_c(n, A0, o, vectors, exact).match;
}

/// EXPECTs the outcome of a complex matrix holding NaN/Inf: info -1, every part of W (and VR)
/// NaN.
template <typename R>
void expect_eig_nonfinite_c(const EigOutC<R> &o, bool vectors) {
    EXPECT_EQ(o.info, GPUSVD_INFO_NONFINITE);
    for (const Cx<R> &x : o.w) EXPECT_TRUE(std::isnan(x.real()) && std::isnan(x.imag()));
    if (vectors) {
        for (const Cx<R> &x : o.VR) EXPECT_TRUE(std::isnan(x.real()) && std::isnan(x.imag()));
    }
}

/// EXPECTs that the band stages wrote only their matrix's band in B (entries stride apart from
/// `slot`, band_entries of them, padded with `pad`): the entry past its end untouched and, with
/// interleaved bands (stride > 1), every other slot's entries too.
template <class E>
void expect_own_band_only(const std::vector<E> &B, size_t band_entries, int stride, int slot,
                          const E &pad) {
    EXPECT_EQ(B[band_entries * size_t(stride) + size_t(slot)], pad) << "band written past its end";
    if (stride > 1) {
        size_t touched = 0;
        for (size_t e = 0; e < B.size(); ++e)
            touched += e % size_t(stride) != size_t(slot) && B[e] != pad;
        EXPECT_EQ(touched, 0u) << "another matrix's band written";
    }
}

/// The band stages (geev_band.hpp) against the one-stage team on each (n, A) of `mats`: sweep
/// caps 0 (the default) and 2, 1 and 5 members (a team's reductions round by its size, so alike
/// are compared), and for a lone member also the thread-per-matrix QR's interleaved bands.
/// one_stage(n, A, members, itmax) and band_stages(n, A, members, itmax, interleaved) return
/// results with `info`; same(n, one, two) EXPECTs bitwise equal eigenvalues. Returns how many
/// one-stage runs failed (info > 0).
template <class Mats, class OneStage, class BandStages, class Same>
int compare_band_stages(const Mats &mats, OneStage one_stage, BandStages band_stages, Same same) {
    int failed = 0;
    for (const auto &m : mats) {
        const int64_t n = m.first;
        for (int itmax : {0, 2}) {
            for (int members : {0, 5}) {
                SCOPED_TRACE(testing::Message() << "n = " << n << ", itmax " << itmax << ", "
                                                << members << " members");
                const auto one = one_stage(n, m.second, members, itmax);
                failed += one.info > 0;
                for (bool interleaved : {false, true}) {
                    if (interleaved && members != 0) continue;  // the GPU's lone thread only
                    SCOPED_TRACE(interleaved ? "interleaved bands" : "one band");
                    const auto two = band_stages(n, m.second, members, itmax, interleaved);
                    EXPECT_EQ(two.info, one.info);
                    same(n, one, two);
                }
            }
        }
    }
    return failed;
}

}  // namespace gpusvd_test
