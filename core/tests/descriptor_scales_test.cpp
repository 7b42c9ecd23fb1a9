// Scales on a float convolution (scales.hpp): the keys print only when a scale is not 1, the string round-trips,
// bad values name the key and the rule, and scales are refused off the forward pass and on a transposed one.
#include <gtest/gtest.h>

#include <cmath>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/core/transposed_descriptor.hpp"

#include "attribute_of_error.hpp"

using namespace convcheck;

TEST(DescriptorScales, NoScalesPrintNoKeys) {
    const ConvDescriptor d = parse_descriptor("c=2,o=2,in=3,k=1");
    EXPECT_FALSE(d.scales.present());
    EXPECT_EQ(to_string(d).find("sc="), std::string::npos);
    EXPECT_EQ(parse_descriptor("c=2,o=2,in=3,k=1,ssc=1,wsc=1,dsc=1"), d);
}

TEST(DescriptorScales, ScalesRoundTrip) {
    for (const char* text : {"c=2,o=3,in=3,k=1,ssc=0.25,wsc=2,dsc=0.5",
                             "c=2,o=3,in=3,k=1,dt=f8_e4m3,wsc=oc,dsc=3",
                             "c=2,o=3,in=3,k=1,bias=1,dt=bf16,bdt=f32,wsc=0.5:0.25:1.5"}) {
        const ConvDescriptor d = parse_descriptor(text);
        EXPECT_TRUE(d.scales.present()) << text;
        EXPECT_EQ(parse_descriptor(to_string(d)), d) << to_string(d);
    }
    const ConvDescriptor d = parse_descriptor("c=2,o=3,in=3,k=1,ssc=0.25,wsc=0.5:0.25:1.5,dsc=2");
    EXPECT_EQ(d.scales.src, 0.25f);
    EXPECT_EQ(d.scales.dst, 2.0f);
    EXPECT_TRUE(d.scales.per_channel);
    EXPECT_EQ(d.scales.weights_of(2), 1.5f);
    EXPECT_NE(to_string(d).find(",ssc=0.25,wsc=0.5:0.25:1.5,dsc=2"), std::string::npos) << to_string(d);
    EXPECT_TRUE(parse_descriptor("c=2,o=3,in=3,k=1,wsc=oc").scales.drawn());
}

TEST(DescriptorScales, BadScalesNameTheKey) {
    EXPECT_EQ(attribute_of_error("c=2,o=2,in=3,k=1,ssc=0"), "ssc");
    EXPECT_EQ(attribute_of_error("c=2,o=2,in=3,k=1,dsc=-1"), "dsc");
    EXPECT_EQ(attribute_of_error("c=2,o=2,in=3,k=1,wsc=inf"), "wsc");
    EXPECT_EQ(attribute_of_error("c=2,o=2,in=3,k=1,wsc=x"), "wsc");
    EXPECT_EQ(attribute_of_error("c=2,o=2,in=3,k=1,wsc=1:2:3"), "wsc");  // 3 values for 2 output channels
    EXPECT_EQ(attribute_of_error("c=2,o=2,in=3,k=1,dir=bwd_d,ssc=2"), "ssc/wsc/dsc");
    try {
        parse_transposed_descriptor("deconv:c=2,o=2,in=3,k=1,dsc=2");
        ADD_FAILURE() << "a transposed convolution with scales was accepted";
    } catch (const ConvError& e) {
        EXPECT_EQ(e.attribute(), "ssc/wsc/dsc");
    }
}

TEST(DescriptorScales, DrawnScalesHaveFewBitsAndFollowTheSeed) {
    const std::vector<float> a = draw_channel_scales(16, 7), b = draw_channel_scales(16, 7), c = draw_channel_scales(16, 8);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    for (float s : a) {
        EXPECT_GE(s, 1.0f / 256);
        EXPECT_LE(s, 15.0f / 8);
        EXPECT_EQ(std::ldexp(s, 8), std::floor(std::ldexp(s, 8)));  // a multiple of 2^-8 below 2: <= 4 bits
    }
}
