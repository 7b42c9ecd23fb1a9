// A stored CC forward case ready to run (docs/vectors.md, the cc set): its layer and arrays, each checked
// against the manifest (SHA-256, element type, shape) and against the layer's dims. Every array the layer
// needs must be there (theta for kernel=net, bias for bias=1) and every stored array must be one of them:
// a missing one would reach the backend as a null buffer, a stray one would be read as nothing.
#pragma once

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/formats/manifest.hpp"
#include "convcheck/formats/npy.hpp"

namespace convcheck::vectors {

struct CcCaseData {
    CcDescriptor descriptor;
    npy::Array src, theta, bias;        // f32 [N, Cin, H, W]; [theta_elements] (net only, else empty); [Cout] (bias=1 only)
    npy::Array grid;                    // f64 [2, H', W']: the projected grid
    npy::Array dst;                     // f32 [N, Cout, H', W']: dst_f64 rounded once
    npy::Array dst_f64, magnitude;      // f64 [N, Cout, H', W']: the reference's result and sum |k * x|
    npy::Array terms;                   // i64 [N, Cout, H', W']
};

// Throws ConvError (descriptor), ManifestError (a missing, extra or mismatched array), npy::NpyError.
CcCaseData load_cc_case_data(const VectorSet& set, const VectorCase& c);

}  // namespace convcheck::vectors
