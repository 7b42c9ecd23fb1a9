// oneDNN deconvolution primitive (src/common/deconvolution.cpp, deconv_desc_init), read literally:
//   dilates 0-BASED (0 = dense): ker_range = 1 + (k - 1) * (dilate + 1)
//   the user gives dst; oneDNN accepts it when, per axis, strides > 0 ("bad dimension strides"),
//   dilates >= 0, padding_l >= 0 and padding_r + strides > 0, and
//       (dst - ker_range + padding_l + padding_r) / strides + 1 == src      (C division, truncating)
//   so several dst sizes are accepted for one src: from min = (src - 1) * strides - padding_l - padding_r
//   + ker_range up to min + strides - 1 (the extra is PyTorch's output_padding), and for src = 1 also
//   sizes below min whose numerator truncates to 0 (read as a larger pads_end: the output crops).
//   weights [OC][IC/G][k...] ("OIX", O = dst channels) or [k...][IC/G][OC] ("XIO"): the canonical
//   transposed weights are [IC][OC/G][k...] (the forward's), so the channel axes are swapped: a reorder.
// Without dst= the dialect takes min (no output padding).
#include "onednn_words.hpp"
#include "transposed_common.hpp"

namespace convcheck::reference::dialects::onednn {

using namespace dialects::detail;
using namespace onednn::detail;

TransposedResult read_deconvolution(const AttributeSet& attributes) {
    return guarded_transposed("onednn_deconvolution", [&] {
        Reader reader(attributes, "onednn_deconvolution");
        const ConvShapes s = read_shapes(reader, true);
        const int rank = s.rank();
        const std::vector<std::int64_t> none;
        const auto strides = per_axis("strides", reader.list("strides").value_or(none), rank, 1);
        const auto dilates = per_axis("dilates", reader.list("dilates").value_or(none), rank, 0);
        const auto padding_l = per_axis("padding_l", reader.list("padding_l").value_or(none), rank, 0);
        const auto padding_r = per_axis("padding_r", reader.list("padding_r").value_or(none), rank, 0);
        const auto dst_v = reader.list("dst");
        const std::int64_t groups = reader.integer("groups").value_or(1);
        const std::string data_format = reader.text("data_format").value_or("NCX");
        const std::string weights_format = reader.text("weights_format").value_or("OIX");
        const bool bias = reader.boolean("bias").value_or(false);
        reader.refuse_unknown_keys();
        const DataFormat df = data_format_of("data_format", data_format);
        const FilterFormat ff = filter_format_of("weights_format", weights_format);
        if (groups < 1) refuse_ours("groups", std::to_string(groups), "the number of groups must be >= 1");
        if (s.in_channels % groups != 0 || s.out_channels % groups != 0)
            refuse("groups", std::to_string(groups),
                   "invalid_arguments: inconsistent dimensions: src and dst channels must be multiples of groups");
        const std::vector<std::int64_t> dst = dst_v ? per_axis("dst", *dst_v, rank, 1) : std::vector<std::int64_t>{};
        TransposedAxisAttributes g{strides, repeat(1, rank), padding_l, padding_r, repeat(0, rank)};
        std::vector<std::int64_t> out(rank);
        TransposedResult r;
        r.dialect = "onednn_deconvolution";
        for (int a = 0; a < rank; ++a) {
            if (strides[a] < 1) refuse("strides", join(strides), "invalid_arguments: bad dimension strides:" + std::to_string(a));
            if (dilates[a] < 0 || padding_l[a] < 0 || padding_r[a] + strides[a] <= 0) {
                const char* which = dilates[a] < 0 ? "dilates" : padding_l[a] < 0 ? "padding_l" : "padding_r";
                const auto& v = dilates[a] < 0 ? dilates : padding_l[a] < 0 ? padding_l : padding_r;
                refuse(which, join(v),
                       "invalid_arguments: problem is not mathematically consistent (needs dilates >= 0, padding_l >= 0 "
                       "and padding_r + strides > 0 on axis " + std::to_string(a) + ")");
            }
            g.dilations[a] = dilates[a] + 1;  // 0-based -> 1-based
            const std::int64_t ker_range = 1 + (s.kernel_size[a] - 1) * (dilates[a] + 1);
            const std::int64_t min = (s.input_size[a] - 1) * strides[a] - padding_l[a] - padding_r[a] + ker_range;
            out[a] = dst.empty() ? min : dst[a];
            if (out[a] < 1)
                refuse_ours("dst", join(dst.empty() ? std::vector<std::int64_t>{min} : dst),
                            "a dst size " + std::to_string(out[a]) + " on axis " + std::to_string(a) +
                                " (no memory descriptor has a dimension below 1)");
            if (trunc_div(out[a] - ker_range + padding_l[a] + padding_r[a], strides[a]) + 1 != s.input_size[a])
                refuse("dst", join(out),
                       "invalid_arguments: problem is not mathematically consistent: (dst - ker_range + padding_l + "
                       "padding_r) / strides + 1 = " +
                           std::to_string(trunc_div(out[a] - ker_range + padding_l[a] + padding_r[a], strides[a]) + 1) +
                           " != src " + std::to_string(s.input_size[a]) + " on axis " + std::to_string(a));
            if (out[a] >= min) {
                g.output_padding[a] = out[a] - min;
            } else {  // src = 1, the numerator truncated to 0: the output stops short: a larger pads_end
                g.pads_end[a] += min - out[a];
                r.notes.push_back("axis " + std::to_string(a) + ": dst " + std::to_string(out[a]) + " below " +
                                  std::to_string(min) + " passes the C-division check; read as pads_end + " +
                                  std::to_string(min - out[a]) + " (a crop)");
            }
        }
        r.data_layout = data_format;
        r.filter_layout = weights_format;
        r.notes.push_back(std::string("weights ") + (ff == FilterFormat::oix ? "[OC][IC/G][k...]" : "[k...][IC/G][OC]") +
                          " (O = dst channels): the canonical transposed weights are " +
                          (ff == FilterFormat::oix ? "[IC][OC/G][k...]" : "[k...][OC/G][IC]") +
                          ", the channel axes swapped: a reorder is implied");
        r.descriptor = make_transposed(s, groups, g, df, ff);
        r.descriptor.has_bias = bias;
        return conclude_transposed(r, out, PaddingRequest::explicit_pads);
    });
}

std::optional<AttributeSet> spell_deconvolution(const TransposedRequest& q, std::string* /*why_not: every request*/) {
    const TransposedDescriptor& t = q.geometry;
    AttributeSet a = spell_shapes(t);
    std::vector<std::int64_t> dilates, out;
    for (int i = 0; i < t.rank; ++i) {
        dilates.push_back(t.dilations[i] - 1);
        out.push_back(t.output_size(i));
    }
    a["strides"] = join(t.strides, t.rank);
    a["dilates"] = join(dilates);
    a["padding_l"] = join(t.pads_begin, t.rank);
    a["padding_r"] = join(t.pads_end, t.rank);
    a["dst"] = join(out);
    a["groups"] = std::to_string(t.groups);
    a["data_format"] = t.data_format == DataFormat::nxc ? "NXC" : "NCX";
    a["weights_format"] = t.filter_format == FilterFormat::xio ? "XIO" : "OIX";
    if (t.has_bias) a["bias"] = "true";
    return a;
}

}  // namespace convcheck::reference::dialects::onednn
