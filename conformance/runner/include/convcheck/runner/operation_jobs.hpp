// Internal to the runner: the functions the table of operations (operation_traits.cpp) names for the
// jobs around a check: reading a case, shrinking, failure bundles, determinism mode's output names,
// bench's timing, list's design, the case record's features. Each lives beside its operation: conv/jobs.cpp, cc/jobs.cpp,
// backward/jobs.cpp, transposed/jobs.cpp; the bundle arrays of conv and CC in bundle_arrays.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convcheck/runner/operation_traits.hpp"

namespace convcheck::runner::detail {

// The element at a flat index of a tensor of `dims` (its own layout), named [n, c, spatial...]:
// channels_last rotates [n, x..., c]'s channel to the front.
std::vector<std::int64_t> element_coordinates(const std::vector<std::int64_t>& dims, bool channels_last,
                                              std::int64_t flat);

// ---- discrete convolution (conv/jobs.cpp); the backward passes share what does not depend on the pass
void conv_read(const std::string& text, Case& c);
std::string conv_descriptor(const Case& c);
std::string conv_broken_rule(const Case& c);
std::vector<Case> conv_smaller(const Case& c);
std::string conv_benchdnn(const Case& c, std::string* why);
std::string conv_output_element(const Case& c, std::int64_t flat);
ChildOutcome time_conv(const Backend& backend, const Case& c, const TimedRun& run);
std::int64_t conv_macs(const Case& c);
const ConvDescriptor* conv_design_geometry(const Case& c);
nlohmann::json conv_features(const Case& c);
BundleArrays conv_bundle_arrays(const Case& c, const RecordedExecution& e);  // bundle_arrays.cpp

// ---- continuous convolution (cc/jobs.cpp)
void cc_read(const std::string& text, Case& c);
std::string cc_descriptor(const Case& c);
std::string cc_refused_entry(const Case& c, accuracy::Mode mode);
std::vector<Case> cc_smaller(const Case& c);
std::string cc_benchdnn(const Case& c, std::string* why);
std::string cc_output_element(const Case& c, std::int64_t flat);
nlohmann::json cc_features(const Case& c);
// The CC backward pass's outputs, in the order the execution log records them: diff_src[n, c, y, x],
// diff_theta[i] (kernel=net), diff_bias[o] (bias=1). (cc_backward/jobs.cpp)
std::string cc_backward_output_element(const Case& c, std::int64_t flat);
// A failure bundle's arrays: src, theta, diff_dst as the backend saw them; per gradient the reference on
// those bytes (expected, expected_f64, magnitude, terms) and what the backend wrote (actual), with the
// suffixes "" (diff_src), "_theta" and "_bias". (cc_backward/jobs.cpp)
BundleArrays cc_backward_bundle_arrays(const Case& c, const RecordedExecution& e);
BundleArrays cc_bundle_arrays(const Case& c, const RecordedExecution& e);  // bundle_arrays.cpp

// ---- the backward passes (backward/jobs.cpp)
// "diff_src[n, c, x...]", "diff_weights[o, i, k...]" or "diff_bias[o]" for a flat index into the
// recorded outputs (diff_src; or diff_weights followed by diff_bias), each in the case's layout.
std::string backward_output_element(const Case& c, std::int64_t flat);
BundleArrays backward_bundle_arrays(const Case& c, const RecordedExecution& e);
ChildOutcome time_backward(const Backend& backend, const Case& c, const TimedRun& run);

// ---- transposed convolution (transposed/jobs.cpp)
void transposed_read(const std::string& text, Case& c);
std::string transposed_descriptor(const Case& c);
std::string transposed_broken_rule(const Case& c);
std::vector<Case> transposed_smaller(const Case& c);
BundleArrays transposed_bundle_arrays(const Case& c, const RecordedExecution& e);
std::string transposed_benchdnn(const Case& c, std::string* why);
std::string transposed_output_element(const Case& c, std::int64_t flat);
ChildOutcome time_transposed(const Backend& backend, const Case& c, const TimedRun& run);
std::int64_t transposed_macs(const Case& c);
nlohmann::json transposed_features(const Case& c);

}  // namespace convcheck::runner::detail
