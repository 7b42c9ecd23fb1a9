// Tolerance profiles (profiles.hpp): each suite's published rule at its boundary, on both sides.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "convcheck/accuracy/profiles.hpp"

using namespace convcheck;
using namespace convcheck::accuracy;

namespace {

bool passes(Profile p, DataType dst, std::int64_t products, double want, double got) {
    const std::vector<double> w{want}, g{got};
    return judge_profile(p, dst, products, w, g).passed;
}

double ulps_up(float v, int n) {
    for (int i = 0; i < n; ++i) v = std::nextafter(v, std::numeric_limits<float>::infinity());
    return v;
}

}  // namespace

TEST(Profiles, WebnnAllowsTwoUlpsPerProduct) {
    EXPECT_TRUE(passes(Profile::webnn, DataType::f32, 1, 1.0, ulps_up(1.0f, 2)));
    EXPECT_FALSE(passes(Profile::webnn, DataType::f32, 1, 1.0, ulps_up(1.0f, 3)));
    EXPECT_TRUE(passes(Profile::webnn, DataType::f32, 9, 1.0, ulps_up(1.0f, 18)));  // a 3x3 kernel, one channel
    EXPECT_FALSE(passes(Profile::webnn, DataType::f32, 9, 1.0, ulps_up(1.0f, 19)));
    // f16 ULPs: 1 + 2^-10 is one ULP above 1
    EXPECT_TRUE(passes(Profile::webnn, DataType::f16, 1, 1.0, 1.0 + 2 * std::ldexp(1.0, -10)));
    EXPECT_FALSE(passes(Profile::webnn, DataType::f16, 1, 1.0, 1.0 + 3 * std::ldexp(1.0, -10)));
}

TEST(Profiles, UlpsCountAcrossZeroOnSignMagnitude) {
    const double tiny = std::numeric_limits<float>::denorm_min();
    EXPECT_EQ(ulp_distance(DataType::f32, 0.0, -0.0), 0u);
    EXPECT_EQ(ulp_distance(DataType::f32, tiny, -tiny), 2u);
    EXPECT_EQ(ulp_distance(DataType::bf16, 1.0, 1.0 + std::ldexp(1.0, -7)), 1u);
}

TEST(Profiles, NnapiIsAbsoluteAndRelativeAndHasNoBf16) {
    EXPECT_TRUE(passes(Profile::nnapi, DataType::f32, 1, 1.0, 1.0 + 1e-5));
    EXPECT_FALSE(passes(Profile::nnapi, DataType::f32, 1, 1.0, 1.0 + 1.1e-5));
    EXPECT_TRUE(passes(Profile::nnapi, DataType::f16, 1, 1.0, 1.0 + 9e-3));   // 5 * 2^-10 * (1 + 1) = 9.77e-3
    EXPECT_FALSE(passes(Profile::nnapi, DataType::f16, 1, 1.0, 1.0 + 1e-2));
    const std::vector<double> w{1.0}, g{100.0};
    EXPECT_FALSE(judge_profile(Profile::nnapi, DataType::bf16, 1, w, g).applies);
}

TEST(Profiles, BenchdnnIsExactInTheDstType) {
    EXPECT_TRUE(passes(Profile::benchdnn, DataType::f32, 1, 1.0 + std::ldexp(1.0, -30), 1.0));  // rounds to 1
    EXPECT_FALSE(passes(Profile::benchdnn, DataType::f32, 1, 1.0, ulps_up(1.0f, 1)));
}

TEST(Profiles, OnnxAndOpinfoAreTheirDefaults) {
    EXPECT_TRUE(passes(Profile::onnx, DataType::f32, 1, 1000.0, 1000.9));
    EXPECT_FALSE(passes(Profile::onnx, DataType::f32, 1, 1000.0, 1001.1));
    EXPECT_TRUE(passes(Profile::opinfo, DataType::f32, 1, 1.0, 1.0 + 1.1e-5));   // 1e-5 + 1.3e-6
    EXPECT_FALSE(passes(Profile::opinfo, DataType::f32, 1, 1.0, 1.0 + 1.4e-5));
    EXPECT_TRUE(passes(Profile::opinfo, DataType::bf16, 1, 1.0, 1.0 + 1.5e-2));
    EXPECT_FALSE(passes(Profile::opinfo, DataType::bf16, 1, 1.0, 1.0 + 1.7e-2));
}

TEST(Profiles, NanPassesOnlyOppositeNan) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (Profile p : kProfiles) {
        EXPECT_TRUE(passes(p, DataType::f32, 1, nan, nan)) << to_string(p);
        EXPECT_FALSE(passes(p, DataType::f32, 1, nan, 1.0)) << to_string(p);
        EXPECT_FALSE(passes(p, DataType::f32, 1, 1.0, nan)) << to_string(p);
    }
}

TEST(Profiles, NamesRoundTrip) {
    for (Profile p : kProfiles) EXPECT_EQ(parse_profile(to_string(p)), p);
    EXPECT_FALSE(parse_profile("tosa").has_value());
}
