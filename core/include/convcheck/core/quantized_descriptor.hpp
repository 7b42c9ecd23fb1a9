// The canonical descriptor of a quantized (integer) discrete convolution (docs/quantized.md; ABI 1.5's
// convcheck/plugin/quantization.h): the geometry of a forward, dense discrete convolution and the integers
// and scales that give its tensors their meaning,
//   real src = src_scale * (src - src_zero_point), real weights = weights_scale(oc) * (w - weights_zero_point),
//   real dst = dst_scale * (dst - dst_zero_point),
// with an s32 bias of scale src_scale * weights_scale(oc) and zero point 0 inside the accumulator, or (bdt=f32) an
// f32 bias in real units added after the src and weights scales, before the dst scale (oneDNN's int8 bias):
//   real dst = src_scale * weights_scale(oc) * acc + bias(oc). The string form is the
// convolution's keys (without dt=) and its own:
//   qconv:c=8,o=8,in=6x6,k=3x3,pb=1x1,pe=1x1,bias=1,dt=u8:s8:u8,ssc=0.25,szp=3,wsc=0.5,wzp=0,dsc=2,dzp=-1,lo=0,hi=100
//   dt   src:weights:dst types (src u8|s8, weights u8|s8, dst u8|s8|s32, or f32|bf16|f16: a float dst)
//   bdt  the bias's type: s32 (default: in the accumulator) or f32 (after the scales; needs bias=1)
//   acc  f32: the sum is the f32 sum of the dequantized products (an ONNX QDQ model: DequantizeLinear -> Conv ->
//        QuantizeLinear), judged as the general output with the f32 accumulation's error in its bound; absent: the
//        exact integer accumulator
//   po   post-ops (post_ops.hpp): applied, in order, to the real value after the scales and the bias, before the
//        dst scale and zero point
//   ssc, wsc, dsc  the scales (f32 values, > 0); wsc=oc: one per output channel, drawn from the case's seed;
//                  wsc=a:b:...: one per output channel, given (a model's);
//                  dsc=a:b:...: one dst scale per output channel, given (an ONNX QDQ model's per-axis y_scale on the
//                  channel axis); the runner takes it on a case judged by the general output's bound only
//                  (judged_as_general(): a float dst, post-ops or acc=f32)
//   szp, wzp, dzp  the zero points, per tensor, in their types' ranges;
//                  szp=ic: one per input channel, dzp=oc: one per output channel, drawn from the case's seed (each
//                  channel's own, none 0; over the type's range, and from [-128, 127] for an s32 or float dst);
//                  szp=a:b:... (in_channels values), dzp=a:b:... (out_channels): given
//                  (oneDNN's per-channel zero points, mask 1 << 1);
//                  wzp=oc: one weights zero point per output channel, drawn likewise over the weights' range;
//                  wzp=a:b:... (out_channels values): given (ONNX QLinearConv's and ConvInteger's per-output-channel
//                  w_zero_point)
//   zpt     the zero points' range: type (default: each in its tensor's type, as ONNX and TFLite define them) or s32
//           (oneDNN's zero-point attributes are s32 values: "zero points ... of data type s32"; benchdnn's
//           --attr-zero-points reads any int32): the dialect that reads a case says which
//   lo, hi  the output's range after the zero point (a fused activation); dst's whole range when absent
// The general output (oneDNN's int8 convolution; its "Quantization" guide: "the destination quantization parameters
// are applied after the post-ops as follows: dst[:] = post_ops(OP(src[:], weights[:], ...)) / scale_dst + zp_dst"):
//   v = post_ops(src_scale * weights_scale(oc) * acc + bias(oc)),  dst = convert(v / dst_scale + dst_zero_point)
// convert: to a float dst, its rounding; to an integer dst, the nearest integer (ties to even), saturated.
// An s32 dst with every scale 1, dzp=0, an s32 bias and no post-ops is the accumulator itself (ONNX ConvInteger);
// with any of them it is oneDNN's rounded s32 (rounded_s32()): that formula saturated to s32's range. The first is
// the second's special case (acc * 1 + 0 is an integer in range), so the two readings never disagree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convcheck/core/descriptor.hpp"

namespace convcheck {

enum class IntegerType : int { u8 = 0, s8 = 1, s32 = 2 };
std::string_view to_string(IntegerType type);  // "u8", "s8", "s32"
bool parse_integer_type(std::string_view text, IntegerType* type);
std::int64_t lowest(IntegerType type);   // 0, -128, -2^31
std::int64_t highest(IntegerType type);  // 255, 127, 2^31 - 1

struct QuantizedDescriptor {
    ConvDescriptor conv;  // the geometry: forward, dense; its dtype (f32) is not the tensors'
    IntegerType src = IntegerType::u8, weights = IntegerType::s8, dst = IntegerType::u8;
    float src_scale = 1.0f, weights_scale = 1.0f, dst_scale = 1.0f;
    bool per_channel_scales = false;  // wsc=oc or a list: weights_scale is unused, each output channel has its own
    std::vector<float> channel_scales;  // wsc=a:b:...: those (out_channels values); empty with wsc=oc: drawn
    std::vector<float> dst_scales;      // dsc=a:b:...: one per output channel (dst_scale is then unused); or empty
    std::int32_t src_zero_point = 0, weights_zero_point = 0, dst_zero_point = 0;
    std::int64_t dst_min = 0, dst_max = 255;  // lo, hi: dst's range unless narrowed
    bool f32_bias = false;  // bdt=f32: the bias is f32, added after the src and weights scales
    // acc=f32: the model sums the dequantized products (and the bias) in f32 (ONNX QDQ); u8/s8 or float dst only
    bool f32_accumulation = false;
    // dt=..:f32|bf16|f16: a floating-point dst (dst is then s32 and unused, dst_min..dst_max its whole range)
    std::optional<DataType> float_dst;
    // szp=ic or a list: one src zero point per input channel (src_zero_point is unused); src_zero_points holds the
    // given ones, empty with szp=ic (drawn). dzp=oc or a list: likewise, one dst zero point per output channel.
    bool per_channel_src_zero_points = false;
    std::vector<std::int32_t> src_zero_points;
    bool per_channel_dst_zero_points = false;
    std::vector<std::int32_t> dst_zero_points;
    // wzp=oc or a list: one weights zero point per output channel (weights_zero_point is unused); the given ones, or
    // empty with wzp=oc (drawn)
    bool per_channel_weights_zero_points = false;
    std::vector<std::int32_t> weights_zero_points;
    // zpt=s32: zero points are s32 values (oneDNN's attributes), not bound to their tensors' types
    bool s32_zero_points = false;

    bool operator==(const QuantizedDescriptor& other) const = default;
    // Output channel oc's dst scale: dst_scales[oc] (dsc=a:b:...), else dst_scale.
    float dst_scale_of(std::int64_t oc) const {
        return dst_scales.empty() ? dst_scale : dst_scales.at(static_cast<std::size_t>(oc));
    }
    // True when lo/hi narrow dst's range (a fused activation).
    bool narrowed() const { return dst_min != lowest(dst) || dst_max != highest(dst); }
    // An s32 dst that is oneDNN's rounded value, not the accumulator: a scale other than 1, a dst zero point, an
    // f32 bias or post-ops.
    bool rounded_s32() const;
    // The general output path: a float dst, a rounded s32 dst, or post-ops.
    bool general_output() const { return float_dst.has_value() || rounded_s32() || !conv.post_ops.empty(); }
    // Judged by the general output's bound (general.cpp): the general output, or an f32 accumulation.
    bool judged_as_general() const { return float_dst.has_value() || !conv.post_ops.empty() || f32_accumulation; }
    // The largest |(x - zx) * (w - zw)| any term can reach (drawn per-channel src or weights zero points: any of the
    // type's range),
    // and the number of products of one output.
    std::int64_t largest_product() const;
    std::int64_t products_per_output() const;
};

// Throws ConvError for the first rule broken: the geometry's (validate(ConvDescriptor)), a forward dense
// descriptor; src and weights u8 or s8; a scale that is not > 0 and finite; a zero point outside its type (with
// zpt=s32: outside s32);
// lo <= hi inside dst's range; an s32 or float dst with a range of its own; bdt=f32 without a bias; acc=f32 with an
// s32 dst; a float dst
// other than f32, bf16, f16; dst scales per output channel of another length than out_channels; a zero-point list of another length than the channels it names; the post-ops' own rules
// (validate_post_ops); and an accumulator
// that could leave s32: products_per_output() * largest_product() must stay below 2^31 (the bias takes
// what is left).
void validate(const QuantizedDescriptor& q);

// The canonical string (every key, lo/hi only when narrowed, bdt only when f32); parse(print(q)) == q for every valid q.
std::string to_string(const QuantizedDescriptor& q);
// Parses "qconv:..." (the prefix optional); missing keys take the defaults above (dt=u8:s8:u8, scales 1,
// zero points 0, dst's range). Throws ConvError naming the key; the _unvalidated form does not validate.
QuantizedDescriptor parse_quantized_descriptor(std::string_view text);
QuantizedDescriptor parse_quantized_descriptor_unvalidated(std::string_view text);

}  // namespace convcheck
