// One output of reading 1 from the buffers themselves (convolution.hpp, convolution_output): the
// forward index set's canonical offsets, mapped to the buffers' formats and strides one element at a
// time (core/include/convcheck/core/memory_layout.hpp, as the layout edges map them).
#include <cmath>

#include "convcheck/reference/convolution.hpp"
#include "index_set.hpp"
#include "convcheck/core/memory_layout.hpp"

namespace convcheck::reference {

OutputValue convolution_output(const ConvDescriptor& d, const void* src, const void* weights, const void* bias,
                               std::int64_t dst_ncx) {
    const detail::ForwardIndexSet index_set(d);
    const detail::Output y = index_set.output_at(dst_ncx);
    const MemoryLayout src_layout = canonical_layout(d, TensorRole::src);
    const MemoryLayout weights_layout = canonical_layout(d, TensorRole::weights);
    // the element offset of the element at canonical flat index `flat` (NCX or OIX, row-major)
    auto offset_of = [](const MemoryLayout& l, std::int64_t flat) {
        std::int64_t at = 0;
        for (std::size_t j = l.dims.size(); j-- > 0;) {
            at += (flat % l.dims[j]) * l.strides[j];
            flat /= l.dims[j];
        }
        return at;
    };
    OutputValue r;
    if (d.has_bias) {
        r.value = load_as_double(bias, d.bias_dtype(), y.oc);
        r.magnitude = std::fabs(r.value);
        r.terms = 1;
    }
    index_set.for_each_term(y, [&](std::int64_t s, std::int64_t w) {
        // canonical NCX / OIX offsets -> the buffers' own formats and strides
        const std::int64_t src_at = offset_of(src_layout, s);
        const std::int64_t weights_at = offset_of(weights_layout, w);
        const double product = load_as_double(src, d.src_dtype(), src_at) * load_as_double(weights, d.weights_dtype(), weights_at);
        r.value += product;
        r.magnitude += std::fabs(product);
        ++r.terms;
    });
    return r;
}

}  // namespace convcheck::reference
