// benchdnn's deconv driver problem strings (deconv/deconv_aux.cpp str2desc, deconv.hpp init_pad_r; oneDNN
// v3.7.1) as canonical transposed-convolution descriptors, and printed back (benchdnn.hpp has the rules).
#include "benchdnn_geometry.hpp"

namespace convcheck {

using benchdnn_detail::ProblemFields;

BenchdnnDeconvProblem parse_benchdnn_deconv(std::string_view text, const BenchdnnSettings& settings) {
    const ProblemFields raw = benchdnn_detail::read_geometry(text, BenchdnnDriver::deconv);
    // c = ic (the deconvolution's src channels), o = oc (its dst's; oneDNN's weights {[G,] OC/G, IC/G, k...}),
    // pads_end = the deduced right pad and output_padding 0: (i-1)*s - p - p_r + K = o exactly
    TransposedDescriptor t;
    benchdnn_detail::fill_descriptor(raw, settings, t);
    validate(t);
    for (int a = 0; a < raw.rank; ++a)  // the shape rule and benchdnn's deduction must agree (they do by algebra)
        if (t.output_size(a) != raw.axis[3 - raw.rank + a].o)
            throw ConvError("benchdnn problem", std::string(text), "the transposed descriptor's output size " +
                                                                       std::to_string(t.output_size(a)) +
                                                                       " differs from benchdnn's");
    return {t, benchdnn_unquoted_name(raw.name), raw.name, raw.g_given};
}

std::string to_benchdnn(const TransposedDescriptor& t, std::string_view name) {
    validate(t);  // the right pad benchdnn deduces is pads_end - output_padding: the same outputs
    return benchdnn_detail::print_geometry(benchdnn_detail::geometry_of(t, BenchdnnDriver::deconv), name);
}

}  // namespace convcheck
