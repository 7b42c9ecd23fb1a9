// The optimized quantized convolution (quantized_plan.hpp) equals the literal reference
// (reference/quantized_convolution.hpp, quantized_output.hpp) output for output, under each of the three rules,
// for random descriptors of every geometry, both data formats, OIX and XIO weights, every integer type pair, zero
// points, per-tensor and per-channel dyadic scales, a narrowed output range and an s32 dst. Integer sums are
// exact: any difference is a bug.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>
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
    q.weights_zero_point = static_cast<std::int32_t>(*rc::gen::inRange<std::int64_t>(lowest(q.weights), highest(q.weights) + 1));
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
    std::vector<unsigned char> src_bytes(src.size()), weight_bytes(weights.size());
    for_each_element(d, TensorRole::src, [&](std::int64_t flat, std::int64_t at) { store(src_bytes, q.src, at, src[flat]); });
    for_each_element(d, TensorRole::weights, [&](std::int64_t flat, std::int64_t at) { store(weight_bytes, q.weights, at, weights[flat]); });
    const std::vector<std::int32_t> szp{q.src_zero_point}, wzp{q.weights_zero_point};
    const auto sums = reference::integer_convolution_sum(d, {src, weights, bias, szp, wzp});
    RC_PRE(reference::fits_int32_accumulator(sums));
    const auto m = reference::output_multipliers(q, scales);
    std::int64_t spatial = 1;
    for (int a = 0; a < d.rank; ++a) spatial *= d.output_size(a);
    const int rule = *rc::gen::inRange(0, 4);
    const optimized::QuantizedPlan plan(q, scales, weight_bytes.data(), d.has_bias ? bias.data() : nullptr,
                                        {.threads = *rc::gen::inRange(1, 3), .rounding = kRounding[rule]});
    std::vector<unsigned char> dst(static_cast<std::size_t>(d.dst_elements() * (q.dst == IntegerType::s32 ? 4 : 1)));
    plan.execute(src_bytes.data(), dst.data());
    for_each_element(d, TensorRole::dst, [&](std::int64_t flat, std::int64_t at) {
        const double multiplier = m[static_cast<std::size_t>((flat / spatial) % d.out_channels)];
        const std::int64_t want = reference::quantized_output(q, sums.acc[flat], multiplier, kRule[rule]);
        RC_ASSERT(load(dst, q.dst, at) == want);
    });
}
