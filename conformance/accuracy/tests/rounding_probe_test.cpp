// The rounding probe (rounding_probe.hpp): each rule's own answers identify it and only it; answers of a rule
// that is none of the four (half away from zero on the exact value) fit none; a mismatch names its case.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "convcheck/accuracy/rounding_probe.hpp"

using namespace convcheck;
using reference::Requantization;

namespace {

std::vector<std::int64_t> answers(Requantization rule) {
    std::vector<std::int64_t> out;
    for (const auto& c : accuracy::rounding_probe_cases())
        out.push_back(reference::requantize_with_zero_point(c.acc, c.scale, c.zero_point, rule));
    return out;
}

}  // namespace

TEST(RoundingProbe, EachRuleIsTheOnlyOneItsAnswersFit) {
    for (const Requantization rule : reference::kRequantizations) {
        EXPECT_EQ(accuracy::rules_consistent_with(answers(rule)), std::vector<Requantization>{rule}) << to_string(rule);
        EXPECT_EQ(accuracy::rounding_probe_mismatch(rule, answers(rule)), "") << to_string(rule);
    }
}

// std::round of the exact value (ties away from zero), then the zero point, as a backend that computes acc * scale
// in double and rounds it would: it is none of the four.
TEST(RoundingProbe, HalfAwayFromZeroOnTheExactValueFitsNone) {
    std::vector<std::int64_t> away;
    for (const auto& c : accuracy::rounding_probe_cases())
        away.push_back(static_cast<std::int64_t>(std::round(static_cast<double>(c.acc) * c.scale)) + c.zero_point);
    EXPECT_TRUE(accuracy::rules_consistent_with(away).empty());
    const std::string m = accuracy::rounding_probe_mismatch(Requantization::single_rounding, away);
    EXPECT_EQ(m, "declared single_rounding, but acc -7 x scale 0.5 = -3.5 (-3.5: a negative tie after one right "
                 "shift) gave -4; double_rounding gives -3, single_rounding gives -3, nearest_even_f32 gives -4, "
                 "nearest_even_f32_with_zero_point gives -4, the answers fit none of the four rules");
}

// Rounding before or after the zero point: the cases with an odd one tell the two f32 rules apart.
TEST(RoundingProbe, TheZeroPointCasesPartTheTwoFloatRules) {
    const std::string m = accuracy::rounding_probe_mismatch(Requantization::nearest_even_f32_with_zero_point,
                                                            answers(Requantization::nearest_even_f32));
    EXPECT_NE(m.find("declared nearest_even_f32_with_zero_point, but acc 5 x scale 0.5 = 2.5, zero point 1"),
              std::string::npos) << m;
    EXPECT_NE(m.find("gave 3; "), std::string::npos) << m;
    EXPECT_NE(m.find("nearest_even_f32_with_zero_point gives 4"), std::string::npos) << m;
    EXPECT_NE(m.find("the answers fit nearest_even_f32"), std::string::npos) << m;
}

TEST(RoundingProbe, ADeclaredRuleTheBackendDoesNotFollowNamesTheOneItDoes) {
    const std::string m =
        accuracy::rounding_probe_mismatch(Requantization::nearest_even_f32, answers(Requantization::single_rounding));
    EXPECT_NE(m.find("declared nearest_even_f32, but acc 5 x scale 0.5 = 2.5 ("), std::string::npos) << m;
    EXPECT_NE(m.find("the answers fit single_rounding"), std::string::npos) << m;
}

TEST(RoundingProbe, AWrongNumberOfAnswersIsRefused) {
    EXPECT_THROW(accuracy::rules_consistent_with(std::vector<std::int64_t>{1, 2}), std::invalid_argument);
}
