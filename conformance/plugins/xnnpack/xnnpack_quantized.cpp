// The xnnpack plugin's quantized convolution (xnnpack_quantized.hpp). The translation (xnnpack.h, the 2022-02
// snapshot Debian ships):
//   operators   qs8: s8 src, weights and dst, one weights scale, no weights zero point; qc8: the same with one
//               weights scale per output channel; qu8: u8 src, weights and dst, a weights zero point. Any other
//               mix of types is declined in XNNPACK's terms.
//   scales      input_scale, kernel_scale(s) and output_scale as the case gives them: XNNPACK forms the
//               requantization scale input_scale * kernel_scale / output_scale itself.
//   range       output_min/max = dst_min/max (the output's range after the zero point, as XNNPACK's).
//   rounding    XNNPACK's x86 kernels requantize "fp32": (float) acc * scale, clamped, rounded to nearest even,
//               then + the output zero point: the plugin declares CONVCHECK_REQUANTIZATION_NEAREST_EVEN_F32.
//   layout      NHWC only: NCX src and dst are reordered into and out of NHWC copies here (integers, a
//               permutation of elements); weights to XNNPACK's [G][O/G][kh][kw][I/G]. Rank 1 is 2-D with a unit
//               axis; rank 3, strided tensors and negative pads are declined.
#include "xnnpack_quantized.hpp"

#include <xnnpack.h>

#include <cstring>
#include <string>
#include <vector>

#include "convcheck/plugin_quantized.hpp"

namespace convcheck_xnnpack {

namespace {

namespace support = convcheck_plugin_support;

enum class Kind { qs8, qc8, qu8 };

// The operator for the case, or why XNNPACK has none.
std::string kind_of(const convcheck_conv_desc& d, const convcheck_quantization& q, Kind* kind) {
    if (const std::string why = support::dense_only(d, "XNNPACK"); !why.empty()) return why;
    if (d.rank == 3) return "XNNPACK has no 3-D convolution (xnnpack.h: xnn_create_convolution2d_nhwc_* only)";
    if (support::per_channel_weights_zero_points(q))
        return "XNNPACK's quantized convolution takes one kernel_zero_point (xnn_create_convolution2d_nhwc_qu8; qs8 and "
               "qc8 none), not one per output channel";
    for (int a = 0; a < d.rank; ++a)
        if (d.pads_begin[a] < 0 || d.pads_end[a] < 0) return "a negative pad: XNNPACK's pads are unsigned (declined)";
    if (d.src_dtype == CONVCHECK_S8 && d.weights_dtype == CONVCHECK_S8 && d.dst_dtype == CONVCHECK_S8) {
        if (q.weights_zero_point != 0)
            return "XNNPACK's qs8 and qc8 convolution take no kernel zero point (symmetric s8 weights)";
        *kind = q.weights_scale_count == 1 ? Kind::qs8 : Kind::qc8;
        return "";
    }
    if (d.src_dtype == CONVCHECK_U8 && d.weights_dtype == CONVCHECK_U8 && d.dst_dtype == CONVCHECK_U8) {
        if (q.weights_scale_count != 1) return "XNNPACK's qu8 convolution takes one kernel scale (no per-channel qu8)";
        *kind = Kind::qu8;
        return "";
    }
    return "XNNPACK has quantized convolution for s8:s8:s8 (qs8, qc8) and u8:u8:u8 (qu8) only (xnnpack.h), not " +
           std::string(support::dtype_name(d.src_dtype)) + ":" + support::dtype_name(d.weights_dtype) + ":" +
           support::dtype_name(d.dst_dtype);
}

// The 2-D geometry XNNPACK takes: rank 1 as height 1.
struct Geometry {
    uint32_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, top = 0, left = 0, bottom = 0, right = 0;
    size_t ih = 1, iw = 1, oh = 1, ow = 1;
};
Geometry geometry_of(const convcheck_conv_desc& d) {
    Geometry g;
    const int w = d.rank - 1, h = d.rank == 2 ? 0 : -1;  // the axes; rank 1 has no height
    g.kw = d.kernel_size[w], g.sw = d.strides[w], g.dw = d.dilations[w], g.left = d.pads_begin[w], g.right = d.pads_end[w];
    g.iw = d.input_size[w], g.ow = support::output_size(d, w);
    if (h == 0) {
        g.kh = d.kernel_size[0], g.sh = d.strides[0], g.dh = d.dilations[0], g.top = d.pads_begin[0], g.bottom = d.pads_end[0];
        g.ih = d.input_size[0], g.oh = support::output_size(d, 0);
    }
    return g;
}

xnn_status create_operator(const convcheck_conv_desc& d, const convcheck_quantization& q, Kind kind, const void* weights,
                           const int32_t* bias, xnn_operator_t* op) {
    const Geometry g = geometry_of(d);
    const size_t gi = d.in_channels / d.groups, go = d.out_channels / d.groups;
    switch (kind) {
        case Kind::qs8:
            return xnn_create_convolution2d_nhwc_qs8(
                g.top, g.right, g.bottom, g.left, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, d.groups, gi, go, d.in_channels,
                d.out_channels, static_cast<int8_t>(q.src_zero_point), q.src_scale, q.weights_scales[0],
                static_cast<const int8_t*>(weights), bias, static_cast<int8_t>(q.dst_zero_point), q.dst_scale,
                static_cast<int8_t>(q.dst_min), static_cast<int8_t>(q.dst_max), 0, op);
        case Kind::qc8:
            return xnn_create_convolution2d_nhwc_qc8(
                g.top, g.right, g.bottom, g.left, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, d.groups, gi, go, d.in_channels,
                d.out_channels, static_cast<int8_t>(q.src_zero_point), q.src_scale, q.weights_scales,
                static_cast<const int8_t*>(weights), bias, static_cast<int8_t>(q.dst_zero_point), q.dst_scale,
                static_cast<int8_t>(q.dst_min), static_cast<int8_t>(q.dst_max), 0, op);
        case Kind::qu8:
            return xnn_create_convolution2d_nhwc_qu8(
                g.top, g.right, g.bottom, g.left, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, d.groups, gi, go, d.in_channels,
                d.out_channels, static_cast<uint8_t>(q.src_zero_point), q.src_scale,
                static_cast<uint8_t>(q.weights_zero_point), q.weights_scales[0], static_cast<const uint8_t*>(weights),
                bias, static_cast<uint8_t>(q.dst_zero_point), q.dst_scale, static_cast<uint8_t>(q.dst_min),
                static_cast<uint8_t>(q.dst_max), 0, op);
    }
    return xnn_status_invalid_parameter;
}

// Weights into XNNPACK's [G][O/G][kh][kw][I/G] (= [O][k...][I/G]) from OIX ([O][I/G][k...]) or XIO ([k...][I/G][O]);
// one byte an element, XNN_EXTRA_BYTES after.
std::vector<unsigned char> packed_weights(const convcheck_conv_desc& d, const void* from) {
    const int64_t gi = d.in_channels / d.groups, o_count = d.out_channels;
    int64_t taps = 1;
    for (int a = 0; a < d.rank; ++a) taps *= d.kernel_size[a];
    std::vector<unsigned char> w(static_cast<size_t>(o_count * taps * gi) + XNN_EXTRA_BYTES, 0);
    const auto* src = static_cast<const unsigned char*>(from);
    for (int64_t o = 0; o < o_count; ++o)
        for (int64_t t = 0; t < taps; ++t)
            for (int64_t i = 0; i < gi; ++i) {
                const int64_t at = d.filter_format == CONVCHECK_OIX ? (o * gi + i) * taps + t
                                   : d.filter_format == CONVCHECK_XIO ? (t * gi + i) * o_count + o
                                                                      : (o * taps + t) * gi + i;  // OXI
                w[static_cast<size_t>((o * taps + t) * gi + i)] = src[at];
            }
    return w;
}

// [N][C][spatial] <-> [N][spatial][C], one byte an element.
void transpose_channels(const unsigned char* from, unsigned char* to, int64_t n, int64_t c, int64_t spatial, bool to_nhwc) {
    for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t x = 0; x < spatial; ++x) {
                const int64_t ncx = (b * c + ch) * spatial + x, nxc = (b * spatial + x) * c + ch;
                to[to_nhwc ? nxc : ncx] = from[to_nhwc ? ncx : nxc];
            }
}

std::string refusal(xnn_status s) { return "XNNPACK refused the quantized operator: xnn_status " + std::to_string(s); }

using Operator = std::unique_ptr<xnn_operator, decltype(&xnn_delete_operator)>;

struct QuantizedPrepared : convcheck_conv_plan {
    QuantizedPrepared(pthreadpool_t threadpool, const convcheck_conv_desc& desc, const support::PrepareInputs& inputs)
        : convcheck_conv_plan(desc), threadpool(threadpool), quantization(*support::quantization_of(desc)) {
        if (const std::string why = kind_of(desc, quantization.q, &kind); !why.empty())
            throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, why);
        if (inputs.weights != nullptr) op = make(inputs.weights, inputs.bias);
    }
    Operator make(const void* weights, const void* bias) const {
        const std::vector<unsigned char> w = packed_weights(desc, weights);
        std::vector<int32_t> b;
        if (desc.has_bias) {
            b.assign(static_cast<size_t>(desc.out_channels) + XNN_EXTRA_BYTES / sizeof(int32_t), 0);
            std::memcpy(b.data(), bias, static_cast<size_t>(desc.out_channels) * sizeof(int32_t));
        }
        xnn_operator_t made = nullptr;
        const xnn_status s = create_operator(desc, quantization.q, kind, w.data(), desc.has_bias ? b.data() : nullptr, &made);
        Operator owned(made, xnn_delete_operator);
        if (s != xnn_status_success) throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, refusal(s));
        return owned;
    }
    convcheck_error* execute(const convcheck_conv_args& args) override {
        Operator fresh(nullptr, xnn_delete_operator);
        if (!op) fresh = make(args.weights, args.bias);
        xnn_operator_t o = op ? op.get() : fresh.get();
        const Geometry g = geometry_of(desc);
        const bool ncx = desc.data_format == CONVCHECK_NCX;
        const int64_t in_spatial = static_cast<int64_t>(g.ih * g.iw), out_spatial = static_cast<int64_t>(g.oh * g.ow);
        // XNNPACK may read XNN_EXTRA_BYTES past an input: src always goes through a padded copy
        std::vector<unsigned char> src(static_cast<size_t>(desc.batch * desc.in_channels * in_spatial) + XNN_EXTRA_BYTES, 0);
        if (ncx) transpose_channels(static_cast<const unsigned char*>(args.src), src.data(), desc.batch, desc.in_channels, in_spatial, true);
        else std::memcpy(src.data(), args.src, src.size() - XNN_EXTRA_BYTES);
        std::vector<unsigned char> nhwc(ncx ? static_cast<size_t>(desc.batch * desc.out_channels * out_spatial) : 0);
        void* dst = ncx ? static_cast<void*>(nhwc.data()) : args.dst;
        xnn_status s = xnn_status_success;
        switch (kind) {
            case Kind::qs8:
                s = xnn_setup_convolution2d_nhwc_qs8(o, desc.batch, g.ih, g.iw, reinterpret_cast<const int8_t*>(src.data()),
                                                     static_cast<int8_t*>(dst), threadpool);
                break;
            case Kind::qc8:
                s = xnn_setup_convolution2d_nhwc_qc8(o, desc.batch, g.ih, g.iw, reinterpret_cast<const int8_t*>(src.data()),
                                                     static_cast<int8_t*>(dst), threadpool);
                break;
            case Kind::qu8:
                s = xnn_setup_convolution2d_nhwc_qu8(o, desc.batch, g.ih, g.iw, src.data(), static_cast<uint8_t*>(dst), threadpool);
                break;
        }
        if (s == xnn_status_success) s = xnn_run_operator(o, threadpool);
        if (s != xnn_status_success) return support::make_error("xnn_setup/run_operator: xnn_status " + std::to_string(s));
        if (ncx) transpose_channels(nhwc.data(), static_cast<unsigned char*>(args.dst), desc.batch, desc.out_channels, out_spatial, false);
        support::write_implementation(&args, std::string("xnnpack:convolution2d_nhwc_") +
                                                 (kind == Kind::qs8 ? "qs8" : kind == Kind::qc8 ? "qc8" : "qu8") +
                                                 (ncx ? " [reordered ncx->nxc]" : ""));
        return nullptr;
    }
    pthreadpool_t threadpool;
    const support::QuantizationCopy quantization;
    Kind kind = Kind::qs8;
    Operator op{nullptr, xnn_delete_operator};
};

}  // namespace

convcheck_error* quantized_query(const convcheck_conv_desc& desc, convcheck_support* out) {
    const convcheck_quantization& q = *support::quantization_of(desc);
    Kind kind = Kind::qs8;
    if (const std::string why = kind_of(desc, q, &kind); !why.empty()) return support::unsupported(out, why);
    // ask XNNPACK itself, with zero weights and bias
    int64_t taps = 1;
    for (int a = 0; a < desc.rank; ++a) taps *= desc.kernel_size[a];
    std::vector<unsigned char> zeros(static_cast<size_t>(desc.out_channels * (desc.in_channels / desc.groups) * taps) + XNN_EXTRA_BYTES, 0);
    std::vector<int32_t> bias(static_cast<size_t>(desc.out_channels) + 4, 0);
    xnn_operator_t op = nullptr;
    const xnn_status s = create_operator(desc, q, kind, zeros.data(), desc.has_bias ? bias.data() : nullptr, &op);
    if (op != nullptr) xnn_delete_operator(op);
    return s == xnn_status_success ? support::supported(out) : support::unsupported(out, refusal(s));
}

std::unique_ptr<convcheck_conv_plan> quantized_plan(pthreadpool_t threadpool, const convcheck_conv_desc& desc,
                                                    const support::PrepareInputs& inputs) {
    return std::make_unique<QuantizedPrepared>(threadpool, desc, inputs);
}

}  // namespace convcheck_xnnpack
