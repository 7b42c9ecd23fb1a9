// TOSA (arm/tosa-specification v1.0.1, pseudocode/operators/{CONV2D,CONV3D,DEPTHWISE_CONV2D}.tosac):
// CONV2D, CONV3D and DEPTHWISE_CONV2D, read literally.
//
//   input  [N,IH,IW,IC] (CONV3D [N,ID,IH,IW,IC]; DEPTHWISE [N,IH,IW,C])             NHWC: data nxc
//   weight [OC,KH,KW,IC] (CONV3D [OC,KD,KH,KW,IC])   OHWI: no canonical filter format stores it, so
//          the descriptor says OIX and the result says the weight layout (a reorder is implied);
//   weight [KH,KW,C,M] (DEPTHWISE)                   the canonical XIO with groups = C, output c*M + m
//   pad [pad_top, pad_bottom, pad_left, pad_right] (CONV3D [pad_d0, pad_d1, pad_top, ...]),
//   stride [stride_y, stride_x], dilation [dilation_y, dilation_x] (CONV3D: d first).
//
// Its ERROR_IF rules, each refused with the rule's own text (framework wording):
//   ERROR_IF(!is_same<in_t,i8_t>() && input_zp != 0)       (convcheck reads floating-point types)
//   ERROR_IF(!is_same<weight_t,i8_t>() && weight_zp != 0)
//   ERROR_IF(pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0)    pads are never negative
//   ERROR_IF(stride_y < 1 || stride_x < 1)
//   ERROR_IF(dilation_y < 1 || dilation_x < 1)
//   ERROR_IF(OH != idiv_check(IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y, stride_y) + 1)
//            where idiv_check ERROR_IFs unless the division is exact: the padded extent minus the
//            dilated kernel must divide exactly by the stride; OH (when given as out=) must equal it
//   ERROR_IF(BC != OC && BC != 1)                           (bias shape [BC]; DEPTHWISE: C*M)
// and the tensor rule of the introduction: "The tensor shape in each dimension must be greater than
// or equal to 1" (so an output size below 1 is an error, never an empty tensor).
#pragma once

#include "convcheck/reference/dialects/dialect.hpp"

namespace convcheck::reference::dialects::tosa {

struct ConvAttributes {
    std::string op = "CONV2D";          // CONV2D, CONV3D or DEPTHWISE_CONV2D
    ConvShapes shapes;                  // in_channels = IC (DEPTHWISE: C); out_channels = OC (DEPTHWISE: C*M)
    std::int64_t multiplier = 1;        // DEPTHWISE_CONV2D: M
    std::vector<std::int64_t> pad;      // 2*rank values; empty: 0
    std::vector<std::int64_t> stride;   // rank values; empty: 1
    std::vector<std::int64_t> dilation; // rank values; empty: 1
    std::vector<std::int64_t> output;   // OH, OW (OD first for CONV3D) when the graph states them; empty: inferred
    std::int64_t input_zp = 0, weight_zp = 0;
    std::int64_t bias_size = 0;         // BC; 0: no bias tensor
};

DialectResult conv(const ConvAttributes& attributes);
// Text keys: op, n c o in k (DEPTHWISE: n c multiplier in k), pad, stride, dilation, out, input_zp,
// weight_zp, bias (BC).
DialectResult read(const AttributeSet& attributes);
std::optional<AttributeSet> spell(const Request& request, std::string* why_not);

}  // namespace convcheck::reference::dialects::tosa
