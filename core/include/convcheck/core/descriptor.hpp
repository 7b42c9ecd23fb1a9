// The canonical convolution descriptor: the one type that the reference, the optimized
// implementation and the conformance runner share.
//
// Words follow OpenVINO Convolution-1 and oneDNN Graph (seeds 001, 002): strides, pads_begin,
// pads_end, dilations (1-based: 1 = dense), groups, data_format NCX/NXC, filter_format OIX/XIO.
// Per spatial axis (SPEC-NOTES §1):
//   K   = (kernel - 1) * dilation + 1                       (the dilated kernel extent)
//   out = floor((input + pads_begin + pads_end - K) / stride) + 1
// Pads may be negative (a negative pad crops the input; CNTK's autoPadding produces them).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "convcheck/core/dtype.hpp"
#include "convcheck/core/post_ops.hpp"
#include "convcheck/core/scales.hpp"

namespace convcheck {

inline constexpr int kMaxSpatialRank = 3;
using SpatialDims = std::array<std::int64_t, kMaxSpatialRank>;

// NCX: [N][C][spatial...] (NCW, NCHW, NCDHW); NXC: [N][spatial...][C] (NWC, NHWC, NDHWC).
enum class DataFormat : int { ncx = 0, nxc = 1 };
// OIX: [O][I/G][spatial...]; XIO: [spatial...][I/G][O]; OXI: [O][spatial...][I/G] (OHWI: XNNPACK,
// TOSA, oneDNN's NHWC paths).
enum class FilterFormat : int { oix = 0, xio = 1, oxi = 2 };
// The pass a descriptor asks for (docs/passes.md; benchdnn's --dir): the forward pass, backward data
// (diff_src from diff_dst and weights) or backward weights (diff_weights, and diff_bias when
// has_bias, from src and diff_dst). The tensors keep their forward shapes and layouts.
enum class Pass : int { forward = 0, backward_data = 1, backward_weights = 2 };
// "fwd", "bwd_d", "bwd_w": the values of the canonical string's dir= key.
std::string_view to_string(Pass pass);

std::string_view to_string(DataFormat format);
std::string_view to_string(FilterFormat format);

// An invalid descriptor or attribute: names the attribute, the value and the rule it broke.
class ConvError : public std::invalid_argument {
public:
    ConvError(std::string attribute, std::string value, std::string rule);
    const std::string& attribute() const { return attribute_; }
    const std::string& value() const { return value_; }
    const std::string& rule() const { return rule_; }

private:
    std::string attribute_, value_, rule_;
};

// fpmath= (oneDNN's fpmath mode, benchdnn --attr-fpmath): the precision a backend MAY round f32 inputs (src and weights,
// or the backward passes' diff_dst) to before multiplying, accumulating in f32. A permission, not a demand: f32
// arithmetic is within it. strict: none (the default). tf32: 11 significand bits, bf16: 8, both with f32's exponent
// range, so the rounding is a relative one of 2^-11 / 2^-8 (docs/accuracy.md, "fpmath").
enum class FpMath : int { strict = 0, tf32 = 1, bf16 = 2 };
std::string_view to_string(FpMath m);  // "strict", "tf32", "bf16"
int fpmath_significand_bits(FpMath m);      // 0 (strict), 11, 8

struct ConvDescriptor {
    int rank = 2;                       // spatial rank: 1, 2 or 3; only the first `rank` entries below are used
    std::int64_t batch = 1;             // N
    std::int64_t in_channels = 1;       // C
    std::int64_t out_channels = 1;      // O
    std::int64_t groups = 1;            // G; depthwise is G = C
    SpatialDims input_size{1, 1, 1};    // spatial input sizes, outermost (depth) first
    SpatialDims kernel_size{1, 1, 1};
    SpatialDims strides{1, 1, 1};
    SpatialDims dilations{1, 1, 1};     // 1-based: 1 is a dense kernel
    SpatialDims pads_begin{0, 0, 0};
    SpatialDims pads_end{0, 0, 0};
    bool has_bias = false;
    DataType dtype = DataType::f32;     // src's type, and every tensor's unless dtype_overrides says otherwise
    // Per-tensor data types (benchdnn --dt=src:wei:dst, --bia-dt): a tensor left unset takes dtype, so a
    // descriptor of one type (seed 001: "T") sets none. Read them through src_dtype() .. dst_dtype().
    struct DtypeOverrides {
        std::optional<DataType> weights, bias, dst;
    } dtype_overrides;
    DataFormat data_format = DataFormat::ncx;
    FilterFormat filter_format = FilterFormat::oix;
    // Memory strides in elements, one per dim of the tensor in its format's order (src_dims(),
    // weights_dims(), dst_dims()); empty: dense, the default. Rules and offsets: memory_layout.hpp.
    std::vector<std::int64_t> src_strides, weights_strides, dst_strides;
    Pass pass = Pass::forward;          // dir=: the forward pass unless a backward one is asked for
    std::vector<PostOp> post_ops;       // po=: fused post-ops, applied in order (post_ops.hpp); empty: none
    FpMath fpmath = FpMath::strict;     // fpmath=: the input precision the backend may compute in (above)
    ConvScales scales;                  // ssc=, wsc=, dsc=: oneDNN's scales (scales.hpp); forward pass only

    bool operator==(const ConvDescriptor& other) const;

    // Each tensor's data type. A backward pass keeps them per tensor: diff_src is src_dtype(),
    // diff_weights weights_dtype(), diff_bias bias_dtype(), diff_dst dst_dtype().
    DataType src_dtype() const { return dtype; }
    DataType weights_dtype() const { return dtype_overrides.weights.value_or(dtype); }
    DataType bias_dtype() const { return dtype_overrides.bias.value_or(dtype); }
    DataType dst_dtype() const { return dtype_overrides.dst.value_or(dtype); }
    // Whether the tensors' data types differ (the bias counts only when has_bias). Code that reads every
    // tensor as `dtype` must refuse a mixed descriptor.
    bool mixed() const;
    // Whether a tensor is of an fp8 type (f8_e4m3, f8_e5m2; the bias only when has_bias).
    bool has_fp8() const;

    // The dilated kernel extent K and the output size on spatial axis `axis` (no validation).
    std::int64_t dilated_kernel(int axis) const;
    std::int64_t output_size(int axis) const;

    std::int64_t in_channels_per_group() const { return in_channels / groups; }
    std::int64_t out_channels_per_group() const { return out_channels / groups; }

    // Tensor shapes in the descriptor's own formats, outermost first.
    std::vector<std::int64_t> src_dims() const;
    std::vector<std::int64_t> weights_dims() const;
    std::vector<std::int64_t> dst_dims() const;
    std::int64_t src_elements() const;
    std::int64_t weights_elements() const;
    std::int64_t dst_elements() const;
    std::int64_t bias_elements() const { return has_bias ? out_channels : 0; }
    // Multiply-adds of the whole problem (for GFLOP/s: 2 * macs).
    std::int64_t macs() const;
};

// Throws ConvError for the first rule the descriptor breaks:
//   rank in {1,2,3}; batch, channels, groups, sizes, kernel >= 1; strides, dilations >= 1;
//   in_channels and out_channels divisible by groups; a non-empty output on every axis
//   (K <= input + pads_begin + pads_end); every element count and byte size fits in 64 bits;
//   the rules of memory_layout.hpp for any strides given; a bias data type of its own only with has_bias; the
//   post-op rules of post_ops.hpp; scales (scales.hpp) > 0 and finite, on the forward pass only.
void validate(const ConvDescriptor& d);

// The canonical string form, e.g.
//   conv:n=1,c=16,o=32,g=1,in=7x7,k=3x3,s=1x1,d=1x1,pb=1x1,pe=1x1,bias=0,dt=f32,data=ncx,wei=oix
// print() writes every field (ss=, ws=, ds= when the descriptor gives strides, e.g. ss=96x1x24x3; dir=bwd_d
// or dir=bwd_w for a backward pass, nothing for the forward pass; po=relu+sum:0.5+add:per_oc when the descriptor
// has post-ops; ssc=, wsc=, dsc= for the scales that are not 1); parse(print(d)) == d for every valid d.
// Data types: dt=f32 when every tensor has one type; else benchdnn's order dt=src:weights:dst (e.g.
// dt=bf16:bf16:f32), and bdt=<type> when the bias's type differs from src's.
std::string to_string(const ConvDescriptor& d);
// The data-type keys of that string alone: "dt=f32", "dt=bf16:bf16:f32,bdt=f32", "dt=f16,bdt=f32".
std::string dtypes_text(const ConvDescriptor& d);
// Parses the canonical form. Keys may come in any order; missing keys take the defaults above
// (n=1, g=1, s=1, d=1, pads 0, bias=0, dt=f32, data=ncx, wei=oix, dense, dir=fwd); c, o, in and k are required.
// dt= takes one type for every tensor or three (src:weights:dst); bdt= defaults to src's type.
// A spatial key with one value applies it to every axis. Throws ConvError; validates the result.
ConvDescriptor parse_descriptor(std::string_view text);

}  // namespace convcheck
