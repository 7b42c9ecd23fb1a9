// The products the bench tables' FMA ceiling counts (inside_macs.hpp): all of them without padding, none of the
// padded taps' with it.
#include <gtest/gtest.h>

#include "fma_ceiling.hpp"
#include "inside_macs.hpp"

using namespace convcheck;

TEST(InsideMacs, AnUnpaddedLayerCountsEveryProduct) {
    for (const char* text : {"conv:n=2,c=64,o=32,in=56x56,k=1x1", "conv:g=4,c=16,o=8,in=9x11,k=3x2,s=2x1,d=1x3",
                             "conv:c=3,o=4,in=5x6x7,k=2x3x2"}) {
        const ConvDescriptor d = parse_descriptor(text);
        EXPECT_EQ(bench::inside_macs(d), double(d.macs())) << text;
    }
}

// DeepLab's ASPP layer: 33 outputs per axis, 3 taps 6 apart, pads 6: the first tap reads inside for 27 outputs, the
// second for 33, the third for 27; 87 of 99 pairs per axis. A 3x3 pad-1 layer on 4x4 (4 outputs, 3 taps per axis: the
// first tap misses output 0, the last misses output 3): 10 of 12 pairs per axis.
TEST(InsideMacs, PaddedTapsAreLeftOut) {
    EXPECT_EQ(bench::inside_macs(parse_descriptor("conv:c=256,o=256,in=33x33,k=3x3,d=6x6,pb=6x6,pe=6x6")),
              256.0 * 256.0 * 87.0 * 87.0);
    EXPECT_EQ(bench::inside_macs(parse_descriptor("conv:n=3,c=2,o=5,in=4x4,k=3x3,pb=1x1,pe=1x1")),
              3.0 * 5.0 * 2.0 * 10.0 * 10.0);
    // stride 2, pads 3 (conv1-like on 9 pixels): outputs 0..4 read 2o-3+k, k < 7, inside [0, 9)
    // o=0: k 3..6 (4); o=1: k 1..6 (6); o=2: k 0..6 (7); o=3: 3..9 -> k 0..5 (6); o=4: 5..11 -> k 0..3 (4): 27
    EXPECT_EQ(bench::inside_macs(parse_descriptor("conv:c=3,o=64,in=9,k=7,s=2,pb=3,pe=3")), 64.0 * 3.0 * 27.0);
}

// The ceiling divides oneDNN's GFLOP/s of the dense rows (geomean) by the probe's peak or the fastest row's, the
// larger; depthwise rows only raise the fastest row.
TEST(FmaCeiling, DividesOneDnnsDenseRowsByTheLargerPeak) {
    bench::FmaCeiling c;
    // 1e9 products in 20 ms: 100 GFLOP/s; in 25 ms: 80 GFLOP/s (geomean of the two: sqrt(8000))
    c.add(1, "bwd_w", true, 1e9, 20.0, 25.0);
    c.add(1, "bwd_w", true, 1e9, 25.0, 25.0);
    c.add(1, "bwd_w", false, 1e9, 50.0, 50.0);
    EXPECT_DOUBLE_EQ(c.onednn_share(1, "bwd_w", 120.0), std::sqrt(8000.0) / 120.0);
    // a row faster than the probe (ours: 1e9 products in 10 ms, 200 GFLOP/s) raises the peak
    c.add(1, "bwd_d", false, 1e9, 40.0, 10.0);
    EXPECT_DOUBLE_EQ(c.onednn_share(1, "bwd_w", 120.0), std::sqrt(8000.0) / 200.0);
    EXPECT_TRUE(std::isnan(c.onednn_share(2, "bwd_w", 120.0)));
    EXPECT_TRUE(std::isnan(c.onednn_share(1, "bwd_d", 120.0)));  // depthwise rows alone: no dense ceiling
}

// The rows the ceiling leaves out: one input channel a group, and more than one group.
TEST(FmaCeiling, LeavesOutTheDepthwiseLayersOnly) {
    EXPECT_TRUE(bench::depthwise(parse_descriptor("conv:c=32,o=32,g=32,in=7x7,k=3x3")));
    EXPECT_TRUE(bench::depthwise(parse_descriptor("conv:c=16,o=32,g=16,in=7x7,k=3x3")));  // a channel multiplier of 2
    EXPECT_FALSE(bench::depthwise(parse_descriptor("conv:c=32,o=32,g=2,in=7x7,k=3x3")));
    EXPECT_FALSE(bench::depthwise(parse_descriptor("conv:c=1,o=8,in=7x7,k=3x3")));  // one channel, one group: dense
}
