// The pairwise suite: every feasible pair of values of two attributes (suite_design.hpp: rank,
// groups/depthwise, dilation, stride, pad kind, kernel vs input, layout pair, dtype, bias) in at
// least one case, built greedily: each case takes the first pair not yet covered and fills the
// other attributes with the values that cover the most new pairs. Coverage is counted on the
// descriptors actually built (classify), and `convcheck list --suite pairwise` shows it.
// The generator is seeded with a constant, so the suite is the same list everywhere.
#include <algorithm>
#include <random>

#include "convcheck/runner/suite_design.hpp"
#include "convcheck/runner/suites.hpp"

namespace convcheck::runner {

std::vector<SuiteEntry> pairwise_suite() {
    const auto& factors = design_factors();
    std::mt19937_64 rng(20261123);
    // covered[f][g][u][v] for f < g, flattened
    auto key = [](int f, int u, int g, int v) { return ((f * 8 + u) * kFactors + g) * 8 + v; };
    std::vector<char> covered(kFactors * 8 * kFactors * 8, 0);
    auto uncovered = [&](const Attributes& a, int f, int g) {
        return !covered[key(f, a[f], g, a[g])];
    };
    std::vector<SuiteEntry> entries;
    std::vector<ConvDescriptor> built;
    for (int round = 0; round < 200; ++round) {
        // the first uncovered feasible pair
        int pf = -1, pu = 0, pg = 0, pv = 0;
        for (int f = 0; f < kFactors && pf < 0; ++f)
            for (int g = f + 1; g < kFactors && pf < 0; ++g)
                for (int u = 0; u < static_cast<int>(factors[f].values.size()) && pf < 0; ++u)
                    for (int v = 0; v < static_cast<int>(factors[g].values.size()) && pf < 0; ++v) {
                        Attributes probe{};
                        probe[f] = u, probe[g] = v;
                        if (!covered[key(f, u, g, v)] && feasible(probe)) pf = f, pu = u, pg = g, pv = v;
                    }
        if (pf < 0) break;  // every feasible pair is covered
        Attributes a{};
        std::vector<bool> fixed(kFactors, false);
        a[pf] = pu, a[pg] = pv, fixed[pf] = fixed[pg] = true;
        // the other factors, in random order, each with the value covering the most new pairs
        std::vector<int> order;
        for (int f = 0; f < kFactors; ++f)
            if (!fixed[f]) order.push_back(f);
        std::shuffle(order.begin(), order.end(), rng);
        for (int f : order) {
            int best = 0, best_gain = -1;
            for (int u = 0; u < static_cast<int>(factors[f].values.size()); ++u) {
                a[f] = u;
                if (!feasible(a)) continue;
                int gain = 0;
                for (int g = 0; g < kFactors; ++g)
                    if (g != f && fixed[g]) gain += f < g ? uncovered(a, f, g) : uncovered(a, g, f);
                if (gain > best_gain) best = u, best_gain = gain;
            }
            a[f] = best, fixed[f] = true;
        }
        const ConvDescriptor d = realize(a, rng);
        const Attributes got = classify(d);
        for (int f = 0; f < kFactors; ++f)
            for (int g = f + 1; g < kFactors; ++g) covered[key(f, got[f], g, got[g])] = 1;
        entries.push_back({to_string(d), "bep", "pairwise/" + std::to_string(entries.size())});
    }
    return entries;
}

}  // namespace convcheck::runner
