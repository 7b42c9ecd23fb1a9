// The small CLIs that checks written outside C++ call (backward_cli.cpp, transposed_cli.cpp,
// quantized_cli.cpp): reading canonical numbers from stdin, each exactly representable in the
// descriptor's dtype, and printing JSON arrays.
#pragma once

#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "convcheck/core/dtype.hpp"

namespace convcheck::cli_io {

inline int refuse(const char* program, const std::string& message) {
    std::fprintf(stderr, "%s: %s\n", program, message.c_str());
    return 2;
}

// All of stdin as numbers; nullopt with *error set on a token that is not a number, on a count other
// than `want` (`layout` says what the count is made of), or on a number `dtype` would round.
inline std::optional<std::vector<double>> read_numbers(DataType dtype, std::int64_t want, const std::string& layout,
                                                       std::string* error) {
    std::vector<double> numbers;
    for (double v; std::cin >> v;) numbers.push_back(v);
    if (!std::cin.eof()) {
        *error = "stdin: a token that is not a number after " + std::to_string(numbers.size()) + " numbers";
        return std::nullopt;
    }
    if (static_cast<std::int64_t>(numbers.size()) != want) {
        *error = "stdin: " + std::to_string(numbers.size()) + " numbers; the descriptor needs " + std::to_string(want) +
                 " (" + layout + ")";
        return std::nullopt;
    }
    for (std::size_t i = 0; i < numbers.size(); ++i)
        if (round_to(dtype, numbers[i]) != numbers[i]) {
            *error = "stdin: number " + std::to_string(i) + " (" + std::to_string(numbers[i]) +
                     ") is not exactly representable in " + std::string(to_string(dtype)) + "; it would be rounded, not read as given";
            return std::nullopt;
        }
    return numbers;
}

inline void print_array(const char* name, const std::vector<double>& values, bool last) {
    std::printf("\"%s\": [", name);
    for (std::size_t i = 0; i < values.size(); ++i) std::printf(i ? ", %.17g" : "%.17g", values[i]);
    std::printf(last ? "]" : "], ");
}

}  // namespace convcheck::cli_io
