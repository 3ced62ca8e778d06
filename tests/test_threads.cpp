// Many handles used from several threads at once (the documented contract: distinct handles may
// be used concurrently). Every result is verified.
#include <dlfcn.h>

#include <atomic>
#include <thread>

#include "test_common.hpp"

using namespace gpusvd_test;

namespace {

/// One thread's work: several calls of every routine on its own handle, each result checked.
/// Returns the number of failed checks (gtest assertions are thread-safe, but counting makes the
/// per-thread outcome explicit).
template <typename T>
int worker(int tid, int rounds) {
    int failures = 0;
    auto check = [&](bool ok, const char *what) {
        if (!ok) {
            ++failures;
            ADD_FAILURE() << "thread " << tid << ": " << what;
        }
    };
    gpusvdHandle_t h = nullptr;
    if (gpusvdCreate(&h) != GPUSVD_STATUS_SUCCESS) return 1;
    gpusvdSetBackend(h, GPUSVD_BACKEND_CPU);
    Rng rng(uint64_t(7000 + tid));
    for (int r = 0; r < rounds; ++r) {
        // gesvj
        {
            const int64_t m = 20 + tid % 3, n = 12;
            const std::vector<T> A0 = gaussian<T>(rng, m, n);
            std::vector<T> A = A0, S(sz(n)), U(sz(m * n)), V(sz(n * n));
            int info = -1;
            check(Api<T>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m, S.data(),
                                U.data(), m, V.data(), n, &info) == GPUSVD_STATUS_SUCCESS &&
                      info == 0,
                  "gesvj status");
            check(svd_residual(m, n, A0.data(), m, S.data(), U.data(), m, V.data(), n) < 50,
                  "gesvj residual");
            check(orthogonality(m, n, U.data(), m) < 50, "gesvj U orthogonality");
            int sweeps = 0;
            gpusvdGetJacobiStats(h, &sweeps, nullptr);
            check(sweeps >= 1 && sweeps <= 30, "gesvj stats belong to this handle's call");
        }
        // gesvj_batched
        {
            const int64_t m = 9, n = 7, batch = 4;
            const std::vector<T> A0 = gaussian<T>(rng, m, n * batch);
            std::vector<T> A = A0, S(sz(n * batch)), U(sz(m * n * batch)), V(sz(n * n * batch));
            std::vector<int> info(sz(batch), -1);
            check(Api<T>::gesvj_batched(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A.data(), m,
                                        m * n, S.data(), n, U.data(), m, m * n, V.data(), n, n * n,
                                        batch, info.data()) == GPUSVD_STATUS_SUCCESS,
                  "gesvj_batched status");
            for (int64_t b = 0; b < batch; ++b) {
                check(info[sz(b)] == 0, "gesvj_batched info");
                check(svd_residual(m, n, A0.data() + b * m * n, m, S.data() + b * n,
                                   U.data() + b * m * n, m, V.data() + b * n * n, n) < 50,
                      "gesvj_batched residual");
            }
        }
        // geqrf_mgs and geqrf_mgs_batched
        {
            const int64_t m = 15, n = 9, batch = 3;
            const std::vector<T> A0 = gaussian<T>(rng, m, n * batch);
            std::vector<T> A = A0, R(sz(n * n * batch));
            int info = -1;
            check(Api<T>::geqrf_mgs(h, GPUSVD_ORTH_MGS2, m, n, A.data(), m, R.data(), n, &info) ==
                          GPUSVD_STATUS_SUCCESS &&
                      info == 0,
                  "geqrf_mgs status");
            check(qr_residual(m, n, A0.data(), m, A.data(), m, R.data(), n) < 30, "geqrf residual");
            check(orthogonality(m, n, A.data(), m) < 30, "geqrf orthogonality");
            A = A0;
            std::vector<int> infos(sz(batch), -1);
            check(Api<T>::geqrf_mgs_batched(h, GPUSVD_ORTH_MGS, m, n, A.data(), m, m * n, R.data(),
                                            n, n * n, batch, infos.data()) ==
                      GPUSVD_STATUS_SUCCESS,
                  "geqrf_mgs_batched status");
            for (int64_t b = 0; b < batch; ++b)
                check(infos[sz(b)] == 0 &&
                          qr_residual(m, n, A0.data() + b * m * n, m, A.data() + b * m * n, m,
                                      R.data() + b * n * n, n) < 30,
                      "geqrf_mgs_batched residual");
        }
        // geev_batched
        {
            const int64_t n = 10, batch = 4;
            const std::vector<T> A0 = gaussian<T>(rng, n, n * batch);
            std::vector<T> A = A0, wr(sz(n * batch)), wi(sz(n * batch)), VR(sz(n * n * batch));
            std::vector<int> info(sz(batch), -1);
            check(Api<T>::geev_batched(h, GPUSVD_JOB_VEC, n, A.data(), n, n * n, wr.data(),
                                       wi.data(), n, VR.data(), n, n * n, batch, info.data()) ==
                      GPUSVD_STATUS_SUCCESS,
                  "geev_batched status");
            for (int64_t b = 0; b < batch; ++b) {
                check(info[sz(b)] == 0, "geev info");
                check(eig_residual(n, A0.data() + b * n * n, n, wr.data() + b * n,
                                   wi.data() + b * n, VR.data() + b * n * n, n) < 20,
                      "geev residual");
                check(eig_pairs_ok(n, wr.data() + b * n, wi.data() + b * n), "geev pairs");
            }
        }
        // bdsvd
        {
            const int64_t n = 16;
            std::vector<T> d0(sz(n)), e0(sz(n - 1));
            random_bidiagonal(rng, n, d0.data(), e0.data(), BidiagMode::Random);
            std::vector<T> d = d0, e = e0, U(sz(n * n)), VT(sz(n * n));
            int info = -1;
            check(Api<T>::bdsvd(h, GPUSVD_LOWER, GPUSVD_JOB_VEC, n, d.data(), e.data(), U.data(),
                                n, VT.data(), n, &info) == GPUSVD_STATUS_SUCCESS &&
                      info == 0,
                  "bdsvd status");
            check(bidiag_residual(n, false, d0.data(), e0.data(), d.data(), U.data(), n, VT.data(),
                                  n) < 50,
                  "bdsvd residual");
            check(is_sorted_desc_nonneg(n, d.data()), "bdsvd sorted");
        }
        // pca
        {
            const int64_t m = 30, n = 6, k = 3;
            const std::vector<T> X = gaussian<T>(rng, m, n);
            std::vector<T> C(sz(n * k)), var(sz(k)), sc(sz(m * k)), mean(sz(n));
            int info = -1;
            check(Api<T>::pca(h, m, n, X.data(), m, k, C.data(), n, var.data(), sc.data(), m,
                              mean.data(), &info) == GPUSVD_STATUS_SUCCESS &&
                      info == 0,
                  "pca status");
            check(orthogonality(n, k, C.data(), n) < 50, "pca components orthonormal");
            check(is_sorted_desc_nonneg(k, var.data()), "pca variance sorted");
            // the first score column's sample variance is the first explained variance
            long double ss = 0;
            for (int64_t i = 0; i < m; ++i) ss += (long double)sc[sz(i)] * sc[sz(i)];
            check(std::fabs(double(ss / (m - 1)) - double(var[0])) <=
                      100 * eps<T>() * double(var[0]) * m,
                  "pca scores consistent with variance");
        }
        // an error on this handle does not leak into other threads' handles
        {
            int info = 0;
            check(Api<T>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, -tid - 1, 2, nullptr, 1,
                                nullptr, nullptr, 1, nullptr, 1, &info) ==
                      GPUSVD_STATUS_INVALID_VALUE,
                  "invalid call rejected");
            const std::string msg = gpusvdGetErrorMessage(h);
            check(msg.find(std::to_string(-tid - 1)) != std::string::npos,
                  "error message is this thread's own");
        }
    }
    gpusvdDestroy(h);
    return failures;
}

template <typename T>
void run_threads(int threads, int rounds) {
    std::atomic<int> failures{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] { failures += worker<T>(t, rounds); });
    for (auto &th : pool) th.join();
    EXPECT_EQ(failures.load(), 0);
}

TEST(Threads, EightThreadsDouble) { run_threads<double>(8, 3); }
TEST(Threads, EightThreadsFloat) { run_threads<float>(8, 3); }
TEST(Threads, MixedPrecisionsAtOnce) {
    std::atomic<int> failures{0};
    std::thread a([&] { failures += worker<float>(100, 2); });
    std::thread b([&] { failures += worker<double>(101, 2); });
    std::thread c([&] { failures += worker<double>(102, 2); });
    std::thread d([&] { failures += worker<float>(103, 2); });
    a.join(), b.join(), c.join(), d.join();
    EXPECT_EQ(failures.load(), 0);
}

TEST(Threads, NullHandleMessagesArePerThread) {
    // Each thread fails a different routine with a NULL handle and must read back its own
    // message (kept per thread).
    std::atomic<int> failures{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < 4; ++t)
        pool.emplace_back([&, t] {
            int info = 0;
            const char *names[] = {"gpusvd_dgesvj", "gpusvd_sgeqrf_mgs", "gpusvd_dbdsvd",
                                   "gpusvd_spca"};
            for (int r = 0; r < 200; ++r) {
                gpusvdStatus_t st = GPUSVD_STATUS_SUCCESS;
                switch (t) {
                    case 0:
                        st = gpusvd_dgesvj(nullptr, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 2, 2, nullptr,
                                           2, nullptr, nullptr, 2, nullptr, 2, &info);
                        break;
                    case 1:
                        st = gpusvd_sgeqrf_mgs(nullptr, GPUSVD_ORTH_MGS, 2, 2, nullptr, 2, nullptr,
                                               2, &info);
                        break;
                    case 2:
                        st = gpusvd_dbdsvd(nullptr, GPUSVD_UPPER, GPUSVD_JOB_NOVEC, 2, nullptr,
                                           nullptr, nullptr, 1, nullptr, 1, &info);
                        break;
                    default:
                        st = gpusvd_spca(nullptr, 3, 2, nullptr, 3, 1, nullptr, 2, nullptr,
                                         nullptr, 3, nullptr, &info);
                }
                if (st != GPUSVD_STATUS_INVALID_VALUE) ++failures;
                const std::string msg = gpusvdGetErrorMessage(nullptr);
                if (msg.find(std::string(names[t]) + ":") == std::string::npos) ++failures;
            }
        });
    for (auto &th : pool) th.join();
    EXPECT_EQ(failures.load(), 0);
}

}  // namespace

// Batched CPU calls hold a pthread OpenBLAS single-threaded while they run; after concurrent
// batched calls from several handles, the user's OpenBLAS thread count must be back.
TEST(Threads, OpenBlasThreadCountRestored) {
    using GetThreads = int (*)(void);
    using SetThreads = void (*)(int);
    auto get = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    if (!get || !set) GTEST_SKIP() << "BLAS is not OpenBLAS";
    const int before = get();
    set(3);  // a distinctive value the library must restore
    std::atomic<int> failures{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < 4; ++t)
        pool.emplace_back([&, t] {
            Handle h;
            gpusvdSetBackend(h, GPUSVD_BACKEND_CPU);
            Rng rng(uint64_t(900 + t));
            for (int r = 0; r < 20; ++r) {
                const int64_t n = 6, batch = 64;
                std::vector<double> A = gaussian<double>(rng, n, n * batch), wr(sz(n * batch)),
                                    wi(sz(n * batch));
                std::vector<int> info(sz(batch), -1);
                if (gpusvd_dgeev_batched(h, GPUSVD_JOB_NOVEC, n, A.data(), n, n * n, wr.data(),
                                         wi.data(), n, nullptr, 1, n * n, batch,
                                         info.data()) != GPUSVD_STATUS_SUCCESS)
                    ++failures;
            }
        });
    for (auto &th : pool) th.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(get(), 3);
    set(before);
}
