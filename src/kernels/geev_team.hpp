// Eigenvalues and right eigenvectors of one general real or complex matrix by a team (see
// team.hpp): the path of LAPACK dgeev / zgeev, written once for SerialTeam (the host reference
// tested against LAPACK in CI) and for the GPU's TileTeam (8, 16 or 32 lanes) / BlockTeam
// (cuda/geev/geev.cu).
//
//   scale into [smlnum, bignum] if needed -> gebal 'B' -> gehd2 -> orghr (vectors) -> lahqr ->
//   trevc + gebak + normalisation (vectors) -> undo the scaling of the eigenvalues
//
// Real and complex elements share the scaling, balancing and Hessenberg steps; the QR iteration
// (double-shift dlahqr / single-shift zlahqr), the back-substitution (quasi-triangular dtrevc /
// triangular ztrevc) and the normalisation are each element type's own.
#pragma once

#include <type_traits>

#include "gpusvd.h"
#include "kernels/geev_balance.hpp"
#include "kernels/geev_hessenberg.hpp"
#include "kernels/geev_hqr.hpp"
#include "kernels/geev_hqr_complex.hpp"
#include "kernels/geev_scalar.hpp"
#include "kernels/geev_trevc.hpp"
#include "kernels/geev_trevc_complex.hpp"

namespace gpusvd {
namespace kernels {
namespace geev {

/// Where one matrix's working set lives (shared or global memory; any leading dimensions).
template <class T>
struct GeevWork {
    Mat<T> H;          // n x n: the input matrix on entry, destroyed
    Mat<T> Z;          // n x n: the right eigenvectors on exit; unused (p may be null) without them
    T *wr, *wi;        // n each; complex T: the eigenvalues in wr, wi unused (may be null)
    RealOf<T> *scale;  // n: balancing
    T *work;           // 3n: Householder scalars, then the back-substitution vectors
};

/// The QR iteration's loop state for element type T: dlahqr's or zlahqr's.
template <class T, class HM>
using QrLoop =
    typename std::conditional<kIsComplex<T>, HqrLoopComplex<T, HM>, HqrLoop<T, HM>>::type;

/// One matrix's dgeev between geev_begin and geev_finish: what the QR iteration needs and what
/// the finish undoes.
template <class T, class HM = Mat<T>>
struct GeevRun {
    QrLoop<T, HM> qr;       // advanced by lahqr_run until qr.phase is kDone
    int ilo = 0, ihi = -1;  // balancing's active block
    int info = 0;           // GPUSVD_INFO_NONFINITE when H held NaN or Inf
    bool scalea = false;    // H was scaled by cscale / anrm
    RealOf<T> anrm = RealOf<T>(0), cscale = RealOf<T>(1);
};

/// dgeev up to the QR iteration: the NaN/Inf check, scaling, balancing, Hessenberg reduction
/// and (vectors) the accumulated Householder reflectors; then lahqr_start.
template <class T, class Team>
GPUSVD_HD GeevRun<T> geev_begin(const Team &t, bool wantvr, int n, const GeevWork<T> &w,
                                int qr_itmax = 0) {
    using R = RealOf<T>;
    const int rank = t.rank(), size = t.size();
    GeevRun<T> r;
    if (n <= 0) return r;
    Mat<T> H = w.H, Z = w.Z;

    R anrm = R(0);  // zlange 'M': the largest modulus
    int bad = 0;
    for (int j = 0; j < n; ++j)
        GPUSVD_NO_UNROLL
        for (int i = rank; i < n; i += size) {
            const T x = H(i, j);
            if (is_finite(x))
                anrm = std::fmax(anrm, abs_elem(x));
            else
                bad = 1;
        }
    if (t.max(bad) != 0) {
        const T nan = nan_elem<T>();
        for (int i = rank; i < n; i += size) {
            w.wr[i] = nan;
            if constexpr (!kIsComplex<T>) w.wi[i] = nan;
        }
        if (wantvr)
            for (int j = 0; j < n; ++j)
                for (int i = rank; i < n; i += size) Z(i, j) = nan;
        r.info = GPUSVD_INFO_NONFINITE;
        return r;
    }
    r.anrm = anrm = t.max(anrm);

    // Scale A to a range where the algorithm is safe (dgeev's smlnum/bignum).
    const R smlnum = std::sqrt(Real<R>::safe_min()) / Real<R>::ulp();
    const R bignum = R(1) / smlnum;
    if (anrm > R(0) && anrm < smlnum) {
        r.scalea = true;
        r.cscale = smlnum;
    } else if (anrm > bignum) {
        r.scalea = true;
        r.cscale = bignum;
    }
    // The scan read only this member's entries, which is all scale_matrix writes.
    if (r.scalea) scale_matrix(t, n, n, H, anrm, r.cscale);

    gebal(t, n, H, w.scale, r.ilo, r.ihi);
    gehd2(t, n, r.ilo, r.ihi, H, w.work);
    if (wantvr) orghr(t, n, r.ilo, r.ihi, H, w.work, Z);
    clear_below_subdiagonal(t, n, H);
    if constexpr (kIsComplex<T>)
        r.qr = zlahqr_start(t, wantvr, wantvr, n, r.ilo, r.ihi, H, w.wr, Z, qr_itmax);
    else
        r.qr = lahqr_start(t, wantvr, wantvr, n, r.ilo, r.ihi, H, w.wr, w.wi, Z, qr_itmax);
    return r;
}

/// dgeev after the QR iteration (r.qr done): eigenvectors, back-transformation, normalisation
/// and unscaling. Returns info, the same on every member (see geev_team). Ends with a sync.
template <class T, class HM, class Team>
GPUSVD_HD int geev_finish(const Team &t, bool wantvr, int n, const GeevWork<T> &w,
                          const GeevRun<T, HM> &r) {
    const int rank = t.rank(), size = t.size();
    t.sync();
    if (n <= 0 || r.info != 0) return r.info;
    const int info = r.qr.info;
    Mat<T> Z = w.Z;
    if (info > 0) {
        const T nan = nan_elem<T>();
        for (int i = r.ilo + rank; i < info; i += size) {
            w.wr[i] = nan;
            if constexpr (!kIsComplex<T>) w.wi[i] = nan;
        }
        if (wantvr)
            for (int j = 0; j < n; ++j)
                for (int i = rank; i < n; i += size) Z(i, j) = nan;
        t.sync();
    } else if (wantvr) {
        if constexpr (kIsComplex<T>) {
            trevc_complex(t, n, w.H, Z, w.work);
            gebak(t, n, r.ilo, r.ihi, w.scale, Z);
            normalize_vectors_complex(t, n, Z);
        } else {
            trevc(t, n, w.H, Z, w.work);
            gebak(t, n, r.ilo, r.ihi, w.scale, Z);
            normalize_vectors(t, n, w.wi, Z);
        }
    }
    if (r.scalea) {  // NaN entries of a failed iteration stay NaN
        scale_vector(t, n, w.wr, r.cscale, r.anrm);
        if constexpr (!kIsComplex<T>) scale_vector(t, n, w.wi, r.cscale, r.anrm);
    }
    t.sync();
    return info;
}

/// dgeev / zgeev on w.H (n >= 0). Returns info, the same on every member: 0; i > 0 when the QR
/// iteration failed (dgeev's meaning: eigenvalues i..n-1, 0-based, converged; the others are
/// NaN here, as is Z); GPUSVD_INFO_NONFINITE when H holds NaN or Inf (all outputs NaN).
/// Real: complex pairs are adjacent with the positive imaginary part first. Each vector has
/// unit 2-norm and its largest component real. qr_itmax > 0 overrides the QR iteration cap
/// (tests). Ends with a sync.
template <class T, class Team>
GPUSVD_HD int geev_team(const Team &t, bool wantvr, int n, const GeevWork<T> &w, int qr_itmax = 0) {
    GeevRun<T> r = geev_begin(t, wantvr, n, w, qr_itmax);
    // The same pointers again, from w: through geev_begin's returned struct the GPU compiler
    // loses their address space and every QR access became generic (64-bit addressing and a
    // longer latency than ld.shared; PTX of the warp kernels checked).
    if constexpr (kIsComplex<T>) {
        r.qr.H = w.H, r.qr.Z = w.Z, r.qr.w = w.wr;
        zlahqr_run(t, r.qr);
    } else {
        r.qr.H = w.H, r.qr.Z = w.Z, r.qr.wr = w.wr, r.qr.wi = w.wi;
        lahqr_run(t, r.qr);
    }
    return geev_finish(t, wantvr, n, w, r);
}

}  // namespace geev
}  // namespace kernels
}  // namespace gpusvd
