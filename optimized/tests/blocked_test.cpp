// The blocked paths at the edges of their register tiles: an output-channel block that the group's
// channels do not fill (the partial-tile store must write those channels and no others: the rest are
// the next group's or do not exist), in the first input-channel block and in later ones, which
// continue the partial sum held in the output (the partial-tile load). Several input-channel blocks
// need weights over 384 KiB per output-channel block, which random descriptors rarely reach: 7x7
// kernels with 64 to 320 input channels reach it here. Each case must agree exactly with the reference
// on integer data. Large 1x1 layers prefetch the next tile's input (AVX-512): the same sums, in the same
// order, in chunks of input channels.
#include <gtest/gtest.h>

#include <string>

#include "harness.hpp"

using namespace convcheck;
using namespace convcheck::optimized;
using namespace convcheck::optimized::testing;

namespace {

// Every blocked path this CPU has agrees exactly with the reference on `text`, and on its NCX twin: the
// blocked paths run f32 channels-last layers of stride 1 and one group on the row kernel (forward_rows.hpp),
// while an NCX layer always goes through the padded copy and the register tiles.
::testing::AssertionResult blocked_paths_agree(const std::string& text, std::uint64_t seed) {
    std::string ncx = text;
    if (const std::size_t at = ncx.find("data=nxc"); at != std::string::npos) ncx.replace(at, 8, "data=ncx");
    for (const std::string& t : {text, ncx})
        if (auto r = paths_agree_exactly(t, seed, {Path::blocked_avx2, Path::blocked_avx512}); !r) return r;
    return ::testing::AssertionSuccess();
}

}  // namespace

TEST(Blocked, PartialOutputChannelBlocksOverSeveralInputChannelBlocks) {
    const char* cases[] = {
        // 12 of 16 lanes (AVX-512 and AVX2), input channels in blocks of 125 and 35
        "conv:c=160,o=12,in=9x9,k=7x7,pb=3x3,pe=3x3,bias=1,data=nxc",
        // 40 of 48 lanes (AVX-512, three vectors), input channels in blocks of 41 and 23
        "conv:c=64,o=40,in=10x11,k=7x7,pb=3x3,pe=3x3,bias=1,data=ncx",
        // the kw taps one by one (dilation 2), f16 rounding at the edge
        "conv:c=160,o=12,in=14x14,k=7x7,d=2x2,pb=6x6,pe=6x6,dt=f16,data=nxc,wei=xio",
    };
    for (const char* text : cases) EXPECT_TRUE(blocked_paths_agree(text, 5)) << text;
}

TEST(Blocked, APartialBlockLeavesTheNextGroupsChannelsAlone) {
    const char* cases[] = {
        // two groups of 12 output channels: group 0's partial block lies on group 1's channels
        "conv:g=2,c=320,o=24,in=8x8,k=7x7,pb=3x3,pe=3x3,bias=1,data=nxc",
        "conv:g=3,c=96,o=30,in=6x7,k=3x3,s=2x1,pb=1x1,pe=1x1,data=nxc",
    };
    for (const char* text : cases) EXPECT_TRUE(blocked_paths_agree(text, 11)) << text;
}

// 1x1 layers with one output-channel super block and over 1 MiB of input: on AVX-512 each full tile
// prefetches the next tile's input as it runs its input channels in chunks of one vector width
// (blocked_pixels), with a last chunk shorter than a vector (150 and 37 input channels) and a partial
// output-channel block (24 of 32 lanes, 40 of 48).
TEST(Blocked, OneByOneLayersOverTheL2RunTheirInputChannelsInPrefetchedChunks) {
    const char* cases[] = {
        "conv:c=150,o=24,in=60x60,k=1x1,bias=1,data=nxc,wei=xio",
        "conv:n=2,c=37,o=40,in=65x120,k=1x1,bias=1,data=nxc",
        // 1.1 MiB of input: over half the Xeon's L2 (kPrefetchInputAbove), under all of it
        "conv:c=150,o=24,in=44x44,k=1x1,bias=1,data=nxc,wei=xio",
    };
    for (const char* text : cases) EXPECT_TRUE(blocked_paths_agree(text, 11)) << text;
}

// 1x1 layers of several output-channel super blocks, innermost in the items (small weights), over 2 MiB of input:
// on AVX-512 the first super block of each chunk prefetches the next tile's input as it goes (blocked_pixels), the
// others not; 150 and 37 input channels (a last chunk shorter than a vector), partial last blocks (100 and 200
// channels), 1 and 2 threads (a thread may begin inside a chunk).
TEST(Blocked, OneByOneLayersOfSeveralSuperBlocksPrefetchForTheFirstOnly) {
    for (const char* text : {"conv:n=2,c=150,o=100,in=60x60,k=1x1,bias=1,data=nxc,wei=xio",
                             "conv:c=37,o=200,in=130x120,k=1x1,s=2x2,bias=1,data=nxc"})
        for (int threads : {1, 2})
            EXPECT_TRUE(paths_agree_exactly(text, 43, {Path::blocked_avx2, Path::blocked_avx512}, threads)) << text;
}

// 1x1 layers whose packed weights pass 2 MiB: the items of each output-channel super block bring the
// next one's weights into the L2 (blocked_items), each its share by pixels, in lines per vector width of input
// channels (the tile's loop in chunks of W, a last chunk shorter: 601 and 520 input channels), the last super
// block of an image the next image's first; a plane of one item and of two (192 + 33 pixels), three and four
// vector blocks, two input-channel blocks (1536 + 64); 1 and 2 threads. Stride 1 without padding: the step tiles
// (blocked_step_tiles<.., Ahead>) bring the weights, the first ahead_tiles of each call.
TEST(Blocked, OneByOneLayersWithWeightsOverTheL2BringTheNextSuperBlockAhead) {
    for (const char* text : {"conv:n=2,c=601,o=1000,in=7x7,k=1x1,bias=1,data=nxc,wei=xio",
                             "conv:c=520,o=1100,in=15x15,k=1x1,bias=1,data=nxc",
                             "conv:n=2,c=1600,o=384,in=6x6,k=1x1,data=nxc,wei=xio"})
        for (int threads : {1, 2})
            EXPECT_TRUE(paths_agree_exactly(text, 41, {Path::blocked_avx2, Path::blocked_avx512}, threads)) << text;
}

// Five and six vector blocks per tile (AVX-512, where a super block's weights take at most 32 KiB):
// 96 and 80 lanes, full and partial (90 of 96, 75 of 80), one and two groups, 1x1 and 3x3 with pads.
TEST(Blocked, FiveAndSixVectorBlocksWhereTheWeightsStayInL1) {
    const char* cases[] = {
        "conv:c=16,o=96,in=20x20,k=1x1,bias=1,data=nxc,wei=xio",
        "conv:c=7,o=90,in=13x11,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:c=5,o=75,in=9x9,k=3x3,pb=1x1,pe=1x1,bias=1,data=ncx",
        "conv:c=8,o=192,g=2,in=10x10,k=1x1,bias=1,data=nxc",
    };
    for (const char* text : cases) EXPECT_TRUE(blocked_paths_agree(text, 13)) << text;
}

// A chunk's pixels in groups of like taps (blocked_kernels.inl, group_pixels): the interior, border rows,
// border columns in whole register tiles, what is left in tiles of mixed pixels; tiles of as equal sizes
// as the widest allows, and each tile's taps from its pixels' rows and columns. Grouped layers (taps x ICg
// >= 256) with pads on both sides, strides, dilations (the kw taps one by one), several input-channel
// blocks, 3-D planes in the padding, planes smaller than a tile and chunks that end inside rows; more
// classes of border columns than groups (a 1x17 kernel with pads 8: one group in raster order); ungrouped
// layers (conv1-like) with the same tap lists.
TEST(Blocked, BorderPixelsInGroupsOfLikeTapsAgreeExactly) {
    const char* cases[] = {
        "conv:c=32,o=64,in=14x14,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:c=64,o=48,in=7x7,k=3x3,pb=1x1,pe=1x1,data=nxc",
        "conv:c=32,o=40,in=28x27,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:c=32,o=24,in=33x29,k=3x3,d=6x5,pb=6x5,pe=6x5,bias=1,data=nxc",
        "conv:c=160,o=12,in=11x13,k=5x5,pb=2x3,pe=3x1,bias=1,data=nxc",
        "conv:c=16,o=16,in=5x9x10,k=3x3x3,pb=2x1x1,pe=2x1x1,bias=1,data=nxc",
        "conv:c=64,o=32,in=3x4,k=3x3,pb=2x2,pe=2x2,data=nxc",
        "conv:c=16,o=16,in=9x40,k=1x17,pb=0x8,pe=0x8,bias=1,data=nxc",
        "conv:c=3,o=64,in=45x47,k=7x7,s=2x2,pb=3x3,pe=3x3,bias=1,data=nxc",
    };
    for (const char* text : cases) EXPECT_TRUE(blocked_paths_agree(text, 17)) << text;
}

// The reference adds the taps inside the input only; a tile of border pixels skips the taps that lie in
// the padding for all of them, so an infinite weight on such a tap cannot meet a padding zero (inf x 0 =
// NaN) there. 14x14 with pads 1, 64 output channels: on both ISAs a tile is 6 pixels, the first chunk
// holds rows 1-12 of the left column, 12 pixels: two whole tiles of border pixels, which must give the
// reference's finite outputs with an infinite weight on every kw = 0 tap.
TEST(Blocked, ATileOfBorderPixelsSkipsTheColumnTapsInThePadding) {
    // NCX: the register tiles over a padded copy (an NHWC layer of one group runs the row kernel)
    EXPECT_TRUE(left_column_stays_finite("conv:c=32,o=64,in=14x14,k=3x3,pb=1x1,pe=1x1,data=ncx", 1, 12));
}

// f32 channels-last src with pads, on grouped layers (taps x ICg >= 256) that the row kernel does not take
// (several groups, pads beyond its reach): the blocked kernel reads the user's src where it is (conversions.hpp:
// blocked_reads_src_in_place), and a border pixel's taps in the padding read zeros instead. src lies between
// two runs of NaN here: a read before or after it (a pad taken for data) would make some output NaN. Pads on
// one side only, asymmetric pads, strides, dilations, 3-D planes in the padding, a plane smaller than a tile,
// several input-channel blocks, one group in raster order.
TEST(Blocked, PaddedChannelsLastSrcIsReadInPlaceAndNeverOutside) {
    const char* cases[] = {
        "conv:n=2,g=2,c=64,o=64,in=14x14,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:g=2,c=128,o=48,in=7x7,k=3x3,s=2x1,pb=1x0,pe=0x1,data=nxc",
        "conv:g=2,c=64,o=40,in=28x27,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:g=2,c=64,o=24,in=33x29,k=3x3,s=2x1,d=6x5,pb=6x5,pe=6x5,bias=1,data=nxc",
        "conv:c=160,o=12,in=11x13,k=5x5,pb=2x3,pe=3x1,bias=1,data=nxc",
        "conv:n=2,g=2,c=32,o=16,in=5x9x10,k=3x3x3,s=1x2x1,pb=2x1x1,pe=2x1x1,bias=1,data=nxc",
        "conv:g=2,c=128,o=32,in=3x4,k=3x3,s=1x2,pb=2x2,pe=2x2,data=nxc",
        "conv:c=16,o=16,in=9x40,k=1x17,pb=0x8,pe=0x8,bias=1,data=nxc",
        "conv:c=320,o=16,in=9x9,k=7x7,pb=3x3,pe=3x3,data=nxc",
        // padded in depth only: no pixel of a plane is a border pixel (the pixels are not grouped), but the planes
        // in the padding make tiles checked, which read each pixel's input row and column (blocked_items' raster loop)
        "conv:n=2,g=2,c=64,o=16,in=4x6x7,k=3x3x3,pb=1x0x0,pe=1x0x0,bias=1,data=nxc",
    };
    for (const char* text : cases) EXPECT_TRUE(blocked_agree_reading_only_src(text, 19, " src_in_place"));
}

// Output larger than kStreamOutputAbove (16 MiB) that the tiles write straight into dst (NHWC through the
// blocked kernel, past Options::stream_nxc_output_above, set to that here: its default is half the last-level
// cache; NCX through the 1x1 NCX tiles) leaves full tiles by non-temporal stores: the same sums.
// 88 output channels: the last block of each pixel is partial (88 of 96 lanes) and must keep the plain store,
// or it would write the next pixel's first channels.
TEST(Blocked, LargeOutputsStreamTheirFullTilesAndAgreeExactly) {
    Options streamed;
    streamed.stream_nxc_output_above = std::int64_t{16} << 20;
    for (const char* text : {"conv:n=4,c=16,o=88,in=112x112,k=1x1,bias=1,data=nxc,wei=xio",
                             "conv:n=4,c=16,o=88,in=112x112,k=1x1,bias=1,data=ncx"})
        for (int threads : {1, 2})
            EXPECT_TRUE(paths_agree_exactly(text, 31, {Path::blocked_avx2, Path::blocked_avx512, Path::gemm_1x1}, threads,
                                            streamed))
                << text;
}

// A batch of few-channel f32 channels-last images copied with their pads (conv1-like: taps x ICg < 256, not read
// in place) whose copies pass 2 MiB goes image by image (padded_input_parts.cpp: each copy read from the L2 right after):
// 246x246x3 floats padded, 726 KiB an image, 2.1 MiB for three. Every image's output must be its own, in the
// raster order of a chunk's rows (blocked_items' offsets row by row), at 1 and 2 threads.
TEST(Blocked, FewChannelImagesCopiedOneByOneAgreeExactly) {
    const char* text = "conv:n=3,c=3,o=16,in=240x240,k=7x7,s=2x2,pb=3x3,pe=3x3,bias=1,data=nxc,wei=xio";
    for (int threads : {1, 2})
        EXPECT_TRUE(paths_agree_exactly(text, 37, {Path::blocked_avx2, Path::blocked_avx512}, threads)) << text;
}

// Runs of fewer than 32 work items in smaller pixel chunks that 2 threads share evenly
// (blocked_balanced_chunk_pixels), not a multiple of the tile width (AVX-512): 795 pixels in chunks of 398 and 397
// (tiles of 14), 49 pixels of 5 super blocks in chunks of 25 and 24, a conv1-like layer (copied with its pads) in 4
// chunks of 150 pixels, a padded layer of three groups read in place with its border pixels grouped, in chunks of
// 52; at 1 and 2 threads.
TEST(Blocked, FewWorkItemsInSmallerChunksAgreeExactly) {
    const char* cases[] = {
        "conv:c=150,o=24,in=15x53,k=1x1,bias=1,data=nxc,wei=xio",
        "conv:c=96,o=320,in=7x7,k=1x1,bias=1,data=nxc",
        "conv:c=3,o=64,in=47x49,k=7x7,s=2x2,pb=3x3,pe=3x3,bias=1,data=nxc,wei=xio",
        "conv:g=3,c=96,o=60,in=15x13,k=3x3,s=2x1,pb=1x1,pe=1x1,bias=1,data=nxc",
    };
    for (const char* text : cases)
        for (int threads : {1, 2})
            EXPECT_TRUE(paths_agree_exactly(text, 41, {Path::blocked_avx2, Path::blocked_avx512}, threads)) << text;
}

// A parallel body's scratch (two tap lists) on its stack up to 1024 elements (conv_plan.cpp), from the plan's pool
// beyond: 23x23 = 529 taps take 1058 from the pool, 21x21 = 441 taps 882 on the stack; at 1 and 2 threads.
TEST(Blocked, TapListsOnTheStackOrFromThePoolAgreeExactly) {
    for (const char* text : {"conv:c=2,o=16,in=30x29,k=23x23,pb=2x1,pe=1x2,bias=1,data=ncx",
                             "conv:c=2,o=16,in=28x27,k=21x21,pb=2x1,pe=1x2,bias=1,data=ncx"})
        for (int threads : {1, 2})
            EXPECT_TRUE(paths_agree_exactly(text, 43, {Path::blocked_avx2, Path::blocked_avx512}, threads)) << text;
}

// 1x1 layers run one range of work items per thread (conv_plan.cpp, TBB's static partitioner), in chunks of equal
// sizes (blocked_even_chunk_pixels): 784 pixels in 5 chunks of 157 and 156 of 8 super blocks (AVX-512), three images
// of two groups in chunks that do not divide their planes, a strided 1x1 layer; at 1, 2 and 3 threads.
TEST(Blocked, OneByOneItemsInOneRangePerThreadAgreeExactly) {
    for (const char* text : {"conv:c=24,o=512,in=28x28,k=1x1,bias=1,data=nxc,wei=xio",
                             "conv:n=3,g=2,c=64,o=96,in=23x29,k=1x1,bias=1,data=nxc",
                             "conv:n=2,c=48,o=40,in=45x47,k=1x1,s=2x2,bias=1,data=nxc,wei=xio"})
        for (int threads : {1, 2, 3})
            EXPECT_TRUE(paths_agree_exactly(text, 47, {Path::blocked_avx2, Path::blocked_avx512}, threads)) << text;
}

// Few-channel f32 channels-last images copied with their pads (conv1-like; PaddedInputParts::in_tasks, padded_input_parts.hpp) are
// packed inside the work's tasks: each task copies the input rows of one band of pixel chunks of one image into a
// buffer of its own (from the plan's pool: it may hold another band's rows), then runs the band's work items on
// it. 1 to 3 images at 1 to 3 threads make 1 to 3 bands an image (the batch's bands go evenly to the threads;
// 4 chunks in 3 bands of 1, 1 and 2),
// bands that begin and end inside rows, with taps in the padding above and below; with two groups, a dilation,
// a cropped end (negative pad), and a padded 1x1 layer of three super blocks.
TEST(Blocked, FewChannelImagesPackedBandByBandInTheirTasksAgreeExactly) {
    const char* cases[] = {
        "conv:n=3,c=3,o=16,in=61x67,k=7x7,s=2x2,pb=3x3,pe=3x3,bias=1,data=nxc,wei=xio",
        "conv:n=2,c=6,o=20,g=2,in=41x50,k=3x5,s=2x2,d=2x1,pb=4x2,pe=-1x3,bias=1,data=nxc",
        "conv:n=1,c=16,o=48,in=60x64,k=1x1,s=2x2,pb=7x3,pe=7x3,bias=1,data=nxc",
    };
    for (const char* text : cases) {
        const ConvDescriptor d = parse_descriptor(text);
        for (const auto n : {decltype(d.batch){1}, d.batch}) {
            ConvDescriptor dn = d;
            dn.batch = n;
            for (int threads : {1, 2, 3})
                EXPECT_TRUE(paths_agree_exactly(to_string(dn), 47, {Path::blocked_avx2, Path::blocked_avx512}, threads))
                    << to_string(dn) << " threads=" << threads;
        }
    }
}

// 1x1 layers without padding in rows and columns, stride 1 (and any depth stride): the runs take one input and one
// output pointer and a pixel step (blocked_step_tiles, no offset arrays), in chunks that begin inside rows; planes in
// the depth padding (bias only) keep the offsets; groups, images and NCX's padded copy; tiles of over 8 pixels (two
// base pointers); at 1 and 2 threads.
TEST(Blocked, OneByOneRunsOfPixelsOneStepApartAgreeExactly) {
    for (const char* text : {"conv:n=2,c=256,o=40,in=5x9x10,k=1x1x1,s=2x1x1,pb=1x0x0,pe=2x0x0,bias=1,data=nxc",
                             "conv:n=2,g=2,c=64,o=96,in=13x17,k=1x1,bias=1,data=nxc,wei=xio",
                             "conv:c=40,o=200,in=31x33,k=1x1,s=1x1,bias=1,data=nxc",
                             // the widest tiles, from two pointers (AVX-512 14 x 2 vectors, AVX2 12 x 1)
                             "conv:n=2,c=48,o=20,in=19x23,k=1x1,bias=1,data=nxc",
                             "conv:c=24,o=8,in=17x19,k=1x1,data=nxc,wei=xio"})
    {
        EXPECT_TRUE(blocked_paths_agree(text, 53)) << text;
        EXPECT_TRUE(paths_agree_exactly(text, 53, {Path::blocked_avx2, Path::blocked_avx512}, 2)) << text;
    }
}
