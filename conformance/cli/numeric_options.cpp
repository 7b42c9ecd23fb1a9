#include "numeric_options.hpp"

#include <optional>

#include "convcheck/runner/number_text.hpp"

namespace convcheck::cli {

namespace {

// One rule for a number: integer or real, its bounds, and how the rule reads in a message.
struct NumberRule {
    bool integer = false;
    double min = 0, max = 0;
    bool min_exclusive = false;
    std::string text;  // "an integer in [0, 8]"
};

std::string bound_text(double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (s.ends_with('.')) s.pop_back();
    return s;
}

// CLI11 runs validators on the text before converting it, so what passes here converts exactly.
CLI::Validator checked(const NumberRule& rule) {
    return CLI::Validator(
        [rule](std::string& text) -> std::string {
            bool ok = false;
            if (rule.integer) {  // an optional '-', then digits; the bounds are ints, exact in a double
                const bool negative = text.starts_with('-');
                const auto magnitude = runner::parse_unsigned(std::string_view(text).substr(negative ? 1 : 0));
                const double v = magnitude ? (negative ? -1.0 : 1.0) * static_cast<double>(*magnitude) : 0.0;
                ok = magnitude && v >= rule.min && v <= rule.max;
            } else {
                const auto v = runner::parse_finite(text);
                ok = v && (rule.min_exclusive ? *v > rule.min : *v >= rule.min) && *v <= rule.max;
            }
            return ok ? std::string() : "'" + text + "' is not " + rule.text;
        },
        rule.text);
}

}  // namespace

CLI::Option* add_seed_option(CLI::App* cmd, const std::string& name, std::uint64_t& value, const std::string& help) {
    // 2^64-1 does not fit a double: the rule is parse_unsigned's own range
    return cmd->add_option(name, value, help)
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                return runner::parse_unsigned(text) ? std::string()
                                                    : "'" + text + "' is not an integer in [0, 18446744073709551615]";
            },
            "an integer in [0, 2^64-1]"));
}

CLI::Option* add_count_option(CLI::App* cmd, const std::string& name, int& value, int min, int max,
                              const std::string& help) {
    return cmd->add_option(name, value, help)
        ->check(checked({true, double(min), double(max), false,
                         "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]"}));
}

CLI::Option* add_count_list_option(CLI::App* cmd, const std::string& name, std::vector<int>& values, int min, int max,
                                   const std::string& help) {
    const std::string rule = "a comma-separated list of distinct integers, each in [" + std::to_string(min) + ", " +
                             std::to_string(max) + "]";
    // the items one by one, the whole list refused when one is not a count or comes twice
    auto parse = [min, max](const std::string& text, std::vector<int>* out) {
        std::vector<int> items;
        std::size_t start = 0;
        while (true) {
            const std::size_t comma = text.find(',', start);
            const auto v = runner::parse_unsigned(std::string_view(text).substr(start, comma - start));
            if (!v || *v < static_cast<std::uint64_t>(min) || *v > static_cast<std::uint64_t>(max)) return false;
            for (int seen : items)
                if (seen == static_cast<int>(*v)) return false;
            items.push_back(static_cast<int>(*v));
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        if (out) *out = items;
        return true;
    };
    return cmd
        ->add_option_function<std::string>(
            name, [&values, parse](const std::string& text) { parse(text, &values); }, help)
        ->check(CLI::Validator(
            [rule, parse](std::string& text) -> std::string {
                return parse(text, nullptr) ? std::string() : "'" + text + "' is not " + rule;
            },
            rule));
}

CLI::Option* add_seconds_option(CLI::App* cmd, const std::string& name, double& value, bool zero_allowed,
                                const std::string& help) {
    return cmd->add_option(name, value, help)
        ->check(checked({false, 0.0, kMaxSeconds, !zero_allowed,
                         std::string("a finite number of seconds in ") + (zero_allowed ? "[" : "(") + "0, " +
                             bound_text(kMaxSeconds) + "]"}));
}

CLI::Option* add_fraction_option(CLI::App* cmd, const std::string& name, double& value, const std::string& help) {
    return cmd->add_option(name, value, help)->check(checked({false, 0.0, 1.0, false, "a fraction in [0, 1]"}));
}

}  // namespace convcheck::cli
