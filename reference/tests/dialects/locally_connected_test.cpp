// The locally connected layer (CNTK sharing=false): by hand, and against the shared convolution.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/reference/dialects/locally_connected.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;
using reference::kernel_positions;
using reference::locally_connected;

TEST(LocallyConnected, OneDimensionalByHand) {
    // in = [1 2 3 4], k = 2, three output positions, each with its own kernel:
    // [1 0] . [1 2] = 1, [0 1] . [2 3] = 3, [1 1] . [3 4] = 7
    const auto d = parse_descriptor("c=1,o=1,in=4,k=2");
    const std::array<bool, 3> shared{false, true, true};
    EXPECT_EQ(kernel_positions(d, shared), 3);
    const auto r = locally_connected(d, shared, std::vector<double>{1, 2, 3, 4}, std::vector<double>{1, 0, 0, 1, 1, 1}, {});
    EXPECT_EQ(r.dst, (std::vector<double>{1, 3, 7}));
    EXPECT_EQ(r.terms, (std::vector<std::int64_t>{2, 2, 2}));
}

TEST(LocallyConnected, UnsharedAlongWidthOnlyByHand) {
    // 2x3 input, 1x2 kernel, stride 1: out 2x2; kernels differ along w only: [1 0] at ow 0, [0 1] at ow 1
    // row 0: [1 2 3] -> 1, 3; row 1: [4 5 6] -> 4, 6
    const auto d = parse_descriptor("c=1,o=1,in=2x3,k=1x2");
    const std::array<bool, 3> shared{true, false, true};
    EXPECT_EQ(kernel_positions(d, shared), 2);
    const auto r = locally_connected(d, shared, std::vector<double>{1, 2, 3, 4, 5, 6}, std::vector<double>{1, 0, 0, 1}, {});
    EXPECT_EQ(r.dst, (std::vector<double>{1, 3, 4, 6}));
}

TEST(LocallyConnected, RejectsAWeightBufferOfTheWrongSize) {
    const auto d = parse_descriptor("c=1,o=1,in=4,k=2");
    EXPECT_THROW(locally_connected(d, {false, true, true}, std::vector<double>{1, 2, 3, 4}, std::vector<double>{1, 0}, {}),
                 ConvError);
}

RC_GTEST_PROP(LocallyConnected, WithEveryPositionsKernelEqualItIsTheConvolution, ()) {
    testgen::DescriptorLimits lim;
    lim.any_dtype = false;
    lim.any_format = false;
    lim.max_batch = 2;
    const ConvDescriptor d = *testgen::valid_descriptor(lim);
    RC_LOG() << "descriptor: " << to_string(d) << "\n";
    std::array<bool, 3> shared{true, true, true};
    for (int a = 0; a < d.rank; ++a) shared[a] = *rc::gen::arbitrary<bool>();
    const auto src = *rc::gen::container<std::vector<double>>(d.src_elements(), rc::gen::map(rc::gen::inRange(-4, 5), [](int v) { return double(v); }));
    const auto kernel = *rc::gen::container<std::vector<double>>(d.weights_elements(), rc::gen::map(rc::gen::inRange(-4, 5), [](int v) { return double(v); }));
    std::vector<double> bias;
    for (std::int64_t o = 0; o < (d.has_bias ? d.out_channels : 0); ++o) bias.push_back(double(o) - 1);
    std::vector<double> weights;
    for (std::int64_t p = 0; p < kernel_positions(d, shared); ++p) weights.insert(weights.end(), kernel.begin(), kernel.end());
    const auto expected = reference::convolution_summation(d, src, kernel, bias);
    const auto got = locally_connected(d, shared, src, weights, bias);
    RC_ASSERT(got.dst == expected.dst);
    RC_ASSERT(got.terms == expected.terms);
}

RC_GTEST_PROP(LocallyConnected, EachPositionUsesItsOwnKernel, ()) {
    // kernel p is the shared kernel times (p + 1): output at position p is (p + 1) times the convolution's
    testgen::DescriptorLimits lim;
    lim.any_dtype = false;
    lim.any_format = false;
    lim.max_batch = 1;
    const ConvDescriptor d = *testgen::valid_descriptor(lim);
    RC_LOG() << "descriptor: " << to_string(d) << "\n";
    std::array<bool, 3> shared{true, true, true};
    shared[*rc::gen::inRange(0, d.rank)] = false;
    std::vector<double> src(d.src_elements()), kernel(d.weights_elements());
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = double(int(i % 5) - 2);
    for (std::size_t i = 0; i < kernel.size(); ++i) kernel[i] = double(int(i % 3) - 1);
    std::vector<double> weights;
    const std::int64_t positions = kernel_positions(d, shared);
    for (std::int64_t p = 0; p < positions; ++p)
        for (double w : kernel) weights.push_back(w * double(p + 1));
    std::vector<double> bias(d.has_bias ? d.out_channels : 0, 0.0);
    const auto base = reference::convolution_summation(d, src, kernel, bias);
    const auto got = locally_connected(d, shared, src, weights, bias);
    // the position of every output element along the unshared axes, outermost first
    std::vector<std::int64_t> out(3, 1);
    for (int a = 0; a < d.rank; ++a) out[3 - d.rank + a] = d.output_size(a);
    std::array<bool, 3> unshared{false, false, false};
    for (int a = 0; a < d.rank; ++a) unshared[3 - d.rank + a] = !shared[a];
    const std::int64_t plane = out[0] * out[1] * out[2];
    for (std::size_t i = 0; i < got.dst.size(); ++i) {
        const std::int64_t x = static_cast<std::int64_t>(i) % plane;
        const std::int64_t od = x / (out[1] * out[2]), oh = x / out[2] % out[1], ow = x % out[2];
        std::int64_t p = 0;
        if (unshared[0]) p = p * out[0] + od;
        if (unshared[1]) p = p * out[1] + oh;
        if (unshared[2]) p = p * out[2] + ow;
        RC_ASSERT(got.dst[i] == base.dst[i] * double(p + 1));
    }
}
