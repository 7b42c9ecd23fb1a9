// Designed suites: the pairwise suite covers every feasible pair of attribute values; the full sweep
// draws each attribute at its stated share; descriptors built for chosen values have them; smoke
// holds a designed case for every class of bug of the mutants list; special fills are exact-mode
// only; and a real-scale CC case whose window a backend may decide either way is refused.
#include <gtest/gtest.h>

#include "convcheck/core/quantized_descriptor.hpp"

#include <cmath>
#include <random>
#include <set>

#include "convcheck/core/cc_descriptor.hpp"
#include "convcheck/core/transposed_descriptor.hpp"
#include "convcheck/accuracy/accuracy.hpp"
#include "convcheck/runner/backward_terms.hpp"
#include "convcheck/runner/suite_design.hpp"
#include "convcheck/runner/suites.hpp"

using namespace convcheck;
using namespace convcheck::runner;

namespace {

std::vector<ConvDescriptor> descriptors_of(const std::vector<SuiteEntry>& entries) {
    std::vector<ConvDescriptor> out;
    for (const auto& e : entries)
        if (!e.descriptor.starts_with("cc:") && !e.descriptor.starts_with("deconv:") && !e.descriptor.starts_with("qconv:"))
            out.push_back(parse_descriptor(e.descriptor));
    return out;
}

TEST(SuiteDesign, PairwiseCoversEveryFeasiblePairOfAttributeValues) {
    const PairCoverage c = pair_coverage(descriptors_of(pairwise_suite()));
    EXPECT_GT(c.total, 300);
    EXPECT_EQ(c.covered, c.total);
    for (const auto& m : c.missing) ADD_FAILURE() << "missing pair: " << m;
    EXPECT_LE(pairwise_suite().size(), 40u) << "a covering suite should stay small";
}

// The report shows coverage per two attributes (docs/reports.md): the parts add up to the whole.
TEST(SuiteDesign, PairCoverageOfEveryTwoAttributesAddsUpToTheWhole) {
    const PairCoverage c = pair_coverage(descriptors_of(builtin_suite_entries("smoke")));
    ASSERT_EQ(c.by_factors.size(), static_cast<std::size_t>(kFactors * (kFactors - 1) / 2));
    std::int64_t covered = 0, total = 0;
    for (const auto& of : c.by_factors) {
        EXPECT_LT(of.first, of.second);
        EXPECT_LE(of.covered, of.total);
        EXPECT_EQ(of.total, std::int64_t(design_factors()[of.first].values.size() * design_factors()[of.second].values.size()) -
                                (std::string(design_factors()[of.first].name) == "pads" &&
                                 std::string(design_factors()[of.second].name) == "kernel"))
            << design_factors()[of.first].name << " x " << design_factors()[of.second].name;
        covered += of.covered, total += of.total;
    }
    EXPECT_EQ(covered, c.covered);
    EXPECT_EQ(total, c.total);
    EXPECT_LT(c.covered, c.total) << "smoke is not a covering suite: some pairs must be missing";
    EXPECT_EQ(static_cast<std::int64_t>(c.missing.size()), c.total - c.covered);
}

// An fp8 descriptor lies outside the design's dtypes (f32, f16, bf16): counted nowhere, never indexed past them
// (`convcheck list --suite smoke.cases` wrote past the dtype counts once smoke had fp8 cases).
TEST(SuiteDesign, ADtypeOutsideTheDesignIsNotCounted) {
    const std::vector<ConvDescriptor> ds = {parse_descriptor("conv:c=2,o=3,in=5,k=3,dt=f8_e4m3"),
                                            parse_descriptor("conv:c=2,o=3,in=5,k=3,dt=f32")};
    EXPECT_FALSE(in_design(ds[0]));
    EXPECT_TRUE(in_design(ds[1]));
    const auto counts = distribution(ds);
    for (const auto& of_factor : counts) {
        std::int64_t total = 0;
        for (const std::int64_t n : of_factor) total += n;
        EXPECT_EQ(total, 1);
    }
    EXPECT_EQ(pair_coverage(ds).total, pair_coverage({ds[1]}).total);
    EXPECT_EQ(pair_coverage(ds).covered, pair_coverage({ds[1]}).covered);
}

TEST(SuiteDesign, PairwiseUsesUnequalPerAxisValues) {
    int unequal_kernels = 0, unequal_dilations = 0;
    for (const auto& d : descriptors_of(pairwise_suite()))
        for (int a = 1; a < d.rank; ++a) {
            unequal_kernels += d.kernel_size[a] != d.kernel_size[0];
            unequal_dilations += d.dilations[a] != d.dilations[0];
        }
    EXPECT_GT(unequal_kernels, 3);
    EXPECT_GT(unequal_dilations, 0);
}

TEST(SuiteDesign, FullSweepDrawsEachAttributeAtItsStatedShare) {
    auto entries = full_suite();
    entries.resize(600);  // the stratified sweep; the designed families follow it
    const auto counts = distribution(descriptors_of(entries));
    const auto& f = design_factors();
    auto share = [&](const char* factor, const char* value) {
        for (int i = 0; i < kFactors; ++i)
            if (std::string(f[i].name) == factor)
                for (std::size_t v = 0; v < f[i].values.size(); ++v)
                    if (std::string(f[i].values[v]) == value) return double(counts[i][v]) / 600.0;
        ADD_FAILURE() << factor << "=" << value;
        return 0.0;
    };
    EXPECT_NEAR(share("pads", "negative"), 0.10, 0.03);  // was 915 of 1,200 cases
    EXPECT_NEAR(share("kernel", "beyond_input"), 0.07, 0.03);
    EXPECT_NEAR(share("stride", "beyond_kernel"), 0.10, 0.03);
    EXPECT_NEAR(share("groups", "depthwise_multiplier"), 0.10, 0.03);
    EXPECT_NEAR(share("dtype", "f32"), 0.50, 0.05);
}

// The backward passes follow the forward cases (which keep their ids and seeds): 75 descriptors of each
// pass, 10% each of the random sweep's 750; exact mode only where it can hold the pass's longest sum;
// bound, exact and probe only (the modes of a backward pass), no special fills.
TEST(SuiteDesign, FullSweepHasBothBackwardPassesAtTheirShare) {
    const auto entries = full_suite();
    ASSERT_EQ(entries.size(), 600u + 16u + 60u + 150u + 40u + 8u + 60u);
    int passes[3] = {};
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (i >= 826) continue;  // the transposed convolutions and the backward tails (the tests below)
        const ConvDescriptor d = parse_descriptor(entries[i].descriptor);
        ++passes[static_cast<int>(d.pass)];
        EXPECT_EQ(d.pass != Pass::forward, i >= 676) << entries[i].descriptor;
        if (d.pass == Pass::forward) continue;
        EXPECT_EQ(entries[i].fill, accuracy::Fill::standard) << entries[i].descriptor;
        EXPECT_EQ(entries[i].modes.find_first_not_of("bep"), std::string::npos) << entries[i].modes;
        const bool exact_holds = double(backward_max_terms(d)) < std::ldexp(1.0, accuracy::significand_bits(d.dtype));
        EXPECT_EQ(entries[i].modes.find('e') != std::string::npos, exact_holds && (i - 676) / 2 % 4 < 2)
            << entries[i].descriptor << " " << entries[i].modes;
    }
    EXPECT_EQ(passes[0], 676);
    EXPECT_EQ(passes[1], 75);
    EXPECT_EQ(passes[2], 75);
}

// Transposed convolution follows the backward passes: 40 valid descriptors, each the transpose of a forward
// descriptor of the sweep's shares (its output the forward's input size), exact mode only where the backward data
// pass it computes holds its longest sum and the bias, bound, exact and probe only, no special fills.
TEST(SuiteDesign, FullSweepHasTransposedConvolutionsAfterTheBackwardPasses) {
    const auto entries = full_suite();
    ASSERT_EQ(entries.size(), 934u);
    int output_padding = 0, grouped = 0, nxc = 0, bias = 0;
    for (std::size_t i = 826; i < 866; ++i) {
        const TransposedDescriptor t = parse_transposed_descriptor(entries[i].descriptor);  // validates
        EXPECT_EQ(entries[i].fill, accuracy::Fill::standard) << entries[i].descriptor;
        EXPECT_EQ(entries[i].modes.find_first_not_of("bep"), std::string::npos) << entries[i].modes;
        ConvDescriptor data = t.forward();
        data.pass = Pass::backward_data;
        const bool exact_holds =
            double(backward_max_terms(data)) + 1.0 < std::ldexp(1.0, accuracy::significand_bits(t.dtype));
        EXPECT_EQ(entries[i].modes.find('e') != std::string::npos, exact_holds && (i - 826) % 4 < 2)
            << entries[i].descriptor << " " << entries[i].modes;
        for (int a = 0; a < t.rank; ++a) output_padding += t.output_padding[a] > 0;
        grouped += t.groups > 1, nxc += t.data_format == DataFormat::nxc, bias += t.has_bias;
    }
    EXPECT_GT(output_padding, 5);
    EXPECT_GT(grouped, 5);
    EXPECT_GT(nxc, 10);
    EXPECT_GT(bias, 10);
}

// Then 8 channel tails past 8 in both backward passes, 9, 17, 33 and 65 channels in the reduction a pass's
// vector loop would run over (output channels of backward data, input channels of backward weights).
TEST(SuiteDesign, FullSweepHasBackwardChannelTails) {
    const auto entries = full_suite();
    ASSERT_EQ(entries.size(), 934u);
    std::set<std::int64_t> data, weights;
    for (std::size_t i = 866; i < 874; ++i) {
        const ConvDescriptor d = parse_descriptor(entries[i].descriptor);
        ASSERT_NE(d.pass, Pass::forward) << entries[i].descriptor;
        if (d.pass == Pass::backward_data) data.insert(d.out_channels_per_group());
        else weights.insert(d.in_channels_per_group());
    }
    EXPECT_EQ(data, (std::set<std::int64_t>{9, 17, 33, 65}));
    EXPECT_EQ(weights, (std::set<std::int64_t>{9, 17, 33, 65}));
}

// The last 60: quantized convolutions (valid, so their sums fit s32), in exact mode, each integer type in src,
// weights and dst, zero points, per-channel scales, narrowed ranges and ties fills all present.
TEST(SuiteDesign, FullSweepEndsWithQuantizedConvolutions) {
    const auto entries = full_suite();
    ASSERT_EQ(entries.size(), 934u);
    std::set<std::string> types;
    int zero_points = 0, per_channel = 0, narrowed = 0, ties = 0, grouped = 0;
    for (std::size_t i = 874; i < entries.size(); ++i) {
        const QuantizedDescriptor q = parse_quantized_descriptor(entries[i].descriptor);  // validates
        EXPECT_NE(entries[i].modes.find('e'), std::string::npos) << entries[i].descriptor;
        types.insert("src " + std::string(to_string(q.src)));
        types.insert("weights " + std::string(to_string(q.weights)));
        types.insert("dst " + std::string(to_string(q.dst)));
        zero_points += q.src_zero_point != 0 && q.weights_zero_point != 0;
        per_channel += q.per_channel_scales, narrowed += q.narrowed(), grouped += q.conv.groups > 1;
        ties += entries[i].fill == accuracy::Fill::ties;
    }
    EXPECT_EQ(types.size(), 7u);  // src u8 s8, weights u8 s8, dst u8 s8 s32
    EXPECT_GT(zero_points, 10);
    EXPECT_GT(per_channel, 10);
    EXPECT_GT(narrowed, 3);
    EXPECT_EQ(ties, 15);
    EXPECT_GT(grouped, 10);
}

// The models suite: the ResNet-50 and MobileNet-v2 layers again as backward data and backward weights,
// after the forward layers.
TEST(SuiteDesign, ModelsHaveTheBackwardPassesOfResNetAndMobileNet) {
    const auto entries = models_suite();
    int forward_listed = 0, backward = 0;
    for (const SuiteEntry& e : entries) {
        const ConvDescriptor d = parse_descriptor(e.descriptor);
        if (d.pass == Pass::forward) {
            EXPECT_EQ(backward, 0) << e.name << ": a forward layer after a backward one";
            forward_listed += e.name.starts_with("resnet50/") || e.name.starts_with("mobilenet_v2/");
            continue;
        }
        ++backward;
        EXPECT_EQ(e.modes, "b");
        EXPECT_TRUE(e.name.ends_with(d.pass == Pass::backward_data ? "/bwd_d" : "/bwd_w")) << e.name;
    }
    EXPECT_EQ(forward_listed, 26);
    EXPECT_EQ(backward, 2 * forward_listed);
}

TEST(SuiteDesign, RealizedDescriptorsHaveTheValuesAsked) {
    std::mt19937_64 rng(5);
    const auto& f = design_factors();
    for (int i = 0; i < 2000; ++i) {
        Attributes a{};
        for (int k = 0; k < kFactors; ++k) a[k] = static_cast<int>(rng() % f[k].values.size());
        if (!feasible(a)) {
            EXPECT_THROW(realize(a, rng), std::invalid_argument);
            continue;
        }
        const ConvDescriptor d = realize(a, rng);
        EXPECT_NO_THROW(validate(d));
        EXPECT_EQ(classify(d), a) << to_string(d);
    }
}

TEST(SuiteDesign, SmokeHasADesignedCaseForEveryClassOfBug) {
    bool tail[9] = {}, ties[3] = {}, overflow[3] = {}, subnormal[3] = {}, multiplier = false, strides3 = false;
    bool gaussian = false, explicit_out = false, on_edge = false, real_scale = false, cc_backward_batch = false;
    // the backward passes and transposed convolution: a channel tail past 8 in the reduction of backward data (output
    // channels) and in backward weights' input channels, probe mode on both passes (NaN * 0 and leaks) and on a
    // transposed case, transposed cases with output padding and in f16/bf16
    bool bwd_d_tail = false, bwd_w_tail = false, bwd_d_probe = false, bwd_w_probe = false, deconv_probe = false,
         deconv_output_padding = false, deconv_16_bit = false;
    // quantized convolution: each int8 bug class (docs/quantized.md)
    bool q_ties = false, q_padding_zero_point = false, q_grouped_per_channel = false, q_s16_pairs = false,
         q_range = false, q_s32 = false, q_bias = false;
    // fused post-ops on a float case, each post-op bug class in exact mode (docs/selftest.md): a per_oc operand in
    // groups, a bias under the chain's first eltwise, two ops that do not commute first (relu, then a sum), a clip
    bool po_group_operand = false, po_bias = false, po_order_and_sum = false, po_clip = false;
    // scales on a float case in exact mode (docs/scales.md): per-channel weights scales (read from channel 0, the other
    // channels move) and a dst scale other than 1 (multiplied instead of divided, every output moves)
    bool sc_per_channel = false, sc_dst = false;
    for (const SuiteEntry& e : builtin_suite_entries("smoke")) {
        if (e.descriptor.starts_with("qconv:")) {
            const QuantizedDescriptor q = parse_quantized_descriptor(e.descriptor);
            q_ties |= e.fill == accuracy::Fill::ties;
            q_padding_zero_point |= q.src_zero_point != 0 && q.conv.pads_begin[0] > 0;
            q_grouped_per_channel |= q.per_channel_scales && q.conv.groups > 1;
            q_s16_pairs |= q.src == IntegerType::u8 && q.weights == IntegerType::s8 && q.products_per_output() > 1 &&
                           e.fill == accuracy::Fill::standard;
            q_range |= q.narrowed();
            q_s32 |= q.dst == IntegerType::s32;
            q_bias |= q.conv.has_bias;
            continue;
        }
        if (e.descriptor.starts_with("deconv:")) {
            const TransposedDescriptor t = parse_transposed_descriptor(e.descriptor);
            deconv_probe |= e.modes.find('p') != std::string::npos;
            deconv_output_padding |= t.output_padding[0] > 0;
            deconv_16_bit |= t.dtype != DataType::f32;
            continue;
        }
        if (e.descriptor.starts_with("cc:")) {
            if (e.descriptor.ends_with(",dir=bwd")) {  // the CC backward pass: a batch for the weights' reduction
                cc_backward_batch |= parse_cc_descriptor(e.descriptor.substr(0, e.descriptor.size() - 8)).batch > 1;
                continue;
            }
            const CcDescriptor c = parse_cc_descriptor(e.descriptor);
            gaussian |= c.kernel == CcKernel::gaussian;
            explicit_out |= e.descriptor.find("out=") != std::string::npos;
            on_edge |= e.name == "cc/grid_on_window_edge";
            real_scale |= !c.scale[0].is_rational() && c.output_size[1] == 55;
            continue;
        }
        const ConvDescriptor d = parse_descriptor(e.descriptor);
        const bool probe = e.modes.find('p') != std::string::npos;
        if (d.pass == Pass::backward_data) {
            bwd_d_tail |= d.out_channels_per_group() > 8 && d.out_channels_per_group() % 8 != 0;
            bwd_d_probe |= probe;
            continue;
        }
        if (d.pass == Pass::backward_weights) {
            bwd_w_tail |= d.in_channels_per_group() > 8 && d.in_channels_per_group() % 8 != 0;
            bwd_w_probe |= probe;
            continue;
        }
        if (d.scales.present() && e.modes.find('e') != std::string::npos) {
            sc_per_channel |= d.scales.per_channel && d.out_channels > 1;
            sc_dst |= d.scales.dst != 1.0f;
        }
        if (!d.post_ops.empty() && e.modes.find('e') != std::string::npos) {
            const std::vector<PostOp>& ops = d.post_ops;
            for (const PostOp& op : ops) {
                po_group_operand |= d.groups > 1 && op.kind == PostOpKind::binary && op.broadcast == OperandBroadcast::per_oc;
                po_clip |= op.kind == PostOpKind::eltwise && op.eltwise == EltwiseAlgorithm::clip;
            }
            po_bias |= d.has_bias && ops[0].kind == PostOpKind::eltwise && ops[0].eltwise == EltwiseAlgorithm::relu;
            po_order_and_sum |= ops.size() >= 2 && ops[0].kind == PostOpKind::eltwise &&
                                ops[0].eltwise == EltwiseAlgorithm::relu && ops[1].kind == PostOpKind::sum;
        }
        for (int b = 3; b <= 8; ++b) {
            const std::int64_t block = std::int64_t(1) << b;
            tail[b] |= d.in_channels_per_group() > block && d.in_channels_per_group() % block != 0;
        }
        const int dt = static_cast<int>(d.dtype);
        if (dt < 3) {  // the special fills are for f32, f16 and bf16
            ties[dt] |= e.fill == accuracy::Fill::ties;
            overflow[dt] |= e.fill == accuracy::Fill::overflow;
            subnormal[dt] |= e.fill == accuracy::Fill::subnormal;
        }
        multiplier |= d.groups == d.in_channels && d.out_channels > d.in_channels && d.groups > 1;
        strides3 |= d.rank == 3 && d.strides[0] != d.strides[1] && d.strides[1] != d.strides[2] && d.strides[0] != d.strides[2];
    }
    for (int b = 3; b <= 8; ++b) EXPECT_TRUE(tail[b]) << "no channel tail for blocks of " << (1 << b);
    EXPECT_TRUE(bwd_d_tail && bwd_w_tail) << "no backward channel tail past 8";
    EXPECT_TRUE(bwd_d_probe && bwd_w_probe && deconv_probe) << "no probe case of a backward pass or of transposed convolution";
    EXPECT_TRUE(deconv_output_padding && deconv_16_bit);
    EXPECT_TRUE(ties[1] && ties[2] && overflow[1] && subnormal[0] && subnormal[1] && subnormal[2]);
    EXPECT_TRUE(multiplier && strides3);
    EXPECT_TRUE(gaussian && explicit_out && on_edge && real_scale);
    EXPECT_TRUE(cc_backward_batch) << "smoke needs a CC backward case with a batch (cc_bwd_theta_first_image)";
    EXPECT_TRUE(q_ties && q_padding_zero_point && q_grouped_per_channel && q_s16_pairs && q_range && q_s32 && q_bias)
        << "smoke needs a quantized case for each int8 bug class";
    EXPECT_TRUE(po_group_operand && po_bias && po_order_and_sum && po_clip)
        << "smoke needs a float post-op case in exact mode for each post-op bug class";
    EXPECT_TRUE(sc_per_channel && sc_dst) << "smoke needs a float case with scales in exact mode for each scales bug class";
}

TEST(SuiteDesign, SpecialFillsAreExactModeData) {
    SuiteEntry e("c=2,o=2,in=5,k=3,dt=f16", "be", "x", accuracy::Fill::ties);
    try {
        expand("t", {e}, 1, "");
        FAIL() << "a special fill in bound mode was accepted";
    } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("special fills are exact-mode data"), std::string::npos) << error.what();
    }
    e.modes = "e";
    EXPECT_EQ(expand("t", {e}, 1, "").front().fill, accuracy::Fill::ties);
}

TEST(SuiteDesign, ARealScaleWindowEdgeThatDecidesTheVerdictIsRefused) {
    // 0.6 on in = 8 puts g_2 - 3/2 on the integer 2; the Internal-Net weighs the edge neighbour
    const SuiteEntry on_edge("cc:n=1,cin=1,cout=1,in=8,scale=0.6,support=3,kernel=net", "b");
    try {
        expand("t", {on_edge}, 1, "");
        FAIL() << "an undecidable real-scale window was accepted";
    } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("exact fraction p/q"), std::string::npos) << error.what();
    }
    // the same layer with the exact scale decides the window: accepted
    EXPECT_NO_THROW(expand("t", {SuiteEntry("cc:n=1,cin=1,cout=1,in=8,scale=3/5,support=3,kernel=net", "bp")}, 1, ""));
    // a linear kernel with support 2 weighs the edge neighbour 0: bound mode is decided, probe is not
    EXPECT_NO_THROW(expand("t", {SuiteEntry("cc:n=1,cin=1,cout=1,in=9x7,scale=0.7071,support=2,kernel=linear", "b")}, 1, ""));
    EXPECT_THROW(expand("t", {SuiteEntry("cc:n=1,cin=1,cout=1,in=9x7,scale=0.7071,support=2,kernel=linear", "p")}, 1, ""),
                 std::invalid_argument);
}

}  // namespace
