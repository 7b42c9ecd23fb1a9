// Every numeric option of every command is declared here, through one rule per kind of number, so a
// value is read the same strict way everywhere (runner/include/convcheck/runner/number_text.hpp) and a bad one is refused
// with exit code 2 and a message naming the option, the value and the rule:
//   convcheck: --seed: -1 is not an integer in [0, 18446744073709551615]
// NaN, infinities, negatives where none belong, fractions where a count belongs, and values past the
// type's range are refused, never clamped or wrapped around (CLI11 alone turns "--seed -1" into 2^64-1
// and accepts "--timeout nan", which disables hang detection).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace convcheck::cli {

// The longest time limit an option takes: one day. A case needing more is not a conformance case,
// and the runner's deadline arithmetic stays far from overflow.
inline constexpr double kMaxSeconds = 86400.0;

// A run seed: an integer in [0, 2^64-1].
CLI::Option* add_seed_option(CLI::App* cmd, const std::string& name, std::uint64_t& value, const std::string& help);
// A count: an integer in [min, max].
CLI::Option* add_count_option(CLI::App* cmd, const std::string& name, int& value, int min, int max,
                              const std::string& help);
// Seconds: a finite number in (0, kMaxSeconds], or [0, kMaxSeconds] when zero_allowed.
CLI::Option* add_seconds_option(CLI::App* cmd, const std::string& name, double& value, bool zero_allowed,
                                const std::string& help);
// A list of counts: comma-separated, distinct integers, each in [min, max] ("1,2,4").
CLI::Option* add_count_list_option(CLI::App* cmd, const std::string& name, std::vector<int>& values, int min, int max,
                                   const std::string& help);
// A fraction: a finite number in [0, 1].
CLI::Option* add_fraction_option(CLI::App* cmd, const std::string& name, double& value, const std::string& help);

}  // namespace convcheck::cli
