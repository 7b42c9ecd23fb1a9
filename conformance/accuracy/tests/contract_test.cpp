// The accuracy contract: the bound holds for an honest f32 summation in any order, catches a
// wrong answer, and the exact-mode fills are exact in the declared types whatever the order.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;
using namespace convcheck::accuracy;

namespace {

// A plain float convolution over canonical arrays whose tap order is shuffled per output (seeded),
// standing in for a backend that sums in some other order, with accumulation in T.
template <typename Acc>
std::vector<double> shuffled_float_conv(const ConvDescriptor& d, const std::vector<double>& src,
                                        const std::vector<double>& wei, const std::vector<double>& bias,
                                        std::uint64_t seed) {
    // reuse the reference to enumerate products: run it per output with one-hot weights would be slow;
    // instead compute the products directly (NCX/OIX, rank lifted to 3).
    std::mt19937_64 rng(seed);
    const int shift = 3 - d.rank;
    std::int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, pb[3] = {0, 0, 0}, out[3] = {1, 1, 1};
    for (int a = 0; a < d.rank; ++a) {
        in[shift + a] = d.input_size[a]; k[shift + a] = d.kernel_size[a]; s[shift + a] = d.strides[a];
        dl[shift + a] = d.dilations[a]; pb[shift + a] = d.pads_begin[a]; out[shift + a] = d.output_size(a);
    }
    const std::int64_t ICG = d.in_channels_per_group(), OCG = d.out_channels_per_group();
    std::vector<double> dst;
    for (std::int64_t n = 0; n < d.batch; ++n)
    for (std::int64_t oc = 0; oc < d.out_channels; ++oc)
    for (std::int64_t od = 0; od < out[0]; ++od)
    for (std::int64_t oh = 0; oh < out[1]; ++oh)
    for (std::int64_t ow = 0; ow < out[2]; ++ow) {
        std::vector<Acc> products;
        const std::int64_t g = oc / OCG;
        for (std::int64_t ic = 0; ic < ICG; ++ic)
        for (std::int64_t kd = 0; kd < k[0]; ++kd)
        for (std::int64_t kh = 0; kh < k[1]; ++kh)
        for (std::int64_t kw = 0; kw < k[2]; ++kw) {
            const std::int64_t id = od * s[0] - pb[0] + kd * dl[0], ih = oh * s[1] - pb[1] + kh * dl[1],
                               iw = ow * s[2] - pb[2] + kw * dl[2];
            if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] || iw < 0 || iw >= in[2]) continue;
            const Acc x = Acc(src[((((n * d.in_channels + g * ICG + ic) * in[0] + id) * in[1] + ih) * in[2] + iw)]);
            const Acc w = Acc(wei[(((oc * ICG + ic) * k[0] + kd) * k[1] + kh) * k[2] + kw]);
            products.push_back(x * w);
        }
        std::shuffle(products.begin(), products.end(), rng);
        Acc sum = d.has_bias ? Acc(bias[oc]) : Acc(0);
        for (Acc p : products) sum += p;
        dst.push_back(round_to(d.dtype, double(sum)));
    }
    return dst;
}

// A bf16 accumulator (libtorch's slow paths on a CPU without AVX-512, docs/backends.md T3): every addition rounds to
// bf16. Products of bf16 values are exact in double; `rounded_products` rounds each to bf16 before it is added (the
// dot product of Jeannerod and Rump), otherwise it is added exactly and the sum rounds once (an FMA: Lange and Rump).
template <bool rounded_products>
struct Bf16Sum {
    double v = 0.0;
    Bf16Sum(double x = 0.0) : v(x) {}
    friend Bf16Sum operator*(Bf16Sum a, Bf16Sum b) {
        return Bf16Sum(rounded_products ? round_to(DataType::bf16, a.v * b.v) : a.v * b.v);
    }
    Bf16Sum& operator+=(Bf16Sum p) {
        v = round_to(DataType::bf16, v + p.v);
        return *this;
    }
    explicit operator double() const { return v; }
};

// The fill summed in bf16 in a shuffled order, with exact (FMA) and with rounded products, each compared with the
// bound of a declared bf16 accumulation.
std::vector<std::pair<std::string, Comparison>> bf16_accumulations(const ConvDescriptor& d, const RandomFill& f,
                                                                   std::uint64_t seed) {
    const auto want = reference::convolution_summation(d, f.src, f.weights, f.bias);
    const Contract c{DataType::bf16, DataType::bf16};
    const auto judge = [&](const std::vector<double>& got) {
        return compare_bound(c, want.dst, want.magnitude, want.terms, got);
    };
    return {{"FMA", judge(shuffled_float_conv<Bf16Sum<false>>(d, f.src, f.weights, f.bias, seed))},
            {"rounded products", judge(shuffled_float_conv<Bf16Sum<true>>(d, f.src, f.weights, f.bias, seed))}};
}

}  // namespace

// phi_n (convcheck/core/rounding_error.hpp): the smaller of Higham's gamma_n and the order-free n u with four
// roundings after the sum; never above gamma_n, gamma_n itself below n = 4, and about n u.
TEST(Contract, TheAccumulationFactorIsTheSmallerOfTwoProvenBounds) {
    const double u8 = std::ldexp(1.0, -8), u24 = std::ldexp(1.0, -24);
    for (const double u : {u8, std::ldexp(1.0, -11), u24})
        for (std::int64_t n = 1; n < 4096; ++n) {
            ASSERT_LE(accumulation_factor(n, u), gamma(n, u)) << n << " " << u;
            ASSERT_GE(accumulation_factor(n, u), double(n) * u) << n << " " << u;
        }
    EXPECT_EQ(accumulation_factor(3, u8), gamma(3, u8));
    EXPECT_DOUBLE_EQ(accumulation_factor(145, u8), (1.0 + 141.0 * u8) * std::pow(1.0 + u8, 4) - 1.0);
    EXPECT_NEAR(accumulation_factor(145, u8), 0.5751, 1e-4);  // gamma_145(2^-8) = 1.306 admits anything
    EXPECT_GE(accumulation_factor(256, u8), 1.0);              // n u = 1: vacuous (finite, where gamma is not)
    EXPECT_LT(accumulation_factor(10, u24), 10.0 * u24 * (1.0 + 1e-6));
}

// The sharpness the factor stands on: 1 followed by k terms of 2^-8, each a tie that a bf16 sum rounds back to 1,
// errs by k u / (1 + k u) of M; a factor of n u / 2 would call that honest sum wrong.
TEST(Contract, ABf16SumOfTiesIsWithinTheFactorAndNearIt) {
    const double u = std::ldexp(1.0, -8);
    for (const std::int64_t k : {4, 31, 144, 200}) {
        Bf16Sum<false> s(1.0);
        for (std::int64_t i = 0; i < k; ++i) s += Bf16Sum<false>(u);
        const double exact = 1.0 + double(k) * u, error = exact - double(s);
        EXPECT_EQ(double(s), 1.0);
        EXPECT_LE(error, accumulation_factor(k + 1, u) * exact) << k;
        EXPECT_GT(error, 0.5 * accumulation_factor(k + 1, u) * exact) << k;
    }
}

// An honest bf16 accumulation in any order, with rounded or exact (FMA) products, passes the bound of its declared
// accumulation (random descriptors: mostly short sums).
RC_GTEST_PROP(Contract, AnHonestBf16AccumulationInAnyOrderIsWithinTheBound, ()) {
    ConvDescriptor d = *testgen::valid_descriptor();
    d.dtype = DataType::bf16;
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint32_t>();
    for (const auto& [how, r] : bf16_accumulations(d, make_random_fill(d, seed), seed))
        if (!r.passed())
            RC_FAIL(to_string(d) + " seed " + std::to_string(seed) + ": worst fraction " +
                    std::to_string(r.max_bound_fraction) + " (" + how + ")");
}

// The same on layers of 145 and 217 terms (n u = 0.57 and 0.85, where gamma_n >= 1), on random data and on its
// absolute values (every error in one direction, the worst case of a one-signed sum).
TEST(Contract, AnHonestBf16AccumulationOfHundredsOfTermsIsWithinTheBound) {
    for (const char* text : {"c=16,o=4,in=6x6,k=3x3,bias=1,dt=bf16", "c=24,o=4,in=6x6,k=3x3,dt=bf16"})
        for (std::uint64_t seed = 1; seed <= 4; ++seed)
            for (const bool one_signed : {false, true}) {
                const ConvDescriptor d = parse_descriptor(text);
                RandomFill f = make_random_fill(d, seed);
                if (one_signed)
                    for (auto* values : {&f.src, &f.weights, &f.bias})
                        for (double& v : *values) v = std::fabs(v);
                for (const auto& [how, r] : bf16_accumulations(d, f, seed)) {
                    EXPECT_TRUE(r.passed()) << text << " seed " << seed << (one_signed ? " one-signed" : "") << " ("
                                            << how << "): worst fraction " << r.max_bound_fraction;
                    EXPECT_EQ(r.statistics.vacuous_outputs, 0) << text;
                }
            }
}

TEST(Contract, GammaIsTheStandardConstant) {
    EXPECT_DOUBLE_EQ(gamma(1, 0.5), 1.0);
    EXPECT_DOUBLE_EQ(gamma(10, std::ldexp(1.0, -24)), 10 * std::ldexp(1.0, -24) / (1 - 10 * std::ldexp(1.0, -24)));
    EXPECT_TRUE(std::isinf(gamma(256, std::ldexp(1.0, -8))));
}

RC_GTEST_PROP(Contract, AnHonestFloatSumInAnyOrderIsWithinTheBound, ()) {
    const ConvDescriptor d = *testgen::valid_descriptor();
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint32_t>();
    RC_TAG(to_string(d.dtype));
    const RandomFill fill = make_random_fill(d, seed);
    const auto want = reference::convolution_summation(d, fill.src, fill.weights, fill.bias);
    const auto got = shuffled_float_conv<float>(d, fill.src, fill.weights, fill.bias, seed);
    const Contract c{d.dtype, DataType::f32};
    const Comparison r = compare_bound(c, want.dst, want.magnitude, want.terms, got);
    if (!r.passed())
        RC_FAIL(to_string(d) + " seed " + std::to_string(seed) + ": worst fraction " + std::to_string(r.max_bound_fraction));
}

RC_GTEST_PROP(Contract, ExactFillsAreExactInAnyOrder, ()) {
    const ConvDescriptor d = *testgen::valid_descriptor();
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint32_t>();
    const Contract c{d.dtype, DataType::f32};
    const ExactFill fill = make_exact_fill(d, c, seed);
    const auto want = reference::convolution_summation(d, fill.src, fill.weights, fill.bias);
    const auto got = shuffled_float_conv<float>(d, fill.src, fill.weights, fill.bias, seed);
    const Comparison r = compare_exact(want.dst, got);
    RC_ASSERT(r.passed());
}

TEST(Contract, ExactFillSizesTheSumToTheNarrowestType) {
    const ConvDescriptor d = parse_descriptor("c=64,o=4,in=5x5,k=3x3,bias=1,dt=bf16");
    const ExactFill f = make_exact_fill(d, Contract{DataType::bf16, DataType::f32}, 1);
    // bf16 has 8 significand bits: |sum| <= bias + L*3*2 < 256
    EXPECT_LT(f.max_bias + f.max_nonzero_taps * f.max_src * f.max_weight, 256);
    EXPECT_GT(f.max_nonzero_taps, 0);
    for (std::int64_t o = 0; o < 4; ++o) {
        const auto row = std::span(f.weights).subspan(o * 576, 576);
        EXPECT_LE(std::count_if(row.begin(), row.end(), [](double w) { return w != 0; }), f.max_nonzero_taps);
    }
}

TEST(Contract, AWrongAnswerFailsAndTheWorstIsReported) {
    const std::vector<double> want{1.0, 2.0, 3.0}, magnitude{1.0, 2.0, 3.0};
    const std::vector<std::int64_t> terms{1, 1, 1};
    const Contract c{DataType::f32, DataType::f32};
    std::vector<double> got = want;
    got[1] = 2.0 + 2 * error_bound(c, 2.0, 2.0, 1);
    const Comparison r = compare_bound(c, want, magnitude, terms, got);
    EXPECT_EQ(r.mismatches, 1);
    EXPECT_EQ(r.worst_index, 1);
    EXPECT_NEAR(r.max_bound_fraction, 2.0, 1e-9);
    EXPECT_EQ(r.bound_fraction_histogram[10], 1);
    got[1] = 2.0;
    got[2] = std::nan("");
    const Comparison nan = compare_bound(c, want, magnitude, terms, got);
    EXPECT_EQ(nan.mismatches, 1);
    EXPECT_EQ(nan.first_mismatch, 2);
    EXPECT_TRUE(std::isinf(nan.max_bound_fraction));
}

TEST(Contract, OverflowToInfinityIsRightWhenTheExactValueOverflows) {
    const Contract c{DataType::f16, DataType::f32};
    const std::vector<double> want{70000.0}, magnitude{70000.0};
    const std::vector<std::int64_t> terms{2};
    EXPECT_TRUE(compare_bound(c, want, magnitude, terms, std::vector<double>{INFINITY}).passed());
    EXPECT_FALSE(compare_bound(c, want, magnitude, terms, std::vector<double>{-INFINITY}).passed());
}

// A declared saturating fp8 conversion (docs/fp8.md): past the range the right answer is the largest normal, sign
// kept; the non-saturating NaN or infinity then fails, and without the declaration the clamp fails instead.
TEST(Contract, ADeclaredSaturatingFp8ConversionJudgesTheOverflowByItsRule) {
    Contract sat{DataType::f8_e4m3, DataType::f32};
    sat.fp8_overflow = Fp8Overflow::saturating;
    Contract plain{DataType::f8_e4m3, DataType::f32};
    const std::vector<double> want{500.0, -1000.0, 100.0}, magnitude{500.0, 1000.0, 100.0};
    const std::vector<std::int64_t> terms{4, 4, 4};
    const std::vector<double> clamped{448.0, -448.0, 96.0}, overflowed{NAN, NAN, 96.0};
    EXPECT_TRUE(compare_bound(sat, want, magnitude, terms, clamped).passed());
    EXPECT_FALSE(compare_bound(sat, want, magnitude, terms, overflowed).passed());
    EXPECT_TRUE(compare_bound(plain, want, magnitude, terms, overflowed).passed());
    EXPECT_FALSE(compare_bound(plain, want, magnitude, terms, clamped).passed());
    EXPECT_FALSE(compare_bound(sat, want, magnitude, terms, std::vector<double>{-448.0, 448.0, 96.0}).passed());
    EXPECT_EQ(round_to_output(sat, 500.0), 448.0);
    EXPECT_TRUE(std::isnan(round_to_output(plain, 500.0)));
    EXPECT_EQ(bound_name(sat), "fp8_saturating");
    EXPECT_EQ(bound_name(plain), "per_output");
    Contract e5m2{DataType::f8_e5m2, DataType::f32};
    e5m2.fp8_overflow = Fp8Overflow::saturating;
    const std::vector<double> big{70000.0}, big_magnitude{70000.0};
    const std::vector<std::int64_t> two{2};
    EXPECT_TRUE(compare_bound(e5m2, big, big_magnitude, two, std::vector<double>{57344.0}).passed());
    EXPECT_FALSE(compare_bound(e5m2, big, big_magnitude, two, std::vector<double>{INFINITY}).passed());
    EXPECT_EQ(round_to_output(e5m2, -INFINITY), -57344.0);
    // the declaration is about fp8 outputs only: an f16 output keeps IEEE's overflow to infinity
    Contract f16{DataType::f16, DataType::f32};
    f16.fp8_overflow = Fp8Overflow::saturating;
    EXPECT_EQ(bound_name(f16), "per_output");
    EXPECT_TRUE(compare_bound(f16, big, big_magnitude, two, std::vector<double>{INFINITY}).passed());
}

// The comparison is the one place an output passes or fails: it names every failing output to on_mismatch, once and
// in order, and no other (the runner counts where failures lie from these calls alone).
TEST(Contract, EveryFailingOutputIsNamedOnceInOrder) {
    const Contract c{DataType::f32, DataType::f32};
    const std::vector<double> want{1.0, 2.0, 3.0, 4.0}, magnitude{1.0, 2.0, 3.0, 4.0};
    const std::vector<std::int64_t> terms{1, 1, 1, 1};
    const std::vector<double> got{1.0, 2.0 + 2 * error_bound(c, 2.0, 2.0, 1), 3.0, std::nan("")};
    std::vector<std::int64_t> named;
    const auto name = [&named](std::int64_t i) { named.push_back(i); };
    const Comparison bound = compare_bound(c, want, magnitude, terms, got, name);
    EXPECT_EQ(named, (std::vector<std::int64_t>{1, 3}));
    EXPECT_EQ(static_cast<std::int64_t>(named.size()), bound.mismatches);
    named.clear();
    const Comparison exact = compare_exact(want, std::vector<double>{1.0, 2.0, 3.5, 4.0}, name);
    EXPECT_EQ(named, (std::vector<std::int64_t>{2}));
    EXPECT_EQ(exact.mismatches, 1);
    named.clear();
    EXPECT_TRUE(compare_exact(want, want, name).passed());
    EXPECT_TRUE(named.empty());
}
