#include "cpu/thread_pool.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace gpusvd::cpu {

namespace {

thread_local bool tl_worker = false;

struct Job {
    int64_t count, chunk;
    void (*body)(void *, int64_t, int);
    void *ctx;
    int slots;                      // threads that may run it, the caller included
    std::atomic<int64_t> next{0};   // first index not yet handed out
    int taken = 1;                  // slots handed out; 0 is the caller's (pool mutex)
    int running = 0;                // workers inside run() (pool mutex)
};

void run(Job &j, int slot) {
    for (;;) {
        const int64_t b = j.next.fetch_add(j.chunk, std::memory_order_relaxed);
        if (b >= j.count) return;
        const int64_t e = std::min(j.count, b + j.chunk);
        for (int64_t i = b; i < e; ++i) j.body(j.ctx, i, slot);
    }
}

// Workers are created on demand and kept: they sleep on a condition variable between jobs
// (no spinning that would steal cycles from OpenBLAS's own threads). Several calls may run
// jobs at once; a worker joins whichever queued job still has a free slot.
class Pool {
public:
    void parallel_for(Job &j) {
        {
            std::lock_guard<std::mutex> lk(mu_);
            const int helpers = grow(j.slots - 1);
            if (helpers > 0) {
                jobs_.push_back(&j);
                for (int k = 0; k < helpers; ++k) work_cv_.notify_one();
            }
        }
        run(j, 0);
        std::unique_lock<std::mutex> lk(mu_);
        const auto it = std::find(jobs_.begin(), jobs_.end(), &j);
        if (it != jobs_.end()) jobs_.erase(it);
        done_cv_.wait(lk, [&] { return j.running == 0; });
    }

    void stop() {
        {
            std::lock_guard<std::mutex> lk(mu_);
            stopping_ = true;
        }
        work_cv_.notify_all();
        for (std::thread &t : threads_) t.join();
        threads_.clear();
    }

    std::mutex &mutex() { return mu_; }

private:
    // Up to `want` workers (mutex held); a thread the system refuses is simply not used.
    int grow(int want) {
        try {
            while (static_cast<int>(threads_.size()) < want) {
                threads_.reserve(static_cast<size_t>(want));
                threads_.emplace_back([this] { worker(); });
            }
        } catch (...) {
        }
        return std::min(want, static_cast<int>(threads_.size()));
    }

    void worker() {
        tl_worker = true;
        std::unique_lock<std::mutex> lk(mu_);
        for (;;) {
            work_cv_.wait(lk, [&] { return stopping_ || !jobs_.empty(); });
            if (stopping_) return;
            Job *j = jobs_.front();
            const int slot = j->taken++;
            if (j->taken >= j->slots) jobs_.pop_front();
            ++j->running;
            lk.unlock();
            run(*j, slot);
            lk.lock();
            if (--j->running == 0) done_cv_.notify_all();
        }
    }

    std::mutex mu_;
    std::condition_variable work_cv_, done_cv_;
    std::deque<Job *> jobs_;
    std::vector<std::thread> threads_;
    bool stopping_ = false;
};

Pool *the_pool = nullptr;
std::once_flag pool_once;

// A forked child has none of the parent's workers: it starts a new pool (the old object, whose
// mutex the fork handler holds, is abandoned on purpose).
void before_fork() {
    if (the_pool) the_pool->mutex().lock();
}
void after_fork_parent() {
    if (the_pool) the_pool->mutex().unlock();
}
void after_fork_child() {
    if (the_pool) the_pool = new (std::nothrow) Pool;
}

// Joins the workers when the library is unloaded or the process exits, so no worker is left
// sleeping in code that is about to be unmapped.
struct PoolReaper {
    ~PoolReaper() {
        if (the_pool) the_pool->stop();
    }
} reaper;

Pool *pool() {
    std::call_once(pool_once, [] {
        the_pool = new (std::nothrow) Pool;
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    });
    return the_pool;
}

}  // namespace

int hardware_threads() {
    static const int n = [] {
        if (const char *s = std::getenv("OMP_NUM_THREADS")) {
            char *end = nullptr;
            const long v = std::strtol(s, &end, 10);
            if (end != s && v > 0) return static_cast<int>(std::min<long>(v, 4096));
        }
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
            return CPU_COUNT(&set);
        const unsigned h = std::thread::hardware_concurrency();
        return h ? static_cast<int>(h) : 1;
    }();
    return n;
}

bool in_pool_worker() { return tl_worker; }

void parallel_for(int64_t count, int threads, int64_t chunk,
                  void (*body)(void *ctx, int64_t i, int slot), void *ctx) {
    Job j;
    j.count = count;
    j.chunk = chunk > 0 ? chunk : 1;
    j.body = body;
    j.ctx = ctx;
    j.slots = static_cast<int>(std::min<int64_t>(threads, (count + j.chunk - 1) / j.chunk));
    Pool *p = j.slots > 1 && !tl_worker ? pool() : nullptr;
    if (p)
        p->parallel_for(j);
    else
        run(j, 0);
}

}  // namespace gpusvd::cpu
