// Transposed convolution by hand: PyTorch's conv_transpose1d scatter written out, and the buffers.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <random>

#include "convcheck/reference/transposed.hpp"
#include "problem_data.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;

namespace {
std::vector<double> run(const char* descriptor, const std::vector<double>& src, const std::vector<double>& weights,
                        const std::vector<double>& bias = {}) {
    return reference::transposed_convolution_summation(parse_transposed_descriptor(descriptor), src, weights, bias).dst;
}
}  // namespace

// x = [1, 2], w = [1, 10, 100], stride 2: y0 scatters 1, 10, 100 at 0, 1, 2; y1 2, 20, 200 at 2, 3, 4.
TEST(TransposedHandCases, StrideTwoScatters) {
    EXPECT_EQ(run("c=1,o=1,in=2,k=3,s=2", {1, 2}, {1, 10, 100}), (std::vector<double>{1, 10, 102, 20, 200}));
    // padding 1 crops one position on each side: out = (2-1)*2 - 2 + 3 = 3
    EXPECT_EQ(run("c=1,o=1,in=2,k=3,s=2,pb=1,pe=1", {1, 2}, {1, 10, 100}), (std::vector<double>{10, 102, 20}));
    // output_padding 1 adds one position at the end; the tap that lands there (y1, k2 at x = 3) counts
    EXPECT_EQ(run("c=1,o=1,in=2,k=3,s=2,pb=1,pe=1,op=1", {1, 2}, {1, 10, 100}),
              (std::vector<double>{10, 102, 20, 200}));
    // with no pad to take back, the added position is one no tap reaches: 0 + bias
    EXPECT_EQ(run("c=1,o=1,in=2,k=3,s=2,op=1,bias=1", {1, 2}, {1, 10, 100}, {7}),
              (std::vector<double>{8, 17, 109, 27, 207, 7}));
    // a negative pad (TOSA's positive out_pad) widens the output with zeros
    EXPECT_EQ(run("c=1,o=1,in=2,k=3,s=2,pb=-1,pe=0", {1, 2}, {1, 10, 100}), (std::vector<double>{0, 1, 10, 102, 20, 200}));
    // dilation 2: taps at 0, 2, 4 from each input, stride 1
    EXPECT_EQ(run("c=1,o=1,in=2,k=3,d=2", {1, 2}, {1, 10, 100}), (std::vector<double>{1, 2, 10, 20, 100, 200}));
}

// Weights [C][O/G][k]: with groups 2, input channel 1 (group 0) and 2 (group 1) feed disjoint outputs.
TEST(TransposedHandCases, GroupsKeepTheirChannels) {
    // c=2, o=4, g=2: weights [2][2][1]; input channel 0 -> outputs 0, 1; channel 1 -> outputs 2, 3
    EXPECT_EQ(run("c=2,o=4,g=2,in=1,k=1", {3, 5}, {1, 2, 10, 20}), (std::vector<double>{3, 6, 50, 100}));
}

// Buffers of every dtype and layout give the canonical result, rounded once on the way out.
RC_GTEST_PROP(TransposedBuffers, EveryDtypeAndLayoutGivesTheCanonicalResult, ()) {
    const auto t = *testgen::valid_transposed_descriptor();
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    std::mt19937_64 rng(seed);
    const auto src = testdata::integers(t.src_elements(), rng), weights = testdata::integers(t.weights_elements(), rng);
    const auto bias = t.has_bias ? testdata::integers(t.out_channels, rng, 16) : std::vector<double>{};
    const ConvDescriptor f = t.forward();
    const int bytes = size_of(t.dtype);
    std::vector<unsigned char> src_buffer(src.size() * bytes), weights_buffer(weights.size() * bytes),
        bias_buffer(bias.size() * bytes + 1), dst_buffer(t.dst_elements() * bytes);
    reference::round_dst_to_output(f, src, src_buffer.data());  // the transposed src is F's dst
    reference::oix_to_weights(f, weights, weights_buffer.data());
    for (std::size_t i = 0; i < bias.size(); ++i) store_from_double(bias_buffer.data(), t.dtype, i, bias[i]);
    const auto got = reference::transposed_convolution(t, src_buffer.data(), weights_buffer.data(),
                                                       t.has_bias ? bias_buffer.data() : nullptr);
    const auto want = reference::transposed_convolution_summation(t, src, weights, bias);
    const std::string repro = "reproduce with: descriptor " + to_string(t) + " seed " + std::to_string(seed);
    if (got.dst != want.dst) RC_FAIL("buffers give another result than the canonical arrays; " + repro);
    reference::round_transposed_to_output(t, want.dst, dst_buffer.data());
    const auto back = reference::src_to_ncx(f, dst_buffer.data());  // F's src layout is the transposed dst's
    for (std::size_t i = 0; i < back.size(); ++i)
        if (back[i] != round_to(t.dtype, want.dst[i]))
            RC_FAIL("element " + std::to_string(i) + " not rounded once to " + std::string(to_string(t.dtype)) + "; " + repro);
}
