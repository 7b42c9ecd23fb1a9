// The limits of the optimized implementation's index arithmetic (see index_range.hpp).
#include "index_range.hpp"

#include "convcheck/optimized/conv_plan.hpp"

#include <algorithm>
#include <string>

namespace convcheck::optimized::detail {
namespace {

using i64 = std::int64_t;

// a * b when it stays at most kMaxWorkspaceFloats; otherwise -1 (and then every later product too)
i64 bounded_product(i64 a, i64 b) {
    i64 out = 0;
    if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &out) || out > kMaxWorkspaceFloats) return -1;
    return out;
}

i64 round_up(i64 v, i64 multiple) { return v > kMaxWorkspaceFloats ? -1 : (v + multiple - 1) / multiple * multiple; }

std::string dims_text(const ConvDescriptor& d, const std::int64_t* per_axis) {
    std::string s;
    for (int a = 0; a < d.rank; ++a) s += (a ? "x" : "") + std::to_string(per_axis[a]);
    return s;
}

const std::string kLimit = " to hold at most 2^60 floats (so that every byte offset fits in 62 bits)";

}  // namespace

void check_index_range(const ConvDescriptor& d) {
    // xp: [N][Dp][Hp][Wp][Cs], Cs = C rounded up to 16 (depthwise); each spatial extent the larger of the
    // input and the padded input (a negative pad crops, and depthwise reads the unpadded input)
    std::int64_t extent[3]{1, 1, 1};
    i64 xp = bounded_product(d.batch, round_up(d.in_channels, 16));
    for (int a = 0; a < d.rank; ++a) {
        i64 padded = 0;
        if (__builtin_add_overflow(d.input_size[a], d.pads_begin[a], &padded) ||
            __builtin_add_overflow(padded, d.pads_end[a], &padded))
            padded = -1;
        extent[a] = padded < 0 ? -1 : std::max(padded, d.input_size[a]);
        xp = xp < 0 ? -1 : bounded_product(xp, extent[a]);
    }
    if (xp < 0)
        throw ConvError("pads_begin/pads_end", "input+pads=" + dims_text(d, extent),
                        "the optimized implementation needs its padded input workspace (N x (input + pads_begin + "
                        "pads_end) x C rounded up to 16)" + kLimit);
    // y: [N][OD][OH][OW][O]
    std::int64_t out[3]{1, 1, 1};
    i64 y = bounded_product(d.batch, round_up(d.out_channels, 16));
    for (int a = 0; a < d.rank; ++a) {
        out[a] = d.output_size(a);
        y = y < 0 ? -1 : bounded_product(y, out[a]);
    }
    if (y < 0)
        throw ConvError("output_size", dims_text(d, out),
                        "the optimized implementation needs its output workspace (N x output x O rounded up to 16)" + kLimit);
    // packed weights [G][OCg rounded up to 64][taps][ICg], and an im2col chunk of up to 1024 pixels x taps x ICg
    i64 taps = 1;
    for (int a = 0; a < d.rank; ++a) taps = taps < 0 ? -1 : bounded_product(taps, d.kernel_size[a]);
    i64 w = taps < 0 ? -1 : bounded_product(taps, std::max<i64>(1024, round_up(d.in_channels, 16)));
    w = w < 0 ? -1 : bounded_product(w, round_up(d.out_channels, 64));
    if (w < 0)
        throw ConvError("kernel_size", dims_text(d, d.kernel_size.data()),
                        "the optimized implementation needs its packed weights and im2col chunks (taps x max(1024, C) x O, "
                        "rounded up)" + kLimit);
}

void check_workspace_size(const ConvDescriptor& d) {
    check_index_range(d);  // every product below then stays within 2^60
    i64 xp = d.batch * round_up(d.in_channels, 16);
    std::int64_t extent[3]{1, 1, 1};
    for (int a = 0; a < d.rank; ++a) {
        extent[a] = std::max(d.input_size[a] + d.pads_begin[a] + d.pads_end[a], d.input_size[a]);
        xp *= extent[a];
    }
    const i64 data = d.src_elements() + d.dst_elements();
    if (xp > kWorkspaceFloor && xp / kWorkspaceRatio > data)
        throw ConvError("pads_begin/pads_end", "input+pads=" + dims_text(d, extent),
                        "the optimized implementation materialises its padded input (N x (input + pads_begin + "
                        "pads_end) x C rounded up to 16 = " + std::to_string(xp) + " floats), which must stay within "
                        "2^26 floats or within 32 times the input and output together (" + std::to_string(data) +
                        " elements): padding this much larger than the data is declined, not allocated");
}

}  // namespace convcheck::optimized::detail

namespace convcheck::optimized {

std::string why_layout_unsupported(const ConvDescriptor& d) {
    if (d.filter_format == FilterFormat::oxi)
        return "the optimized implementation takes OIX and XIO weights, not OXI";
    if (!d.src_strides.empty() || !d.weights_strides.empty() || !d.dst_strides.empty())
        return "the optimized implementation takes dense tensors only (no memory strides)";
    return "";
}

std::string why_dtypes_unsupported(const ConvDescriptor& d) {
    if (d.mixed())
        return "the optimized implementation takes one dtype for every tensor, not " + dtypes_text(d) +
               " (mixed per-tensor dtypes)";
    return "";
}

std::string why_too_large(const ConvDescriptor& d) {
    try {
        detail::check_workspace_size(d);
    } catch (const ConvError& e) {
        return e.what();
    }
    return "";
}

}  // namespace convcheck::optimized
