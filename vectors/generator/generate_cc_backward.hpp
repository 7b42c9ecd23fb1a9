// The CC backward part of the generator (docs/vectors.md, the cc_backward set): one backward case of a
// continuous-convolution layer (seed 004, docs/cc-backward.md) from its spec.
#pragma once

#include <filesystem>

#include "convcheck/formats/manifest.hpp"

namespace convcheck::vectors {

// A case whose descriptor is "cc:...,dir=bwd": the layer's inputs as a cc case draws them (cc_inputs; the
// bias is drawn and not stored: it does not enter a gradient), then diff_dst uniform in [-1, 1] from the
// same stream; the reference's backward (reference/cc/backward.hpp, f64) and its rigorous bound.
// Arrays: src, theta (net only), diff_dst (f32, NCHW); distances (block 2's D [K, 2, H', W'], f64); and per
// gradient g in diff_src [N, Cin, H, W], diff_theta [theta_elements] (net only), diff_bias [Cout] (bias=1):
// g (f32, the f64 value rounded once), g_f64, g_magnitude, g_terms (i64: products summed; for diff_theta
// the reference's bound L on the roundings along any path) and g_bound (cc_backward_error_bound: the
// reference's |g_f64 - exact|). A net layer with a LeakyReLU branch its rounding cannot decide
// (leaky_relu_margin <= 1) is refused: the theta bound does not hold there; choose another seed. So is a
// real-scale layer with a window an f32 backend may decide either way (the runner's
// ambiguous_real_scale_window, which refuses such a case when it loads it).
VectorCase generate_cc_backward_case(const std::filesystem::path& out_dir, VectorCase c);

}  // namespace convcheck::vectors
