// One output of reading 1 from the buffers themselves (convolution.hpp, convolution_output): the
// forward index set's canonical offsets, mapped to the buffers' formats one element at a time.
#include <cmath>

#include "convcheck/reference/convolution.hpp"
#include "index_set.hpp"
#include "layout_index.hpp"

namespace convcheck::reference {

OutputValue convolution_output(const ConvDescriptor& d, const void* src, const void* weights, const void* bias,
                               std::int64_t dst_ncx) {
    const detail::ForwardIndexSet index_set(d);
    const detail::Output y = index_set.output_at(dst_ncx);
    std::int64_t in_spatial = 1, kernel = 1;
    for (int a = 0; a < d.rank; ++a) in_spatial *= d.input_size[a], kernel *= d.kernel_size[a];
    const std::int64_t C = d.in_channels, O = d.out_channels, I = d.in_channels_per_group();
    OutputValue r;
    if (d.has_bias) {
        r.value = load_as_double(bias, d.dtype, y.oc);
        r.magnitude = std::fabs(r.value);
        r.terms = 1;
    }
    index_set.for_each_term(y, [&](std::int64_t s, std::int64_t w) {
        // canonical NCX / OIX offsets -> the buffers' own formats
        const std::int64_t src_at = detail::activation_index(d.data_format, s / (C * in_spatial), (s / in_spatial) % C,
                                                             s % in_spatial, C, in_spatial);
        const std::int64_t weights_at =
            detail::weights_index(d.filter_format, w / (I * kernel), (w / kernel) % I, w % kernel, O, I, kernel);
        const double product = load_as_double(src, d.dtype, src_at) * load_as_double(weights, d.dtype, weights_at);
        r.value += product;
        r.magnitude += std::fabs(product);
        ++r.terms;
    });
    return r;
}

}  // namespace convcheck::reference
