// Which requantization rule TOSA's apply_scale_32 / apply_scale_16 is, for one (multiplier, shift): see
// tosa_rescale_rule.hpp for the derivation; tests/dialects/tosa_rescale_test.cpp checks it against
// tosa_apply_scale_32 and multiply_double_rounding value by value.
#include "convcheck/reference/dialects/tosa_rescale_rule.hpp"

namespace convcheck::reference::dialects::tosa {

namespace {

// The shift QuantizeMultiplier's normalized multiplier (in [2^30, 2^31)) needs for the same M.
int normalized_shift(std::int64_t multiplier, int shift) {
    while (multiplier < (std::int64_t{1} << 30)) {
        multiplier <<= 1;
        ++shift;
    }
    return shift;
}

}  // namespace

RescaleRules rescale_rules(std::int64_t multiplier, int shift, bool scale32, RoundingMode mode) {
    RescaleRules r;
    if (mode == RoundingMode::inexact_round) {
        r.none_named = true;
        return r;
    }
    // convcheck's double_rounding with the normalized multiplier shifts left (one rounding) while the
    // normalized shift is <= 31: then it is single rounding too.
    const bool double_is_single = normalized_shift(multiplier, shift) <= 31;
    const bool rounds_twice = scale32 && mode == RoundingMode::double_round && shift > 31;
    if (!rounds_twice) {  // floor(value * M + 1/2)
        r.exact_single = true;
        r.exact_double = double_is_single;
        return r;
    }
    if (multiplier >= (std::int64_t{1} << 30)) {  // gemmlowp's own (multiplier, shift), as QuantizeMultiplier writes M
        r.exact_double = true;
        return r;
    }
    r.why = "DOUBLE_ROUND with multiplier " + std::to_string(multiplier) + " < 2^30 and shift " + std::to_string(shift) +
            " > 31: apply_scale_32 rounds first at bit 31 of value * multiplier, gemmlowp's double rounding of the same "
            "M at bit 31 of value * (the multiplier normalized to [2^30, 2^31), as TFLite's QuantizeMultiplier writes "
            "M): another rule, which convcheck does not have (acc 2, multiplier 2^29, shift 32: 1; double_rounding: 0)";
    return r;
}

}  // namespace convcheck::reference::dialects::tosa
