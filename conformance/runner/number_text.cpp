#include "convcheck/runner/number_text.hpp"

#include <charconv>
#include <cmath>

namespace convcheck::runner {

std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;  // beyond 2^64-1
    return v;
}

std::optional<double> parse_finite(std::string_view text) {
    // digits, one sign in front, a point, an exponent: from_chars also takes "inf", "nan" and hex
    // digits in hex format only, so the character set alone rules those out
    if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string_view::npos) return std::nullopt;
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

}  // namespace convcheck::runner
