// Output shapes of a chain of CC layers trained with scale augmentation (seed 004, appendix A.2, Eq. 4):
//
//   output_shape(j) = ceil(input_shape * prod_{i=1..j} s_i)   if j is not the last layer
//                     input_shape * target_scale               if j is the last layer      (Eq. 4)
//
// Every shape is measured from the chain's INPUT shape with the cumulative product of scales, not
// from the previous layer's (rounded) output. The paper's examples (Table 4) make
// input_shape * target_scale an integer; where it is not, this reference takes the ceiling, like
// the default out = ceil(s * in) of Sec. 3.1 (a choice, documented in docs/cc.md).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/core/rational.hpp"

namespace convcheck::reference::cc {

using Shape2 = std::array<std::int64_t, 2>;     // [H, W]
using Scale2 = std::array<Rational, 2>;         // [s_h, s_w]

// The output shape of every layer of the chain, in order. Throws ConvError for an empty chain, a
// non-positive scale or input shape, or a non-positive target.
std::vector<Shape2> chain_output_shapes(const Shape2& input_shape, const std::vector<Scale2>& scales,
                                        const Scale2& target_scale);

// The descriptor of layer j of such a chain: input = the previous layer's output shape (the chain's
// input for j = 0), the layer's own scale, and the Eq. 4 output size. Every other field from base.
CcDescriptor chain_layer(const CcDescriptor& base, const Shape2& input_shape, const std::vector<Scale2>& scales,
                         const Scale2& target_scale, std::size_t j);

}  // namespace convcheck::reference::cc
