// Shrinking a failing case: the smallest descriptor that still fails the same way (same status,
// same kind of failure), found greedily. Each candidate is one step smaller (batch 1, one axis fewer,
// fewer channels or groups, a smaller input or kernel, stride or dilation 1, pads toward 0, no bias,
// f32, canonical layouts; a CC layer's candidates: shrink_cc.hpp); the first that still fails is
// taken and the search starts again from it. The seed stays the same. Every candidate runs
// isolated, like any case. The operation's traits entry gives the candidates (its `smaller`; a
// backward pass's are smaller_descriptors with the pass kept).
#pragma once

#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "convcheck/runner/check.hpp"

namespace convcheck::runner {

// The failure's signature: status, kind, and the reason with its numbers and details taken out.
std::string failure_signature(const CaseResult& r);

// Candidates one step smaller than d, all valid, largest reduction first.
std::vector<ConvDescriptor> smaller_descriptors(const ConvDescriptor& d);

struct ShrinkLimits {
    int max_attempts = 200;
    double max_seconds = 60.0;
    const volatile std::sig_atomic_t* stop = nullptr;  // set by a signal handler: end the search now
};

// The smallest failing case found, or nothing when no smaller one fails the same way.
std::optional<CaseResult> shrink(const Backend& backend, const CaseResult& failing, const CheckSettings& settings,
                                 const ShrinkLimits& limits);

}  // namespace convcheck::runner
