// ONNX Conv: auto_pad NOTSET / SAME_UPPER / SAME_LOWER / VALID; pads [x1_begin, x2_begin, ..., x1_end, ...].
//
// The ONNX spec and its shape inference (SPEC-NOTES §2 and §6; onnx/defs/nn/defs.cc,
// convPoolShapeInference, onnx 1.12), K = (k-1)*d + 1:
//   NOTSET, VALID: out = (in + pb + pe - K) / s + 1, C division      (VALID: pads 0)
//                  so a numerator in (-s, 0) gives 1 (the window overhangs: read as a larger pads_end),
//                  -s gives 0 (an empty tensor), and less is refused (a negative size)
//   SAME_*:        out = ceil(in / s); t = max(0, (out-1)*s + K - in)
//                  SAME_UPPER: pb = floor(t/2) (extra at the end); SAME_LOWER: pb = ceil(t/2) (extra at the beginning)
// Data NCX, weights OIX ([M][C/group][k...]). "pads ... cannot be used simultaneously with auto_pad".
#pragma once

#include "convcheck/reference/dialects/dialect.hpp"

namespace convcheck::reference::dialects::onnx {

struct ConvAttributes {
    ConvShapes shapes;                        // kernel_size from W's shape (or the kernel_shape attribute)
    std::string auto_pad = "NOTSET";
    std::vector<std::int64_t> pads;           // 2*rank values or empty (all 0)
    std::vector<std::int64_t> strides;        // rank values or empty (all 1)
    std::vector<std::int64_t> dilations;      // rank values or empty (all 1)
    std::vector<std::int64_t> kernel_shape;   // optional: must agree with shapes.kernel_size
    std::int64_t group = 1;
};

DialectResult conv(const ConvAttributes& attributes);
// Text keys: n c o in k, auto_pad, pads, strides, dilations, kernel_shape, group.
DialectResult read(const AttributeSet& attributes);
std::optional<AttributeSet> spell(const Request& request, std::string* why_not);

}  // namespace convcheck::reference::dialects::onnx
