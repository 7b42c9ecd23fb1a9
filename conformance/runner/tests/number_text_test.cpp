// The numbers a user types are read strictly: the whole text is one plain decimal number in range,
// or it is refused (never wrapped around, clamped or read as NaN).
#include <gtest/gtest.h>

#include "convcheck/runner/number_text.hpp"

using namespace convcheck::runner;

namespace {

TEST(NumberText, UnsignedIntegersAreDigitsOnlyUpTo2To64Minus1) {
    EXPECT_EQ(parse_unsigned("0"), 0u);
    EXPECT_EQ(parse_unsigned("007"), 7u);
    EXPECT_EQ(parse_unsigned("18446744073709551615"), 18446744073709551615ull);
    for (const char* bad : {"", "-1", "+1", " 1", "1 ", "18446744073709551616", "99999999999999999999999", "1.0",
                            "1e3", "0x10", "nan", "1_000"})
        EXPECT_FALSE(parse_unsigned(bad)) << bad;
}

TEST(NumberText, FiniteNumbersRefuseNanInfinityAndOverflow) {
    EXPECT_EQ(parse_finite("30"), 30.0);
    EXPECT_EQ(parse_finite("0.5"), 0.5);
    EXPECT_EQ(parse_finite("-2"), -2.0);
    EXPECT_EQ(parse_finite("1e3"), 1000.0);
    EXPECT_EQ(parse_finite(".25"), 0.25);
    for (const char* bad : {"", "nan", "NaN", "inf", "-inf", "infinity", "1e400", "-1e400", " 1", "1 ", "+1", "1,5",
                            "0x1p3", "30s", "1e", "--1", "."})
        EXPECT_FALSE(parse_finite(bad)) << bad;
}

}  // namespace
