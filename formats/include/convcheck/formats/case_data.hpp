// One golden-vector case ready to run: its descriptor and its arrays, each checked against the
// manifest (SHA-256, element type, shape) and against the descriptor (dtype, dims). This is what
// the ctest checks and the conformance runner's vector suites consume.
#pragma once

#include "convcheck/core/descriptor.hpp"
#include "convcheck/formats/manifest.hpp"
#include "convcheck/formats/npy.hpp"

namespace convcheck::vectors {

// The arrays of a case whose inputs are src, weights and bias and whose output is dst (a forward or a
// transposed convolution).
struct OutputArrays {
    npy::Array src, weights, bias;  // the descriptor's dtype and formats; bias empty when !has_bias
    npy::Array dst;                 // the expected output, the descriptor's dtype and data_format
    npy::Array dst_f64, magnitude;  // f64, NCX: the reference's unrounded result and sum|x*w|
    npy::Array terms;               // i64, NCX: products summed per output (+1 for bias)
};

struct CaseData : OutputArrays {
    ConvDescriptor descriptor;
};

// The array of `role`, checked to hold `dtype` and `dims` (and the manifest's checksum). Throws ManifestError.
npy::Array load_role(const VectorSet& set, const VectorCase& c, const char* role, std::string_view dtype,
                     const std::vector<std::int64_t>& dims);

// Refuses an expect_error case (it has no data) and a case whose dtype is not the descriptor's `dt`.
void require_data(const VectorSet& set, const VectorCase& c, const std::string& dt);

// Refuses a stored array whose role is not in `known`, naming it and `layer` (the descriptor's text): a
// stray array (diff_theta of an analytic kernel, a bias of bias=0) would otherwise be read as nothing.
void refuse_other_arrays(const VectorSet& set, const VectorCase& c, const std::vector<std::string>& known,
                         const std::string& layer);

// The dims each array must have: src, weights, dst in the descriptor's formats; dst_ncx for the f64
// arrays; bias_elements 0 when the descriptor has no bias (then a stored bias is refused).
struct OutputDims {
    std::vector<std::int64_t> src, weights, dst, dst_ncx;
    std::int64_t bias_elements = 0;
};
// Loads src, weights, bias, dst, dst_f64, magnitude and terms of a case (require_data first); refuses any
// other stored array.
OutputArrays load_output_arrays(const VectorSet& set, const VectorCase& c, const std::string& dt, const OutputDims& dims);

// Parses the case's descriptor and loads every array. Throws ConvError (descriptor),
// ManifestError (checksum, type or shape disagree with the manifest or the descriptor),
// npy::NpyError (format). Not for expect_error cases (ManifestError).
CaseData load_case_data(const VectorSet& set, const VectorCase& c);

}  // namespace convcheck::vectors
