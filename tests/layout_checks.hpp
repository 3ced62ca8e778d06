// Row-major matrices for the tests of gpusvdSetMatrixLayout (geqrf_mgs and pca on both backends):
// conversions between a column-major test matrix and its row-major copy with padding, and a
// scope that puts a handle in row-major layout.
#pragma once

#include <vector>

#include "test_common.hpp"

namespace gpusvd_test {

/// The row-major copy of A (m x n, column-major, ld lda) with leading dimension ld >= n; the
/// entries past column n of each row hold `pad`.
template <typename T>
std::vector<T> to_row_major(int64_t m, int64_t n, const T *A, int64_t lda, int64_t ld, T pad) {
    std::vector<T> B(sz(std::max<int64_t>(m, 1) * ld), pad);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) B[sz(i * ld + j)] = A[i + j * lda];
    return B;
}

/// The column-major copy (ld m) of the row-major A (m x n, ld ld).
template <typename T>
std::vector<T> from_row_major(int64_t m, int64_t n, const T *A, int64_t ld) {
    std::vector<T> B(sz(std::max<int64_t>(m, 1) * std::max<int64_t>(n, 1)));
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) B[sz(i + j * m)] = A[i * ld + j];
    return B;
}

/// Whether a row-major m x n matrix (ld ld) left the padding past its n columns as it was.
template <typename T>
bool row_padding_intact(int64_t m, int64_t n, const T *A, int64_t ld, T pad) {
    return padding_intact(n, m, A, ld, pad);  // its column-major view is the n x m transpose
}

/// The handle in GPUSVD_LAYOUT_ROW_MAJOR for the scope's lifetime.
class RowMajorScope {
public:
    explicit RowMajorScope(gpusvdHandle_t h) : h_(h) {
        EXPECT_EQ(gpusvdSetMatrixLayout(h_, GPUSVD_LAYOUT_ROW_MAJOR), GPUSVD_STATUS_SUCCESS);
    }
    ~RowMajorScope() {
        EXPECT_EQ(gpusvdSetMatrixLayout(h_, GPUSVD_LAYOUT_COL_MAJOR), GPUSVD_STATUS_SUCCESS);
    }
    RowMajorScope(const RowMajorScope &) = delete;
    RowMajorScope &operator=(const RowMajorScope &) = delete;

private:
    gpusvdHandle_t h_;
};

/// One geqrf_mgs call on A0 (m x n, column-major, ld m) passed row-major (lda = n + 3, ldr = n + 1,
/// padded); Q (m x n: Q in the first k columns) and R (k x n) returned column-major (ld m, ld k)
/// for the column-major checks, the padding checked.
template <typename T>
struct RowMajorQr {
    std::vector<T> Q, R;
    int info = -777;
};

template <typename T, typename Call>
RowMajorQr<T> row_major_qr(gpusvdHandle_t h, gpusvdOrth_t orth, int64_t m, int64_t n,
                           const std::vector<T> &A0, Call call) {
    const int64_t k = std::min(m, n), lda = n + 3, ldr = n + 1;
    const T pad = sentinel<T>();
    std::vector<T> A = to_row_major(m, n, A0.data(), m, lda, pad);
    std::vector<T> R = sentinels<T>(sz(std::max<int64_t>(k, 1) * ldr));
    RowMajorQr<T> o;
    {
        RowMajorScope row(h);
        GPUSVD_EXPECT_OK(h, call(h, orth, m, n, A.data(), lda, R.data(), ldr, &o.info));
    }
    EXPECT_TRUE(row_padding_intact(m, n, A.data(), lda, pad)) << "A written outside m x n";
    EXPECT_TRUE(row_padding_intact(k, n, R.data(), ldr, pad)) << "R written outside k x n";
    o.Q = from_row_major(m, n, A.data(), lda);
    o.R = from_row_major(k, n, R.data(), ldr);
    return o;
}

}  // namespace gpusvd_test
