// The polyphase split of backward data (src/backward_phases.hpp): each residue's first tap is the least k with
// k*D = r + P_L (mod S), and its tap count follows. The split solves that congruence; these tests hold it to the
// definition (every k searched, on small axes) and show that it answers at once where a search would not end
// (strides and pads near 2^62: the ABI fuzzer's query that never returned).
#include <gtest/gtest.h>

#include <string>

#include "backward_phases.hpp"
#include "convcheck/optimized/backward_plan.hpp"

using namespace convcheck;
using namespace convcheck::optimized::detail;

namespace {

// The definition: the taps k in [0, K) with k*D = r + P (mod S), searched one by one.
struct Taps {
    std::int64_t first = -1, count = 0;
};
Taps searched_taps(std::int64_t S, std::int64_t D, std::int64_t K, std::int64_t P, std::int64_t r) {
    Taps t;
    for (std::int64_t k = 0; k < K; ++k)
        if (((k * D - r - P) % S + S) % S == 0) {
            if (t.first < 0) t.first = k;
            ++t.count;
        }
    return t;
}

}  // namespace

TEST(BackwardPhases, EveryResiduesTapsAreTheDefinitions) {
    int checked = 0;
    for (std::int64_t S = 2; S <= 7; ++S)
        for (std::int64_t D = 2; D <= 6; ++D)
            for (std::int64_t K = 2; K <= 5; ++K)
                for (std::int64_t P = 0; P <= 7; ++P) {
                    const std::int64_t in = 2 * S + 3;
                    if ((K - 1) * D + 1 > in + 2 * P) continue;
                    ConvDescriptor d;
                    d.rank = 1;
                    d.input_size[0] = in;
                    d.kernel_size[0] = K;
                    d.strides[0] = S;
                    d.dilations[0] = D;
                    d.pads_begin[0] = d.pads_end[0] = P;
                    d.pass = Pass::backward_data;
                    validate(d);
                    if (d.output_size(0) < 2) continue;  // a stride used by one output is taken as 1
                    for (const Phase& p : backward_data_phases(d)) {
                        const AxisPhase& a = p.axis[0];
                        const Taps want = searched_taps(S, D, K, P, a.residue);
                        const std::string repro = to_string(d) + " residue " + std::to_string(a.residue);
                        ASSERT_EQ(a.taps, want.count) << repro;
                        if (want.count > 0) {
                            ASSERT_EQ(a.first_tap, want.first) << repro;
                        }
                        ++checked;
                    }
                }
    EXPECT_GT(checked, 1000);
}

TEST(BackwardPhases, HugeStrideAndPadAreSolvedNotSearched) {
    // S = 2^40 - 1, P = 2^41 - 3: residue 0 wants k = S - 1 (2^40 taps to search); kernel 2^40 reaches it.
    const std::string text = "conv:c=1,o=1,in=2,k=1099511627776,s=1099511627775,pb=2199023255549,"
                             "pe=2199023255549,dir=bwd_d";
    const ConvDescriptor d = parse_descriptor(text);
    const std::vector<Phase> phases = backward_data_phases(d);
    ASSERT_EQ(phases.size(), 2u) << text;
    EXPECT_EQ(phases[0].axis[0].first_tap, 1099511627775 - 1) << text;
    EXPECT_EQ(phases[0].axis[0].taps, 1) << text;
    // and the plan's query (the fuzzer's way in) answers: each phase is a forward convolution of at most two taps
    EXPECT_EQ(convcheck::optimized::why_backward_unsupported(d), "") << text;
}
