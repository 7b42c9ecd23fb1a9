// Bitwise determinism: every path gives the same bits with 1 and with 2 threads.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>

#include "harness.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;
using namespace convcheck::optimized;
using namespace convcheck::optimized::testing;

RC_GTEST_PROP(Determinism, OneAndTwoThreadsGiveTheSameBits, ()) {
    testgen::DescriptorLimits limits;
    limits.max_batch = 4;
    limits.max_channels_per_group = 20;
    limits.max_extra_input = 20;
    ConvDescriptor d = *testgen::valid_descriptor(limits);
    if (*rc::gen::inRange(0, 3) == 0) {  // depthwise now and then
        d.in_channels = d.out_channels = d.groups;
    }
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint32_t>();
    const accuracy::RandomFill fill = accuracy::make_random_fill(d, seed);
    for (const Path path : available_paths(d)) {
        Buffers one = make_buffers(d, fill.src, fill.weights, fill.bias);
        Buffers two = make_buffers(d, fill.src, fill.weights, fill.bias);
        run_optimized(d, one, Options{1, path});
        run_optimized(d, two, Options{2, path});
        if (std::memcmp(one.dst.data(), two.dst.data(), one.dst.bytes()) != 0)
            RC_FAIL(reproducer(d, path, seed) + ": 1 and 2 threads differ");
    }
}

TEST(Determinism, ALargerCaseSplitsIntoManyBlocksAndStaysBitwiseEqual) {
    const ConvDescriptor d = parse_descriptor("conv:n=2,c=24,o=40,in=33x29,k=3x3,pb=1x1,pe=1x1,bias=1");
    const accuracy::RandomFill fill = accuracy::make_random_fill(d, 7);
    for (const Path path : available_paths(d)) {
        Buffers one = make_buffers(d, fill.src, fill.weights, fill.bias);
        Buffers two = make_buffers(d, fill.src, fill.weights, fill.bias);
        run_optimized(d, one, Options{1, path});
        run_optimized(d, two, Options{2, path});
        EXPECT_EQ(std::memcmp(one.dst.data(), two.dst.data(), one.dst.bytes()), 0) << reproducer(d, path, 7);
    }
}

TEST(Determinism, InputChannelCacheBlocksStayBitwiseEqual) {
    const ConvDescriptor d = parse_descriptor("conv:n=2,c=128,o=96,g=2,in=13x9,k=7x7,pb=3x3,pe=3x3,bias=1");
    const accuracy::RandomFill fill = accuracy::make_random_fill(d, 5);
    for (const Path path : available_paths(d)) {
        Buffers one = make_buffers(d, fill.src, fill.weights, fill.bias);
        Buffers two = make_buffers(d, fill.src, fill.weights, fill.bias);
        run_optimized(d, one, Options{1, path});
        run_optimized(d, two, Options{2, path});
        EXPECT_EQ(std::memcmp(one.dst.data(), two.dst.data(), one.dst.bytes()), 0) << reproducer(d, path, 5);
    }
}
