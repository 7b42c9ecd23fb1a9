// The optimized quantized convolution (quantized_plan.hpp). Two paths, the same exact sums:
//   - VNNI (quantized_vnni.hpp): u8/s8 src, s8 weights without a zero point, on a CPU with AVX-512 VNNI;
//   - int16: weights packed once as int16 minus their zero point, [O][taps][I/G]; per image, src minus its zero
//     point in a padded channels-last int16 copy with zeros in the padding; per output pixel and channel the exact
//     int32 dot products over the taps, each a run of I/G contiguous int16 pairs (compiled at -O3: pmaddwd).
// Then the bias and the requantization rule (quantized_requantize.hpp).
#include "convcheck/optimized/quantized_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/task_arena.h>

#include "convcheck/optimized/conv_plan.hpp"
#include "parallel_join.hpp"
#include "quantized_vnni.hpp"

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
    Impl(const QuantizedDescriptor& d) : q(d), g(d) {}
    QuantizedDescriptor q;
    detail::QuantizedGeometry g;
    detail::Requantizer requantize;
    std::vector<std::int16_t> weights;   // [O][taps][I/G], minus the weights' zero point
    std::vector<std::int32_t> bias;      // [O], 0 without one
    std::unique_ptr<detail::VnniPath> vnni;  // where it applies (quantized_vnni.hpp)
    std::unique_ptr<tbb::task_arena> arena;

    void run(const void* src, void* dst) const;
};

QuantizedPlan::QuantizedPlan(const QuantizedDescriptor& q, std::span<const float> weights_scales, const void* weights,
                             const std::int32_t* bias, QuantizedOptions options) {
    validate(q);
    if (std::string why = why_layout_unsupported(q.conv); !why.empty()) throw ConvError("layout", "strides or OXI", why);
    const ConvDescriptor& d = q.conv;
    if (weights == nullptr || (d.has_bias && bias == nullptr))
        throw ConvError(weights ? "bias" : "weights", "null", "buffers must not be null");
    if (weights_scales.size() != 1 && static_cast<i64>(weights_scales.size()) != d.out_channels)
        throw ConvError("weights_scales", std::to_string(weights_scales.size()), "one, or one per output channel");
    if ((q.per_channel_src_zero_points && q.src_zero_points.empty()) ||
        (q.per_channel_dst_zero_points && q.dst_zero_points.empty()) ||
        (q.per_channel_weights_zero_points && q.weights_zero_points.empty()))
        throw ConvError(q.per_channel_src_zero_points && q.src_zero_points.empty()   ? "szp"
                        : q.per_channel_dst_zero_points && q.dst_zero_points.empty() ? "dzp"
                                                                                     : "wzp",
                        "drawn per channel", "a plan takes its per-channel zero points given (szp=a:b:..., wzp=..., dzp=...)");
    impl_ = std::make_unique<Impl>(q);
    Impl& m = *impl_;
    const detail::QuantizedGeometry& g = m.g;
    // weights in the filter format (OIX: [O][I/G][taps], XIO: [taps][I/G][O]) -> [O][taps][I/G] minus wzp (output
    // channel o's, per tensor or per output channel)
    m.weights.resize(static_cast<std::size_t>(g.O * g.taps * g.ICg));
    for (i64 o = 0; o < g.O; ++o)
        for (i64 i = 0, zw = q.per_channel_weights_zero_points ? q.weights_zero_points[static_cast<std::size_t>(o)]
                                                                : q.weights_zero_point;
             i < g.ICg; ++i)
            for (i64 t = 0; t < g.taps; ++t) {
                const i64 from = d.filter_format == FilterFormat::oix ? (o * g.ICg + i) * g.taps + t : (t * g.ICg + i) * g.O + o;
                m.weights[static_cast<std::size_t>((o * g.taps + t) * g.ICg + i)] =
                    static_cast<std::int16_t>(load(weights, q.weights, from) - zw);
            }
    std::vector<double> multipliers;
    for (i64 o = 0; o < g.O; ++o) {
        m.bias.push_back(d.has_bias ? bias[o] : 0);
        const double scale = weights_scales[weights_scales.size() == 1 ? 0 : static_cast<std::size_t>(o)];
        multipliers.push_back(double(q.src_scale) * scale / double(q.dst_scale));
    }
    m.requantize = detail::Requantizer(q, multipliers, options.rounding);
    // (the threads execute will see: the arena's, or without one the caller's, as here)
    const int threads = options.threads > 0 ? options.threads : tbb::this_task_arena::max_concurrency();
    if (detail::why_not_vnni(q).empty()) m.vnni = std::make_unique<detail::VnniPath>(q, g, m.weights, m.bias, m.requantize, threads);
    if (options.threads > 0) m.arena = std::make_unique<tbb::task_arena>(options.threads);
}

QuantizedPlan::~QuantizedPlan() = default;
QuantizedPlan::QuantizedPlan(QuantizedPlan&&) noexcept = default;
QuantizedPlan& QuantizedPlan::operator=(QuantizedPlan&&) noexcept = default;

std::string QuantizedPlan::implementation() const {
    return "optimized_" + (impl_->vnni ? impl_->vnni->kernel() : std::string("int16_dot")) + "_" +
           std::string(to_string(impl_->requantize.rounding));
}

void QuantizedPlan::execute(const void* src, void* dst) const {
    if (src == nullptr || dst == nullptr) throw ConvError(src ? "dst" : "src", "null", "buffers must not be null");
    // the fork and join made visible to TSan (parallel_join.hpp): Debian's libtbb is not instrumented
    if (impl_->arena) detail::arena_execute_joined(*impl_->arena, [&] { impl_->run(src, dst); });
    else impl_->run(src, dst);
}

void QuantizedPlan::Impl::run(const void* src, void* dst) const {
    if (vnni) return vnni->run(src, dst);
    const bool nxc = g.src_nxc;
    // input channel c's zero point: per tensor, or per channel (szp=a:b:...)
    const auto src_zero_point = [&](i64 c) {
        return q.src_zero_points.empty() ? q.src_zero_point : q.src_zero_points[static_cast<std::size_t>(c)];
    };
    std::vector<std::int16_t> copy(static_cast<std::size_t>(g.padded_spatial * g.C));
    for (i64 n = 0; n < g.N; ++n) {
        // src minus its zero point, channels last, inside zeros: a padding tap reads 0 and adds nothing
        std::fill(copy.begin(), copy.end(), std::int16_t{0});
        detail::parallel_for_joined(tbb::blocked_range<i64>(0, g.in[0] * g.in[1]), [&](const tbb::blocked_range<i64>& rows) {
            for (i64 row = rows.begin(); row < rows.end(); ++row) {
                const i64 x0 = row / g.in[1], x1 = row % g.in[1];
                for (i64 x2 = 0; x2 < g.in[2]; ++x2) {
                    const i64 x = (x0 * g.in[1] + x1) * g.in[2] + x2, pixel = g.copy_pixel(x0, x1, x2);
                    for (i64 c = 0; c < g.C; ++c) {
                        const i64 from = nxc ? (n * g.in_spatial + x) * g.C + c : (n * g.C + c) * g.in_spatial + x;
                        copy[static_cast<std::size_t>(pixel * g.C + c)] =
                            static_cast<std::int16_t>(load(src, q.src, from) - src_zero_point(c));
                    }
                }
            }
        });
        detail::parallel_for_joined(tbb::blocked_range<i64>(0, g.out_spatial), [&](const tbb::blocked_range<i64>& pixels) {
            for (i64 y = pixels.begin(); y < pixels.end(); ++y) {
                const i64 origin = g.origin(y / (g.out[1] * g.out[2]), (y / g.out[2]) % g.out[1], y % g.out[2]);
                for (i64 o = 0; o < g.O; ++o) {
                    const std::int16_t* x = copy.data() + (o / g.OCg) * g.ICg;
                    const std::int16_t* w = weights.data() + o * g.taps * g.ICg;
                    std::int32_t acc = bias[static_cast<std::size_t>(o)];
                    for (i64 t = 0; t < g.taps; ++t)
                        acc += dot(x + (origin + g.tap_pixel[static_cast<std::size_t>(t)]) * g.C, w + t * g.ICg, g.ICg);
                    const i64 to = nxc ? (n * g.out_spatial + y) * g.O + o : (n * g.O + o) * g.out_spatial + y;
                    store(dst, q.dst, to, requantize(acc, o));
                }
            }
        });
    }
}

}  // namespace convcheck::optimized
