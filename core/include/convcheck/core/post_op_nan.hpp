// What the clamp-like post-ops make of a NaN: the policy a backend declares (conformance/data/backends.json,
// "post_op_nan"; docs/post-ops.md, "NaN and signed zero") and the reference computes literally
// (reference/post_ops.hpp). The words are the standards':
//   IEEE 754-2019 §9.6 maximum, minimum: "maximum(x, y) is x if x > y, y if y > x, and a quiet NaN if either
//     operand is a NaN" -- the NaN propagates (the default: no declaration needed).
//   IEEE 754-2019 §9.6 maximumNumber, minimumNumber (C's fmax, fmin): "if exactly one operand is a NaN, the
//     result is the other operand" -- the number.
//   x86 MAXPS/MINPS: "If only one value is a NaN (SNaN or QNaN) for this instruction, the second operand (source
//     operand), either a NaN or a valid floating-point value, is written to the result": a clamp written
//     max(x, lo) then min(., hi) with x first turns a NaN into the lower bound (to_lower_bound); min(x, hi)
//     then max(., lo), into the upper bound (to_upper_bound); relu as max(x, 0), into 0 (to_zero).
// relu and clip are eltwise post-ops, max and min binary ones; every other op's NaN is its arithmetic's.
// The sign of relu's zero (declared "post_op_signed_zero"): oneDNN's definition "d = s if s > 0, alpha s
// otherwise" with alpha 0 gives 0 * s, which is -0 for a negative s (IEEE 754-2019 §6.3: "the sign of a product
// ... is the exclusive OR of the operands' signs") -- minus_zero, the default; a relu written MAXPS(s, 0) gives
// the +0 it was handed -- plus_zero.
#pragma once

#include <string>
#include <string_view>

namespace convcheck {

enum class ClipNan { propagate, to_lower_bound, to_upper_bound };  // clip:alpha:beta of a NaN: NaN, alpha, beta
enum class ReluNan { propagate, to_zero };                          // relu of a NaN: NaN, 0 (alpha 0 only)
enum class MinMaxNan { propagate, number };                         // max(NaN, b), min(NaN, b): NaN, b
enum class ReluZero { minus_zero, plus_zero };                      // relu (alpha 0) of s <= 0: -0 (s < 0), +0

struct PostOpNanPolicy {
    ClipNan clip = ClipNan::propagate;
    ReluNan relu = ReluNan::propagate;
    MinMaxNan max = MinMaxNan::propagate;
    MinMaxNan min = MinMaxNan::propagate;
    ReluZero relu_zero = ReluZero::minus_zero;  // "post_op_signed_zero": {"relu": ...}
    bool operator==(const PostOpNanPolicy&) const = default;
};

std::string_view to_string(ClipNan p);
std::string_view to_string(ReluNan p);
std::string_view to_string(MinMaxNan p);
std::string_view to_string(ReluZero p);
// Each parse returns false for a name that is not one of the policy's names.
bool parse_clip_nan(std::string_view text, ClipNan* out);
bool parse_relu_nan(std::string_view text, ReluNan* out);
bool parse_min_max_nan(std::string_view text, MinMaxNan* out);
bool parse_relu_zero(std::string_view text, ReluZero* out);
// "clip propagate, relu to_zero, max number, min number": the four as backends.json spells them.
std::string to_string(const PostOpNanPolicy& p);

}  // namespace convcheck
