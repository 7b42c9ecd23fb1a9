// The blocked paths' layers of one group on f32 channels-last buffers run the row kernel (forward_rows.hpp):
// src read in place, dst written in place, every padded product skipped, each sum started from the bias.
// Each case must agree exactly with the reference on integer data at 1 and 2 threads, with src between two
// runs of NaN (a read outside it would make some output NaN): 3x3 rows as wide as one tile, as several and as
// a partial one, pads on one side, asymmetric pads, dilation 2, 3-D, a partial output-channel block, several
// super blocks, without bias, strides 2 and 3 (with at least 256 products per output, as strided layers
// need). And as the reference adds only the taps inside the input, an infinite weight on every kw = 0 tap
// leaves every left-column output finite.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace convcheck;
using namespace convcheck::optimized;
using namespace convcheck::optimized::testing;

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
    for (const char* text : cases) {
        const ConvDescriptor d = parse_descriptor(text);
        const accuracy::ExactFill exact = accuracy::make_exact_fill(d, accuracy::Contract{d.dtype, DataType::f32}, 23);
        const auto want = reference::convolution_summation(d, exact.src, exact.weights, exact.bias);
        for (const Path path : {Path::blocked_avx2, Path::blocked_avx512}) {
            if (!why_unavailable(d, path).empty()) continue;
            Buffers b = make_buffers(d, exact.src, exact.weights, exact.bias);
            const std::size_t n = static_cast<std::size_t>(d.src_elements()), guard = 4096;
            std::vector<float> guarded(guard + n + guard, std::numeric_limits<float>::quiet_NaN());
            std::copy_n(static_cast<const float*>(b.src.data()), n, guarded.begin() + guard);
            for (int threads : {1, 2}) {
                const ConvPlan plan(d, b.weights.data(), d.has_bias ? b.bias.data() : nullptr, Options{threads, path});
                EXPECT_EQ(plan.implementation(), std::string(to_string(path)) + " rows") << text;
                plan.execute(guarded.data() + guard, b.dst.data());
                EXPECT_TRUE(accuracy::compare_exact(want.dst, reference::dst_to_ncx(d, b.dst.data())).passed())
                    << reproducer(d, path, 23) << " threads=" << threads;
            }
        }
    }
}

TEST(ForwardRows, AnInfiniteWeightOnAPaddedTapNeverMeetsTheZero) {
    const ConvDescriptor d = parse_descriptor("conv:c=8,o=24,in=9x10,k=3x3,pb=1x1,pe=1x1,data=nxc");
    std::vector<double> src(static_cast<std::size_t>(d.src_elements())), weights(d.weights_elements()), bias;
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = 1.0 + static_cast<double>(i % 5);
    for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = i % 3 == 0 ? std::numeric_limits<double>::infinity() : 1.0;
    const auto want = reference::convolution_summation(d, src, weights, bias);
    for (const Path path : {Path::blocked_avx2, Path::blocked_avx512}) {
        if (!why_unavailable(d, path).empty()) continue;
        Buffers b = make_buffers(d, src, weights, bias);
        const std::vector<double> got = run_optimized(d, b, Options{1, path});
        // weights [O][I][3][3]: index i % 3 == 0 is kw = 0; the left column (ow = 0) reads kw = 0 in the padding
        for (std::int64_t o = 0; o < 24; ++o)
            for (std::int64_t oh = 0; oh < 9; ++oh) {
                const std::size_t at = static_cast<std::size_t>((o * 9 + oh) * 10);
                ASSERT_TRUE(std::isfinite(want.dst[at])) << oh;
                EXPECT_EQ(got[at], want.dst[at]) << to_string(path) << " o=" << o << " oh=" << oh;
            }
    }
}
