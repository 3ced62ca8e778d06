// The GPU bidiagonal SVD's algorithm (src/kernels/bdsvd_*.hpp) run on the host: every pass of
// cuda/bdsvd/ as a loop over its items, in the order the GPU runs them, checked with the bdsvd
// tests' LAPACK ratios (bdsvd_checks.hpp: residual, orthogonality of U and VT, values against
// dqds, relative accuracy of every value). CI has no GPU; this is where the algorithm is tested
// there (the device runs test_gpu_bdsvd on the kernels themselves).
#include <algorithm>

#include "bdsvd_checks.hpp"
#include "kernels/bdsvd_plan.hpp"
#include "kernels/bdsvd_steps.hpp"
#include "thread_team.hpp"

using namespace gpusvd_test;
namespace bd = gpusvd::kernels::bd;

namespace {

/// Members of the team that refines each group (the GPU uses a warp): 0 = SerialTeam, else
/// ThreadTeam with that many threads.
int g_group_members = 0;

/// Serial run of the GPU algorithm with gpusvd_Xbdsvd's contract; returns info.
template <typename T>
int serial_bdsvd(bool upper, bool wantv, int64_t n, T *d, T *e, T *U, int64_t ldu, T *VT,
                 int64_t ldvt) {
    if (n == 0) return 0;
    T amax = T(0);
    bool bad = false;
    for (int64_t k = 0; k < 2 * n - 1; ++k) {
        const T x = (k & 1) ? e[k >> 1] : d[k >> 1];
        bad |= !std::isfinite(x);
        amax = std::max(amax, std::fabs(x));
    }
    if (bad) {
        std::fill(d, d + n, nan_v<T>());
        if (wantv)
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i) U[i + j * ldu] = VT[i + j * ldvt] = nan_v<T>();
        return GPUSVD_INFO_NONFINITE;
    }
    std::vector<T> t(sz(2 * n - 1)), t2(t.size()), sig(sz(n));
    bd::Problem<T> q{};
    const int scale = bd::scale_exponent(amax);
    q.n = n, q.upper = upper, q.d = d, q.e = e, q.scale_at = &scale;
    q.t = t.data(), q.t2 = t2.data(), q.sig = sig.data(), q.dout = d;
    for (int64_t k = 0; k < 2 * n - 1; ++k) bd::prepare(q, k);
    if (!wantv) {
        for (int64_t p = 0; p < n; ++p) bd::value(q, p);
        for (int64_t p = 0; p < n; ++p) bd::store(q, p);
        return 0;
    }
    std::vector<int64_t> lo = bd::split_points(n, t.data());
    const std::vector<int32_t> block = bd::block_of_rows(n, lo);
    q.lo = lo.data(), q.block = block.data();
    for (int64_t p = 0; p < n; ++p) bd::value(q, p);
    const bd::Plan plan = bd::make_plan(n, t.data(), sig.data(), lo);
    std::vector<T> scratch(sz(6 * plan.max_block), nan_v<T>());
    std::vector<int64_t> cols(sz(plan.max_block));
    q.U = U, q.ldu = ldu, q.VT = VT, q.ldvt = ldvt;
    q.pos = plan.pos.data(), q.group_first = plan.group_first.data();
    q.group_size = plan.group_size.data(), q.zero_blocks = plan.zero_blocks.data();
    q.group_lu = plan.group_lu.data();
    q.zero_value = plan.zero_value.data(), q.null_u_first = plan.null_u_first.data();
    q.null_u_last = plan.null_u_last.data(), q.null_v_first = plan.null_v_first.data();
    q.null_v_last = plan.null_v_last.data();
    q.scratch = scratch.data(), q.slot_elems = 6 * plan.max_block;
    for (int64_t p = 0; p < n; ++p) bd::twisted(q, p);
    for (size_t g = 0; g < plan.group_first.size(); ++g) {
        if (g_group_members == 0) {
            bd::group(gpusvd::kernels::SerialTeam{}, q, int64_t(g), 0);
            continue;
        }
        run_thread_team(
            g_group_members, g_group_members,
            [&](const ThreadTeam &t, const ThreadTeam &, int) { bd::group(t, q, int64_t(g), 0); });
    }
    for (int64_t p = 0; p < n; ++p) bd::finish(q, p);
    for (size_t z = 0; z < plan.zero_value.size(); ++z) bd::null_pair(q, int64_t(z));
    for (size_t z = 0; z < plan.zero_blocks.size(); ++z) bd::complete(q, int64_t(z), cols.data());
    for (int64_t p = 0; p < n; ++p) bd::store(q, p);
    return 0;
}

template <typename T>
gpusvdStatus_t serial_call(gpusvdHandle_t, gpusvdUplo_t uplo, gpusvdJob_t jobz, int64_t n, T *d,
                           T *e, T *U, int64_t ldu, T *VT, int64_t ldvt, int *info) {
    *info =
        serial_bdsvd<T>(uplo == GPUSVD_UPPER, jobz == GPUSVD_JOB_VEC, n, d, e, U, ldu, VT, ldvt);
    return GPUSVD_STATUS_SUCCESS;
}

template <typename T>
BdsvdOut<T> check(gpusvdHandle_t h, bool upper, const std::vector<T> &d, const std::vector<T> &e,
                  bool relative) {
    const int64_t n = int64_t(d.size());
    return check_bdsvd<T>(h, upper, n, d, e, relative, serial_call<T>);
}

template <typename T>
class TeamBdsvdTest : public ::testing::Test {
protected:
    Handle h;
};
TYPED_TEST_SUITE(TeamBdsvdTest, Precisions, PrecisionName);

template <typename T>
void run_mode(gpusvdHandle_t h, BidiagMode mode, double param, bool relative, uint64_t seed) {
    check_bidiag_mode<T>(h, {1, 2, 3, 5, 17, 26, 40, 64, 151}, mode, param, relative, seed,
                         serial_call<T>);
}

TYPED_TEST(TeamBdsvdTest, Random) {
    run_mode<TypeParam>(this->h, BidiagMode::Random, 0, true, 51);
}

TYPED_TEST(TeamBdsvdTest, GradedHighRelativeAccuracy) {
    run_mode<TypeParam>(this->h, BidiagMode::Graded, 1e-15, true, 52);
}

TYPED_TEST(TeamBdsvdTest, Clustered) {
    using T = TypeParam;
    run_mode<T>(this->h, BidiagMode::Clustered, std::is_same<T, float>::value ? 1e-4 : 1e-8, false,
                53);
}

TYPED_TEST(TeamBdsvdTest, ZeroDiagonalEntries) {
    run_mode<TypeParam>(this->h, BidiagMode::ZeroDiag, 0, false, 54);
}

TYPED_TEST(TeamBdsvdTest, RepeatedAndTightClusters) {
    using T = TypeParam;
    for (int64_t n : {4, 33, 100}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        // e = 0: every value 1, every block 1 x 1; e tiny: one block, values within 2e-10.
        for (T ev : {T(0), T(1e-10), T(1e-30)}) {
            std::vector<T> d(sz(n), T(1)), e(sz(n - 1), ev);
            check<T>(this->h, true, d, e, false);
        }
        // Two clusters of repeated values and a zero.
        std::vector<T> d(sz(n)), e(sz(n - 1), T(0));
        for (int64_t i = 0; i < n; ++i) d[sz(i)] = i % 3 == 0 ? T(2) : (i % 3 == 1 ? T(-1) : T(0));
        for (int64_t i = 0; i + 1 < n; i += 4) e[sz(i)] = T(1e-9);
        check<T>(this->h, false, d, e, false);
    }
}

TYPED_TEST(TeamBdsvdTest, GroupsRefinedByThreadTeams) {
    // The group refinement as a team of 4 threads (real barriers and reductions): clusters,
    // equal values (restarts) and close Wilkinson pairs.
    using T = TypeParam;
    g_group_members = 4;
    Rng rng(55);
    for (int64_t n : {5, 17}) {
        std::vector<T> d(sz(n)), e(sz(n - 1));
        random_bidiagonal(rng, n, d.data(), e.data(), BidiagMode::Clustered,
                          std::is_same<T, float>::value ? 1e-4 : 1e-8);
        check<T>(this->h, true, d, e, false);
    }
    for (int64_t n : {12, 21}) {
        std::vector<T> d(sz(n), T(1)), e(sz(n - 1), T(1e-10));
        check<T>(this->h, true, d, e, false);
        for (int64_t i = 0; i < n; ++i) d[sz(i)] = T(std::abs(double(n / 2 - i)) + 1.0);
        std::fill(e.begin(), e.end(), T(1));
        check<T>(this->h, false, d, e, false);
    }
    g_group_members = 0;
}

TYPED_TEST(TeamBdsvdTest, WilkinsonLike) {
    // d_i = |m - i| + 1, e_i = 1: close pairs of values (W+ matrices' eigenvalue pairs).
    using T = TypeParam;
    for (int64_t n : {21, 41, 101}) {
        std::vector<T> d(sz(n)), e(sz(n - 1), T(1));
        for (int64_t i = 0; i < n; ++i) d[sz(i)] = T(std::abs(double(n / 2 - i)) + 1.0);
        check<T>(this->h, true, d, e, false);
    }
}

TYPED_TEST(TeamBdsvdTest, ZeroMatrixAndZeroDiagonal) {
    using T = TypeParam;
    for (int64_t n : {1, 2, 7}) {
        std::vector<T> d(sz(n), T(0)), e(sz(n - 1), T(0));
        check<T>(this->h, true, d, e, true);
        std::fill(e.begin(), e.end(), T(0.5));  // nilpotent: values 0.5 (n-1 times) and 0
        check<T>(this->h, false, d, e, false);
    }
}

TYPED_TEST(TeamBdsvdTest, NonFinite) {
    using T = TypeParam;
    std::vector<T> d = {T(1), T(2), nan_v<T>()}, e = {T(1), T(1)}, U(9), VT(9);
    EXPECT_EQ(serial_bdsvd<T>(true, true, 3, d.data(), e.data(), U.data(), 3, VT.data(), 3),
              GPUSVD_INFO_NONFINITE);
    EXPECT_TRUE(all_nan(3, 1, d.data(), 3));
}

}  // namespace

namespace {

TYPED_TEST(TeamBdsvdTest, LargerSizes) {
    // test_gpu_bdsvd's LargerSizesWithVectors data (same generator and seed): float random
    // n = 1000 once gave a vector that converged to its neighbour's.
    using T = TypeParam;
    Rng rng(48);
    for (int64_t n : {255, 256, 300, 1000})
        for (BidiagMode mode : {BidiagMode::Random, BidiagMode::Graded}) {
            SCOPED_TRACE(testing::Message()
                         << "n = " << n << (mode == BidiagMode::Random ? " random" : " graded"));
            std::vector<T> d(sz(n)), e(sz(n - 1));
            random_bidiagonal(rng, n, d.data(), e.data(), mode, 1e-15);
            for (bool upper : {true, false}) check<T>(this->h, upper, d, e, true);
        }
}

}  // namespace

namespace {

TYPED_TEST(TeamBdsvdTest, MixedStructureFuzz) {
    // Random sizes with exact zeros sprinkled in d and e (splits, zero values, odd pieces of T),
    // repeated magnitudes, graded runs and tiny entries, upper and lower: every ratio < 50.
    using T = TypeParam;
    Rng rng(57);
    for (int trial = 0; trial < 200; ++trial) {
        const int64_t n = 1 + int64_t(rng.uniform() * 80);
        std::vector<T> d(sz(n)), e(sz(std::max<int64_t>(n - 1, 1)), T(0));
        const int kind = trial % 5;
        for (int64_t i = 0; i < n; ++i) {
            double di = rng.normal(), ei = rng.normal();
            if (kind == 1) di = rng.sign() * double(1 + int(rng.uniform() * 3));  // repeats
            if (kind == 2) di *= std::pow(1e-6, double(i % 7)), ei *= std::pow(1e-6, double(i % 5));
            if (kind == 3 && rng.uniform() < 0.3) ei = 1e-30;
            if (kind == 4)
                di *= std::pow(1e-3, double(i % 40)), ei *= std::pow(1e-3, double(i % 31));
            if (rng.uniform() < 0.15) di = 0.0;
            if (rng.uniform() < 0.15) ei = 0.0;
            d[sz(i)] = T(di);
            if (i + 1 < n) e[sz(i)] = T(ei);
        }
        SCOPED_TRACE(testing::Message() << "trial " << trial << " n = " << n << " kind " << kind);
        check<T>(this->h, trial % 2 == 0, d, e, false);
    }
}

}  // namespace

namespace {

TYPED_TEST(TeamBdsvdTest, GluedWilkinson) {
    // Copies of the Wilkinson-like block (d_i = |10 - i| + 1, e_i = 1, 21 rows) glued by small
    // e: clusters of nearly equal values that span blocks B does not split at (MRRR's hard case).
    using T = TypeParam;
    for (double glue : {1e-4, 1e-8, 1e-12}) {
        for (int copies : {2, 5}) {
            const int64_t n = 21 * copies;
            std::vector<T> d(sz(n)), e(sz(n - 1), T(1));
            for (int64_t i = 0; i < n; ++i) d[sz(i)] = T(std::abs(double(10 - i % 21)) + 1.0);
            for (int64_t c = 1; c < copies; ++c) e[sz(21 * c - 1)] = T(glue);
            SCOPED_TRACE(testing::Message() << "glue " << glue << " copies " << copies);
            check<T>(this->h, true, d, e, false);
        }
    }
}

}  // namespace
