// Team members as std::threads, for running the team algorithms of src/kernels on the host with
// more than one member: a matrix team of P threads split into pair teams of W consecutive ranks,
// as the GPU kernels split a warp or block (cuda/common/teams.cuh). Barriers are real, so a
// missing sync shows up as wrong results and a member skipping a reduction as a hang, which the
// barrier turns into an abort after a minute.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace gpusvd_test {

/// Shared state of one group of member threads: a barrier and one reduction slot per member.
class ThreadGroup {
public:
    explicit ThreadGroup(int members) : size_(members), slots_(static_cast<size_t>(members)) {}
    int size() const { return size_; }

    void barrier() {
        std::unique_lock<std::mutex> lk(m_);
        const long gen = generation_;
        if (++arrived_ == size_) {
            arrived_ = 0;
            ++generation_;
            cv_.notify_all();
            return;
        }
        if (!cv_.wait_for(lk, std::chrono::seconds(60), [&] { return generation_ != gen; })) {
            std::fprintf(stderr, "ThreadGroup: barrier of %d waited a minute (deadlock)\n", size_);
            std::abort();
        }
    }

    /// All members get op folded over the slots in rank order: bitwise the same result, as the
    /// GPU's shuffle reductions give every lane (they add in a commutative pattern).
    template <class V, class Op>
    V reduce(int rank, V v, Op op) {
        slots_[static_cast<size_t>(rank)] = static_cast<long double>(v);  // exact for T, int64
        barrier();
        V r = static_cast<V>(slots_[0]);
        for (int i = 1; i < size_; ++i) r = op(r, static_cast<V>(slots_[static_cast<size_t>(i)]));
        barrier();  // nobody refills the slots before everyone has read them
        return r;
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    int size_, arrived_ = 0;
    long generation_ = 0;
    std::vector<long double> slots_;
};

/// One member's handle on a ThreadGroup (the matrix team or its pair team).
class ThreadTeam {
public:
    ThreadTeam(ThreadGroup *g, int rank) : g_(g), rank_(rank) {}
    int rank() const { return rank_; }
    int size() const { return g_->size(); }
    void sync() const { g_->barrier(); }
    template <class V>
    V sum(V v) const {
        return g_->reduce(rank_, v, [](V a, V b) { return a + b; });
    }
    template <class V>
    V max(V v) const {
        return g_->reduce(rank_, v, [](V a, V b) { return a > b ? a : b; });
    }

private:
    ThreadGroup *g_;
    int rank_;
};

/// Runs f(team, pair_team, rank) on `members` threads; pair teams are ranks [g W, g W + W).
inline void run_thread_team(int members, int lanes,
                            const std::function<void(const ThreadTeam &, const ThreadTeam &,
                                                     int)> &f) {
    ThreadGroup team(members);
    std::vector<std::unique_ptr<ThreadGroup>> pairs;
    for (int g = 0; g < members / lanes; ++g) pairs.emplace_back(new ThreadGroup(lanes));
    std::vector<std::thread> threads;
    for (int r = 0; r < members; ++r)
        threads.emplace_back([&, r] {
            f(ThreadTeam(&team, r), ThreadTeam(pairs[static_cast<size_t>(r / lanes)].get(), r % lanes),
              r);
        });
    for (auto &t : threads) t.join();
}

}  // namespace gpusvd_test
