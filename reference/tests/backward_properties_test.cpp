// Properties of the backward passes (backward.hpp) on random descriptors of every geometry the
// forward supports (ranks 1-3, groups, depthwise, dilation, strides, asymmetric and negative pads).
// Small integer data keeps every product and sum exact in double, so every comparison is ==.
//   - adjoints: <conv(x, W), y> = <x, backward_data(y, W)> = <W, backward_weights(x, y)>; for all x, y
//     these pin backward_data and backward_weights down as the transposes of the forward;
//   - the two readings of backward data agree;
//   - diff_bias is the sum of diff_dst over batch and space (written here with the test's own loop);
//   - magnitude and terms are the same sums over |values| and over ones.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <random>

#include "convcheck/reference/backward.hpp"
#include "convcheck/reference/convolution.hpp"
#include "problem_data.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;

namespace {

// f32, NCX/OIX: these properties are about geometry and arithmetic (the buffer test covers storage).
ConvDescriptor arbitrary_descriptor() {
    testgen::DescriptorLimits lim;
    lim.any_dtype = false;
    lim.any_format = false;
    auto d = *testgen::valid_descriptor(lim);
    d.has_bias = false;
    return d;
}
std::uint64_t arbitrary_seed() { return *rc::gen::arbitrary<std::uint32_t>(); }

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    RC_ASSERT(a.size() == b.size());
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

std::vector<double> absolute(std::vector<double> v) {
    for (auto& x : v) x = std::fabs(x);
    return v;
}

void assert_equal(const std::vector<double>& got, const std::vector<double>& want, const std::string& what,
                  const std::string& repro) {
    if (got.size() != want.size())
        RC_FAIL(what + ": size " + std::to_string(got.size()) + " != " + std::to_string(want.size()) + "; " + repro);
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i])
            RC_FAIL(what + ": element " + std::to_string(i) + ": " + std::to_string(got[i]) +
                    " != " + std::to_string(want[i]) + "; " + repro);
}

std::vector<double> as_doubles(const std::vector<std::int64_t>& v) { return {v.begin(), v.end()}; }

// A random problem plus a random diff_dst (the "y" of the adjoint identities).
struct BackwardProblem {
    testdata::Problem forward;
    std::vector<double> diff_dst;
};

BackwardProblem make(const ConvDescriptor& d, std::uint64_t seed) {
    BackwardProblem p{testdata::make_problem(d, seed), {}};
    std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
    p.diff_dst = testdata::integers(d.dst_elements(), rng);
    return p;
}

}  // namespace

RC_GTEST_PROP(BackwardProperties, BackwardDataIsTheAdjointOfTheForward, ()) {
    const auto d = arbitrary_descriptor();
    const auto seed = arbitrary_seed();
    const auto p = make(d, seed);
    const auto forward = reference::convolution_summation(d, p.forward.src, p.forward.weights, {}).dst;
    const auto diff_src = reference::backward_data_summation(d, p.diff_dst, p.forward.weights).values;
    const double lhs = dot(forward, p.diff_dst), rhs = dot(p.forward.src, diff_src);
    if (lhs != rhs)
        RC_FAIL("<conv(x,W),y> = " + std::to_string(lhs) + " != <x,backward_data(y,W)> = " + std::to_string(rhs) + "; " +
                testdata::repro(d, seed));
}

RC_GTEST_PROP(BackwardProperties, BackwardWeightsIsTheAdjointOfTheForward, ()) {
    const auto d = arbitrary_descriptor();
    const auto seed = arbitrary_seed();
    const auto p = make(d, seed);
    const auto forward = reference::convolution_summation(d, p.forward.src, p.forward.weights, {}).dst;
    const auto diff_weights = reference::backward_weights_summation(d, p.forward.src, p.diff_dst).values;
    const double lhs = dot(forward, p.diff_dst), rhs = dot(p.forward.weights, diff_weights);
    if (lhs != rhs)
        RC_FAIL("<conv(x,W),y> = " + std::to_string(lhs) + " != <W,backward_weights(x,y)> = " + std::to_string(rhs) +
                "; " + testdata::repro(d, seed));
}

RC_GTEST_PROP(BackwardProperties, TheTwoReadingsOfBackwardDataAgree, ()) {
    const auto d = arbitrary_descriptor();
    const auto seed = arbitrary_seed();
    const auto p = make(d, seed);
    assert_equal(reference::backward_data_as_stuffed_convolution(d, p.diff_dst, p.forward.weights),
                 reference::backward_data_summation(d, p.diff_dst, p.forward.weights).values,
                 "stuffed convolution vs summation", testdata::repro(d, seed));
}

// "backward bias: sum_n sum_y diff_dst": written with the test's own loop over [N][O][Y].
RC_GTEST_PROP(BackwardProperties, BiasGradientIsTheSumOverBatchAndSpace, ()) {
    const auto d = arbitrary_descriptor();
    const auto seed = arbitrary_seed();
    const auto p = make(d, seed);
    const std::int64_t O = d.out_channels, Y = d.dst_elements() / (d.batch * O);
    std::vector<double> want(O, 0.0), count(O, 0.0);
    for (std::int64_t n = 0; n < d.batch; ++n)
        for (std::int64_t o = 0; o < O; ++o)
            for (std::int64_t y = 0; y < Y; ++y) {
                want[o] += p.diff_dst[(n * O + o) * Y + y];
                count[o] += 1;
            }
    const auto got = reference::backward_bias_summation(d, p.diff_dst);
    const auto repro = testdata::repro(d, seed);
    assert_equal(got.values, want, "diff_bias", repro);
    assert_equal(as_doubles(got.terms), count, "diff_bias terms", repro);
    assert_equal(got.magnitude, reference::backward_bias_summation(d, absolute(p.diff_dst)).values, "diff_bias magnitude",
                 repro);
}

// The error scale of each gradient: magnitude is the same sum over |values|, terms the same sum over
// ones (so terms counts exactly the forward pairs that reach each element: borders and strides show).
RC_GTEST_PROP(BackwardProperties, MagnitudeAndTermsAreTheSumsOfAbsoluteValuesAndOfOnes, ()) {
    const auto d = arbitrary_descriptor();
    const auto seed = arbitrary_seed();
    const auto p = make(d, seed);
    const auto repro = testdata::repro(d, seed);
    const std::vector<double> ones_dst(d.dst_elements(), 1.0), ones_src(d.src_elements(), 1.0),
        ones_weights(d.weights_elements(), 1.0);

    const auto data = reference::backward_data_summation(d, p.diff_dst, p.forward.weights);
    assert_equal(data.magnitude,
                 reference::backward_data_summation(d, absolute(p.diff_dst), absolute(p.forward.weights)).values,
                 "backward data magnitude", repro);
    assert_equal(as_doubles(data.terms), reference::backward_data_summation(d, ones_dst, ones_weights).values,
                 "backward data terms", repro);

    const auto weights = reference::backward_weights_summation(d, p.forward.src, p.diff_dst);
    assert_equal(weights.magnitude,
                 reference::backward_weights_summation(d, absolute(p.forward.src), absolute(p.diff_dst)).values,
                 "backward weights magnitude", repro);
    assert_equal(as_doubles(weights.terms), reference::backward_weights_summation(d, ones_src, ones_dst).values,
                 "backward weights terms", repro);
    // every tap pairs with at most N * (outputs) positions: the long reduction of backward weights
    for (auto t : weights.terms) RC_ASSERT(t <= d.dst_elements() / d.out_channels);
}

// Probes: a NaN at one diff_dst element (n, oc, y) reaches exactly the elements the forward pairs
// with it (whatever the weights or src values, zeros included: NaN * 0 is NaN), and nothing else.
// The pairs are found independently of NaN arithmetic: a one-hot diff_dst against all-ones data.
RC_GTEST_PROP(BackwardProperties, ANaNInDiffDstReachesExactlyTheElementsTheForwardPairsWithIt, ()) {
    const auto d = arbitrary_descriptor();
    const auto seed = arbitrary_seed();
    auto p = make(d, seed);
    const auto at = *rc::gen::inRange<std::int64_t>(0, d.dst_elements());
    const auto repro = testdata::repro(d, seed) + " NaN at diff_dst " + std::to_string(at);
    std::vector<double> one_hot(d.dst_elements(), 0.0);
    one_hot[at] = 1.0;
    p.diff_dst[at] = std::nan("");
    const std::vector<double> ones_src(d.src_elements(), 1.0), ones_weights(d.weights_elements(), 1.0);

    auto check = [&](const std::vector<double>& got, const std::vector<double>& reach, const std::string& what) {
        for (std::size_t i = 0; i < got.size(); ++i)
            if (std::isnan(got[i]) != (reach[i] != 0))
                RC_FAIL(what + " element " + std::to_string(i) + (std::isnan(got[i]) ? " is" : " is not") +
                        " NaN; the forward pairs it with " + std::to_string(reach[i]) + " terms; " + repro);
    };
    check(reference::backward_data_summation(d, p.diff_dst, p.forward.weights).values,
          reference::backward_data_summation(d, one_hot, ones_weights).values, "diff_src");
    check(reference::backward_weights_summation(d, p.forward.src, p.diff_dst).values,
          reference::backward_weights_summation(d, ones_src, one_hot).values, "diff_weights");
    check(reference::backward_bias_summation(d, p.diff_dst).values, reference::backward_bias_summation(d, one_hot).values,
          "diff_bias");
}
