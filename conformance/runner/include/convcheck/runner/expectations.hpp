// Per-backend declarations and expected failures: data, not code (conformance/data/backends.json,
// docs/runner.md). Keyed by the name a plugin gives in describe.
//
//   {"schema": 1, "backends": {"<name>": {
//       "accumulation": "f32"  |  {"f32": "f32", "f16": "f32", "bf16": "f32"},
//       "accumulation_on_cpu": [{"cpu": "!avx512bw", "accumulation": {"bf16": "bf16"}, "reason": "why"}],
//       "min_coverage": 0.9,
//       "min_coverage_suites": {"quantized": 0.2},
//       "min_coverage_on_cpu": [{"cpu": "!avx512bw", "min_coverage": 0.55, "reason": "why"}],
//       "bound": {"kind": "whole_tensor", "reason": "why"},
//       "input_precision": {"dtype": "tf32" | "bf16", "reason": "why"},
//       "expected_failures": [{"match": {"dt": "bf16", "mode": "exact"}, "reason": "why",
//                              "may_pass": false}]}}}
//
// A match object holds keys that must all hold: "mode", "suite", "op", "case_id", "cpu" (CPU flags the
// host must have, "!flag" for one it must lack: host_cpu.hpp), "fill" (the special
// fill, docs/accuracy.md: "standard", "ties", "overflow", "subnormal"), "status" (the
// failing status expected; any failing status when absent), "descriptor_regex" (ECMAScript, searched
// in the canonical string), and any key of the canonical descriptor ("dt", "g", "data", "k", ...),
// compared with its printed value.
// "accumulation_on_cpu": where a library picks another kernel on another CPU, what it accumulates in
// there; the first entry whose "cpu" condition holds on the host overrides "accumulation" (a reason
// with its evidence is required).
// "min_coverage": the fraction of a run's cases this backend must execute (not decline), in [0, 1];
// the run uses the stricter of it and --min-coverage (coverage.hpp). "min_coverage_suites" gives a suite's own
// floor (keyed by the suite's name, as `convcheck run --suite` names it), in place of "min_coverage" there: a suite
// made mostly of what a library lacks (the quantized suite for a float library) keeps a floor that still catches a
// change that declines more, without lowering every other suite's. "min_coverage_on_cpu": where a library has
// fewer kernels on another CPU, the floor there; the first entry whose "cpu" condition holds on the host takes the
// place of "min_coverage" (a suite's own floor still comes first; a reason with its evidence is required).
// "nondeterministic": {"reason": "..."} declares that the backend's outputs may differ bitwise between
// runs or thread counts (determinism.hpp): determinism mode then reports a difference instead of failing.
// "may_pass": true marks a failure that shows only on some runs or some data of the cases it matches
// (heap-dependent garbage, a probe whose NaN reaches no output): a pass is then reported as passed,
// not as xpass. Use it only with the reason that makes the failure intermittent.
// "post_op_nan": {"clip": "propagate" | "to_lower_bound" | "to_upper_bound", "relu": "propagate" | "to_zero",
// "max": "propagate" | "number", "min": "propagate" | "number", "reason": "what was measured"}: what the
// backend's relu, clip, max and min post-ops make of a NaN (docs/post-ops.md, "NaN and signed zero"); an op left
// out propagates it (IEEE 754-2019 maximum / minimum); probe mode judges it.
// "post_op_signed_zero": {"relu": "minus_zero" | "plus_zero", "reason": "what was measured"}: the sign of what
// relu with alpha 0 makes of a negative value (the formula alpha s: -0, the default; MAXPS(s, 0): +0); probe mode
// judges it where relu is the chain's last op.
// "bound" and "input_precision" (docs/accuracy.md, "Declared algorithms and input precision"): the
// backend's error scales with the tensor's largest magnitudes (Winograd, FFT), or it rounds src and
// weights to TF32 / bf16 before multiplying; each widens the bound as derived there, needs a reason,
// and is named in every case record it judged (error.judged_by).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "convcheck/core/post_op_nan.hpp"
#include "convcheck/runner/case.hpp"
#include "convcheck/runner/coverage.hpp"

namespace convcheck::runner {

struct ExpectedFailure {
    std::map<std::string, std::string> match;
    std::string reason;
    bool may_pass = false;
};

// A declaration that widens the accuracy contract, with the reason it is honest.
struct DeclaredSlack {
    std::string value;   // "whole_tensor" (bound.kind); "tf32" or "bf16" (input_precision.dtype);
                         // "after_output_rounding" (bias.added); "saturating" or "non_saturating"
                         // (fp8_conversion.overflow)
    std::string reason;
};

// What a backend accumulates in on hosts whose CPU meets `cpu` (host_cpu.hpp).
struct AccumulationOnCpu {
    std::string cpu, reason;
    std::map<std::string, std::string> accumulation;  // output dtype ("f32", "f16", "bf16", "*") -> accumulation
};

// The coverage floor of a backend on hosts whose CPU meets `cpu` (host_cpu.hpp).
struct CoverageOnCpu {
    std::string cpu, reason;
    double min_coverage = 0.0;
};

struct BackendDeclaration {
    std::map<std::string, std::string> accumulation;  // output dtype ("f32", "f16", "bf16", "*") -> accumulation
    std::vector<AccumulationOnCpu> accumulation_on_cpu;  // checked first, in order
    std::vector<ExpectedFailure> expected_failures;
    std::optional<double> min_coverage;
    std::map<std::string, double> min_coverage_suites;  // suite name -> its own floor
    std::vector<CoverageOnCpu> min_coverage_on_cpu;      // checked after the suite's own floor, in order
    std::optional<DeclaredSlack> bound;            // "bound": {"kind", "reason"}
    std::optional<DeclaredSlack> input_precision;  // "input_precision": {"dtype", "reason"}
    std::optional<DeclaredSlack> bias;             // "bias": {"added": "after_output_rounding", "reason"}
    // "fp8_conversion": {"overflow": "saturating" | "non_saturating", "reason"}: how an fp8 output past the largest
    // normal converts (OCP's two modes; non_saturating, the default, is oneDNN's: docs/fp8.md)
    std::optional<DeclaredSlack> fp8_conversion;
    std::optional<std::string> nondeterministic;  // the reason the backend's outputs may differ between runs
    // "post_op_nan": {"clip": ..., "relu": ..., "max": ..., "min": ..., "reason": ...}: what the backend's post-ops
    // make of a NaN (docs/post-ops.md); an op left out propagates it
    std::optional<PostOpNanPolicy> post_op_nan;
    std::string post_op_nan_reason;
    // "post_op_signed_zero": {"relu": "minus_zero" | "plus_zero", "reason": ...}: the sign of relu's zero (alpha 0)
    // of a negative value (docs/post-ops.md); minus_zero, the formula's, by default
    std::optional<DeclaredSlack> post_op_signed_zero;
};

class Expectations {
public:
    Expectations() = default;
    // Throws std::invalid_argument naming the file, the entry and the rule on a malformed file.
    static Expectations load(const std::string& path);
    static Expectations parse(const std::string& json_text, const std::string& origin);

    // The declared accumulation type for `backend` and output dtype `dtype`, if the file declares one.
    // `any_dtype`: whether the entry for every output dtype ('*', or one string) answers when `dtype` has none.
    std::optional<std::string> accumulation(const std::string& backend, const std::string& dtype,
                                            bool any_dtype = true) const;
    // Everything the file declares for `backend`, or nullptr.
    const BackendDeclaration* declaration(const std::string& backend) const;
    // The backend's declared coverage floor for a run of `suite`, with where it comes from
    // ("<file> (backends.<name>.min_coverage)", or "...min_coverage_suites.<suite>)" where the suite has its own).
    std::optional<CoverageFloor> min_coverage(const std::string& backend, const std::string& suite = "") const;
    // The reason the backend declares its outputs may differ between runs (determinism mode), if it does.
    std::optional<std::string> nondeterministic(const std::string& backend) const;
    // The expected failure that covers this result (status one of failed/crashed/hanged, or passed to
    // detect an xpass), or nullptr.
    const ExpectedFailure* expected_failure(const std::string& backend, const Case& c, Status status) const;

    // The file it was read from, and the sha256 of its text ("sha256:<hex>"; "" when parsed from text).
    const std::string& origin() const { return origin_; }
    const std::string& checksum() const { return checksum_; }

    // Judge "cpu" conditions against these flags instead of the host's (tests).
    void assume_cpu_flags(std::set<std::string> flags) { cpu_flags_ = std::move(flags); }

private:
    bool cpu_holds(const std::string& condition) const;

    std::string origin_, checksum_;  // the file it came from
    std::optional<std::set<std::string>> cpu_flags_;  // the host's when unset
    std::map<std::string, BackendDeclaration> backends_;
};

// The default data file: conformance/data/backends.json of this build or installation, or "" if absent.
std::string default_expectations_path();

}  // namespace convcheck::runner
