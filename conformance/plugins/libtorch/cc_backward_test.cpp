// The torch CC layer's backward (cc_torch.hpp, cc_backward: torch autograd through the paper's standard method
// and through by discrete convs) against the reference's literal chain rule
// (reference/include/convcheck/reference/cc/backward.hpp), on small layers of every kernel family, rational
// and real scales, with and without bias, batch 1 and 2, each method that applies.
//
// The bound, per gradient element: the reference's own (cc_backward_error_bound: its double rounding) plus
// the rounding of torch's f32 computation, derived as the runner's CC accuracy contract derives a forward
// output's (accuracy::cc_error_bound, docs/cc.md), u = 2^-24:
//   diff_src   = sum dY W~ over T = diff_src_terms products: weight error E = sum |dY| deltaW_f32(D), deltaW
//                the contract's weight bound (ContinuousKernel::evaluation_error) with distance errors
//                u |D| (torch rounds the reference's double distances to f32 once: cc_grid.hpp);
//                cc_error_bound(f32, exact, M, T, E).
//   diff_theta = a polynomial in dY, src, theta, D and the slope, with at most
//                L = N K H' W' + 1 + internal_net_backward_roundings + 3 roundings on any path: the sums
//                over the batch and the distance pairs in any order and grouping (at most N K H' W'
//                terms), the dW product, the net's chain as the reference counts it, and three factors the
//                reference has exact: D rounded to f32 (once per path) and the slope rounded to f32 (at
//                most twice per path: two LeakyReLUs). cc_error_bound(f32, exact, M / (1 - gamma_L'(2^-53)),
//                L, 0), M the reference's computed magnitude (L' its roundings). Valid when torch's f32
//                LeakyReLU branches are the exact ones: every pre-activation z of every distance pair has
//                |z| > 2 gamma_R(u) |z|_magnitude, R its forward roundings plus the distance's and the
//                slope's (checked; a layer where it fails would be reported, not compared).
//   diff_bias  = sum dY over N H' W' terms: cc_error_bound(f32, exact, M, N H' W', 0).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>


#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "cc_test_data.hpp"
#include "convcheck/libtorch/cc_torch.hpp"
#include "convcheck/reference_tests/cc_fixtures.hpp"
#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/reference/cc/backward.hpp"
#include "convcheck/reference/cc/internal_net_backward.hpp"
#include "convcheck/reference/cc/neighbours.hpp"
#include "convcheck/reference/cc/projected_grid.hpp"
#include "convcheck/reference/cc/weight_error.hpp"

namespace {

using namespace convcheck;
using namespace convcheck::reference::cc;
namespace tcc = convcheck_libtorch::cc;

constexpr double kF32Roundoff = 0x1.0p-24;
constexpr double kF32Underflow = 0x1.0p-149;

using tcc::testing::LayerData;
using tcc::testing::tensor;
using tcc::testing::widened;

// E[i] = sum over the (cout, k, o) that read src element i of |dY| deltaW_f32(D).
std::vector<double> f32_weight_term(const CcDescriptor& d, const ContinuousKernel& kernel, const std::vector<double>& dy) {
    const std::int64_t N = d.batch, CI = d.in_channels, CO = d.out_channels;
    const std::int64_t H = d.input_size[0], W = d.input_size[1], OH = d.output_size[0], OW = d.output_size[1];
    const std::int64_t KH = d.support[0], KW = d.support[1];
    const AxisWindow win[2] = {neighbour_window(projected_grid_axis(d, 0), KH), neighbour_window(projected_grid_axis(d, 1), KW)};
    std::vector<double> term(static_cast<std::size_t>(d.src_elements()), 0.0), dW(static_cast<std::size_t>(CO * CI));
    for (std::int64_t oh = 0; oh < OH; ++oh)
        for (std::int64_t ow = 0; ow < OW; ++ow)
            for (std::int64_t jh = 0; jh < KH; ++jh)
                for (std::int64_t jw = 0; jw < KW; ++jw) {
                    const std::int64_t mh = win[0].first[oh] + jh, mw = win[1].first[ow] + jw;
                    if (mh < 0 || mh >= H || mw < 0 || mw >= W) continue;
                    const double y = win[0].distance[oh * KH + jh], x = win[1].distance[ow * KW + jw];
                    kernel.evaluation_error(y, x, kF32Roundoff * std::fabs(y), kF32Roundoff * std::fabs(x), kF32Roundoff,
                                            kF32Underflow, dW);
                    for (std::int64_t n = 0; n < N; ++n)
                        for (std::int64_t ci = 0; ci < CI; ++ci)
                            for (std::int64_t co = 0; co < CO; ++co)
                                term[((n * CI + ci) * H + mh) * W + mw] +=
                                    std::fabs(dy[((n * CO + co) * OH + oh) * OW + ow]) * dW[co * CI + ci];
                }
    for (double& e : term) e *= 1.0 + 1e-12;  // the few roundings of this sum of non-negative terms, rounded up
    return term;
}

// Whether every LeakyReLU branch torch takes in f32 is the exact one, at every distance pair of d.
bool f32_branches_decided(const CcDescriptor& d, const InternalNet& net) {
    const AxisWindow win[2] = {neighbour_window(projected_grid_axis(d, 0), d.support[0]),
                                neighbour_window(projected_grid_axis(d, 1), d.support[1])};
    const double e1 = 2.0 * convcheck::gamma(3 + 2, kF32Roundoff), e2 = 2.0 * convcheck::gamma(net.h1 + 5 + 3, kF32Roundoff);
    const double eta = 2.0 * static_cast<double>(net.h1 + 4) * kF32Underflow;
    for (double y : win[0].distance)
        for (double x : win[1].distance) {
            const InternalNetTrace t = trace_internal_net(net, y, x);
            for (std::size_t i = 0; i < t.z1.size(); ++i)
                if (!(std::fabs(t.z1[i]) > e1 * t.z1_abs[i] + eta)) return false;
            for (std::size_t i = 0; i < t.z2.size(); ++i)
                if (!(std::fabs(t.z2[i]) > e2 * t.z2_abs[i] + eta)) return false;
        }
    return true;
}

struct Checked {
    double worst = 0.0;  // the largest |torch - reference| / bound
    std::int64_t compared = 0, failed = 0;
    std::string first_failure;  // with the reproducer
    bool decided = true;        // kernel=net: every f32 LeakyReLU branch is the exact one (else nothing was compared)
};

// Compares one gradient element by element; a failure names the reproducer.
void compare(const std::string& what, const std::string& reproducer, const std::vector<double>& got,
             const std::vector<double>& want, const std::vector<double>& bound, Checked& checked) {
    if (got.size() != want.size()) {
        ++checked.failed;
        checked.first_failure = what + " has " + std::to_string(got.size()) + " elements, not " +
                                std::to_string(want.size()) + "; " + reproducer;
        return;
    }
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double error = std::fabs(got[i] - want[i]);
        if (!(error <= bound[i]) && checked.failed++ == 0) {
            std::ostringstream m;
            m << what << "[" << i << "]: torch " << got[i] << ", reference " << want[i] << ", bound " << bound[i] << " ("
              << error / bound[i] << "x); " << reproducer;
            checked.first_failure = m.str();
        }
        if (bound[i] > 0) checked.worst = std::max(checked.worst, error / bound[i]);
        ++checked.compared;
    }
}

// The torch backward of d by `method` against the reference, on the data of `seed`.
Checked check_layer(const CcDescriptor& d, std::uint64_t seed, tcc::CcMethod method, std::int64_t rows_per_chunk = 0) {
    std::ostringstream repro;
    repro << "reproducer: " << to_string(d) << " seed " << seed << " method " << tcc::to_string(method)
          << (rows_per_chunk ? " rows_per_chunk " + std::to_string(rows_per_chunk) : std::string());
    LayerData data(d, seed);
    Checked checked;
    const ContinuousKernel kernel = ContinuousKernel::for_buffer(d, data.theta_or_null());
    if (const InternalNet* net = kernel.internal_net(); net != nullptr && !f32_branches_decided(d, *net)) {
        checked.decided = false;
        return checked;
    }
    const tcc::CcParameters p = data.parameters(d);
    const auto dst_dims = d.dst_dims();
    const tcc::CcGradients g = tcc::cc_backward(d, tensor(data.src, d.src_dims()), p, tensor(data.diff_dst, dst_dims),
                                                method, rows_per_chunk);

    const CcBackward r = cc_backward(d, data.src.data(), data.theta_or_null(), data.diff_dst.data());
    const std::vector<double> dy(data.diff_dst.begin(), data.diff_dst.end());
    const CcBackwardBound own = cc_backward_error_bound(d, kernel, dy, r);
    const accuracy::Contract f32{};  // f32 output and accumulation

    const std::vector<double> weight_term = f32_weight_term(d, kernel, dy);
    std::vector<double> bound(r.diff_src.size());
    for (std::size_t i = 0; i < bound.size(); ++i)
        bound[i] = own.diff_src[i] + accuracy::cc_error_bound(f32, r.diff_src[i], r.diff_src_magnitude[i], r.diff_src_terms[i],
                                                              weight_term[i]);
    compare("diff_src", repro.str(), widened(g.diff_src), r.diff_src, bound, checked);

    if (const InternalNet* net = kernel.internal_net()) {
        const std::int64_t L = d.batch * d.neighbours() * d.output_size[0] * d.output_size[1] + 1 +
                               internal_net_backward_roundings(*net) + 3;
        const double exact_magnitude = 1.0 / (1.0 - convcheck::gamma(r.diff_theta_roundings, 0x1.0p-53));
        bound.assign(r.diff_theta.size(), 0.0);
        for (std::size_t i = 0; i < bound.size(); ++i)
            bound[i] = own.diff_theta[i] +
                       accuracy::cc_error_bound(f32, r.diff_theta[i], r.diff_theta_magnitude[i] * exact_magnitude, L, 0.0) +
                       static_cast<double>(L) * kF32Underflow;
        compare("diff_theta", repro.str(), widened(g.diff_theta), r.diff_theta, bound, checked);
    } else if (g.diff_theta.defined()) {
        ++checked.failed;
        checked.first_failure = "an analytic kernel has no parameters, but diff_theta is defined; " + repro.str();
    }

    if (d.has_bias) {
        bound.assign(r.diff_bias.size(), 0.0);
        for (std::size_t i = 0; i < bound.size(); ++i)
            bound[i] = own.diff_bias[i] +
                       accuracy::cc_error_bound(f32, r.diff_bias[i], r.diff_bias_magnitude[i], r.diff_bias_terms, 0.0);
        compare("diff_bias", repro.str(), widened(g.diff_bias), r.diff_bias, bound, checked);
    } else if (g.diff_bias.defined()) {
        ++checked.failed;
        checked.first_failure = "a layer without bias has diff_bias; " + repro.str();
    }
    return checked;
}

struct Layer {
    const char* descriptor;
    std::uint64_t seed;
};

// Every kernel family; rational scales (both methods) and real ones (standard); bias; batch 2; an even support.
constexpr Layer kLayers[] = {
    {"cc:n=2,cin=2,cout=3,in=6x7,scale=2/3,support=3x3,kernel=net,bias=1", 1},
    {"cc:n=1,cin=2,cout=2,in=8x7,scale=1/2,support=2x2,kernel=net", 2},
    {"cc:n=1,cin=2,cout=2,in=5x6,scale=0.7071x1.3,support=3x2,kernel=net,hidden=8x4,slope=0.2,bias=1", 3},
    {"cc:n=1,cin=2,cout=2,in=6x6,scale=2,support=2x2,kernel=linear,bias=1", 4},
    {"cc:n=1,cin=1,cout=2,in=7x7,scale=0.8,support=4x4,kernel=cubic", 5},
    {"cc:n=2,cin=2,cout=1,in=6x8,scale=3/4x5/4,support=3x3,kernel=gaussian,sigma=0.7", 6},
    {"cc:n=1,cin=2,cout=2,in=7x5,scale=3/2,support=4x4,kernel=cubic,bias=1", 7},
};

TEST(LibtorchCcBackward, MatchesTheReferenceWithinItsBoundPlusF32Rounding) {
    for (const Layer& layer : kLayers) {
        const CcDescriptor d = parse_cc_descriptor(layer.descriptor);
        for (tcc::CcMethod method : {tcc::CcMethod::standard, tcc::CcMethod::discrete_convs}) {
            if (!tcc::why_unavailable(d, method).empty()) continue;
            const Checked c = check_layer(d, layer.seed, method);
            EXPECT_TRUE(c.decided) << "a LeakyReLU branch is not decided in f32: pick another seed for " << layer.descriptor;
            EXPECT_EQ(c.failed, 0) << c.failed << " gradients outside the bound, first: " << c.first_failure;
            EXPECT_GT(c.compared, 0) << layer.descriptor;
            std::printf("%-100s %-15s %6lld gradients, worst %.3g of the bound\n", layer.descriptor,
                        std::string(tcc::to_string(method)).c_str(), static_cast<long long>(c.compared), c.worst);
        }
    }
}

// The standard method's chunks of output rows (each chunk's graph differentiated on its own) sum to the
// same gradients within the same bound.
TEST(LibtorchCcBackward, ChunkedStandardMethod) {
    for (std::int64_t rows : {1, 2})
        for (const Layer& layer : {kLayers[0], kLayers[2]}) {
            const Checked c = check_layer(parse_cc_descriptor(layer.descriptor), layer.seed, tcc::CcMethod::standard, rows);
            EXPECT_TRUE(c.decided && c.failed == 0 && c.compared > 0) << c.first_failure;
        }
}

// Random small layers (every family, rational and real scales, explicit output sizes, windows reaching far into
// the zero padding; reference/tests cc_fixtures.hpp): each method that applies, within the same bound. A layer
// whose f32 LeakyReLU branches are not all decided is discarded (RapidCheck gives up past 10x discards).
RC_GTEST_PROP(LibtorchCcBackward, RandomLayersWithinTheBound, ()) {
    const CcDescriptor d = *cctest::small_cc_descriptor();
    const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1000000);
    const tcc::CcMethod method = *rc::gen::element(tcc::CcMethod::standard, tcc::CcMethod::discrete_convs);
    RC_PRE(tcc::why_unavailable(d, method).empty());
    const Checked c = check_layer(d, seed, method);
    RC_PRE(c.decided);
    if (c.failed != 0) RC_FAIL(std::to_string(c.failed) + " gradients outside the bound, first: " + c.first_failure);
}

// The ABI-buffer form (what the plugin's CC backward will call) writes the tensor form's gradients, bit for bit.
TEST(LibtorchCcBackward, BuffersGiveTheTensorGradients) {
    for (const Layer& layer : {kLayers[0], kLayers[5]}) {
        const CcDescriptor d = parse_cc_descriptor(layer.descriptor);
        LayerData data(d, layer.seed);
        std::vector<float> diff_src(data.src.size()), diff_theta(data.theta.size()), diff_bias(data.bias.size());
        const tcc::CcMethod ran = tcc::cc_backward_buffers(d, tcc::CcMethod::automatic, data.src.data(),
                                                           data.theta_or_null(),
                                                           data.diff_dst.data(), diff_src.data(), diff_theta.data(),
                                                           diff_bias.data());
        EXPECT_EQ(ran, tcc::chosen_method(d, tcc::CcMethod::automatic));
        const tcc::CcParameters p = data.parameters(d);
        const tcc::CcGradients g = tcc::cc_backward(d, tensor(data.src, d.src_dims()), p, tensor(data.diff_dst, d.dst_dims()), ran);
        EXPECT_EQ(std::vector<double>(diff_src.begin(), diff_src.end()), widened(g.diff_src)) << layer.descriptor;
        if (p.theta.defined()) {
            EXPECT_EQ(std::vector<double>(diff_theta.begin(), diff_theta.end()), widened(g.diff_theta)) << layer.descriptor;
        }
        if (d.has_bias) {
            EXPECT_EQ(std::vector<double>(diff_bias.begin(), diff_bias.end()), widened(g.diff_bias)) << layer.descriptor;
        }
    }
}

}  // namespace
