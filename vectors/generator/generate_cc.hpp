// The CC part of the generator: one continuous-convolution case (seed 004) from its spec.
#pragma once

#include <filesystem>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/formats/manifest.hpp"

namespace convcheck::vectors {

// Writes one array of a case and returns its manifest entry (generate.cpp).
ArrayEntry write_array(const std::filesystem::path& dir, const std::string& case_name, const std::string& role,
                       const std::string& dtype, const npy::Array& array);

// A CC layer's inputs from a case's random stream, drawn in this order: src uniform in [-1, 1], theta
// (kernel=net, the ABI order) uniform in [-0.5, 0.5], bias uniform in [-1, 1]; all f32, empty theta / bias
// when the layer has none.
struct CcInputs {
    std::vector<float> src, theta, bias;
};
CcInputs cc_inputs(const CcDescriptor& d, std::mt19937_64& rng);

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
