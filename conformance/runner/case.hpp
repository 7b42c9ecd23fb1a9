// One conformance case and its result: what `convcheck run` checks and what it records
// (docs/results-schema.md, the "case" record).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accuracy.hpp"
#include "special_fill.hpp"
#include "descriptor.hpp"

namespace convcheck::runner {

enum class Op { conv, cc };

struct Case {
    std::string id;     // "<suite>/<index>", e.g. "smoke/0042": stable for any shard count
    std::string suite;  // the suite or file it came from
    std::string name;   // a shape's name where it has one, e.g. "resnet50/res2a_branch2b"
    Op op = Op::conv;
    ConvDescriptor conv;      // op == conv
    std::string cc;           // op == cc: the canonical "cc:" descriptor
    accuracy::Mode mode = accuracy::Mode::bound;
    std::uint64_t seed = 1;   // the data is a function of (descriptor, seed, mode, fill) only
    accuracy::Fill fill = accuracy::Fill::standard;  // exact mode: the mode's own fill or a special one
    std::string dialect;      // the framework the case came from ("onnx", "tf", ...), or empty
    std::string padding;      // the dialect's padding mode ("same_upper", ...), or empty
    std::string vector_dir;   // a stored golden vector: its set folder and case name (data and result
    std::string vector_case;  // come from the set, not from the seed), or empty

    // The canonical descriptor string ("conv:..." or "cc:...").
    std::string descriptor() const;
};

enum class Status { passed, failed, unsupported, crashed, hanged, xfail, xpass };
inline constexpr Status kAllStatuses[] = {Status::passed, Status::failed, Status::unsupported, Status::crashed,
                                          Status::hanged, Status::xfail,  Status::xpass};
const char* to_string(Status status);
bool parse_status(const std::string& text, Status* status);
// failed, crashed, hanged and xpass make the run fail (exit code 1).
bool is_failure(Status status);

// What decided a result that is not a pass (the case record's "kind", docs/results-schema.md).
// Finer than the status: a failed case is a mismatch, a probe failure, NaN outputs, outputs never
// written, an error the plugin returned or a leak; an unsupported one was declined by the backend
// or refused by the runner before it ran (over_memory_limit). An xfail keeps the kind of the
// failure it matched. none ("") for a pass.
enum class Kind {
    none, mismatch, probe, nan, unwritten, crash, hang, plugin_error, out_of_memory, leak, xpass, declined,
    over_memory_limit, invalid_case, statistics,
    nondeterministic  // determinism mode: runs of one case gave outputs that differ bitwise (determinism.hpp)
};
const char* to_string(Kind kind);

// The comparison part of a result (absent for unsupported, crashed, hanged).
struct ErrorReport {
    accuracy::Comparison comparison;
    std::vector<std::int64_t> worst_coordinates;  // [n, c, spatial...] of the worst output
    std::int64_t border_mismatches = 0, interior_mismatches = 0;
};

struct CaseResult {
    Case c;
    Status status = Status::passed;
    Kind kind = Kind::none;
    std::string reason;
    std::optional<ErrorReport> error;
    double time_ms = 0.0;
    std::string implementation;
    std::string reproducer;
    // Set by the shrinker: the smallest descriptor found that fails the same way, and its reproducer.
    std::string shrunk_descriptor, shrunk_reproducer;
    std::string failure_bundle;  // --dump-failures: the folder its data was written into, or ""
};

// Deterministic per-case seed from the run's seed and the case's position in its suite: the same for
// any shard count.
std::uint64_t case_seed(std::uint64_t run_seed, std::uint64_t index);

}  // namespace convcheck::runner
