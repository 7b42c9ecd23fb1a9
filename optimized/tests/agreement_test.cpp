// The optimized implementation agrees with the reference under the accuracy contract (DESIGN.md),
// on every path of the dispatcher (forced), for random descriptors of every feature and dtype:
// bound mode on random data, exact mode on integer data (any difference is a bug).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "harness.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;
using namespace convcheck::optimized;
using namespace convcheck::optimized::testing;

namespace {

// Descriptors that the 1x1 and depthwise paths accept turn up rarely by chance: bias the generator.
rc::Gen<ConvDescriptor> any_descriptor() {
    return rc::gen::exec([] {
        ConvDescriptor d = *testgen::valid_descriptor();
        const int shape = *rc::gen::inRange(0, 4);
        if (shape == 1) {  // 1x1 kernel, unit strides (gemm_1x1); half of them unpadded (GEMM on the user's NCX)
            const bool unpadded = *rc::gen::arbitrary<bool>();
            for (int a = 0; a < d.rank; ++a) {
                if (unpadded) d.pads_begin[a] = d.pads_end[a] = 0;
                d.kernel_size[a] = 1;
                d.strides[a] = 1;
                d.input_size[a] = std::max<std::int64_t>(d.input_size[a], 1 - d.pads_begin[a] - d.pads_end[a]);
            }
        } else if (shape == 2) {  // depthwise; up to 40 channels so that channel blocks have tails
            d.groups = *rc::gen::inRange<std::int64_t>(1, 41);
            d.in_channels = d.out_channels = d.groups;
        } else if (shape == 3) {  // wide output channels: several vector blocks and a partial one
            d.out_channels = d.groups * *rc::gen::inRange<std::int64_t>(5, 70);
        }
        return d;
    });
}

}  // namespace

RC_GTEST_PROP(Agreement, EveryPathIsWithinTheBoundOnRandomData, ()) {
    const ConvDescriptor d = *any_descriptor();
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint32_t>();
    RC_TAG(to_string(d.dtype));
    const accuracy::RandomFill fill = accuracy::make_random_fill(d, seed);
    const reference::ConvResult want = reference::fast_convolution_summation(d, fill.src, fill.weights, fill.bias);
    const accuracy::Contract contract{d.dtype, DataType::f32};
    for (const Path path : available_paths(d)) {
        RC_TAG(std::string(to_string(path)));
        Buffers b = make_buffers(d, fill.src, fill.weights, fill.bias);
        const std::vector<double> got = run_optimized(d, b, Options{0, path});
        const accuracy::Comparison r = accuracy::compare_bound(contract, want.dst, want.magnitude, want.terms, got);
        if (!r.passed())
            RC_FAIL(reproducer(d, path, seed) + ": " + std::to_string(r.mismatches) + " outputs out of bound, worst at " +
                    std::to_string(r.worst_index) + " got " + std::to_string(r.worst_got) + " want " +
                    std::to_string(r.worst_want) + " bound " + std::to_string(r.worst_bound));
    }
}

RC_GTEST_PROP(Agreement, EveryPathIsExactOnIntegerData, ()) {
    const ConvDescriptor d = *any_descriptor();
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint32_t>();
    const accuracy::Contract contract{d.dtype, DataType::f32};
    const accuracy::ExactFill fill = accuracy::make_exact_fill(d, contract, seed);
    const reference::ConvResult want = reference::fast_convolution_summation(d, fill.src, fill.weights, fill.bias);
    for (const Path path : available_paths(d)) {
        Buffers b = make_buffers(d, fill.src, fill.weights, fill.bias);
        const std::vector<double> got = run_optimized(d, b, Options{0, path});
        const accuracy::Comparison r = accuracy::compare_exact(want.dst, got);
        if (!r.passed())
            RC_FAIL(reproducer(d, path, seed) + ": " + std::to_string(r.mismatches) + " outputs differ, first at " +
                    std::to_string(r.first_mismatch));
    }
}

TEST(Agreement, ScalarAndAutomaticPathsAreAlwaysAvailable) {
    const ConvDescriptor d = parse_descriptor("conv:c=3,o=5,in=6x6,k=3x3");
    const auto paths = available_paths(d);
    EXPECT_NE(std::find(paths.begin(), paths.end(), Path::scalar), paths.end());
    std::vector<float> w(d.weights_elements(), 1.0f);
    EXPECT_NE(ConvPlan(d, w.data(), nullptr).path(), Path::automatic);
}

// Many input channels and taps: the blocked kernels split the input channels into cache blocks and
// accumulate through the output (partial output-channel blocks too); random descriptors are too
// small to reach that, so these cases do.
TEST(Agreement, ManyInputChannelsSplitIntoCacheBlocks) {
    const char* cases[] = {
        "conv:n=2,c=96,o=40,in=9x11,k=5x5,pb=2x2,pe=1x1,bias=1",
        "conv:c=100,o=16,in=4x5x6,k=3x3x3,pb=1x1x1,pe=1x1x1,dt=bf16,data=ncx,wei=xio",
        "conv:c=128,o=96,g=2,in=6x7,k=7x7,s=2x1,d=1x2,pb=3x6,pe=3x6,bias=1,dt=f16,data=nxc",
    };
    for (const char* text : cases) {
        const ConvDescriptor d = parse_descriptor(text);
        const accuracy::Contract contract{d.dtype, DataType::f32};
        const accuracy::RandomFill random = accuracy::make_random_fill(d, 11);
        const accuracy::ExactFill exact = accuracy::make_exact_fill(d, contract, 11);
        const auto want_random = reference::fast_convolution_summation(d, random.src, random.weights, random.bias);
        const auto want_exact = reference::fast_convolution_summation(d, exact.src, exact.weights, exact.bias);
        for (const Path path : available_paths(d)) {
            Buffers b = make_buffers(d, random.src, random.weights, random.bias);
            const auto got = run_optimized(d, b, Options{0, path});
            EXPECT_TRUE(accuracy::compare_bound(contract, want_random.dst, want_random.magnitude, want_random.terms, got)
                            .passed())
                << reproducer(d, path, 11);
            Buffers e = make_buffers(d, exact.src, exact.weights, exact.bias);
            EXPECT_TRUE(accuracy::compare_exact(want_exact.dst, run_optimized(d, e, Options{0, path})).passed())
                << reproducer(d, path, 11) << " (exact)";
        }
    }
}

// Negative pads that crop a whole axis away on one side (found by the property test: an empty
// valid range once made the padding step write before its row).
TEST(Agreement, CropsPastAWholeAxis) {
    const char* cases[] = {
        "conv:n=3,c=6,o=6,g=3,in=4x8x1,k=1x2x1,s=1x1x3,d=3x1x1,pb=0x-2x-2,pe=-1x-2x2,bias=1,dt=f32,data=ncx,wei=oix",
        "conv:n=2,c=5,o=4,in=3x1,k=2x1,pb=1x3,pe=0x-2,data=nxc",
        "conv:n=2,c=5,o=4,in=3x1,k=2x1,pb=1x3,pe=0x-2,data=ncx",
    };
    for (const char* text : cases) EXPECT_TRUE(paths_agree_exactly(text, 3, available_paths(parse_descriptor(text)), 0));
}

// Huge dilations, strides and pads (the fuzzers' signed-overflow input, crash-b4f8b135..., scaled down
// until its padded input fits): every path still agrees exactly with the reference.
TEST(Agreement, LargeDilationsStridesAndPads) {
    const char* cases[] = {
        "conv:n=1,c=1,o=1,in=5x5,k=3x3,s=1x10000,d=100x100,pb=100x100,pe=100x100",
        "conv:n=2,c=3,o=2,in=5x4,k=3x2,s=2x10000,d=150x300,pb=150x300,pe=150x-3,bias=1,data=nxc",
    };
    for (const char* text : cases) {
        const ConvDescriptor d = parse_descriptor(text);
        ASSERT_EQ(why_too_large(d), "") << text;
        EXPECT_TRUE(paths_agree_exactly(text, 5, available_paths(d), 0));
    }
}
