// Identities the CC backward reference must satisfy EXACTLY on dyadic layers (docs/cc-backward.md,
// "Exact identities"): scales p/q with p a power of 2 give distances on a 2^-4 grid, theta on a
// 2^-4 grid, slopes 0, 1/8, 1/4, 1/2, 1, integer src and diff_dst: every weight, product and sum is a
// short dyadic number, computed without rounding in double, so both sides must agree with ==.
//   adjoint:   <CC(x) - bias, y> = <x, diff_src(y)>          (CC is linear in its input, every family)
//   bias:      diff_bias[co] = sum over n and o of y[n, co, o]
//   linearity: every gradient is linear in diff_dst
//   last layer (net): L is linear in (W3, b3), so dL/dW3[c][j] = L(W3 = E_cj, b3 = 0), dL/db3[c] = L(W3 = 0, b3 = e_c)
//   Euler (net): LeakyReLU(t z) = t LeakyReLU(z) for t > 0, so
//       <W2, dW2> + <b2, db2> = <W1, dW1> + <b1, db1> + <b2, db2> = L(theta) - L(theta with W3 = 0)
// (the last two hold at the kinks too: LeakyReLU'(z) z = LeakyReLU(z) whichever slope is taken at 0).
// And the chunking of output rows never changes a bit of the gradients, on any layer.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/reference_tests/backward_fixtures.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;

namespace {

rc::Gen<CcDescriptor> dyadic_cc_descriptor() {
    return rc::gen::exec([] {
        CcDescriptor d;
        d.batch = *rc::gen::inRange<std::int64_t>(1, 3);
        d.in_channels = *rc::gen::inRange<std::int64_t>(1, 4);
        d.out_channels = *rc::gen::inRange<std::int64_t>(1, 4);
        d.kernel = *rc::gen::element(CcKernel::internal_net, CcKernel::linear, CcKernel::cubic);
        d.hidden_widths = {*rc::gen::inRange<std::int64_t>(1, 7), *rc::gen::inRange<std::int64_t>(1, 7)};
        d.leaky_relu_slope = *rc::gen::element(0.0, 0.125, 0.25, 0.5, 1.0);
        d.has_bias = *rc::gen::arbitrary<bool>();
        for (int a = 0; a < 2; ++a) {
            d.input_size[a] = *rc::gen::inRange<std::int64_t>(1, 9);
            const std::int64_t p = *rc::gen::element<std::int64_t>(1, 2, 4, 8), q = *rc::gen::inRange<std::int64_t>(1, 13);
            d.scale[a] = CcScale::exact(Rational(p, q));
            d.support[a] = *rc::gen::inRange<std::int64_t>(1, 6);
            const std::int64_t natural = cc_default_output_size(d.scale[a], d.input_size[a]);
            d.output_size[a] = natural <= 9 && *rc::gen::inRange(0, 4) != 0 ? natural : *rc::gen::inRange<std::int64_t>(1, 10);
        }
        validate(d);
        return d;
    });
}

struct Data {
    std::vector<double> src, theta, bias, dY;
};
Data dyadic_data(const CcDescriptor& d, std::uint64_t seed) {
    Data x{cctest::dyadic(d.src_elements(), seed, 0, 4.0), {}, {}, cctest::dyadic(d.dst_elements(), seed + 3, 0, 4.0)};
    if (d.kernel == CcKernel::internal_net) x.theta = cctest::dyadic(d.theta_elements(), seed + 1, 4, 1.0);
    if (d.has_bias) x.bias = cctest::dyadic(d.out_channels, seed + 2, 0, 4.0);
    return x;
}

// L = <dY, CC(src)> without the bias.
double objective(const CcDescriptor& d, const std::vector<double>& src, const std::vector<double>& theta,
                 const std::vector<double>& dY) {
    CcDescriptor no_bias = d;
    no_bias.has_bias = false;
    return cctest::dot(dY, cc_four_blocks(no_bias, src, ContinuousKernel::for_descriptor(d, theta), {}).dst);
}

// Offsets of W1, b1, W2, b2, W3, b3 in the theta order.
struct ThetaParts {
    std::size_t W1, b1, W2, b2, W3, b3, end;
};
ThetaParts parts(const CcDescriptor& d) {
    const std::size_t h1 = static_cast<std::size_t>(d.hidden_widths[0]), h2 = static_cast<std::size_t>(d.hidden_widths[1]);
    const std::size_t C = static_cast<std::size_t>(d.in_channels * d.out_channels);
    ThetaParts p{};
    p.W1 = 0;
    p.b1 = 2 * h1;
    p.W2 = p.b1 + h1;
    p.b2 = p.W2 + h2 * h1;
    p.W3 = p.b2 + h2;
    p.b3 = p.W3 + C * h2;
    p.end = p.b3 + C;
    return p;
}

// sum over [from, to) of theta * diff_theta
double partial_dot(const std::vector<double>& a, const std::vector<double>& b, std::size_t from, std::size_t to) {
    double s = 0.0;
    for (std::size_t i = from; i < to; ++i) s += a[i] * b[i];
    return s;
}

void check_identities(const CcDescriptor& d, std::uint64_t seed) {
    const std::string repro = cctest::reproducer(d, seed);
    const Data x = dyadic_data(d, seed);
    const ContinuousKernel kernel = ContinuousKernel::for_descriptor(d, x.theta);
    const CcBackward r = cc_backward(d, x.src, kernel, x.dY);
    const double L = objective(d, x.src, x.theta, x.dY);

    ASSERT_EQ(L, cctest::dot(x.src, r.diff_src)) << "adjoint <CC(x) - bias, y> = <x, diff_src(y)>; " << repro;
    ASSERT_EQ(r.diff_bias.size(), d.has_bias ? static_cast<std::size_t>(d.out_channels) : 0u) << repro;
    for (std::size_t co = 0; co < r.diff_bias.size(); ++co) {
        double sum = 0.0;
        for (std::int64_t n = 0; n < d.batch; ++n)
            for (std::int64_t o = 0; o < d.output_size[0] * d.output_size[1]; ++o)
                sum += x.dY[(n * d.out_channels + static_cast<std::int64_t>(co)) * d.output_size[0] * d.output_size[1] + o];
        ASSERT_EQ(r.diff_bias[co], sum) << "diff_bias[" << co << "]; " << repro;
    }

    // linearity in diff_dst: r(3 y + (-2) y2) = 3 r(y) - 2 r(y2)
    const std::vector<double> y2 = cctest::dyadic(d.dst_elements(), seed + 7, 0, 4.0);
    std::vector<double> combined(x.dY.size());
    for (std::size_t i = 0; i < combined.size(); ++i) combined[i] = 3.0 * x.dY[i] - 2.0 * y2[i];
    const CcBackward r2 = cc_backward(d, x.src, kernel, y2), rc = cc_backward(d, x.src, kernel, combined);
    auto linear = [&](const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& c, const char* what) {
        ASSERT_EQ(a.size(), c.size()) << what << "; " << repro;
        for (std::size_t i = 0; i < a.size(); ++i)
            ASSERT_EQ(c[i], 3.0 * a[i] - 2.0 * b[i]) << what << "[" << i << "] is not linear in diff_dst; " << repro;
    };
    linear(r.diff_src, r2.diff_src, rc.diff_src, "diff_src");
    linear(r.diff_theta, r2.diff_theta, rc.diff_theta, "diff_theta");
    linear(r.diff_bias, r2.diff_bias, rc.diff_bias, "diff_bias");

    if (d.kernel != CcKernel::internal_net) {
        ASSERT_TRUE(r.diff_theta.empty()) << "an analytic kernel has no parameters; " << repro;
        return;
    }
    const ThetaParts p = parts(d);
    ASSERT_EQ(r.diff_theta.size(), p.end) << repro;
    // the last layer: L is linear in (W3, b3)
    for (std::size_t i = p.W3; i < p.end; ++i) {
        std::vector<double> unit = x.theta;
        std::fill(unit.begin() + static_cast<std::ptrdiff_t>(p.W3), unit.end(), 0.0);
        unit[i] = 1.0;
        ASSERT_EQ(r.diff_theta[i], objective(d, x.src, unit, x.dY))
            << "diff_theta[" << i << "] (" << (i < p.b3 ? "W3" : "b3") << ") is L with that entry alone; " << repro;
    }
    // Euler: scaling layer 2 (or layers 1 and b2) by t scales a2 by t
    std::vector<double> no_W3 = x.theta;
    std::fill(no_W3.begin() + static_cast<std::ptrdiff_t>(p.W3), no_W3.begin() + static_cast<std::ptrdiff_t>(p.b3), 0.0);
    const double through_a2 = L - objective(d, x.src, no_W3, x.dY);
    const double layer2 = partial_dot(x.theta, r.diff_theta, p.W2, p.W3);
    ASSERT_EQ(layer2, through_a2) << "<W2, dW2> + <b2, db2>; " << repro;
    const double layer1 = partial_dot(x.theta, r.diff_theta, p.W1, p.W2) + partial_dot(x.theta, r.diff_theta, p.b2, p.W3);
    ASSERT_EQ(layer1, through_a2) << "<W1, dW1> + <b1, db1> + <b2, db2>; " << repro;
}

}  // namespace

TEST(CcBackwardIdentities, NamedDyadicLayers) {
    for (const char* text : {
             "n=2,cin=2,cout=3,in=6x7,scale=2/3x4/7,kernel=net,hidden=4x3,slope=0.25,bias=1",
             "cin=1,cout=1,in=4,scale=1/2,support=2,kernel=net,hidden=2x2,slope=0",  // ReLU, every D = +-1/2
             "n=2,cin=3,cout=2,in=5x6,scale=8/3x2,support=4,kernel=cubic,bias=1",
             "cin=2,cout=2,in=7x5,scale=1/3x4/5,support=2x3,kernel=linear",
             "cin=2,cout=1,in=3,out=7x2,scale=2/5x1,support=5,kernel=net,hidden=3x5,slope=1",  // explicit out, slope 1
         })
        for (std::uint64_t seed : {1u, 2u, 3u}) {
            check_identities(parse_cc_descriptor(text), seed);
            if (HasFatalFailure()) return;
        }
}

RC_GTEST_PROP(CcBackwardIdentities, RandomDyadicLayers, ()) {
    const CcDescriptor d = *dyadic_cc_descriptor();
    const std::uint64_t seed = *rc::gen::inRange<std::uint64_t>(0, 1000000);
    RC_LOG() << cctest::reproducer(d, seed);
    check_identities(d, seed);
    RC_ASSERT(!::testing::Test::HasFailure());
}

RC_GTEST_PROP(CcBackwardIdentities, ChunkingChangesNoBit, ()) {
    CcDescriptor d = *cctest::small_cc_descriptor(true);
    const std::uint64_t seed = *rc::gen::inRange<std::uint64_t>(0, 1000000);
    RC_LOG() << cctest::reproducer(d, seed);
    const auto src = cctest::uniform(d.src_elements(), seed), dY = cctest::uniform(d.dst_elements(), seed + 1);
    const ContinuousKernel kernel = cctest::kernel_for(d, seed + 2);
    const CcBackward whole = cc_backward(d, src, kernel, dY, d.output_size[0]);
    const CcBackward rows = cc_backward(d, src, kernel, dY, *rc::gen::inRange<std::int64_t>(1, d.output_size[0] + 1));
    RC_ASSERT(whole.diff_src == rows.diff_src);
    RC_ASSERT(whole.diff_theta == rows.diff_theta);
    RC_ASSERT(whole.diff_bias == rows.diff_bias);
    RC_ASSERT(whole.diff_src_magnitude == rows.diff_src_magnitude);
    RC_ASSERT(whole.diff_theta_magnitude == rows.diff_theta_magnitude);
}
