// TensorFlow conv{1,2,3}d_transpose (tf.nn.conv_transpose; the Conv2DBackpropInput / Conv3DBackpropInputV2
// ops, whose input_sizes is output_shape), read literally:
//   output_shape is required: with stride > 1 several output sizes have the same forward output, so the
//   op cannot infer it. It must be a size whose forward convolution, with the same strides, dilations
//   and padding, gives the input's size (conv_grad_shape_utils.cc, ConvBackpropExtractAndVerifyDimension):
//       "<label>: Size of out_backprop doesn't match computed: actual = <in>, computed = <forward out>
//        spatial_dim: <i> input: <output_shape> filter: <k> output: <in> stride: <s> dilation: <d>"
//   The forward's sizes and pads are the Conv op's (tensorflow.cpp: SAME, VALID, EXPLICIT), so its
//   errors are the Conv op's too. The transposed op's pads are that forward's pads; its output padding
//   is what lengthens the end beyond them: output_shape - ((in - 1) * s + K - pb - pe), in [0, s - 1].
// Filters [k..., out_channels, in_channels] (HWIO of the forward: out before in), data NHWC (default) or
// NCHW (NWC/NCW, NDHWC/NCDHW by rank); no groups, no bias (Keras' Conv2DTranspose adds it apart).
// The CPU kernels refuse dilation > 1 (noted); the op's shape function defines it.
#include "convcheck/reference/dialects/tensorflow.hpp"
#include "transposed_common.hpp"

namespace convcheck::reference::dialects::tensorflow {

using namespace dialects::detail;

TransposedResult read_transposed(const AttributeSet& attributes) {
    return guarded_transposed("tensorflow_transpose", [&] {
        Reader reader(attributes, "tensorflow_transpose");
        const ConvShapes s = read_shapes(reader, true);
        const std::vector<std::int64_t> none;
        const auto output_shape_v = reader.list("output_shape");
        ConvAttributes forward;
        forward.strides = reader.list("strides").value_or(none);
        forward.dilations = reader.list("dilations").value_or(none);
        forward.padding = reader.text("padding").value_or("SAME");  // tf.nn.conv_transpose's default
        if (forward.padding == "EXPLICIT")
            forward.explicit_paddings = reader.list("explicit_paddings").value_or(none);
        forward.data_format = reader.text("data_format").value_or("");
        reader.refuse_unknown_keys();

        const int rank = s.rank();
        if (!output_shape_v) refuse_ours("output_shape", "(missing)", "output_shape is required (conv_transpose's argument)");
        std::vector<std::int64_t> output_shape = *output_shape_v;
        const bool channels_first = !forward.data_format.empty() && forward.data_format[1] == 'C';
        if (static_cast<int>(output_shape.size()) == rank + 2) {  // [N, spatial..., C] in data_format order
            const std::int64_t batch = output_shape[0], channels = channels_first ? output_shape[1] : output_shape[rank + 1];
            if (batch != s.batch || channels != s.out_channels)
                refuse_ours("output_shape", join(output_shape),
                            "the batch and channel entries must be n = " + std::to_string(s.batch) + " and o = " +
                                std::to_string(s.out_channels) + " (the filter's out_channels)");
            output_shape = std::vector<std::int64_t>(output_shape.begin() + (channels_first ? 2 : 1),
                                                     output_shape.begin() + (channels_first ? 2 : 1) + rank);
        } else if (static_cast<int>(output_shape.size()) != rank) {
            refuse_ours("output_shape", join(output_shape),
                        "the output's " + std::to_string(rank + 2) + " dimensions (or its " + std::to_string(rank) +
                            " spatial sizes)");
        }
        require_in_range("output_shape", output_shape);

        // The forward convolution whose input is output_shape: c and o swap.
        forward.shapes = ConvShapes{s.batch, s.out_channels, s.in_channels, output_shape, s.kernel_size};
        const DialectResult f = conv(forward);
        if (f.error) throw Refusal{*f.error};
        const ConvDescriptor& fd = f.descriptor;
        const std::string label = rank == 3 ? "Conv3DBackpropInputOp" : "Conv2DCustomBackpropInput";
        for (int a = 0; a < rank; ++a) {
            const std::int64_t computed = f.output_size[a];  // TF's own (0 for an empty forward output)
            if (computed == s.input_size[a]) continue;
            const int spatial_dim = (channels_first ? 2 : 1) + a + (rank == 1 ? 1 : 0);  // conv1d runs as 2-D
            refuse("output_shape", join(*output_shape_v),
                   label + ": Size of out_backprop doesn't match computed: actual = " + std::to_string(s.input_size[a]) +
                       ", computed = " + std::to_string(computed) + " spatial_dim: " + std::to_string(spatial_dim) +
                       " input: " + std::to_string(output_shape[a]) + " filter: " + std::to_string(s.kernel_size[a]) +
                       " output: " + std::to_string(s.input_size[a]) + " stride: " + std::to_string(fd.strides[a]) +
                       " dilation: " + std::to_string(fd.dilations[a]));
        }

        TransposedResult r;
        r.dialect = "tensorflow_transpose";
        r.data_layout = f.data_layout;
        r.filter_layout = f.filter_layout;
        TransposedAxisAttributes g{{}, {}, {}, {}, {}};
        for (int a = 0; a < rank; ++a) {
            g.strides.push_back(fd.strides[a]);
            g.dilations.push_back(fd.dilations[a]);
            g.pads_begin.push_back(fd.pads_begin[a]);
            g.pads_end.push_back(fd.pads_end[a]);
            const std::int64_t K = (s.kernel_size[a] - 1) * fd.dilations[a] + 1;
            g.output_padding.push_back(output_shape[a] -
                                       ((s.input_size[a] - 1) * fd.strides[a] + K - fd.pads_begin[a] - fd.pads_end[a]));
            if (fd.dilations[a] > 1 && r.notes.empty())
                r.notes.push_back("dilation > 1: the op's shape function defines it; TensorFlow's CPU kernels refuse it");
        }
        r.descriptor = make_transposed(s, 1, g, fd.data_format, FilterFormat::xio);
        const PaddingRequest request = forward.padding == "SAME"    ? PaddingRequest::same_upper
                                       : forward.padding == "VALID" ? PaddingRequest::valid
                                                                    : PaddingRequest::explicit_pads;
        return conclude_transposed(r, output_shape, request);
    });
}

std::optional<AttributeSet> spell_transposed(const TransposedRequest& q, std::string* why_not) {
    const TransposedDescriptor& t = q.geometry;
    if (t.groups != 1) {
        *why_not = "conv_transpose has no groups";
        return std::nullopt;
    }
    if (t.has_bias) {
        *why_not = "conv_transpose has no bias (Keras' Conv2DTranspose adds it apart)";
        return std::nullopt;
    }
    std::vector<std::int64_t> paddings, shape;
    for (int a = 0; a < t.rank; ++a) {
        if (t.pads_begin[a] < 0 || t.pads_end[a] < 0) {
            *why_not = "TensorFlow's explicit paddings are >= 0";
            return std::nullopt;
        }
        if (t.output_padding[a] >= t.strides[a]) {
            *why_not = "an output padding of a stride or more has another forward output size (output_shape would not "
                       "match the input)";
            return std::nullopt;
        }
        paddings.push_back(t.pads_begin[a]);
        paddings.push_back(t.pads_end[a]);
        shape.push_back(t.output_size(a));
    }
    AttributeSet a = spell_shapes(t);
    a["output_shape"] = join(shape);
    a["strides"] = join(t.strides, t.rank);
    a["dilations"] = join(t.dilations, t.rank);
    a["padding"] = "EXPLICIT";
    a["explicit_paddings"] = join(paddings);
    if (t.data_format == DataFormat::ncx) a["data_format"] = t.rank == 1 ? "NCW" : t.rank == 2 ? "NCHW" : "NCDHW";
    return a;
}

}  // namespace convcheck::reference::dialects::tensorflow
