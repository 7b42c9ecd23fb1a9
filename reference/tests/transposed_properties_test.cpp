// Transposed convolution (transposed.hpp) on random transposed descriptors of every geometry (ranks
// 1-3, groups, dilation, strides, negative pads, output_padding up to stride + dilation - 1).
// Small integer data keeps every sum exact in double: every comparison is ==.
//   - it is backward data of the forward convolution it transposes, read independently: the stuffed
//     stride-1 convolution (backward_data_as_stuffed_convolution, reading 2, which shares no index code
//     with the summation the transposed op calls);
//   - adjoint: <transposed(y, W), x> = <y, conv(x, W)> with conv computed by OpenVINO's "as if" process
//     (as_if.hpp), whose output shape is what the process leaves, not a formula;
//   - the bias adds b[oc] to every output element, once.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <random>

#include "convcheck/reference/as_if.hpp"
#include "convcheck/reference/backward.hpp"
#include "convcheck/reference/transposed.hpp"
#include "problem_data.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;

namespace {

TransposedDescriptor arbitrary_transposed() {
    testgen::DescriptorLimits lim;
    lim.any_dtype = false;
    lim.any_format = false;
    return *testgen::valid_transposed_descriptor(lim);
}

struct TransposedProblem {
    TransposedDescriptor t;
    std::uint64_t seed = 0;
    std::vector<double> src, weights, bias, x;  // x: a tensor of the output's shape (the adjoint's)
    std::string repro() const { return "reproduce with: descriptor " + to_string(t) + " seed " + std::to_string(seed); }
};

TransposedProblem arbitrary_problem() {
    TransposedProblem p;
    p.t = arbitrary_transposed();
    p.seed = *rc::gen::arbitrary<std::uint32_t>();
    std::mt19937_64 rng(p.seed);
    p.src = testdata::integers(p.t.src_elements(), rng);
    p.weights = testdata::integers(p.t.weights_elements(), rng);
    p.bias = testdata::integers(p.t.out_channels, rng, 16);
    p.x = testdata::integers(p.t.dst_elements(), rng);
    return p;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    RC_ASSERT(a.size() == b.size());
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

}  // namespace

RC_GTEST_PROP(TransposedProperties, IsBackwardDataOfTheForwardItTransposes, ()) {
    const auto p = arbitrary_problem();
    const auto got = reference::transposed_convolution_summation(p.t, p.src, p.weights, {}).dst;
    const auto want = reference::backward_data_as_stuffed_convolution(p.t.forward(), p.src, p.weights);
    RC_ASSERT(static_cast<std::int64_t>(got.size()) == p.t.dst_elements());
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i])
            RC_FAIL("element " + std::to_string(i) + ": transposed " + std::to_string(got[i]) +
                    " != stuffed convolution " + std::to_string(want[i]) + "; " + p.repro());
}

RC_GTEST_PROP(TransposedProperties, IsTheAdjointOfTheForwardConvolution, ()) {
    const auto p = arbitrary_problem();
    const auto transposed = reference::transposed_convolution_summation(p.t, p.src, p.weights, {}).dst;
    const auto conv = reference::convolution_as_if(p.t.forward(), p.x, p.weights, {});
    // the process's own output shape must be the transposed op's input: [N][C][in...]
    std::vector<std::int64_t> want_dims{p.t.batch, p.t.in_channels};
    for (int a = 0; a < p.t.rank; ++a) want_dims.push_back(p.t.input_size[a]);
    if (conv.dst_dims != want_dims) RC_FAIL("the forward's output shape is not the transposed input's; " + p.repro());
    const double lhs = dot(transposed, p.x), rhs = dot(p.src, conv.dst);
    if (lhs != rhs)
        RC_FAIL("<transposed(y,W),x> = " + std::to_string(lhs) + " != <y,conv(x,W)> = " + std::to_string(rhs) + "; " +
                p.repro());
}

RC_GTEST_PROP(TransposedProperties, BiasAddsOnceToEveryOutput, ()) {
    const auto p = arbitrary_problem();
    const auto without = reference::transposed_convolution_summation(p.t, p.src, p.weights, {});
    const auto with = reference::transposed_convolution_summation(p.t, p.src, p.weights, p.bias);
    const std::int64_t O = p.t.out_channels, X = p.t.dst_elements() / (p.t.batch * O);
    for (std::int64_t n = 0; n < p.t.batch; ++n)
        for (std::int64_t o = 0; o < O; ++o)
            for (std::int64_t x = 0; x < X; ++x) {
                const std::int64_t i = (n * O + o) * X + x;
                if (with.dst[i] != without.dst[i] + p.bias[o] || with.terms[i] != without.terms[i] + 1)
                    RC_FAIL("element " + std::to_string(i) + ": bias not added once; " + p.repro());
            }
}
