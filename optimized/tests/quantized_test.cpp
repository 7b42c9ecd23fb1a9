// The optimized quantized convolution (quantized_plan.hpp) equals the literal reference
// (reference/quantized_convolution.hpp, quantized_output.hpp) output for output, under each of the four rules,
// for random descriptors of every geometry, both data formats, OIX and XIO weights, every integer type pair, zero
// points, per-tensor and per-channel dyadic scales, a narrowed output range and an s32 dst. Integer sums are
// exact: any difference is a bug.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "convcheck/core/memory_layout.hpp"
#include "convcheck/optimized/quantized_plan.hpp"
#include "convcheck/reference/quantized_convolution.hpp"
#include "convcheck/reference/quantized_output.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;

namespace {

constexpr reference::Requantization kRule[] = {
    reference::Requantization::double_rounding, reference::Requantization::single_rounding,
    reference::Requantization::nearest_even_f32, reference::Requantization::nearest_even_f32_with_zero_point};
constexpr optimized::QuantizedRounding kRounding[] = {
    optimized::QuantizedRounding::double_rounding, optimized::QuantizedRounding::single_rounding,
    optimized::QuantizedRounding::nearest_even_f32, optimized::QuantizedRounding::nearest_even_f32_with_zero_point};

void store(std::vector<unsigned char>& bytes, IntegerType t, std::int64_t i, std::int64_t v) {
    if (t == IntegerType::s32) {
        const auto x = static_cast<std::int32_t>(v);
        std::memcpy(bytes.data() + 4 * i, &x, 4);
    } else {
        bytes[static_cast<std::size_t>(i)] = static_cast<unsigned char>(static_cast<std::int8_t>(v));
    }
}
std::int64_t load(const std::vector<unsigned char>& bytes, IntegerType t, std::int64_t i) {
    if (t == IntegerType::u8) return bytes[static_cast<std::size_t>(i)];
    if (t == IntegerType::s8) return static_cast<std::int8_t>(bytes[static_cast<std::size_t>(i)]);
    std::int32_t x = 0;
    std::memcpy(&x, bytes.data() + 4 * i, 4);
    return x;
}


// The plan's output against the reference's for canonical integers src, weights, bias under rule kRule[rule]: ""
// when every output is equal, "overflow" when a sum leaves s32, else the first differing output.
std::string first_mismatch(const QuantizedDescriptor& q, const std::vector<float>& scales, const std::vector<std::int32_t>& src,
                           const std::vector<std::int32_t>& weights, const std::vector<std::int32_t>& bias, int rule,
                           int threads, std::string* implementation = nullptr) {
    const ConvDescriptor& d = q.conv;
    std::vector<unsigned char> src_bytes(src.size()), weight_bytes(weights.size());
    for_each_element(d, TensorRole::src, [&](std::int64_t flat, std::int64_t at) { store(src_bytes, q.src, at, src[flat]); });
    for_each_element(d, TensorRole::weights, [&](std::int64_t flat, std::int64_t at) { store(weight_bytes, q.weights, at, weights[flat]); });
    const std::vector<std::int32_t> szp{q.src_zero_point};
    const std::vector<std::int32_t> wzp = q.per_channel_weights_zero_points ? q.weights_zero_points
                                                                            : std::vector<std::int32_t>{q.weights_zero_point};
    const auto sums = reference::integer_convolution_sum(d, {src, weights, bias, szp, wzp});
    if (!reference::fits_int32_accumulator(sums)) return "overflow";
    const auto m = reference::output_multipliers(q, scales);
    std::int64_t spatial = 1;
    for (int a = 0; a < d.rank; ++a) spatial *= d.output_size(a);
    const optimized::QuantizedPlan plan(q, scales, weight_bytes.data(), d.has_bias ? bias.data() : nullptr,
                                        {.threads = threads, .rounding = kRounding[rule]});
    if (implementation) *implementation = plan.implementation();
    std::vector<unsigned char> dst(static_cast<std::size_t>(d.dst_elements() * (q.dst == IntegerType::s32 ? 4 : 1)));
    plan.execute(src_bytes.data(), dst.data());
    std::string first;
    for_each_element(d, TensorRole::dst, [&](std::int64_t flat, std::int64_t at) {
        const double multiplier = m[static_cast<std::size_t>((flat / spatial) % d.out_channels)];
        const std::int64_t want = reference::quantized_output(q, sums.acc[flat], multiplier, kRule[rule]);
        const std::int64_t got = load(dst, q.dst, at);
        if (got != want && first.empty())
            first = to_string(q) + " rule " + std::to_string(rule) + ": output " + std::to_string(flat) + " is " +
                    std::to_string(got) + ", want " + std::to_string(want) + " (acc " + std::to_string(sums.acc[flat]) + ")";
    });
    return first;
}

}  // namespace

RC_GTEST_PROP(QuantizedPlan, EqualsTheReferenceUnderEachRule, ()) {
    QuantizedDescriptor q;
    q.conv = *testgen::valid_descriptor();
    q.conv.src_strides.clear(), q.conv.weights_strides.clear(), q.conv.dst_strides.clear();
    q.conv.pass = Pass::forward;
    if (q.conv.filter_format == FilterFormat::oxi) q.conv.filter_format = FilterFormat::oix;
    const IntegerType types[] = {IntegerType::u8, IntegerType::s8};
    q.src = types[*rc::gen::inRange(0, 2)];
    q.weights = types[*rc::gen::inRange(0, 2)];
    q.dst = *rc::gen::element(IntegerType::u8, IntegerType::s8, IntegerType::s32);
    q.src_zero_point = static_cast<std::int32_t>(*rc::gen::inRange<std::int64_t>(lowest(q.src), highest(q.src) + 1));
    // half the cases without a weights zero point: the VNNI path's (quantized_vnni.hpp) where the weights are s8
    if (*rc::gen::arbitrary<bool>())
        q.weights_zero_point = static_cast<std::int32_t>(*rc::gen::inRange<std::int64_t>(lowest(q.weights), highest(q.weights) + 1));
    // a quarter with one weights zero point per output channel (ABI 1.8), given
    q.per_channel_weights_zero_points = *rc::gen::inRange(0, 4) == 0;
    for (std::int64_t o = 0; q.per_channel_weights_zero_points && o < q.conv.out_channels; ++o)
        q.weights_zero_points.push_back(
            static_cast<std::int32_t>(*rc::gen::inRange<std::int64_t>(lowest(q.weights), highest(q.weights) + 1)));
    if (q.per_channel_weights_zero_points) q.weights_zero_point = 0;
    q.dst_min = lowest(q.dst), q.dst_max = highest(q.dst);
    if (q.dst != IntegerType::s32) {
        q.src_scale = std::ldexp(float(*rc::gen::inRange(1, 16)), -*rc::gen::inRange(0, 6));
        q.dst_scale = std::ldexp(1.0f, *rc::gen::inRange(0, 10));
        q.dst_zero_point = static_cast<std::int32_t>(*rc::gen::inRange<std::int64_t>(lowest(q.dst), highest(q.dst) + 1));
        if (*rc::gen::arbitrary<bool>()) {  // a fused activation's range
            q.dst_min = *rc::gen::inRange<std::int64_t>(lowest(q.dst), q.dst_zero_point + 1);
            q.dst_max = *rc::gen::inRange<std::int64_t>(q.dst_min, highest(q.dst) + 1);
        }
    }
    try {
        validate(q);
    } catch (const ConvError&) {
        RC_DISCARD("an s32 accumulator could overflow");
    }
    const ConvDescriptor& d = q.conv;
    std::vector<float> scales;
    const bool per_channel = q.dst != IntegerType::s32 && *rc::gen::arbitrary<bool>();
    for (std::int64_t o = 0; o < (per_channel ? d.out_channels : 1); ++o)
        scales.push_back(q.dst == IntegerType::s32 ? 1.0f : std::ldexp(float(*rc::gen::inRange(1, 16)), -*rc::gen::inRange(0, 9)));
    q.per_channel_scales = per_channel;
    q.weights_scale = scales.front();
    // canonical integers, and the same in the descriptor's layouts
    std::vector<std::int32_t> src(static_cast<std::size_t>(d.src_elements())), weights(static_cast<std::size_t>(d.weights_elements())), bias;
    for (auto& v : src) v = static_cast<std::int32_t>(*rc::gen::inRange<std::int64_t>(lowest(q.src), highest(q.src) + 1));
    for (auto& v : weights) v = static_cast<std::int32_t>(*rc::gen::inRange<std::int64_t>(lowest(q.weights), highest(q.weights) + 1));
    for (std::int64_t o = 0; d.has_bias && o < d.out_channels; ++o) bias.push_back(*rc::gen::inRange(-300, 301));
    const int rule = *rc::gen::inRange(0, 4);
    const std::string mismatch = first_mismatch(q, scales, src, weights, bias, rule, *rc::gen::inRange(1, 3));
    RC_PRE(mismatch != "overflow");
    RC_ASSERT(mismatch == "");
}

// Per-output-channel weights scales k/64 (k = 1 + o % 7), or 1 for an s32 dst (no requantization).
std::vector<float> scales_k_64(const QuantizedDescriptor& q) {
    if (q.dst == IntegerType::s32) return {1.0f};
    std::vector<float> scales;
    for (std::int64_t o = 0; o < q.conv.out_channels; ++o) scales.push_back(std::ldexp(float(1 + o % 7), -6));
    return scales;
}

// The VNNI path's blocks and tails (quantized_vnni.hpp): output channels in 1 to 5 blocks of 16 and not a multiple
// of 16, rows wider than a tile, groups whose channels are not a multiple of 4, depthwise channels not a multiple of
// 16, a depth multiplier, strides, dilations, negative and uneven pads, ranks 1 to 3, both formats, an s8 src moved
// to u8 (with its zero point in the padding), an s32 dst; random data and the largest magnitudes, every rule, one and
// two threads. On a CPU with AVX-512 VNNI these run the VNNI path (checked), with AMX where the CPU has it and a
// group 32 input channels or more (CONVCHECK_NO_AMX=1: VPDPBUSD alone); elsewhere, and in the _without_avx512
// run, the int16 path.
TEST(QuantizedPlan, VnniBlocksAndTailsEqualTheReference) {
    const char* cases[] = {
        "qconv:n=2,c=64,o=80,in=9x13,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=7,dzp=3,ssc=0.5,dsc=64",
        "qconv:c=12,o=40,g=2,in=11x10,k=3x3,s=2x2,d=2x2,pb=2x1,pe=0x3,bias=1,data=nxc,wei=oix,dt=s8:s8:s8,szp=-5,dzp=-2,ssc=0.25,dsc=16",
        "qconv:c=40,o=40,g=40,in=15x15,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=s8:s8:u8,szp=-3,dzp=100,dsc=8",
        "qconv:n=2,c=8,o=16,g=8,in=7x9,k=3x3,pb=1x1,pe=1x1,data=ncx,wei=oix,dt=u8:s8:s8,szp=200,dsc=32",
        "qconv:c=20,o=33,in=30,k=5,pb=2,pe=2,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=128,dzp=128,dsc=64",
        "qconv:c=8,o=20,in=4x5x6,k=3x3x3,pb=1x1x1,pe=1x1x1,data=nxc,wei=xio,dt=s8:s8:s32,szp=1",
        "qconv:c=260,o=36,in=7x7,k=1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,ssc=0.125,dsc=128",
        "qconv:c=16,o=17,in=8x30,k=1x3,pb=-1x-1,pe=-1x2,bias=1,data=ncx,wei=oix,dt=s8:s8:u8,szp=-128,dsc=4",
        "qconv:c=24,o=24,g=24,in=6x40,k=5x5,d=2x2,pb=4x4,pe=4x4,bias=1,data=ncx,wei=oix,dt=u8:s8:s8,szp=9,dzp=-9,dsc=2",
        // VPDPBUSD tiles across output rows (DenseRow::pixel_offset): rows of 7 and 5 outputs at strides 2 and 1x3,
        // tiles of 6 and 12 pixels, a run longer than one
        "qconv:c=64,o=64,in=13x13,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=4,dsc=64",
        "qconv:c=16,o=24,in=40x15,k=3x3,s=1x3,pb=1x1,pe=1x1,data=nxc,wei=xio,dt=s8:s8:u8,szp=-6,dzp=9,dsc=16",
        // 32 output channels: two pixels' outputs packed together (dense_tile), tiles of 12 and an odd 3, with and
        // without a dst zero point (VPDPBUSD: fewer than 16 input channels)
        "qconv:c=12,o=32,in=7x9,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=s8:s8:u8,szp=-2,dzp=3,dsc=16",
        "qconv:c=8,o=32,in=5x9,k=1x3,pb=0x1,pe=0x1,bias=1,data=nxc,wei=xio,dt=u8:s8:s8,szp=6,dsc=8",
        // AMX's tiles (quantized_amx.cpp): 32 + 8 and 32 + 1 pixels, 3 blocks, 96 channels in two chunks of 64
        "qconv:c=96,o=48,in=5x40,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=s8:s8:s8,szp=-20,dzp=-7,ssc=0.5,dsc=256",
        "qconv:c=64,o=16,in=3x33,k=1x1,data=nxc,wei=xio,dt=u8:s8:s8,dzp=1,dsc=64",
        "qconv:c=32,o=136,in=3x20,k=1x1,data=nxc,wei=xio,dt=s8:s8:s8,szp=5,dzp=-3,dsc=32",
        "qconv:c=128,o=40,g=2,in=4x17,k=3x1,s=1x2,pb=1x0,pe=1x0,bias=1,data=nxc,wei=oix,dt=u8:s8:s32,szp=3",
        // AMX on a copy split into stride phases (quantized_vnni.cpp, copy_phase_row): both formats, uneven strides
        // and pads, a dilation, channels padded to 64, a 1x1 layer that reads one phase of four
        "qconv:c=96,o=20,in=9x11,k=3x3,s=2x3,pb=1x2,pe=0x1,bias=1,data=ncx,wei=oix,dt=s8:s8:s8,szp=-3,dzp=4,dsc=16",
        "qconv:c=40,o=36,in=12x13,k=3x3,s=2x2,d=2x2,pb=2x1,pe=2x3,data=nxc,wei=xio,dt=u8:s8:u8,szp=11,dsc=32",
        "qconv:c=64,o=32,in=9x10,k=1x1,s=2x2,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,dsc=32",
        // depthwise expanded rows (quantized_depthwise.cpp): units of 64 channels and tails of 1-16 (4 pixels per
        // vector), 17-32 (2) and 33-63 channels, widths not a multiple of those, kernel rows of more than 4 taps,
        // dilations, strides, negative pads, a 3-d ring of rows, both formats, u8 and s8 src with zero points
        "qconv:n=2,c=80,o=80,g=80,in=9x13,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=9,dzp=3,dsc=8",
        "qconv:c=20,o=20,g=20,in=7x12,k=1x7,s=1x2,d=1x2,pb=0x5,pe=0x4,data=nxc,wei=oix,dt=s8:s8:s8,szp=-7,dzp=5,dsc=16",
        "qconv:c=5,o=5,g=5,in=4x5x6,k=3x2x3,s=1x1x2,pb=1x0x1,pe=1x1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:s32,szp=200",
        "qconv:n=2,c=100,o=100,g=100,in=6x9,k=3x3,pb=-1x1,pe=1x-1,data=ncx,wei=oix,dt=s8:s8:u8,szp=-100,dsc=4",
        "qconv:c=150,o=150,g=150,in=23,k=5,d=2,pb=3,pe=2,bias=1,data=nxc,wei=xio,dt=u8:s8:s8,szp=255,dzp=-1,dsc=32",
        // units of exactly 32 and 16 channels (2 and 4 pixels per vector, read unmasked): odd widths, stride 2
        "qconv:c=96,o=96,g=96,in=9x11,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=s8:s8:u8,szp=-5,dsc=16",
        "qconv:c=32,o=32,g=32,in=7x11,k=3x3,pb=1x1,pe=1x1,data=ncx,wei=oix,dt=u8:s8:s8,szp=21,dzp=-4,dsc=8",
        "qconv:c=16,o=16,g=16,in=5x7,k=3x5,s=1x2,pb=1x2,pe=1x2,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=3,dsc=16",
        // rows wider than a column of expanded rows (quantized_depthwise.cpp, kRingBytes): 32 + 6 outputs at stride 2,
        // 64 + 64 + 12 with 2 pixels per vector
        "qconv:c=72,o=72,g=72,in=6x75,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=7,dzp=2,dsc=8",
        "qconv:c=24,o=24,g=24,in=3x140,k=3x3,pb=1x1,pe=1x1,data=nxc,wei=oix,dt=s8:s8:s8,szp=-9,dzp=1,dsc=4",
        // row runs (quantized_vnni.cpp; with AMX one A tile row per kernel row): one group of 1, 3 or 5 channels, a
        // kernel row's taps x channels summed as one run of bytes; strided rows, the plane's virtual pixels (unit
        // strides), both formats, both src types
        "qconv:c=3,o=20,in=11x13,k=5x7,s=2x2,pb=3x3,pe=3x2,bias=1,data=nxc,wei=oix,dt=u8:s8:u8,szp=17,dzp=5,dsc=64",
        "qconv:n=2,c=5,o=33,in=9x10,k=3x3,pb=1x1,pe=1x1,data=ncx,wei=xio,dt=s8:s8:s8,szp=-4,dzp=2,dsc=32",
        "qconv:c=1,o=17,in=40,k=9,s=3,pb=4,pe=4,data=nxc,wei=xio,dt=u8:s8:s32,szp=3",
        "qconv:c=3,o=64,in=12x12,k=7x7,pb=3x3,pe=3x3,bias=1,data=nxc,wei=oix,dt=s8:s8:u8,szp=-60,dsc=128",
        // without a dst zero point over the whole range: the saturating pack clamps below (Rounder::lean)
        "qconv:c=70,o=70,g=70,in=5x9,k=3x3,s=2x1,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=s8:s8:s8,szp=3,dsc=2",
    };
    const bool vnni = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
                      std::getenv("CONVCHECK_NO_AVX512") == nullptr;
    std::mt19937 rng(7);
    for (const char* text : cases)
        for (bool largest : {false, true}) {
            const QuantizedDescriptor q = parse_quantized_descriptor(text);
            const ConvDescriptor& d = q.conv;
            const std::vector<float> scales = scales_k_64(q);
            std::vector<std::int32_t> src(static_cast<std::size_t>(d.src_elements())),
                weights(static_cast<std::size_t>(d.weights_elements())), bias;
            const auto draw = [&](IntegerType t) {
                return static_cast<std::int32_t>(std::uniform_int_distribution<std::int64_t>(lowest(t), highest(t))(rng));
            };
            for (auto& v : src) v = largest ? static_cast<std::int32_t>(highest(q.src)) : draw(q.src);
            for (auto& v : weights) v = largest ? static_cast<std::int32_t>(lowest(q.weights)) : draw(q.weights);
            for (std::int64_t o = 0; d.has_bias && o < d.out_channels; ++o) bias.push_back(std::uniform_int_distribution<std::int32_t>(-3000, 3000)(rng));
            for (int rule = 0; rule < 4; ++rule)
                for (int threads : {1, 2}) {
                    std::string implementation;
                    const std::string mismatch = first_mismatch(q, scales, src, weights, bias, rule, threads, &implementation);
                    EXPECT_EQ(mismatch, "") << "threads " << threads << (largest ? ", largest magnitudes" : "");
                    if (vnni) {
                        EXPECT_TRUE(implementation.find("vnni") != std::string::npos ||
                                    implementation.find("amx") != std::string::npos)
                            << text << ": " << implementation;
                    }
                }
        }
}

// Random src over its type, s8 weights, an s32 bias in [-3000, 3000] where the case has one.
struct RandomData {
    std::vector<std::int32_t> src, weights, bias;
};
RandomData random_data(const QuantizedDescriptor& q, std::mt19937& rng) {
    const ConvDescriptor& d = q.conv;
    RandomData r{std::vector<std::int32_t>(static_cast<std::size_t>(d.src_elements())),
                 std::vector<std::int32_t>(static_cast<std::size_t>(d.weights_elements())), {}};
    for (auto& v : r.src) v = static_cast<std::int32_t>(std::uniform_int_distribution<std::int64_t>(lowest(q.src), highest(q.src))(rng));
    for (auto& v : r.weights) v = std::uniform_int_distribution<std::int32_t>(-128, 127)(rng);
    for (std::int64_t o = 0; d.has_bias && o < d.out_channels; ++o) r.bias.push_back(std::uniform_int_distribution<std::int32_t>(-3000, 3000)(rng));
    return r;
}

// Each case (per-channel scales k/64, one for an s32 dst) on random data equals the reference under each of `rules`
// (first_mismatch's numbering) at each of `threads`.
template <std::size_t N>
void expect_the_reference(const char* const (&cases)[N], unsigned seed, std::initializer_list<int> rules,
                          std::initializer_list<int> threads) {
    std::mt19937 rng(seed);
    for (const char* text : cases) {
        const QuantizedDescriptor q = parse_quantized_descriptor(text);
        const std::vector<float> scales = scales_k_64(q);
        const auto [src, weights, bias] = random_data(q, rng);
        for (int rule : rules)
            for (int t : threads)
                EXPECT_EQ(first_mismatch(q, scales, src, weights, bias, rule, t), "") << text << " rule " << rule << " threads " << t;
    }
}

// The f32 rules where acc * M passes 2^31 (the integer rules' left shift cannot hold it): without a dst zero point
// over the whole range (the depthwise and dense kernels' lean rounding, quantized_vnni_avx512.cpp), only the upper clamp
// keeps such a product from the conversion's out-of-range INT_MIN.
TEST(QuantizedPlan, F32RulesClampProductsPastInt32) {
    const char* cases[] = {
        "qconv:c=40,o=40,g=40,in=6x7,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=50,ssc=1048576,dsc=1",
        "qconv:c=90,o=90,g=90,in=5x8,k=3x3,pb=1x1,pe=1x1,data=nxc,wei=xio,dt=s8:s8:s8,szp=-9,ssc=1048576,dsc=1",
        // dense tiles of 64 output channels (quantized_vnni_avx512.cpp, dense_tile), the same lean rounding
        "qconv:c=64,o=128,in=6x7,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=50,ssc=1048576,dsc=1",
        "qconv:c=20,o=64,in=5x8,k=1x1,data=nxc,wei=xio,dt=s8:s8:s8,szp=-9,ssc=1048576,dsc=1",
        // every multiplier below 1 (k/64 x 9.125, up to 0.998) and the whole type's range: no clamp at all, the packs'
        // saturation holds the products past the type at both ends (Rounder::bare); with a narrowed range the clamp
        // stays
        "qconv:c=64,o=128,in=6x7,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=50,ssc=9.125,dsc=1",
        "qconv:c=20,o=64,in=5x8,k=1x1,data=nxc,wei=xio,dt=s8:s8:s8,szp=-9,ssc=9.125,dsc=1",
        "qconv:c=20,o=64,in=5x8,k=1x1,data=nxc,wei=xio,dt=u8:s8:u8,szp=9,ssc=9.125,dsc=1,hi=200",
    };
    expect_the_reference(cases, 11, {2, 3}, {1, 2});
}

// The dense layers' copies written row by row by the items that read them (quantized_vnni.cpp, RowsOnDemand), at
// more threads than two: rows wholly in the padding, a row's pads, channels padded between groups, the stride
// phases of an AMX copy (a phase no tap reads), row runs, VPDPBUSD windows across output rows, several images of a
// batch in one loop, channels first, a 3-d window, several chunks of 64 output channels read row by row with the
// chunks innermost (one image of 64 output pixels per thread or more, with and without phases); the same outputs as
// the reference at 3, 5 and 16 threads.
TEST(QuantizedPlan, VnniDenseCopiesWrittenOnDemandAtManyThreadsEqualTheReference) {
    const char* cases[] = {
        "qconv:n=3,c=64,o=80,in=19x13,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=s8:s8:u8,szp=7,dzp=3,ssc=0.5,dsc=64",
        "qconv:c=96,o=20,in=21x11,k=3x3,s=2x3,pb=1x2,pe=0x1,bias=1,data=ncx,wei=oix,dt=s8:s8:s8,szp=-3,dzp=4,dsc=16",
        "qconv:n=2,c=64,o=32,in=18x10,k=1x1,s=2x2,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,dsc=32",
        "qconv:c=3,o=20,in=31x13,k=5x7,s=2x2,pb=3x3,pe=3x2,bias=1,data=nxc,wei=oix,dt=u8:s8:u8,szp=17,dzp=5,dsc=64",
        "qconv:c=12,o=40,g=2,in=31x10,k=3x3,s=2x2,d=2x2,pb=2x1,pe=0x3,bias=1,data=nxc,wei=oix,dt=s8:s8:s8,szp=-5,dsc=16",
        "qconv:c=16,o=24,in=40x15,k=3x3,s=1x3,pb=1x1,pe=1x1,data=nxc,wei=xio,dt=s8:s8:u8,szp=-6,dzp=9,dsc=16",
        "qconv:c=8,o=20,in=6x5x6,k=3x3x3,pb=1x1x1,pe=1x1x1,data=nxc,wei=xio,dt=s8:s8:s32,szp=1",
        "qconv:c=64,o=136,in=24x14,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=s8:s8:u8,szp=-7,dzp=3,dsc=64",
        "qconv:c=64,o=80,in=36x30,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=5,dsc=32",
    };
    expect_the_reference(cases, 43, {3}, {3, 5, 16});
}

// The VPDPBUSD tiles' steps in the padding skipped (quantized_step_classes.cpp): border pixels sorted into classes
// of the steps they take, each class with its own compensation; an s8 src moved to u8 and src zero points (which a
// class's compensation carries), strides, a dilation reaching past a pad, a window wholly in the padding, groups,
// uneven and negative pads, a 3-d window, row runs, a u8 src read in place; the same outputs as the reference under each rule (the f32 rules
// fused into the tiles skip; the others take every step) at 1, 2 and 3 threads.
TEST(QuantizedPlan, VnniStepsInThePaddingSkippedEqualTheReference) {
    const char* cases[] = {
        "qconv:c=64,o=64,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=s8:s8:u8,szp=-7,dzp=3,dsc=64",
        "qconv:n=2,c=12,o=40,in=9x8,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:s8,szp=30,dzp=-2,dsc=16",
        "qconv:c=8,o=20,in=6x6,k=3x3,d=2x2,pb=3x3,pe=3x3,data=nxc,wei=oix,dt=u8:s8:u8,szp=200,dsc=32",
        "qconv:c=8,o=16,in=3x3,k=3x3,pb=3x3,pe=3x3,bias=1,data=nxc,wei=xio,dt=s8:s8:s8,szp=5,dzp=1,dsc=8",
        "qconv:c=12,o=40,g=2,in=11x10,k=3x3,pb=2x1,pe=0x3,bias=1,data=nxc,wei=oix,dt=s8:s8:s8,szp=-5,dzp=-2,dsc=16",
        "qconv:c=16,o=17,in=8x30,k=3x3,pb=-1x2,pe=1x-1,bias=1,data=nxc,wei=xio,dt=s8:s8:u8,szp=-128,dsc=4",
        "qconv:c=8,o=20,in=4x5x6,k=3x3x3,pb=1x1x1,pe=1x1x1,bias=1,data=nxc,wei=xio,dt=s8:s8:u8,szp=-3,dsc=16",
        "qconv:c=3,o=32,in=17x17,k=7x7,s=2x2,pb=3x3,pe=3x3,bias=1,data=nxc,wei=oix,dt=u8:s8:u8,szp=17,dzp=5,dsc=64",
        // a u8 channels-last src read where it lies (each group's channels a multiple of 4): windows whose origin
        // lies before the src or past a row's end, negative pads, groups, a 3-d window, a dilation past the pads
        "qconv:n=2,c=64,o=64,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=9,dzp=3,dsc=64",
        "qconv:c=16,o=17,in=8x30,k=3x3,pb=-1x2,pe=1x-1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=200,dsc=4",
        "qconv:c=16,o=24,g=2,in=9x9,k=3x3,s=2x2,pb=1x1,pe=1x1,data=nxc,wei=oix,dt=u8:s8:s8,szp=3,dzp=-1,dsc=16",
        "qconv:c=8,o=20,in=4x5x6,k=3x3x3,pb=1x1x1,pe=1x1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=30,dsc=16",
        "qconv:c=8,o=16,in=5x5,k=3x3,d=3x3,pb=4x4,pe=4x4,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=1,dsc=8",
    };
    expect_the_reference(cases, 48, {0, 1, 2, 3}, {1, 2, 3});
}

// One group of more than 64 channels, not a multiple of 64, on AMX (quantized_vnni.cpp, k_overrun_): the copy's
// pixels keep their channels (rounded up to 4) and the last K chunk reads on into the next pixel's; a u8 src read in
// place, whose last piece reads a copy of src's end (1x1; 3x3 without padding, its windows across rows), a copy with
// its slack (s8, several images, rows on demand), a phased copy; the same outputs as the reference at 1, 2 and 5
// threads under each rule.
TEST(QuantizedPlan, AmxChannelsPastLastChunkEqualTheReference) {
    const char* cases[] = {
        "qconv:n=2,c=144,o=24,in=9x11,k=1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,dsc=32",
        "qconv:c=100,o=40,in=7x9,k=3x3,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,dsc=64",
        "qconv:n=3,c=144,o=24,in=12x10,k=1x1,data=nxc,wei=xio,dt=s8:s8:s8,szp=-3,dsc=16",
        "qconv:c=136,o=40,in=13x9,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=5,dsc=32",
    };
    expect_the_reference(cases, 47, {0, 1, 2, 3}, {1, 2, 5});
}

// The depthwise tasks for more threads than two (quantized_depthwise.cpp, vnni_depthwise_cut): planes cut into
// chunks of rows, a chunk starting mid-plane (its ring of expanded rows started afresh), several columns per task,
// images and units split between threads; the same outputs as the reference at 3, 5 and 16 threads.
TEST(QuantizedPlan, VnniDepthwiseTasksAtManyThreadsEqualTheReference) {
    const char* cases[] = {
        "qconv:c=24,o=24,g=24,in=30x140,k=3x3,pb=1x1,pe=1x1,data=nxc,wei=oix,dt=s8:s8:s8,szp=-9,dzp=1,dsc=4",
        "qconv:n=2,c=100,o=100,g=100,in=6x9,k=3x3,pb=-1x1,pe=1x-1,data=ncx,wei=oix,dt=s8:s8:u8,szp=-100,dsc=4",
        "qconv:n=3,c=200,o=200,g=200,in=14x14,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:u8,szp=9,dsc=8",
        "qconv:c=5,o=5,g=5,in=8x5x6,k=3x2x3,s=1x1x2,pb=1x0x1,pe=1x1x1,bias=1,data=nxc,wei=xio,dt=u8:s8:s32,szp=200",
    };
    expect_the_reference(cases, 46, {3}, {3, 5, 16});
}
