// The xnnpack plugin's fused post-ops and per-tensor dtypes (xnnpack_post_ops.hpp).
//
// Post-ops. XNNPACK's convolution operators (xnnpack.h: xnn_create_convolution2d_nhwc_f32 / _f16 and
// _nchw_f32, "output_min - lower bound for clipping output values", "output_max - upper bound") clamp each
// output after the bias, and fuse nothing else. So a chain of exactly one op runs, when that op is the clamp:
//   clip:alpha:beta   output_min = alpha, output_max = beta (min(beta, max(alpha, x)), as the operators do)
//   relu (alpha 0)    output_min = 0, output_max = +inf
// The f16 operator rounds output_min and output_max to f16; its output is an f16 value and rounding is
// monotone, so clamping it by the rounded bounds gives the rounded clamp: the same result. XNNPACK refuses a
// range whose bound is NaN or whose lower bound is not below its upper one ("lower bound must be below upper
// bound", also after the f16 rounding). Declined, in XNNPACK's words: a longer chain, a relu with a slope,
// every other op (the plugin claims only relu and clip, so the runner declines the other kinds and
// algorithms itself).
//
// Mixed dtypes. The operators take one type for input, filter, bias and output. Its one mix in the Debian
// snapshot, _f16 with XNN_FLAG_FP32_STATIC_WEIGHTS ("Static weights of the FP16 operator are in FP32 format"),
// rounds the f32 filter and bias to f16 when it packs them: an f16 convolution of other weights, not the f32
// ones; so every mix is declined.
#include "xnnpack_post_ops.hpp"

#include <cstdio>

#include "convcheck/plugin_post_ops.hpp"
#include "convcheck/plugin_support.hpp"

namespace support = convcheck_plugin_support;

namespace convcheck_xnnpack {

namespace {

std::string number(float v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.7g", double(v));  // as XNNPACK's own messages print a range
    return text;
}

const char* kOnlyClamp =
    "XNNPACK's convolution operators fuse one op after the bias, the clamp to [output_min, output_max] "
    "(xnn_create_convolution2d_nhwc_f32 / _f16, _nchw_f32)";

}  // namespace

std::string OutputRange::note() const {
    return clamps() ? " [clamp " + number(min) + ", " + number(max) + "]" : "";
}

std::string post_ops_accepts(const convcheck_conv_desc&, const convcheck_post_ops& ops) {
    if (ops.count != 1)
        return std::string(kOnlyClamp) + "; a chain of " + std::to_string(ops.count) + " ops has no such form";
    const convcheck_post_op& op = ops.ops[0];
    if (op.kind != CONVCHECK_POST_OP_ELTWISE || (op.algorithm != CONVCHECK_ELTWISE_CLIP && op.algorithm != CONVCHECK_ELTWISE_RELU))
        return std::string(kOnlyClamp) + "; post-op kind " + std::to_string(op.kind) + " algorithm " +
               std::to_string(op.algorithm) + " is not that clamp";
    if (op.algorithm == CONVCHECK_ELTWISE_RELU && op.alpha != 0.0f)
        return std::string(kOnlyClamp) + "; relu with slope alpha = " + number(op.alpha) +
               " is not a clamp (XNNPACK has leaky ReLU only as an operator of its own, xnn_create_leaky_relu_nc_f32)";
    return "";
}

OutputRange output_range(const convcheck_conv_desc& d) {
    const convcheck_post_ops* ops = support::post_ops_of(d);
    if (ops == nullptr || ops->count != 1) return {};
    const convcheck_post_op& op = ops->ops[0];
    if (op.kind != CONVCHECK_POST_OP_ELTWISE) return {};
    if (op.algorithm == CONVCHECK_ELTWISE_CLIP) return {op.alpha, op.beta};
    if (op.algorithm == CONVCHECK_ELTWISE_RELU && op.alpha == 0.0f) return {0.0f, INFINITY};
    return {};
}

std::string range_refused(const convcheck_conv_desc& d, const OutputRange& range) {
    return "XNNPACK refused the operator's output range [" + number(range.min) + ", " + number(range.max) +
           "]: \"lower bound must be below upper bound\"" +
           (d.dtype == CONVCHECK_F16 ? " (the f16 operator compares the bounds rounded to f16)" : "");
}

std::string mixed_dtypes_missing(const convcheck_conv_desc& d) {
    const support::TensorDtypes t = support::tensor_dtypes(d);
    if (t.src == t.weights && t.src == t.bias && t.src == t.dst) return "";
    return std::string("XNNPACK's convolution operators take one data type for input, filter, bias and output "
                       "(xnn_create_convolution2d_nhwc_f32 / _f16), not src ") + support::dtype_name(t.src) + ", weights " +
           support::dtype_name(t.weights) + ", bias " + support::dtype_name(t.bias) + ", dst " + support::dtype_name(t.dst) +
           "; its f16 operator's XNN_FLAG_FP32_STATIC_WEIGHTS takes f32 filter and bias but rounds them to f16 when it "
           "packs them, which computes with other weights than the f32 ones";
}

}  // namespace convcheck_xnnpack
