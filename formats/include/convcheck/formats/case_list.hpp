// Case lists (".cases"): a suite written as data, one case per line, with comments that say why each
// case is there. The built-in list suites (smoke, edge, invalid, accuracy, large, backward; conformance/
// data/suites/) are such files, and `convcheck run --suite mine.cases` reads the same format.
//
//   # a comment, to the end of the line (a whole line, or after a case)
//   <descriptor>  <modes>  <name>  [fill=<fill>] [seed=<n>]
//
//   c=3,o=8,in=12x10,k=3x3,pb=1x1,pe=1x1,bias=1   bep   2d/basic_bias
//   c=4,o=4,in=6x7,k=3x3,pb=1x1,pe=1x1,dt=f16     e     rounding/f16_ties   fill=ties
//
// Fields are separated by spaces or tabs; none may contain one. The descriptor is a problem string as
// `convcheck run --case` takes it ("conv:" may be left out; "cc:" is not); modes are mode letters
// (b, e, p, s, r, i, l: docs/runner.md); the name is the case's name in results, or `-` for none (the case is
// then named by its descriptor). After the name, only
// `fill=` and `seed=` (an integer in [0, 2^64)), each at most once. Anything else is refused with a
// CaseListError naming the file, the line, the field and the rule: a list is never read as something
// it does not say. This reader checks the form; the meaning of a descriptor, a mode letter or a fill is
// checked by the runner, which names the same file and line.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace convcheck::formats {

struct CaseListEntry {
    std::string descriptor, modes, name;
    std::string fill;                   // "" when the line gives none
    std::optional<std::uint64_t> seed;  // empty when the line gives none
    std::string where;                  // "<file>:<line>", for the runner's messages
};

class CaseListError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// The entries of a case list, in order. `path` names the file in messages (and in each entry's `where`).
// Throws CaseListError; a list without any case is one too.
std::vector<CaseListEntry> read_case_list(const std::string& path, const std::string& text);

}  // namespace convcheck::formats
