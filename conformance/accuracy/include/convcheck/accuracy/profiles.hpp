// Tolerance profiles: the published rules other conformance suites judge a convolution's outputs by, applied to the
// same outputs beside convcheck's own verdict (`convcheck run --profile NAME`, docs/accuracy.md "Tolerance profiles").
// Each rule compares an output `got` with the exact result `want` (the reference's, in f64):
//   webnn     |got - want| within 2 * KH * KW * (IC / groups) ULPs of dst's type, the ULP distance between got and want
//             rounded to dst's type counted on sign-magnitude bit patterns (web-platform-tests webnn/conformance_tests/
//             conv2d.https.any.js, getConv2dPrecisionTolerance; 3-D and 1-D: the product of the kernel's sizes)
//   nnapi     |got - want| <= atol + rtol * |want|: f32 atol 1e-5, rtol 5 * 2^-23; f16 atol = rtol = 5 * 2^-10 (Android
//             CTS, TestGenerated / TestNeuralNetworksHelpers: the float32 and the float16/relaxed tolerances); bf16: NNAPI
//             has no bf16 (the profile does not apply)
//   benchdnn  got equal to want rounded to dst's type: benchdnn's conv driver compares with threshold 0 for direct
//             convolutions (tests/benchdnn/conv/conv.cpp, setup_cmp), its integer fills making them exact
//   onnx      |got - want| <= 1e-7 + 1e-3 * |want| (onnx/backend/test/runner: numpy.testing.assert_allclose with the
//             runner's default rtol 1e-3, atol 1e-7)
//   opinfo    |got - want| <= atol + rtol * |want| with torch.testing.assert_close's defaults: f32 rtol 1.3e-6, atol 1e-5;
//             f16 rtol 1e-3, atol 1e-5; bf16 rtol 1.6e-2, atol 1e-5 (PyTorch OpInfo's conv tests use them unless
//             a test overrides them)
// A NaN passes a rule only where both are NaN; an infinity only where both are the same infinity.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "convcheck/core/dtype.hpp"

namespace convcheck::accuracy {

enum class Profile : int { webnn = 0, nnapi = 1, benchdnn = 2, onnx = 3, opinfo = 4 };
inline constexpr Profile kProfiles[] = {Profile::webnn, Profile::nnapi, Profile::benchdnn, Profile::onnx, Profile::opinfo};

std::string_view to_string(Profile p);
// "webnn", ...; nullopt for any other name.
std::optional<Profile> parse_profile(std::string_view name);

struct ProfileVerdict {
    Profile profile = Profile::webnn;
    bool applies = true;           // false: the profile has no rule for this dtype (NNAPI's bf16)
    bool passed = true;
    std::int64_t failing = 0;      // outputs outside the rule
    double worst_ratio = 0.0;      // the largest |got - want| / allowance (ULPs / allowed ULPs for webnn)
};

// The profile's verdict on one convolution output tensor. `products` is KH * KW * ... * (IC / groups), the terms of
// one output (webnn's tolerance).
ProfileVerdict judge_profile(Profile p, DataType dst, std::int64_t products, std::span<const double> want,
                             std::span<const double> got);

// The distance in units in the last place of `type` between two values of that type (sign-magnitude order of their
// bit patterns: +0 and -0 are 0 apart).
std::uint64_t ulp_distance(DataType type, double a, double b);

}  // namespace convcheck::accuracy
