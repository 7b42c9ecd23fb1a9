// What checking a case costs the runner itself, before any plugin code runs: its data in double
// (the fills), the reference's result (value, magnitude and term count per output), the buffers
// shared with the child (in the case's dtype, page-rounded), and what the comparison copies. An
// upper bound of the runner's peak for the case, computed from the descriptor alone, so a case
// that cannot fit under the memory limit is refused at once instead of filling the machine
// (memory_limit.hpp). ctest measures the real peak of the runner against it.
#pragma once

#include <cstdint>
#include <string>

#include "convcheck/runner/case.hpp"

namespace convcheck::runner {

struct CaseMemory {
    std::int64_t buffers = 0;    // shared with the child: src, weights/theta, bias, dst (+ guard rounding)
    std::int64_t reference = 0;  // the runner's own work: fills, the reference's result, comparison copies
    std::int64_t total() const { return buffers + reference; }
    // "1.0 GiB for the buffers shared with the plugin, 8.3 GiB for the data and the reference's work"
    std::string text() const;
};

// The runner's peak for checking case c (mode and stored vectors included). Throws ConvError for
// an invalid descriptor.
CaseMemory case_memory(const Case& c);
// The same for one operation (its entry in operation_traits.cpp).
CaseMemory conv_memory(const Case& c);
CaseMemory cc_memory(const Case& c);
CaseMemory cc_backward_memory(const Case& c);
CaseMemory transposed_memory(const Case& c);

// The reason a case is refused under `limit_bytes`, or "" when it fits.
std::string over_memory_limit(const CaseMemory& needs, std::int64_t limit_bytes);

}  // namespace convcheck::runner
