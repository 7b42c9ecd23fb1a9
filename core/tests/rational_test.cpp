// Exact rational arithmetic: lowest terms, mathematical floor/ceil, and overflow as an error.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <limits>

#include "convcheck/core/rational.hpp"

using convcheck::Rational;
using convcheck::RationalOverflow;

TEST(Rational, LowestTermsWithPositiveDenominator) {
    const Rational r(6, -4);
    EXPECT_EQ(r.numerator(), -3);
    EXPECT_EQ(r.denominator(), 2);
    EXPECT_EQ(Rational(0, 7), Rational(0));
    EXPECT_EQ(Rational(0, 7).denominator(), 1);
    EXPECT_EQ(Rational(10, 5), Rational(2));
}

TEST(Rational, Arithmetic) {
    EXPECT_EQ(Rational(1, 2) + Rational(1, 3), Rational(5, 6));
    EXPECT_EQ(Rational(1, 2) - Rational(1, 3), Rational(1, 6));
    EXPECT_EQ(Rational(2, 3) * Rational(9, 4), Rational(3, 2));
    EXPECT_EQ(Rational(2, 3) / Rational(4, 9), Rational(3, 2));
    EXPECT_EQ(-Rational(2, 3), Rational(-2, 3));
    EXPECT_EQ(2 * Rational(3, 4), Rational(3, 2));
}

TEST(Rational, FloorAndCeilAreMathematical) {
    EXPECT_EQ(Rational(7, 2).floor(), 3);
    EXPECT_EQ(Rational(7, 2).ceil(), 4);
    EXPECT_EQ(Rational(-7, 2).floor(), -4);  // C division would give -3
    EXPECT_EQ(Rational(-7, 2).ceil(), -3);
    EXPECT_EQ(Rational(-4, 2).floor(), -2);
    EXPECT_EQ(Rational(-4, 2).ceil(), -2);
    // SPEC-NOTES §4: ceil(1.1 * 50) in float is 56; exactly it is 55
    EXPECT_EQ((Rational(11, 10) * Rational(50)).ceil(), 55);
}

TEST(Rational, Comparison) {
    EXPECT_LT(Rational(1, 3), Rational(1, 2));
    EXPECT_LT(Rational(-1, 2), Rational(-1, 3));
    EXPECT_LE(Rational(2, 4), Rational(1, 2));
    EXPECT_GT(Rational(5, 3), Rational(3, 2));
}

TEST(Rational, OverflowThrowsInsteadOfWrapping) {
    const std::int64_t big = std::numeric_limits<std::int64_t>::max();
    EXPECT_THROW(Rational(big) + Rational(1), RationalOverflow);
    EXPECT_THROW(Rational(big) * Rational(2), RationalOverflow);
    EXPECT_THROW(Rational(1, big) + Rational(1, big - 1), RationalOverflow);
    EXPECT_THROW(Rational(big, 3) < Rational(big, 2), RationalOverflow);
    EXPECT_THROW(Rational{std::numeric_limits<std::int64_t>::min()}, RationalOverflow);
    EXPECT_THROW(Rational(-big) - Rational(2), RationalOverflow);  // would be INT64_MIN - 1
    EXPECT_THROW(Rational(-big) - Rational(1), RationalOverflow);  // INT64_MIN itself is refused
    // cross-reduction keeps products small: (big/3) * (3/big) = 1 does not overflow
    EXPECT_EQ(Rational(big, 3) * Rational(3, big), Rational(1));
    try {
        (void)(Rational(big) + Rational(1));
    } catch (const RationalOverflow& e) {
        EXPECT_NE(std::string(e.what()).find("overflows 64 bits"), std::string::npos) << e.what();
    }
}

TEST(Rational, DivisionByZeroIsAnError) {
    EXPECT_THROW(Rational(1, 0), std::invalid_argument);
    EXPECT_THROW(Rational(1) / Rational(0), std::invalid_argument);
}

TEST(Rational, ParseAndPrint) {
    Rational r;
    ASSERT_TRUE(Rational::parse("2/3", &r));
    EXPECT_EQ(r, Rational(2, 3));
    ASSERT_TRUE(Rational::parse("-4/6", &r));
    EXPECT_EQ(r.to_string(), "-2/3");
    ASSERT_TRUE(Rational::parse("5", &r));
    EXPECT_EQ(r.to_string(), "5");
    for (const char* bad : {"", "/3", "2/", "2/0", "0.5", "1/2/3", "x", "2 /3"}) EXPECT_FALSE(Rational::parse(bad, &r)) << bad;
}

RC_GTEST_PROP(Rational, FieldLawsOnSmallValues, ()) {
    const auto small = rc::gen::inRange<std::int64_t>(-1000, 1001);
    const auto positive = rc::gen::inRange<std::int64_t>(1, 1001);
    const Rational a(*small, *positive), b(*small, *positive), c(*small, *positive);
    RC_ASSERT((a + b) + c == a + (b + c));
    RC_ASSERT(a * (b + c) == a * b + a * c);
    RC_ASSERT(a - a == Rational(0));
    if (!(b == Rational(0))) RC_ASSERT((a / b) * b == a);
    RC_ASSERT(a.floor() <= a.ceil());
    RC_ASSERT(Rational(a.floor()) <= a && a <= Rational(a.ceil()));
    RC_ASSERT(a.ceil() - a.floor() == (a.is_integer() ? 0 : 1));
}
