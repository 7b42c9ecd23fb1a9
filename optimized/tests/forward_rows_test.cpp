// The blocked paths' layers of one group on f32 channels-last buffers run the row kernel (forward_rows.hpp):
// src read in place, dst written in place, every padded product skipped, each sum started from the bias.
// Each case must agree exactly with the reference on integer data at 1 and 2 threads, with src between two
// runs of NaN (a read outside it would make some output NaN): 3x3 rows as wide as one tile, as several and as
// a partial one, pads on one side, asymmetric pads, dilation 2, 3-D, a partial output-channel block, several
// super blocks, without bias, strides 2 and 3 (with at least 256 products per output, as strided layers
// need). And as the reference adds only the taps inside the input, an infinite weight on every kw = 0 tap
// leaves every left-column output finite. Rows of 4 to 7 outputs in tiles of two rows (AVX-512) as well. A tile
// whose every kw reads inside for all its pixels runs its kernel row's kw taps as one loop (dilation 1): the
// wide rows here have such tiles (seen failing with the merge taken where only the first kw reads inside).
#include <gtest/gtest.h>

#include <vector>

#include "forward_rows.hpp"
#include "harness.hpp"

using namespace convcheck;
using namespace convcheck::optimized;
using namespace convcheck::optimized::testing;

namespace {

// The row kernel's plan of `text` on this ISA (weights zero: only the plan's shape is read).
detail::RowsBackwardData rows_kernel(const char* text, bool avx512, detail::ForwardRows& plan) {
    const ConvDescriptor d = parse_descriptor(text);
    EXPECT_TRUE(detail::forward_rows_fit(d, avx512)) << text;
    const std::vector<float> canonical(static_cast<std::size_t>(d.weights_elements()), 0.0f);
    detail::plan_forward_rows(d, canonical.data(), {}, avx512, plan);
    return plan.kernel;
}

// The ISAs this CPU runs (false: AVX2, true: AVX-512), for the plan checks below
std::vector<bool> isas_here() {
    std::vector<bool> isas;
    if (cpu_has_avx2_fma()) isas.push_back(false);
    if (cpu_has_avx512()) isas.push_back(true);
    return isas;
}

}  // namespace

TEST(ForwardRows, LayersOfOneGroupAgreeExactlyAndReadOnlySrc) {
    const char* cases[] = {
        "conv:n=2,c=32,o=64,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:c=16,o=40,in=9x57,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:c=24,o=96,in=6x13,k=3x3,pb=0x2,pe=2x0,data=nxc",
        "conv:c=8,o=130,in=11x20,k=3x3,d=2x2,pb=2x2,pe=2x2,bias=1,data=nxc",
        "conv:c=5,o=20,in=4x6x9,k=3x3x3,pb=1x1x1,pe=1x1x1,bias=1,data=nxc",
        "conv:c=3,o=17,in=5x3,k=2x3,pb=1x1,pe=0x1,bias=1,data=nxc",
        "conv:c=32,o=40,in=28x27,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:c=29,o=24,in=15x16,k=3x3,s=2x3,pb=1x1,pe=1x1,data=nxc",
        "conv:n=2,c=10,o=16,in=5x9x10,k=3x3x3,s=2x1x2,pb=1x1x1,pe=1x1x1,bias=1,data=nxc",
    };
    for (const char* text : cases) EXPECT_TRUE(blocked_agree_reading_only_src(text, 23, " rows"));
}

// Rows of 4 to 7 outputs run two at a time in one tile of NB = 2 on AVX-512 (RowsBackwardData::tile_rows; the
// AVX2 kernels keep tiles of one row): each tile's rows whose input row lies in the padding skipped per tap
// (the top row, the bottom row, both at an even and an odd number of rows), a last row alone, stride 2 (as
// res5_3x3s2), dilation 2, asymmetric pads, 3-D, a partial output-channel block, no bias.
TEST(ForwardRows, TilesOfTwoRowsAgreeExactlyAndReadOnlySrc) {
    const char* cases[] = {
        "conv:n=2,c=32,o=64,in=6x7,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:c=40,o=40,in=13x14,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:c=16,o=32,in=9x5,k=3x3,d=2x2,pb=2x2,pe=2x2,data=nxc",
        "conv:c=8,o=20,in=5x4,k=3x3,pb=0x1,pe=2x1,bias=1,data=nxc",
        "conv:n=2,c=6,o=33,in=4x5x6,k=3x3x3,pb=1x1x1,pe=1x1x1,bias=1,data=nxc",
    };
    for (const char* text : cases) {
        EXPECT_TRUE(blocked_agree_reading_only_src(text, 31, " rows"));
        const ConvDescriptor d = parse_descriptor(text);
        if (!why_unavailable(d, Path::blocked_avx512).empty()) continue;
        Buffers b = make_buffers(d, std::vector<double>(static_cast<std::size_t>(d.src_elements())),
                                       std::vector<double>(static_cast<std::size_t>(d.weights_elements())),
                                       std::vector<double>(static_cast<std::size_t>(d.out_channels)));
        const ConvPlan plan(d, b.weights.data(), d.has_bias ? b.bias.data() : nullptr, Options{1, Path::blocked_avx512});
        EXPECT_EQ(plan.implementation(), "blocked_avx512 rows pairs") << text;
    }
}

// A batch whose input passes half the L2, on rows of one tile, runs groups of super blocks, each input row serving
// every super block of its group (RowsBackwardData::group, forward_rows.cpp): here 5 super blocks in groups of 4 and 1
// (AVX-512; NB = 1), and 3 in tiles of two rows in groups of 2 and 1, so that the last group is partial; 2 and 4 images
// (seen failing with a partial group's rows decoded with the full group's size).
TEST(ForwardRows, GroupsOfSuperBlocksAgreeExactlyAndReadOnlySrc) {
    const char* cases[] = {
        "conv:n=2,c=384,o=72,in=20x20,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:n=4,c=384,o=72,in=14x14,k=3x3,s=2x2,pb=1x1,pe=1x1,data=nxc",
    };
    for (const char* text : cases) EXPECT_TRUE(blocked_agree_reading_only_src(text, 37, " rows"));
    if (!cpu_has_avx512()) return;
    // the orders these cases are here for (AVX-512): groups of 4 of the 5 super blocks, of 2 of the 3
    detail::ForwardRows plan;
    for (const auto& [text, group] : {std::pair{cases[0], 4}, std::pair{cases[1], 2}}) {
        const detail::RowsBackwardData k = rows_kernel(text, true, plan);
        EXPECT_EQ(k.group, group) << text;
        EXPECT_GT(k.super_blocks % k.group, 0) << text << ": the last group partial";
        EXPECT_FALSE(k.image_major) << text;
    }
}

// A single image whose input passes half the L2, on rows of several tiles, groups its super blocks too (a batch runs
// image by image): 4 super blocks of 295 KB in groups of 3 and 1 (AVX-512, NB = 4), 8 of 147 KB in groups of 7 and 1
// (AVX2), rows of 24 outputs in 4 tiles, stride 2 as res3_3x3s2 (seen failing with the batch-1 exception dropped, and
// with a partial group's rows decoded with the full group's size).
TEST(ForwardRows, OneImageGroupsOnRowsOfSeveralTilesAgreeExactlyAndReadOnlySrc) {
    const char* text = "conv:c=128,o=250,in=48x48,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc";
    EXPECT_TRUE(blocked_agree_reading_only_src(text, 43, " rows"));
    detail::ForwardRows plan;
    for (const bool avx512 : isas_here()) {
        const detail::RowsBackwardData k = rows_kernel(text, avx512, plan);
        EXPECT_GT(24, k.tile) << text << ": several tiles a row";
        EXPECT_GT(k.group, 1) << text << (avx512 ? " AVX-512" : " AVX2");
        EXPECT_GT(k.super_blocks % k.group, 0) << text << ": the last group partial";
    }
}

// A batch whose input passes half the L2, on rows of several tiles, with super blocks smaller than an image's input,
// runs image by image (RowsBackwardData::image_major, forward_rows.cpp): 2 and 3 super blocks, 3 and 2 images, one
// dilated (seen failing with the image decoded by the batch in place of the super blocks).
TEST(ForwardRows, ImageByImageAgreesExactlyAndReadsOnlySrc) {
    const char* cases[] = {
        "conv:n=3,c=4,o=72,in=150x150,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:n=2,c=8,o=100,in=130x130,k=3x3,d=2x2,pb=2x2,pe=2x2,data=nxc",
    };
    for (const char* text : cases) EXPECT_TRUE(blocked_agree_reading_only_src(text, 41, " rows"));
    // the order these cases are here for, on every ISA this CPU has: image by image, over several super blocks
    detail::ForwardRows plan;
    for (const bool avx512 : isas_here()) {
        for (const char* text : cases) {
            const detail::RowsBackwardData k = rows_kernel(text, avx512, plan);
            EXPECT_TRUE(k.image_major) << text << (avx512 ? " AVX-512" : " AVX2");
            EXPECT_GT(k.super_blocks, 1) << text;
        }
    }
}

TEST(ForwardRows, AnInfiniteWeightOnAPaddedTapNeverMeetsTheZero) {
    EXPECT_TRUE(left_column_stays_finite("conv:c=8,o=24,in=9x10,k=3x3,pb=1x1,pe=1x1,data=nxc", 0, 8));
    EXPECT_TRUE(left_column_stays_finite("conv:c=8,o=24,in=8x7,k=3x3,pb=1x1,pe=1x1,data=nxc", 0, 7));  // in tiles of two rows
}

// Every row tile streams its super block's weights whole: beyond 2 MiB of them a layer keeps the register tiles
// (which block the input channels), here with src read in place (5x5 over 4096 channels, 16 outputs: 3.3 MiB a
// super block of one 8-lane vector, 6.6 of one 16-lane vector).
TEST(ForwardRows, ALayerWhoseSuperBlockWeightsPassTheL2KeepsTheRegisterTiles) {
    EXPECT_TRUE(blocked_agree_reading_only_src("conv:c=4096,o=16,in=7x7,k=5x5,pb=2x2,pe=2x2,bias=1,data=nxc", 29,
                                               " src_in_place"));
}

// Where a tile's pixels along a row lie a multiple of 4 KiB apart (C * stride a multiple of 1024 floats), the row
// kernel reads a copy of src at a pitch of C + 16 floats (forward_rows_pitch): its pixel addresses then step by the
// pitch, and a kernel row's kw run as separate loops (the inputs of consecutive kw no longer lie one after the
// other). Stride 2 over 512 channels in tiles of two rows (as res5_3x3s2), 1024 channels at stride 1 on rows of one
// tile, stride 4 over 256 channels, 2 images, a partial output block, with and without bias; and the plans: a pitch
// for those, none for 496 or 528 channels at stride 2 or 512 at stride 1 (seen failing with the rows' addresses
// stepping by C in the copy, and with the kw loops merged over the copy's pitch).
TEST(ForwardRows, PixelsFourKibApartAreReadFromAPitchedCopyAndAgreeExactly) {
    const char* pitched[] = {
        "conv:n=2,c=512,o=40,in=9x14,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc",
        "conv:c=1024,o=20,in=5x9,k=3x3,pb=1x1,pe=1x1,data=nxc",
        "conv:c=256,o=24,in=9x17,k=3x3,s=4x4,pb=1x1,pe=1x1,bias=1,data=nxc",
    };
    for (const char* text : pitched) EXPECT_TRUE(blocked_agree_reading_only_src(text, 47, " rows"));
    detail::ForwardRows plan;
    for (const bool avx512 : isas_here()) {
        for (const char* text : pitched) {
            const detail::RowsBackwardData k = rows_kernel(text, avx512, plan);
            EXPECT_EQ(k.pixel_pitch, plan.geometry.in_channels + 16) << text;
        }
        for (const char* text : {"conv:c=496,o=40,in=9x14,k=3x3,s=2x2,pb=1x1,pe=1x1,data=nxc",
                                 "conv:c=528,o=40,in=9x14,k=3x3,s=2x2,pb=1x1,pe=1x1,data=nxc",
                                 "conv:c=512,o=40,in=7x7,k=3x3,pb=1x1,pe=1x1,data=nxc"})
            EXPECT_EQ(rows_kernel(text, avx512, plan).pixel_pitch, 0) << text;
    }
}
