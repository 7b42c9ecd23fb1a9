// The mutants plugin: a plain convolution and CC backend with one deliberate bug per switch, chosen
// with `--backend-option mutant=<name>` (ABI 1.1 create options). It exists to measure how strong a
// suite is (`convcheck selftest`, docs/selftest.md): every bug must be caught by the smoke suite, and
// mutant=none and the honest variants (correct code computed another way) must pass everything.
// The list itself is mutants.def, read here, by the tests, by selftest and by CMake.
#pragma once

#include <string_view>

namespace convcheck::mutants {

enum class Mutant {
#define MUTANT(name, kind, caught_in, vectors, klass, what) name,
#include "convcheck/mutant_list/mutants.def"
#undef MUTANT
};

enum class Kind { baseline, bug, honest };

struct MutantInfo {
    std::string_view name;
    Kind kind;
    std::string_view caught_in;  // "exact", "bound", "probe", "crash", "invalid", "determinism", "large",
                                 // "strides", "backward"; "-" for baseline and honest
    std::string_view vectors;    // the golden-vector set whose stored data alone catch it, or "-"
    std::string_view bug_class;  // "rounding", "cc", ...
    std::string_view what;
};

inline constexpr MutantInfo kMutants[] = {
#define MUTANT(name, kind, caught_in, vectors, klass, what) {#name, Kind::kind, #caught_in, #vectors, #klass, what},
#include "convcheck/mutant_list/mutants.def"
#undef MUTANT
};

}  // namespace convcheck::mutants
