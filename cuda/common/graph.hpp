// Loops and branches decided on the device, for `_gpu` calls made while the caller's stream is
// capturing a CUDA graph: the graph is replayed on new data, so a trip count or a branch read by
// the host at capture time would be wrong at replay. The loop or branch becomes a conditional
// node of the caller's graph (CUDA 12.4+ while nodes, 12.8+ if/else), its body captured from the
// same enqueueing code that the uncaptured call runs.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "context.hpp"

namespace gpusvd {
namespace gpu {

/// Enqueues work on the given stream (the body's own while it is captured).
using Enqueue = std::function<cudaError_t(cudaStream_t)>;

/// Whether `s` is capturing a graph (active capture); false on the legacy default stream.
cudaError_t stream_capturing(cudaStream_t s, bool *capturing);

/// NOT_SUPPORTED (message naming the routine and `what`) when `s` is capturing, before anything
/// is enqueued: for the paths that plan on the host from device data.
gpusvdStatus_t refuse_capture(gpusvdHandle_t h, const char *routine, cudaStream_t s,
                              const char *what);

/// Launches on `s` (in order with the caller's work) the graph of enqueue(cs) captured on the
/// handle's own capture stream: the device-decided loops of a form for an uncaptured call, where
/// they beat reading flags back. The graph is kept and relaunched while `key` (everything the
/// enqueued work depends on: pointers, sizes, settings) stays the same; another key waits for
/// the kept graph to finish before replacing it.
gpusvdStatus_t run_as_graph(gpusvdHandle_t h, const char *routine, cudaStream_t s,
                            const std::vector<uint64_t> &key,
                            const std::function<gpusvdStatus_t(cudaStream_t)> &enqueue);

/// Appends to the capture on `s` a loop that runs `body` while *cont != 0 after an iteration (at
/// least once). The body must write *cont; it is captured on the handle's body stream.
gpusvdStatus_t captured_while(gpusvdHandle_t h, const char *routine, cudaStream_t s,
                              const int *cont, const Enqueue &body);

/// Appends to the capture on `s`: then_body if *flag != 0 at that point, else else_body (either
/// may be empty).
gpusvdStatus_t captured_if(gpusvdHandle_t h, const char *routine, cudaStream_t s, const int *flag,
                           const Enqueue &then_body, const Enqueue &else_body);

}  // namespace gpu
}  // namespace gpusvd
