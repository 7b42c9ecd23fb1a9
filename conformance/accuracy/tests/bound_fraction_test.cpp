// bound_fraction takes a short path for a finite exact value inside the output type's range; it must give what the
// rule gives case by case (the rule written out below, as bound_fraction states it), above all at the edge of the
// range, where the exact value rounds to infinity and an infinite result is right.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "convcheck/accuracy/accuracy.hpp"

using namespace convcheck;
using namespace convcheck::accuracy;

namespace {

// The rule, every case spelled out (no short path).
double rule(const Contract& c, double want, double got, double bound) {
    if (fp8_saturates(c) && std::isfinite(want)) {
        const double largest = c.output_dtype == DataType::f8_e4m3 ? 448.0 : 57344.0;
        want = std::clamp(want, -largest, largest);
    }
    const double rounded = round_to_output(c, want);
    if (std::isinf(rounded) && got == rounded) return 0.0;
    if (std::isnan(want) && std::isnan(got)) return 0.0;
    if (std::isnan(rounded) && !std::isnan(want) && std::isnan(got)) return 0.0;
    if (!std::isfinite(got)) return std::numeric_limits<double>::infinity();
    const double err = std::fabs(got - want);
    return err == 0.0 ? 0.0 : err / bound;
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST(BoundFraction, AgreesWithTheRuleAtTheEdgesOfEachOutputType) {
    const std::vector<std::pair<DataType, double>> types = {{DataType::f32, std::numeric_limits<float>::max()},
                                                            {DataType::f16, 65504.0},
                                                            {DataType::bf16, 3.3895313892515355e38},
                                                            {DataType::f64, std::numeric_limits<double>::max()}};
    for (const auto& [dtype, largest] : types) {
        Contract c;
        c.output_dtype = dtype;
        // the largest finite value, a little past it (rounds to it or to infinity), far past it, and the specials
        const std::vector<double> wants = {0.0,     -0.0,      1.5,      largest,   -largest, largest * (1 + 0x1p-20),
                                           -largest * (1 + 0x1p-20), largest * 2, kInf,     -kInf,
                                           std::numeric_limits<double>::quiet_NaN()};
        const std::vector<double> gots = {0.0, 1.5, largest, -largest, kInf, -kInf, std::numeric_limits<double>::quiet_NaN()};
        for (double want : wants)
            for (double got : gots)
                EXPECT_TRUE(same(bound_fraction(c, want, got, 0.25), rule(c, want, got, 0.25)))
                    << to_string(dtype) << ": want " << want << ", got " << got << ": "
                    << bound_fraction(c, want, got, 0.25) << " vs the rule's " << rule(c, want, got, 0.25);
    }
}

TEST(BoundFraction, AgreesWithTheRuleOnRandomValues) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> exponent(-30.0, 30.0);
    for (DataType dtype : {DataType::f32, DataType::f16, DataType::bf16, DataType::f64, DataType::f8_e4m3,
                           DataType::f8_e5m2}) {
        Contract c;
        c.output_dtype = dtype;
        for (int i = 0; i < 20000; ++i) {
            const double want = std::ldexp(1.0, static_cast<int>(exponent(rng))) * (rng() % 2 ? 1.0 : -1.0);
            const double got = want * (1.0 + std::ldexp(1.0, -static_cast<int>(rng() % 30)));
            ASSERT_TRUE(same(bound_fraction(c, want, got, 1e-3), rule(c, want, got, 1e-3)))
                << to_string(dtype) << ": want " << want << ", got " << got;
        }
    }
}
