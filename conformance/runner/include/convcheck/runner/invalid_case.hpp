// An invalid case (mode "invalid", the invalid-case suite, docs/runner.md): a descriptor that breaks
// one rule of the spec on purpose. The runner passes it to the backend through the ABI as it is,
// and the backend must refuse it (query: unsupported or an error; or execute: an error). The
// reference cannot compute it, so nothing is compared: what the backend wrote is only counted.
#pragma once

#include <cstdint>
#include <string>

#include "convcheck/core/descriptor.hpp"
#include "convcheck/core/transposed_descriptor.hpp"

namespace convcheck::runner {

// The rule a descriptor breaks, in validate()'s words (attribute, value, rule); "" when it is valid.
std::string broken_rule(const ConvDescriptor& d);
std::string broken_rule(const TransposedDescriptor& t);  // transposed_descriptor.hpp's validate()

// The element counts of the buffers an invalid case gets. Its own shape may have no size (a zero
// channel count, an empty or negative output axis, a stride of 0), so each buffer is sized for the
// shape with every count clamped to at least 1: an output axis whose padded input is smaller than
// the dilated kernel counts 1 output (what a backend that computes it anyway writes: XNNPACK's
// doz, oneDNN's truncating division), one with a stride or dilation below 1 counts
// max(1, in + pb + pe) (a dense kernel's most), groups below 1 count as 1 and C / G is rounded
// up. Each count is capped at kMaxElements: a backend that writes more than its buffer faults in
// the guard page after it (a crash, never a silent overrun).
struct InvalidCaseElements {
    static constexpr std::int64_t kMaxElements = std::int64_t{1} << 20;
    std::int64_t src = 1, weights = 1, bias = 0, dst = 1;
};
InvalidCaseElements invalid_case_elements(const ConvDescriptor& d);
// A transposed convolution's (the invalid_transposed suite): src [N][C][in...], weights C * (O/G) * k...,
// dst [N][O][out...] with out = (in-1)*s - pb - pe + (k-1)*d + 1 + op, each count clamped and capped as
// above (an axis with no output counts 1), bias O.
InvalidCaseElements invalid_case_elements(const TransposedDescriptor& t);

}  // namespace convcheck::runner
