// TensorFlow atrous_conv2d: the dialect (direct reading) and the seed's space_to_batch reduction.
#include "convcheck/reference/dialects/atrous.hpp"

#include "common.hpp"
#include "convcheck/reference/convolution.hpp"

namespace convcheck::reference::dialects::atrous {

using namespace detail;

Reduction atrous_paddings(std::int64_t height, std::int64_t width, std::int64_t filter_height,
                          std::int64_t filter_width, std::int64_t rate, const std::string& padding) {
    if (rate < 1) throw ConvError("rate", std::to_string(rate), "rate " + std::to_string(rate) + " cannot be less than one");
    if (padding != "SAME" && padding != "VALID")
        throw ConvError("padding", padding, "ValueError: padding is other than 'VALID' or 'SAME'");
    if (height < 1 || width < 1 || filter_height < 1 || filter_width < 1)
        throw ConvError("shape", std::to_string(height) + "x" + std::to_string(width) + ", filter " +
                                     std::to_string(filter_height) + "x" + std::to_string(filter_width),
                        "sizes must be >= 1");
    Reduction r;
    const std::int64_t size[2] = {height, width}, filter[2] = {filter_height, filter_width};
    for (int a = 0; a < 2; ++a) {
        std::int64_t before = 0, after = 0;
        if (padding == "SAME") {
            // filter_height_up = filter_height + (filter_height - 1) * (rate - 1); pad = filter_height_up - 1
            const std::int64_t filter_up = filter[a] + (filter[a] - 1) * (rate - 1);
            const std::int64_t pad = filter_up - 1;
            before = pad / 2;
            after = pad - before;
        }
        // "padding so that the input dims are multiples of rate": pad_extra = (rate - in % rate) % rate
        const std::int64_t padded = size[a] + before + after;
        const std::int64_t extra = (rate - padded % rate) % rate;
        r.paddings[a] = {before, after + extra};
        r.crops[a] = {0, extra};
    }
    return r;
}

namespace {
void check_tensor(const Nhwc& t, const char* name) {
    if (t.batch < 0 || t.height < 0 || t.width < 0 || t.channels < 0 ||
        static_cast<std::int64_t>(t.values.size()) != t.batch * t.height * t.width * t.channels)
        throw ConvError(name, std::to_string(t.values.size()) + " values", "must hold batch*height*width*channels values");
}
void check_block(std::int64_t block) {
    if (block < 1) throw ConvError("block_size", std::to_string(block), "must be >= 1");
}
}  // namespace

Nhwc space_to_batch(const Nhwc& input, const Pads2& p, std::int64_t block) {
    check_tensor(input, "input");
    check_block(block);
    for (const auto& pad : p)
        if (pad[0] < 0 || pad[1] < 0) throw ConvError("paddings", "", "paddings must be non-negative");
    const std::int64_t padded_h = input.height + p[0][0] + p[0][1], padded_w = input.width + p[1][0] + p[1][1];
    if (padded_h % block != 0 || padded_w % block != 0)
        throw ConvError("paddings", std::to_string(padded_h) + "x" + std::to_string(padded_w),
                        "padded shape must be a multiple of block_size " + std::to_string(block));
    Nhwc out;
    out.batch = input.batch * block * block;
    out.height = padded_h / block;
    out.width = padded_w / block;
    out.channels = input.channels;
    out.values.assign(out.batch * out.height * out.width * out.channels, 0.0);
    for (std::int64_t i = 0; i < block; ++i)
        for (std::int64_t j = 0; j < block; ++j)
            for (std::int64_t b = 0; b < input.batch; ++b)
                for (std::int64_t y = 0; y < out.height; ++y)
                    for (std::int64_t x = 0; x < out.width; ++x) {
                        const std::int64_t h = y * block + i - p[0][0], w = x * block + j - p[1][0];
                        if (h < 0 || h >= input.height || w < 0 || w >= input.width) continue;  // zero padding
                        for (std::int64_t c = 0; c < input.channels; ++c)
                            out.at((i * block + j) * input.batch + b, y, x, c) = input.at(b, h, w, c);
                    }
    return out;
}

Nhwc batch_to_space(const Nhwc& input, const Pads2& crops, std::int64_t block) {
    check_tensor(input, "input");
    check_block(block);
    if (input.batch % (block * block) != 0)
        throw ConvError("batch", std::to_string(input.batch), "must be divisible by block_size^2");
    for (const auto& c : crops)
        if (c[0] < 0 || c[1] < 0) throw ConvError("crops", "", "Crops must be non-negative");
    const std::int64_t batch = input.batch / (block * block);
    const std::int64_t full_h = input.height * block, full_w = input.width * block;
    const std::int64_t h = full_h - crops[0][0] - crops[0][1], w = full_w - crops[1][0] - crops[1][1];
    if (h < 0 || w < 0)
        throw ConvError("crops", std::to_string(h) + "x" + std::to_string(w),
                        "cropped_shape[" + std::string(h < 0 ? "0" : "1") + "]=" + std::to_string(h < 0 ? h : w) +
                            " must be non-negative");
    Nhwc out;
    out.batch = batch;
    out.height = h;
    out.width = w;
    out.channels = input.channels;
    out.values.assign(batch * h * w * input.channels, 0.0);
    for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t oy = 0; oy < h; ++oy)
            for (std::int64_t ox = 0; ox < w; ++ox) {
                const std::int64_t fy = oy + crops[0][0], fx = ox + crops[1][0];
                const std::int64_t y = fy / block, i = fy % block, x = fx / block, j = fx % block;
                for (std::int64_t c = 0; c < input.channels; ++c)
                    out.at(b, oy, ox, c) = input.at((i * block + j) * batch + b, y, x, c);
            }
    return out;
}

Nhwc atrous_conv2d_by_space_to_batch(const Nhwc& value, const std::vector<double>& filters_hwio,
                                     std::int64_t kh, std::int64_t kw, std::int64_t out_channels,
                                     std::int64_t rate, const std::string& padding) {
    const Reduction red = atrous_paddings(value.height, value.width, kh, kw, rate, padding);
    check_tensor(value, "value");
    if (out_channels < 1 || static_cast<std::int64_t>(filters_hwio.size()) != kh * kw * value.channels * out_channels)
        throw ConvError("filters", std::to_string(filters_hwio.size()) + " values",
                        "must hold filter_height*filter_width*in_channels*out_channels values");
    const Nhwc net = space_to_batch(value, red.paddings, rate);
    // conv2d(net, filters, strides=[1, 1, 1, 1], padding="VALID"): out = in - k + 1 (TF: < 0 is an error)
    const std::int64_t oh = net.height - kh + 1, ow = net.width - kw + 1;
    if (oh < 0 || ow < 0)
        throw ConvError("k", std::to_string(kh) + "x" + std::to_string(kw),
                        "Computed output size would be negative: " + std::to_string(oh < 0 ? oh : ow));
    Nhwc conv;
    conv.batch = net.batch;
    conv.height = oh;
    conv.width = ow;
    conv.channels = out_channels;
    conv.values.assign(conv.batch * oh * ow * out_channels, 0.0);
    if (oh > 0 && ow > 0) {
        // the VALID conv is reading 1 of the reference, on canonical NCX / OIX doubles
        ConvDescriptor d;
        d.rank = 2;
        d.batch = net.batch;
        d.in_channels = net.channels;
        d.out_channels = out_channels;
        d.input_size = {net.height, net.width, 1};
        d.kernel_size = {kh, kw, 1};
        validate(d);
        std::vector<double> src(d.src_elements()), weights(d.weights_elements());
        for (std::int64_t n = 0; n < net.batch; ++n)
            for (std::int64_t c = 0; c < net.channels; ++c)
                for (std::int64_t y = 0; y < net.height; ++y)
                    for (std::int64_t x = 0; x < net.width; ++x)
                        src[((n * net.channels + c) * net.height + y) * net.width + x] = net.at(n, y, x, c);
        for (std::int64_t o = 0; o < out_channels; ++o)
            for (std::int64_t c = 0; c < net.channels; ++c)
                for (std::int64_t y = 0; y < kh; ++y)
                    for (std::int64_t x = 0; x < kw; ++x)
                        weights[((o * net.channels + c) * kh + y) * kw + x] =
                            filters_hwio[((y * kw + x) * net.channels + c) * out_channels + o];
        const ConvResult r = convolution_summation(d, src, weights, {});
        for (std::int64_t n = 0; n < conv.batch; ++n)
            for (std::int64_t o = 0; o < out_channels; ++o)
                for (std::int64_t y = 0; y < oh; ++y)
                    for (std::int64_t x = 0; x < ow; ++x)
                        conv.at(n, y, x, o) = r.dst[((n * out_channels + o) * oh + y) * ow + x];
    }
    return batch_to_space(conv, red.crops, rate);
}

DialectResult atrous_conv2d(const AtrousConv2dAttributes& attr) {
    return guarded("atrous", [&] {
        const ConvShapes& s = attr.shapes;
        require_in_range(s);
        require_in_range("rate", attr.rate);
        if (s.rank() != 2 || s.kernel_size.size() != 2)
            refuse_ours("in", join(s.input_size), "atrous_conv2d is 2-D: in=HxW, k=HxW");
        if (attr.rate < 1) refuse("rate", std::to_string(attr.rate), "rate " + std::to_string(attr.rate) + " cannot be less than one");
        if (attr.padding != "SAME" && attr.padding != "VALID")
            refuse("padding", attr.padding, "ValueError: padding is other than 'VALID' or 'SAME'");
        for (auto k : s.kernel_size)
            if (k < 1) refuse_ours("k", join(s.kernel_size), "every filter size must be >= 1");
        // The shapes of the reduction decide the outcome, exactly as TF would meet them.
        const Reduction red =
            atrous_paddings(s.input_size[0], s.input_size[1], s.kernel_size[0], s.kernel_size[1], attr.rate, attr.padding);
        std::vector<std::int64_t> out(2);
        AxisAttributes g{{1, 1}, {attr.rate, attr.rate}, {0, 0}, {0, 0}};
        for (int a = 0; a < 2; ++a) {
            const std::int64_t blocks = (s.input_size[a] + red.paddings[a][0] + red.paddings[a][1]) / attr.rate;
            const std::int64_t conv = blocks - s.kernel_size[a] + 1;  // VALID, stride 1
            if (conv < 0)
                refuse("k", join(s.kernel_size),
                       "Computed output size would be negative: " + std::to_string(conv) + " [input_size: " +
                           std::to_string(blocks) + ", effective_filter_size: " + std::to_string(s.kernel_size[a]) +
                           ", stride: 1]");
            out[a] = conv * attr.rate - red.crops[a][1];
            if (out[a] < 0)
                refuse("k", join(s.kernel_size),
                       "cropped_shape[" + std::to_string(a) + "]=" + std::to_string(out[a]) + " must be non-negative");
            g.pads_begin[a] = red.paddings[a][0];
            g.pads_end[a] = red.paddings[a][1] - red.crops[a][1];  // the base pad; the extra is cropped again
        }
        DialectResult r;
        r.dialect = "atrous";
        r.data_layout = "NHWC";
        r.filter_layout = "HWIO";
        r.descriptor = make_descriptor(s, 1, g, DataFormat::nxc, FilterFormat::xio);
        r.request = make_request(s, 1, g, attr.padding == "SAME" ? PaddingRequest::same_upper : PaddingRequest::valid,
                                 DataFormat::nxc);
        return conclude(r, out);
    });
}

DialectResult read(const AttributeSet& attributes) {
    return guarded("atrous", [&] {
        Reader reader(attributes, "atrous");
        AtrousConv2dAttributes a;
        a.shapes = read_shapes(reader, true);
        a.rate = reader.integer("rate").value_or(1);
        a.padding = reader.text("padding").value_or("VALID");
        reader.refuse_unknown_keys();
        return atrous_conv2d(a);
    });
}

std::optional<AttributeSet> spell(const Request& q, std::string* why_not) {
    if (has_unshared_weights(q, "atrous_conv2d", why_not)) return std::nullopt;
    if (q.rank != 2) {
        *why_not = "atrous_conv2d is 2-D only";
        return std::nullopt;
    }
    if (q.groups != 1) {
        *why_not = "atrous_conv2d has no groups";
        return std::nullopt;
    }
    if (q.strides[0] != 1 || q.strides[1] != 1) {
        *why_not = "atrous_conv2d has no stride (it is always 1)";
        return std::nullopt;
    }
    if (q.dilations[0] != q.dilations[1]) {
        *why_not = "atrous_conv2d has one rate for both axes";
        return std::nullopt;
    }
    if (q.padding == PaddingRequest::explicit_pads) {
        *why_not = "atrous_conv2d takes SAME or VALID only, no explicit pads";
        return std::nullopt;
    }
    AttributeSet a = spell_shapes(q);
    a["rate"] = std::to_string(q.dilations[0]);
    a["padding"] = q.padding == PaddingRequest::valid ? "VALID" : "SAME";
    return a;
}

}  // namespace convcheck::reference::dialects::atrous
