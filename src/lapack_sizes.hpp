// The CPU backend's limits: LAPACK takes 32-bit integers, and computes workspace lengths and
// indices from its arguments in 32 bits too. Every such size of a routine is listed here once
// (with the leading dimensions of the arrays LAPACK's results are copied to, held to the same
// limit). The entry point rejects a call whose sizes do not fit (NOT_SUPPORTED, before anything is
// touched, so LAPACK's error handler is never reached) and _bufferSize reports no host
// workspace for it. Workspace terms bound what LAPACK's own workspace query computes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "api_common.hpp"
#include "args.hpp"

namespace gpusvd {

class LapackSizes {
public:
    LapackSizes &add(const char *what, int64_t value) {
        if (count_ < kMax) entries_[count_++] = {what, value};
        return *this;
    }
    bool fit() const {
        for (int i = 0; i < count_; ++i)
            if (entries_[i].value > std::numeric_limits<int32_t>::max()) return false;
        return true;
    }
    void check(Args &a) const {
        for (int i = 0; i < count_; ++i) a.lapack_int(entries_[i].what, entries_[i].value);
    }

private:
    static constexpr int kMax = 8;
    struct Entry {
        const char *what;
        int64_t value;
    } entries_[kMax] = {};
    int count_ = 0;
};

/// ?gesvj on the max(m,n) x min(m,n) problem (A or its transpose; its V is our U when m < n);
/// LWORK = max(6, m + n).
inline LapackSizes gesvj_lapack_sizes(int64_t m, int64_t n, int64_t lda, int64_t ldu,
                                      int64_t ldv) {
    return LapackSizes()
        .add("m", m)
        .add("n", n)
        .add("lda", lda)
        .add("ldu", ldu)
        .add("ldv", ldv)
        .add("m * n", sat_mul(m, n))
        .add("m + n (LAPACK ?gesvj workspace)", sat_add(m, n));
}

/// ?geqrf(p) + ?orgqr: workspace n * NB, NB <= 64.
inline LapackSizes geqrf_lapack_sizes(int64_t m, int64_t n, int64_t lda, int64_t ldr) {
    return LapackSizes().add("m", m).add("n", n).add("lda", lda).add("ldr", ldr).add(
        "64 n (LAPACK ?geqrf workspace)", sat_mul(64, n));
}

/// ?geev: workspace below n^2 + 300 n (?gehrd, ?orghr, ?hseqr and ?trevc3 blocks).
inline LapackSizes geev_lapack_sizes(int64_t n, int64_t lda, int64_t ldvr) {
    return LapackSizes().add("n", n).add("lda", lda).add("ldvr", ldvr).add(
        "n^2 + 300 n (LAPACK ?geev workspace)", sat_add(sat_mul(n, n), sat_mul(300, n)));
}

/// ?bdsdc: 3 n^2 + 4 n workspace with vectors; without, its dqds indexes a 4 n workspace.
inline LapackSizes bdsvd_lapack_sizes(bool vectors, int64_t n, int64_t ldu, int64_t ldvt) {
    LapackSizes s;
    s.add("n", n).add("ldu", ldu).add("ldvt", ldvt);
    if (vectors)
        s.add("3 n^2 + 4 n (LAPACK ?bdsdc workspace)", sat_mul(sat_add(sat_mul(3, n), 4), n));
    else
        s.add("4 n (LAPACK ?bdsdc workspace)", sat_mul(4, n));
    return s;
}

/// pca's QR method: ?geqrf + ?orgqr of the data (tall) and ?gesdd('S') of the min(m,n) x n
/// factor: its query stays below 5 p^2 + 64 (p + n), p = min(m, n).
inline LapackSizes pca_lapack_sizes(int64_t m, int64_t n, int64_t ldx, int64_t ldc,
                                    int64_t lds) {
    const int64_t p = std::min(m, n);
    return LapackSizes()
        .add("m", m)
        .add("n", n)
        .add("ldx", ldx)
        .add("ldc", ldc)
        .add("lds", lds)
        .add("5 p^2 + 64 (p + n), p = min(m, n) (LAPACK ?gesdd workspace)",
             sat_add(sat_mul(5, sat_mul(p, p)), sat_mul(64, sat_add(p, n))));
}

/// pca's covariance method: ?syrk and ?gemm over blocks of at most 4096 rows (m and ldx never
/// reach BLAS), ?syevd's 1 + 6 n + 2 n^2 workspace (?syevr's, when it runs, is smaller).
inline LapackSizes pca_covariance_lapack_sizes(int64_t n, int64_t ldc, int64_t lds) {
    return LapackSizes().add("n", n).add("ldc", ldc).add("lds", lds).add(
        "1 + 6 n + 2 n^2 (LAPACK ?syevd workspace)",
        sat_add(sat_add(1, sat_mul(6, n)), sat_mul(2, sat_mul(n, n))));
}

}  // namespace gpusvd
