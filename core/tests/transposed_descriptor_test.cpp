// The transposed convolution's descriptor: the output-size rule, the forward convolution it
// transposes, the canonical string and the refusals.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/testing/random_descriptor.hpp"
#include "convcheck/core/transposed_descriptor.hpp"

using namespace convcheck;

TEST(TransposedDescriptor, OutputSizeIsPyTorchsFormula) {
    // PyTorch ConvTranspose2d: (in - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1
    const auto t = parse_transposed_descriptor("deconv:c=4,o=2,in=5x7,k=3x4,s=2x3,d=1x2,pb=1x2,pe=1x2,op=1x2");
    EXPECT_EQ(t.output_size(0), (5 - 1) * 2 - 2 * 1 + 1 * (3 - 1) + 1 + 1);
    EXPECT_EQ(t.output_size(1), (7 - 1) * 3 - 2 * 2 + 2 * (4 - 1) + 2 + 1);
    EXPECT_EQ(t.dst_dims(), (std::vector<std::int64_t>{1, 2, 10, 23}));
    EXPECT_EQ(t.src_dims(), (std::vector<std::int64_t>{1, 4, 5, 7}));
}

TEST(TransposedDescriptor, ForwardSwapsChannelsAndTakesOutputPaddingOffTheEndPad) {
    const auto t = parse_transposed_descriptor("deconv:n=2,c=6,o=4,g=2,in=5,k=3,s=2,d=2,pb=1,pe=2,op=1,bias=1,dt=bf16,data=nxc,wei=xio");
    const ConvDescriptor f = t.forward();
    EXPECT_EQ(to_string(f), "conv:n=2,c=4,o=6,g=2,in=11,k=3,s=2,d=2,pb=1,pe=1,bias=0,dt=bf16,data=nxc,wei=xio");
    EXPECT_EQ(f.output_size(0), 5);
    EXPECT_EQ(t.weights_elements(), 6 * 2 * 3);  // [C][O/G][k]
}

// For every valid transposed descriptor, the forward it transposes is valid and gives back `in`.
RC_GTEST_PROP(TransposedDescriptor, ForwardOutputIsTheTransposedInput, (void)) {
    const auto t = *testgen::valid_transposed_descriptor();
    validate(t);
    const ConvDescriptor f = t.forward();
    validate(f);
    for (int a = 0; a < t.rank; ++a) {
        RC_ASSERT(f.output_size(a) == t.input_size[a]);
        RC_ASSERT(f.input_size[a] == t.output_size(a));
    }
    RC_ASSERT(parse_transposed_descriptor(to_string(t)) == t);
}

TEST(TransposedDescriptor, CanonicalString) {
    const auto t = parse_transposed_descriptor("deconv:c=2,o=3,in=4x4,k=3,s=2,op=1");
    EXPECT_EQ(to_string(t),
              "deconv:n=1,c=2,o=3,g=1,in=4x4,k=3x3,s=2x2,d=1x1,pb=0x0,pe=0x0,op=1x1,bias=0,dt=f32,data=ncx,wei=oix");
    EXPECT_EQ(parse_transposed_descriptor(to_string(t)), t);
}

TEST(TransposedDescriptor, Refusals) {
    auto rule = [](const char* text) {
        try {
            parse_transposed_descriptor(text);
        } catch (const ConvError& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    EXPECT_NE(rule("c=2,o=2,in=4,k=3,op=-1").find("output_padding (op)[0] = -1: must be >= 0"), std::string::npos);
    EXPECT_NE(rule("c=2,o=2,in=1,k=1,pb=1,pe=0").find("must be >= 1"), std::string::npos);  // out = 1 - 1 + 1 - 1 = 0
    EXPECT_NE(rule("c=3,o=2,g=2,in=4,k=3").find("in_channels (c) = 3: must be divisible by groups = 2"), std::string::npos);
    EXPECT_NE(rule("c=2,o=2,in=4x4,k=3,op=1x1x1").find("op = 1x1x1"), std::string::npos);
    EXPECT_NE(rule("c=2,o=2,in=4,k=3,op=1,op=1").find("appears twice"), std::string::npos);
    EXPECT_NE(rule("c=2,o=2,in=4,k=3,op=a").find("op = a"), std::string::npos);
}
