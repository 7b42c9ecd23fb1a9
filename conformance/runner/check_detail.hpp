// Internal to the runner: the pieces of a case check shared by discrete convolution (check.cpp)
// and CC (check_cc.cpp).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "case_memory.hpp"
#include "check.hpp"
#include "manifest.hpp"

namespace convcheck::runner::detail {

std::string format_double(double v);
std::string coordinates_text(const std::vector<std::int64_t>& c);
// How many of `elements` outputs still hold the "never written" fill (all bytes 0xFF, a NaN in
// every dtype).
std::int64_t unwritten_elements(const void* dst, std::int64_t elements, int element_bytes);
// Outputs that are NaN where the reference is not.
std::int64_t nan_outputs(std::span<const double> got, std::span<const double> want);
// The kind of a failed comparison: outputs never written, else NaN outputs, else a mismatch.
Kind mismatch_kind(std::int64_t unwritten, std::int64_t nan_outputs);
// Refuses the case (unsupported, over_memory_limit) when the runner's part does not fit under the
// memory limit; false when it fits.
bool refused_for_memory(const CaseMemory& needs, const CheckSettings& s, CaseResult& r);
// Turns a child outcome that is not "ok" into the case's status; false when it was ok.
bool outcome_status(const ChildOutcome& o, CaseResult& r);
// A leak found by the leak check fails a case that otherwise passed.
void leak_status(const ChildOutcome& o, const CheckSettings& s, CaseResult& r);

void check_conv(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r);
// The stored golden vector a case names (c.vector_case in the set); throws std::invalid_argument.
const vectors::VectorCase& stored_case(const vectors::VectorSet& set, const Case& c);
void check_cc(const Backend& backend, const Case& c, const CheckSettings& s, CaseResult& r);

}  // namespace convcheck::runner::detail
