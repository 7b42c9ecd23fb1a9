// TensorFlow conv: SAME / VALID / EXPLICIT (see tensorflow.hpp for the formulas).
#include "convcheck/reference/dialects/tensorflow.hpp"

#include <algorithm>

#include "common.hpp"

namespace convcheck::reference::dialects::tensorflow {

using namespace detail;

namespace {

struct Format {
    std::string channels_last, channels_first;
};
Format formats_for(int rank) {
    if (rank == 1) return {"NWC", "NCW"};
    if (rank == 2) return {"NHWC", "NCHW"};
    return {"NDHWC", "NCDHW"};
}

// tf.nn.convolution's _get_sequence: 1, rank or rank+2 values; the batch and channel entries of a
// full-length list must be 1 (the Conv kernels' rule).
std::vector<std::int64_t> spatial_sequence(const std::string& name, std::vector<std::int64_t> values, int rank,
                                           bool channels_last, const char* what) {
    if (values.empty()) return repeat(1, rank);
    const int n = static_cast<int>(values.size());
    if (n == 1) return repeat(values[0], rank);
    if (n == rank) return values;
    if (n == rank + 2) {
        const std::int64_t batch = values[0], channel = channels_last ? values[rank + 1] : values[1];
        if (batch != 1 || channel != 1)
            refuse(name, join(values),
                   std::string("Current implementation does not yet support ") + what +
                       " in the batch and depth dimensions.");
        return channels_last ? std::vector<std::int64_t>(values.begin() + 1, values.begin() + 1 + rank)
                             : std::vector<std::int64_t>(values.begin() + 2, values.end());
    }
    refuse(name, join(values),
           name + " should be of length 1, " + std::to_string(rank) + " or " + std::to_string(rank + 2) +
               ". Received: " + name + "=" + join(values) + " of length " + std::to_string(n));
}

}  // namespace

DialectResult conv(const ConvAttributes& attr) {
    const bool wrapper = attr.entry_point == EntryPoint::convolution_wrapper;
    const std::string name = wrapper ? "tf_convolution" : "tensorflow";
    return guarded(name, [&] {
        const ConvShapes& s = attr.shapes;
        require_in_range(s);
        require_in_range("strides", attr.strides);
        require_in_range("dilations", attr.dilations);
        require_in_range("explicit_paddings", attr.explicit_paddings);
        const int rank = s.rank();
        const Format format = formats_for(rank);
        const std::string data_format = attr.data_format.empty() ? format.channels_last : attr.data_format;
        if (data_format != format.channels_last && data_format != format.channels_first)
            refuse("data_format", data_format,
                   "Value for attr 'data_format' of \"" + data_format + "\" is not in the list of allowed values: \"" +
                       format.channels_last + "\", \"" + format.channels_first + "\"");
        const bool channels_last = data_format == format.channels_last;
        if (wrapper && attr.padding == "EXPLICIT")
            refuse_ours("padding", attr.padding,
                        "tf.nn.convolution and Keras take padding \"VALID\" or \"SAME\"; EXPLICIT padding is the "
                        "Conv2D op's (the tensorflow dialect)");
        if (attr.padding != "SAME" && attr.padding != "VALID" && attr.padding != "EXPLICIT")
            refuse("padding", attr.padding,
                   "Value for attr 'padding' of \"" + attr.padding +
                       "\" is not in the list of allowed values: \"SAME\", \"VALID\", \"EXPLICIT\"");
        if (static_cast<int>(s.kernel_size.size()) != rank) refuse_ours("k", join(s.kernel_size), "one per axis");
        const auto strides = spatial_sequence("strides", attr.strides, rank, channels_last, "strides");
        const auto dilations = spatial_sequence("dilations", attr.dilations, rank, channels_last, "dilations");
        for (auto d : dilations)
            if (d < 1) refuse("dilations", join(dilations), "Dilated rates should be larger than 0.");
        for (auto st : strides)
            if (st < 1) refuse_ours("strides", join(strides), "every stride must be >= 1");
        // tf.nn.convolution's Python wrapper (nn_ops.py, _get_strides_and_dilation_rate; Keras' Conv
        // layers call it) refuses the combination; the Conv2D / Conv3D ops' shape function
        // (common_shape_fns.cc, Conv2DShapeImpl -> GetWindowedOutputSizeFromDimsV2) defines it.
        const bool strided = std::any_of(strides.begin(), strides.end(), [](auto v) { return v > 1; });
        const bool dilated = std::any_of(dilations.begin(), dilations.end(), [](auto v) { return v > 1; });
        if (wrapper && strided && dilated)
            refuse("strides", join(strides), "strides > 1 not supported in conjunction with dilation_rate > 1");

        AxisAttributes g{strides, dilations, repeat(0, rank), repeat(0, rank)};
        if (attr.padding == "EXPLICIT") {
            const auto& p = attr.explicit_paddings;
            const int n = static_cast<int>(p.size());
            if (n != 2 * rank && n != 2 * (rank + 2))
                refuse("explicit_paddings", join(p),
                       "explicit_paddings attribute must contain " + std::to_string(2 * (rank + 2)) +
                           " values, but got: " + std::to_string(n));
            for (auto v : p)
                if (v < 0) refuse("explicit_paddings", join(p), "All elements of explicit_paddings must be nonnegative");
            int first = 0;  // index of the first spatial pair
            if (n == 2 * (rank + 2)) {
                const int channel = channels_last ? rank + 1 : 1;
                if (p[0] || p[1] || p[2 * channel] || p[2 * channel + 1])
                    refuse("explicit_paddings", join(p),
                           "Nonzero explicit padding in the batch or depth dimensions is not supported");
                first = channels_last ? 1 : 2;
            }
            for (int a = 0; a < rank; ++a) {
                g.pads_begin[a] = p[2 * (first + a)];
                g.pads_end[a] = p[2 * (first + a) + 1];
            }
        } else if (!attr.explicit_paddings.empty()) {
            refuse("explicit_paddings", join(attr.explicit_paddings),
                   "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
        }

        std::vector<std::int64_t> out(rank);
        for (int a = 0; a < rank; ++a) {
            const std::int64_t in = s.input_size[a], st = strides[a];
            if (s.kernel_size[a] < 1) refuse_ours("k", join(s.kernel_size), "every kernel size must be >= 1");
            const std::int64_t K = (s.kernel_size[a] - 1) * dilations[a] + 1;
            if (attr.padding == "SAME") {
                out[a] = (in + st - 1) / st;
                const std::int64_t t = std::max<std::int64_t>(0, (out[a] - 1) * st + K - in);
                g.pads_begin[a] = t / 2;
                g.pads_end[a] = t - t / 2;
            } else {
                out[a] = trunc_div(in + g.pads_begin[a] + g.pads_end[a] - K + st, st);
            }
            if (out[a] < 0)
                refuse("k", join(s.kernel_size),
                       "Computed output size would be negative: " + std::to_string(out[a]) +
                           " [input_size: " + std::to_string(in) + ", effective_filter_size: " + std::to_string(K) +
                           ", stride: " + std::to_string(st) + "]");
        }
        DialectResult r;
        r.dialect = name;
        r.data_layout = data_format;
        r.filter_layout = rank == 1 ? "WIO" : rank == 2 ? "HWIO" : "DHWIO";
        const DataFormat df = channels_last ? DataFormat::nxc : DataFormat::ncx;
        r.descriptor = make_descriptor(s, 1, g, df, FilterFormat::xio);
        const PaddingRequest mode = attr.padding == "SAME"    ? PaddingRequest::same_upper
                                    : attr.padding == "VALID" ? PaddingRequest::valid
                                                              : PaddingRequest::explicit_pads;
        r.request = make_request(s, 1, g, mode, df);
        // TF's integer division truncates; where the numerator is negative but above -s it yields
        // out = 0 (an empty tensor) although floor would give -1: that is TF's own result.
        return conclude(r, out);
    });
}

namespace {
DialectResult read_entry_point(const AttributeSet& attributes, EntryPoint entry_point) {
    const std::string name = entry_point == EntryPoint::convolution_wrapper ? "tf_convolution" : "tensorflow";
    return guarded(name, [&] {
        Reader reader(attributes, name);
        ConvAttributes a;
        a.entry_point = entry_point;
        a.shapes = read_shapes(reader, true);
        a.strides = reader.list("strides").value_or(std::vector<std::int64_t>{});
        a.dilations = reader.list("dilations").value_or(std::vector<std::int64_t>{});
        a.padding = reader.text("padding").value_or("VALID");
        if (entry_point == EntryPoint::conv_op)
            a.explicit_paddings = reader.list("explicit_paddings").value_or(std::vector<std::int64_t>{});
        a.data_format = reader.text("data_format").value_or("");
        reader.refuse_unknown_keys();
        return conv(a);
    });
}
}  // namespace

DialectResult read(const AttributeSet& attributes) { return read_entry_point(attributes, EntryPoint::conv_op); }
DialectResult read_convolution(const AttributeSet& attributes) {
    return read_entry_point(attributes, EntryPoint::convolution_wrapper);
}

std::optional<AttributeSet> spell(const Request& q, std::string* why_not) {
    if (has_unshared_weights(q, "TensorFlow conv", why_not)) return std::nullopt;
    if (q.groups != 1) {
        *why_not = "TensorFlow has no groups attribute (it infers them from the filter depth); not spelled";
        return std::nullopt;
    }
    AttributeSet a = spell_shapes(q);
    a["strides"] = join(q.strides, q.rank);
    a["dilations"] = join(q.dilations, q.rank);
    if (q.data_format == DataFormat::ncx) a["data_format"] = formats_for(q.rank).channels_first;
    switch (q.padding) {
        case PaddingRequest::valid: a["padding"] = "VALID"; break;
        case PaddingRequest::same_upper:
        case PaddingRequest::same_lower: a["padding"] = "SAME"; break;  // TF has one SAME: the extra pad at the end
        case PaddingRequest::explicit_pads: {
            a["padding"] = "EXPLICIT";  // (the Conv2D op's; spell_convolution refuses it first)
            std::vector<std::int64_t> p;
            for (int i = 0; i < q.rank; ++i) {
                p.push_back(q.pads_begin[i]);
                p.push_back(q.pads_end[i]);
            }
            a["explicit_paddings"] = join(p);
            break;
        }
    }
    return a;
}

std::optional<AttributeSet> spell_convolution(const Request& q, std::string* why_not) {
    if (q.padding == PaddingRequest::explicit_pads) {
        *why_not = "tf.nn.convolution and Keras take padding SAME or VALID only (explicit pads are the Conv2D op's)";
        return std::nullopt;
    }
    return spell(q, why_not);
}

}  // namespace convcheck::reference::dialects::tensorflow
