// Numbers a user types (command-line options, sharding variables), read strictly: the whole text is
// one plain decimal number, or it is refused. Nothing is clamped or wrapped around: "-1" is not an
// unsigned integer (strtoull would make it 2^64-1), "1e999" and "nan" are not finite numbers, " 5",
// "+5", "5s", "0x10" are not numbers. The callers say which rule a value broke (cli/numeric_options).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace convcheck::runner {

// Decimal digits only, at most 2^64-1.
std::optional<std::uint64_t> parse_unsigned(std::string_view text);

// A finite decimal number ("30", "0.5", "-2", "1e3"), not inf or nan, not beyond double's range.
std::optional<double> parse_finite(std::string_view text);

}  // namespace convcheck::runner
