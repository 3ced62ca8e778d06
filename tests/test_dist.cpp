// The distributed tall QR (gpusvd_?geqrf_mgs_dist) on the CPU backend, ranks as threads with an
// in-process all-reduce (thread_comm.hpp): the stacked Q and the common R against LAPACK's
// ratios, every rank's R bitwise the same, rows spread unevenly (a rank with none), condition
// up to 1e12 (double), dependent and zero columns, NaN on one rank, the range of the
// floating-point numbers, and the agreement: one rank's bad argument or disagreeing n fails the
// call on every rank and changes nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gpusvd.h"
#include "test_common.hpp"
#include "thread_comm.hpp"

namespace {

using namespace gpusvd_test;

/// Rows of each rank: M split unevenly, rank 1 with none when there are three ranks or more.
std::vector<int64_t> split_rows(int64_t M, int P) {
    std::vector<int64_t> rows(static_cast<size_t>(P), 0);
    int64_t left = M;
    for (int r = 0; r < P; ++r) {
        if (P >= 3 && r == 1) continue;
        const int64_t take = r == P - 1 ? left : std::min<int64_t>(left, M / P + 7 * (r + 1));
        rows[static_cast<size_t>(r)] = take;
        left -= take;
    }
    return rows;
}

/// What every rank got back.
template <typename T>
struct Outcome {
    std::vector<gpusvdStatus_t> status;
    std::vector<int> info;
    std::vector<std::vector<T>> R;
    std::vector<std::string> message;
    std::vector<T> Q;  // the ranks' blocks stacked (M x n)
};

/// Runs geqrf_mgs_dist on P thread ranks over the rows of A (M x n); `tweak(rank, m, lda, n)`
/// may change a rank's arguments (for the agreement tests).
template <typename T>
Outcome<T> run_dist(int P, int64_t M, int64_t n, const std::vector<T> &A,
                    const std::function<void(int, int64_t &, int64_t &, int64_t &)> &tweak = {}) {
    using Api = gpusvd_util::Api<T>;
    ThreadRanks ranks(P);
    const std::vector<int64_t> rows = split_rows(M, P);
    std::vector<int64_t> first(static_cast<size_t>(P), 0);
    for (int r = 1; r < P; ++r) first[size_t(r)] = first[size_t(r - 1)] + rows[size_t(r - 1)];
    Outcome<T> out;
    out.status.assign(size_t(P), GPUSVD_STATUS_INTERNAL_ERROR);
    out.info.assign(size_t(P), -999);
    const size_t rsize = size_t(std::max<int64_t>(n * n, 1));
    out.R.assign(size_t(P), std::vector<T>(rsize, sentinel<T>()));
    out.message.assign(size_t(P), "");
    std::vector<std::vector<T>> blocks;
    blocks.resize(static_cast<size_t>(P));
    ranks.run([&](int r) {
        int64_t m = rows[size_t(r)], lda = std::max<int64_t>(m, 1), nn = n;
        std::vector<T> &Ab = blocks[size_t(r)];
        Ab.assign(size_t(lda * std::max<int64_t>(n, 1)), T(0));
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) Ab[size_t(i + j * lda)] = A[size_t(first[size_t(r)] + i + j * M)];
        if (tweak) tweak(r, m, lda, nn);
        gpusvdHandle_t h = nullptr;
        gpusvdCreate(&h);
        gpusvdSetBackend(h, GPUSVD_BACKEND_CPU);
        gpusvdComm_t c = ranks.comm(r);
        out.status[size_t(r)] = Api::geqrf_mgs_dist(h, c, GPUSVD_ORTH_MGS2, m, nn, Ab.data(), lda,
                                                    out.R[size_t(r)].data(), std::max<int64_t>(n, 1),
                                                    &out.info[size_t(r)]);
        out.message[size_t(r)] = gpusvdGetErrorMessage(h);
        gpusvdCommDestroy(c);
        gpusvdDestroy(h);
    });
    out.Q.assign(size_t(M * n), T(0));
    for (int r = 0; r < P; ++r) {
        const int64_t m = rows[size_t(r)], lda = std::max<int64_t>(m, 1);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i)
                out.Q[size_t(first[size_t(r)] + i + j * M)] = blocks[size_t(r)][size_t(i + j * lda)];
    }
    return out;
}

template <typename T>
void expect_same_r(const Outcome<T> &o) {
    for (size_t r = 1; r < o.R.size(); ++r)
        EXPECT_TRUE(same_bits(o.R[r], o.R[0])) << "rank " << r << "'s R differs from rank 0's";
}

template <typename T>
class DistQr : public ::testing::Test {};
TYPED_TEST_SUITE(DistQr, Precisions, PrecisionName);

TYPED_TEST(DistQr, MatchesLapackRatiosOverRanksAndConditions) {
    using T = TypeParam;
    const int64_t M = 1500, n = 40;
    const std::vector<double> conds = sizeof(T) == 8 ? std::vector<double>{1, 1e6, 1e12}
                                                     : std::vector<double>{1, 1e2, 1e3};
    for (int P : {1, 2, 3, 4}) {
        for (double cond : conds) {
            gpusvd_util::Rng rng(uint64_t(P * 100 + std::log10(cond)));
            const std::vector<T> A =
                gpusvd_util::prescribed_sv<T>(rng, M, n, gpusvd_util::SigmaMode::Geometric, cond);
            const Outcome<T> o = run_dist<T>(P, M, n, A);
            SCOPED_TRACE("ranks " + std::to_string(P) + ", cond " + std::to_string(cond));
            for (int r = 0; r < P; ++r) {
                ASSERT_EQ(o.status[size_t(r)], GPUSVD_STATUS_SUCCESS) << o.message[size_t(r)];
                EXPECT_EQ(o.info[size_t(r)], 0);
            }
            expect_same_r(o);
            const double res = gpusvd_util::qr_residual(M, n, A.data(), M, o.Q.data(), M,
                                                        o.R[0].data(), n);
            const double orth = gpusvd_util::orthogonality(M, n, o.Q.data(), M);
            EXPECT_LT(res, 30.0);
            EXPECT_LT(orth, 30.0);
            for (int64_t j = 0; j < n; ++j) EXPECT_GT(o.R[0][size_t(j + j * n)], T(0));
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = j + 1; i < n; ++i) EXPECT_EQ(o.R[0][size_t(i + j * n)], T(0));
        }
    }
}

TYPED_TEST(DistQr, SameRAsTheOneMatrixQr) {
    // R of a full-rank matrix with R(j,j) > 0 is unique: the distributed one must match the
    // one-matrix routine's to rounding (cond 10: differences of a few eps).
    using T = TypeParam;
    const int64_t M = 900, n = 24;
    gpusvd_util::Rng rng(7);
    const std::vector<T> A =
        gpusvd_util::prescribed_sv<T>(rng, M, n, gpusvd_util::SigmaMode::Geometric, 10.0);
    const Outcome<T> o = run_dist<T>(3, M, n, A);
    ASSERT_EQ(o.status[0], GPUSVD_STATUS_SUCCESS) << o.message[0];
    std::vector<T> A1 = A, R1(size_t(n * n), T(0));
    int info = -1;
    Handle h;
    gpusvdSetBackend(h, GPUSVD_BACKEND_CPU);
    GPUSVD_ASSERT_OK(h, gpusvd_util::Api<T>::geqrf_mgs(h, GPUSVD_ORTH_MGS2, M, n, A1.data(), M,
                                                       R1.data(), n, &info));
    double diff = 0, ref = 0;
    for (size_t i = 0; i < R1.size(); ++i) {
        diff = std::max(diff, double(std::fabs(o.R[0][i] - R1[i])));
        ref = std::max(ref, double(std::fabs(R1[i])));
    }
    EXPECT_LT(diff / ref, 100 * n * eps<T>());
}

TYPED_TEST(DistQr, DependentAndZeroColumns) {
    using T = TypeParam;
    const int64_t M = 600, n = 12;
    gpusvd_util::Rng rng(11);
    std::vector<T> A = gpusvd_util::gaussian<T>(rng, M, n);
    for (int64_t i = 0; i < M; ++i) {
        A[size_t(i + 3 * M)] = 0;                          // column 3 zero
        A[size_t(i + 7 * M)] = A[size_t(i + 2 * M)] * T(2); // column 7 = 2 * column 2
    }
    const Outcome<T> o = run_dist<T>(3, M, n, A);
    for (int r = 0; r < 3; ++r) {
        ASSERT_EQ(o.status[size_t(r)], GPUSVD_STATUS_SUCCESS) << o.message[size_t(r)];
        EXPECT_EQ(o.info[size_t(r)], 4) << "the first dependent column, 1-based";
    }
    expect_same_r(o);
    EXPECT_EQ(o.R[0][size_t(3 + 3 * n)], T(0));
    EXPECT_EQ(o.R[0][size_t(7 + 7 * n)], T(0));
    EXPECT_LT(gpusvd_util::qr_residual(M, n, A.data(), M, o.Q.data(), M, o.R[0].data(), n), 30.0);
    EXPECT_LT(gpusvd_util::orthogonality(M, n, o.Q.data(), M), 30.0)
        << "Q is completed to orthonormal columns";
}

TYPED_TEST(DistQr, NonFiniteOnOneRankStopsEveryRank) {
    using T = TypeParam;
    const int64_t M = 300, n = 5;
    gpusvd_util::Rng rng(3);
    std::vector<T> A = gpusvd_util::gaussian<T>(rng, M, n);
    A[size_t(M - 2 + 2 * M)] = std::numeric_limits<T>::infinity();  // on the last rank
    const Outcome<T> o = run_dist<T>(2, M, n, A);
    for (int r = 0; r < 2; ++r) {
        ASSERT_EQ(o.status[size_t(r)], GPUSVD_STATUS_SUCCESS) << o.message[size_t(r)];
        EXPECT_EQ(o.info[size_t(r)], GPUSVD_INFO_NONFINITE);
        EXPECT_TRUE(gpusvd_util::all_nan(n, n, o.R[size_t(r)].data(), n));
    }
    EXPECT_TRUE(gpusvd_util::all_nan(M, n, o.Q.data(), M));
}

TYPED_TEST(DistQr, WholeFloatingPointRange) {
    // Columns near the overflow threshold and subnormal columns: scaled by powers of two over
    // the ranks' common maxima, R scaled back exactly.
    using T = TypeParam;
    const int64_t M = 400, n = 6;
    using L = std::numeric_limits<T>;
    for (int e : {L::max_exponent - 4, L::min_exponent - L::digits + 12}) {
        gpusvd_util::Rng rng(5);
        const std::vector<T> base = gpusvd_util::gaussian<T>(rng, M, n);
        // A = base / 8 * 2^e (rounded where subnormal); Aup = A * 2^-e exactly.
        std::vector<T> A(base.size()), Aup(base.size());
        for (size_t i = 0; i < A.size(); ++i) {
            A[i] = std::ldexp(base[i] / 8, e);
            Aup[i] = std::ldexp(A[i], -e);
        }
        const Outcome<T> o = run_dist<T>(2, M, n, A);
        SCOPED_TRACE("scale 2^" + std::to_string(e));
        ASSERT_EQ(o.status[0], GPUSVD_STATUS_SUCCESS) << o.message[0];
        EXPECT_EQ(o.info[0], 0);
        EXPECT_FALSE(gpusvd_util::has_nonfinite(n, n, o.R[0].data(), n));
        EXPECT_LT(gpusvd_util::orthogonality(M, n, o.Q.data(), M), 30.0);
        // R against R(Aup) * 2^e, compared at the scale of Aup (no product near the range
        // limits), up to rounding and to the spacing of the subnormal numbers R is stored in.
        const Outcome<T> u = run_dist<T>(2, M, n, Aup);
        const double spacing = std::ldexp(double(L::denorm_min()), -e);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i <= j; ++i) {
                const double want = double(u.R[0][size_t(i + j * n)]);
                const double got = std::ldexp(double(o.R[0][size_t(i + j * n)]), -e);
                EXPECT_LE(std::fabs(got - want),
                          100 * eps<T>() * std::fabs(double(u.R[0][size_t(j + j * n)])) + spacing)
                    << "R(" << i << "," << j << ")";
            }
    }
}

TYPED_TEST(DistQr, OneRanksBadArgumentFailsEveryRankAndChangesNothing) {
    using T = TypeParam;
    const int64_t M = 200, n = 4;
    gpusvd_util::Rng rng(9);
    const std::vector<T> A = gpusvd_util::gaussian<T>(rng, M, n);
    const Outcome<T> o = run_dist<T>(3, M, n, A, [](int r, int64_t &m, int64_t &lda, int64_t &) {
        if (r == 2) lda = m - 1;  // lda < mLocal on rank 2
    });
    for (int r = 0; r < 3; ++r) {
        EXPECT_EQ(o.status[size_t(r)], GPUSVD_STATUS_INVALID_VALUE);
        EXPECT_EQ(o.info[size_t(r)], -999) << "info untouched";
        EXPECT_TRUE(all_equal(o.R[size_t(r)], sentinel<T>())) << "R untouched";
    }
    EXPECT_NE(o.message[2].find("lda"), std::string::npos) << o.message[2];
    EXPECT_NE(o.message[0].find("rank 2"), std::string::npos) << o.message[0];
    // A untouched on every rank: the stacked blocks are the input (rank 2's read with its lda).
    for (int64_t i = 0; i < M - 60; ++i) EXPECT_EQ(o.Q[size_t(i)], A[size_t(i)]);
}

TYPED_TEST(DistQr, RanksDisagreeingOnN) {
    using T = TypeParam;
    const int64_t M = 100, n = 3;
    gpusvd_util::Rng rng(2);
    const std::vector<T> A = gpusvd_util::gaussian<T>(rng, M, n);
    const Outcome<T> o = run_dist<T>(2, M, n, A, [](int r, int64_t &, int64_t &, int64_t &nn) {
        if (r == 1) nn = 2;
    });
    for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(o.status[size_t(r)], GPUSVD_STATUS_INVALID_VALUE);
        EXPECT_NE(o.message[size_t(r)].find("disagree"), std::string::npos)
            << o.message[size_t(r)];
        EXPECT_EQ(o.info[size_t(r)], -999);
    }
}

TYPED_TEST(DistQr, FewerRowsThanColumnsInAll) {
    using T = TypeParam;
    const int64_t M = 5, n = 6;
    std::vector<T> A(size_t(M * n), T(1));
    const Outcome<T> o = run_dist<T>(2, M, n, A);
    for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(o.status[size_t(r)], GPUSVD_STATUS_INVALID_VALUE);
        EXPECT_NE(o.message[size_t(r)].find("rows of all ranks"), std::string::npos);
    }
}

TYPED_TEST(DistQr, ZeroColumns) {
    using T = TypeParam;
    const Outcome<T> o = run_dist<T>(2, 10, 0, std::vector<T>());
    for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(o.status[size_t(r)], GPUSVD_STATUS_SUCCESS) << o.message[size_t(r)];
        EXPECT_EQ(o.info[size_t(r)], 0);
    }
}

TEST(DistComm, CreateValidatesAndReports) {
    gpusvdComm_t c = nullptr;
    auto fn = [](void *, int64_t, gpusvdDataType_t, gpusvdReduceOp_t, void *) { return 0; };
    EXPECT_EQ(gpusvdCommCreate(nullptr, 1, 0, fn, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdCommCreate(&c, 1, 0, nullptr, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdCommCreate(&c, 0, 0, fn, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_NE(std::string(gpusvdGetErrorMessage(nullptr)).find("size = 0"), std::string::npos);
    EXPECT_EQ(gpusvdCommCreate(&c, 3, 3, fn, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdCommCreate(&c, 3, -1, fn, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(c, nullptr) << "a refused call leaves comm as it was";
    EXPECT_EQ(gpusvdCommCreateNccl(nullptr, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdCommCreateNccl(&c, nullptr), GPUSVD_STATUS_INVALID_VALUE);
    ASSERT_EQ(gpusvdCommCreate(&c, 3, 2, fn, nullptr), GPUSVD_STATUS_SUCCESS);
    int size = 0, rank = -1;
    EXPECT_EQ(gpusvdCommGetRank(c, &size, &rank), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(size, 3);
    EXPECT_EQ(rank, 2);
    EXPECT_EQ(gpusvdCommGetRank(nullptr, &size, &rank), GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(gpusvdCommDestroy(c), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(gpusvdCommDestroy(nullptr), GPUSVD_STATUS_SUCCESS);
}

TEST(DistComm, NullCommAndFailingAllReduce) {
    Handle h;
    gpusvdSetBackend(h, GPUSVD_BACKEND_CPU);
    std::vector<double> A(20, 1.0), R(4, 0.0);
    int info = -7;
    EXPECT_EQ(gpusvd_dgeqrf_mgs_dist(h, nullptr, GPUSVD_ORTH_MGS, 10, 2, A.data(), 10, R.data(), 2,
                                     &info),
              GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_NE(std::string(gpusvdGetErrorMessage(h)).find("comm = NULL"), std::string::npos);
    EXPECT_EQ(info, -7);
    // An all-reduce that fails: EXECUTION_FAILED, the communicator's code in the message.
    gpusvdComm_t c = nullptr;
    auto bad = [](void *, int64_t, gpusvdDataType_t, gpusvdReduceOp_t, void *) { return 42; };
    ASSERT_EQ(gpusvdCommCreate(&c, 2, 0, bad, nullptr), GPUSVD_STATUS_SUCCESS);
    EXPECT_EQ(gpusvd_dgeqrf_mgs_dist(h, c, GPUSVD_ORTH_MGS, 10, 2, A.data(), 10, R.data(), 2,
                                     &info),
              GPUSVD_STATUS_EXECUTION_FAILED);
    EXPECT_NE(std::string(gpusvdGetErrorMessage(h)).find("returned 42"), std::string::npos);
    gpusvdCommDestroy(c);
}

TEST(DistComm, BufferSize) {
    Handle h;
    size_t dev = 1, host = 0;
    GPUSVD_EXPECT_OK(h, gpusvd_dgeqrf_mgs_dist_bufferSize(h, GPUSVD_ORTH_MGS, 1000, 16, &dev, &host));
    EXPECT_GE(host, 3 * 16 * 16 * sizeof(double));
    EXPECT_EQ(gpusvd_dgeqrf_mgs_dist_bufferSize(h, GPUSVD_ORTH_MGS, -1, 16, &dev, &host),
              GPUSVD_STATUS_INVALID_VALUE);
}

}  // namespace

namespace {

/// pca_dist on P thread ranks (CPU backend) against gpusvd_?pca of the stacked data (CPU
/// backend, QR method): the same components, variances, mean and scores to rounding.
template <typename T>
void check_pca_dist(int P, int64_t M, int64_t n, int64_t k, const std::vector<T> &X, double tol) {
    using Api = gpusvd_util::Api<T>;
    Handle h1;
    gpusvdSetBackend(h1, GPUSVD_BACKEND_CPU);
    gpusvdSetPcaMethod(h1, GPUSVD_PCA_QR);
    std::vector<T> C1(static_cast<size_t>(n * k)), v1(static_cast<size_t>(k)),
        S1(static_cast<size_t>(M * k)), mu1(static_cast<size_t>(n));
    int info1 = -1;
    GPUSVD_ASSERT_OK(h1, Api::pca(h1, M, n, X.data(), M, k, C1.data(), n, v1.data(), S1.data(), M,
                                  mu1.data(), &info1));
    ASSERT_EQ(info1, 0);
    ThreadRanks ranks(P);
    const std::vector<int64_t> rows = split_rows(M, P);
    std::vector<int64_t> first(size_t(P), 0);
    for (int r = 1; r < P; ++r) first[size_t(r)] = first[size_t(r - 1)] + rows[size_t(r - 1)];
    const size_t ranks_count = static_cast<size_t>(P);
    std::vector<std::vector<T>> C(ranks_count), var(ranks_count), mu(ranks_count), S(ranks_count);
    std::vector<int> info(size_t(P), -999);
    std::vector<gpusvdStatus_t> status(size_t(P), GPUSVD_STATUS_INTERNAL_ERROR);
    std::vector<std::string> msg(static_cast<size_t>(P));
    ranks.run([&](int r) {
        const int64_t m = rows[size_t(r)], ld = std::max<int64_t>(m, 1);
        std::vector<T> Xb(size_t(ld * n), T(0));
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) Xb[size_t(i + j * ld)] = X[size_t(first[size_t(r)] + i + j * M)];
        C[size_t(r)].assign(size_t(n * k), T(0));
        var[size_t(r)].assign(size_t(k), T(0));
        mu[size_t(r)].assign(size_t(n), T(0));
        S[size_t(r)].assign(size_t(ld * k), T(0));
        gpusvdHandle_t h = nullptr;
        gpusvdCreate(&h);
        gpusvdSetBackend(h, GPUSVD_BACKEND_CPU);
        gpusvdComm_t c = ranks.comm(r);
        status[size_t(r)] = Api::pca_dist(h, c, m, n, Xb.data(), ld, k, C[size_t(r)].data(), n,
                                          var[size_t(r)].data(), S[size_t(r)].data(), ld,
                                          mu[size_t(r)].data(), &info[size_t(r)]);
        msg[size_t(r)] = gpusvdGetErrorMessage(h);
        gpusvdCommDestroy(c);
        gpusvdDestroy(h);
    });
    for (int r = 0; r < P; ++r) {
        ASSERT_EQ(status[size_t(r)], GPUSVD_STATUS_SUCCESS) << msg[size_t(r)];
        EXPECT_EQ(info[size_t(r)], 0);
        EXPECT_TRUE(same_bits(C[size_t(r)], C[0]));
        EXPECT_TRUE(same_bits(var[size_t(r)], var[0]));
        EXPECT_TRUE(same_bits(mu[size_t(r)], mu[0]));
    }
    auto rel = [](const std::vector<T> &a, const std::vector<T> &b) {
        double d = 0, ref = 0;
        for (size_t i = 0; i < a.size(); ++i) {
            d = std::max(d, std::fabs(double(a[i]) - double(b[i])));
            ref = std::max(ref, std::fabs(double(b[i])));
        }
        return d / ref;
    };
    EXPECT_LT(rel(C[0], C1), tol) << "components";
    EXPECT_LT(rel(var[0], v1), tol) << "explained variance";
    EXPECT_LT(rel(mu[0], mu1), tol) << "mean";
    std::vector<T> Sst(size_t(M * k), T(0));
    for (int r = 0; r < P; ++r) {
        const int64_t m = rows[size_t(r)], ld = std::max<int64_t>(m, 1);
        for (int64_t j = 0; j < k; ++j)
            for (int64_t i = 0; i < m; ++i)
                Sst[size_t(first[size_t(r)] + i + j * M)] = S[size_t(r)][size_t(i + j * ld)];
    }
    EXPECT_LT(rel(Sst, S1), tol) << "scores";
}

template <typename T>
class DistPca : public ::testing::Test {};
TYPED_TEST_SUITE(DistPca, Precisions, PrecisionName);

TYPED_TEST(DistPca, MatchesOneProcessPca) {
    using T = TypeParam;
    const double tol = sizeof(T) == 8 ? 1e-10 : 2e-3;
    for (int P : {1, 3}) {
        const int64_t M = 1200, n = 16, k = 5;
        gpusvd_util::Rng rng(uint64_t(40 + P));
        std::vector<T> X =
            gpusvd_util::prescribed_sv<T>(rng, M, n, gpusvd_util::SigmaMode::Geometric, 100.0);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < M; ++i) X[size_t(i + j * M)] += T(3 + j);  // a mean to remove
        SCOPED_TRACE("ranks " + std::to_string(P));
        check_pca_dist<T>(P, M, n, k, X, tol);
    }
}

TYPED_TEST(DistPca, SquareDataWhoseCentredRIsSingular) {
    // As many samples as features: the centred data has rank n - 1, its R a zero pivot; the SVD
    // of R must still converge (info 0) and agree with the one-process pca.
    using T = TypeParam;
    const int64_t M = 7, n = 7, k = 4;
    gpusvd_util::Rng rng(12);
    const std::vector<T> X = gpusvd_util::gaussian<T>(rng, M, n);
    check_pca_dist<T>(2, M, n, k, X, sizeof(T) == 8 ? 1e-10 : 2e-3);
}

TYPED_TEST(DistPca, NearOverflowData) {
    // Data near the overflow threshold: centred and factored scaled by a power of two; the
    // variances (far above the largest number) are +Inf as their exact values, the components
    // and scaled scores as for the same data at unit scale.
    using T = TypeParam;
    const int64_t M = 500, n = 6, k = 3;
    gpusvd_util::Rng rng(8);
    std::vector<T> X = gpusvd_util::prescribed_sv<T>(rng, M, n, gpusvd_util::SigmaMode::Geometric, 10.0);
    const int e = std::numeric_limits<T>::max_exponent - 6;
    for (T &x : X) x = std::ldexp(x, e);
    check_pca_dist<T>(2, M, n, k, X, sizeof(T) == 8 ? 1e-10 : 2e-3);
}

TEST(DistPcaArgs, NonFiniteAndAgreement) {
    const int64_t M = 200, n = 4, k = 2;
    gpusvd_util::Rng rng(3);
    std::vector<double> X = gpusvd_util::gaussian<double>(rng, M, n);
    X[size_t(150 + 2 * M)] = std::numeric_limits<double>::quiet_NaN();
    ThreadRanks ranks(2);
    std::vector<int> info(2, -999);
    std::vector<gpusvdStatus_t> status(2);
    std::vector<std::vector<double>> C(2, std::vector<double>(size_t(n * k), 0.0));
    ranks.run([&](int r) {
        gpusvdHandle_t h = nullptr;
        gpusvdCreate(&h);
        gpusvdSetBackend(h, GPUSVD_BACKEND_CPU);
        gpusvdComm_t c = ranks.comm(r);
        std::vector<double> var(static_cast<size_t>(k));
        status[size_t(r)] = gpusvd_dpca_dist(h, c, 100, n, X.data() + 100 * r, M, k,
                                             C[size_t(r)].data(), n, var.data(), nullptr, 1,
                                             nullptr, &info[size_t(r)]);
        gpusvdCommDestroy(c);
        gpusvdDestroy(h);
    });
    for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(status[size_t(r)], GPUSVD_STATUS_SUCCESS);
        EXPECT_EQ(info[size_t(r)], GPUSVD_INFO_NONFINITE);
        EXPECT_TRUE(std::isnan(C[size_t(r)][0]));
    }
    // k differing between the ranks: INVALID_VALUE on both, nothing written.
    ranks.run([&](int r) {
        gpusvdHandle_t h = nullptr;
        gpusvdCreate(&h);
        gpusvdSetBackend(h, GPUSVD_BACKEND_CPU);
        gpusvdComm_t c = ranks.comm(r);
        std::vector<double> var(size_t(k), 7.0);
        info[size_t(r)] = -999;
        status[size_t(r)] = gpusvd_dpca_dist(h, c, 100, n, X.data(), M, r == 0 ? k : 1,
                                             C[size_t(r)].data(), n, var.data(), nullptr, 1,
                                             nullptr, &info[size_t(r)]);
        EXPECT_NE(std::string(gpusvdGetErrorMessage(h)).find("disagree"), std::string::npos);
        EXPECT_EQ(var[0], 7.0);
        gpusvdCommDestroy(c);
        gpusvdDestroy(h);
    });
    for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(status[size_t(r)], GPUSVD_STATUS_INVALID_VALUE);
        EXPECT_EQ(info[size_t(r)], -999);
    }
}

}  // namespace
