// The CC backward reference on the cc suite's own layers (cc_suite_layers.hpp): central finite differences
// of the forward reference agree with the backward's gradients within the derived bound
// (reference/tests/include/convcheck/reference_tests/backward_finite_difference.hpp, docs/cc-backward.md), for every bias entry and
// sampled entries of src and theta, two data seeds per layer -- issue 21's "CC backward matches finite
// differences ... within its derived bound on the cc suite". (PyTorch autograd on the same kinds of
// layers: vectors/tests/cc_backward_torch_check.py.)
#include <gtest/gtest.h>

#include "convcheck/reference_tests/backward_finite_difference.hpp"
#include "convcheck/accuracy/cc_suite_layers.hpp"

namespace convcheck {
namespace {

TEST(CcBackwardFiniteDifference, EveryCcSuiteLayer) {
    std::int64_t checked = 0, on_a_kink = 0, theta_sampled = 0;
    for (const CcSuiteLayer& suite_layer : kCcSuiteLayers) {
        const CcDescriptor d = parse_cc_descriptor(suite_layer.descriptor);
        for (std::uint64_t seed : {1u, 2u}) {
            std::mt19937_64 rng(seed);
            const cctest::fd::Tally t = cctest::fd::check_layer(cctest::fd::layer(d, seed), false, rng, 24);
            if (HasFatalFailure()) return;
            checked += t.checked;
            on_a_kink += t.on_a_kink;
            if (d.kernel == CcKernel::internal_net) theta_sampled += std::min<std::int64_t>(24, d.theta_elements());
        }
    }
    // every layer ran, and kinks within a step stayed rare (they are skipped, not compared)
    EXPECT_GT(checked, 0);
    EXPECT_LE(on_a_kink * 10, theta_sampled) << on_a_kink << " of " << theta_sampled << " sampled theta entries on a kink";
    std::printf("cc suite: %lld coordinates compared, %lld theta entries on a kink (skipped)\n",
                static_cast<long long>(checked), static_cast<long long>(on_a_kink));
}

}  // namespace
}  // namespace convcheck
