#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/abi/abi_post_ops.hpp"
#include "convcheck/abi/abi_scales.hpp"

namespace convcheck::runner {

namespace {

// The geometry a convolution and a transposed convolution share (ConvDescriptor and convcheck_conv_desc,
// TransposedDescriptor and convcheck_conv_transposed_desc): to the ABI with the entries past the rank at
// their neutral values, and back as they are.
template <typename Canonical, typename Abi>
void geometry_to_abi(const Canonical& d, Abi& c) {
    c.struct_size = sizeof(c);
    c.rank = d.rank;
    c.batch = d.batch;
    c.in_channels = d.in_channels;
    c.out_channels = d.out_channels;
    c.groups = d.groups;
    for (int a = 0; a < 3; ++a) {
        const bool used = a < d.rank;
        c.input_size[a] = used ? d.input_size[a] : 1;
        c.kernel_size[a] = used ? d.kernel_size[a] : 1;
        c.strides[a] = used ? d.strides[a] : 1;
        c.dilations[a] = used ? d.dilations[a] : 1;
        c.pads_begin[a] = used ? d.pads_begin[a] : 0;
        c.pads_end[a] = used ? d.pads_end[a] : 0;
    }
    c.has_bias = d.has_bias ? 1 : 0;
}

template <typename Abi, typename Canonical>
void geometry_from_abi(const Abi& c, Canonical& d) {
    d.rank = c.rank;
    d.batch = c.batch;
    d.in_channels = c.in_channels;
    d.out_channels = c.out_channels;
    d.groups = c.groups;
    for (int a = 0; a < 3; ++a) {
        d.input_size[a] = c.input_size[a];
        d.kernel_size[a] = c.kernel_size[a];
        d.strides[a] = c.strides[a];
        d.dilations[a] = c.dilations[a];
        d.pads_begin[a] = c.pads_begin[a];
        d.pads_end[a] = c.pads_end[a];
    }
    d.has_bias = c.has_bias != 0;
}

}  // namespace

convcheck_conv_desc to_abi(const ConvDescriptor& d) {
    convcheck_conv_desc c{};
    geometry_to_abi(d, c);
    // DataType and convcheck_dtype share values for f32/f16/bf16 and (1.7) f8_e4m3/f8_e5m2
    c.data_format = static_cast<int32_t>(d.data_format);
    c.filter_format = static_cast<int32_t>(d.filter_format);
    // 1.2: each tensor's dtype, and dtype MIXED when they differ (a plugin that reads dtype alone declines);
    // the descriptor's pass, no extension (all the core describes)
    c.src_dtype = static_cast<int32_t>(d.src_dtype());
    c.weights_dtype = static_cast<int32_t>(d.weights_dtype());
    c.bias_dtype = static_cast<int32_t>(d.has_bias ? d.bias_dtype() : d.dtype);
    c.dst_dtype = static_cast<int32_t>(d.dst_dtype());
    c.dtype = d.mixed() ? CONVCHECK_DTYPE_MIXED : static_cast<int32_t>(d.dtype);
    c.prop_kind = d.pass == Pass::backward_data      ? CONVCHECK_BACKWARD_DATA
                  : d.pass == Pass::backward_weights ? CONVCHECK_BACKWARD_WEIGHTS
                                                     : CONVCHECK_FORWARD;
    c.next = nullptr;
    // 1.2, memory layout: all zero is dense
    auto put = [](const std::vector<std::int64_t>& from, int64_t* to) {
        for (std::size_t i = 0; i < from.size() && i < 5; ++i) to[i] = from[i];
    };
    put(d.src_strides, c.src_strides);
    put(d.weights_strides, c.weights_strides);
    put(d.dst_strides, c.dst_strides);
    // 1.7: the fpmath mode
    c.fpmath_mode = d.fpmath == FpMath::tf32 ? CONVCHECK_FPMATH_TF32 : d.fpmath == FpMath::bf16 ? CONVCHECK_FPMATH_BF16
                                                                                              : CONVCHECK_FPMATH_STRICT;
    return c;
}

ConvDescriptor from_abi(const convcheck_conv_desc& c) {
    ConvDescriptor d;
    geometry_from_abi(c, d);
    const bool has_1_2 = c.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, next);
    auto float_dtype = [](const char* field, int32_t t) {
        if ((t < 0 || t > 3) && t != CONVCHECK_F8_E4M3 && t != CONVCHECK_F8_E5M2)
            throw ConvError(field, std::to_string(t), std::string("convcheck_conv_desc.") + field +
                                                          " must be f32, f16, bf16, f64, f8_e4m3 or f8_e5m2 (" +
                                                          abi_dtype_name(t) + ")");
        return static_cast<DataType>(t);
    };
    if (c.dtype == CONVCHECK_DTYPE_MIXED && !has_1_2)
        throw ConvError("dtype", "CONVCHECK_DTYPE_MIXED", "needs the 1.2 per-tensor dtypes (struct_size too small)");
    if (c.dtype != CONVCHECK_DTYPE_MIXED) d.dtype = float_dtype("dtype", c.dtype);
    // 1.2 fields, read only when struct_size covers them (else their defaults: the same dtype, forward)
    if (has_1_2) {
        // each tensor's own dtype; `dtype` is one of them when they agree, CONVCHECK_DTYPE_MIXED when not
        d.dtype = float_dtype("src_dtype", c.src_dtype);
        d.dtype_overrides.weights = float_dtype("weights_dtype", c.weights_dtype);
        d.dtype_overrides.dst = float_dtype("dst_dtype", c.dst_dtype);
        if (d.has_bias) d.dtype_overrides.bias = float_dtype("bias_dtype", c.bias_dtype);
        if (d.mixed() != (c.dtype == CONVCHECK_DTYPE_MIXED))
            throw ConvError("dtype", abi_dtype_name(c.dtype),
                            d.mixed() ? "must be CONVCHECK_DTYPE_MIXED when src_dtype .. dst_dtype differ"
                                      : "must be the tensors' one dtype when src_dtype .. dst_dtype agree");
        if (c.prop_kind == CONVCHECK_BACKWARD_DATA) d.pass = Pass::backward_data;
        else if (c.prop_kind == CONVCHECK_BACKWARD_WEIGHTS) d.pass = Pass::backward_weights;
        else if (c.prop_kind != CONVCHECK_FORWARD)
            throw ConvError("prop_kind", std::to_string(c.prop_kind),
                            "must be CONVCHECK_FORWARD, CONVCHECK_BACKWARD_DATA or CONVCHECK_BACKWARD_WEIGHTS");
        d.post_ops = post_ops_from_abi(c);  // 1.6: the post-ops extension; any other tag is refused
        d.scales = scales_from_abi(c, d.out_channels);  // 1.7: the scales extension
    }
    if (c.data_format != 0 && c.data_format != 1)
        throw ConvError("data_format", std::to_string(c.data_format), "must be CONVCHECK_NCX or CONVCHECK_NXC");
    if (c.filter_format < 0 || c.filter_format > 2)
        throw ConvError("filter_format", std::to_string(c.filter_format),
                        "must be CONVCHECK_OIX, CONVCHECK_XIO or CONVCHECK_OXI");
    d.data_format = static_cast<DataFormat>(c.data_format);
    d.filter_format = static_cast<FilterFormat>(c.filter_format);
    // 1.2, memory layout: read when struct_size covers it; all zero (or not covered) is dense
    if (c.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, dst_strides)) {
        const std::size_t dims = c.rank >= 1 && c.rank <= 3 ? static_cast<std::size_t>(c.rank) + 2 : 0;
        auto get = [&](const int64_t* from, std::vector<std::int64_t>* to) {
            bool any = false;
            for (std::size_t i = 0; i < 5; ++i) any = any || from[i] != 0;
            if (any) to->assign(from, from + dims);
        };
        get(c.src_strides, &d.src_strides);
        get(c.weights_strides, &d.weights_strides);
        get(c.dst_strides, &d.dst_strides);
    }
    // 1.7: the fpmath mode, when struct_size covers it
    if (c.struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, fpmath_mode)) {
        if (c.fpmath_mode == CONVCHECK_FPMATH_TF32) d.fpmath = FpMath::tf32;
        else if (c.fpmath_mode == CONVCHECK_FPMATH_BF16) d.fpmath = FpMath::bf16;
        else if (c.fpmath_mode != CONVCHECK_FPMATH_STRICT)
            throw ConvError("fpmath_mode", std::to_string(c.fpmath_mode),
                            "must be CONVCHECK_FPMATH_STRICT, CONVCHECK_FPMATH_TF32 or CONVCHECK_FPMATH_BF16");
    }
    return d;
}

convcheck_cc_desc to_abi(const CcDescriptor& d) {
    convcheck_cc_desc c{};
    c.struct_size = sizeof(c);
    c.batch = d.batch;
    c.in_channels = d.in_channels;
    c.out_channels = d.out_channels;
    for (int a = 0; a < 2; ++a) {
        c.input_size[a] = d.input_size[a];
        c.output_size[a] = d.output_size[a];
        c.scale_numerator[a] = d.scale[a].is_rational() ? d.scale[a].numerator : 0;
        c.scale_denominator[a] = d.scale[a].is_rational() ? d.scale[a].denominator : 0;
        c.scale[a] = d.scale[a].value;
        c.support[a] = d.support[a];
        c.hidden_widths[a] = d.hidden_widths[a];
    }
    c.kernel_kind = static_cast<int32_t>(d.kernel);
    c.kernel_parameter = d.kernel_parameter;
    c.leaky_relu_slope = d.leaky_relu_slope;
    c.has_bias = d.has_bias ? 1 : 0;
    c.dtype = static_cast<int32_t>(d.dtype);
    return c;
}

CcDescriptor from_abi(const convcheck_cc_desc& c) {
    CcDescriptor d;
    d.batch = c.batch;
    d.in_channels = c.in_channels;
    d.out_channels = c.out_channels;
    for (int a = 0; a < 2; ++a) {
        d.input_size[a] = c.input_size[a];
        d.output_size[a] = c.output_size[a];
        if (c.scale_denominator[a] > 0) {
            if (c.scale_numerator[a] < 1)
                throw ConvError("scale_numerator", std::to_string(c.scale_numerator[a]),
                                "a rational CC scale needs a numerator >= 1");
            d.scale[a] = CcScale::exact(Rational(c.scale_numerator[a], c.scale_denominator[a]));
        } else {
            d.scale[a] = CcScale::real(c.scale[a]);
        }
        d.support[a] = c.support[a];
        d.hidden_widths[a] = c.hidden_widths[a];
    }
    if (c.kernel_kind < 0 || c.kernel_kind > 3)
        throw ConvError("kernel_kind", std::to_string(c.kernel_kind), "convcheck_cc_desc.kernel_kind must be 0..3");
    d.kernel = static_cast<CcKernel>(c.kernel_kind);
    d.kernel_parameter = c.kernel_parameter;
    d.leaky_relu_slope = c.leaky_relu_slope;
    d.has_bias = c.has_bias != 0;
    if (c.dtype < 0 || c.dtype > 2)
        throw ConvError("dtype", std::to_string(c.dtype), "convcheck_cc_desc.dtype must be f32, f16 or bf16");
    d.dtype = static_cast<DataType>(c.dtype);
    return d;
}

convcheck_conv_transposed_desc to_abi(const TransposedDescriptor& t) {
    convcheck_conv_transposed_desc c{};
    geometry_to_abi(t, c);
    for (int a = 0; a < 3; ++a) c.output_padding[a] = a < t.rank ? t.output_padding[a] : 0;
    c.dtype = static_cast<int32_t>(t.dtype);
    c.data_format = static_cast<int32_t>(t.data_format);
    c.filter_format = static_cast<int32_t>(t.filter_format);
    c.next = nullptr;
    return c;
}

TransposedDescriptor from_abi(const convcheck_conv_transposed_desc& c) {
    TransposedDescriptor t;
    geometry_from_abi(c, t);
    for (int a = 0; a < 3; ++a) t.output_padding[a] = c.output_padding[a];
    if (c.dtype < 0 || c.dtype > 3)
        throw ConvError("dtype", std::to_string(c.dtype), "convcheck_conv_transposed_desc.dtype must be f32, f16, bf16 or f64");
    t.dtype = static_cast<DataType>(c.dtype);
    if (c.data_format != CONVCHECK_NCX && c.data_format != CONVCHECK_NXC)
        throw ConvError("data_format", std::to_string(c.data_format), "must be CONVCHECK_NCX or CONVCHECK_NXC");
    if (c.filter_format != CONVCHECK_OIX && c.filter_format != CONVCHECK_XIO)
        throw ConvError("filter_format", std::to_string(c.filter_format),
                        "a transposed convolution's weights are CONVCHECK_OIX or CONVCHECK_XIO");
    t.data_format = static_cast<DataFormat>(c.data_format);
    t.filter_format = static_cast<FilterFormat>(c.filter_format);
    if (c.next != nullptr) throw ConvError("next", "an extension chain", "no extension is known (ABI 1.3 defines none)");
    return t;
}

std::string abi_dtype_name(int32_t dtype) {
    switch (dtype) {
        case CONVCHECK_F32: return "f32";
        case CONVCHECK_F16: return "f16";
        case CONVCHECK_BF16: return "bf16";
        case CONVCHECK_F64: return "f64";
        case CONVCHECK_U8: return "u8";
        case CONVCHECK_S8: return "s8";
        case CONVCHECK_S32: return "s32";
        case CONVCHECK_F8_E4M3: return "f8_e4m3";
        case CONVCHECK_F8_E5M2: return "f8_e5m2";
    }
    return "unknown(" + std::to_string(dtype) + ")";
}

}  // namespace convcheck::runner
