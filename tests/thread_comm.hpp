// Ranks as threads of one process, for the distributed routines: an all-reduce over host memory
// (gpusvdCommCreate's callback) built on a barrier, each rank reducing every rank's buffer in
// rank order, so all ranks get bitwise the same result, as NCCL and MPI give. A rank calling
// with another count, type or operation than rank 0 fails the all-reduce (returns 1 on every
// rank); a rank that never calls shows up as a hang, which the barrier turns into an abort.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "gpusvd.h"
#include "thread_team.hpp"

namespace gpusvd_test {

class ThreadRanks {
public:
    explicit ThreadRanks(int size)
        : group_(size), bufs_(static_cast<size_t>(size)), sig_(static_cast<size_t>(size)) {
        for (int r = 0; r < size; ++r) ctx_.push_back(Ctx{this, r});
    }
    int size() const { return group_.size(); }

    /// A gpusvdComm_t for `rank` (the caller destroys it).
    gpusvdComm_t comm(int rank) {
        gpusvdComm_t c = nullptr;
        if (gpusvdCommCreate(&c, size(), rank, &ThreadRanks::allreduce, &ctx_[static_cast<size_t>(rank)]) !=
            GPUSVD_STATUS_SUCCESS)
            return nullptr;
        return c;
    }

    /// Runs f(rank) on one thread per rank and joins them.
    void run(const std::function<void(int)> &f) {
        std::vector<std::thread> t;
        for (int r = 0; r < size(); ++r) t.emplace_back(f, r);
        for (auto &x : t) x.join();
    }

    int calls() const { return calls_; }

private:
    struct Ctx {
        ThreadRanks *self;
        int rank;
    };
    struct Sig {
        int64_t count;
        int type, op;
    };

    template <class E>
    static void reduce(std::vector<std::vector<char>> &bufs, void *out, int64_t count, bool max) {
        E *o = static_cast<E *>(out);
        for (int64_t i = 0; i < count; ++i) {
            E acc = reinterpret_cast<const E *>(bufs[0].data())[i];
            for (size_t r = 1; r < bufs.size(); ++r) {
                const E v = reinterpret_cast<const E *>(bufs[r].data())[i];
                acc = max ? std::max(acc, v) : acc + v;
            }
            o[i] = acc;
        }
    }

    static int allreduce(void *buf, int64_t count, gpusvdDataType_t type, gpusvdReduceOp_t op,
                         void *user) {
        Ctx *c = static_cast<Ctx *>(user);
        ThreadRanks &t = *c->self;
        const size_t elem = type == GPUSVD_DATA_INT32 || type == GPUSVD_DATA_FLOAT ? 4 : 8;
        t.bufs_[static_cast<size_t>(c->rank)].assign(static_cast<char *>(buf),
                                                      static_cast<char *>(buf) + count * elem);
        t.sig_[static_cast<size_t>(c->rank)] = Sig{count, int(type), int(op)};
        t.group_.barrier();
        bool same = true;
        for (const Sig &s : t.sig_)
            same = same && s.count == count && s.type == int(type) && s.op == int(op);
        if (same) {
            const bool max = op == GPUSVD_REDUCE_MAX;
            switch (type) {
                case GPUSVD_DATA_INT32: reduce<int32_t>(t.bufs_, buf, count, max); break;
                case GPUSVD_DATA_INT64: reduce<int64_t>(t.bufs_, buf, count, max); break;
                case GPUSVD_DATA_FLOAT: reduce<float>(t.bufs_, buf, count, max); break;
                default: reduce<double>(t.bufs_, buf, count, max); break;
            }
        }
        if (c->rank == 0) ++t.calls_;
        t.group_.barrier();  // nobody refills its buffer before all have read
        return same ? 0 : 1;
    }

    ThreadGroup group_;
    std::vector<std::vector<char>> bufs_;
    std::vector<Sig> sig_;
    std::vector<Ctx> ctx_;
    int calls_ = 0;
};

}  // namespace gpusvd_test
