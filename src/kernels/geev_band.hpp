// Eigenvalues only, in two stages (two kernels on the GPU, cuda/geev/geev.cu): geev_reduce_stage
// runs dgeev / zgeev up to the Hessenberg form in a working set of H, the scales and the
// Householder scalars and writes H back into the caller's A (and five scalars into its
// eigenvalue arrays); geev_band_stage copies H into band storage and runs the QR iteration there.
//
// Why: the QR iteration is latency-bound with 16 or 32 lanes per matrix, and how many matrices
// an SM keeps in flight is set by shared memory. Without vectors dlahqr only touches H(i, j) for
// i <= j + 3 (the Hessenberg form plus the double-shift bulge's two extra subdiagonals; zlahqr's
// single-shift bulge needs one), n(n+7)/2 entries instead of n(n|1): at 30x30 double 4.4 KB
// instead of 7.4 KB, twice the resident warps.
#pragma once

#include <type_traits>

#include "kernels/geev_team.hpp"

namespace gpusvd {
namespace kernels {
namespace geev {

/// Every S-th T from p: a column of S bands interleaved entry by entry (BandMat with S > 1).
template <class T, int S>
struct StridedPtr {
    T *p;
    GPUSVD_HD T &operator[](int i) const { return p[i * S]; }
    GPUSVD_HD T &operator*() const { return *p; }
    GPUSVD_HD StridedPtr operator+(int i) const { return StridedPtr{p + i * S}; }
    GPUSVD_HD StridedPtr &operator+=(int i) {
        p += i * S;
        return *this;
    }
    GPUSVD_HD int operator-(StridedPtr o) const { return static_cast<int>((p - o.p) / S); }
};

/// H(i, j) for i <= j + 3, column j at offset j(j+7)/2 (column j holds rows 0..j+3; the last
/// three columns' slots past row n-1 are unused). S > 1: entry e at p[e S], the other S - 1
/// matrices' entries in between (the thread-per-matrix QR's layout, cuda/geev/geev.cu).
template <class T, int S = 1>
struct BandMat {
    using Ptr = typename std::conditional<S == 1, T *, StridedPtr<T, S>>::type;
    T *p;
    GPUSVD_HD T &operator()(int i, int j) const { return col(j)[i]; }
    GPUSVD_HD Ptr col(int j) const { return Ptr{p + S * ((j * (j + 7)) >> 1)}; }
    // col(j + count) + r from col(j) + r: columns j..j+count-1 hold j + 4, ... entries
    GPUSVD_HD Ptr advance_cols(Ptr c, int j, int count) const {
        return c + (count * (j + 4) + count * (count - 1) / 2);
    }
    GPUSVD_HD Ptr next_col(Ptr c, int j) const { return advance_cols(c, j, 1); }
};

/// Entries of an n x n BandMat.
GPUSVD_HD constexpr int64_t band_elems(int64_t n) {
    return n * (n + 7) / 2;
}

/// Stage 1 hands stage 2 five scalars in the eigenvalue arrays, which stage 2 reads first and
/// then overwrites: real T ilo, ihi and anrm in wr[0..2], cscale and whether A was scaled in
/// wi[0..1]; complex T (no wi) ilo + i ihi, anrm + i cscale and whether A was scaled in wr[0..2].
constexpr int kBandMinN = 3;

template <class T, class HM>
GPUSVD_HD void put_band_scalars(const GeevRun<T, HM> &r, T *wr, T *wi) {
    using R = RealOf<T>;
    if constexpr (kIsComplex<T>) {
        wr[0] = T(R(r.ilo), R(r.ihi));
        wr[1] = T(r.anrm, r.cscale);
        wr[2] = T(r.scalea ? R(1) : R(0));
    } else {
        wr[0] = T(r.ilo), wr[1] = T(r.ihi), wr[2] = r.anrm;
        wi[0] = r.cscale, wi[1] = r.scalea ? T(1) : T(0);
    }
}

template <class T, class HM>
GPUSVD_HD void get_band_scalars(GeevRun<T, HM> &r, const T *wr, const T *wi) {
    using R = RealOf<T>;
    if constexpr (kIsComplex<T>) {
        r.ilo = static_cast<int>(wr[0].re);
        r.ihi = static_cast<int>(wr[0].im);
        r.anrm = wr[1].re;
        r.cscale = wr[1].im;
        r.scalea = wr[2].re != R(0);
    } else {
        r.ilo = static_cast<int>(wr[0]);
        r.ihi = static_cast<int>(wr[1]);
        r.anrm = wr[2];
        r.cscale = wi[0];
        r.scalea = wi[1] != T(0);
    }
}

/// Stage 1 (n >= kBandMinN): NaN/Inf check, scaling, balancing and Hessenberg reduction in w
/// (as geev_team without vectors), then H (entries i <= j + 1) goes to A and the scalars stage 2
/// needs to w.wr/w.wi (the caller's eigenvalue arrays, as stage 2's wr/wi; complex: w.wr only).
/// Returns 0, or GPUSVD_INFO_NONFINITE with NaN in the eigenvalues (stage 2 must skip the
/// matrix). Ends with a sync.
template <class T, class Team>
GPUSVD_HD int geev_reduce_stage(const Team &t, int n, const GeevWork<T> &w, Mat<T> A) {
    const GeevRun<T> r = geev_begin(t, false, n, w);
    t.sync();
    if (r.info != 0) return r.info;
    const int rank = t.rank(), size = t.size();
    for (int j = 0; j < n; ++j)
        for (int i = rank; i <= j + 1 && i < n; i += size) A(i, j) = w.H(i, j);
    // After the sync above: geev_begin wrote isolated eigenvalues there.
    if (rank == 0) put_band_scalars(r, w.wr, w.wi);
    t.sync();
    return 0;
}

/// Stage 2 on stage 1's A and eigenvalue arrays (its info 0): the QR iteration on B, a BandMat
/// copy of H; the eigenvalues go to wr/wi (n each; complex: wr, wi unused) unscaled as dgeev's
/// and zgeev's. Returns geev_team's info (0, or i > 0 with the unconverged eigenvalues NaN).
/// qr_itmax: as geev_team's. Ends with a sync.
template <class T, class Team, class BM>
GPUSVD_HD int geev_band_stage(const Team &t, int n, Mat<T> A, BM B, T *wr, T *wi,
                              int qr_itmax = 0) {
    const int rank = t.rank(), size = t.size();
    GeevRun<T, BM> r;
    get_band_scalars(r, wr, wi);
    for (int j = 0; j < n; ++j)
        for (int i = rank; i <= j + 3 && i < n; i += size) B(i, j) = i <= j + 1 ? A(i, j) : T(0);
    t.sync();
    GeevWork<T> w{};
    w.wr = wr;
    w.wi = wi;
    if constexpr (kIsComplex<T>) {
        r.qr = zlahqr_start(t, false, false, n, r.ilo, r.ihi, B, wr, w.Z, qr_itmax);
        r.qr.H = B, r.qr.w = wr;  // address spaces: see geev_team
        zlahqr_run(t, r.qr);
    } else {
        r.qr = lahqr_start(t, false, false, n, r.ilo, r.ihi, B, wr, wi, w.Z, qr_itmax);
        r.qr.H = B, r.qr.wr = wr, r.qr.wi = wi;  // address spaces: see geev_team
        lahqr_run(t, r.qr);
    }
    return geev_finish(t, false, n, w, r);
}

}  // namespace geev
}  // namespace kernels
}  // namespace gpusvd
