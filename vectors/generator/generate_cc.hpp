// The CC part of the generator: one continuous-convolution case (seed 004) from its spec.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "convcheck/formats/manifest.hpp"

namespace convcheck::vectors {

// Writes one array of a case and returns its manifest entry (generate.cpp).
ArrayEntry write_array(const std::filesystem::path& dir, const std::string& case_name, const std::string& role,
                       const std::string& dtype, const npy::Array& array);

// A case whose descriptor is "cc:...": random f32 data (src and bias uniform in [-1, 1], theta
// uniform in [-0.5, 0.5] for kernel=net) from the seed, the reference's four-block CC in f64, and
// its projected grid. Arrays: src, theta (net only), bias, grid ([2, H', W'] f64), dst (f32),
// dst_f64, magnitude, terms.
VectorCase generate_cc_case(const nlohmann::json& spec, const std::filesystem::path& out_dir, VectorCase c);

// A multi-layer chain (seed 004, Eq. 4 and Table 4): {"name", "base": "cc:...", "seed",
// "chain": {"input": [H, W], "scales": [["p/q", "p/q"], ...], "target": ["p/q", "p/q"]}} becomes one
// case per layer, <name>_layer<j> (1-based), each with the chain's input and output shape for that
// layer (reference::cc::chain_layer) and the base's other fields.
std::vector<VectorCase> generate_cc_chain(const nlohmann::json& spec, const std::filesystem::path& out_dir,
                                          const VectorCase& base);

}  // namespace convcheck::vectors
