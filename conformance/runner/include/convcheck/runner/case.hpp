// One conformance case and its result: what `convcheck run` checks and what it records
// (docs/results-schema.md, the "case" record).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/accuracy/profiles.hpp"
#include "convcheck/accuracy/special_fill.hpp"
#include "convcheck/core/descriptor.hpp"
#include "convcheck/core/quantized_descriptor.hpp"
#include "convcheck/core/transposed_descriptor.hpp"

namespace convcheck::runner {

// conv_bwd_data and conv_bwd_weights are discrete convolution's backward passes (a "conv:" descriptor
// with dir=bwd_d or dir=bwd_w; docs/passes.md): each its own entry of the table of operations.
// conv_transposed: transposed convolution, a "deconv:" descriptor (core/include/convcheck/core/transposed_descriptor.hpp,
// docs/transposed.md).
// cc_backward: the CC layer's backward pass, a "cc:" descriptor with dir=bwd (ABI 1.4; docs/cc-backward.md).
// conv_quantized: quantized (integer) convolution, a "qconv:" descriptor (core/include/convcheck/core/
// quantized_descriptor.hpp, ABI 1.5; docs/quantized.md).
enum class Op { conv, cc, conv_bwd_data, conv_bwd_weights, conv_transposed, cc_backward, conv_quantized };
// The operation of a "conv:" descriptor: by its pass.
Op conv_op(const ConvDescriptor& d);

struct Case {
    std::string id;     // "<suite>/<index>", e.g. "smoke/0042": stable for any shard count
    std::string suite;  // the suite or file it came from
    std::string name;   // a shape's name where it has one, e.g. "resnet50/res2a_branch2b"
    Op op = Op::conv;
    ConvDescriptor conv;      // op == conv, conv_bwd_data, conv_bwd_weights
    std::string cc;           // op == cc, cc_backward: the canonical "cc:" descriptor of the forward layer
    TransposedDescriptor deconv;  // op == conv_transposed
    QuantizedDescriptor qconv;    // op == conv_quantized
    accuracy::Mode mode = accuracy::Mode::bound;
    std::uint64_t seed = 1;   // the data is a function of (descriptor, seed, mode, fill) only
    accuracy::Fill fill = accuracy::Fill::standard;  // exact mode: the mode's own fill or a special one
    std::string dialect;      // the framework the case came from ("onnx", "tf", ...), or empty
    std::string padding;      // the dialect's padding mode ("same_upper", ...), or empty
    std::string vector_dir;   // a stored golden vector: its set folder and case name (data and result
    std::string vector_case;  // come from the set, not from the seed), or empty

    // The canonical descriptor string ("conv:...", "cc:..." or "deconv:...").
    std::string descriptor() const;
};

// unchecked: the case ran and broke no rule of the contract, but the contract could not check it (a
// vacuous per-output bound the statistics cannot judge; docs/accuracy.md): not a pass, not a failure.
enum class Status { passed, unchecked, failed, unsupported, crashed, hanged, xfail, xpass };
inline constexpr Status kAllStatuses[] = {Status::passed,  Status::unchecked, Status::failed, Status::unsupported,
                                          Status::crashed, Status::hanged,    Status::xfail,  Status::xpass};
const char* to_string(Status status);
bool parse_status(const std::string& text, Status* status);
// failed, crashed, hanged and xpass make the run fail (exit code 1). unchecked is not a failure: it
// fails the run too, unless the user allows it (`convcheck run --allow-unchecked`; results.hpp).
bool is_failure(Status status);

// What decided a result that is not a pass (the case record's "kind", docs/results-schema.md).
// Finer than the status: a failed case is a mismatch, a probe failure, NaN outputs, outputs never
// written, an error the plugin returned or a leak; an unsupported one was declined by the backend
// or refused by the runner before it ran (over_memory_limit); accepted_invalid: a case of the invalid
// suite that the backend computed instead of refusing; vacuous_bound: an unchecked case (its
// per-output bound is vacuous and the statistics cannot judge it). An xfail keeps the kind of the
// failure it matched. none ("") for a pass.
enum class Kind {
    none, mismatch, probe, nan, unwritten, crash, hang, plugin_error, out_of_memory, leak, xpass, declined,
    over_memory_limit, invalid_case, statistics,
    accepted_invalid,  // invalid mode: the backend computed a descriptor that breaks a rule instead of refusing it
    paths_differ,      // ABI 1.2: the one-shot conv_execute and the plan's execute gave different outputs
    nondeterministic,  // determinism mode: runs of one case gave outputs that differ bitwise (determinism.hpp)
    gaps_written,      // ABI 1.2 strides: the plugin wrote between dst's elements (strided_buffers.hpp)
    vacuous_bound      // status unchecked: the contract's bound admits any value there (docs/accuracy.md)
};
const char* to_string(Kind kind);

// Probe mode runs the backend once per probed src element; its counts are sums over those runs
// (error.probe in docs/results-schema.md), so the comparison's elements and mismatches are too.
struct ProbeCounts {
    std::vector<std::int64_t> src_elements;  // the probed src elements (flat NCX), one run each
    std::int64_t leaked = 0;      // outputs outside the receptive field that got NaN, summed
    std::int64_t missing = 0;     // outputs inside it that did not, summed
    std::int64_t over_bound = 0;  // outputs the NaN does not reach that exceed the error bound, summed
    std::int64_t zero_sign = 0;   // outputs the NaN does not reach that are a zero of the other sign, summed
    std::int64_t worst_src_element = -1;  // the probed element of the run that holds the worst output
};

// The comparison part of a result (absent for unsupported, crashed, hanged).
struct ErrorReport {
    accuracy::Comparison comparison;
    std::vector<std::int64_t> worst_coordinates;  // [n, c, spatial...] of the worst output
    // failing outputs whose receptive field (conv) or window (CC) touches the border, and the others
    std::int64_t border_mismatches = 0, interior_mismatches = 0;
    // A failure a bound judged: the factor by which that bound (or, for a statistics failure, the
    // rounding-noise scale) would have to grow for the case to pass. Empty for a pass, an exact
    // comparison, and a non-finite output (no bound covers NaN).
    std::optional<double> bound_growth_needed;
    std::optional<ProbeCounts> probe;  // probe mode only
};

struct CaseResult {
    Case c;
    Status status = Status::passed;
    Kind kind = Kind::none;
    std::string reason;
    bool pass_not_claimed = false;  // declined: the backend does not claim the case's pass (prop_kinds)
    std::optional<ErrorReport> error;
    double time_ms = 0.0;
    std::string implementation;
    std::string error_code;  // an error the plugin returned: its code's name (error_code_name), else ""
    std::optional<std::uint64_t> workspace_bytes;  // what the plugin's plan reported (ABI 1.2)
    std::optional<std::uint64_t> workspace_used;   // how far it wrote into the runner's workspace (1.2)
    std::uint64_t thread_pool_tasks = 0;           // tasks it ran on the runner's thread pool (1.2)
    std::string reproducer;
    // Set by the shrinker: the smallest descriptor found that fails the same way, and its reproducer.
    std::string shrunk_descriptor, shrunk_reproducer;
    std::string failure_bundle;  // --dump-failures: the folder its data was written into, or ""
    // A quantized case with a u8/s8 dst that ran (ABI 1.5): the requantization rules every output agrees with
    // (reference/requantize.hpp's names; empty: none), whatever the verdict. Absent for every other case.
    std::optional<std::vector<std::string>> requantization_fit;
    // --profile: each requested suite's rule on the same outputs (accuracy/profiles.hpp); a float convolution's
    // forward case without post-ops judged in exact or bound mode only
    std::vector<accuracy::ProfileVerdict> profiles;
};

// Deterministic per-case seed from the run's seed and the case's position in its suite: the same for
// any shard count.
std::uint64_t case_seed(std::uint64_t run_seed, std::uint64_t index);

}  // namespace convcheck::runner
