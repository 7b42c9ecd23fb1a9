// The torch CC layer's forward (cc_torch.hpp: the standard method, in chunks of rows too, and by discrete convs)
// against the reference (continuous_convolution, reading 1 in double) under the runner's CC accuracy contract
// (accuracy::compare_bound_cc with the weight error of an f32 backend, docs/cc.md), on random small layers: every
// kernel family, rational and real scales, explicit output sizes, windows far into the zero padding, bias, batch.
// The cc suite checks the named layers through the plugin (ctest conformance_cc_libtorch); this checks the layers
// no suite names.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cc_test_data.hpp"
#include "convcheck/libtorch/cc_torch.hpp"
#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/cc/weight_error.hpp"
#include "convcheck/reference_tests/cc_fixtures.hpp"

namespace {

using namespace convcheck;
namespace tcc = convcheck_libtorch::cc;

RC_GTEST_PROP(LibtorchCcForward, RandomLayersWithinTheCcContract, ()) {
    const CcDescriptor d = *cctest::small_cc_descriptor();
    const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1000000);
    const tcc::CcMethod method = *rc::gen::element(tcc::CcMethod::standard, tcc::CcMethod::discrete_convs);
    RC_PRE(tcc::why_unavailable(d, method).empty());
    const std::int64_t rows_per_chunk = method == tcc::CcMethod::standard ? *rc::gen::inRange<std::int64_t>(0, 4) : 0;
    tcc::testing::LayerData data(d, seed);
    const std::vector<double> got =
        tcc::testing::widened(tcc::cc_forward(d, tcc::testing::tensor(data.src, d.src_dims()), data.parameters(d), method,
                                              rows_per_chunk));

    const float* bias = d.has_bias ? data.bias.data() : nullptr;
    const reference::ConvResult want = reference::cc::continuous_convolution(d, data.src.data(), data.theta_or_null(), bias);
    const std::vector<double> weight_error =
        reference::cc::cc_weight_error(d, data.src.data(), data.theta_or_null(), 0x1.0p-24);
    const accuracy::Comparison cmp =
        accuracy::compare_bound_cc(accuracy::Contract{}, want.dst, want.magnitude, want.terms, weight_error, got);
    RC_TAG(std::string(tcc::to_string(method)));
    if (cmp.mismatches != 0)
        RC_FAIL(std::to_string(cmp.mismatches) + " of " + std::to_string(got.size()) + " outputs outside the CC bound, worst " +
                std::to_string(cmp.max_bound_fraction) + "x at " + std::to_string(cmp.worst_index) + "; reproducer: " +
                to_string(d) + " seed " + std::to_string(seed) + " method " + std::string(tcc::to_string(method)) +
                " rows_per_chunk " + std::to_string(rows_per_chunk));
}

}  // namespace
