// The backward passes' and transposed convolution's part of the generator (docs/vectors.md, the
// `backward` and `transposed` sets). Fills: "iota" (data count 1..16, weights cycle -1, 0, 1, bias
// 1, 2, ...: exact, compared bitwise; the case is refused if a sum exceeds the dtype's 2^p) or
// "random" (uniform [-1, 1] rounded to the dtype, from the seed: compared under the bound).
#pragma once

#include <filesystem>

#include "convcheck/formats/manifest.hpp"

namespace convcheck::vectors {

// A "conv:...,dir=bwd_d" case: arrays diff_dst (the dst layout) and weights in, diff_src (+ _f64,
// _magnitude, _terms) out. A "dir=bwd_w" case: src and diff_dst in, diff_weights (and diff_bias with
// bias=1), each with _f64, _magnitude and _terms (canonical order: NCX, OIX, [O]).
VectorCase generate_backward_case(const std::filesystem::path& out_dir, VectorCase c);

// A "deconv:..." case: src (the transposed op's input, in the data format), weights (the forward's,
// in its filter format) and bias in; dst, dst_f64, magnitude, terms out.
VectorCase generate_transposed_case(const std::filesystem::path& out_dir, VectorCase c);

}  // namespace convcheck::vectors
