// The CC backward reference against central finite differences of the forward reference, under the
// derived bound of backward_finite_difference.hpp (docs/cc-backward.md, "Finite differences").
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/reference_tests/backward_finite_difference.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;
using namespace convcheck::cctest::fd;

TEST(CcBackwardFiniteDifference, EveryCoordinateOfNamedLayers) {
    std::mt19937_64 rng(1);
    for (const char* text : {
             "n=2,cin=2,cout=3,in=5x6,scale=2/3x5/7,kernel=net,hidden=4x3,slope=0.1,bias=1",
             "cin=1,cout=2,in=6,scale=0.7071x1.3,support=3x2,kernel=net,hidden=3x2,bias=1",  // irrational scales
             "cin=2,cout=2,in=4x5,scale=1/2,support=4,kernel=net,hidden=5x4,slope=0,bias=1",  // ReLU
             "n=2,cin=2,cout=2,in=5x4,scale=7/3,kernel=cubic,bias=1",
             "cin=2,cout=1,in=6x5,scale=0.6180339887,kernel=gaussian,sigma=0.8",
             "cin=1,cout=1,in=7,scale=1/2,support=3,kernel=linear,bias=1",
         }) {
        const CcDescriptor d = parse_cc_descriptor(text);
        for (std::uint64_t seed : {1u, 2u}) {
            const Tally t = check_layer(layer(d, seed), true, rng);
            if (HasFatalFailure()) return;
            const std::int64_t theta = d.kernel == CcKernel::internal_net ? d.theta_elements() : 0;
            EXPECT_EQ(t.checked + t.on_a_kink, d.src_elements() + theta + (d.has_bias ? d.out_channels : 0)) << text;
            // the check must mostly run: kinks within one step are rare
            EXPECT_LE(t.on_a_kink * 4, theta) << "theta entries on a kink: " << t.on_a_kink << "; " << text;
        }
    }
}

RC_GTEST_PROP(CcBackwardFiniteDifference, RandomLayersEveryFamilyAndScale, ()) {
    CcDescriptor d = *cctest::small_cc_descriptor(true);
    for (int a = 0; a < 2; ++a) d.output_size[a] = std::min<std::int64_t>(d.output_size[a], 9);  // any out is valid
    validate(d);
    const std::uint64_t seed = *rc::gen::inRange<std::uint64_t>(0, 1000000);
    RC_LOG() << cctest::reproducer(d, seed);
    std::mt19937_64 rng(seed);
    const Tally t = check_layer(layer(d, seed), false, rng);
    RC_ASSERT(!::testing::Test::HasFailure());
    RC_TAG(t.on_a_kink == 0 ? "no theta entry on a kink" : "some theta entries on a kink");
}
