// Per-tensor data types of the canonical descriptor (benchdnn --dt=src:wei:dst and --bia-dt): one
// type prints as it always did, a mix prints in benchdnn's order plus bdt= for the bias, the string
// round-trips, and a descriptor where every tensor agrees is the same descriptor however it is spelled.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/testing/random_descriptor.hpp"

#include "attribute_of_error.hpp"

using namespace convcheck;

TEST(DescriptorDtypes, OneTypePrintsDtAlone) {
    const ConvDescriptor d = parse_descriptor("c=2,o=2,in=3,k=1,bias=1,dt=bf16");
    EXPECT_FALSE(d.mixed());
    EXPECT_EQ(d.weights_dtype(), DataType::bf16);
    EXPECT_EQ(d.bias_dtype(), DataType::bf16);
    EXPECT_EQ(d.dst_dtype(), DataType::bf16);
    EXPECT_NE(to_string(d).find(",dt=bf16,data="), std::string::npos) << to_string(d);
    EXPECT_EQ(to_string(d).find("bdt"), std::string::npos);
}

TEST(DescriptorDtypes, AMixPrintsSrcWeightsDstAndTheBiasType) {
    const ConvDescriptor d = parse_descriptor("c=2,o=2,in=3,k=1,bias=1,dt=bf16:bf16:f32,bdt=f32");
    EXPECT_TRUE(d.mixed());
    EXPECT_EQ(d.src_dtype(), DataType::bf16);
    EXPECT_EQ(d.weights_dtype(), DataType::bf16);
    EXPECT_EQ(d.dst_dtype(), DataType::f32);
    EXPECT_EQ(d.bias_dtype(), DataType::f32);
    EXPECT_NE(to_string(d).find(",dt=bf16:bf16:f32,bdt=f32,"), std::string::npos) << to_string(d);
    // the bias alone differing (benchdnn's FWD_B on bf16 data: an f32 bias)
    const ConvDescriptor b = parse_descriptor("c=2,o=2,in=3,k=1,bias=1,dt=f16,bdt=f32");
    EXPECT_TRUE(b.mixed());
    EXPECT_NE(to_string(b).find(",dt=f16,bdt=f32,"), std::string::npos) << to_string(b);
}

TEST(DescriptorDtypes, AgreeingSpellingsAreOneDescriptor) {
    const ConvDescriptor one = parse_descriptor("c=2,o=2,in=3,k=1,bias=1,dt=f16");
    EXPECT_EQ(parse_descriptor("c=2,o=2,in=3,k=1,bias=1,dt=f16:f16:f16,bdt=f16"), one);
    EXPECT_EQ(to_string(parse_descriptor("c=2,o=2,in=3,k=1,bias=1,dt=f16:f16:f16,bdt=f16")), to_string(one));
    ConvDescriptor set_in_code = one;
    set_in_code.dtype_overrides.dst = DataType::f16;  // an override equal to dtype changes nothing
    EXPECT_EQ(set_in_code, one);
    EXPECT_FALSE(set_in_code.mixed());
    EXPECT_FALSE(parse_descriptor("c=2,o=2,in=3,k=1,bias=1,dt=f16:f16:f32") == one);
    EXPECT_FALSE(parse_descriptor("c=2,o=2,in=3,k=1,bias=1,dt=f16,bdt=f32") == one);
}

TEST(DescriptorDtypes, BadMixesNameTheAttributeAndRule) {
    EXPECT_EQ(attribute_of_error("c=1,o=1,in=3,k=1,dt=bf16:f32"), "dt");         // two types: src:weights:dst is three
    EXPECT_EQ(attribute_of_error("c=1,o=1,in=3,k=1,dt=bf16:bf16:f32:f32"), "dt");
    EXPECT_EQ(attribute_of_error("c=1,o=1,in=3,k=1,dt=bf16::f32"), "dt");
    EXPECT_EQ(attribute_of_error("c=1,o=1,in=3,k=1,dt=bf16:s8:f32"), "dt");
    EXPECT_EQ(attribute_of_error("c=1,o=1,in=3,k=1,bias=1,bdt=f64"), "bdt");     // f64 beside f32: every tensor or none
    EXPECT_EQ(attribute_of_error("c=1,o=1,in=3,k=1,bias=1,dt=f64"), "(accepted)");
    EXPECT_EQ(attribute_of_error("c=1,o=1,in=3,k=1,bias=1,bdt=s8"), "bdt");
    EXPECT_EQ(attribute_of_error("c=1,o=1,in=3,k=1,bias=0,bdt=f16"), "bdt");     // a bias type needs a bias
    EXPECT_EQ(attribute_of_error("c=1,o=1,in=3,k=1,bias=0,bdt=f32"), "(accepted)");  // the same as src's: no override
}

RC_GTEST_PROP(DescriptorDtypes, MixedStringRoundTrips, ()) {
    ConvDescriptor d = *testgen::valid_descriptor();
    const auto type = rc::gen::element(DataType::f32, DataType::f16, DataType::bf16);
    d.dtype_overrides.weights = *type;
    d.dtype_overrides.dst = *type;
    if (d.has_bias) d.dtype_overrides.bias = *type;
    validate(d);
    const std::string text = to_string(d);
    RC_ASSERT(parse_descriptor(text) == d);
    RC_ASSERT(to_string(parse_descriptor(text)) == text);
    RC_ASSERT(d.mixed() == (text.find(":", 5) != std::string::npos || text.find("bdt=") != std::string::npos));
}
