// XNNPACK convolution2d (see xnnpack.hpp).
#include "convcheck/reference/dialects/xnnpack.hpp"

#include <algorithm>

#include "common.hpp"

namespace convcheck::reference::dialects::xnnpack {

using namespace detail;

namespace {
std::string pair(std::int64_t a, std::int64_t b) { return std::to_string(a) + "x" + std::to_string(b); }
}  // namespace

DialectResult convolution2d(const Convolution2dAttributes& attr) {
    const std::string name = attr.debian_snapshot_2022 ? "xnnpack@git20220216" : "xnnpack";
    return guarded(name, [&] {
        const ConvShapes& s = attr.shapes;
        require_in_range(s);
        require_in_range("attribute", std::vector<std::int64_t>{attr.input_padding_top, attr.input_padding_right, attr.input_padding_bottom, attr.input_padding_left, attr.subsampling_height, attr.subsampling_width, attr.dilation_height, attr.dilation_width, attr.groups});
        if (s.rank() != 2 || s.kernel_size.size() != 2)
            refuse_ours("in", join(s.input_size), "XNNPACK's convolution2d is 2-D only (in=HxW, k=HxW)");
        const std::int64_t kh = s.kernel_size[0], kw = s.kernel_size[1];
        const std::string prefix = "failed to create Convolution operator with ";
        if (kh <= 0 || kw <= 0)
            refuse("k", pair(kw, kh), prefix + pair(kw, kh) + " kernel: kernel dimensions must be non-zero");
        if (attr.subsampling_height <= 0 || attr.subsampling_width <= 0)
            refuse("subsampling", pair(attr.subsampling_height, attr.subsampling_width),
                   prefix + pair(attr.subsampling_width, attr.subsampling_height) +
                       " subsampling: subsampling dimensions must be non-zero");
        if (attr.dilation_height <= 0 || attr.dilation_width <= 0)
            refuse("dilation", pair(attr.dilation_height, attr.dilation_width),
                   prefix + pair(attr.dilation_width, attr.dilation_height) +
                       " dilation: dilation dimensions must be non-zero");
        if (attr.groups <= 0)
            refuse("groups", std::to_string(attr.groups),
                   prefix + std::to_string(attr.groups) + " groups: number of groups must be non-zero");
        const std::int64_t top = attr.input_padding_top, right = attr.input_padding_right,
                           bottom = attr.input_padding_bottom, left = attr.input_padding_left;
        if (std::min({top, right, bottom, left}) < 0)
            refuse_ours("input_padding", std::to_string(top) + "+" + std::to_string(left) + "x" +
                                             std::to_string(bottom) + "+" + std::to_string(right),
                        "XNNPACK's paddings are uint32_t: every one must be >= 0");
        const bool any_padding = (top | right | bottom | left) != 0;
        if (attr.tensorflow_same_padding && any_padding)
            refuse("flags", "TENSORFLOW_SAME_PADDING",
                   prefix + std::to_string(top) + "+" + std::to_string(left) + "x" + std::to_string(bottom) + "+" +
                       std::to_string(right) +
                       " padding: TensorFlow SAME padding can't be combined with explicit padding specification");

        const std::vector<std::int64_t> strides{attr.subsampling_height, attr.subsampling_width};
        const std::vector<std::int64_t> dilations{attr.dilation_height, attr.dilation_width};
        AxisAttributes g{strides, dilations, {top, left}, {bottom, right}};
        DialectResult r;
        r.dialect = name;
        r.data_layout = "NHWC";
        r.filter_layout = "OHWI";
        r.request = make_request(s, attr.groups, g,
                                 attr.tensorflow_same_padding ? PaddingRequest::same_upper : PaddingRequest::explicit_pads,
                                 DataFormat::nxc);
        // XNNPACK's messages give sizes width x height
        const std::int64_t in_h = s.input_size[0], in_w = s.input_size[1];
        const std::int64_t padded_h = top + in_h + bottom, padded_w = left + in_w + right;
        const std::int64_t K_h = (kh - 1) * attr.dilation_height + 1, K_w = (kw - 1) * attr.dilation_width + 1;
        std::vector<std::int64_t> out(2);
        for (int a = 0; a < 2; ++a) {
            const std::int64_t in = s.input_size[a], st = strides[a];
            const std::int64_t K = (s.kernel_size[a] - 1) * dilations[a] + 1;
            if (attr.tensorflow_same_padding) {
                out[a] = ceil_div(in, st);  // divide_round_up
                const std::int64_t t = std::max<std::int64_t>(0, (out[a] - 1) * st + K - in);
                g.pads_begin[a] = t / 2;
                g.pads_end[a] = t - t / 2;
            } else {
                const std::int64_t padded = g.pads_begin[a] + in + g.pads_end[a];
                // Today (src/operators/convolution-nhwc.c, commit a07bc8f71b): xnn_reshape_convolution2d_nhwc_*
                // refuses a padded input smaller than the effective kernel. The Debian snapshot
                // 0.0~git20220216 computed doz(padded, K) / s + 1 = 1 there (see the erratum).
                if (padded < K && !attr.debian_snapshot_2022)
                    refuse("k", join(s.kernel_size),
                           "failed to reshape Convolution (NHWC, F32) operator with " + pair(in_w, in_h) +
                               " input: the padded input (" + pair(padded_w, padded_h) +
                               ") is smaller than the effective kernel (" + pair(K_w, K_h) + ")");
                out[a] = std::max<std::int64_t>(0, padded - K) / st + 1;  // doz(padded, K) / s + 1
                if (padded < K) {
                    g.pads_end[a] += K - padded;
                    r.notes.push_back("axis " + std::to_string(a) + ": the kernel (" + std::to_string(K) +
                                      ") exceeds the padded input (" + std::to_string(padded) +
                                      "); doz() gives out = 1: read as pads_end + " + std::to_string(K - padded) +
                                      " (zeros)");
                }
            }
        }
        r.notes.push_back("weights are OHWI ([O][kH][kW][I/g]) in XNNPACK; the canonical descriptor says OIX");
        r.descriptor = make_descriptor(s, attr.groups, g, DataFormat::nxc, FilterFormat::oix);
        return conclude(r, out);
    });
}

namespace {
DialectResult read_version(const AttributeSet& attributes, bool debian_snapshot_2022) {
    const std::string name = debian_snapshot_2022 ? "xnnpack@git20220216" : "xnnpack";
    return guarded(name, [&] {
        Reader reader(attributes, name);
        Convolution2dAttributes a;
        a.debian_snapshot_2022 = debian_snapshot_2022;
        a.shapes = read_shapes(reader, false);
        if (a.shapes.rank() != 2) refuse_ours("in", join(a.shapes.input_size), "XNNPACK's convolution2d is 2-D only");
        const auto kh = reader.integer("kernel_height"), kw = reader.integer("kernel_width");
        if (kh || kw) {
            if (!a.shapes.kernel_size.empty()) refuse_ours("kernel_height", "", "give k or kernel_height/width, not both");
            a.shapes.kernel_size = {kh.value_or(1), kw.value_or(1)};
        }
        if (a.shapes.kernel_size.empty()) refuse_ours("k", "(missing)", "give k=HxW or kernel_height/kernel_width");
        a.input_padding_top = reader.integer("input_padding_top").value_or(0);
        a.input_padding_right = reader.integer("input_padding_right").value_or(0);
        a.input_padding_bottom = reader.integer("input_padding_bottom").value_or(0);
        a.input_padding_left = reader.integer("input_padding_left").value_or(0);
        a.subsampling_height = reader.integer("subsampling_height").value_or(1);
        a.subsampling_width = reader.integer("subsampling_width").value_or(1);
        a.dilation_height = reader.integer("dilation_height").value_or(1);
        a.dilation_width = reader.integer("dilation_width").value_or(1);
        a.groups = reader.integer("groups").value_or(1);
        const std::string flags = reader.text("flags").value_or("0");
        if (flags == "TENSORFLOW_SAME_PADDING" || flags == "XNN_FLAG_TENSORFLOW_SAME_PADDING") {
            a.tensorflow_same_padding = true;
        } else if (flags != "0") {
            refuse_ours("flags", flags, "must be 0 or TENSORFLOW_SAME_PADDING");
        }
        reader.refuse_unknown_keys();
        return convolution2d(a);
    });
}
}  // namespace

DialectResult read(const AttributeSet& attributes) { return read_version(attributes, false); }
DialectResult read_debian_snapshot_2022(const AttributeSet& attributes) { return read_version(attributes, true); }

std::optional<AttributeSet> spell(const Request& q, std::string* why_not) {
    if (has_unshared_weights(q, "XNNPACK", why_not)) return std::nullopt;
    if (q.rank != 2) {
        *why_not = "XNNPACK's convolution2d is 2-D only";
        return std::nullopt;
    }
    AttributeSet a = spell_shapes(q);
    a["subsampling_height"] = std::to_string(q.strides[0]);
    a["subsampling_width"] = std::to_string(q.strides[1]);
    a["dilation_height"] = std::to_string(q.dilations[0]);
    a["dilation_width"] = std::to_string(q.dilations[1]);
    a["groups"] = std::to_string(q.groups);
    // the flag is TF's SAME (extra at the end); a same_lower request is spelled with it and shown to differ
    if (q.padding == PaddingRequest::same_upper || q.padding == PaddingRequest::same_lower) {
        a["flags"] = "TENSORFLOW_SAME_PADDING";
    } else if (q.padding == PaddingRequest::explicit_pads) {
        a["input_padding_top"] = std::to_string(q.pads_begin[0]);
        a["input_padding_left"] = std::to_string(q.pads_begin[1]);
        a["input_padding_bottom"] = std::to_string(q.pads_end[0]);
        a["input_padding_right"] = std::to_string(q.pads_end[1]);
    }
    return a;
}

}  // namespace convcheck::reference::dialects::xnnpack
