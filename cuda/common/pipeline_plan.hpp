// Where a host-form batched call (pipeline.cpp) cuts its batch. Plain C++ so the host tests can
// check it.
#pragma once

#include <algorithm>
#include <cstdint>

namespace gpusvd {
namespace gpu {

/// Full chunks from which the pipeline ramps: below this the extra launches of the short chunks
/// cost more than the fill and drain they save.
constexpr int64_t kPipelineRampMinChunks = 6;

/// Chunk c covers matrices [start(c), start(c + 1)), c < count(); none holds more than `chunk`
/// (a slot's capacity). Nothing overlaps the first chunk's copy in, nor the last chunk's kernels
/// and copy out: with enough chunks the first two hold a quarter and a half of a slot and the last
/// two a half and a quarter, so the pipeline fills and drains in a fraction of a full chunk's
/// time. The chunks between are as equal as their count allows.
class PipelineChunks {
public:
    PipelineChunks(int64_t batch, int64_t chunk)
        : batch_(batch),
          quarter_(std::max<int64_t>(1, chunk / 4)),
          half_(std::max<int64_t>(1, chunk / 2)),
          ramp_(batch >= kPipelineRampMinChunks * chunk) {
        const int64_t middle = batch - (ramp_ ? 2 * (quarter_ + half_) : 0);
        middle_count_ = (middle + chunk - 1) / chunk;
        base_ = middle_count_ > 0 ? middle / middle_count_ : 0;
        extra_ = middle_count_ > 0 ? middle % middle_count_ : 0;
    }
    int64_t count() const { return middle_count_ + (ramp_ ? 4 : 0); }
    int64_t start(int64_t c) const {
        if (!ramp_) return middle(c);
        if (c <= 1) return c * quarter_;
        const int64_t lead = quarter_ + half_;
        if (c <= 2 + middle_count_) return lead + middle(c - 2);
        return c == count() ? batch_ : batch_ - quarter_;  // c = count() - 1: the last quarter
    }
    int64_t size(int64_t c) const { return start(c + 1) - start(c); }

private:
    int64_t middle(int64_t i) const { return i * base_ + std::min(i, extra_); }
    int64_t batch_, quarter_, half_;
    bool ramp_;
    int64_t middle_count_ = 0, base_ = 0, extra_ = 0;
};

}  // namespace gpu
}  // namespace gpusvd
