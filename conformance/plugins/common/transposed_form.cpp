// Transposed convolution as a 2-D library deconvolution takes it (convcheck/adaptation/transposed_form.hpp).
#include "convcheck/adaptation/transposed_form.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/adaptation/window_copy.hpp"

namespace convcheck_plugin_support {

namespace {
__extension__ typedef __int128 i128;

// (in-1)*s + (k-1)*d + 1 of axis a, exact in 128 bits: an invalid case may hold any int64 values.
i128 whole_output(const convcheck_conv_transposed_desc& t, int a) {
    return (i128(t.input_size[a]) - 1) * t.strides[a] + (i128(t.kernel_size[a]) - 1) * t.dilations[a] + 1;
}

// The output size of axis a, whole - pb - pe + op, exact.
i128 exact_output_size(const convcheck_conv_transposed_desc& t, int a) {
    return whole_output(t, a) - t.pads_begin[a] - t.pads_end[a] + t.output_padding[a];
}
}  // namespace

std::string transposed_beyond_64_bits(const convcheck_conv_transposed_desc& t) {
    const auto beyond = [](i128 v) { return v > INT64_MAX || v < INT64_MIN; };
    for (int a = 0; a < t.rank && a < 3; ++a) {
        const i128 pb = t.pads_begin[a], pe = t.pads_end[a], op = t.output_padding[a];
        const std::pair<const char*, i128> numbers[] = {{"the kernel's span (k-1)*d+1", (i128(t.kernel_size[a]) - 1) * t.dilations[a] + 1},
                                                        {"the whole output (in-1)*s + (k-1)*d + 1", whole_output(t, a)},
                                                        {"the output size (in-1)*s - pb - pe + (k-1)*d + 1 + op", exact_output_size(t, a)},
                                                        {"pads_end - output_padding", pe - op},
                                                        {"output_padding - pads_end", op - pe},
                                                        {"output_padding + pads_begin - pads_end", op + pb - pe}};
        for (const auto& [name, v] : numbers)
            if (beyond(v)) return std::string(name) + " of axis " + std::to_string(a) + " is beyond 64 bits";
    }
    return "";
}

int64_t transposed_output_size(const convcheck_conv_transposed_desc& t, int a) { return int64_t(exact_output_size(t, a)); }

std::string transposed_crop_hides(const convcheck_conv_transposed_desc& t) {
    constexpr int64_t limit = int64_t{1} << 40;  // the descriptor's bound (core transposed_descriptor.cpp)
    for (int a = 0; a < t.rank && a < 3; ++a) {
        const std::string axis = "[" + std::to_string(a) + "] = ";
        if (t.output_padding[a] < 0) return "output_padding" + axis + std::to_string(t.output_padding[a]) + " < 0";
        for (const auto& [name, v] : {std::pair<const char*, int64_t>{"pads_begin", t.pads_begin[a]},
                                      {"pads_end", t.pads_end[a]}, {"output_padding", t.output_padding[a]}})
            if (v > limit || v < -limit) return name + axis + std::to_string(v) + " beyond 2^40";
        const i128 out = exact_output_size(t, a);
        if (out < 1 || out > INT64_MAX)
            return "the output size" + axis + (out < 1 ? std::to_string(int64_t(out < INT64_MIN ? INT64_MIN : out)) + " < 1"
                                                      : std::string("beyond 64 bits"));
    }
    return "";
}

Transposed2d transposed_2d(const convcheck_conv_transposed_desc& t, const TransposedPadsRule& rule) {
    Transposed2d g;
    const bool as_is = !transposed_crop_hides(t).empty();
    for (int a = 0; a < 2; ++a) {
        const int c = t.rank == 1 ? a - 1 : a;  // the case's axis; -1: rank 1's unit height
        if (c < 0) continue;
        TransposedAxis& x = g.axes[a];
        const int64_t pb = t.pads_begin[c], pe = t.pads_end[c], op = t.output_padding[c];
        x.in = t.input_size[c], x.kernel = t.kernel_size[c], x.stride = t.strides[c], x.dilation = t.dilations[c];
        const int64_t span = (x.kernel - 1) * x.dilation + 1;
        x.out = (x.in - 1) * x.stride - pb - pe + span + op;
        x.computed = (x.in - 1) * x.stride + span;
        x.offset = pb;
        // end - adjustment = pe - op keeps the size; begin = pb keeps the taps. A negative op stays op.
        const int64_t adjustment = op < 0                ? op
                                   : !rule.adjustment    ? 0
                                   : rule.symmetric      ? op + pb - pe
                                                         : std::max<int64_t>(0, op - pe);
        x.begin = pb, x.end = op < 0 ? pe : pe - op + adjustment, x.adjustment = adjustment;
        const int64_t most = rule.adjustment ? x.stride - 1 : 0;
        g.direct = g.direct && pb >= 0 && x.end >= 0 && adjustment >= 0 && adjustment <= most;
    }
    g.direct = g.direct || as_is;
    for (TransposedAxis& x : g.axes) {
        if (g.direct)
            x.computed = x.out, x.offset = 0;
        else
            x.begin = x.end = x.adjustment = 0;
    }
    g.library_bias = t.has_bias && g.direct;
    return g;
}

std::string transposed_2d_inexpressible(const convcheck_conv_transposed_desc& t, const TransposedPadsRule& rule,
                                        const char* plugin, const char* library) {
    if (std::string why = transposed_beyond_64_bits(t); !why.empty())
        return std::string("the ") + plugin + " plugin cannot hand this case to " + library + ": " + why;
    if (t.rank != 1 && t.rank != 2) return "rank " + std::to_string(t.rank) + " is not a rank of a 2-D deconvolution";
    if (t.data_format != CONVCHECK_NCX && t.data_format != CONVCHECK_NXC) return "NCX or NXC data only";
    if (t.filter_format != CONVCHECK_OIX && t.filter_format != CONVCHECK_XIO) return "OIX or XIO weights only";
    if (t.groups <= 0 || t.in_channels % t.groups != 0 || t.out_channels % t.groups != 0)
        return std::string("the ") + plugin + " plugin cannot express groups = " + std::to_string(t.groups) + " with C = " +
               std::to_string(t.in_channels) + ", O = " + std::to_string(t.out_channels) + " to " + library +
               ": it takes C/G and O/G channels per group";
    return transposed_output_padding_inexpressible(t, rule, plugin, library);
}

std::string transposed_output_padding_inexpressible(const convcheck_conv_transposed_desc& t, const TransposedPadsRule& rule,
                                                    const char* plugin, const char* library) {
    for (int a = 0; a < t.rank && a < 3; ++a) {
        if (t.output_padding[a] >= 0) continue;
        const std::string cannot = std::string("the ") + plugin + " plugin cannot express output_padding[" + std::to_string(a) +
                                   "] = " + std::to_string(t.output_padding[a]) + " to " + library;
        if (!rule.adjustment)
            return cannot + ": it has no output padding (the plugin says a non-negative one as a smaller end pad, "
                            "pads_end - output_padding, which would make this one a valid, larger end pad)";
        if (rule.symmetric && t.pads_begin[a] != t.pads_end[a])
            return cannot + " with pads_begin = " + std::to_string(t.pads_begin[a]) + " != pads_end = " +
                   std::to_string(t.pads_end[a]) + ": it takes one pad per axis and an adjustment (only a fold of "
                   "the output padding into the pads could say this case)";
    }
    return "";
}

bool transposed_dilated(const convcheck_conv_transposed_desc& t) {
    for (int a = 0; a < t.rank; ++a)
        if (t.dilations[a] != 1) return true;
    return false;
}

std::vector<int> transposed_runner_order(const convcheck_conv_transposed_desc& t) {
    return t.data_format == CONVCHECK_NCX ? std::vector<int>{0, 1, 2, 3, 4} : std::vector<int>{0, 3, 4, 1, 2};
}

void transposed_src_to(const convcheck_conv_transposed_desc& t, const Transposed2d& g, const void* src,
                       const std::vector<int>& library, void* out) {
    const std::vector<int64_t> dims{t.batch, t.groups, t.in_channels / t.groups, g.axes[0].in, g.axes[1].in};
    WindowCopy copy;
    copy.from = src, copy.from_layout = {dims, transposed_runner_order(t)};
    copy.to = out, copy.to_layout = {dims, library};
    copy.offset.assign(5, 0), copy.element_bytes = element_bytes(t.dtype);
    copy_window(copy);
}

void transposed_dst_from(const convcheck_conv_transposed_desc& t, const Transposed2d& g, const void* result,
                         const std::vector<int>& library, const void* bias, void* dst) {
    const TransposedAxis &h = g.axes[0], &w = g.axes[1];
    WindowCopy copy;
    const int64_t G = t.groups, per_group = t.out_channels / t.groups;
    copy.from = result, copy.from_layout = {{t.batch, G, per_group, h.computed, w.computed}, library};
    copy.to = dst, copy.to_layout = {{t.batch, G, per_group, h.out, w.out}, transposed_runner_order(t)};
    copy.offset = {0, 0, 0, h.offset, w.offset}, copy.element_bytes = element_bytes(t.dtype);
    copy_window(copy);
    if (!t.has_bias || g.library_bias) return;
    // f32 only: a plugin crops 16-bit results never (they would be rounded before the bias).
    const auto* b = static_cast<const float*>(bias);
    auto* d = static_cast<float*>(dst);
    const int64_t spatial = h.out * w.out;
    for (int64_t n = 0; n < t.batch; ++n)
        for (int64_t p = 0; p < spatial; ++p)
            for (int64_t o = 0; o < t.out_channels; ++o)
                d[t.data_format == CONVCHECK_NCX ? (n * t.out_channels + o) * spatial + p
                                                 : (n * spatial + p) * t.out_channels + o] += b[o];
}

void transposed_weights_to(const convcheck_conv_transposed_desc& t, const Transposed2d& g, const void* weights,
                           const std::vector<int>& library, void* out) {
    const int64_t G = t.groups;
    const std::vector<int64_t> dims{G, t.in_channels / G, t.out_channels / G, g.axes[0].kernel, g.axes[1].kernel};
    WindowCopy copy;
    copy.from = weights;
    // OIX: [C][O/G][k...] = [G][C/G][O/G][kh][kw]; XIO: [k...][O/G][C] = [kh][kw][O/G][G][C/G].
    copy.from_layout = {dims, t.filter_format == CONVCHECK_OIX ? std::vector<int>{0, 1, 2, 3, 4} : std::vector<int>{3, 4, 2, 0, 1}};
    copy.to = out, copy.to_layout = {dims, library};
    copy.offset.assign(5, 0), copy.element_bytes = element_bytes(t.dtype);
    copy_window(copy);
}

}  // namespace convcheck_plugin_support
