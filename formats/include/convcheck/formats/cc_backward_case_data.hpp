// A stored CC backward case ready to run (docs/vectors.md, the cc_backward set; descriptor "cc:...,dir=bwd"):
// its layer and arrays, each checked against the manifest (SHA-256, element type, shape) and against the
// layer's dims.
#pragma once

#include <vector>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/formats/gradient_case_data.hpp"

namespace convcheck::vectors {

// One gradient: stored (f32), f64, magnitude, terms as a backward case's, and bound: the reference's
// rigorous bound on |f64 - exact| (reference/cc/backward.hpp, cc_backward_error_bound).
struct StoredCcGradient : StoredGradient {
    npy::Array bound;
};

struct CcBackwardCaseData {
    CcDescriptor descriptor;                   // the layer (the dir=bwd key taken out)
    npy::Array src, theta, diff_dst;           // f32 [N, Cin, H, W]; [theta_elements] (net only, else empty); [N, Cout, H', W']
    npy::Array distances;                      // f64 [K, 2, H', W']: block 2's D
    std::vector<StoredCcGradient> gradients;   // diff_src, then diff_theta (net), then diff_bias (bias=1)
};

// Throws ConvError (descriptor), ManifestError (not a dir=bwd case, a missing, extra or mismatched array),
// npy::NpyError.
CcBackwardCaseData load_cc_backward_case_data(const VectorSet& set, const VectorCase& c);

}  // namespace convcheck::vectors
