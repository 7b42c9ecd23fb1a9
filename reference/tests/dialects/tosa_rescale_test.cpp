// TOSA CONV2D / DEPTHWISE_CONV2D + RESCALE (tosa_rescale.hpp, tosa_rescale_rule.hpp): apply_scale_32 with
// double_round is gemmlowp's double rounding of its own (multiplier, shift), value by value; which of convcheck's
// rules each RESCALE is, checked against the spec's arithmetic; the descriptor's M exact; each refusal's message.
#include <random>

#include "convcheck/reference/dialects/tosa_rescale.hpp"
#include "convcheck/reference/dialects/tosa_rescale_rule.hpp"
#include "convcheck/reference/quantized_output.hpp"
#include "quantized_cases.hpp"

using namespace convcheck;
using namespace convcheck::reference;
using namespace convcheck::reference::dialects;
using qcases::command;
using qcases::expect_refused;
using qcases::run;

namespace {

// (multiplier, shift, value) drawn over TOSA's whole range: any multiplier in [1, 2^31), shift in [2, 62], value
// within the REQUIRE of apply_scale_32
struct Draw {
    std::int64_t multiplier;
    int shift;
    std::int32_t value;
};
std::vector<Draw> draws(int count) {
    std::mt19937_64 rng(43);
    std::vector<Draw> out;
    for (int i = 0; i < count; ++i) {
        Draw d;
        const int bits = 1 + static_cast<int>(rng() % 31);  // multipliers of every length, not only normalized ones
        d.multiplier = static_cast<std::int64_t>(rng() % (std::uint64_t{1} << bits)) | 1;
        d.shift = 2 + static_cast<int>(rng() % 61);
        const std::int64_t limit = d.shift >= 32 ? (std::int64_t{1} << 31) : (std::int64_t{1} << (d.shift - 1));
        const int vbits = static_cast<int>(rng() % 32);  // small values too, where ties are common
        std::int64_t v = static_cast<std::int64_t>(rng() % (std::uint64_t{1} << vbits)) % limit;
        if (rng() % 2) v = -v - (rng() % 2);
        if (v < -limit) v = -limit;
        d.value = static_cast<std::int32_t>(v);
        out.push_back(d);
    }
    return out;
}

std::string repro(const Draw& d) {
    return "apply_scale_32(" + std::to_string(d.value) + ", " + std::to_string(d.multiplier) + ", " + std::to_string(d.shift) + ")";
}

}  // namespace

// The finding: DOUBLE_ROUND is TFLite's MultiplyByQuantizedMultiplier (gemmlowp) with the same integers, for every
// multiplier, normalized or not, and every shift.
TEST(TosaRescale, DoubleRoundIsGemmlowpOfItsOwnMultiplier) {
    for (const Draw& d : draws(200000)) {
        const QuantizedMultiplier own{static_cast<std::int32_t>(d.multiplier), 31 - d.shift};
        ASSERT_EQ(tosa_apply_scale_32(d.value, own.multiplier, d.shift, true), multiply_double_rounding(d.value, own))
            << repro(d);
    }
}

// Each RESCALE read as a rule gives, value by value, what apply_scale_32 gives; where no rule is exact, a witness.
TEST(TosaRescale, RulesAreExactValueByValue) {
    using tosa::RoundingMode;
    int single = 0, dbl = 0, neither = 0;
    for (const Draw& d : draws(200000)) {
        for (RoundingMode mode : {RoundingMode::single_round, RoundingMode::double_round}) {
            const bool double_round = mode == RoundingMode::double_round;
            const tosa::RescaleRules rules = tosa::rescale_rules(d.multiplier, d.shift, true, mode);
            const std::int64_t tosa = tosa_apply_scale_32(d.value, static_cast<std::int32_t>(d.multiplier), d.shift, double_round);
            const double m = std::ldexp(static_cast<double>(d.multiplier), -d.shift);
            if (rules.exact_single) {
                ++single;
                ASSERT_EQ(requantize(d.value, m, Requantization::single_rounding), tosa) << repro(d) << " " << double_round;
            }
            if (rules.exact_double) {
                ++dbl;
                ASSERT_EQ(requantize(d.value, m, Requantization::double_rounding), tosa) << repro(d) << " " << double_round;
            }
            if (!rules.exact_single && !rules.exact_double) ++neither;
        }
    }
    EXPECT_GT(single, 1000);
    EXPECT_GT(dbl, 1000);
    EXPECT_GT(neither, 1000);
    // the witness the refusal names: multiplier 2^29, shift 32 (M = 1/8), value 2
    EXPECT_EQ(tosa_apply_scale_32(2, 1 << 29, 32, true), 1);
    EXPECT_EQ(requantize(2, 0.125, Requantization::double_rounding), 0);
    const auto rules = tosa::rescale_rules(1 << 29, 32, true, tosa::RoundingMode::double_round);
    EXPECT_FALSE(rules.exact_single || rules.exact_double);
}

// SPEC-NOTES §7's worked values in TOSA's integers: (-10, 1/4) -> -3 double, -2 single; (11, 1/8) -> 2, 1.
TEST(TosaRescale, WorkedValues) {
    EXPECT_EQ(tosa_apply_scale_32(-10, 1 << 30, 32, true), -3);
    EXPECT_EQ(tosa_apply_scale_32(-10, 1 << 30, 32, false), -2);
    EXPECT_EQ(tosa_apply_scale_32(11, 1 << 30, 33, true), 2);
    EXPECT_EQ(tosa_apply_scale_32(11, 1 << 30, 33, false), 1);
    // shift 31 adds nothing: -2.5 rounds up, once
    EXPECT_EQ(tosa_apply_scale_32(-10, 1 << 29, 31, true), -2);
}

namespace {
const char* kConv = "op=CONV2D c=4 o=4 in=7x7 k=3x3 pad=1x1x1x1 input_zp=-7 weight_zp=3 rescale.output_zp=5 ";
}

TEST(TosaRescale, ReadsDescriptorAndRule) {
    const std::string a = std::string(kConv) + "rescale.multiplier=1610612736 rescale.shift=35 rescale.rounding_mode=DOUBLE_ROUND";
    const QuantizedResult r = run("tosa_rescale", a);
    ASSERT_TRUE(r.ok()) << r.error->message;
    EXPECT_EQ(to_string(r.descriptor),
              "qconv:n=1,c=4,o=4,g=1,in=7x7,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=0,data=nxc,wei=oix,dt=s8:s8:s8,ssc=1,szp=-7,"
              "wsc=0.046875,wzp=3,dsc=1,dzp=5")
        << command("tosa_rescale", a);
    EXPECT_EQ(r.rule, Requantization::double_rounding);
    EXPECT_EQ(parse_quantized_descriptor(to_string(r.descriptor)), r.descriptor);

    auto rule = [&](const std::string& rescale) {
        const QuantizedResult q = run("tosa_rescale", std::string(kConv) + rescale);
        EXPECT_TRUE(q.ok()) << command("tosa_rescale", std::string(kConv) + rescale) << " " << (q.error ? q.error->message : "");
        return q.rule;
    };
    EXPECT_EQ(rule("rescale.multiplier=1073741824 rescale.shift=33"), Requantization::single_rounding);  // SINGLE_ROUND default
    EXPECT_EQ(rule("rescale.multiplier=1073741824 rescale.shift=33 rescale.double_round=true"), Requantization::double_rounding);
    EXPECT_EQ(rule("rescale.multiplier=1073741824 rescale.shift=33 rescale.rounding_mode=INEXACT_ROUND"), std::nullopt);
    EXPECT_EQ(rule("rescale.multiplier=268435456 rescale.shift=31 rescale.double_round=true"), Requantization::single_rounding);
    EXPECT_EQ(rule("rescale.multiplier=8192 rescale.shift=16 rescale.scale32=false"), Requantization::single_rounding);
}

// The descriptor's scales give M = multiplier * 2^-shift exactly, per tensor (odd part split) and per channel.
TEST(TosaRescale, MultiplierCarriedExactly) {
    // 3 * 5 * 7 * 11 * 13 * 17 * 19 * 23 = 111546435, times 8: odd part 27 bits, split into two short factors
    const std::string a = std::string(kConv) + "rescale.multiplier=892371480 rescale.shift=40";
    const QuantizedResult r = run("tosa_rescale", a);
    ASSERT_TRUE(r.ok()) << r.error->message;
    const auto m = output_multipliers(r.descriptor, std::vector<float>{r.descriptor.weights_scale});
    EXPECT_EQ(m[0], std::ldexp(892371480.0, -40)) << command("tosa_rescale", a);

    const std::string dw = "op=DEPTHWISE_CONV2D c=2 multiplier=2 in=6x5 k=3x3 pad=1x1x0x0 bias=4 input_zp=-2 "
                           "rescale.per_channel=true rescale.multiplier=1610612736:1342177280:1073741824:1879048192 "
                           "rescale.shift=36:37:38:39 rescale.rounding_mode=DOUBLE_ROUND rescale.output_zp=-1";
    const QuantizedResult p = run("tosa_rescale", dw);
    ASSERT_TRUE(p.ok()) << p.error->message;
    EXPECT_EQ(p.rule, Requantization::double_rounding);
    const auto pm = output_multipliers(p.descriptor, p.descriptor.channel_scales);
    ASSERT_EQ(pm.size(), 4u);
    EXPECT_EQ(pm[0], std::ldexp(1610612736.0, -36));
    EXPECT_EQ(pm[3], std::ldexp(1879048192.0, -39));
    EXPECT_EQ(p.descriptor.conv.groups, 2);
}

TEST(TosaRescale, Refusals) {
    const std::string c = kConv;
    expect_refused("tosa_rescale", c + "rescale.multiplier=536870912 rescale.shift=32 rescale.rounding_mode=DOUBLE_ROUND",
                   "rescale.rounding_mode", "another rule, which convcheck does not have", false);
    expect_refused("tosa_rescale", c + "rescale.multiplier=1073741824 rescale.shift=33 rescale.input_zp=3",
                   "rescale.input_zp", "ERROR_IF(!is_same<in_t,i8_t>() && (!is_same<in_t,i16_t>()", true);
    expect_refused("tosa_rescale", c + "rescale.multiplier=8192 rescale.shift=16 rescale.scale32=false rescale.double_round=true",
                   "rescale.double_round", "ERROR_IF(!scale32 && (rounding_mode == DOUBLE_ROUND))", true);
    expect_refused("tosa_rescale", c + "rescale.multiplier=1073741824 rescale.shift=1", "rescale.shift",
                   "REQUIRE(2 <= shift && shift <= 62)", true);
    expect_refused("tosa_rescale", c + "rescale.multiplier=1073741824 rescale.shift=20", "rescale.shift",
                   "REQUIRE(value >= (-1 << (shift - 1)) && value < (1 << (shift - 1))): this convolution's accumulator "
                   "reaches 631944", true);
    // 631944 < 2^20: shift 21 holds every value; with a bias (any i32) no shift below 32 does
    EXPECT_TRUE(run("tosa_rescale", c + "rescale.multiplier=1073741824 rescale.shift=21").ok());
    expect_refused("tosa_rescale", c + "bias=4 rescale.multiplier=1073741824 rescale.shift=31", "rescale.shift",
                   "reaches 2147483647 (any i32 bias), past 2^30", true);
    expect_refused("tosa_rescale", c + "rescale.multiplier=1073741824 rescale.shift=33 rescale.output_unsigned=true",
                   "rescale.output_unsigned", "ERROR_IF(is_same<in_t,i32_t>() && output_unsigned)", true);
    expect_refused("tosa_rescale", c + "rescale.multiplier=2147483647 rescale.shift=40", "rescale.multiplier",
                   "its odd part does not split into two factors of at most 24 bits", false);
    expect_refused("tosa_rescale", c + "rescale.multiplier=1:2 rescale.shift=33", "rescale.multiplier", "shape [NC]", false);
    expect_refused("tosa_rescale", c + "rescale.multiplier=0 rescale.shift=33", "rescale.multiplier", "M = 0", false);
    expect_refused("tosa_rescale", "op=CONV2D c=4 o=4 in=6x6 k=3x3 stride=2x2 input_zp=-200 rescale.multiplier=1 rescale.shift=40",
                   "stride", "ERROR_IF(OH != idiv_check", true);
    expect_refused("tosa_rescale", "op=CONV2D c=4 o=4 in=7x7 k=3x3 input_zp=-200 rescale.multiplier=1 rescale.shift=40",
                   "input_zp", "[-128, 127]", false);
}
