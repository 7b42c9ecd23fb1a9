// A stored backward-pass or transposed-convolution case ready to run (docs/vectors.md, the backward
// and transposed sets): its descriptor and arrays, each checked against the manifest (SHA-256, element
// type, shape) and against the descriptor (dtype, dims).
#pragma once

#include <string>
#include <vector>

#include "convcheck/formats/case_data.hpp"
#include "convcheck/core/transposed_descriptor.hpp"

namespace convcheck::vectors {

// [n][c][sizes...] for the first `rank` sizes: a tensor's canonical (NCX / OIX) dims.
std::vector<std::int64_t> ncx_dims(std::int64_t n, std::int64_t c, const SpatialDims& sizes, int rank);

// One gradient: the stored tensor (the descriptor's dtype and layout), and canonical f64 truth,
// magnitude (sum of |term|) and term counts.
struct StoredGradient {
    std::string role;  // diff_src, diff_weights or diff_bias
    npy::Array stored, f64, magnitude, terms;
};

// Loads <role> (dtype dt, stored_dims) and <role>_f64, _magnitude (f64), _terms (i64), canonical_dims.
StoredGradient load_stored_gradient(const VectorSet& set, const VectorCase& c, const std::string& role, const std::string& dt,
                                    const std::vector<std::int64_t>& stored_dims,
                                    const std::vector<std::int64_t>& canonical_dims);

struct BackwardCaseData {
    ConvDescriptor descriptor;        // dir=bwd_d or dir=bwd_w
    npy::Array src, weights, diff_dst;  // the pass's inputs in the descriptor's layouts (bwd_d: no src; bwd_w: no weights)
    std::vector<StoredGradient> gradients;  // bwd_d: diff_src; bwd_w: diff_weights, then diff_bias when has_bias
};
// Throws ConvError (descriptor), ManifestError (a missing, extra or mismatched array), npy::NpyError.
BackwardCaseData load_backward_case_data(const VectorSet& set, const VectorCase& c);

// src in the data format, weights the forward's (its filter format), bias empty when !has_bias.
struct TransposedCaseData : OutputArrays {
    TransposedDescriptor descriptor;
};
TransposedCaseData load_transposed_case_data(const VectorSet& set, const VectorCase& c);

}  // namespace convcheck::vectors
