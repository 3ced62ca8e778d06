// The host-form pipeline's chunk boundaries (cuda/common/pipeline_plan.hpp).
#include <gtest/gtest.h>

#include "common/pipeline_plan.hpp"

using gpusvd::gpu::PipelineChunks;

namespace {

void expect_cover(int64_t batch, int64_t chunk) {
    SCOPED_TRACE(testing::Message() << "batch " << batch << " chunk " << chunk);
    const PipelineChunks p(batch, chunk);
    ASSERT_GE(p.count(), 1);
    EXPECT_EQ(p.start(0), 0);
    EXPECT_EQ(p.start(p.count()), batch);
    for (int64_t c = 0; c < p.count(); ++c) {
        EXPECT_GE(p.size(c), 1) << "chunk " << c;
        EXPECT_LE(p.size(c), chunk) << "chunk " << c;
    }
    // At most the three extra chunks the ramp adds (two quarters and two halves in place of one
    // and a half full chunks, rounded up).
    EXPECT_LE(p.count(), (batch + chunk - 1) / chunk + 3);
}

}  // namespace

TEST(PipelinePlan, ChunksCoverTheBatchWithinASlot) {
    for (int64_t chunk : {1, 2, 3, 4, 5, 7, 8, 100, 1350, 4096})
        for (int64_t batch : {int64_t(1), int64_t(2), chunk - 1, chunk, chunk + 1, 5 * chunk,
                              6 * chunk - 1, 6 * chunk, 6 * chunk + 1, 7 * chunk + 3,
                              25000 + chunk % 7, int64_t(500000)})
            if (batch >= 1) expect_cover(batch, chunk);
}

TEST(PipelinePlan, FewChunksAreEqual) {
    const PipelineChunks p(1000, 300);  // 4 chunks: 250 each, no ramp
    ASSERT_EQ(p.count(), 4);
    for (int64_t c = 0; c < 4; ++c) EXPECT_EQ(p.size(c), 250);
    const PipelineChunks one(77, 300);
    ASSERT_EQ(one.count(), 1);
    EXPECT_EQ(one.size(0), 77);
}

TEST(PipelinePlan, ManyChunksRampUpAndDown) {
    const int64_t chunk = 1350, batch = 25000;  // a quarter of 100k over 4 devices, 32 MiB slots
    const PipelineChunks p(batch, chunk);
    ASSERT_GE(p.count(), 6);
    EXPECT_EQ(p.size(0), chunk / 4);
    EXPECT_EQ(p.size(1), chunk / 2);
    EXPECT_EQ(p.size(p.count() - 2), chunk / 2);
    EXPECT_EQ(p.size(p.count() - 1), chunk / 4);
    int64_t lo = chunk, hi = 0;
    for (int64_t c = 2; c < p.count() - 2; ++c) {
        lo = std::min(lo, p.size(c));
        hi = std::max(hi, p.size(c));
    }
    EXPECT_LE(hi - lo, 1);  // the middle chunks as equal as their count allows
    EXPECT_GT(lo, chunk / 2);
}
