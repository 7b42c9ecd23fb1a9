#include "convcheck/reference/convolution.hpp"

#include <cmath>

#include "index_set.hpp"

namespace convcheck::reference {

ConvResult convolution_summation(const ConvDescriptor& d, std::span<const double> src,
                                 std::span<const double> weights, std::span<const double> bias) {
    // The index set (index_set.hpp) is shared with the backward sums (backward.cpp).
    const detail::ForwardIndexSet index_set(d);
    ConvResult r;
    const std::int64_t dst_elements = d.dst_elements();
    r.dst.assign(dst_elements, 0.0);
    r.magnitude.assign(dst_elements, 0.0);
    r.terms.assign(dst_elements, 0);

    index_set.for_each_output([&](const detail::Output& y) {
        double sum = 0.0, magnitude = 0.0;
        std::int64_t terms = 0;
        if (d.has_bias) {
            sum = bias[y.oc];
            magnitude = std::fabs(bias[y.oc]);
            terms = 1;
        }
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

ConvResult convolution(const ConvDescriptor& d, const void* src, const void* weights, const void* bias) {
    validate(d);
    const std::vector<double> src_ncx = src_to_ncx(d, src);
    const std::vector<double> weights_oix = weights_to_oix(d, weights);
    const std::vector<double> bias_values = bias_to_double(d, bias);
    return convolution_summation(d, src_ncx, weights_oix, bias_values);
}

}  // namespace convcheck::reference
