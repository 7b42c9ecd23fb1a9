// The optimized CC layer agrees with the CC reference under the accuracy contract, by both methods
// (polyphase for rational scales, chunked for any scale), is bitwise identical for 1 and 2 threads,
// and keeps the chunked method's workspace within its bound.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <random>

#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/optimized/cc_plan.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/cc/internal_net.hpp"
#include "convcheck/reference/cc/weight_error.hpp"

using namespace convcheck;
using namespace convcheck::optimized;

namespace {

rc::Gen<CcScale> any_scale() {
    auto exact = rc::gen::map(rc::gen::pair(rc::gen::inRange<std::int64_t>(1, 8), rc::gen::inRange<std::int64_t>(1, 8)),
                              [](auto pq) { return CcScale::exact(Rational(pq.first, pq.second)); });
    auto real = rc::gen::map(rc::gen::inRange(1, 3001), [](int v) { return CcScale::real(0.2 + v / 1000.0); });
    return rc::gen::oneOf(exact, exact, real);
}

rc::Gen<CcDescriptor> small_cc() {
    return rc::gen::exec([] {
        CcDescriptor d;
        d.batch = *rc::gen::inRange<std::int64_t>(1, 3);
        d.in_channels = *rc::gen::inRange<std::int64_t>(1, 5);
        d.out_channels = *rc::gen::inRange<std::int64_t>(1, 21);
        d.kernel = *rc::gen::element(CcKernel::internal_net, CcKernel::internal_net, CcKernel::linear, CcKernel::cubic,
                                     CcKernel::gaussian);
        if (d.kernel == CcKernel::gaussian) d.kernel_parameter = *rc::gen::inRange(2, 20) / 10.0;
        // the second width past 16 too: the chunked method's contraction then takes several passes
        d.hidden_widths = {*rc::gen::inRange<std::int64_t>(1, 17), *rc::gen::inRange<std::int64_t>(1, 41)};
        d.leaky_relu_slope = *rc::gen::inRange(0, 30) / 100.0;
        d.has_bias = *rc::gen::arbitrary<bool>();
        for (int a = 0; a < 2; ++a) {
            d.input_size[a] = *rc::gen::inRange<std::int64_t>(1, 12);
            d.scale[a] = *any_scale();
            d.support[a] = *rc::gen::inRange<std::int64_t>(1, 6);
            const std::int64_t natural = cc_default_output_size(d.scale[a], d.input_size[a]);
            d.output_size[a] = *rc::gen::inRange(0, 4) == 0 ? *rc::gen::inRange<std::int64_t>(1, 25) : natural;
            RC_PRE(d.output_size[a] <= 40);
        }
        validate(d);
        return d;
    });
}

struct CcData {
    std::vector<float> src, theta, bias;
};

CcData make_data(const CcDescriptor& d, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    CcData data;
    data.src.resize(d.src_elements());
    for (float& v : data.src) v = u(rng);
    if (d.has_bias)
        for (std::int64_t o = 0; o < d.out_channels; ++o) data.bias.push_back(u(rng));
    if (d.kernel == CcKernel::internal_net)
        for (double v : reference::cc::initialise_internal_net(d, seed).theta()) data.theta.push_back(static_cast<float>(v));
    return data;
}

std::vector<float> run(const CcDescriptor& d, const CcData& data, CcOptions options) {
    const CcPlan plan(d, data.theta.empty() ? nullptr : data.theta.data(), d.has_bias ? data.bias.data() : nullptr,
                      options);
    std::vector<float> dst(d.dst_elements());
    plan.execute(data.src.data(), dst.data());
    return dst;
}

std::string reproducer(const CcDescriptor& d, CcMethod m, std::uint64_t seed) {
    return to_string(d) + " method=" + std::string(to_string(m)) + " seed=" + std::to_string(seed);
}

// The chunked method's output against the reference under the CC contract (docs/cc.md); returns the
// worst output's fraction of its bound.
double expect_chunked_within_contract(const CcDescriptor& d, const CcData& data, std::uint64_t seed, int threads = 0) {
    const float* theta = data.theta.empty() ? nullptr : data.theta.data();
    const reference::ConvResult want =
        reference::cc::continuous_convolution(d, data.src.data(), theta, d.has_bias ? data.bias.data() : nullptr);
    const std::vector<double> weight_error = reference::cc::cc_weight_error(d, data.src.data(), theta, 0x1p-24);
    const std::vector<float> got = run(d, data, CcOptions{threads, CcMethod::chunked});
    const accuracy::Comparison r =
        accuracy::compare_bound_cc(accuracy::Contract{DataType::f32, DataType::f32}, want.dst, want.magnitude,
                                   want.terms, weight_error, std::vector<double>(got.begin(), got.end()));
    EXPECT_TRUE(r.passed()) << reproducer(d, CcMethod::chunked, seed) << " threads=" << threads << ": " << r.mismatches
                            << " outputs out of bound, worst at " << r.worst_index << " got " << r.worst_got
                            << " want " << r.worst_want << " (" << r.max_bound_fraction << "x of its bound)";
    return r.max_bound_fraction;
}

}  // namespace

RC_GTEST_PROP(Cc, BothMethodsAreWithinTheBoundOfTheReference, ()) {
    const CcDescriptor d = *small_cc();
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint32_t>();
    const CcData data = make_data(d, seed);
    const reference::ConvResult want = reference::cc::continuous_convolution(
        d, data.src.data(), data.theta.empty() ? nullptr : data.theta.data(), d.has_bias ? data.bias.data() : nullptr);
    const std::vector<double> weight_error = reference::cc::cc_weight_error(
        d, data.src.data(), data.theta.empty() ? nullptr : data.theta.data(), 0x1p-24);
    for (CcMethod m : {CcMethod::polyphase, CcMethod::chunked}) {
        if (!why_unavailable(d, m).empty()) continue;
        RC_TAG(std::string(to_string(m)));
        const std::vector<float> got = run(d, data, CcOptions{0, m});
        const std::vector<double> got_d(got.begin(), got.end());
        // The CC contract: the discrete bound plus this backend's own f32 evaluation of K_theta
        // (docs/cc.md, "CC accuracy contract"); the weights are rounded once to f32, inside deltaW.
        const accuracy::Comparison r = accuracy::compare_bound_cc(accuracy::Contract{DataType::f32, DataType::f32},
                                                                  want.dst, want.magnitude, want.terms, weight_error, got_d);
        if (!r.passed())
            RC_FAIL(reproducer(d, m, seed) + ": " + std::to_string(r.mismatches) + " outputs out of bound, worst at " +
                    std::to_string(r.worst_index) + " got " + std::to_string(r.worst_got) + " want " +
                    std::to_string(r.worst_want) + " bound " + std::to_string(r.worst_bound));
    }
}

RC_GTEST_PROP(Cc, OneAndTwoThreadsGiveTheSameBits, ()) {
    const CcDescriptor d = *small_cc();
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint32_t>();
    const CcData data = make_data(d, seed);
    for (CcMethod m : {CcMethod::polyphase, CcMethod::chunked}) {
        if (!why_unavailable(d, m).empty()) continue;
        const auto one = run(d, data, CcOptions{1, m}), two = run(d, data, CcOptions{2, m});
        if (std::memcmp(one.data(), two.data(), one.size() * sizeof(float)) != 0)
            RC_FAIL(reproducer(d, m, seed) + ": 1 and 2 threads differ");
    }
}

TEST(Cc, PolyphaseNeedsARationalScale) {
    const CcDescriptor d = parse_cc_descriptor("cc:cin=2,cout=3,in=8x8,scale=0.7x0.7,support=3x3,kernel=linear");
    try {
        CcPlan plan(d, nullptr, nullptr, CcOptions{1, CcMethod::polyphase});
        FAIL() << "polyphase on a real scale must throw";
    } catch (const ConvError& e) {
        EXPECT_EQ(e.attribute(), "method");
        EXPECT_EQ(e.value(), "polyphase");
    }
    EXPECT_EQ(CcPlan(d, nullptr, nullptr).method(), CcMethod::chunked);
    // automatic: polyphase for the Internal-Net on a rational scale; an analytic kernel's channel sums
    // (the chunked method) at any scale
    const CcDescriptor rational = parse_cc_descriptor("cc:cin=2,cout=3,in=8x8,scale=2/3,support=3x3,kernel=linear");
    EXPECT_EQ(CcPlan(rational, nullptr, nullptr).method(), CcMethod::chunked);
    EXPECT_EQ(CcPlan(rational, nullptr, nullptr, CcOptions{1, CcMethod::polyphase}).method(), CcMethod::polyphase);
    const CcDescriptor net = parse_cc_descriptor("cc:cin=2,cout=3,in=8x8,scale=2/3,support=3x3,kernel=net");
    const CcData data = make_data(net, 1);
    EXPECT_EQ(CcPlan(net, data.theta.data(), nullptr).method(), CcMethod::polyphase);
}

TEST(Cc, ChunkedWorkspaceStaysWithinTwiceTheOutput) {
    // a real scale, 16 -> 16 channels, a 40x40 output: the weights tensor would be 40*40*9*16*16 floats,
    // 56x the output; the chunked method holds at most two chunks of a quarter of the output each.
    const CcDescriptor d = parse_cc_descriptor("cc:cin=16,cout=16,in=27x27,scale=1.4814814814814814,out=40x40,support=3x3");
    const CcData data = make_data(d, 3);
    const CcPlan plan(d, data.theta.data(), nullptr, CcOptions{2, CcMethod::chunked});
    std::vector<float> dst(d.dst_elements());
    plan.execute(data.src.data(), dst.data());
    const std::int64_t output_bytes = d.dst_elements() * 4;
    EXPECT_GT(plan.peak_workspace_bytes(), 0);
    EXPECT_LE(plan.peak_workspace_bytes(), 2 * output_bytes) << to_string(d);
    EXPECT_LE(plan.chunk_bytes(), output_bytes / 2) << to_string(d);
}

// A plan keeps its workspaces between calls: a second call on other data gives, bit for bit, what a
// fresh plan gives on that data (nothing of the first call's data survives into the second).
TEST(Cc, ASecondCallMatchesAFreshPlan) {
    for (const char* text : {"cc:n=2,cin=3,cout=5,in=9x7,scale=2/3x3/2,support=3x3",
                             "cc:cin=4,cout=2,in=8x8,scale=2,support=2x2,kernel=linear",
                             "cc:cin=2,cout=3,in=10x9,scale=0.7x1.3,support=3x3"}) {
        const CcDescriptor d = parse_cc_descriptor(text);
        const CcData first = make_data(d, 11), second = make_data(d, 12);
        const CcPlan plan(d, first.theta.data(), nullptr, CcOptions{2});
        std::vector<float> dst(d.dst_elements()), fresh(d.dst_elements());
        plan.execute(first.src.data(), dst.data());
        plan.execute(second.src.data(), dst.data());
        const CcPlan other(d, first.theta.data(), nullptr, CcOptions{2});
        other.execute(second.src.data(), fresh.data());
        EXPECT_EQ(0, std::memcmp(dst.data(), fresh.data(), dst.size() * sizeof(float))) << to_string(d);
    }
}

// The chunked method never forms a weight: it sums h_m(D) N over the taps first and applies the last
// layer (W3, and b3 against the channel sums) as one GEMM, so a weight that is a small difference of
// large terms (w = 1.001 a2 - 1000, a2 ~ 1000: cancellation inside the Internal-Net) cancels only in
// the GEMM's sum, after f32 rounding of terms ~1000x the result. The CC contract must still hold,
// for few and for many input channels (a longer GEMM) and real and rational scales.
TEST(Cc, ChunkedStaysWithinTheContractWhenTheInternalNetCancels) {
    for (const char* text : {"cc:n=1,cin=2,cout=2,in=8x8,scale=2/3,support=3x3,kernel=net,hidden=1x1",
                             "cc:n=1,cin=2,cout=3,in=9x8,scale=0.7071,support=3x3,kernel=net,hidden=1x1",
                             "cc:n=2,cin=32,cout=4,in=12x12,scale=1.37,support=3x3,kernel=net,hidden=1x1,bias=1",
                             "cc:n=1,cin=16,cout=8,in=10x10,scale=0.6,support=3x2,kernel=net,hidden=1x1"}) {
        const CcDescriptor d = parse_cc_descriptor(text);
        const std::int64_t C = d.in_channels * d.out_channels;
        CcData data = make_data(d, 5);
        data.theta = {0.001f, 0.002f, 1000.0f, 1.0f, 0.0f};  // W1[1][2], b1, W2[1][1], b2: a2 ~ 1000
        for (std::int64_t c = 0; c < C; ++c) data.theta.push_back(1.001f + 0.0001f * static_cast<float>(c % 7));  // W3
        for (std::int64_t c = 0; c < C; ++c) data.theta.push_back(-1000.0f);                                     // b3
        ASSERT_EQ(static_cast<std::int64_t>(data.theta.size()), d.theta_elements());
        std::printf("%s: worst %.3g of the bound\n", text, expect_chunked_within_contract(d, data, 5));
    }
}

// Found by the property above: where the products are tiny beside the bias, a GEMM that starts from the
// bias rounds it with each of its Cin * (h2 + 1) terms, while the contract allows the bias one rounding.
// The chunked method adds the bias once, after the sum.
TEST(Cc, ChunkedAddsTheBiasOnceAfterTheSum) {
    const CcDescriptor d = parse_cc_descriptor(
        "cc:n=1,cin=1,cout=4,in=1x1,scale=1.248x7,out=2x15,support=1x1,kernel=net,hidden=3x12,slope=0.07,bias=1");
    const std::uint64_t seed = 73912273;
    expect_chunked_within_contract(d, make_data(d, seed), seed);
}

// The chunked contraction holds the input channels last, W to a vector (8 on AVX2, 16 on AVX-512), 2
// vectors and up to 6 (AVX2) or 9 (AVX-512) feature columns (S among them) to a register tile, over input
// rows packed once per span of chunks and image: channel counts with whole and masked vectors in blocks of
// one and two, and on either ISA whole blocks before a last one (40, 69), second widths whose last tile
// holds S alone (6, 12 on AVX2) or beside features (9 columns with S: 17 on AVX-512), windows over every
// border, two images (the packed rows are the image's own), 1 and 2 threads. The properties above draw at
// most 4 channels.
TEST(Cc, ChunkedChannelBlocksTailsAndBordersAgreeWithTheReference) {
    for (const char* text : {"cc:n=2,cin=8,cout=3,in=9x9,scale=0.7071,support=3x3,kernel=net,hidden=4x6,bias=1",
                             "cc:n=2,cin=19,cout=5,in=9x10,scale=0.7071x1.37,support=3x3,kernel=net,hidden=16x16",
                             "cc:n=1,cin=13,cout=4,in=8x9,scale=1.37,support=4x3,kernel=net,hidden=8x12",
                             "cc:n=2,cin=32,cout=6,in=11x9,scale=0.7071,support=3x3,kernel=net,hidden=16x16",
                             "cc:n=1,cin=24,cout=2,in=7x7,scale=1.9,support=5x5,kernel=net,hidden=6x17",
                             "cc:n=1,cin=40,cout=3,in=8x8,scale=0.7071,support=3x3,kernel=net,hidden=8x9",
                             "cc:n=1,cin=69,cout=2,in=7x6,scale=1.37,support=3x3,kernel=net,hidden=4x5"}) {
        const CcDescriptor d = parse_cc_descriptor(text);
        for (int threads : {1, 2}) expect_chunked_within_contract(d, make_data(d, 11), 11, threads);
    }
}

// The polyphase method runs whole images in parallel when there are at least two per thread (and the threads'
// copies stay within the output's size), else the rows of one image at a time: both give the same bits as one
// thread, and stay within the contract. Upsampling (small copies beside the output) with 5 and 9 images at 2
// threads, the last thread's share one image short; 2/3 with 9 images.
TEST(Cc, PolyphaseImagesInParallelGiveTheSameBitsAsOneThread) {
    for (const char* text : {"cc:n=5,cin=2,cout=3,in=6x6,scale=2,support=3x3,kernel=net,hidden=4x6,bias=1",
                             "cc:n=9,cin=3,cout=4,in=6x7,scale=2,support=2x3,kernel=linear",
                             "cc:n=9,cin=2,cout=3,in=9x9,scale=2/3,support=3x3,kernel=net,hidden=4x4"}) {
        const CcDescriptor d = parse_cc_descriptor(text);
        const CcData data = make_data(d, 17);
        const auto one = run(d, data, CcOptions{1, CcMethod::polyphase}), two = run(d, data, CcOptions{2, CcMethod::polyphase});
        EXPECT_EQ(0, std::memcmp(one.data(), two.data(), one.size() * sizeof(float))) << text;
        const reference::ConvResult want = reference::cc::continuous_convolution(
            d, data.src.data(), data.theta.empty() ? nullptr : data.theta.data(), d.has_bias ? data.bias.data() : nullptr);
        const std::vector<double> weight_error = reference::cc::cc_weight_error(
            d, data.src.data(), data.theta.empty() ? nullptr : data.theta.data(), 0x1p-24);
        const std::vector<double> got(two.begin(), two.end());
        EXPECT_TRUE(accuracy::compare_bound_cc(accuracy::Contract{DataType::f32, DataType::f32}, want.dst, want.magnitude,
                                               want.terms, weight_error, got)
                        .passed())
            << text;
    }
}
