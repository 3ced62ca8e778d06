// Batched host-form calls over several GPUs (gpusvdSetDevices): the batch cut into contiguous
// parts, one per device, each run through that device's own context (streams, page-locked
// pipeline, workspace) on its own thread. Every matrix is computed exactly as on one device, so
// results and info do not depend on the split.
#pragma once

#include <cstdint>
#include <functional>

#include "context.hpp"

namespace gpusvd {
namespace gpu {

/// Whether a batched host-form call of `batch` matrices on h is split over devices (never a part
/// of a split already: the handle's own part runs the same dispatch).
bool split_over_devices(gpusvdHandle_t h, int64_t batch);

/// Runs part(context, first, count) for each device's share of the batch (equal shares: the
/// devices of one node are alike), at once; the calling thread takes the first. The first
/// failure (in device order) is h's status and message. jacobi_stats: h's Jacobi statistics
/// become the largest over the parts.
using DevicePart = std::function<gpusvdStatus_t(gpusvdHandle_t, int64_t, int64_t)>;
gpusvdStatus_t over_devices(gpusvdHandle_t h, int64_t batch, bool jacobi_stats,
                            const DevicePart &part);

}  // namespace gpu
}  // namespace gpusvd
