// A quantized case <-> the ABI (abi_quantized.hpp).
#include "convcheck/abi/abi_quantized.hpp"

#include <algorithm>
#include <string>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/abi/abi_post_ops.hpp"

namespace convcheck::runner {

std::int32_t abi_dtype(IntegerType type) {
    return type == IntegerType::u8 ? CONVCHECK_U8 : type == IntegerType::s8 ? CONVCHECK_S8 : CONVCHECK_S32;
}

std::unique_ptr<AbiQuantized> to_abi(const QuantizedDescriptor& q, std::vector<float> weights_scales,
                                     std::vector<std::int32_t> src_zero_points, std::vector<std::int32_t> dst_zero_points,
                                     std::vector<std::int32_t> weights_zero_points) {
    auto a = std::make_unique<AbiQuantized>();
    a->weights_scales = std::move(weights_scales);
    // one value: the per-tensor field; more: the list (1.7)
    const std::int32_t src_one = src_zero_points.size() == 1 ? src_zero_points[0] : q.src_zero_point;
    const std::int32_t dst_one = dst_zero_points.size() == 1 ? dst_zero_points[0] : q.dst_zero_point;
    if (src_zero_points.size() > 1) a->src_zero_points = std::move(src_zero_points);
    if (dst_zero_points.size() > 1) a->dst_zero_points = std::move(dst_zero_points);
    const std::int32_t weights_one = weights_zero_points.size() == 1 ? weights_zero_points[0] : q.weights_zero_point;
    if (weights_zero_points.size() > 1) a->weights_zero_points = std::move(weights_zero_points);  // 1.8
    convcheck_quantization& e = a->extension;
    e.header.struct_size = sizeof(e);
    e.header.tag = CONVCHECK_EXTENSION_QUANTIZATION;
    e.header.next = nullptr;
    e.src_scale = q.src_scale;
    e.src_zero_point = a->src_zero_points.empty() ? src_one : 0;
    e.src_zero_point_count = a->src_zero_points.empty() ? 1 : static_cast<std::int64_t>(a->src_zero_points.size());
    e.src_zero_points = a->src_zero_points.empty() ? nullptr : a->src_zero_points.data();
    e.weights_scale_count = static_cast<std::int64_t>(a->weights_scales.size());
    e.weights_scales = a->weights_scales.data();
    e.weights_zero_point = a->weights_zero_points.empty() ? weights_one : 0;
    e.weights_zero_point_count =
        a->weights_zero_points.empty() ? 1 : static_cast<std::int64_t>(a->weights_zero_points.size());
    e.weights_zero_points = a->weights_zero_points.empty() ? nullptr : a->weights_zero_points.data();
    a->dst_scales = q.dst_scales;  // 1.9: one per output channel, or empty
    e.dst_scale = a->dst_scales.empty() ? q.dst_scale : 1.0f;
    e.dst_scale_count = a->dst_scales.empty() ? 1 : static_cast<std::int64_t>(a->dst_scales.size());
    e.dst_scales = a->dst_scales.empty() ? nullptr : a->dst_scales.data();
    e.dst_zero_point = a->dst_zero_points.empty() ? dst_one : 0;
    e.dst_zero_point_count = a->dst_zero_points.empty() ? 1 : static_cast<std::int64_t>(a->dst_zero_points.size());
    e.dst_zero_points = a->dst_zero_points.empty() ? nullptr : a->dst_zero_points.data();
    e.dst_min = static_cast<std::int32_t>(q.dst_min);
    e.dst_max = static_cast<std::int32_t>(q.dst_max);
    convcheck_conv_desc& d = a->desc;
    d = to_abi(q.conv);
    d.src_dtype = abi_dtype(q.src);
    d.weights_dtype = abi_dtype(q.weights);
    d.bias_dtype = q.f32_bias ? CONVCHECK_F32 : CONVCHECK_S32;
    d.dst_dtype = q.float_dst ? static_cast<std::int32_t>(*q.float_dst) : abi_dtype(q.dst);  // 1.7: a float dst
    const bool one_type = d.src_dtype == d.weights_dtype && d.src_dtype == d.dst_dtype &&
                          (!q.conv.has_bias || d.dst_dtype == CONVCHECK_S32);
    d.dtype = one_type ? d.dst_dtype : CONVCHECK_DTYPE_MIXED;
    d.next = &e.header;
    return a;
}

namespace {

IntegerType integer_type(const char* tensor, std::int32_t dtype) {
    if (dtype == CONVCHECK_U8) return IntegerType::u8;
    if (dtype == CONVCHECK_S8) return IntegerType::s8;
    if (dtype == CONVCHECK_S32) return IntegerType::s32;
    throw ConvError(std::string(tensor) + "_dtype", abi_dtype_name(dtype), "a quantized tensor is u8, s8 or s32");
}

}  // namespace

QuantizedCase quantized_from_abi(const convcheck_conv_desc& desc) {
    // the chain: the quantization extension, and (1.7) the post-ops extension beside it, in either order
    const convcheck_quantization* found = nullptr;
    const convcheck_extension* post_ops = nullptr;
    if (desc.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, next))
        for (const convcheck_extension* x = desc.next; x != nullptr; x = x->next) {
            if (x->tag == CONVCHECK_EXTENSION_QUANTIZATION && !found &&
                x->struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_quantization, dst_max))
                found = reinterpret_cast<const convcheck_quantization*>(x);
            else if (x->tag == CONVCHECK_EXTENSION_POST_OPS && !post_ops)
                post_ops = x;
            else
                throw ConvError("next", "tag " + std::to_string(x->tag),
                                "a quantized case's chain holds the quantization extension and at most the post-ops one");
        }
    if (found == nullptr) throw ConvError("next", "no quantization extension", "a quantized case carries one (ABI 1.5)");
    const convcheck_quantization& e = *found;
    QuantizedCase c;
    // the geometry through the float reader: its dtypes f32, no chain
    convcheck_conv_desc geometry = desc;
    geometry.dtype = geometry.src_dtype = geometry.weights_dtype = geometry.bias_dtype = geometry.dst_dtype = CONVCHECK_F32;
    geometry.next = nullptr;
    c.q.conv = from_abi(geometry);
    if (c.q.conv.pass != Pass::forward)
        throw ConvError("prop_kind", std::to_string(desc.prop_kind), "a quantized convolution is a forward pass");
    c.q.src = integer_type("src", desc.src_dtype);
    c.q.weights = integer_type("weights", desc.weights_dtype);
    if (desc.dst_dtype == CONVCHECK_F32 || desc.dst_dtype == CONVCHECK_BF16 || desc.dst_dtype == CONVCHECK_F16)
        c.q.float_dst = static_cast<DataType>(desc.dst_dtype), c.q.dst = IntegerType::s32;  // 1.7
    else
        c.q.dst = integer_type("dst", desc.dst_dtype);
    if (desc.has_bias && desc.bias_dtype != CONVCHECK_S32 && desc.bias_dtype != CONVCHECK_F32)
        throw ConvError("bias_dtype", abi_dtype_name(desc.bias_dtype),
                        "a quantized bias is s32 (in the accumulator) or f32 (after the scales)");
    c.q.f32_bias = desc.has_bias && desc.bias_dtype == CONVCHECK_F32;
    if (e.weights_scale_count != 1 && e.weights_scale_count != desc.out_channels)
        throw ConvError("weights_scale_count", std::to_string(e.weights_scale_count),
                        "one weights scale, or one per output channel (" + std::to_string(desc.out_channels) + ")");
    if (e.weights_scales == nullptr) throw ConvError("weights_scales", "NULL", "the weights scales are given");
    c.weights_scales.assign(e.weights_scales, e.weights_scales + e.weights_scale_count);
    c.q.per_channel_scales = e.weights_scale_count > 1;
    if (c.q.per_channel_scales) c.q.channel_scales = c.weights_scales;
    c.q.weights_scale = c.weights_scales.front();
    c.q.src_scale = e.src_scale;
    c.q.dst_scale = e.dst_scale;
    c.q.src_zero_point = e.src_zero_point;
    c.q.weights_zero_point = e.weights_zero_point;
    c.q.dst_zero_point = e.dst_zero_point;
    c.q.dst_min = e.dst_min;
    c.q.dst_max = e.dst_max;
    // 1.7: per-channel zero points, when struct_size covers them and a count is above 1
    const bool v17 = e.header.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_quantization, dst_zero_points);
    const auto per_channel = [&](const char* field, std::int64_t count, const std::int32_t* points, std::int64_t channels,
                                 std::int32_t one, bool* flag, std::vector<std::int32_t>* list) -> std::vector<std::int32_t> {
        if (count == 1) return {one};
        if (count != channels || points == nullptr)
            throw ConvError(field, std::to_string(count), "one zero point, or one per channel (" + std::to_string(channels) +
                                                               ") with the values given");
        *flag = true;
        list->assign(points, points + count);
        return *list;
    };
    c.src_zero_points = per_channel("src_zero_point_count", v17 ? e.src_zero_point_count : 1, v17 ? e.src_zero_points : nullptr,
                                    desc.in_channels, e.src_zero_point, &c.q.per_channel_src_zero_points, &c.q.src_zero_points);
    c.dst_zero_points = per_channel("dst_zero_point_count", v17 ? e.dst_zero_point_count : 1, v17 ? e.dst_zero_points : nullptr,
                                    desc.out_channels, e.dst_zero_point, &c.q.per_channel_dst_zero_points, &c.q.dst_zero_points);
    // 1.8: per-output-channel weights zero points, likewise
    const bool v18 = e.header.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_quantization, weights_zero_points);
    c.weights_zero_points =
        per_channel("weights_zero_point_count", v18 ? e.weights_zero_point_count : 1, v18 ? e.weights_zero_points : nullptr,
                    desc.out_channels, e.weights_zero_point, &c.q.per_channel_weights_zero_points, &c.q.weights_zero_points);
    // 1.9: per-output-channel dst scales
    const bool v19 = e.header.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_quantization, dst_scales);
    if (v19 && e.dst_scale_count != 1) {
        if (e.dst_scale_count != desc.out_channels || e.dst_scales == nullptr)
            throw ConvError("dst_scale_count", std::to_string(e.dst_scale_count),
                            "one dst scale, or one per output channel (" + std::to_string(desc.out_channels) +
                                ") with the values given");
        c.q.dst_scales.assign(e.dst_scales, e.dst_scales + e.dst_scale_count);
    }
    // 1.8: a zero point outside its tensor's type is an s32 value (oneDNN's attributes; the case said zpt=s32)
    const auto outside = [](const std::vector<std::int32_t>& points, IntegerType t) {
        return std::any_of(points.begin(), points.end(), [t](std::int32_t z) { return z < lowest(t) || z > highest(t); });
    };
    c.q.s32_zero_points = outside(c.src_zero_points, c.q.src) || outside(c.weights_zero_points, c.q.weights) ||
                          outside(c.dst_zero_points, c.q.dst);
    if (post_ops) {  // the post-ops through the float reader, alone on a chain of their own
        convcheck_post_ops alone = *reinterpret_cast<const convcheck_post_ops*>(post_ops);
        alone.header.next = nullptr;
        convcheck_conv_desc with_ops = geometry;
        with_ops.next = &alone.header;
        c.q.conv.post_ops = post_ops_from_abi(with_ops);
    }
    return c;
}

}  // namespace convcheck::runner
