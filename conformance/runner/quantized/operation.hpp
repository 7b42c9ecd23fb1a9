// Internal to the runner: quantized (integer) convolution (docs/quantized.md; ABI 1.5): check.cpp (its
// rules, claims and verdict), data.cpp (its integers and their trip through the backend), jobs.cpp (reading,
// shrinking, benchdnn, features).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../case_pipeline.hpp"
#include "convcheck/core/memory_layout.hpp"
#include "convcheck/core/quantized_descriptor.hpp"
#include "convcheck/reference/requantize.hpp"

namespace convcheck::runner::detail {

// ---- its rules and verdict (check.cpp) -------------------------------------------------------------
// Exact and bound mode apply; every other mode is declined with the reason.
std::string quantized_mode_not_applicable(accuracy::Mode mode);
void quantized_validate(const Case& c);
DataType quantized_output_dtype(const Case& c);
// Exact mode holds a declared rule bit for bit, so its scales must give a multiplier every form of it holds
// exactly (f32, f64, a Q31 multiplier and shift): src and weights scales of at most 12 significant bits, dst's a
// power of two, M in [2^-31, 2^30). "" when they do; a suite entry that breaks it is refused (exit 2).
std::string quantized_refused_entry(const Case& c, accuracy::Mode mode);
// The same rule for a descriptor: "" when exact mode can hold its scales.
std::string quantized_exact_refusal(const QuantizedDescriptor& q);
// ABI 1.5, then each tensor's integer type in plugin_info.dtypes, its rank and formats.
std::string quantized_unclaimed(const PluginInfo& info, const Case& c);
void check_quantized(const Backend& backend, const Case& c, const CheckSettings& s, const accuracy::Contract& contract,
                     const CaseMemory& needs, CaseResult& r);
CaseMemory quantized_memory(const Case& c);

// ---- its data and the backend's run (data.cpp) ----------------------------------------------------
// The integers of a case, drawn from its seed: src and weights uniform over their types' whole ranges (so
// that adjacent products reach s16's limit: the VPMADDUBSW trap), or, with `ties` (fill=ties), within 3 of
// their zero points, so that the sums are small and a multiplier of 1/2, 1/4 or 1/8 puts many outputs on a
// tie or next to one (the rounding rules part there); the bias within what the accumulator has left and
// within +-2^16; and one weights scale per output channel (wsc=oc: dyadic, k/2^e with k odd in [1, 15], e in
// [3, 8]) or the descriptor's one. src NCX, weights OIX, bias [O]. With bdt=f32 the f32 bias (in real units,
// added after the scales) is f32(src_scale * weights_scale(oc) * b + dst_scale * j / 8) for the integer b drawn as
// above and j uniform in [-8, 8]: about the sums' size, and off the accumulator's grid by eighths of dst's unit, so
// that ties still fall where the rules part.
struct QuantizedData {
    std::vector<std::int32_t> src, weights, bias;
    std::vector<float> weights_scales;
    std::vector<float> f32_bias;  // bdt=f32 only
    // The zero points: one value (per tensor), or one per input (output) channel: given, or drawn (szp=ic, dzp=oc)
    // each channel's own and none 0, so that a zero point read from another channel, or applied to a padding tap,
    // changes the sum.
    std::vector<std::int32_t> src_zero_points, dst_zero_points;
    // The weights zero points: one value, or one per output channel (given, or drawn with wzp=oc as the others are).
    std::vector<std::int32_t> weights_zero_points;
    // The bias inside the accumulator: `bias`, or zeros with an f32 bias (added after the scales).
    std::vector<std::int32_t> accumulator_bias() const {
        return f32_bias.empty() ? bias : std::vector<std::int32_t>(bias.size(), 0);
    }
};
QuantizedData quantized_data(const QuantizedDescriptor& q, std::uint64_t seed, bool ties = false);
// The backend's dst in NCX order, from one isolated execution on guarded buffers in the case's formats; dst is
// first filled with `fill` (an integer the right answer never holds, when there is one), and the outputs still
// holding it are counted as unwritten (recorded in s.log when set).
struct QuantizedOutputs {
    std::vector<std::int64_t> got;
    std::int64_t unwritten = 0;
};
// One tensor's integers (canonical order) into a guarded buffer in the descriptor's format.
GuardedBuffer tensor_buffer(const ConvDescriptor& d, TensorRole role, IntegerType t, const std::vector<std::int32_t>& v);
// One execution of e (its buffers set) on the backend, isolated, with the one-shot path's own dst where the plugin
// has a plan and `one_shot_path`; or on export's or judge's stand-in (backend.offline). Recorded in s.log when set.
ChildOutcome execute_quantized(const Backend& backend, ConvExecution& e, const CheckSettings& s,
                               const CaseMemory& needs, bool one_shot_path);
ChildOutcome run_quantized(const Backend& backend, const QuantizedDescriptor& q, const QuantizedData& data,
                           std::int64_t fill, const CheckSettings& s, const CaseMemory& needs, QuantizedOutputs& out,
                           int warmups = 0, int repeats = 1);

// ---- the general output: a float dst or post-ops (general.cpp) --------------------------------------
// Judged in bound mode only (exact mode's refusal says so): the real value v = post_ops(src_scale * weights_scale(oc)
// * acc + bias) and x = v / dst_scale + dst_zero_point in double (reference/quantized_general_output.hpp), and the
// bound e on the backend's x: the f32 scaling's roundings, carried through each post-op (conv/post_ops.cpp's
// carry_post_op_bound), then the division and the zero point's addition in f32. A float dst passes within
// output_error_bound of x in its type; an integer dst with any integer between the nearest-even roundings of x - e
// and x + e, saturated. `accumulator`: the integer sums the backend is held to (NCX).
void check_quantized_general(const Backend& backend, const Case& c, const CheckSettings& s,
                             const accuracy::Contract& contract, const CaseMemory& needs, const QuantizedData& data,
                             const std::vector<std::int64_t>& accumulator, CaseResult& r);

// ---- its jobs (jobs.cpp) -------------------------------------------------------------------------
void quantized_read(const std::string& text, Case& c);
std::string quantized_descriptor(const Case& c);
std::vector<Case> quantized_smaller(const Case& c);
std::string quantized_benchdnn(const Case& c, std::string* why);
std::int64_t quantized_macs(const Case& c);
// Determinism mode: dst's element at a flat index of the recorded bytes ([n, c, spatial...] in the case's data
// format), its bytes (1, or 4 for s32) and its integer value.
std::string quantized_output_element(const Case& c, std::int64_t flat);
int quantized_output_bytes(const Case& c);
std::string quantized_output_value(const Case& c, const std::byte* element);
nlohmann::json quantized_features(const Case& c);

}  // namespace convcheck::runner::detail
