// The optimized quantized convolution (quantized_plan.hpp): weights packed once as int16 minus their zero
// point, [O][taps][I/G]; per image, src minus its zero point in a padded channels-last int16 copy with zeros in
// the padding; per output pixel and channel the exact int32 dot products over the taps, each a run of I/G
// contiguous int16 pairs (compiled at -O3: pmaddwd); then the bias and the requantization rule.
#include "convcheck/optimized/quantized_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/task_arena.h>

#include "convcheck/optimized/conv_plan.hpp"
#include "parallel_join.hpp"

namespace convcheck::optimized {

namespace {

using i64 = std::int64_t;

std::int64_t load(const void* data, IntegerType t, i64 i) {
    if (t == IntegerType::u8) return static_cast<const std::uint8_t*>(data)[i];
    if (t == IntegerType::s8) return static_cast<const std::int8_t*>(data)[i];
    return static_cast<const std::int32_t*>(data)[i];
}

void store(void* data, IntegerType t, i64 i, i64 v) {
    if (t == IntegerType::u8) static_cast<std::uint8_t*>(data)[i] = static_cast<std::uint8_t>(v);
    else if (t == IntegerType::s8) static_cast<std::int8_t*>(data)[i] = static_cast<std::int8_t>(v);
    else static_cast<std::int32_t*>(data)[i] = static_cast<std::int32_t>(v);
}

// The exact sum of n int16 products, in int32 (the descriptor's rule keeps every sum inside it).
std::int32_t dot(const std::int16_t* a, const std::int16_t* b, i64 n) {
    std::int32_t s = 0;
    for (i64 i = 0; i < n; ++i) s += std::int32_t{a[i]} * std::int32_t{b[i]};
    return s;
}

// M as a Q31 multiplier in [2^30, 2^31) and a shift: M = multiplier * 2^(shift - 31).
struct Q31 {
    std::int32_t multiplier = 0;
    int shift = 0;
};
Q31 q31_of(double m) {
    Q31 r;
    const double fraction = std::frexp(m, &r.shift);  // m = fraction * 2^shift, fraction in [0.5, 1)
    auto q = static_cast<i64>(std::round(std::ldexp(fraction, 31)));
    if (q == (i64{1} << 31)) q /= 2, ++r.shift;
    r.multiplier = static_cast<std::int32_t>(q);
    return r;
}

i64 round_double(std::int32_t acc, Q31 m) {
    // the high half of 2 * acc' * multiplier, ties toward +inf (acc' = acc * 2^max(shift, 0)), then a right shift by
    // max(-shift, 0), ties away from zero
    const int left = std::max(m.shift, 0), right = std::max(-m.shift, 0);
    if (right > 31) return 0;
    const i64 x = static_cast<i64>(static_cast<std::int32_t>(static_cast<std::uint32_t>(acc) << left));
    if (x == std::numeric_limits<std::int32_t>::min() && m.multiplier == std::numeric_limits<std::int32_t>::min())
        return std::numeric_limits<std::int32_t>::max();
    const i64 product = x * m.multiplier;
    const i64 nudge = product >= 0 ? (i64{1} << 30) : 1 - (i64{1} << 30);
    const i64 high = (product + nudge) / (i64{1} << 31);  // C++ division truncates toward zero
    if (right == 0) return high;
    const i64 mask = (i64{1} << right) - 1, remainder = high & mask, threshold = (mask >> 1) + (high < 0 ? 1 : 0);
    return (high >> right) + (remainder > threshold ? 1 : 0);
}

i64 round_single(std::int32_t acc, Q31 m) {
    const int right = 31 - m.shift;
    if (right > 62) return 0;
    return (i64{acc} * m.multiplier + (i64{1} << (right - 1))) >> right;  // an arithmetic shift: floor
}

}  // namespace

std::string_view to_string(QuantizedRounding rounding) {
    switch (rounding) {
        case QuantizedRounding::double_rounding: return "double_rounding";
        case QuantizedRounding::single_rounding: return "single_rounding";
        case QuantizedRounding::nearest_even_f32: return "nearest_even_f32";
        case QuantizedRounding::nearest_even_f32_with_zero_point: return "nearest_even_f32_with_zero_point";
    }
    return "?";
}

bool parse_quantized_rounding(std::string_view text, QuantizedRounding* rounding) {
    for (QuantizedRounding r : {QuantizedRounding::double_rounding, QuantizedRounding::single_rounding,
                                QuantizedRounding::nearest_even_f32, QuantizedRounding::nearest_even_f32_with_zero_point})
        if (text == to_string(r)) return *rounding = r, true;
    return false;
}

struct QuantizedPlan::Impl {
    QuantizedDescriptor q;
    QuantizedRounding rounding;
    i64 N = 1, C = 1, O = 1, ICg = 1, OCg = 1, taps = 1, in_spatial = 1, out_spatial = 1, padded_spatial = 1;
    i64 in[3]{1, 1, 1}, out[3]{1, 1, 1}, stride[3]{1, 1, 1}, padded[3]{1, 1, 1}, lead[3]{0, 0, 0}, crop[3]{0, 0, 0};
    std::vector<i64> tap_pixel;          // each tap's pixel offset in the padded copy from its window's origin
    std::vector<std::int16_t> weights;   // [O][taps][I/G], minus the weights' zero point
    std::vector<std::int32_t> bias;      // [O], 0 without one
    std::vector<double> multiplier;      // M(oc)
    std::vector<float> multiplier_f32;
    std::vector<Q31> multiplier_q31;
    std::unique_ptr<tbb::task_arena> arena;

    void run(const void* src, void* dst) const;
    i64 requantize(std::int32_t acc, i64 oc) const {
        if (q.dst == IntegerType::s32) return acc;
        i64 r = 0;
        switch (rounding) {
            case QuantizedRounding::double_rounding: r = round_double(acc, multiplier_q31[oc]); break;
            case QuantizedRounding::single_rounding: r = round_single(acc, multiplier_q31[oc]); break;
            case QuantizedRounding::nearest_even_f32:
                r = static_cast<i64>(std::nearbyint(static_cast<float>(acc) * multiplier_f32[oc]));
                break;
            case QuantizedRounding::nearest_even_f32_with_zero_point: {
                const float product = static_cast<float>(acc) * multiplier_f32[oc];
                const float sum = product + static_cast<float>(q.dst_zero_point);  // in f32, as oneDNN and ONNX add it
                return std::clamp<i64>(static_cast<i64>(std::nearbyint(sum)), q.dst_min, q.dst_max);
            }
        }
        return std::clamp<i64>(r + q.dst_zero_point, q.dst_min, q.dst_max);
    }
};

QuantizedPlan::QuantizedPlan(const QuantizedDescriptor& q, std::span<const float> weights_scales, const void* weights,
                             const std::int32_t* bias, QuantizedOptions options)
    : impl_(std::make_unique<Impl>()) {
    validate(q);
    if (std::string why = why_layout_unsupported(q.conv); !why.empty()) throw ConvError("layout", "strides or OXI", why);
    const ConvDescriptor& d = q.conv;
    if (weights == nullptr || (d.has_bias && bias == nullptr))
        throw ConvError(weights ? "bias" : "weights", "null", "buffers must not be null");
    if (weights_scales.size() != 1 && static_cast<i64>(weights_scales.size()) != d.out_channels)
        throw ConvError("weights_scales", std::to_string(weights_scales.size()), "one, or one per output channel");
    Impl& m = *impl_;
    m.q = q;
    m.rounding = options.rounding;
    m.N = d.batch, m.C = d.in_channels, m.O = d.out_channels, m.ICg = d.in_channels_per_group();
    m.OCg = d.out_channels_per_group();
    i64 kernel[3]{1, 1, 1}, dilation[3]{1, 1, 1};
    for (int a = 0; a < d.rank; ++a) {
        const int at = 3 - d.rank + a;  // the spatial axes lifted to three, the outer ones of extent 1
        m.in[at] = d.input_size[a], m.out[at] = d.output_size(a), m.stride[at] = d.strides[a];
        kernel[at] = d.kernel_size[a], dilation[at] = d.dilations[a];
        m.lead[at] = std::max<i64>(d.pads_begin[a], 0);   // zeros before the input in the copy
        m.crop[at] = std::max<i64>(-d.pads_begin[a], 0);  // inputs a negative begin pad skips
        m.padded[at] = m.lead[at] + d.input_size[a] + std::max<i64>(d.pads_end[a], 0);
    }
    for (int a = 0; a < 3; ++a) {
        m.in_spatial *= m.in[a], m.out_spatial *= m.out[a], m.padded_spatial *= m.padded[a], m.taps *= kernel[a];
    }
    for (i64 k0 = 0; k0 < kernel[0]; ++k0)
        for (i64 k1 = 0; k1 < kernel[1]; ++k1)
            for (i64 k2 = 0; k2 < kernel[2]; ++k2)
                m.tap_pixel.push_back(((k0 * dilation[0]) * m.padded[1] + k1 * dilation[1]) * m.padded[2] + k2 * dilation[2]);
    // weights in the filter format (OIX: [O][I/G][taps], XIO: [taps][I/G][O]) -> [O][taps][I/G] minus wzp
    m.weights.resize(static_cast<std::size_t>(m.O * m.taps * m.ICg));
    for (i64 o = 0; o < m.O; ++o)
        for (i64 i = 0; i < m.ICg; ++i)
            for (i64 t = 0; t < m.taps; ++t) {
                const i64 from = d.filter_format == FilterFormat::oix ? (o * m.ICg + i) * m.taps + t : (t * m.ICg + i) * m.O + o;
                m.weights[static_cast<std::size_t>((o * m.taps + t) * m.ICg + i)] =
                    static_cast<std::int16_t>(load(weights, q.weights, from) - q.weights_zero_point);
            }
    for (i64 o = 0; o < m.O; ++o) {
        m.bias.push_back(d.has_bias ? bias[o] : 0);
        const double scale = weights_scales[weights_scales.size() == 1 ? 0 : static_cast<std::size_t>(o)];
        m.multiplier.push_back(double(q.src_scale) * scale / double(q.dst_scale));
        m.multiplier_f32.push_back(static_cast<float>(m.multiplier.back()));
        m.multiplier_q31.push_back(q31_of(m.multiplier.back()));
    }
    if (options.threads > 0) m.arena = std::make_unique<tbb::task_arena>(options.threads);
}

QuantizedPlan::~QuantizedPlan() = default;
QuantizedPlan::QuantizedPlan(QuantizedPlan&&) noexcept = default;
QuantizedPlan& QuantizedPlan::operator=(QuantizedPlan&&) noexcept = default;

std::string QuantizedPlan::implementation() const {
    return std::string("optimized_int16_dot_") + std::string(to_string(impl_->rounding));
}

void QuantizedPlan::execute(const void* src, void* dst) const {
    if (src == nullptr || dst == nullptr) throw ConvError(src ? "dst" : "src", "null", "buffers must not be null");
    // the fork and join made visible to TSan (parallel_join.hpp): Debian's libtbb is not instrumented
    if (impl_->arena) detail::arena_execute_joined(*impl_->arena, [&] { impl_->run(src, dst); });
    else impl_->run(src, dst);
}

void QuantizedPlan::Impl::run(const void* src, void* dst) const {
    const bool nxc = q.conv.data_format == DataFormat::nxc;
    std::vector<std::int16_t> copy(static_cast<std::size_t>(padded_spatial * C));
    for (i64 n = 0; n < N; ++n) {
        // src minus its zero point, channels last, inside zeros: a padding tap reads 0 and adds nothing
        std::fill(copy.begin(), copy.end(), std::int16_t{0});
        detail::parallel_for_joined(tbb::blocked_range<i64>(0, in[0] * in[1]), [&](const tbb::blocked_range<i64>& rows) {
            for (i64 row = rows.begin(); row < rows.end(); ++row) {
                const i64 x0 = row / in[1], x1 = row % in[1];
                for (i64 x2 = 0; x2 < in[2]; ++x2) {
                    const i64 x = (x0 * in[1] + x1) * in[2] + x2;
                    const i64 pixel = ((x0 + lead[0]) * padded[1] + x1 + lead[1]) * padded[2] + x2 + lead[2];
                    for (i64 c = 0; c < C; ++c) {
                        const i64 from = nxc ? (n * in_spatial + x) * C + c : (n * C + c) * in_spatial + x;
                        copy[static_cast<std::size_t>(pixel * C + c)] =
                            static_cast<std::int16_t>(load(src, q.src, from) - q.src_zero_point);
                    }
                }
            }
        });
        detail::parallel_for_joined(tbb::blocked_range<i64>(0, out_spatial), [&](const tbb::blocked_range<i64>& pixels) {
            for (i64 y = pixels.begin(); y < pixels.end(); ++y) {
                const i64 y0 = y / (out[1] * out[2]), y1 = (y / out[2]) % out[1], y2 = y % out[2];
                // the window's first input pixel in the copy: y * s - pb + lead = y * s + crop
                const i64 origin = ((y0 * stride[0] + crop[0]) * padded[1] + y1 * stride[1] + crop[1]) * padded[2] +
                                   y2 * stride[2] + crop[2];
                for (i64 o = 0; o < O; ++o) {
                    const std::int16_t* x = copy.data() + (o / OCg) * ICg;
                    const std::int16_t* w = weights.data() + o * taps * ICg;
                    std::int32_t acc = bias[static_cast<std::size_t>(o)];
                    for (i64 t = 0; t < taps; ++t) acc += dot(x + (origin + tap_pixel[static_cast<std::size_t>(t)]) * C, w + t * ICg, ICg);
                    const i64 to = nxc ? (n * out_spatial + y) * O + o : (n * O + o) * out_spatial + y;
                    store(dst, q.dst, to, requantize(acc, o));
                }
            }
        });
    }
}

}  // namespace convcheck::optimized
