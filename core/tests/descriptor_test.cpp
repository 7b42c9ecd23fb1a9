#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;

namespace {

ConvDescriptor resnet_3x3() {
    return parse_descriptor("conv:n=1,c=64,o=64,in=56x56,k=3x3,pb=1x1,pe=1x1");
}

void expect_error(const std::string& text, const std::string& attribute_part) {
    try {
        parse_descriptor(text);
        ADD_FAILURE() << "accepted: " << text;
    } catch (const ConvError& e) {
        EXPECT_NE(e.attribute().find(attribute_part), std::string::npos) << e.what();
        EXPECT_FALSE(e.rule().empty());
    }
}

}  // namespace

TEST(Descriptor, PrintsEveryField) {
    EXPECT_EQ(to_string(resnet_3x3()),
              "conv:n=1,c=64,o=64,g=1,in=56x56,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=0,dt=f32,data=ncx,wei=oix");
}

TEST(Descriptor, OutputSizeIsTheCanonicalFormula) {
    // out = floor((in + pb + pe - ((k-1)*d + 1)) / s) + 1
    auto d = parse_descriptor("c=1,o=1,in=10,k=3,s=2,d=2,pb=1,pe=0");
    EXPECT_EQ(d.dilated_kernel(0), 5);
    EXPECT_EQ(d.output_size(0), 4);  // floor((10 + 1 + 0 - 5) / 2) + 1
    auto cropped = parse_descriptor("c=1,o=1,in=7,k=2,s=3,pb=-1,pe=-1");
    EXPECT_EQ(cropped.output_size(0), 2);  // floor((7 - 1 - 1 - 2) / 3) + 1
}

TEST(Descriptor, ShapesFollowTheFormats) {
    auto d = parse_descriptor("n=2,c=4,o=6,g=2,in=5x7,k=3x1,data=nxc,wei=xio");
    EXPECT_EQ(d.src_dims(), (std::vector<std::int64_t>{2, 5, 7, 4}));
    EXPECT_EQ(d.weights_dims(), (std::vector<std::int64_t>{3, 1, 2, 6}));
    EXPECT_EQ(d.dst_dims(), (std::vector<std::int64_t>{2, 3, 7, 6}));
    d.data_format = DataFormat::ncx;
    d.filter_format = FilterFormat::oix;
    EXPECT_EQ(d.src_dims(), (std::vector<std::int64_t>{2, 4, 5, 7}));
    EXPECT_EQ(d.weights_dims(), (std::vector<std::int64_t>{6, 2, 3, 1}));
}

TEST(Descriptor, DefaultsAndBroadcast) {
    auto d = parse_descriptor("c=3,o=8,in=9x9x9,k=3,d=2");
    EXPECT_EQ(d.rank, 3);
    EXPECT_EQ(d.kernel_size, (SpatialDims{3, 3, 3}));
    EXPECT_EQ(d.dilations, (SpatialDims{2, 2, 2}));
    EXPECT_EQ(d.strides, (SpatialDims{1, 1, 1}));
    EXPECT_EQ(d.batch, 1);
}

TEST(Descriptor, EveryInvalidCombinationHasItsOwnError) {
    expect_error("c=0,o=1,in=3,k=1", "in_channels");
    expect_error("c=1,o=-2,in=3,k=1", "out_channels");
    expect_error("c=1,o=1,in=0,k=1", "input_size");
    expect_error("c=1,o=1,in=3,k=0", "kernel_size");
    expect_error("c=1,o=1,in=3,k=1,s=0", "strides");
    expect_error("c=1,o=1,in=3,k=1,d=0", "dilations");
    expect_error("c=3,o=4,g=2,in=3,k=1", "in_channels");
    expect_error("c=4,o=3,g=2,in=3,k=1", "out_channels");
    expect_error("c=1,o=1,in=3,k=3,d=2", "kernel_size");         // K = 5 > 3: empty output
    expect_error("c=1,o=1,in=3,k=3,pb=-1", "kernel_size");       // cropped below the kernel
    expect_error("n=4294967296,c=4294967296,o=1,in=4294967296,k=1", "src");  // 2^96 elements
    expect_error("c=1,o=1,in=3,k=4611686018427387904,d=4", "dilations");    // (k-1)*d overflows
    expect_error("c=1,o=1,in=3x3,k=1x1x1", "k");                 // rank mismatch
    expect_error("c=1,o=1,in=3,k=1,zz=3", "zz");                 // unknown key
    expect_error("c=1,in=3,k=1", "o");                           // required key missing
    expect_error("c=1,o=1,in=3,k=1,dt=f64:f64:f32", "dt");       // f64 is every tensor's type or none's
    expect_error("c=1,o=1,in=3,k=1,dt=f64,fpmath=tf32", "fpmath");  // an fpmath mode rounds f32 inputs
    expect_error("c=1,o=1,in=3,k=1,c=2", "c");                   // duplicate
    expect_error("c=1,o=1,in=3x,k=1", "in");                     // malformed list
    expect_error("c=1,o=1,in=1x1x1x1,k=1", "in");                // rank 4
    expect_error("c=1,o=1,in=3,k=1,", "descriptor");             // empty field
}

TEST(Descriptor, ErrorNamesAttributeValueAndRule) {
    try {
        parse_descriptor("c=1,o=1,in=3x4,k=1x1,s=1x0");
        FAIL();
    } catch (const ConvError& e) {
        EXPECT_EQ(e.attribute(), "strides (s)[1] (w)");
        EXPECT_EQ(e.value(), "0");
        EXPECT_EQ(std::string(e.what()), "strides (s)[1] (w) = 0: must be a positive integer (>= 1)");
    }
}

RC_GTEST_PROP(Descriptor, CanonicalStringRoundTrips, ()) {
    const ConvDescriptor d = *testgen::valid_descriptor();
    validate(d);
    const std::string text = to_string(d);
    RC_ASSERT(parse_descriptor(text) == d);
    RC_ASSERT(to_string(parse_descriptor(text)) == text);
}

// The pass (dir=, docs/passes.md): printed only for a backward pass, and round-tripped; the forward
// pass prints as it always did.
RC_GTEST_PROP(Descriptor, PassRoundTrips, ()) {
    ConvDescriptor d = *testgen::valid_descriptor();
    d.pass = *rc::gen::element(Pass::forward, Pass::backward_data, Pass::backward_weights);
    const std::string text = to_string(d);
    RC_ASSERT(parse_descriptor(text) == d);
    RC_ASSERT((text.find(",dir=") != std::string::npos) == (d.pass != Pass::forward));
}

TEST(Descriptor, PassKeyValuesAndErrors) {
    EXPECT_EQ(parse_descriptor("c=1,o=1,in=3,k=1,dir=bwd_d").pass, Pass::backward_data);
    EXPECT_EQ(parse_descriptor("c=1,o=1,in=3,k=1,dir=bwd_w").pass, Pass::backward_weights);
    EXPECT_EQ(parse_descriptor("c=1,o=1,in=3,k=1,dir=fwd"), parse_descriptor("c=1,o=1,in=3,k=1"));
    EXPECT_FALSE(parse_descriptor("c=1,o=1,in=3,k=1,dir=bwd_d") == parse_descriptor("c=1,o=1,in=3,k=1,dir=bwd_w"));
    expect_error("c=1,o=1,in=3,k=1,dir=BWD_D", "dir");
}

TEST(Descriptor, ErrorsEchoHostileBytesReadably) {
    try {
        parse_descriptor(std::string("c=1,o=1,in=1,k=1,\0\x01=1", 21));
        FAIL();
    } catch (const ConvError& e) {
        EXPECT_EQ(e.attribute(), "\\x00\\x01");
        EXPECT_EQ(std::string(e.what()).rfind("\\x00\\x01 = 1: unknown key", 0), 0u) << e.what();
    }
}

// fpmath= (oneDNN's fpmath mode): tf32 and bf16 print and read back with their significand bits; strict is the
// default and not printed; f16 and unknown modes are refused by the key; an integer convolution takes none.
TEST(Descriptor, FpmathPrintsAndReadsBack) {
    const ConvDescriptor d = parse_descriptor("conv:c=2,o=3,in=5,k=3,fpmath=bf16");
    EXPECT_EQ(d.fpmath, FpMath::bf16);
    EXPECT_EQ(fpmath_significand_bits(d.fpmath), 8);
    EXPECT_NE(to_string(d).find(",fpmath=bf16"), std::string::npos) << to_string(d);
    EXPECT_EQ(parse_descriptor(to_string(d)), d);
    EXPECT_NE(parse_descriptor("conv:c=2,o=3,in=5,k=3,fpmath=tf32"), d);
    EXPECT_EQ(fpmath_significand_bits(parse_descriptor("conv:c=2,o=3,in=5,k=3,fpmath=tf32").fpmath), 11);
    const ConvDescriptor strict = parse_descriptor("conv:c=2,o=3,in=5,k=3,fpmath=strict");
    EXPECT_EQ(strict.fpmath, FpMath::strict);
    EXPECT_EQ(to_string(strict).find("fpmath"), std::string::npos);
    for (const char* bad : {"conv:c=2,o=3,in=5,k=3,fpmath=f16", "conv:c=2,o=3,in=5,k=3,fpmath=any"}) {
        try {
            parse_descriptor(bad);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const ConvError& e) {
            EXPECT_EQ(e.attribute(), "fpmath") << bad;
        }
    }
}
