// The post-op chain on the descriptor (post_ops.hpp): its canonical text round-trips, print leaves it out when
// empty, and every rule it breaks is named with the op, the value and the rule.
#include <gtest/gtest.h>

#include "convcheck/core/descriptor.hpp"

using namespace convcheck;

namespace {

const char* kBase = "conv:n=1,c=4,o=8,in=5x5,k=3x3";

// kBase with more fields (appended, so that a repeated key is refused)
std::string with(const std::string& fields) {
    std::string s = kBase;
    s += ",";
    s += fields;
    return s;
}

void expect_error(const std::string& po, const std::string& rule_part) {
    try {
        parse_descriptor(with("po=" + std::string(po)));
        ADD_FAILURE() << "accepted: po=" << po;
    } catch (const ConvError& e) {
        EXPECT_EQ(e.attribute(), "po") << e.what();
        EXPECT_NE(e.rule().find(rule_part), std::string::npos) << e.what();
    }
}

}  // namespace

TEST(PostOps, ADescriptorWithoutPostOpsPrintsNoPoKey) {
    EXPECT_EQ(to_string(parse_descriptor(kBase)).find("po="), std::string::npos);
}

TEST(PostOps, TheChainRoundTripsThroughItsCanonicalText) {
    for (const char* po : {"relu", "relu:0.125", "clip:0:6", "linear:2:1", "linear:0.25", "round", "tanh", "logistic",
                           "swish", "swish:2", "hardswish", "gelu_tanh", "gelu_erf", "elu", "elu:0.5", "exp", "square",
                           "abs", "sqrt", "sum", "sum:0.5", "sum:2:-3", "add:per_tensor", "mul:per_oc", "max:full",
                           "min:per_oc", "sub:per_tensor", "div:full", "relu+sum:0.5+add:per_oc+clip:-1:1",
                           "linear:1e20:-1e-20"}) {
        const ConvDescriptor d = parse_descriptor(with("po=" + std::string(po)));
        const std::string text = to_string(d);
        EXPECT_NE(text.find(std::string(",po=") + po), std::string::npos) << text;
        EXPECT_EQ(parse_descriptor(text), d) << text;
    }
}

TEST(PostOps, DefaultParametersReadAsWrittenOut) {
    EXPECT_EQ(parse_descriptor(with("po=relu:0+sum:1:0+swish:1+linear:3:0")),
              parse_descriptor(with("po=relu+sum+swish+linear:3")));
    EXPECT_NE(parse_descriptor(with("po=relu+add:per_oc")),
              parse_descriptor(with("po=add:per_oc+relu")));
}

TEST(PostOps, AnExponentsPlusIsNotTheSeparator) {
    const ConvDescriptor d = parse_descriptor(with("po=linear:1e+3:2E+1+relu"));
    ASSERT_EQ(d.post_ops.size(), 2u);
    EXPECT_EQ(d.post_ops[0].alpha, 1000.0f);
    EXPECT_EQ(d.post_ops[0].beta, 20.0f);
}

TEST(PostOps, EveryBrokenRuleIsNamed) {
    expect_error("relu6", "unknown post-op");
    expect_error("clip:1", "clip takes 2 parameters");
    expect_error("clip:2:1", "must not exceed");
    expect_error("tanh:1", "takes 0 parameters");
    expect_error("relu:x", "must be a number");
    expect_error("relu:inf", "finite");
    expect_error("sum+sum", "at most one sum");
    expect_error("sum:1:0.5", "32-bit integer");
    expect_error("add", "per_tensor, per_oc or full");
    expect_error("add:per_ic", "per_tensor, per_oc or full");
    expect_error("relu++tanh", "empty post-op");
    expect_error("soft_relu:0", "alpha must not be 0");
    expect_error("pow:1", "pow takes 2 parameters");
    expect_error("hardswish_ab:1", "hardswish_ab takes 2 parameters");
    expect_error("hardswish:1:2", "takes 0 parameters");  // 2.6's fixed form
    expect_error("mul:per_oc:s4", "f32, f16, bf16, u8, s8 or s32");
    expect_error("prelu", "prelu takes its weights' shape");
    expect_error("prelu:per_oc:s8", "prelu takes its weights' shape");
    try {
        parse_descriptor(with("dir=bwd_d,po=relu"));
        ADD_FAILURE() << "a backward pass with post-ops was accepted";
    } catch (const ConvError& e) {
        EXPECT_NE(e.rule().find("forward pass only"), std::string::npos) << e.what();
    }
}

TEST(PostOps, OperandElementsFollowTheBroadcast) {
    const ConvDescriptor d = parse_descriptor("conv:n=2,c=4,o=8,in=5x5,k=3x3,po=add:per_tensor+mul:per_oc+max:full+relu");
    EXPECT_EQ(operand_elements(d, d.post_ops[0]), 1);
    EXPECT_EQ(operand_elements(d, d.post_ops[1]), 8);
    EXPECT_EQ(operand_elements(d, d.post_ops[2]), 2 * 8 * 3 * 3);
    EXPECT_EQ(operand_elements(d, d.post_ops[3]), 0);
    const ConvDescriptor p = parse_descriptor("conv:n=2,c=4,o=8,in=5x5,k=3x3,po=prelu:per_oc+prelu:full");
    EXPECT_EQ(operand_elements(p, p.post_ops[0]), 8);
    EXPECT_EQ(operand_elements(p, p.post_ops[1]), 2 * 8 * 3 * 3);
}

TEST(PostOps, LaterAlgorithmsPreluAndOperandTypesRoundTrip) {
    for (const char* po : {"soft_relu+soft_relu:-2+log+hardsigmoid:-2:3+hardswish_ab:0.25:0.5+hardswish+mish+pow:1:0.5",
                           "prelu:per_oc+prelu:per_tensor+mul:per_oc:s8+add:full:bf16+sub:per_tensor:u8+div:per_oc:f16+"
                           "max:per_oc:s32+min:per_oc"}) {
        const ConvDescriptor d = parse_descriptor(with(std::string("po=") + po));
        EXPECT_EQ(post_ops_text(d.post_ops), po);
        EXPECT_EQ(parse_descriptor(to_string(d)), d);
    }
    EXPECT_EQ(parse_post_ops("add:per_oc:f32"), parse_post_ops("add:per_oc"));  // f32 is the default, left out
    EXPECT_NE(parse_post_ops("hardswish"), parse_post_ops("hardswish_ab:0.1666667:0.5"));
    EXPECT_EQ(parse_post_ops("mul:per_oc:s8")[0].operand_type, OperandType::s8);
}
