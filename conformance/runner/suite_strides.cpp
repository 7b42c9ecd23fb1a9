// The strides suite (docs/runner.md): tensors that are not dense (ABI 1.2 memory strides,
// core/include/convcheck/core/memory_layout.hpp) and the OXI (OHWI) filter format. On five problems (1-D, 2-D with bias,
// 3-D, grouped with dilation, depthwise) and both data formats: each tensor strided alone — a
// permuted view (the memory in the other format's order), padded rows (a row pitch wider than the
// row), padded channels, a batch pitch with a gap — and all three together; OXI dense and strided,
// with NCX and NXC. Exact mode on f32 (a tensor read dense, a gap read as data or OXI read as OIX
// changes the outputs), bound mode on f16 and bf16, probe mode on a few (a NaN in one input must
// reach exactly its receptive field through the strides). A backend that does not claim strides or
// OXI declines these cases, counted as skipped.
#include "convcheck/core/memory_layout.hpp"
#include "convcheck/runner/suites.hpp"

namespace convcheck::runner {

namespace {

// Strides of `dims` laid out in memory in `order` (outermost first, indices into dims), dim i padded
// by pad[i] elements (a pitch wider than the extent).
std::vector<std::int64_t> laid_out(const std::vector<std::int64_t>& dims, const std::vector<int>& order,
                                   std::vector<std::int64_t> pad = {}) {
    pad.resize(dims.size(), 0);
    std::vector<std::int64_t> strides(dims.size());
    std::int64_t step = 1;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        strides[static_cast<std::size_t>(*it)] = step;
        step *= dims[static_cast<std::size_t>(*it)] + pad[static_cast<std::size_t>(*it)];
    }
    return strides;
}

std::vector<int> in_order(std::size_t n) {
    std::vector<int> o(n);
    for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<int>(i);
    return o;
}

// The memory order of an activation in the other data format: NCX dims stored NXC, or NXC dims stored NCX.
std::vector<int> other_format_order(const ConvDescriptor& d) {
    const int r = d.rank;
    std::vector<int> o{0};
    if (d.data_format == DataFormat::ncx) {
        for (int a = 0; a < r; ++a) o.push_back(2 + a);
        o.push_back(1);
    } else {
        o.push_back(r + 1);
        for (int a = 0; a < r; ++a) o.push_back(1 + a);
    }
    return o;
}

// The channel dim's index in the activation's format order.
std::size_t channel_dim(const ConvDescriptor& d) { return d.data_format == DataFormat::ncx ? 1 : d.rank + 1; }

// The innermost spatial dim's index in the activation's format order (a row).
std::size_t row_dim(const ConvDescriptor& d) { return d.data_format == DataFormat::ncx ? d.rank + 1 : d.rank; }

std::vector<int> reversed(std::size_t n) {
    std::vector<int> o(n);
    for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<int>(n - 1 - i);
    return o;
}

void add(std::vector<SuiteEntry>& out, const ConvDescriptor& d, const std::string& modes, const std::string& name) {
    out.push_back({to_string(d), modes, name});
}

// The variants of one problem in one data format and filter format.
void variants(std::vector<SuiteEntry>& out, const std::string& base, const std::string& name, const std::string& modes,
              bool all_variants) {
    const ConvDescriptor d = parse_descriptor(base);
    const auto src = d.src_dims(), weights = d.weights_dims(), dst = d.dst_dims();
    const std::string prefix = name + "_" + std::string(to_string(d.data_format)) + "_" + std::string(to_string(d.filter_format));
    auto with = [&](auto set, const std::string& variant, const std::string& m) {
        ConvDescriptor v = d;
        set(v);
        add(out, v, m, prefix + "_" + variant);
    };
    with([&](ConvDescriptor& v) { v.src_strides = laid_out(src, other_format_order(d)); }, "src_permuted", modes);
    std::vector<std::int64_t> row_pad(src.size(), 0);
    row_pad[row_dim(d)] = 3;
    with([&](ConvDescriptor& v) { v.src_strides = laid_out(src, in_order(src.size()), row_pad); }, "src_padded_rows", modes);
    with([&](ConvDescriptor& v) { v.weights_strides = laid_out(weights, reversed(weights.size())); }, "weights_permuted",
         modes);
    std::vector<std::int64_t> dst_row_pad(dst.size(), 0);
    dst_row_pad[row_dim(d)] = 2;
    with([&](ConvDescriptor& v) { v.dst_strides = laid_out(dst, in_order(dst.size()), dst_row_pad); }, "dst_padded_rows",
         modes);
    if (!all_variants) return;
    std::vector<std::int64_t> channel_pad(src.size(), 0);
    channel_pad[channel_dim(d)] = 5;
    with([&](ConvDescriptor& v) { v.src_strides = laid_out(src, in_order(src.size()), channel_pad); },
         "src_padded_channels", modes);
    with(
        [&](ConvDescriptor& v) {
            v.src_strides = dense_strides(src);
            v.src_strides[0] += 7;  // seven elements of gap between images
        },
        "src_batch_pitch", modes);
    std::vector<std::int64_t> weights_pad(weights.size(), 0);
    weights_pad.back() = 4;
    with([&](ConvDescriptor& v) { v.weights_strides = laid_out(weights, in_order(weights.size()), weights_pad); },
         "weights_padded", modes);
    with([&](ConvDescriptor& v) { v.dst_strides = laid_out(dst, other_format_order(d)); }, "dst_permuted", modes);
    with(
        [&](ConvDescriptor& v) {
            v.src_strides = laid_out(src, other_format_order(d), row_pad);
            v.weights_strides = laid_out(weights, reversed(weights.size()), weights_pad);
            v.dst_strides = laid_out(dst, other_format_order(d), dst_row_pad);
        },
        "all_strided", modes + (modes.find('p') == std::string::npos ? "p" : ""));
}

}  // namespace

std::vector<SuiteEntry> strides_suite() {
    std::vector<SuiteEntry> out;
    const std::string conv2d = "n=2,c=3,o=4,in=5x6,k=3x3,pb=1x1,pe=1x1,bias=1";
    const std::string conv1d = "n=2,c=4,o=2,in=9,k=3,s=2,pb=1,pe=0";
    const std::string conv3d = "c=2,o=3,in=3x4x5,k=2x2x3,pb=0x1x1,pe=1x0x1";
    const std::string grouped = "c=4,o=6,g=2,in=6x5,k=3x2,s=2x1,d=1x2,pb=1x0,pe=0x1";
    const std::string depthwise = "c=6,o=6,g=6,in=7x7,k=3x3,pb=1x1,pe=1x1,bias=1";
    // every variant on the 2-D problem in both data formats; the others with a subset
    variants(out, conv2d + ",data=ncx,wei=oix", "conv2d", "e", true);
    variants(out, conv2d + ",data=nxc,wei=xio", "conv2d", "e", true);
    variants(out, conv1d + ",data=nxc,wei=oix", "conv1d", "e", false);
    variants(out, conv3d + ",data=ncx,wei=xio", "conv3d", "e", false);
    variants(out, grouped + ",data=nxc,wei=oix", "grouped", "e", false);
    variants(out, depthwise + ",data=ncx,wei=oxi", "depthwise", "e", false);
    variants(out, conv2d + ",data=ncx,wei=oix,dt=f16", "conv2d_f16", "b", false);
    // OXI (OHWI: XNNPACK, TOSA, oneDNN's NHWC paths), dense, with both data formats and every rank
    out.push_back({conv2d + ",data=nxc,wei=oxi", "ep", "oxi_nxc"});
    out.push_back({conv2d + ",data=ncx,wei=oxi", "e", "oxi_ncx"});
    out.push_back({conv1d + ",data=nxc,wei=oxi", "e", "oxi_1d"});
    out.push_back({conv3d + ",data=nxc,wei=oxi", "e", "oxi_3d"});
    out.push_back({grouped + ",data=nxc,wei=oxi", "e", "oxi_grouped"});
    out.push_back({conv2d + ",data=nxc,wei=oxi,dt=bf16", "b", "oxi_bf16"});
    // strides that name the dense layout: the same case as no strides, sent as strides
    {
        ConvDescriptor d = parse_descriptor(conv2d + ",data=nxc,wei=oxi");
        d.src_strides = dense_strides(d.src_dims());
        d.weights_strides = dense_strides(d.weights_dims());
        d.dst_strides = dense_strides(d.dst_dims());
        add(out, d, "e", "explicit_dense_strides");
    }
    return out;
}

}  // namespace convcheck::runner
