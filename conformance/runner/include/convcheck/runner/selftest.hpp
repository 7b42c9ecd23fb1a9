// How strong is a suite? `convcheck selftest` (docs/selftest.md) runs the bundled mutants plugin
// once per entry of its list (conformance/mutant_list/include/convcheck/mutant_list/mutants.def) against the suite's cases
// and records, per mutant, which checks caught it: the kill matrix. A bug nothing catches is a hole
// in the suite; an honest variant (correct code computed another way) that fails is a false alarm.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "convcheck/runner/case.hpp"
#include "convcheck/runner/determinism.hpp"

namespace convcheck::runner {

struct MutantVerdict {
    std::string name, kind, bug_class, meant, what;  // from mutants.def
    std::int64_t cases = 0, passed = 0, unsupported = 0;
    std::int64_t unchecked = 0;  // cases the contract could not check: neither a kill nor a pass
    // per mode ("exact", "bound", "probe"; "determinism" for a nondeterministic failure): cases failed, and
    // cases crashed or hanged
    std::map<std::string, std::int64_t> failed, crashed;
    std::string first_case, first_reason, first_reproducer;  // the first case that caught it
    bool killed() const;
    // a bug caught in the check meant for it ("crash": some case crashed; any check when meant is "-")
    bool killed_as_meant() const;
    // a bug whose check is a suite of its own (strides, invalid, large) that `suite` is not, or a bug of one
    // operation on a suite of another's cases only (backward, transposed): that suite holds none of the cases
    // meant for it
    bool meant_for_another_suite(const std::string& suite) const;
    // the built-in suite whose cases are meant to catch it: its own (strides, invalid, large), else smoke
    std::string suite_meant() const;
};

// How the mutants meant for determinism mode ("determinism" in mutants.def) run: --threads-sweep 1,2 --repeat 3.
inline const Determinism kSelftestDeterminism{3, {1, 2}};

struct SelftestSettings {
    double timeout_s = 10.0;
    std::vector<std::string> only;  // mutant names; empty: every one
};

// Throws std::invalid_argument for a name in settings.only that is not in the list, PluginError when
// the mutants plugin cannot be loaded.
std::vector<MutantVerdict> run_selftest(const std::vector<Case>& cases, const SelftestSettings& settings,
                                        const std::function<void(const MutantVerdict&)>& on_mutant = {});

}  // namespace convcheck::runner
