// A quantized case (core/quantized_descriptor.hpp) <-> the ABI (1.5): the discrete convolution descriptor with
// its integer dtypes and the quantization extension (convcheck/plugin/quantization.h) in its chain.
#pragma once

#include <memory>
#include <vector>

#include "convcheck/core/quantized_descriptor.hpp"
#include "convcheck/plugin.h"

namespace convcheck::runner {

// The descriptor, its extension and the weights scales the extension points to, together: desc.next points
// into this object, which therefore neither copies nor moves.
struct AbiQuantized {
    convcheck_conv_desc desc{};
    convcheck_quantization extension{};
    std::vector<float> weights_scales;
    std::vector<std::int32_t> src_zero_points, dst_zero_points;  // per channel (1.7), or empty
    std::vector<std::int32_t> weights_zero_points;               // per output channel (1.8), or empty
    std::vector<float> dst_scales;                               // per output channel (1.9: q.dst_scales), or empty
    AbiQuantized() = default;
    AbiQuantized(const AbiQuantized&) = delete;
    AbiQuantized& operator=(const AbiQuantized&) = delete;
};
// weights_scales: one value per output channel, or one for all (the case's, drawn when wsc=oc). src_zero_points,
// dst_zero_points: one per input (output) channel (the case's, drawn when szp=ic / dzp=oc), or empty: per tensor. A
// list of one value (one channel) is written as the per-tensor zero point. weights_zero_points likewise: one per output
// channel (1.8), or empty.
std::unique_ptr<AbiQuantized> to_abi(const QuantizedDescriptor& q, std::vector<float> weights_scales,
                                     std::vector<std::int32_t> src_zero_points = {},
                                     std::vector<std::int32_t> dst_zero_points = {},
                                     std::vector<std::int32_t> weights_zero_points = {});

// The ABI dtype of an integer type (CONVCHECK_U8, CONVCHECK_S8, CONVCHECK_S32).
std::int32_t abi_dtype(IntegerType type);

// A quantized case as a plugin receives it: the descriptor (per_channel_scales when the extension has one scale
// per output channel; weights_scale the one scale otherwise) and the weights scales. Does not validate (call
// validate()). Throws ConvError for what it cannot hold: no quantization extension, a dtype that is not one of
// the integer types where the ABI allows them, a pass other than forward, another extension beside it.
// The zero points: one per tensor, or one per channel (ABI 1.7's and 1.8's counts above 1; q then has the lists).
struct QuantizedCase {
    QuantizedDescriptor q;
    std::vector<float> weights_scales;
    std::vector<std::int32_t> src_zero_points, dst_zero_points;  // one value each, or one per channel
    std::vector<std::int32_t> weights_zero_points;               // one value, or one per output channel
};
QuantizedCase quantized_from_abi(const convcheck_conv_desc& desc);

}  // namespace convcheck::runner
