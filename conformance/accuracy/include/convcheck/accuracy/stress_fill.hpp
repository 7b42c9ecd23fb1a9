// Stress mode's data (docs/accuracy.md, "Stress mode"): data kinds that stress rounding the way
// TOSA's dot-product test sets S0-S5 do, from a generator of our own. A stress case runs every kind
// once, each judged by bound mode's contract (the per-output bound and the statistics). The data is
// a function of (descriptor, contract, kind, seed) only.
#pragma once

#include <cstdint>

#include "convcheck/accuracy/accuracy.hpp"

namespace convcheck::accuracy {

enum class DataKind {
    uniform,          // bound mode's data: every value uniform in [-1, 1]
    zero_mix,         // half the src, weights and bias are 0: products that are 0 beside ones that are not,
                      // outputs whose every product is 0 (their exact result 0 is the only right answer)
    large_exponents,  // every product positive and the sum near half the output's (or accumulator's)
                      // largest finite value: no cancellation, so y* = M and the statistics are sharp
    one_large_term,   // one product near 1 per output, the rest about 1/sqrt(n) and 1/n: small terms
                      // added onto one large term are lost by a too-narrow accumulator
    wide_range,       // signed values 2^e (1 + U/2), e uniform over as wide a range as the sum allows
    cancellation,     // pairs of products that cancel exactly: every exact result is 0
};
inline constexpr DataKind kStressKinds[] = {DataKind::uniform,       DataKind::zero_mix,   DataKind::large_exponents,
                                            DataKind::one_large_term, DataKind::wide_range, DataKind::cancellation};
const char* to_string(DataKind kind);

// The data of one kind, canonical order (src NCX, weights OIX, bias [O]), each value a value of
// d.dtype. `c` bounds the magnitudes of large_exponents and wide_range so that no partial sum
// overflows the declared accumulation type or the output type.
RandomFill make_stress_fill(const ConvDescriptor& d, const Contract& c, DataKind kind, std::uint64_t seed);

}  // namespace convcheck::accuracy
