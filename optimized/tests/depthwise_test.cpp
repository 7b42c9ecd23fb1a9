// The depthwise paths on the shapes their specialised kernels take: kernel width 3 with dilation 1
// and stride 1 or 2 runs whole rows in tiles whose first and last output may read one padding column
// (depthwise_k3_tile); wider pads, crops and other kernels take the general kernels. A sweep of row
// widths (every tile split of a row, one and several tiles), pads from -1 to 2 on each side, channel
// counts with tails and several blocks, every dtype and layout: each must agree exactly with the
// reference on integer data (a missing, extra or misplaced tap changes the result).
#include <gtest/gtest.h>

#include <string>

#include "harness.hpp"

using namespace convcheck;
using namespace convcheck::optimized;
using namespace convcheck::optimized::testing;

namespace {

// Every depthwise path this CPU has agrees exactly with the reference on `text`.
::testing::AssertionResult depthwise_paths_agree(const std::string& text, std::uint64_t seed) {
    return paths_agree_exactly(text, seed, {Path::depthwise_avx2, Path::depthwise_avx512});
}

}  // namespace

TEST(Depthwise, Kernel3RowsEveryWidthPadAndStride) {
    int cases = 0;
    for (int stride : {1, 2})
        for (int width = 1; width <= 30; ++width)
            for (int pb : {-1, 0, 1, 2})
                for (int pe : {-1, 0, 1, 2}) {
                    if (width + pb + pe < 3) continue;  // no output
                    const int channels = 1 + (width * 7 + pb * 3 + pe) % 40;
                    const std::string c = std::to_string(channels);
                    const std::string text = "conv:n=2,c=" + c + ",o=" + c + ",g=" + c + ",in=4x" + std::to_string(width) +
                                             ",k=3x3,s=" + std::to_string(stride) + "x" + std::to_string(stride) +
                                             ",pb=1x" + std::to_string(pb) + ",pe=0x" + std::to_string(pe) +
                                             ",bias=" + std::to_string(width % 2) + ",data=nxc";
                    EXPECT_TRUE(depthwise_paths_agree(text, static_cast<std::uint64_t>(width)));
                    ++cases;
                }
    EXPECT_GT(cases, 800);
}

TEST(Depthwise, Kernel3RowsChannelBlocksDtypesLayoutsAndRanks) {
    const char* cases[] = {
        "conv:c=16,o=16,g=16,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:c=48,o=48,g=48,in=14x14,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:n=2,c=40,o=40,g=40,in=9x29,k=3x3,s=2x2,pb=0x0,pe=1x1,bias=1,data=nxc",
        "conv:c=33,o=33,g=33,in=6x13,k=3x3,s=1x2,pb=1x1,pe=1x1,dt=f16,data=ncx,wei=oix",
        "conv:c=24,o=24,g=24,in=5x12,k=3x3,s=2x1,pb=0x1,pe=2x0,bias=1,dt=bf16,data=nxc,wei=xio",
        "conv:c=20,o=20,g=20,in=4x5x11,k=3x3x3,pb=1x1x1,pe=1x1x1,bias=1,data=nxc",
        "conv:c=17,o=17,g=17,in=25,k=3,s=2,pb=1,pe=1,bias=1,data=ncx",
        "conv:c=8,o=8,g=8,in=6x10,k=2x3,d=2x1,pb=1x1,pe=1x0,data=nxc",
        "conv:n=2,c=19,o=19,g=19,in=3x9,k=3x3,pb=4x1,pe=5x1,bias=1,data=nxc",  // rows with no tap at all
    };
    for (const char* text : cases) EXPECT_TRUE(depthwise_paths_agree(text, 7)) << text;
}

// Input and output over 16 MiB: with AVX2 the rows prefetch the next row's input and output as they go; with
// AVX-512, past the streaming bound (Options::stream_nxc_output_above), full channel blocks are streamed.
TEST(Depthwise, Kernel3RowsOnLayersLargerThanTheCache) {
    const char* cases[] = {
        "conv:n=2,c=64,o=64,g=64,in=150x150,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:n=3,c=72,o=72,g=72,in=161x160,k=3x3,s=2x2,pb=0x0,pe=1x1,data=nxc",
    };
    for (const char* text : cases) EXPECT_TRUE(depthwise_paths_agree(text, 9)) << text;
}

// Input and output over the L2 of a core (2 MiB) at stride 1: before each channel block the AVX-512 tiles prefetch
// the next block's outputs (kDepthwisePrefetchOutputsAbove); 40 channels (a partial last block, whose outputs are
// prefetched by the block before it), 57 rows (each image's last row in the one-row tile), 1 and 2 threads.
TEST(Depthwise, Kernel3RowsPrefetchingTheirOutputsOverTheL2) {
    const char* text = "conv:n=3,c=40,o=40,g=40,in=57x61,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc";
    for (int threads : {1, 2})
        EXPECT_TRUE(paths_agree_exactly(text, 11, {Path::depthwise_avx2, Path::depthwise_avx512}, threads)) << threads;
}

// The AVX-512 rows past a streaming bound set low here (1 MiB; its default is half the last-level cache): full
// channel blocks leave by non-temporal stores, partial ones (40 and 72 channels: the last block of each output
// has 8) by plain stores, or they would write the next output's first channels; at 1 thread the input alone
// passes the bound too and the rows prefetch their next input rows, at 2 threads a thread's share does not. One
// row at a time and two (the height stride 2 case), each at both width strides.
TEST(Depthwise, Kernel3RowsStreamingTheirOutputsAgreeExactly) {
    Options streamed;
    streamed.stream_nxc_output_above = std::int64_t{1} << 20;
    for (const char* text : {"conv:n=3,c=40,o=40,g=40,in=57x61,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
                             "conv:n=2,c=72,o=72,g=72,in=61x60,k=3x3,s=2x2,pb=1x1,pe=1x1,data=nxc",
                             "conv:n=2,c=64,o=64,g=64,in=40x70,k=3x3,s=1x2,pb=1x0,pe=1x1,bias=1,data=nxc"})
        for (int threads : {1, 2})
            EXPECT_TRUE(paths_agree_exactly(text, 13, {Path::depthwise_avx512}, threads, streamed)) << text << " " << threads;
}
