// The general output of a quantized convolution (quantized_descriptor.hpp): a float dst, oneDNN's rounded s32 dst,
// and post-ops on an int8 case. Written from oneDNN's text, literally, in double:
//   "Quantization" (dev_guide_attributes_quantization): "x_f32[:] = scale_x * (x_quant[:] - zp_x)"; "The scales
//   are applied in single precision floating point data type before downconversion to the destination data type.
//   When converting to integral data types, implementations typically saturate"; "When multiple operations are
//   fused in a single primitive using the post ops attribute, those are assumed to be computed in f32 precision.
//   As a result the destination quantization parameters are applied after the post-ops as follows:
//       dst[:] = post_ops(OP(src[:], weights[:], ...)) / scale_dst + zp_dst"
//   benchdnn's reference (tests/benchdnn/conv/ref_conv.cpp, compute_ref_direct_fwd): conv_res = sum of
//   (src - src_zp) * src_scale * (wei - wei_zp) * wei_scale, conv_res += bias, maybe_post_ops(conv_res, dst),
//   dst = conv_res * (1 / dst_scale) + dst_zp, then maybe_round to dst's type (nearest, ties to even; saturated).
// So, for output ncx of output channel oc with the exact integer sum acc (its s32 bias inside, if any):
//   v   = post_ops(src_scale * weights_scale(oc) * acc + f32_bias(oc))      (the real value, exact in double)
//   dst = convert(v / dst_scale + dst_zero_point)      (dst_zero_point: output channel oc's with dzp=oc; dst_scale:
//                                                       oc's with dsc=a:b:..., an ONNX QDQ model's per-axis y_scale)
// convert: a float dst's rounding (round_to); an integer dst's nearest integer with ties to even, saturated to
// [dst_min, dst_max]. A sum post-op reads dst's prior content as stored: for an integer dst, its integers
// ("dst[:] = scale * (dst[:] - zero_point) + Op(...)", attributes_post_ops).
#pragma once

#include <cstdint>
#include <vector>

#include "convcheck/core/quantized_descriptor.hpp"
#include "convcheck/reference/post_ops.hpp"

namespace convcheck::reference {

// v for one output (ncx: its NCX flat index; weights_scale: its output channel's; f32_bias: 0 without one). `steps`
// (when given) receives the value before the post-ops and after each.
double quantized_real_value(const QuantizedDescriptor& q, const PostOpData& post, std::int64_t ncx, std::int64_t acc,
                            double weights_scale, double f32_bias, std::vector<double>* steps = nullptr);

// v / dst_scale + dst_zero_point, exact in double (before the conversion). dst_zero_point is the output channel's:
// q.dst_zero_point, or dzp[oc] per channel (benchdnn's ref_conv.cpp: "if (dst_zp_mask > 0) dst_zp =
// dst_zps.get_elem(g * OCG + oc)"); the dst scale is output channel oc's (q.dst_scale_of(oc)). The overloads without
// them take q.dst_zero_point and output channel 0's scale (per tensor).
double quantized_dst_real(const QuantizedDescriptor& q, double v, std::int32_t dst_zero_point, std::int64_t oc);
inline double quantized_dst_real(const QuantizedDescriptor& q, double v) { return quantized_dst_real(q, v, q.dst_zero_point, 0); }

// dst's value for v: the float dst's rounding of quantized_dst_real, or the integer dst's nearest integer (ties to
// even) saturated to [dst_min, dst_max].
double quantized_general_output(const QuantizedDescriptor& q, double v, std::int32_t dst_zero_point, std::int64_t oc);
inline double quantized_general_output(const QuantizedDescriptor& q, double v) {
    return quantized_general_output(q, v, q.dst_zero_point, 0);
}

// The integer an integer dst holds for a real x = v / dst_scale + zp: the nearest integer, ties to even,
// saturated to [dst_min, dst_max].
std::int64_t nearest_even_saturated(const QuantizedDescriptor& q, double x);

}  // namespace convcheck::reference
