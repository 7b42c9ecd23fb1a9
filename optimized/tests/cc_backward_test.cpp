// The optimized CC backward (CcBackwardPlan) against the f64 reference cc_backward, under bounds
// derived the way the forward's (cc_test.cpp) are: the CC accuracy contract at f32 (u = 2^-24) from the
// magnitudes and term counts the reference returns, plus the reference's own bound; and bitwise
// identical at 1, 2 and 3 threads.
//
//   diff_src = sum dY W~ (Cout x hits products): accuracy::cc_error_bound with the weight term
//     sum |dY| deltaW at u = 2^-24 (cc_weight_error_backward, the forward's cc_weight_error
//     transposed) and n = terms + 4: the optimized path of one product dY W3 h is dZ (Cout roundings),
//     the feature sum (h2p/8 + 3) and dS (1), then the hits (<= terms / Cout), at most 4 roundings more
//     than the contract's (h2 + 1 for the weight, terms + 1 for the sum), h2p/8 <= h2 and
//     Cout + hits <= Cout * hits + 1.
//   diff_theta: the reference's magnitude M (the same program on |.|) and gamma_L(2^-24) M / (1 - gamma_L)
//     with L the roundings on any path of the optimized program (below, theta_roundings); valid when
//     every f32 LeakyReLU branch is the exact one: the reference's leaky_relu_margin (at u = 2^-53) above
//     2^31 (an f32 pre-activation errs at most 2^29 times as much, times 4). Below it, only W3 and b3
//     (which take no LeakyReLU') are compared, and the case is tagged.
//   diff_bias: gamma_{T+1}(2^-24) M / (1 - gamma_{T+1}), T = N H' W' (summed in double, rounded once).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <random>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/optimized/cc_backward_plan.hpp"
#include "convcheck/reference/cc/backward.hpp"
#include "convcheck/reference/cc/weight_error.hpp"
#include "convcheck/reference_tests/cc_fixtures.hpp"

using namespace convcheck;
using namespace convcheck::optimized;

namespace {

constexpr double kF32 = 0x1.0p-24;

struct Data {
    std::vector<float> src, diff_dst, theta;
};

Data make_data(const CcDescriptor& d, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    Data data;
    data.src.resize(d.src_elements());
    data.diff_dst.resize(d.dst_elements());
    for (float& v : data.src) v = u(rng);
    for (float& v : data.diff_dst) v = u(rng);
    if (d.kernel == CcKernel::internal_net)
        for (double v : reference::cc::initialise_internal_net(d, seed).theta()) data.theta.push_back(static_cast<float>(v));
    return data;
}

struct Grads {
    std::vector<float> diff_src, diff_theta, diff_bias;
};

Grads run(const CcDescriptor& d, const Data& data, int threads, CcMethod method = CcMethod::automatic) {
    const bool net = d.kernel == CcKernel::internal_net;
    const CcBackwardPlan plan(d, net ? data.theta.data() : nullptr, CcOptions{threads, method});
    Grads g;
    g.diff_src.resize(d.src_elements());
    g.diff_theta.resize(net ? d.theta_elements() : 0);
    g.diff_bias.resize(d.has_bias ? d.out_channels : 0);
    plan.execute(data.src.data(), data.diff_dst.data(), g.diff_src.data(), net ? g.diff_theta.data() : nullptr,
                 d.has_bias ? g.diff_bias.data() : nullptr);
    return g;
}

double gamma_bound(std::int64_t k, double magnitude) {
    const double g = convcheck::gamma(k, kF32);
    return g * magnitude / (1.0 - g);
}

// Roundings on any path of the optimized program to a diff_theta entry (cc_backward_net.cpp): the
// hidden features in f32 (ay, ax from double: 2, their sum and LeakyReLU: 2, the second layer: h1 + 2),
// the slope rounded to f32 (2), the distances rounded to f32 for dW1 (1), Z (K taps), dZ (Cout), dh
// (N Cin), the LeakyReLU' and lane sums (h2 + 5), the sums over pixels and pairs (at most K per pixel
// in a chunk, chunks and images in a band, bands: (K + N + 2) H'W' + H'), the final rounding to f32;
// 14 covers the constant terms (2 + 2 + 2 + 2 + 1 + 5 = 14).
std::int64_t theta_roundings(const CcDescriptor& d) {
    const std::int64_t pixels = d.output_size[0] * d.output_size[1], K = d.neighbours();
    return d.hidden_widths[0] + d.hidden_widths[1] + 14 + d.out_channels + d.batch * d.in_channels + K +
           (K + d.batch + 2) * pixels + d.output_size[0] + 2;
}

// "" when every got[i] is within bound[i] of want[i], else the first miss.
std::string first_miss(const char* name, const std::vector<double>& want, const std::vector<double>& bound,
                       const std::vector<float>& got, std::size_t begin = 0) {
    for (std::size_t i = begin; i < want.size(); ++i) {
        const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
        if (!(err <= bound[i]))
            return std::string(name) + "[" + std::to_string(i) + "]: got " + std::to_string(got[i]) + " want " +
                   std::to_string(want[i]) + " bound " + std::to_string(bound[i]);
    }
    return "";
}

// Checks the optimized gradients of (d, seed) against the reference; "" when within the bounds.
std::string check_against_reference(const CcDescriptor& d, std::uint64_t seed, CcMethod method,
                                    bool* branches_decided = nullptr) {
    const Data data = make_data(d, seed);
    const bool net = d.kernel == CcKernel::internal_net;
    const reference::cc::CcBackward want =
        reference::cc::cc_backward(d, data.src.data(), net ? data.theta.data() : nullptr, data.diff_dst.data());
    const reference::cc::ContinuousKernel kernel =
        reference::cc::ContinuousKernel::for_buffer(d, net ? data.theta.data() : nullptr);
    const std::vector<double> dy(data.diff_dst.begin(), data.diff_dst.end());
    const reference::cc::CcBackwardBound own = reference::cc::cc_backward_error_bound(d, kernel, dy, want);
    const Grads got = run(d, data, 0, method);
    const std::vector<double> weight_term = reference::cc::cc_weight_error_backward(d, dy, kernel, kF32);
    std::vector<double> bound(want.diff_src.size());
    const accuracy::Contract f32{DataType::f32, DataType::f32};
    for (std::size_t i = 0; i < bound.size(); ++i)
        bound[i] = accuracy::cc_error_bound(f32, want.diff_src[i], want.diff_src_magnitude[i], want.diff_src_terms[i] + 4,
                                            weight_term[i]) + own.diff_src[i];
    std::string miss = first_miss("diff_src", want.diff_src, bound, got.diff_src);
    if (!miss.empty()) return miss;
    bound.assign(want.diff_bias.size(), 0.0);
    for (std::size_t i = 0; i < bound.size(); ++i)
        bound[i] = gamma_bound(want.diff_bias_terms + 1, want.diff_bias_magnitude[i]) + own.diff_bias[i];
    miss = first_miss("diff_bias", want.diff_bias, bound, got.diff_bias);
    if (!miss.empty() || !net) return miss;
    const bool decided = want.leaky_relu_margin > 0x1.0p31;
    if (branches_decided) *branches_decided = decided;
    bound.assign(want.diff_theta.size(), 0.0);
    const std::int64_t L = theta_roundings(d);
    for (std::size_t i = 0; i < bound.size(); ++i)
        bound[i] = gamma_bound(L, want.diff_theta_magnitude[i]) + own.diff_theta[i];
    // without decided branches, from W3 on: h1*2 + h1 + h2*h1 + h2 entries come first
    const std::int64_t h1 = d.hidden_widths[0], h2 = d.hidden_widths[1];
    return first_miss("diff_theta", want.diff_theta, bound, got.diff_theta,
                      decided ? 0 : static_cast<std::size_t>(3 * h1 + h2 * h1 + h2));
}

// The methods that can run d: chunked always; polyphase for the Internal-Net on a rational scale.
std::vector<CcMethod> methods(const CcDescriptor& d) {
    std::vector<CcMethod> all{CcMethod::chunked};
    if (d.kernel == CcKernel::internal_net && why_unavailable(d, CcMethod::polyphase).empty())
        all.push_back(CcMethod::polyphase);
    return all;
}

std::string reproducer(const CcDescriptor& d, CcMethod m, std::uint64_t seed) {
    return cctest::reproducer(d, seed) + " method=" + std::string(to_string(m));
}

}  // namespace

RC_GTEST_PROP(CcBackwardOptimized, WithinTheBoundOfTheReferenceEveryFamilyAndScale, ()) {
    const CcDescriptor d = *cctest::small_cc_descriptor();
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint32_t>();
    RC_TAG(std::string(to_string(d.kernel)), d.scale[0].is_rational() && d.scale[1].is_rational() ? "rational" : "real");
    for (CcMethod m : methods(d)) {
        bool decided = true;
        const std::string miss = check_against_reference(d, seed, m, &decided);
        if (!decided) RC_TAG("a LeakyReLU branch undecided in f32: W1, b1, W2, b2 not compared");
        if (!miss.empty()) RC_FAIL(reproducer(d, m, seed) + ": " + miss);
    }
}

RC_GTEST_PROP(CcBackwardOptimized, OneTwoAndThreeThreadsGiveTheSameBits, ()) {
    const CcDescriptor d = *cctest::small_cc_descriptor();
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint32_t>();
    const Data data = make_data(d, seed);
    for (CcMethod m : methods(d)) {
    const Grads one = run(d, data, 1, m);
    for (int threads : {2, 3}) {
        const Grads other = run(d, data, threads, m);
        for (const auto& [a, b, name] : {std::tuple{&one.diff_src, &other.diff_src, "diff_src"},
                                         std::tuple{&one.diff_theta, &other.diff_theta, "diff_theta"},
                                         std::tuple{&one.diff_bias, &other.diff_bias, "diff_bias"}})
            if (a->size() != b->size() || (!a->empty() && std::memcmp(a->data(), b->data(), a->size() * sizeof(float)) != 0))
                RC_FAIL(reproducer(d, m, seed) + ": " + name + " differs at 1 and " + std::to_string(threads) +
                        " threads");
    }
    }
}

// Wider layers than the generator's: input channel blocks of 8 and a tail, several feature-vector
// groups (h2 = 37: 5 vectors, a group of 4 and one of 1), several bands and chunks, batch 2; rational
// and real scales, upsampling and downsampling.
TEST(CcBackwardOptimized, WideLayersWithinTheBound) {
    for (const char* text : {"cc:n=2,cin=11,cout=9,in=17x15,scale=2/3x3/2,support=3x3,hidden=5x37,bias=1",
                             "cc:n=1,cin=16,cout=5,in=12x30,scale=0.7071x1.37,support=3x2,hidden=16x16",
                             "cc:n=2,cin=9,cout=17,in=9x9,scale=2,support=4x3,hidden=3x8,slope=0.2,bias=1",
                             "cc:n=2,cin=10,cout=3,in=21x13,scale=0.45,support=5x5,kernel=gaussian,sigma=0.7,bias=1",
                             // a negative slope: LeakyReLU' from z2 recomputed, not from the sign of h
                             "cc:n=1,cin=3,cout=4,in=10x11,scale=0.8x1.25,support=3x3,hidden=8x16,slope=-0.3",
                             // polyphase: phases of more than one chunk of 240 pixels (the dW pass's chunks)
                             "cc:n=2,cin=3,cout=2,in=20x18,scale=1x2,support=3x3,hidden=4x8,bias=1"}) {
        const CcDescriptor d = parse_cc_descriptor(text);
        for (CcMethod m : methods(d)) {
            bool decided = true;
            EXPECT_EQ(check_against_reference(d, 7, m, &decided), "") << reproducer(d, m, 7);
            EXPECT_TRUE(decided) << text;
        }
    }
}

namespace {

// d by method m within the reference's bound (the bound decided), and its gradients the same bits at 1 thread
// and at each of `threads`.
void expect_within_bound_and_same_bits(const char* text, std::uint64_t seed, std::initializer_list<int> threads) {
    const CcDescriptor d = parse_cc_descriptor(text);
    for (CcMethod m : methods(d)) {
        bool decided = true;
        EXPECT_EQ(check_against_reference(d, seed, m, &decided), "") << reproducer(d, m, seed);
        EXPECT_TRUE(decided) << text;
        const Data data = make_data(d, seed);
        const Grads one = run(d, data, 1, m);
        for (int t : threads) {
            const Grads other = run(d, data, t, m);
            EXPECT_EQ(std::memcmp(one.diff_src.data(), other.diff_src.data(), one.diff_src.size() * 4), 0)
                << text << " threads " << t;
            EXPECT_EQ(std::memcmp(one.diff_theta.data(), other.diff_theta.data(), one.diff_theta.size() * 4), 0)
                << text << " threads " << t;
        }
    }
}

}  // namespace

// Second hidden widths whose padding h2p is a multiple of 16 (the AVX-512 scatter of dN and dh, where the
// CPU has it): input channel blocks of 32 with a tail of 8, 4 (a masked second vector) and 7 (a masked
// first), a whole 16 after 32; 16 and 15 taps (groups of 9 for dN, 12 for dh); h2 = 29 (h2p = 32: two
// transposed blocks, the padding features skipped); borders; rational scales with 16 to 40 channels (the
// patch tiles' whole vectors); the same bits at 1 and 2 threads.
TEST(CcBackwardOptimized, FeatureVectorsOfSixteenWithinTheBound) {
    for (const char* text : {"cc:n=2,cin=40,cout=6,in=14x13,scale=0.7071x1.3,support=4x4,hidden=6x29,bias=1",
                             "cc:n=1,cin=20,cout=5,in=11x12,scale=0.8,support=3x3,hidden=4x16",
                             "cc:n=1,cin=48,cout=3,in=9x10,scale=1.37x0.6,support=5x3,hidden=5x16,slope=-0.2",
                             "cc:n=2,cin=7,cout=4,in=10x9,scale=2/3,support=3x3,hidden=3x16,bias=1",
                             // polyphase too: whole vectors of 16 channels and tails (AVX-512's patch tiles)
                             "cc:n=2,cin=40,cout=13,in=10x9,scale=2/3x3/2,support=3x3,hidden=4x16,bias=1",
                             "cc:n=1,cin=16,cout=20,in=8x8,scale=2,support=2x2,hidden=3x16"})
        expect_within_bound_and_same_bits(text, 11, {2});
}

// 32 output channels: [dZ | dS]'s sums over Cout with the loop length known at compile time (cc_rows_times,
// inner = 32), whole and masked column vectors (depth = 5 * 17 = 85 columns), 1 to kTileRows rows.
TEST(CcBackwardOptimized, ThirtyTwoOutputChannelsWithinTheBound) {
    for (const char* text : {"cc:n=2,cin=5,cout=32,in=9x10,scale=0.7071,support=3x3,hidden=4x16,bias=1",
                             "cc:n=1,cin=3,cout=32,in=7x8,scale=0.8x1.3,support=2x3,hidden=3x8"})
        expect_within_bound_and_same_bits(text, 17, {2});
}

// Batches of several images: the polyphase method's dW partials per group of images (half the batch, at
// most 2), whole groups in parallel when there are at least two images per thread and a group per thread
// (batch 5 at 2 threads: groups of 3 and 2; batch 9: 5 and 4, at 3 threads per image), else per image;
// within the bound, and the same bits at 1, 2 and 3 threads.
TEST(CcBackwardOptimized, ImagesInGroupsWithinTheBoundAndTheSameBits) {
    for (const char* text : {"cc:n=5,cin=5,cout=6,in=13x12,scale=2/3x3/2,support=3x3,hidden=4x8,bias=1",
                             "cc:n=9,cin=7,cout=4,in=10x9,scale=2/3,support=3x3,hidden=3x16",
                             "cc:n=4,cin=6,cout=5,in=11x12,scale=0.8,support=3x3,hidden=4x16,bias=1"})
        expect_within_bound_and_same_bits(text, 13, {2, 3});
}

// A plan run again, after other data, gives the same bits: nothing carried over in its pooled buffers
// (the partial sums are zeroed where they are used: each phase's by its task, on the first image).
TEST(CcBackwardOptimized, TheSameBitsWhenRunAgainAfterOtherData) {
    for (const char* text : {"cc:n=2,cin=5,cout=6,in=13x12,scale=2/3x3/2,support=3x3,hidden=4x8",
                             "cc:n=5,cin=5,cout=6,in=13x12,scale=2/3x3/2,support=3x3,hidden=4x8",  // 2 groups
                             "cc:n=1,cin=20,cout=5,in=11x12,scale=0.8,support=3x3,hidden=4x16",
                             "cc:n=1,cin=16,cout=20,in=8x8,scale=2/3,support=3x3,hidden=3x16"}) {
        const CcDescriptor d = parse_cc_descriptor(text);
        const Data a = make_data(d, 5), b = make_data(d, 6);
        for (CcMethod m : methods(d))
            for (int threads : {1, 2}) {
                const CcBackwardPlan plan(d, a.theta.data(), CcOptions{threads, m});
                Grads first, other;
                for (Grads* g : {&first, &other}) {
                    g->diff_src.resize(d.src_elements());
                    g->diff_theta.resize(d.theta_elements());
                }
                const auto execute = [&](const Data& x, Grads& g) {
                    plan.execute(x.src.data(), x.diff_dst.data(), g.diff_src.data(), g.diff_theta.data(), nullptr);
                };
                execute(a, first);
                execute(b, other);
                execute(a, other);
                EXPECT_EQ(std::memcmp(first.diff_src.data(), other.diff_src.data(), first.diff_src.size() * 4), 0)
                    << text << " threads " << threads;
                EXPECT_EQ(std::memcmp(first.diff_theta.data(), other.diff_theta.data(), first.diff_theta.size() * 4), 0)
                    << text << " threads " << threads;
            }
    }
}

// diff_src is overwritten whatever it held: the input rows no band reads are zeroed, every other row's
// first contribution is stored (cc_rows_no_band_stores, cc_rows_odd_bands_store), so a buffer of NaNs
// gives the bits a buffer of zeros does. (Layers whose output rows skip input rows: support 1 at 1/3,
// support 2 at 0.3 x 0.4.)
TEST(CcBackwardOptimized, DiffSrcOverwrittenWhateverItHeld) {
    for (const char* text : {"cc:n=2,cin=5,cout=4,in=13x12,scale=1/3,support=1x1,hidden=4x16",
                             "cc:n=1,cin=20,cout=3,in=23x17,scale=0.3x0.4,support=2x2,hidden=3x8"}) {
        const CcDescriptor d = parse_cc_descriptor(text);
        const Data data = make_data(d, 7);
        for (CcMethod m : methods(d))
            for (int threads : {1, 2}) {
                const CcBackwardPlan plan(d, data.theta.data(), CcOptions{threads, m});
                std::vector<float> zeros(d.src_elements(), 0.0f), nans(d.src_elements(), std::nanf(""));
                std::vector<float> theta(d.theta_elements());
                for (std::vector<float>* diff_src : {&zeros, &nans})
                    plan.execute(data.src.data(), data.diff_dst.data(), diff_src->data(), theta.data(), nullptr);
                EXPECT_EQ(std::memcmp(zeros.data(), nans.data(), zeros.size() * 4), 0)
                    << text << " " << to_string(m) << " threads " << threads;
            }
    }
}

TEST(CcBackwardOptimized, RefusesWhatItCannotDo) {
    const CcDescriptor d = parse_cc_descriptor("cc:cin=2,cout=3,in=8x8,scale=2/3,support=3x3,kernel=linear");
    EXPECT_THROW(CcBackwardPlan(d, nullptr, CcOptions{1, CcMethod::polyphase}), ConvError);  // analytic
    const CcDescriptor real = parse_cc_descriptor("cc:cin=2,cout=3,in=8x8,scale=0.7,support=3x3");
    EXPECT_THROW(CcBackwardPlan(real, make_data(real, 1).theta.data(), CcOptions{1, CcMethod::polyphase}), ConvError);
    const CcBackwardPlan plan(d, nullptr);
    std::vector<float> src(d.src_elements()), dy(d.dst_elements()), ds(d.src_elements()), theta(4);
    EXPECT_THROW(plan.execute(src.data(), dy.data(), ds.data(), theta.data(), nullptr), ConvError);  // no theta here
    const CcDescriptor net = parse_cc_descriptor("cc:cin=2,cout=3,in=8x8,scale=2/3,support=3x3,bias=1");
    EXPECT_THROW(CcBackwardPlan(net, nullptr), ConvError);
    // automatic: the forward's choice
    EXPECT_EQ(CcBackwardPlan(net, make_data(net, 1).theta.data()).method(), CcMethod::polyphase);
    EXPECT_EQ(CcBackwardPlan(real, make_data(real, 1).theta.data()).method(), CcMethod::chunked);
}

// The workspace: per task one chunk, plus the bands' partial sums, whatever the image size.
TEST(CcBackwardOptimized, WorkspaceIsOneChunkPerTaskAndTheBandPartials) {
    const CcDescriptor d = parse_cc_descriptor("cc:n=2,cin=16,cout=16,in=40x40,scale=0.7071,support=3x3");
    const Data data = make_data(d, 3);
    const CcBackwardPlan plan(d, data.theta.data(), CcOptions{2, CcMethod::chunked});
    Grads g;
    g.diff_src.resize(d.src_elements());
    g.diff_theta.resize(d.theta_elements());
    plan.execute(data.src.data(), data.diff_dst.data(), g.diff_src.data(), g.diff_theta.data(), nullptr);
    // chunk: 120 pixels x (2*9*16 + 16*17 + 16) floats and 24 pixels' [dZ | dS] (16*17 each), per image a
    // ring of its input rows and one of their gradient, channels last
    // (120 pixels are at most 6 output rows of 29, which read at most 5/0.7071 + 3 + 1 = 12 input rows of
    // 40 pixels x 16 channels), + small scratch; 4 partials of 16*16*17 + ... doubles. Two bands run at
    // once on 2 threads, so the peak holds two chunks when they overlap (seen, with [dZ | dS] of all 120
    // pixels: 1223360 bytes; the bound without the input rows, 1178624, failed whenever they did; now
    // 522176 when they do not).
    const std::int64_t chunk = (120 * (2 * 9 * 16 + 16 * 17 + 16) + 24 * 16 * 17 + 2 * 2 * 12 * 40 * 16) * 4;
    const std::int64_t partials = 4 * (16 * 16 * 17 + 16 * 16 + 16 + 48) * 8;
    EXPECT_GT(plan.peak_workspace_bytes(), 0);
    EXPECT_LE(plan.peak_workspace_bytes(), 2 * chunk + partials + 64 * 1024) << to_string(d);
}
