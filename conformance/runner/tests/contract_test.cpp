// The one contract (runner/include/convcheck/runner/contract.hpp) that the runner, the golden-vector checker and the direct
// plugin test share: a described f64 accumulation gives the f64 bound (finite), the data file's
// declarations override the description, and the declared slack ("bound", "input_precision") is read
// with its reason or refused naming the key, the value and the rule.
#include <gtest/gtest.h>

#include <cmath>

#include "convcheck/runner/contract.hpp"
#include "convcheck/plugin.h"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

TEST(Contract, ADescribedF64AccumulationGivesTheF64Bound) {
    const accuracy::Contract c = contract_for(nullptr, "mine", CONVCHECK_F64, DataType::f32);
    EXPECT_TRUE(c.accumulation_is_f64);
    EXPECT_EQ(accuracy::accumulation_roundoff(c), std::ldexp(1.0, -53));
    const double bound = accuracy::error_bound(c, 1.0, 28.0, 28);  // y* = 1, M = 28, n = 28
    EXPECT_TRUE(std::isfinite(bound));
    EXPECT_LT(bound, 2.0 * std::ldexp(1.0, -24));  // u_out |y*| + 28 * 2^-53 * 28 + eta: about 2^-24
}

TEST(Contract, TheDescriptionAppliesWhereTheFileIsSilent) {
    const Expectations x = Expectations::parse(R"({"backends": {"mine": {"accumulation": {"f16": "f16"}}}})", "t");
    EXPECT_EQ(contract_for(&x, "mine", CONVCHECK_BF16, DataType::f16).accumulation_dtype, DataType::f16);
    EXPECT_EQ(contract_for(&x, "mine", CONVCHECK_BF16, DataType::f32).accumulation_dtype, DataType::bf16);
    EXPECT_EQ(contract_for(&x, "other", CONVCHECK_F16, DataType::f32).accumulation_dtype, DataType::f16);
    EXPECT_EQ(contract_for(&x, "other", 77, DataType::f32).accumulation_dtype, DataType::f32);  // not a dtype
    const accuracy::Contract plain = contract_for(&x, "mine", CONVCHECK_F32, DataType::f32);
    EXPECT_EQ(plain.bound_kind, accuracy::BoundKind::per_output);
    EXPECT_EQ(plain.input_significand_bits, 0);
    EXPECT_EQ(accuracy::bound_name(plain), "per_output");
}

TEST(Contract, DeclaredSlackEntersTheContract) {
    const Expectations x = Expectations::parse(R"({"backends": {"mine": {
        "bound": {"kind": "whole_tensor", "reason": "Winograd F(4x4, 3x3) for 3x3 stride 1"},
        "input_precision": {"dtype": "tf32", "reason": "tensor cores round f32 inputs to TF32"}}}})", "t");
    const BackendDeclaration* d = x.declaration("mine");
    ASSERT_NE(d, nullptr);
    ASSERT_TRUE(d->bound && d->input_precision);
    EXPECT_EQ(d->bound->reason, "Winograd F(4x4, 3x3) for 3x3 stride 1");
    const accuracy::Contract f32 = contract_for(&x, "mine", CONVCHECK_F32, DataType::f32);
    EXPECT_EQ(f32.bound_kind, accuracy::BoundKind::whole_tensor);
    EXPECT_EQ(f32.input_significand_bits, 11);
    EXPECT_EQ(accuracy::bound_name(f32), "whole_tensor+input_precision:tf32");
    // f16 has TF32's 11 bits: rounding to TF32 changes nothing, and the bound does not name it
    EXPECT_EQ(accuracy::bound_name(contract_for(&x, "mine", CONVCHECK_F32, DataType::f16)), "whole_tensor");
}

std::string refusal(const char* declaration) {
    try {
        Expectations::parse(std::string(R"({"backends": {"a": {)") + declaration + "}}}", "f.json");
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "accepted";
}

TEST(Contract, MalformedSlackIsRefusedNamingKeyValueAndRule) {
    EXPECT_EQ(refusal(R"("bound": {"kind": "whole_tensor"})"),
              "f.json: backends.a.bound.reason: a non-empty reason is required: a declaration says why, with what "
              "was measured");
    EXPECT_NE(refusal(R"("input_precision": {"dtype": "tf32", "reason": ""})").find("backends.a.input_precision.reason"),
              std::string::npos);
    EXPECT_EQ(refusal(R"("bound": {"kind": "winograd", "reason": "r"})"),
              "f.json: backends.a.bound.kind: 'winograd' is not one of whole_tensor");
    EXPECT_EQ(refusal(R"("input_precision": {"dtype": "fp8", "reason": "r"})"),
              "f.json: backends.a.input_precision.dtype: 'fp8' is not one of tf32, bf16");
    EXPECT_NE(refusal(R"("input_precision": {"reason": "r"})").find("backends.a.input_precision.dtype: is required"),
              std::string::npos);
    EXPECT_NE(refusal(R"("bound": {"kind": "whole_tensor", "reason": "r", "factor": 2})").find("backends.a.bound.factor"),
              std::string::npos);
    EXPECT_NE(refusal(R"("bound": "whole_tensor")").find("backends.a.bound: must be an object"), std::string::npos);
}

TEST(Contract, ADeclaredPostOpNanPolicyEntersTheContractAndTheRestPropagates) {
    const Expectations x = Expectations::parse(R"({"backends": {"mine": {"post_op_nan": {
        "clip": "to_lower_bound", "relu": "to_zero", "reason": "MAXPS(x, lo) then MINPS: measured"}}}})", "t");
    const accuracy::Contract c = contract_for(&x, "mine", CONVCHECK_F32, DataType::f32);
    EXPECT_EQ(c.post_op_nan.clip, ClipNan::to_lower_bound);
    EXPECT_EQ(c.post_op_nan.relu, ReluNan::to_zero);
    EXPECT_EQ(c.post_op_nan.max, MinMaxNan::propagate);  // left out: IEEE 754-2019 maximum
    EXPECT_EQ(to_string(c.post_op_nan), "clip to_lower_bound, relu to_zero, max propagate, min propagate");
    EXPECT_EQ(x.declaration("mine")->post_op_nan_reason, "MAXPS(x, lo) then MINPS: measured");
    EXPECT_EQ(contract_for(&x, "other", CONVCHECK_F32, DataType::f32).post_op_nan, PostOpNanPolicy{});
}

TEST(Contract, AMalformedPostOpNanPolicyIsRefusedNamingKeyValueAndRule) {
    EXPECT_EQ(refusal(R"("post_op_nan": {"clip": "to_alpha", "reason": "r"})"),
              "f.json: backends.a.post_op_nan.clip: 'to_alpha' is not one of propagate, to_lower_bound, to_upper_bound");
    EXPECT_EQ(refusal(R"("post_op_nan": {"max": "fmax", "reason": "r"})"),
              "f.json: backends.a.post_op_nan.max: 'fmax' is not one of propagate, number");
    EXPECT_NE(refusal(R"("post_op_nan": {"tanh": "propagate", "reason": "r"})").find("backends.a.post_op_nan.tanh: is not a key"),
              std::string::npos);
    EXPECT_EQ(refusal(R"("post_op_nan": {"relu": "to_zero"})"),
              "f.json: backends.a.post_op_nan.reason: a non-empty reason is required: what was measured, and how");
    EXPECT_NE(refusal(R"("post_op_nan": {"reason": "r"})").find("backends.a.post_op_nan: names no op"), std::string::npos);
    EXPECT_NE(refusal(R"("post_op_nan": "propagate")").find("backends.a.post_op_nan: must be an object"), std::string::npos);
}

// The sign of relu's zero: declared apart from the NaN policy, and kept beside it; by default the formula's -0.
TEST(Contract, ADeclaredSignOfRelusZeroEntersTheContract) {
    const Expectations x = Expectations::parse(R"({"backends": {"mine": {"post_op_signed_zero": {
        "relu": "plus_zero", "reason": "std::max(0.0f, a): measured"}, "post_op_nan": {"relu": "to_zero",
        "reason": "r"}}}})", "t");
    const accuracy::Contract c = contract_for(&x, "mine", CONVCHECK_F32, DataType::f32);
    EXPECT_EQ(c.post_op_nan.relu_zero, ReluZero::plus_zero);
    EXPECT_EQ(c.post_op_nan.relu, ReluNan::to_zero);
    EXPECT_EQ(x.declaration("mine")->post_op_signed_zero->reason, "std::max(0.0f, a): measured");
    EXPECT_EQ(contract_for(&x, "other", CONVCHECK_F32, DataType::f32).post_op_nan.relu_zero, ReluZero::minus_zero);
    EXPECT_EQ(refusal(R"("post_op_signed_zero": {"relu": "positive", "reason": "r"})"),
              "f.json: backends.a.post_op_signed_zero.relu: 'positive' is not one of minus_zero, plus_zero");
    EXPECT_NE(refusal(R"("post_op_signed_zero": {"clip": "plus_zero", "reason": "r"})")
                  .find("backends.a.post_op_signed_zero.clip: is not a key"), std::string::npos);
    EXPECT_NE(refusal(R"("post_op_signed_zero": {"relu": "plus_zero"})").find("post_op_signed_zero.reason"),
              std::string::npos);
}

}  // namespace
