// Internal to the runner: the CC layer's backward pass (docs/cc-backward.md): check.cpp, data.cpp,
// calls.cpp, probe.cpp, stored.cpp, jobs.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../cc/operation.hpp"
#include "convcheck/reference/cc/backward.hpp"

namespace convcheck::runner::detail {

// ---- the CC backward pass (check.cpp, data.cpp; docs/cc-backward.md) -------------------------------
// Bound and probe mode; a plugin before ABI 1.4 has no CC backward (declined with that reason).
std::string cc_backward_mode_not_applicable(accuracy::Mode mode);
std::string cc_backward_unclaimed(const PluginInfo& info, const Case& c);
void check_cc_backward(const Backend& backend, const Case& c, const CheckSettings& s,
                       const accuracy::Contract& contract, const CaseMemory& needs, CaseResult& r);
// The backward pass's inputs: the forward's src and theta (cc_case_data) and diff_dst, uniform in
// [-1, 1] from the case's seed (a stream of its own).
std::vector<float> cc_backward_diff_dst(const CcDescriptor& d, std::uint64_t seed);
// A stored CC backward vector's src, theta (the returned data; no bias: it enters no gradient) and diff_dst
// (cc_backward/stored.cpp); throws std::invalid_argument when the stored layer is not d.
CcData stored_cc_backward_data(const Case& c, const CcDescriptor& d, std::vector<float>& diff_dst);
// The tensor and coordinates of a flat index into the concatenated gradients: diff_src[n, c, y, x],
// diff_theta[i], diff_bias[o].
struct CcGradientIndex {
    std::string tensor;
    std::vector<std::int64_t> coordinates;
};
CcGradientIndex cc_gradient_index(const CcDescriptor& d, std::int64_t flat);
std::string cc_gradient_element(const CcDescriptor& d, std::int64_t flat);
// The gradients read back, concatenated: diff_src [N,Cin,H,W], diff_theta (kernel=net), diff_bias (bias=1).
struct CcGradients {
    std::vector<double> got;
    std::int64_t unwritten = 0;
};
ChildOutcome run_cc_backward(const Backend& backend, const CcDescriptor& d, const CcData& data,
                             const std::vector<float>& diff_dst, const CheckSettings& s, const CaseMemory& needs,
                             CcGradients& out);
// The reference's gradients concatenated as above, with their magnitudes, terms (diff_theta: its roundings)
// and each element's bound under the CC backward contract (cc_backward/check.cpp).
struct CcBackwardExpected {
    std::vector<double> values, magnitude, bounds;
    std::vector<std::int64_t> terms;
};
CcBackwardExpected cc_backward_expected(const CcDescriptor& d, const CcData& data, const std::vector<float>& diff_dst,
                                        const accuracy::Contract& contract);
// A reference result's gradients concatenated (diff_src, diff_theta, diff_bias).
std::vector<double> cc_gradients(const reference::cc::CcBackward& g);
// Probe mode (cc_backward/probe.cpp): a NaN in diff_dst, then in src, one run each; the gradients the
// reference's NaN reaches must be exactly the backend's, the others within `want.bounds`.
struct CcBackwardInputs {
    const CcData& data;
    const std::vector<float>& diff_dst;
    const CcBackwardExpected& want;  // on the inputs without a NaN
};
void check_cc_backward_probe(const Backend& backend, const Case& c, const CcDescriptor& d, const CcBackwardInputs& in,
                             const CheckSettings& s, const accuracy::Contract& contract, const CaseMemory& needs,
                             CaseResult& r);

}  // namespace convcheck::runner::detail
