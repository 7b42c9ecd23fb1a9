// The integer sum of a quantized convolution (quantized_convolution.hpp): the forward index set of
// index_set.hpp with each term (x - zx) * (w - zw), in int64, literally.
#include "convcheck/reference/quantized_convolution.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "index_set.hpp"

namespace convcheck::reference {

namespace {

void check_length(const char* tensor, std::size_t got, std::int64_t want) {
    if (static_cast<std::int64_t>(got) != want)
        throw std::invalid_argument(std::string(tensor) + ": " + std::to_string(got) + " values, the descriptor needs " +
                                    std::to_string(want));
}

void check_zero_points(const char* tensor, std::size_t got, std::int64_t channels) {
    if (got != 1 && static_cast<std::int64_t>(got) != channels)
        throw std::invalid_argument(std::string(tensor) + " zero points: " + std::to_string(got) +
                                    " values, must be one (per tensor) or " + std::to_string(channels) + " (per channel)");
}

// The zero point of channel c: per tensor, or per channel.
std::int64_t zero_point(std::span<const std::int32_t> points, std::int64_t c) {
    return points.size() == 1 ? points[0] : points[static_cast<std::size_t>(c)];
}

}  // namespace

IntegerSums integer_convolution_sum(const ConvDescriptor& d, const QuantizedInputs& in) {
    check_length("src", in.src.size(), d.src_elements());
    check_length("weights", in.weights.size(), d.weights_elements());
    if (d.has_bias) check_length("bias", in.bias.size(), d.out_channels);
    check_zero_points("src", in.src_zero_points.size(), d.in_channels);
    check_zero_points("weights", in.weight_zero_points.size(), d.out_channels);
    std::int64_t pixels = 1;  // of one input channel: the channel of src offset s is (s / pixels) % C
    for (int a = 0; a < d.rank; ++a) pixels *= d.input_size[a];

    const detail::ForwardIndexSet index_set(d);
    const auto outputs = static_cast<std::size_t>(d.dst_elements());
    IntegerSums r{std::vector<std::int64_t>(outputs), std::vector<std::int64_t>(outputs),
                  std::vector<std::int64_t>(outputs), std::vector<std::int64_t>(outputs)};
    index_set.for_each_output([&](const detail::Output& y) {
        std::int64_t acc = 0, positive = 0, negative = 0, terms = 0;
        const auto add = [&](std::int64_t term) {
            acc += term;
            (term < 0 ? negative : positive) += term < 0 ? -term : term;
            ++terms;
        };
        if (d.has_bias) add(in.bias[static_cast<std::size_t>(y.oc)]);  // bias(oc): the first term
        const std::int64_t zw = zero_point(in.weight_zero_points, y.oc);
        // + sum over ic_g, k of (src(n, c, x) - zx(c)) * (weights(oc, ic_g, k) - zw(oc)), x inside the input.
        // zx(c) is input channel c's (oneDNN, attributes_quantization.md: "x_f32[:] = scale_x * (x_quant[:] - zp_x)",
        // per channel with mask 1 << 1; benchdnn conv/ref_conv.cpp skips a tap outside the input ("if (iw < 0 || iw >=
        // IW) continue;") before "if (src_zp_mask > 0) src_zp = src_zps.get_elem(g * ICG + ic); const float s =
        // (src_loc[src_off] - src_zp) * src_scale;"): the channel of src offset s, never the output channel, and no
        // zero point at all on a padding tap
        index_set.for_each_term(y, [&](std::int64_t s, std::int64_t w) {
            const std::int64_t zx = zero_point(in.src_zero_points, (s / pixels) % d.in_channels);
            add((in.src[static_cast<std::size_t>(s)] - zx) * (in.weights[static_cast<std::size_t>(w)] - zw));
        });
        r.acc[y.dst] = acc;
        r.positive[y.dst] = positive;
        r.negative[y.dst] = negative;
        r.terms[y.dst] = terms;
    });
    return r;
}

std::vector<std::int64_t> s16_pairs_sum(const ConvDescriptor& d, const QuantizedInputs& in) {
    check_length("src", in.src.size(), d.src_elements());
    check_length("weights", in.weights.size(), d.weights_elements());
    if (d.has_bias) check_length("bias", in.bias.size(), d.out_channels);
    if (in.src_zero_points.size() != 1) throw std::invalid_argument("src zero points: s16 pairs take one, per tensor");
    for (std::int32_t zw : in.weight_zero_points)
        if (zw != 0) throw std::invalid_argument("weights zero point " + std::to_string(zw) + ": s16 pairs take raw weights");
    std::int64_t taps = 1;  // OIX weights: offset ((oc * I/G + ic_g) * taps + k)
    for (int a = 0; a < d.rank; ++a) taps *= d.kernel_size[a];
    const std::int64_t icg = d.in_channels_per_group(), zx = in.src_zero_points[0];
    const detail::ForwardIndexSet index_set(d);
    std::vector<std::int64_t> acc(static_cast<std::size_t>(d.dst_elements()));
    std::vector<std::int64_t> products(static_cast<std::size_t>(taps * icg));  // [k][ic_g] of one output
    std::vector<char> inside(static_cast<std::size_t>(taps));
    index_set.for_each_output([&](const detail::Output& y) {
        std::int64_t sum = d.has_bias ? in.bias[static_cast<std::size_t>(y.oc)] : 0;
        std::fill(inside.begin(), inside.end(), char{0});
        index_set.for_each_term(y, [&](std::int64_t s, std::int64_t w) {
            const std::int64_t k = w % taps, ic = (w / taps) % icg, x = in.src[static_cast<std::size_t>(s)],
                               weight = in.weights[static_cast<std::size_t>(w)];
            products[static_cast<std::size_t>(k * icg + ic)] = x * weight;
            inside[static_cast<std::size_t>(k)] = 1;
            sum -= zx * weight;  // the zero point's share, exact
        });
        for (std::int64_t k = 0; k < taps; ++k) {
            if (!inside[static_cast<std::size_t>(k)]) continue;
            for (std::int64_t ic = 0; ic < icg; ic += 2) {
                const std::int64_t pair = products[static_cast<std::size_t>(k * icg + ic)] +
                                          (ic + 1 < icg ? products[static_cast<std::size_t>(k * icg + ic + 1)] : 0);
                sum += std::clamp<std::int64_t>(pair, -32768, 32767);
            }
        }
        acc[y.dst] = sum;
    });
    return acc;
}

bool fits_int32_accumulator(const IntegerSums& sums, std::int64_t* first) {
    constexpr std::int64_t highest = std::numeric_limits<std::int32_t>::max();
    for (std::size_t i = 0; i < sums.acc.size(); ++i)
        if (sums.positive[i] > highest || sums.negative[i] > highest + 1) {
            if (first) *first = static_cast<std::int64_t>(i);
            return false;
        }
    return true;
}

std::vector<float> qdq_f32_sum(const ConvDescriptor& d, const QuantizedInputs& in, float src_scale,
                               std::span<const float> weights_scales, std::span<const float> f32_bias) {
    check_length("src", in.src.size(), d.src_elements());
    check_length("weights", in.weights.size(), d.weights_elements());
    if (d.has_bias && f32_bias.empty()) check_length("bias", in.bias.size(), d.out_channels);
    if (d.has_bias && !f32_bias.empty()) check_length("f32 bias", f32_bias.size(), d.out_channels);
    check_zero_points("src", in.src_zero_points.size(), d.in_channels);
    check_zero_points("weights", in.weight_zero_points.size(), d.out_channels);
    if (weights_scales.size() != 1 && static_cast<std::int64_t>(weights_scales.size()) != d.out_channels)
        throw std::invalid_argument("weights scales: " + std::to_string(weights_scales.size()) +
                                    " values, must be one or one per output channel");
    std::int64_t pixels = 1;
    for (int a = 0; a < d.rank; ++a) pixels *= d.input_size[a];
    const detail::ForwardIndexSet index_set(d);
    std::vector<float> out(static_cast<std::size_t>(d.dst_elements()));
    std::vector<float> positive, negative;  // one output's products
    index_set.for_each_output([&](const detail::Output& y) {
        const float wsc = weights_scales[weights_scales.size() == 1 ? 0 : static_cast<std::size_t>(y.oc)];
        const std::int64_t zw = zero_point(in.weight_zero_points, y.oc);
        positive.clear(), negative.clear();
        index_set.for_each_term(y, [&](std::int64_t s, std::int64_t w) {
            const std::int64_t zx = zero_point(in.src_zero_points, (s / pixels) % d.in_channels);
            const float xf = static_cast<float>(in.src[static_cast<std::size_t>(s)] - zx) * src_scale;
            const float wf = static_cast<float>(in.weights[static_cast<std::size_t>(w)] - zw) * wsc;
            const float p = xf * wf;
            (p < 0.0f ? negative : positive).push_back(p);
        });
        std::sort(positive.begin(), positive.end(), [](float a, float b) { return a > b; });
        std::sort(negative.begin(), negative.end());  // most negative first
        float sum = 0.0f;
        for (float p : positive) sum += p;
        for (float p : negative) sum += p;
        if (d.has_bias) {
            const auto oc = static_cast<std::size_t>(y.oc);
            sum += f32_bias.empty() ? static_cast<float>(in.bias[oc]) * (src_scale * wsc) : f32_bias[oc];
        }
        out[static_cast<std::size_t>(y.dst)] = sum;
    });
    return out;
}

}  // namespace convcheck::reference
