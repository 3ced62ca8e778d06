// Scarce resources: with the address space limited to just above what the process uses, or no
// new thread allowed, every routine must come back (no exit, no hang), print nothing, and
// either succeed with correct results or answer ALLOC_FAILED having changed nothing.
// Each case runs in a forked child; the parent enforces a deadline and reads its output.
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "test_common.hpp"

using namespace gpusvd_test;

namespace {

// More threads than CI's cores, set before the library reads it, so the batched loops want
// pool workers whose creation the tests below make fail.
const bool kThreadsSet = [] { return setenv("OMP_NUM_THREADS", "8", 1) == 0; }();

bool under_asan() {
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#endif
#endif
    return false;
}

/// A handle on the CPU backend (the backend under test; no device is probed).
class CpuHandle : public Handle {
public:
    CpuHandle() { gpusvdSetBackend(get(), GPUSVD_BACKEND_CPU); }
};

size_t current_vm_bytes() {
    std::ifstream f("/proc/self/statm");
    size_t pages = 0;
    if (!(f >> pages)) return 0;
    return pages * size_t(sysconf(_SC_PAGESIZE));
}

/// A call under test: runs the routine and reports its status; `check` then verifies the
/// outputs (after SUCCESS: the right answer; after a rejection: outputs untouched).
struct Case {
    std::string name;
    std::function<gpusvdStatus_t(gpusvdHandle_t)> run;
    std::function<bool(gpusvdStatus_t)> check;
};

double rel_err(const std::vector<double> &a, const std::vector<double> &b) {
    double num = 0, den = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return std::sqrt(num / (den > 0 ? den : 1));
}

// Cases whose correct answers are computed beforehand in the parent (by the same routine
// without any limit), so the child only compares.
std::vector<Case> make_cases() {
    std::vector<Case> cases;
    {  // many small SVDs: the batched loop and its pool workers
        const int64_t n = 8, batch = 64;
        auto A = std::make_shared<std::vector<double>>(size_t(n * n * batch));
        fill_uniform(A->data(), A->size(), 11);
        auto S = std::make_shared<std::vector<double>>(size_t(n * batch), -7.0);
        auto info = std::make_shared<std::vector<int>>(size_t(batch), -777);
        auto ref = std::make_shared<std::vector<double>>(size_t(n * batch));
        {
            CpuHandle h;
            std::vector<double> Ac = *A;
            std::vector<int> inf(static_cast<size_t>(batch));
            gpusvd_dgesvj_batched(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, n, n, Ac.data(), n, n * n,
                                  ref->data(), n, nullptr, 1, 1, nullptr, 1, 1, batch, inf.data());
        }
        cases.push_back({"dgesvj_batched",
                         [=](gpusvdHandle_t h) {
                             return gpusvd_dgesvj_batched(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, n,
                                                          n, A->data(), n, n * n, S->data(), n,
                                                          nullptr, 1, 1, nullptr, 1, 1, batch,
                                                          info->data());
                         },
                         [=](gpusvdStatus_t st) {
                             if (st != GPUSVD_STATUS_SUCCESS)
                                 return (*S)[0] == -7.0 && (*info)[0] == -777;
                             return (*info)[0] == 0 && rel_err(*S, *ref) < 1e-13;
                         }});
    }
    {  // one 400 x 400 QR: OpenBLAS's blocked kernels and its own threads
        const int64_t n = 400;
        auto A = std::make_shared<std::vector<double>>(size_t(n * n));
        fill_uniform(A->data(), A->size(), 12);
        auto R = std::make_shared<std::vector<double>>(size_t(n * n), -7.0);
        auto info = std::make_shared<int>(-777);
        auto refR = std::make_shared<std::vector<double>>(size_t(n * n), 0.0);
        {
            CpuHandle h;
            std::vector<double> Ac = *A;
            int inf;
            gpusvd_dgeqrf_mgs(h, GPUSVD_ORTH_MGS2, n, n, Ac.data(), n, refR->data(), n, &inf);
        }
        cases.push_back({"dgeqrf_mgs",
                         [=](gpusvdHandle_t h) {
                             return gpusvd_dgeqrf_mgs(h, GPUSVD_ORTH_MGS2, n, n, A->data(), n,
                                                      R->data(), n, info.get());
                         },
                         [=](gpusvdStatus_t st) {
                             if (st != GPUSVD_STATUS_SUCCESS) return (*R)[0] == -7.0 && *info == -777;
                             return *info == 0 && rel_err(*R, *refR) < 1e-12;
                         }});
    }
    {  // eigenvalues of a batch
        const int64_t n = 12, batch = 32;
        auto A = std::make_shared<std::vector<double>>(size_t(n * n * batch));
        fill_uniform(A->data(), A->size(), 13);
        auto wr = std::make_shared<std::vector<double>>(size_t(n * batch), -7.0);
        auto wi = std::make_shared<std::vector<double>>(size_t(n * batch), -7.0);
        auto info = std::make_shared<std::vector<int>>(size_t(batch), -777);
        auto ref = std::make_shared<std::vector<double>>(size_t(n * batch));
        {
            CpuHandle h;
            std::vector<double> Ac = *A, wic(size_t(n * batch));
            std::vector<int> inf(static_cast<size_t>(batch));
            gpusvd_dgeev_batched(h, GPUSVD_JOB_NOVEC, n, Ac.data(), n, n * n, ref->data(),
                                 wic.data(), n, nullptr, 1, 1, batch, inf.data());
        }
        cases.push_back({"dgeev_batched",
                         [=](gpusvdHandle_t h) {
                             return gpusvd_dgeev_batched(h, GPUSVD_JOB_NOVEC, n, A->data(), n, n * n,
                                                         wr->data(), wi->data(), n, nullptr, 1, 1,
                                                         batch, info->data());
                         },
                         [=](gpusvdStatus_t st) {
                             if (st != GPUSVD_STATUS_SUCCESS)
                                 return (*wr)[0] == -7.0 && (*info)[0] == -777;
                             return (*info)[0] == 0 && rel_err(*wr, *ref) < 1e-12;
                         }});
    }
    {  // a bidiagonal SVD with vectors (?bdsdc, blocked)
        const int64_t n = 300;
        auto d = std::make_shared<std::vector<double>>(size_t(n));
        auto e = std::make_shared<std::vector<double>>(size_t(n - 1));
        fill_uniform(d->data(), d->size(), 14);
        fill_uniform(e->data(), e->size(), 15);
        auto d0 = std::make_shared<std::vector<double>>(*d);
        auto U = std::make_shared<std::vector<double>>(size_t(n * n), -7.0);
        auto VT = std::make_shared<std::vector<double>>(size_t(n * n), -7.0);
        auto info = std::make_shared<int>(-777);
        auto ref = std::make_shared<std::vector<double>>(*d);
        {
            CpuHandle h;
            std::vector<double> ec = *e, Uc(size_t(n * n)), VTc(size_t(n * n));
            int inf;
            gpusvd_dbdsvd(h, GPUSVD_UPPER, GPUSVD_JOB_VEC, n, ref->data(), ec.data(), Uc.data(), n,
                          VTc.data(), n, &inf);
        }
        cases.push_back({"dbdsvd",
                         [=](gpusvdHandle_t h) {
                             return gpusvd_dbdsvd(h, GPUSVD_UPPER, GPUSVD_JOB_VEC, n, d->data(),
                                                  e->data(), U->data(), n, VT->data(), n,
                                                  info.get());
                         },
                         [=](gpusvdStatus_t st) {
                             if (st != GPUSVD_STATUS_SUCCESS)
                                 return *d == *d0 && (*U)[0] == -7.0 && *info == -777;
                             return *info == 0 && rel_err(*d, *ref) < 1e-13;
                         }});
    }
    // PCA of tall data by each method; the covariance method's row blocks on several threads,
    // with scores.
    for (gpusvdPcaMethod_t method : {GPUSVD_PCA_QR, GPUSVD_PCA_COVARIANCE}) {
        const bool cov = method == GPUSVD_PCA_COVARIANCE;
        const int64_t m = cov ? 20000 : 2000, n = 40, k = 5;
        auto X = std::make_shared<std::vector<double>>(size_t(m * n));
        fill_uniform(X->data(), X->size(), 16);
        auto C = std::make_shared<std::vector<double>>(size_t(n * k), -7.0);
        auto var = std::make_shared<std::vector<double>>(size_t(k), -7.0);
        auto sc = std::make_shared<std::vector<double>>(size_t(m * k), -7.0);
        auto info = std::make_shared<int>(-777);
        auto ref = std::make_shared<std::vector<double>>(size_t(k));
        auto ref_sc = std::make_shared<std::vector<double>>(size_t(m * k));
        {
            CpuHandle h;
            gpusvdSetPcaMethod(h, method);
            std::vector<double> Cc(size_t(n * k));
            int inf;
            gpusvd_dpca(h, m, n, X->data(), m, k, Cc.data(), n, ref->data(), ref_sc->data(), m,
                        nullptr, &inf);
        }
        cases.push_back({cov ? "dpca (covariance)" : "dpca (QR)",
                         [=](gpusvdHandle_t h) {
                             gpusvdSetPcaMethod(h, method);
                             return gpusvd_dpca(h, m, n, X->data(), m, k, C->data(), n, var->data(),
                                                sc->data(), m, nullptr, info.get());
                         },
                         [=](gpusvdStatus_t st) {
                             if (st != GPUSVD_STATUS_SUCCESS)
                                 return (*C)[0] == -7.0 && (*var)[0] == -7.0 &&
                                        (*sc)[0] == -7.0 && *info == -777;
                             return *info == 0 && rel_err(*var, *ref) < 1e-12 &&
                                    rel_err(*sc, *ref_sc) < 1e-10;
                         }});
    }
    return cases;
}

enum class Limit {
    AddressSpace,
    Threads,              // no new thread; OpenBLAS's threads running (started before the limit)
    ThreadsAfterFork,     // no new thread; OpenBLAS's threads down, as in any forked child
};

// What an application that had used OpenBLAS before the limit would have: its threads started.
void start_openblas_threads() {
    using Get = int (*)(void);
    using Set = void (*)(int);
    const auto get = reinterpret_cast<Get>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    const auto set = reinterpret_cast<Set>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    if (get && set) set(get());
}

// Child exit codes: 0 = SUCCESS and right, 1 = ALLOC_FAILED and untouched, 2 = wrong status,
// 3 = wrong or changed outputs, 4 = the limit could not be set, 5 = no message on failure.
[[noreturn]] void child(const Case &c, Limit limit, size_t margin) {
    CpuHandle h;
    if (limit == Limit::AddressSpace) {
        struct rlimit lim;
        lim.rlim_cur = lim.rlim_max = current_vm_bytes() + margin;
        if (setrlimit(RLIMIT_AS, &lim) != 0) std::_Exit(4);
    } else {
        if (limit == Limit::Threads) start_openblas_threads();
        // No thread may be created: drop root (whose process count is not limited) first.
        if (getuid() == 0 && setuid(65534) != 0) std::_Exit(4);
        struct rlimit lim;
        lim.rlim_cur = lim.rlim_max = 1;
        if (setrlimit(RLIMIT_NPROC, &lim) != 0) std::_Exit(4);
    }
    const gpusvdStatus_t st = c.run(h);
    if (st != GPUSVD_STATUS_SUCCESS && st != GPUSVD_STATUS_ALLOC_FAILED) std::_Exit(2);
    if (!c.check(st)) std::_Exit(3);
    if (st == GPUSVD_STATUS_ALLOC_FAILED &&  // the routine: the case's name up to a blank
        std::string(gpusvdGetErrorMessage(h)).find(c.name.substr(0, c.name.find(' '))) ==
            std::string::npos)
        std::_Exit(5);
    std::_Exit(st == GPUSVD_STATUS_SUCCESS ? 0 : 1);
}

struct Outcome {
    bool exited = false, hung = false;
    int code = -1, signal = 0;
    std::string output;
};

// Runs the child with stdout and stderr on a pipe; kills it past the deadline.
Outcome run_child(const Case &c, Limit limit, size_t margin) {
    int fds[2];
    Outcome o;
    if (pipe(fds) != 0) return o;
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        child(c, limit, margin);
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    int status = 0;
    char buf[512];
    for (;;) {
        ssize_t r;
        while ((r = read(fds[0], buf, sizeof buf)) > 0) o.output.append(buf, size_t(r));
        const pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            o.hung = true;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        poll(&p, 1, 20);
    }
    ssize_t r;
    while ((r = read(fds[0], buf, sizeof buf)) > 0) o.output.append(buf, size_t(r));
    close(fds[0]);
    if (!o.hung && WIFEXITED(status)) {
        o.exited = true;
        o.code = WEXITSTATUS(status);
    } else if (!o.hung && WIFSIGNALED(status)) {
        o.signal = WTERMSIG(status);
    }
    return o;
}

std::string describe(const Outcome &o) {
    if (o.hung) return "hung (killed after 60 s)";
    if (!o.exited) return "killed by signal " + std::to_string(o.signal);
    static const char *what[] = {"succeeded, right results",
                                 "ALLOC_FAILED, nothing changed",
                                 "returned a status other than SUCCESS or ALLOC_FAILED",
                                 "wrong results or changed outputs",
                                 "could not set the limit",
                                 "ALLOC_FAILED without a message naming the routine"};
    return o.code >= 0 && o.code <= 5 ? what[o.code] : "exited " + std::to_string(o.code);
}

TEST(ScarceResources, AddressSpaceJustAboveUse) {
    if (under_asan()) GTEST_SKIP() << "RLIMIT_AS does not work under AddressSanitizer";
    ASSERT_TRUE(kThreadsSet);
    // From no room at all, through room for a thread stack but no BLAS buffer, to room for
    // one buffer and not two, to plenty.
    const size_t margins_mib[] = {0, 1, 8, 32, 64, 100, 130, 140, 200, 300, 1024};
    int successes = 0, failures = 0;
    for (const Case &c : make_cases())
        for (size_t mib : margins_mib) {
            const Outcome o = run_child(c, Limit::AddressSpace, mib << 20);
            SCOPED_TRACE(c.name + " with " + std::to_string(mib) + " MiB to spare: " + describe(o));
            EXPECT_TRUE(o.exited && (o.code == 0 || o.code == 1));
            EXPECT_EQ(o.output, "") << "the library printed";
            successes += o.exited && o.code == 0;
            failures += o.exited && o.code == 1;
        }
    // Both outcomes occur, so the range of margins really spans "too little" to "enough".
    EXPECT_GT(successes, 0);
    EXPECT_GT(failures, 0);
}

TEST(ScarceResources, NoNewThreads) {
    ASSERT_TRUE(kThreadsSet);
    for (const Case &c : make_cases()) {
        const Outcome o = run_child(c, Limit::Threads, 0);
        SCOPED_TRACE(c.name + " with no new thread allowed: " + describe(o));
        EXPECT_TRUE(o.exited && o.code == 0);  // the work runs on the calling thread
        EXPECT_EQ(o.output, "") << "the library printed";
    }
}

TEST(ScarceResources, NoNewThreadsAfterFork) {
    ASSERT_TRUE(kThreadsSet);
    for (const Case &c : make_cases()) {
        const Outcome o = run_child(c, Limit::ThreadsAfterFork, 0);
        SCOPED_TRACE(c.name + " with no new thread allowed after a fork: " + describe(o));
        // A multi-threaded OpenBLAS must restart its threads and cannot: ALLOC_FAILED.
        EXPECT_TRUE(o.exited && (o.code == 0 || o.code == 1));
        EXPECT_EQ(o.output, "") << "the library printed";
    }
}

// ------------------------------------------------------------------------------------------------
// Host allocation failure
// ------------------------------------------------------------------------------------------------

/// In a child process: with the address space limited to the current size + 256 MiB, a
/// bdsvd with vectors for n = 6000 (?bdsdc workspace 3n^2 + 4n doubles = 864 MB) must return
/// ALLOC_FAILED, change nothing, and leave the handle usable. Exits 0 on success, else a code
/// naming the failed check.
[[noreturn]] void alloc_failure_child() {
    const int64_t n = 6000;
    gpusvdHandle_t h = nullptr;
    if (gpusvdCreate(&h) != GPUSVD_STATUS_SUCCESS) std::_Exit(10);
    // Real arrays, allocated before the limit (calloc: untouched pages cost no memory).
    double *U = static_cast<double *>(std::calloc(size_t(n * n), sizeof(double)));
    double *VT = static_cast<double *>(std::calloc(size_t(n * n), sizeof(double)));
    std::vector<double> d(size_t(n), 1.0), e(size_t(n - 1), 0.5);
    if (!U || !VT) std::_Exit(11);
    size_t need = 0;
    if (gpusvd_dbdsvd_bufferSize(h, GPUSVD_UPPER, GPUSVD_JOB_VEC, n, nullptr, &need) !=
            GPUSVD_STATUS_SUCCESS ||
        need < size_t(3 * n * n) * sizeof(double))
        std::_Exit(12);
    // A 3 x 3 problem that fits.
    auto small_call_works = [h] {
        int info = -777;
        double d3[3] = {3, 2, 1}, e3[2] = {0.5, 0.25}, U3[9], VT3[9];
        return gpusvd_dbdsvd(h, GPUSVD_UPPER, GPUSVD_JOB_VEC, 3, d3, e3, U3, 3, VT3, 3, &info) ==
                   GPUSVD_STATUS_SUCCESS &&
               info == 0;
    };
    // A small call first, so that what a first call sets up (OpenBLAS's buffers and threads, the
    // allocator's arenas) is in place before the limit: the checks below then depend on the
    // large request alone, not on how much address space that setup happens to take.
    if (!small_call_works()) std::_Exit(15);
    const size_t vm = current_vm_bytes();
    if (vm == 0) std::_Exit(13);
    struct rlimit lim;
    lim.rlim_cur = lim.rlim_max = vm + (size_t(256) << 20);
    if (setrlimit(RLIMIT_AS, &lim) != 0) std::_Exit(14);

    int info = -777;
    const gpusvdStatus_t st =
        gpusvd_dbdsvd(h, GPUSVD_UPPER, GPUSVD_JOB_VEC, n, d.data(), e.data(), U, n, VT, n, &info);
    if (st != GPUSVD_STATUS_ALLOC_FAILED) std::_Exit(20 + int(st));
    if (std::string(gpusvdGetErrorMessage(h)).find("gpusvd_dbdsvd") == std::string::npos)
        std::_Exit(30);
    if (d[0] != 1.0 || d[n - 1] != 1.0 || e[0] != 0.5 || U[0] != 0.0) std::_Exit(31);
    // The handle still works for a problem that fits.
    if (!small_call_works()) std::_Exit(32);
    gpusvdDestroy(h);
    std::_Exit(0);
}

TEST(AllocFailure, HostWorkspaceAllocationFails) {
    if (under_asan()) GTEST_SKIP() << "RLIMIT_AS does not work under AddressSanitizer";
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(alloc_failure_child(), ::testing::ExitedWithCode(0), "");
}


}  // namespace
