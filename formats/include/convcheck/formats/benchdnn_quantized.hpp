// benchdnn's int8 conv cases (--dt with integer types, --attr-scales, --attr-zero-points) as quantized
// descriptors (qconv:, docs/quantized.md), where the mapping is exact; everything else a skip reason.
//
// oneDNN's int8 convolution (its "Quantization" guide): dst = saturate(round_even(src_scale * wei_scale(oc) *
// sum (src - zp_src) * (wei - zp_wei) / dst_scale + zp_dst)): the qconv descriptor's reading of ssc, wsc, dsc and
// the zero points. Mapped: src u8/s8, weights u8/s8, dst u8/s8 (scales `common` (or `host_scalar`, mask 0) f32
// values, weights `per_oc`: one per output channel, drawn from the case's seed as convcheck draws `wsc=oc`; zero
// points `common` s32), dst s32 without scales (the accumulator itself, as ONNX ConvInteger), forward; FWD_B's f32
// bias (and an f32 --bia-dt) as bdt=f32: added after the src and weights scales, before the dst scale, as oneDNN
// adds it. Skipped with the reason: a bias of another type, a bias with an s32 dst, floating-point dst,
// per-channel src or dst scales and zero points, scales on an s32 dst,
// post-ops, memory strides and other layouts, backward directions.
#pragma once

#include <array>
#include <string>

#include "convcheck/formats/benchdnn_mapping.hpp"

namespace convcheck {

// True when --dt names an integer type for src, weights or dst (the int8 mapping below takes the case).
bool benchdnn_integer_types(const std::array<std::string, 3>& types);

// The int8 case, or its skip reason. `types` are benchdnn_data_types' (src, wei, dst).
BenchdnnMapping map_benchdnn_int8_case(const BenchdnnSetup& setup, const BenchdnnProblem& problem,
                                       const std::array<std::string, 3>& types);

// --attr-scales on a float (f32, f16, bf16, fp8) forward convolution onto d.scales (docs/scales.md): src and dst
// `common` (mask 0) f32 values, weights `common` or `per_oc` (drawn from the case's seed: wsc=oc). False with the
// skip reason for what that does not hold (per-channel src or dst scales, typed or grouped scales).
bool benchdnn_float_scales(const std::string& written, ConvDescriptor& d, std::string* reason);

}  // namespace convcheck
