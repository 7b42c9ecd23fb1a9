// Which of convcheck's requantization rules (requantize.hpp) TOSA's RESCALE is, for one (multiplier, shift),
// exactly: the same result for every value its REQUIREs allow (pseudocode/library/scale_helpers.tosac):
//
//   int32_t apply_scale_32(int32_t value, int32_t multiplier, int8_t shift, bool_t double_round=false) {
//       REQUIRE(multiplier >= 0);
//       REQUIRE(2 <= shift && shift <= 62);
//       REQUIRE(value >= (-1 << (shift - 1)) && value < (1 << (shift - 1)));
//       int64_t round = 1 << (shift - 1);
//       if (double_round) {
//           if (shift > 31 && value >= 0) round += 1<<30;
//           if (shift > 31 && value < 0)  round -= 1<<30;
//       }
//       int64_t result = (static_cast<int64_t>(value) * multiplier) + round;
//       result >>= shift;
//       ...
//   apply_scale_16(int48_t value, int16_t multiplier, int8_t shift): the same without double_round.
//
// What the text computes:
//   - without double_round (SINGLE_ROUND, or scale32 false): floor(value * M + 1/2) for M = multiplier * 2^-shift,
//     which depends on M alone: single_rounding, exactly.
//   - DOUBLE_ROUND: gemmlowp's double rounding of *its own* (multiplier, shift): TFLite's
//     MultiplyByQuantizedMultiplier(value, multiplier, 31 - shift) gives the same for every value (the +-2^30 is
//     SaturatingRoundingDoublingHighMul's nudge, the 2^(shift-1) RoundingDivideByPOT's, both ties the same way),
//     and with shift <= 31 it adds nothing: single rounding. But double rounding depends on how M is written:
//     convcheck's double_rounding takes the multiplier TFLite's QuantizeMultiplier makes of M, normalized to
//     [2^30, 2^31). So DOUBLE_ROUND is double_rounding only when multiplier >= 2^30 (or the shift is small enough
//     that both round once); with multiplier < 2^30 and shift > 31 it rounds first at another bit and is no rule
//     convcheck has: acc 2, multiplier 2^29, shift 32 (M = 1/8) gives 1, where double_rounding gives 0.
//   - INEXACT_ROUND names no rule: TOSA's window (nullopt).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "convcheck/reference/requantize.hpp"

namespace convcheck::reference::dialects::tosa {

enum class RoundingMode { single_round, double_round, inexact_round };

// The rules convcheck has that equal apply_scale_32/16 with these integers for every value; `exact_single` and
// `exact_double` say which; neither (with `why`) when none does. INEXACT_ROUND: `none_named`.
struct RescaleRules {
    bool exact_single = false, exact_double = false, none_named = false;
    std::string why;  // when neither and not none_named: the reason, in words
};
// multiplier in [1, 2^31), shift in [2, 62] (the caller refuses the rest with TOSA's REQUIREs).
RescaleRules rescale_rules(std::int64_t multiplier, int shift, bool scale32, RoundingMode mode);

}  // namespace convcheck::reference::dialects::tosa
