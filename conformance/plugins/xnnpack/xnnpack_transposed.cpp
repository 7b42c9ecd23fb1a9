// The xnnpack plugin's transposed convolution (docs/transposed.md, ABI 1.3): XNNPACK's deconvolution
// operator, xnn_create_deconvolution2d_nhwc_f32 / _f16 and xnn_setup_deconvolution2d_nhwc_*.
//
// The translation (xnnpack.h; XNNPACK's output size is (in-1)*stride + adjustment + (k-1)*dilation + 1
// - padding_top - padding_bottom, and output y takes input (y + padding_top - k*dilation) / stride):
//   pads      XNNPACK's "output_padding" top/right/bottom/left are what is cut from the output: the
//             descriptor's pads_begin / pads_end. Its adjustment (the descriptor's output padding) must be
//             below the stride, and padding_bottom only enters the output size, so the plugin passes
//             adjustment = max(0, op - pe) and padding_bottom = pe - op + adjustment (the same output
//             size, the same taps). Where that is not possible (a negative pad, op - pe >= stride), XNNPACK
//             computes the whole output (no pads, no adjustment, no bias), and the plugin moves the part
//             the case keeps into dst (zeros where no tap reaches) and adds the bias in f32 (f32 only:
//             a 16-bit result would be rounded before the bias; "[cropped]" in the implementation string).
//   weights   XNNPACK's are [G][O/G][kh][kw][C/G] ("goki", O the dst channels, C the src channels): OIX
//             ([C][O/G][k...]) and XIO ([k...][O/G][C]) are reordered into it (exact data movement).
//   data      NHWC: NCX is reordered in and out. Rank 1 is 2-D with a unit height; rank 3 is declined
//             (XNNPACK has no 3-D deconvolution).
//   dtypes    f32 and f16 (where XNNPACK has kernels on this CPU: asked by creating the operator); no bf16.
//   output    no clamping: output_min/max = -inf/+inf.
#include "xnnpack_transposed.hpp"

#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/adaptation/transposed_form.hpp"
#include "convcheck/plugin_transposed.hpp"

namespace support = convcheck_plugin_support;

namespace convcheck_xnnpack {

namespace {

using support::Transposed2d;
using support::TransposedAxis;

// XNNPACK's pads: unsigned, asymmetric, an adjustment below the stride.
const support::TransposedPadsRule kRule{true, false};
Transposed2d geometry(const convcheck_conv_transposed_desc& t) { return support::transposed_2d(t, kRule); }

// XNNPACK's arrays: NHWC data ({N, G, C/G, H, W} as [N][H][W][G][C/G]), [G][O/G][kh][kw][C/G] weights.
const std::vector<int> kNhwc{0, 3, 4, 1, 2};
const std::vector<int> kGoki{0, 2, 3, 4, 1};

std::string not_computable(const convcheck_conv_transposed_desc& t) {
    if (t.dtype != CONVCHECK_F32 && t.dtype != CONVCHECK_F16)
        return std::string("XNNPACK has deconvolution operators for f32 and f16 only (xnnpack.h: "
                           "xnn_create_deconvolution2d_nhwc_f32, _f16, and quantized qs8/qu8; no bf16), not ") +
               support::dtype_name(t.dtype);
    if (t.rank == 3)
        return "XNNPACK has no 3-D deconvolution (xnnpack.h: xnn_create_deconvolution2d_nhwc_* only)";
    if (std::string why = support::transposed_2d_inexpressible(t, kRule, "xnnpack", "XNNPACK"); !why.empty()) return why;
    const Transposed2d g = geometry(t);
    if (!g.direct && t.dtype != CONVCHECK_F32)
        return "XNNPACK's deconvolution takes unsigned pads and an adjustment below the stride only; the plugin crops "
               "an f32 result only (a 16-bit one would be rounded before the bias is added)";
    for (const TransposedAxis& x : g.axes)
        for (int64_t v : {x.in, x.kernel, x.stride, x.dilation, x.begin, x.end, x.adjustment, x.out})
            if (v < 0 || v > UINT32_MAX)
                return "the xnnpack plugin cannot express " + std::to_string(v) +
                       " to XNNPACK: its sizes, kernel, stride, dilation, padding and adjustment parameters are unsigned "
                       "32-bit";
    // The arrays the plugin hands XNNPACK (checked before any is allocated, as for the forward convolution).
    const TransposedAxis &h = g.axes[0], &w = g.axes[1];
    const size_t bytes = support::element_bytes(t.dtype);
    size_t src = bytes, weights = bytes, dst = bytes;
    if (!support::multiply_into(&src, {t.batch, t.in_channels, h.in, w.in}) ||
        !support::multiply_into(&weights, {t.in_channels, t.out_channels / t.groups, h.kernel, w.kernel}) ||
        !support::multiply_into(&dst, {t.batch, t.out_channels, h.computed, w.computed}))
        return "the xnnpack plugin cannot express this case to XNNPACK: its src, weights or dst has more bytes than "
               "size_t holds, so no array of it can be handed to XNNPACK";
    return "";
}

using Operator = std::unique_ptr<xnn_operator, decltype(&xnn_delete_operator)>;

xnn_status create_operator(const convcheck_conv_transposed_desc& t, const Transposed2d& g, const void* weights, const void* bias,
                           xnn_operator_t* op) {
    const TransposedAxis &h = g.axes[0], &w = g.axes[1];
    const size_t group_in = t.in_channels / t.groups, group_out = t.out_channels / t.groups;
    if (t.dtype == CONVCHECK_F32)
        return xnn_create_deconvolution2d_nhwc_f32(
            h.begin, w.end, h.end, w.begin, h.kernel, w.kernel, h.stride, w.stride, h.dilation, w.dilation, t.groups, group_in,
            group_out, t.in_channels, t.out_channels, static_cast<const float*>(weights), static_cast<const float*>(bias),
            -INFINITY, INFINITY, 0, op);
    return xnn_create_deconvolution2d_nhwc_f16(h.begin, w.end, h.end, w.begin, h.kernel, w.kernel, h.stride, w.stride,
                                               h.dilation, w.dilation, t.groups, group_in, group_out, t.in_channels,
                                               t.out_channels, weights, bias, -INFINITY, INFINITY, 0, op);
}

std::string status_text(xnn_status s) {
    switch (s) {
        case xnn_status_success: return "success";
        case xnn_status_invalid_parameter: return "xnn_status_invalid_parameter";
        case xnn_status_unsupported_parameter: return "xnn_status_unsupported_parameter";
        case xnn_status_unsupported_hardware: return "xnn_status_unsupported_hardware (no kernels for this dtype on this CPU)";
        case xnn_status_out_of_memory: return "xnn_status_out_of_memory";
        default: return "xnn_status " + std::to_string(static_cast<int>(s));
    }
}

}  // namespace

convcheck_error* transposed_query(convcheck_plugin*, const convcheck_conv_transposed_desc& t, convcheck_support* out) {
    if (const std::string why = not_computable(t); !why.empty()) return support::unsupported(out, why);
    const Transposed2d g = geometry(t);
    const size_t bytes = support::element_bytes(t.dtype);
    std::vector<unsigned char> zeros(
        static_cast<size_t>(t.in_channels * (t.out_channels / t.groups) * g.axes[0].kernel * g.axes[1].kernel + t.out_channels) *
            bytes + XNN_EXTRA_BYTES, 0);
    xnn_operator_t op = nullptr;
    const xnn_status s = create_operator(t, g, zeros.data(), g.library_bias ? zeros.data() : nullptr, &op);  // ask XNNPACK itself
    if (op != nullptr) xnn_delete_operator(op);
    return s == xnn_status_success ? support::supported(out)
                                   : support::unsupported(out, "XNNPACK refused the deconvolution operator: " + status_text(s));
}

convcheck_error* transposed_execute_on(pthreadpool_t threadpool, const convcheck_conv_transposed_desc& t,
                                       const convcheck_conv_args& args) {
    if (const std::string why = not_computable(t); !why.empty()) return support::make_error(why, CONVCHECK_ERROR_UNIMPLEMENTED);
    const Transposed2d g = geometry(t);
    const TransposedAxis &h = g.axes[0], &w = g.axes[1];
    const size_t bytes = support::element_bytes(t.dtype);
    std::vector<unsigned char> weights(
        static_cast<size_t>(t.in_channels * (t.out_channels / t.groups) * h.kernel * w.kernel) * bytes + XNN_EXTRA_BYTES, 0);
    support::transposed_weights_to(t, g, args.weights, kGoki, weights.data());
    std::vector<unsigned char> bias;
    if (g.library_bias) {
        const auto* given = static_cast<const unsigned char*>(args.bias);
        bias.assign(given, given + static_cast<size_t>(t.out_channels) * bytes);
        bias.resize(bias.size() + XNN_EXTRA_BYTES, 0);
    }
    xnn_operator_t made = nullptr;
    const xnn_status created = create_operator(t, g, weights.data(), g.library_bias ? bias.data() : nullptr, &made);
    const Operator op(made, xnn_delete_operator);
    if (created != xnn_status_success)
        return support::make_error("xnn_create_deconvolution2d_nhwc: " + status_text(created), CONVCHECK_ERROR_UNIMPLEMENTED);

    std::vector<unsigned char> src(static_cast<size_t>(t.batch * t.in_channels * h.in * w.in) * bytes + XNN_EXTRA_BYTES, 0);
    support::transposed_src_to(t, g, args.src, kNhwc, src.data());

    std::vector<unsigned char> dst(static_cast<size_t>(t.batch * t.out_channels * h.computed * w.computed) * bytes, 0);
    xnn_status s;
    if (t.dtype == CONVCHECK_F32)
        s = xnn_setup_deconvolution2d_nhwc_f32(op.get(), t.batch, h.in, w.in, h.adjustment, w.adjustment,
                                               reinterpret_cast<const float*>(src.data()), reinterpret_cast<float*>(dst.data()),
                                               threadpool);
    else
        s = xnn_setup_deconvolution2d_nhwc_f16(op.get(), t.batch, h.in, w.in, h.adjustment, w.adjustment, src.data(), dst.data(),
                                               threadpool);
    if (s == xnn_status_success) s = xnn_run_operator(op.get(), threadpool);
    if (s != xnn_status_success)
        return support::make_error("xnn_setup/run_operator (deconvolution): " + status_text(s), CONVCHECK_ERROR_INTERNAL);

    support::transposed_dst_from(t, g, dst.data(), kNhwc, args.bias, args.dst);
    support::write_implementation(&args, std::string("xnnpack:deconvolution2d_nhwc_") + support::dtype_name(t.dtype) +
                                             (g.direct ? "" : " [cropped]"));
    return nullptr;
}

}  // namespace convcheck_xnnpack
