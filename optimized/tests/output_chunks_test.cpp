// The batch in chunks of images where the plan holds the kernels' f32 channels-last output y for a dst that is
// not one (NCX, or 16-bit NXC): each chunk's xp and y stay within a thread's share (padded_input_parts.hpp,
// chunk_images), and each chunk's y is stored to dst as soon as its kernel ends. The chunks must give the
// reference's exact values on integer data: an image stored at another image's place, a chunk stored twice or
// not at all, or a short last chunk read past its end changes the result.
#include <gtest/gtest.h>

#include <string>

#include "conversions.hpp"
#include "harness.hpp"
#include "padded_input_parts.hpp"

using namespace convcheck;
using namespace convcheck::optimized;
using namespace convcheck::optimized::testing;

namespace {

// 64 output channels of 64 x 60 pixels: 0.94 MiB of y an image, and 0.12 MiB of padded input (a macro, joined to
// each layout as a literal: g++ 12 warns -Warray-bounds, falsely, on std::string(const char*) + literal here)
#define LAYER "conv:n=5,c=8,o=64,in=64x60,k=3x3,pb=1x1,pe=1x1,bias=1"

detail::i64 images_of_a_chunk(const ConvDescriptor& d, detail::i64 threads) {
    const detail::Geometry g = detail::make_geometry(d, 1);
    const detail::PaddedInputParts parts = detail::padded_input_parts(d, g, 0, 0);
    return detail::chunk_images(g, parts, true, double(g.padded_pixels()) * double(g.channel_stride),
                                !detail::dst_is_y(d), threads);
}

}  // namespace

TEST(OutputChunks, ImagesOfAChunkKeepEachThreadsShareWithinTwoMebibytes) {
    const ConvDescriptor ncx = parse_descriptor(LAYER ",data=ncx");
    EXPECT_EQ(images_of_a_chunk(ncx, 1), 1) << to_string(ncx);   // 1.06 MiB an image: 1 in 2 MiB
    EXPECT_EQ(images_of_a_chunk(ncx, 2), 3) << to_string(ncx);   // 3 in 4 MiB
    EXPECT_EQ(images_of_a_chunk(ncx, 16), 5) << to_string(ncx);  // the whole batch in 32 MiB
    // f32 NXC dst is y: the kernels write it in place, the whole batch at once
    const ConvDescriptor nxc = parse_descriptor(LAYER ",data=nxc");
    EXPECT_EQ(images_of_a_chunk(nxc, 1), 5) << to_string(nxc);
    // 16-bit NXC dst is not y
    const ConvDescriptor bf16 = parse_descriptor(LAYER ",dt=bf16,data=nxc");
    EXPECT_EQ(images_of_a_chunk(bf16, 1), 1) << to_string(bf16);
}

// Chunks of 1 image (1 thread) and of 3 then 2 (2 threads): the reference's exact values on every path that
// converts NCX buffers, and on 16-bit NXC dst.
TEST(OutputChunks, ChunksOfImagesAgreeWithTheReference) {
    for (const char* text : {LAYER ",data=ncx", LAYER ",dt=bf16,data=nxc", LAYER ",dt=f16,data=ncx"})
        for (int threads : {1, 2}) {
            EXPECT_TRUE(paths_agree_exactly(text, 7, {Path::blocked_avx2, Path::blocked_avx512, Path::im2col_gemm},
                                            threads))
                << text << " threads=" << threads;
        }
    // 1x1, stride 2 (res3_downsample-like: packed without padding, every pixel one tap)
    for (int threads : {1, 2})
        EXPECT_TRUE(paths_agree_exactly("conv:n=3,c=16,o=128,in=96x96,k=1x1,s=2x2,data=ncx", 5,
                                        {Path::blocked_avx2, Path::blocked_avx512}, threads))
            << "threads=" << threads;
}
