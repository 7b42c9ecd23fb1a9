// benchdnn's deconv driver problem strings (deconv/deconv_aux.cpp str2desc, deconv.hpp init_pad_r; oneDNN
// v3.7.1) as canonical transposed-convolution descriptors, and printed back (benchdnn.hpp has the rules).
#include "benchdnn_geometry.hpp"

namespace convcheck {

using benchdnn_detail::Axis;
using benchdnn_detail::Geometry;

BenchdnnDeconvProblem parse_benchdnn_deconv(std::string_view text, const BenchdnnSettings& settings) {
    const Geometry raw = benchdnn_detail::read_geometry(text, BenchdnnDriver::deconv);
    TransposedDescriptor t;
    t.rank = raw.rank;
    t.batch = raw.mb;
    t.in_channels = raw.ic;   // the deconvolution's src channels
    t.out_channels = raw.oc;  // its dst channels (oneDNN's weights {[G,] OC/G, IC/G, k...})
    t.groups = raw.g;
    for (int a = 0; a < raw.rank; ++a) {
        const Axis& x = raw.axis[3 - raw.rank + a];
        t.input_size[a] = x.i;
        t.kernel_size[a] = x.k;
        t.strides[a] = x.s;
        t.dilations[a] = x.d + 1;  // 0-based -> 1-based (read_geometry checked the overflow)
        t.pads_begin[a] = x.p;
        t.pads_end[a] = x.p_r;     // with output_padding 0: (i-1)*s - p - p_r + K = o exactly
        t.output_padding[a] = 0;
    }
    t.has_bias = settings.has_bias;
    t.dtype = settings.dtype;
    t.data_format = settings.data_format;
    t.filter_format = settings.filter_format;
    validate(t);
    for (int a = 0; a < raw.rank; ++a)  // the shape rule and benchdnn's deduction must agree (they do by algebra)
        if (t.output_size(a) != raw.axis[3 - raw.rank + a].o)
            throw ConvError("benchdnn problem", std::string(text), "the transposed descriptor's output size " +
                                                                       std::to_string(t.output_size(a)) +
                                                                       " differs from benchdnn's");
    return {t, benchdnn_unquoted_name(raw.name), raw.name, raw.g_given};
}

std::string to_benchdnn(const TransposedDescriptor& t, std::string_view name) {
    validate(t);
    Geometry g;
    g.rank = t.rank;
    g.g = t.groups;
    g.mb = t.batch;
    g.ic = t.in_channels;
    g.oc = t.out_channels;
    for (int a = 0; a < t.rank; ++a) {
        const std::string attribute = "[" + std::to_string(a) + "]";
        if (t.pads_begin[a] < 0)
            throw ConvError("pads_begin" + attribute, std::to_string(t.pads_begin[a]),
                            "benchdnn cannot express a negative left pad");
        Axis& x = g.axis[3 - t.rank + a];
        x = Axis{t.input_size[a], t.output_size(a), t.kernel_size[a], t.strides[a], t.pads_begin[a],
                 t.dilations[a] - 1};
        x.p_r = (x.i - 1) * x.s - x.o + t.dilated_kernel(a) - x.p;  // = pads_end - output_padding
        if (x.p_r + x.s <= 0)
            throw ConvError("pads_end" + attribute, std::to_string(t.pads_end[a]),
                            "benchdnn would deduce the right pad " + std::to_string(x.p_r) +
                                ", and oneDNN requires right pad + stride > 0");
    }
    return benchdnn_detail::print_geometry(g, name);
}

}  // namespace convcheck
