// Reading 1, the definition (convolution.hpp): seed 002's summation formula, one output at a time.
// The outputs and, for each, its terms (ic_g, then kd, kh, kw; the taps that land in padding left
// out) are the forward index set, spelled out in index_set.hpp: the backward sums (backward.cpp) walk
// the same set. Everything is in double: each product is rounded, then added (no FMA:
// -ffp-contract=off). fast_summation.cpp computes the same bits faster.
#include "convcheck/reference/convolution.hpp"

#include <cmath>
#include <functional>
#include <vector>

#include "convcheck/reference/fast_summation.hpp"
#include "index_set.hpp"

namespace convcheck::reference {

// Seed 002 (oneDNN Graph Convolution, "Convolution with Groups" and "Convolution with Dilation"):
//
//   dst(n, g*OC_G + oc_g, oh, ow) = bias(g*OC_G + oc_g)
//       + sum_{ic_g=0}^{IC_G-1} sum_{kh=0}^{KH-1} sum_{kw=0}^{KW-1} src(n, g*IC_G + ic_g, oh'', ow'') * weights(g, oc_g, ic_g, kh, kw)
//
// with oh'' = oh*SH - PH_L + kh*DH (1-based DH; SPEC-NOTES.md), the same along every spatial axis of
// any rank, and src read as zero outside [0, IH) (zero padding; a negative PH_L crops).
ConvResult convolution_summation(const ConvDescriptor& d, std::span<const double> src,
                                 std::span<const double> weights, std::span<const double> bias) {
    // a convolution: one kernel for every output
    return detail::sum_over_index_set(d, src, bias, [&](const detail::Output&) { return weights.data(); });
}

// The sum above, with the kernel named per output: a convolution shares one kernel among all its outputs
// (convolution_summation); a locally connected layer (dialects/locally_connected.cpp) gives each output
// position its own.
ConvResult detail::sum_over_index_set(const ConvDescriptor& d, std::span<const double> src, std::span<const double> bias,
                                      const std::function<const double*(const Output&)>& kernel_of) {
    const ForwardIndexSet index_set(d);
    const auto outputs = static_cast<std::size_t>(d.dst_elements());
    ConvResult r{std::vector<double>(outputs), std::vector<double>(outputs), std::vector<std::int64_t>(outputs)};
    // every output y = (n, oc = g*OC_G + oc_g, od, oh, ow), in NCX order
    index_set.for_each_output([&](const Output& y) {
        const double* const weights = kernel_of(y);  // weights(g, oc_g, ic_g, k) at weights[w]
        double sum = 0.0, magnitude = 0.0;           // magnitude: sum |src * weights| (+ |bias|), the error scale
        std::int64_t terms = 0;
        if (d.has_bias) {  // bias(g*OC_G + oc_g): the first term
            sum = bias[y.oc];
            magnitude = std::fabs(bias[y.oc]);
            terms = 1;
        }
        // + sum over ic_g, kd, kh, kw of src(n, g*IC_G + ic_g, x) * weights(g, oc_g, ic_g, k), x inside the input
        index_set.for_each_term(y, [&](std::int64_t s, std::int64_t w) {
            const double product = src[s] * weights[w];
            sum += product;
            magnitude += std::fabs(product);
            ++terms;
        });
        r.dst[y.dst] = sum;
        r.magnitude[y.dst] = magnitude;
        r.terms[y.dst] = terms;
    });
    return r;
}

ConvResult convolution(const ConvDescriptor& d, const void* src, const void* weights, const void* bias, int threads) {
    validate(d);
    const std::vector<double> src_ncx = src_to_ncx(d, src);
    const std::vector<double> weights_oix = weights_to_oix(d, weights);
    const std::vector<double> bias_values = bias_to_double(d, bias);
    return scaled_summation(d, src_ncx, weights_oix, bias_values, threads);
}

// oneDNN's scales (benchdnn ref_conv.cpp: "s = src * src_scale; w = wei * wei_scale; d += s * w", then
// "conv_res += bias", "maybe_post_ops", "dst = conv_res * dst_scale" with dst_scale = 1 / the dst scale): in double,
// the scales factor out of the sum exactly as the definition reads.
ConvResult scaled_summation(const ConvDescriptor& d, std::span<const double> src_ncx,
                            std::span<const double> weights_oix, std::span<const double> bias, int threads) {
    if (!d.scales.present()) return fast_convolution_summation(d, src_ncx, weights_oix, bias, threads);
    ConvDescriptor unbiased = d;  // the products alone: the bias comes after the scales
    unbiased.has_bias = false;
    unbiased.dtype_overrides.bias.reset();
    ConvResult r = fast_convolution_summation(unbiased, src_ncx, weights_oix, {}, threads);
    const std::int64_t plane = d.dst_elements() / (d.batch * d.out_channels);
    for (std::size_t i = 0; i < r.dst.size(); ++i) {
        const std::int64_t oc = (static_cast<std::int64_t>(i) / plane) % d.out_channels;
        const double scale = double(d.scales.src) * double(d.scales.weights_of(oc));
        r.dst[i] *= scale;
        r.magnitude[i] *= scale;
        if (d.has_bias) {
            r.dst[i] += bias[static_cast<std::size_t>(oc)];
            r.magnitude[i] += std::fabs(bias[static_cast<std::size_t>(oc)]);
            ++r.terms[i];
        }
    }
    return r;
}

void apply_dst_scale(const ConvDescriptor& d, std::span<double> dst_ncx) {
    if (d.scales.dst == 1.0f) return;
    for (double& v : dst_ncx) v /= double(d.scales.dst);
}

}  // namespace convcheck::reference
