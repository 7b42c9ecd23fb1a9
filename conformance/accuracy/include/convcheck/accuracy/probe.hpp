// Probe mode of the accuracy contract (DESIGN.md): geometry checked apart from arithmetic.
// "A NaN placed in one input element must appear in exactly the outputs whose receptive field
// contains it, and nowhere else." The expected set comes from the reference itself, run on the same
// data with the NaN in place (NaN * w is NaN for every w, 0 included, so the reference's NaN outputs
// are exactly the receptive field of the probed element).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "convcheck/accuracy/accuracy.hpp"

namespace convcheck::accuracy {

// Random data as in bound mode, but every weight has magnitude in [1/4, 1]: the only zero weight is the
// one each probe run puts opposite its NaN (conv/probe.cpp, probe_partners.cpp), where NaN * 0 = NaN.
RandomFill make_probe_fill(const ConvDescriptor& d, std::uint64_t seed);

// The src elements (flat NCX indices) to probe, deterministic for (descriptor, seed), distinct:
// the first element (a corner: the border), the last one, and `random_count` drawn at random.
std::vector<std::int64_t> probe_elements(const ConvDescriptor& d, std::uint64_t seed, int random_count);
// The same picks over a tensor of `elements` elements (a backward pass probes diff_dst).
std::vector<std::int64_t> probe_elements(std::int64_t elements, std::uint64_t seed, int random_count);

struct ProbeComparison {
    std::int64_t elements = 0;
    std::int64_t expected = 0;  // outputs the NaN must reach
    std::int64_t leaked = 0;    // NaN outside the receptive field
    std::int64_t missing = 0;   // no NaN inside the receptive field
    std::int64_t first_leaked = -1, first_missing = -1;
    bool passed() const { return leaked == 0 && missing == 0; }
};
// want_with_nan: the reference's result with the probe in place; got: the backend's, same order.
// may_reach (empty, or one flag per output): outputs a NaN may reach though the reference's does not,
// neither leaked nor missing there (a backward-weights gradient whose tap reads a padded zero: 0 * NaN).
ProbeComparison compare_probe(std::span<const double> want_with_nan, std::span<const double> got,
                              std::span<const char> may_reach = {});

}  // namespace convcheck::accuracy
