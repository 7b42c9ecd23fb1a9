// The rounding probe (rounding_probe.hpp): the designed cases, and the rules the answers fit.
#include "convcheck/accuracy/rounding_probe.hpp"

#include <sstream>
#include <stdexcept>

namespace convcheck::accuracy {

namespace {

using reference::Requantization;

constexpr RoundingProbeCase kCases[] = {
    {5, 0.5, 0, "2.5: a positive tie after one right shift"},
    {-7, 0.5, 0, "-3.5: a negative tie after one right shift"},
    {1, 0.5, 0, "0.5: a positive tie whose even neighbour is 0"},
    {-10, 0.25, 0, "-2.5: a negative tie after two right shifts"},
    {-12, 0.125, 0, "-1.5: a negative tie after three right shifts"},
    {20, 0.125, 0, "2.5: a positive tie after three right shifts"},
    {11, 0.125, 0, "1.375: no tie; double rounding's first rounding carries into its second"},
    {5, 0.5, 1, "2.5 + zero point 1: rounded first 3, the sum 3.5 rounded 4"},
    {-7, 0.5, -1, "-3.5 + zero point -1: rounded first -5, the sum -4.5 rounded -4"},
};

void check_count(std::span<const std::int64_t> observed) {
    if (observed.size() != std::size(kCases))
        throw std::invalid_argument("rounding probe: " + std::to_string(observed.size()) + " answers for " +
                                    std::to_string(std::size(kCases)) + " cases");
}

bool follows(Requantization rule, std::span<const std::int64_t> observed) {
    for (std::size_t i = 0; i < std::size(kCases); ++i)
        if (reference::requantize_with_zero_point(kCases[i].acc, kCases[i].scale, kCases[i].zero_point, rule) != observed[i]) return false;
    return true;
}

}  // namespace

std::span<const RoundingProbeCase> rounding_probe_cases() { return kCases; }

std::vector<Requantization> rules_consistent_with(std::span<const std::int64_t> observed) {
    check_count(observed);
    std::vector<Requantization> rules;
    for (const Requantization rule : reference::kRequantizations)
        if (follows(rule, observed)) rules.push_back(rule);
    return rules;
}

std::string rounding_probe_mismatch(Requantization declared, std::span<const std::int64_t> observed) {
    check_count(observed);
    for (std::size_t i = 0; i < std::size(kCases); ++i) {
        const RoundingProbeCase& c = kCases[i];
        if (reference::requantize_with_zero_point(c.acc, c.scale, c.zero_point, declared) == observed[i]) continue;
        std::ostringstream m;
        m << "declared " << reference::to_string(declared) << ", but acc " << c.acc << " x scale " << c.scale << " = "
          << static_cast<double>(c.acc) * c.scale;
        if (c.zero_point != 0) m << ", zero point " << c.zero_point;
        m << " (" << c.what << ") gave " << observed[i] << ";";
        for (const Requantization rule : reference::kRequantizations)
            m << " " << reference::to_string(rule) << " gives "
              << reference::requantize_with_zero_point(c.acc, c.scale, c.zero_point, rule) << ",";
        const std::vector<Requantization> fit = rules_consistent_with(observed);
        if (fit.empty()) {
            m << " the answers fit none of the four rules";
        } else {
            m << " the answers fit";
            for (std::size_t r = 0; r < fit.size(); ++r) m << (r ? " and " : " ") << reference::to_string(fit[r]);
        }
        return m.str();
    }
    return "";
}

}  // namespace convcheck::accuracy
