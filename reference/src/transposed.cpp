// Transposed convolution = backward data of forward() (backward.hpp) + bias; see transposed.hpp.
#include "convcheck/reference/transposed.hpp"

#include <cmath>

#include "convcheck/reference/backward.hpp"

namespace convcheck::reference {

ConvResult transposed_convolution_summation(const TransposedDescriptor& t, std::span<const double> src,
                                            std::span<const double> weights, std::span<const double> bias) {
    if (!bias.empty() && static_cast<std::int64_t>(bias.size()) != t.out_channels)
        throw ConvError("bias", std::to_string(bias.size()) + " elements",
                        "a transposed convolution's bias has out_channels = " + std::to_string(t.out_channels) +
                            " elements");
    const ConvDescriptor forward = t.forward();
    GradientResult sum = backward_data_summation(forward, src, weights);  // F's diff_src
    ConvResult r{std::move(sum.values), std::move(sum.magnitude), std::move(sum.terms)};
    if (bias.empty()) return r;
    std::int64_t spatial = 1;
    for (int a = 0; a < t.rank; ++a) spatial *= t.output_size(a);
    for (std::int64_t n = 0; n < t.batch; ++n)
        for (std::int64_t oc = 0; oc < t.out_channels; ++oc)
            for (std::int64_t x = 0; x < spatial; ++x) {
                const std::int64_t at = (n * t.out_channels + oc) * spatial + x;
                r.dst[at] += bias[oc];
                r.magnitude[at] += std::fabs(bias[oc]);
                ++r.terms[at];
            }
    return r;
}

ConvResult transposed_convolution(const TransposedDescriptor& t, const void* src, const void* weights,
                                  const void* bias) {
    validate(t);
    const ConvDescriptor forward = t.forward();
    std::vector<double> b;
    if (t.has_bias)
        for (std::int64_t oc = 0; oc < t.out_channels; ++oc) b.push_back(load_as_double(bias, t.dtype, oc));
    return transposed_convolution_summation(t, dst_to_ncx(forward, src), weights_to_oix(forward, weights), b);
}

void round_transposed_to_output(const TransposedDescriptor& t, std::span<const double> dst_ncx, void* dst) {
    // F's src layout; ncx_to_src stores each value with store_from_double: one rounding, to nearest even
    ncx_to_src(t.forward(), dst_ncx, dst);
}

}  // namespace convcheck::reference
