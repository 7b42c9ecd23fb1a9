// The torch CC layer's forward (cc_torch.hpp: the standard method, in chunks of rows too, and by discrete convs)
// against the reference (continuous_convolution, reading 1 in double) under the runner's CC accuracy contract
// (accuracy::compare_bound_cc with the weight error of an f32 backend, docs/cc.md), on random small layers: every
// kernel family, rational and real scales, explicit output sizes, windows far into the zero padding, bias, batch.
// The cc suite checks the named layers through the plugin (ctest conformance_cc_libtorch); this checks the layers
// no suite names.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <ATen/ops/from_blob.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cc_torch.hpp"
#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/cc/internal_net.hpp"
#include "convcheck/reference/cc/weight_error.hpp"
#include "convcheck/reference_tests/cc_fixtures.hpp"

namespace {

using namespace convcheck;
namespace tcc = convcheck_libtorch::cc;

std::vector<float> uniform_f32(std::int64_t count, std::mt19937_64& rng) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(static_cast<std::size_t>(count));
    for (float& x : v) x = u(rng);
    return v;
}

at::Tensor over(std::vector<float>& v, at::IntArrayRef sizes) {
    return at::from_blob(v.data(), sizes, at::TensorOptions().dtype(at::kFloat));
}

RC_GTEST_PROP(LibtorchCcForward, RandomLayersWithinTheCcContract, ()) {
    const CcDescriptor d = *cctest::small_cc_descriptor();
    const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1000000);
    const tcc::CcMethod method = *rc::gen::element(tcc::CcMethod::standard, tcc::CcMethod::discrete_convs);
    RC_PRE(tcc::why_unavailable(d, method).empty());
    const std::int64_t rows_per_chunk = method == tcc::CcMethod::standard ? *rc::gen::inRange<std::int64_t>(0, 4) : 0;
    std::mt19937_64 rng(seed);
    std::vector<float> src = uniform_f32(d.src_elements(), rng), bias = uniform_f32(d.has_bias ? d.out_channels : 0, rng);
    std::vector<float> theta;
    if (d.kernel == CcKernel::internal_net)
        for (double t : reference::cc::initialise_internal_net(d, seed).theta()) theta.push_back(static_cast<float>(t));
    tcc::CcParameters p;
    if (!theta.empty()) p.theta = over(theta, {d.theta_elements()});
    if (d.has_bias) p.bias = over(bias, {d.out_channels});
    const at::Tensor dst = tcc::cc_forward(d, over(src, d.src_dims()), p, method, rows_per_chunk).contiguous();
    const std::vector<double> got(dst.data_ptr<float>(), dst.data_ptr<float>() + dst.numel());

    const float* theta_ptr = theta.empty() ? nullptr : theta.data();
    const float* bias_ptr = d.has_bias ? bias.data() : nullptr;
    const reference::ConvResult want = reference::cc::continuous_convolution(d, src.data(), theta_ptr, bias_ptr);
    const std::vector<double> weight_error = reference::cc::cc_weight_error(d, src.data(), theta_ptr, 0x1.0p-24);
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
