// Determinism mode (docs/runner.md#determinism-mode---repeat---threads-sweep): every case runs several
// times — `repeat` times at each thread count of the sweep — each run a full, isolated check (a failure
// of any run is the case's result), and the outputs of all runs must be identical bit for bit. A
// difference fails the case with kind "nondeterministic", naming the first differing output, both values
// and the runs (and thread counts) that gave them, unless the backend declares in backends.json
// "nondeterministic": {"reason": "..."}; then the difference is reported in the passed case's reason.
// check_case (check.hpp) runs this when settings.determinism.on().
#pragma once

#include <string>
#include <vector>

namespace convcheck::runner {

struct Determinism {
    int repeat = 1;                  // --repeat: runs per thread count
    std::vector<int> thread_counts;  // --threads-sweep; empty: the backend's --threads only
    int runs() const { return repeat * static_cast<int>(thread_counts.empty() ? 1 : thread_counts.size()); }
    bool on() const { return runs() > 1; }
    // The options that reproduce the mode: " --repeat 3 --threads-sweep 1,2" ("" when off).
    std::string options_text() const;
};

}  // namespace convcheck::runner
