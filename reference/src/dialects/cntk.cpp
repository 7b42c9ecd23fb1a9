// CNTK Convolution (see cntk.hpp).
#include "convcheck/reference/dialects/cntk.hpp"

#include <algorithm>

#include "common.hpp"

namespace convcheck::reference::dialects::cntk {

using namespace detail;

namespace {

// "Convolution stride tensor must have rank 1 or the same as the input tensor."
template <class T>
T at_axis(const std::vector<T>& v, std::size_t axis, const char* tensor, std::size_t axes, const std::string& text) {
    if (v.size() != 1 && v.size() != axes)
        refuse(tensor, text,
               std::string("Convolution ") + tensor + " tensor must have rank 1 or the same as the input tensor.");
    return v[v.size() == 1 ? 0 : axis];
}

std::string bools(const std::vector<bool>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ":" : "") + std::string(v[i] ? "true" : "false");
    return s;
}

}  // namespace

DialectResult convolution(const ConvolutionAttributes& attr) {
    return guarded("cntk", [&] {
        const ConvShapes& s = attr.shapes;
        require_in_range(s);
        for (auto* v : {&attr.kernel, &attr.stride, &attr.lower_pad, &attr.upper_pad, &attr.dilation}) require_in_range("attribute", *v);
        require_in_range("mapCount", attr.map_count);
        const int rank = s.rank();
        const std::size_t axes = rank + 1;  // CNTK's input tensor: [W x H x C]
        if (attr.image_layout != "cudnn")
            refuse("imageLayout", attr.image_layout,
                   "imageLayout: The only supported value is cudnn (N-D syntax)");
        if (attr.kernel.size() != axes)
            refuse("kernel", join(attr.kernel, ':'), "Convolution input and kernel tensors must have the same rank.");
        if (attr.kernel.back() != s.in_channels)
            refuse("kernel", join(attr.kernel, ':'),
                   "the last kernel dimension must be equal to the number of input channels (" +
                       std::to_string(s.in_channels) + ")");
        const std::int64_t maps = attr.map_count == 0 ? s.out_channels : attr.map_count;
        ConvShapes shapes = s;
        shapes.out_channels = maps;
        shapes.kernel_size.assign(rank, 1);

        AxisAttributes g{repeat(1, rank), repeat(1, rank), repeat(0, rank), repeat(0, rank)};
        std::vector<std::int64_t> out(rank);
        DialectResult r;
        r.dialect = "cntk";
        bool any_auto = false, any_manual = false;
        for (std::size_t i = 0; i < axes; ++i) {
            const bool channel_axis = i == axes - 1;
            const int a = channel_axis ? -1 : rank - 1 - static_cast<int>(i);  // CNTK axis -> convcheck axis
            const std::int64_t in = channel_axis ? s.in_channels : s.input_size[a];
            const std::int64_t k = attr.kernel[i];
            const std::int64_t stride = at_axis(attr.stride, i, "stride", axes, join(attr.stride, ':'));
            const bool shared = at_axis(attr.sharing, i, "sharing", axes, bools(attr.sharing));
            const bool autopad = at_axis(attr.auto_padding, i, "padding", axes, bools(attr.auto_padding));
            const std::int64_t lo = at_axis(attr.lower_pad, i, "lower pad", axes, join(attr.lower_pad, ':'));
            const std::int64_t hi = at_axis(attr.upper_pad, i, "upper pad", axes, join(attr.upper_pad, ':'));
            const std::int64_t dil = at_axis(attr.dilation, i, "dilation", axes, join(attr.dilation, ':'));
            if (k < 1) refuse_ours("kernel", join(attr.kernel, ':'), "every kernel dimension must be >= 1");
            if (stride < 1) refuse_ours("stride", join(attr.stride, ':'), "every stride must be >= 1");
            if (dil < 1) refuse_ours("dilation", join(attr.dilation, ':'), "every dilation must be >= 1");
            if (lo < 0 || hi < 0)
                refuse_ours(lo < 0 ? "lowerPad" : "upperPad", join(lo < 0 ? attr.lower_pad : attr.upper_pad, ':'),
                            "CNTK's lowerPad/upperPad are unsigned (size_t): every one must be >= 0");
            const std::int64_t checked = in + (autopad ? 0 : lo + hi);
            if (k > checked)
                refuse("kernel", join(attr.kernel, ':'),
                       "Convolution operation requires that kernel dim " + std::to_string(k) + " <= input dim " +
                           std::to_string(in) + ".");
            const std::int64_t K = (k - 1) * dil + 1;
            std::int64_t o, pb, pe;
            if (autopad) {
                o = ceil_div(in, stride);
                const std::int64_t e = (in - 1) % stride;  // the extra cells beside the first..last centres
                pb = (K - 1) / 2 - e / 2;
                pe = ceil_div(K - 1, 2) - ceil_div(e, 2);
            } else {
                o = floor_div(in + lo + hi - K, stride) + 1;
                if ((lo > 0 || hi > 0) && (o - 1) * stride + k < in + lo)
                    refuse("lowerPad", join(attr.lower_pad, ':'),
                           "Convolution requires that kernel fills the entire space if auto-padding is disabled.");
                pb = lo;
                pe = hi;
            }
            if (channel_axis) {
                if (o != 1)
                    refuse_ours("autoPadding", bools(attr.auto_padding),
                                "along the channel axis the kernel must give one output position (got " +
                                    std::to_string(o) +
                                    "): \"The last value that lines up with the number of input channels must be "
                                    "false\"");
                continue;
            }
            (autopad ? any_auto : any_manual) = true;
            shapes.kernel_size[a] = k;
            g.strides[a] = stride;
            g.dilations[a] = dil;
            g.pads_begin[a] = pb;
            g.pads_end[a] = pe;
            out[a] = o;
            r.weights_shared[a] = shared;
            if (pb < 0 || pe < 0)
                r.notes.push_back("axis " + std::to_string(a) + ": autoPadding gives pads " + std::to_string(pb) +
                                  "/" + std::to_string(pe) + " (negative: CNTK crops instead of padding)");
            if (!shared)
                r.notes.push_back("axis " + std::to_string(a) +
                                  ": sharing=false: one kernel per output position (locally connected)");
        }
        r.data_layout = "cudnn ([W x H x C] column-major = CHW)";
        r.filter_layout = "[mapCount, kW*kH*C] (= OIX)";
        r.descriptor = make_descriptor(shapes, 1, g, DataFormat::ncx, FilterFormat::oix);
        // a mix of autoPadding and explicit axes has no single neutral name: call it explicit
        r.request = make_request(shapes, 1, g,
                                 any_auto && !any_manual ? PaddingRequest::same_upper : PaddingRequest::explicit_pads,
                                 DataFormat::ncx);
        r.request.weights_shared = r.weights_shared;
        return conclude(r, out);
    });
}

DialectResult convolution2d(const Convolution2dAttributes& attr) {
    return guarded("cntk", [&] {
        const ConvShapes& s = attr.shapes;
        if (s.rank() != 2) refuse_ours("in", join(s.input_size), "the 2-D syntax needs in=HxW");
        if (attr.image_layout != "cudnn" && attr.image_layout != "HWC")
            refuse_ours("imageLayout", attr.image_layout, "must be \"cudnn\" or \"HWC\"");
        ConvolutionAttributes nd;
        nd.shapes = s;
        nd.kernel = {attr.kernel_width, attr.kernel_height, s.in_channels};
        nd.map_count = attr.map_count;
        nd.stride = {attr.horizontal_stride, attr.vertical_stride, s.in_channels};
        nd.auto_padding = {attr.zero_padding, attr.zero_padding, false};
        DialectResult r = convolution(nd);
        if (r.error) return r;
        if (attr.image_layout == "HWC") {
            r.descriptor.data_format = DataFormat::nxc;
            r.request.data_format = DataFormat::nxc;
            r.data_layout = "HWC ([C x W x H] column-major = HWC)";
        }
        return r;
    });
}

DialectResult read(const AttributeSet& attributes) {
    return guarded("cntk", [&] {
        Reader reader(attributes, "cntk");
        if (attributes.count("kernelWidth") || attributes.count("kernelHeight")) {
            Convolution2dAttributes a;
            a.shapes = read_shapes(reader, false);
            auto required = [&](const char* key) {
                auto v = reader.integer(key);
                if (!v) refuse_ours(key, "(missing)", "a positional parameter of the 2-D syntax");
                return *v;
            };
            a.kernel_width = required("kernelWidth");
            a.kernel_height = required("kernelHeight");
            a.horizontal_stride = required("horizontalStride");
            a.vertical_stride = required("verticalStride");
            a.map_count = reader.integer("mapCount").value_or(0);
            a.zero_padding = reader.boolean("zeroPadding").value_or(false);
            a.image_layout = reader.text("imageLayout").value_or("cudnn");
            reader.refuse_unknown_keys();
            return convolution2d(a);
        }
        ConvolutionAttributes a;
        a.shapes = read_shapes(reader, false);
        if (auto kernel = reader.list("kernel")) {
            if (!a.shapes.kernel_size.empty()) refuse_ours("kernel", join(*kernel, ':'), "give kernel or k, not both");
            a.kernel = *kernel;
        } else if (!a.shapes.kernel_size.empty()) {
            a.kernel.assign(a.shapes.kernel_size.rbegin(), a.shapes.kernel_size.rend());  // CNTK order: W first
            a.kernel.push_back(a.shapes.in_channels);
        } else {
            refuse_ours("kernel", "(missing)", "give kernel=kW:kH:C (CNTK order) or k=HxW");
        }
        a.map_count = reader.integer("mapCount").value_or(0);
        if (auto v = reader.list("stride")) a.stride = *v;
        if (auto v = reader.boolean_list("sharing")) a.sharing = *v;
        if (auto v = reader.boolean_list("autoPadding")) a.auto_padding = *v;
        if (auto v = reader.list("lowerPad")) a.lower_pad = *v;
        if (auto v = reader.list("upperPad")) a.upper_pad = *v;
        if (auto v = reader.list("dilation")) a.dilation = *v;
        a.image_layout = reader.text("imageLayout").value_or("cudnn");
        reader.refuse_unknown_keys();
        return convolution(a);
    });
}

namespace {
// CNTK's own auto pads on one axis (cntk.hpp), for recognising them in an explicit request.
std::pair<std::int64_t, std::int64_t> auto_pads(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t d) {
    const std::int64_t K = (k - 1) * d + 1, e = (in - 1) % s;
    return {(K - 1) / 2 - e / 2, ceil_div(K - 1, 2) - ceil_div(e, 2)};
}
}  // namespace

std::optional<AttributeSet> spell(const Request& q, std::string* why_not) {
    if (q.groups != 1) {
        *why_not = "CNTK's Convolution of seed 003 has no groups";
        return std::nullopt;
    }
    const bool same = q.padding == PaddingRequest::same_upper || q.padding == PaddingRequest::same_lower;
    // Per axis (convcheck order): padded automatically, or by lowerPad/upperPad. An explicit request
    // whose pads on an axis are exactly CNTK's auto pads is spelled with autoPadding there (that is how
    // CNTK itself produces them, negative ones included).
    std::array<bool, kMaxSpatialRank> automatic{false, false, false};
    for (int a = 0; a < q.rank; ++a) {
        if (same) {
            automatic[a] = true;
        } else if (q.padding == PaddingRequest::explicit_pads && q.kernel_size[a] <= q.input_size[a] &&
                   q.strides[a] >= 1 && q.dilations[a] >= 1) {
            const auto [pb, pe] = auto_pads(q.input_size[a], q.kernel_size[a], q.strides[a], q.dilations[a]);
            automatic[a] = pb == q.pads_begin[a] && pe == q.pads_end[a] && (pb != 0 || pe != 0);
        }
        if (!automatic[a] && q.padding == PaddingRequest::explicit_pads && (q.pads_begin[a] < 0 || q.pads_end[a] < 0)) {
            *why_not = "CNTK's lowerPad/upperPad are unsigned: negative pads come only from autoPadding";
            return std::nullopt;
        }
    }
    AttributeSet a;
    a["n"] = std::to_string(q.batch);
    a["c"] = std::to_string(q.in_channels);
    a["in"] = join(q.input_size, q.rank);
    a["mapCount"] = std::to_string(q.out_channels);
    if (q.data_format == DataFormat::nxc) {
        // "HWC" exists only in the 2-D syntax: dense, shared, zeroPadding on both axes or neither
        const bool plain = q.rank == 2 && q.dilations[0] == 1 && q.dilations[1] == 1 && q.weights_shared[0] &&
                           q.weights_shared[1] && automatic[0] == automatic[1] &&
                           (automatic[0] || (q.pads_begin[0] == 0 && q.pads_end[0] == 0 && q.pads_begin[1] == 0 &&
                                             q.pads_end[1] == 0));
        if (!plain) {
            *why_not = "CNTK's HWC image layout exists only in the 2-D syntax (no dilation, no explicit pads)";
            return std::nullopt;
        }
        a["kernelWidth"] = std::to_string(q.kernel_size[1]);
        a["kernelHeight"] = std::to_string(q.kernel_size[0]);
        a["horizontalStride"] = std::to_string(q.strides[1]);
        a["verticalStride"] = std::to_string(q.strides[0]);
        a["zeroPadding"] = automatic[0] ? "true" : "false";
        a["imageLayout"] = "HWC";
        return a;
    }
    auto cntk_order = [&](const SpatialDims& v, std::int64_t channel) {
        std::vector<std::int64_t> out;
        for (int i = q.rank - 1; i >= 0; --i) out.push_back(v[i]);
        out.push_back(channel);
        return join(out, ':');
    };
    a["kernel"] = cntk_order(q.kernel_size, q.in_channels);
    a["stride"] = cntk_order(q.strides, q.in_channels);
    a["dilation"] = cntk_order(q.dilations, 1);
    bool all_shared = true, any_manual = false;
    std::string sharing, flags;
    SpatialDims lower{0, 0, 0}, upper{0, 0, 0};
    for (int i = q.rank - 1; i >= 0; --i) {
        sharing += q.weights_shared[i] ? "true:" : "false:";
        all_shared = all_shared && q.weights_shared[i];
        flags += automatic[i] ? "true:" : "false:";
        if (!automatic[i] && q.padding == PaddingRequest::explicit_pads) {
            lower[i] = q.pads_begin[i];
            upper[i] = q.pads_end[i];
            any_manual = any_manual || lower[i] != 0 || upper[i] != 0;
        }
    }
    if (!all_shared) a["sharing"] = sharing + "true";
    a["autoPadding"] = flags + "false";
    if (any_manual) {
        a["lowerPad"] = cntk_order(lower, 0);
        a["upperPad"] = cntk_order(upper, 0);
    }
    return a;
}

}  // namespace convcheck::reference::dialects::cntk
