// A communicator of the distributed routines (gpusvdComm_t): the caller's NCCL communicator or
// all-reduce function, borrowed. The host-memory all-reduce here serves the CPU path and the
// argument agreement of every call; device-memory reductions are in cuda/common/collective.hpp.
#pragma once

#include <cstdint>

#include "context.hpp"

struct gpusvdComm_st {
    enum class Kind { Host, Nccl } kind;
    int size = 1, rank = 0;
    gpusvdAllreduceFn_t fn = nullptr;  // Host
    void *user = nullptr;
    void *nccl = nullptr;  // Nccl: the caller's ncclComm_t
    int device = -1;       // Nccl: the GPU the NCCL communicator belongs to
    // Staging (cuda/common/collective.cpp), grown on demand: NCCL's host-memory reductions go
    // through a device buffer on a stream of the communicator's own; a host communicator's
    // device-memory reductions through a host buffer.
    void *dev_stage = nullptr;
    size_t dev_stage_bytes = 0;
    void *stream = nullptr;
    void *host_stage = nullptr;
    size_t host_stage_bytes = 0;
};

namespace gpusvd {

/// Bytes of one element of a reduction type.
inline size_t data_bytes(gpusvdDataType_t t) {
    return t == GPUSVD_DATA_INT32 || t == GPUSVD_DATA_FLOAT ? 4 : 8;
}

/// The reduction type of T (float or double).
template <class T>
constexpr gpusvdDataType_t data_type() {
    return sizeof(T) == 4 ? GPUSVD_DATA_FLOAT : GPUSVD_DATA_DOUBLE;
}

/// In-place all-reduce of `count` elements in host memory over c's ranks (blocking). On failure
/// a status with the routine and `what` named.
gpusvdStatus_t allreduce_host(gpusvdHandle_t h, const char *routine, const char *what,
                              gpusvdComm_t c, void *buf, int64_t count, gpusvdDataType_t type,
                              gpusvdReduceOp_t op);

/// What the ranks of one distributed call agreed on (agree()).
struct Agreement {
    int64_t m_global = 0;   // rows over all ranks
    int64_t row_offset = 0; // this rank's first row in the stacked matrix
};

/// Every rank's local status and arguments, exchanged in one all-reduce (each rank fills its own
/// slot of a zeroed table, the sum is the table), so every rank takes the same decision: a rank
/// that failed or disagrees fails the call on all of them, with the same status. `local` is this
/// rank's status so far (its message already set on h when not SUCCESS); `option` (orth, k) must
/// agree as n does.
gpusvdStatus_t agree(gpusvdHandle_t h, const char *routine, gpusvdComm_t c,
                     gpusvdStatus_t local, int64_t m_local, int64_t n, const char *option_name,
                     int64_t option, bool device, Agreement *out);

}  // namespace gpusvd
