// Scales on a float convolution (core/scales.hpp, docs/scales.md): the drawn per-channel scales, the claim,
// exact mode's precondition and the roundings the bound counts for the scale multiplications.
#include <cmath>

#include "operation.hpp"

namespace convcheck::runner::detail {

namespace {

// The significant bits of a finite double (0 for 0): the span from its highest to its lowest set bit.
int significant_bits(double v) {
    if (v == 0.0) return 0;
    int exponent = 0;
    double m = std::frexp(std::fabs(v), &exponent);  // m in [0.5, 1)
    int bits = 0;
    while (m != 0.0) {
        m = m * 2.0 - std::floor(m * 2.0);
        ++bits;
    }
    return bits;
}

bool power_of_two(float v) { return significant_bits(v) == 1; }

}  // namespace

ConvDescriptor with_drawn_scales(const ConvDescriptor& d, std::uint64_t seed) {
    if (!d.scales.drawn()) return d;
    ConvDescriptor r = d;
    r.scales.channel = draw_channel_scales(d.out_channels, seed);
    return r;
}

std::string scales_unclaimed(const PluginInfo& info, const ConvDescriptor& d) {
    if (d.scales.present() && info.abi_major == 1 && info.abi_minor < 7)
        return "the plugin was built against ABI 1." + std::to_string(info.abi_minor) +
               ", which has no scales extension for a float convolution (ABI 1.7)";
    return "";
}

std::string scales_not_exact(const ConvDescriptor& d, const reference::ConvResult& want) {
    const std::string why = "scales (" + scales_text(d.scales).substr(1) + ") are judged exactly only when ";
    if (!power_of_two(d.scales.dst))
        return why + "the dst scale is a power of two (1 / dsc and v / dsc round in f32): run the case in bound mode";
    const std::int64_t plane = d.dst_elements() / (d.batch * d.out_channels);
    for (std::size_t i = 0; i < want.dst.size(); ++i) {
        const std::int64_t oc = (static_cast<std::int64_t>(i) / plane) % d.out_channels;
        const double scale = double(d.scales.src) * double(d.scales.weights_of(oc));
        // the products' sum (an integer in exact mode) is at most the magnitude (with |bias|) over the scale
        const double largest_sum = std::floor(want.magnitude[i] / scale);
        const int bits = significant_bits(d.scales.src) + significant_bits(d.scales.weights_of(oc)) +
                         static_cast<int>(std::ceil(std::log2(largest_sum + 1.0)));
        const double x = want.dst[i], y = x / double(d.scales.dst);
        if (bits > 24 || double(float(x)) != x || double(float(y)) != y)
            return why + "every product of the scales and the sums, and every scaled output, is exact in f32 (output " +
                   std::to_string(i) + " is not): run the case in bound mode";
    }
    return "";
}

void count_scale_roundings(const ConvDescriptor& d, std::vector<std::int64_t>& terms) {
    // src_scale * weights_scale(oc) and its product with the sum: two f32 roundings on every term; 1 / dst_scale and
    // the product with it (or the one division): two more, here when no post-op comes between (post_op_bounds
    // counts them after the chain otherwise)
    bool scaled = d.scales.src != 1.0f || d.scales.per_channel || d.scales.weights != 1.0f;
    const std::int64_t extra = (scaled ? 2 : 0) + (d.scales.dst != 1.0f && d.post_ops.empty() ? 2 : 0);
    for (std::int64_t& n : terms) n += extra;
}

}  // namespace convcheck::runner::detail
