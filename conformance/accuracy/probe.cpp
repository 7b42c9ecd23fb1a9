#include "convcheck/accuracy/probe.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace convcheck::accuracy {

RandomFill make_probe_fill(const ConvDescriptor& d, std::uint64_t seed) {
    RandomFill f = make_random_fill(d, seed);
    std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
    std::uniform_real_distribution<double> magnitude(0.25, 1.0);
    for (auto& w : f.weights) w = round_to(d.dtype, std::copysign(magnitude(rng), w));
    return f;
}

std::vector<std::int64_t> probe_elements(const ConvDescriptor& d, std::uint64_t seed, int random_count) {
    return probe_elements(d.src_elements(), seed, random_count);
}

std::vector<std::int64_t> probe_elements(std::int64_t n, std::uint64_t seed, int random_count) {
    std::vector<std::int64_t> picks{0};
    if (n > 1) picks.push_back(n - 1);
    std::mt19937_64 rng(seed ^ 0x5bd1e995ull);
    std::uniform_int_distribution<std::int64_t> any(0, n - 1);
    for (int i = 0; i < random_count && static_cast<std::int64_t>(picks.size()) < n; ++i) {
        std::int64_t e = any(rng);
        while (std::find(picks.begin(), picks.end(), e) != picks.end()) e = (e + 1) % n;
        picks.push_back(e);
    }
    return picks;
}

ProbeComparison compare_probe(std::span<const double> want, std::span<const double> got,
                              std::span<const char> may_reach) {
    ProbeComparison r;
    r.elements = static_cast<std::int64_t>(want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        const bool expected = std::isnan(want[i]), reached = std::isnan(got[i]);
        if (!expected && !may_reach.empty() && may_reach[i]) continue;
        r.expected += expected;
        if (reached && !expected) {
            if (r.leaked++ == 0) r.first_leaked = static_cast<std::int64_t>(i);
        } else if (expected && !reached) {
            if (r.missing++ == 0) r.first_missing = static_cast<std::int64_t>(i);
        }
    }
    return r;
}

}  // namespace convcheck::accuracy
