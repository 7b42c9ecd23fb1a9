// The plugins' adaptations (adaptation.hpp) are exact data movement: for any valid case and any
// library form, the reference run on the adapted case and the adapted buffers gives exactly the
// reference's result of the original case, and the dst returned to the runner's format is exactly
// the original's. Also: the adapted case is in the asked form (formats, rank, pads the rule
// allows) and nothing moves where the library takes the case as it is.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/adaptation/adaptation.hpp"
#include "convcheck/reference/backward.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;
namespace support = convcheck_plugin_support;

namespace {

struct Buffers {
    std::vector<std::byte> src, weights, bias;
};

// Small integers: every sum is exact in double, so any moved or lost element shows.
Buffers integer_buffers(const ConvDescriptor& d, std::uint32_t seed, std::vector<double>* src_ncx,
                        std::vector<double>* weights_oix, std::vector<double>* bias) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> value(-4, 4);
    src_ncx->resize(d.src_elements());
    weights_oix->resize(d.weights_elements());
    bias->resize(d.bias_elements());
    for (double& v : *src_ncx) v = value(rng);
    for (double& v : *weights_oix) v = value(rng);
    for (double& v : *bias) v = value(rng);
    const int bytes = size_of(d.dtype);
    Buffers b{std::vector<std::byte>(d.src_elements() * bytes), std::vector<std::byte>(d.weights_elements() * bytes),
              std::vector<std::byte>(std::max<std::int64_t>(1, d.bias_elements()) * bytes)};
    reference::ncx_to_src(d, *src_ncx, b.src.data());
    reference::oix_to_weights(d, *weights_oix, b.weights.data());
    for (std::int64_t o = 0; o < d.bias_elements(); ++o) store_from_double(b.bias.data(), d.dtype, o, (*bias)[o]);
    return b;
}

bool pads_obey(const convcheck_conv_desc& l, support::PadsRule rule) {
    for (int a = 0; a < l.rank; ++a) {
        const std::int64_t pb = l.pads_begin[a], pe = l.pads_end[a];
        switch (rule) {
            case support::PadsRule::any: break;
            case support::PadsRule::nonnegative:
                if (pb < 0 || pe < 0) return false;
                break;
            case support::PadsRule::onednn:
                if (pb < 0 || pe + l.strides[a] <= 0) return false;
                break;
            case support::PadsRule::symmetric_nonnegative:
                if (pb < 0 || pb != pe) return false;
                break;
        }
    }
    return true;
}

// Runs d through adaptation to `form` and checks the result against the original, exactly:
// "" when it holds, else what broke and the reproducer.
std::string check_adaptation(const ConvDescriptor& d, const support::LibraryForm& form, std::uint32_t seed) {
    const std::string repro = to_string(d) + " seed " + std::to_string(seed) + " form data=" +
                              std::to_string(form.data_format) + " wei=" + std::to_string(form.filter_format) +
                              " rank1_as_rank2=" + std::to_string(form.rank1_as_rank2) +
                              " depth_as_batch=" + std::to_string(form.depth_as_batch) +
                              " pads=" + std::to_string(static_cast<int>(form.pads));
    std::vector<double> src, weights, bias;
    const Buffers in = integer_buffers(d, seed, &src, &weights, &bias);
    const auto want = reference::convolution_summation(d, src, weights, bias);

    const convcheck_conv_desc a = runner::to_abi(d);
    const support::Adaptation plan = support::plan_adaptation(a, form);
    const convcheck_conv_desc l = support::library_desc(a, plan);
    if (l.data_format != form.data_format || l.filter_format != form.filter_format)
        return "the library's formats are not the asked ones: " + repro;
    const bool folds = form.depth_as_batch && form.data_format == CONVCHECK_NXC && d.rank == 3 && d.kernel_size[0] == 1;
    if (plan.depth_as_batch != folds) return "the depth fold is planned wrongly: " + repro;
    if (l.rank != ((form.rank1_as_rank2 && d.rank == 1) || folds ? 2 : d.rank)) return "the library's rank is wrong: " + repro;
    if (!pads_obey(l, form.pads)) return "the library's pads break its rule: " + repro;
    const ConvDescriptor ld = runner::from_abi(l);
    try {
        validate(ld);
    } catch (const ConvError& e) {
        return std::string("the adapted case is invalid (") + e.what() + "): " + repro;
    }
    if (ld.dst_elements() != d.dst_elements()) return "the adapted case has another output size: " + repro;
    // The original's result in the library's NCX order: with the depth fold, [N][OD][O][OH][OW].
    std::vector<double> want_library = want.dst;
    if (folds) {
        const std::int64_t N = d.batch, O = d.out_channels, OD = d.output_size(0), X = d.dst_elements() / (N * O * OD);
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t o = 0; o < O; ++o)
                for (std::int64_t od = 0; od < OD; ++od)
                    for (std::int64_t x = 0; x < X; ++x)
                        want_library[((n * OD + od) * O + o) * X + x] = want.dst[((n * O + o) * OD + od) * X + x];
    }

    const int bytes = size_of(d.dtype);
    std::vector<std::byte> dst(d.dst_elements() * bytes + 1, std::byte{0x5a});
    convcheck_conv_args args{};
    args.struct_size = sizeof(args);
    args.src = in.src.data();
    args.weights = in.weights.data();
    args.bias = d.has_bias ? in.bias.data() : nullptr;
    args.dst = dst.data();
    support::LibraryBuffers library(a, plan, args);
    // What the library computes on the adapted case (the reference standing in for it).
    const auto got = reference::convolution(ld, library.src(), library.weights(), d.has_bias ? library.bias() : nullptr);
    if (got.dst.size() != want.dst.size()) return "the adapted case has another output size: " + repro;
    for (std::size_t i = 0; i < want.dst.size(); ++i)
        if (got.dst[i] != want_library[i])
            return "output " + std::to_string(i) + " (flat NCX of the library's case): adapted " + std::to_string(got.dst[i]) +
                   ", original " + std::to_string(want_library[i]) + ": " + repro;
    // The library writes its dst in its own format; the runner reads it back in the case's format.
    reference::round_dst_to_output(ld, got.dst, library.dst());
    library.return_dst();
    if (dst.back() != std::byte{0x5a}) return "written past the runner's dst: " + repro;
    std::vector<std::byte> expected(d.dst_elements() * bytes);
    reference::round_dst_to_output(d, want.dst, expected.data());
    if (std::memcmp(expected.data(), dst.data(), expected.size()) != 0) return "dst returned wrong: " + repro;
    return "";
}

// The backward passes through the same adaptation (LibraryBuffers with a backward descriptor):
// the reference's backward pass on the adapted case and buffers, its gradient returned with
// return_gradients, is byte for byte the reference's gradient of the original case (integer data:
// every sum exact). diff_src elements a crop removed come back as exact zeros.
std::string check_backward_adaptation(ConvDescriptor d, Pass pass, const support::LibraryForm& form, std::uint32_t seed) {
    d.pass = pass;
    const std::string repro = to_string(d) + " seed " + std::to_string(seed) + " form data=" +
                              std::to_string(form.data_format) + " wei=" + std::to_string(form.filter_format) +
                              " rank1_as_rank2=" + std::to_string(form.rank1_as_rank2) +
                              " pads=" + std::to_string(static_cast<int>(form.pads));
    std::vector<double> src, weights, bias;
    const Buffers in = integer_buffers(d, seed, &src, &weights, &bias);
    std::vector<double> diff_dst(d.dst_elements());
    for (std::size_t i = 0; i < diff_dst.size(); ++i) diff_dst[i] = static_cast<double>((i * 7 + seed) % 9) - 4;
    const int bytes = size_of(d.dtype);
    std::vector<std::byte> diff_dst_buffer(d.dst_elements() * bytes);
    reference::round_dst_to_output(d, diff_dst, diff_dst_buffer.data());

    const convcheck_conv_desc a = runner::to_abi(d);
    const support::Adaptation plan = support::plan_adaptation(a, form);
    const ConvDescriptor ld = runner::from_abi(support::library_desc(a, plan));
    const std::int64_t outputs = pass == Pass::backward_data ? d.src_elements() : d.weights_elements();
    std::vector<std::byte> got(outputs * bytes + 1, std::byte{0x5a}), want(outputs * bytes);
    std::vector<std::byte> got_bias(d.out_channels * bytes + 1, std::byte{0x5a}), want_bias(d.out_channels * bytes);
    convcheck_conv_args args{};
    args.struct_size = sizeof(args);
    args.dst = diff_dst_buffer.data();
    if (pass == Pass::backward_data) {
        args.weights = in.weights.data();
        args.diff_src = got.data();
    } else {
        args.src = in.src.data();
        args.diff_weights = got.data();
        args.diff_bias = d.has_bias ? got_bias.data() : nullptr;
    }
    support::LibraryBuffers library(a, plan, args);
    if (pass == Pass::backward_data) {
        reference::ncx_to_src(d, reference::backward_data(d, diff_dst_buffer.data(), in.weights.data()).values, want.data());
        reference::ncx_to_src(ld, reference::backward_data(ld, library.dst(), library.weights()).values, library.diff_src());
    } else {
        reference::GradientResult want_b, got_b;
        reference::oix_to_weights(
            d, reference::backward_weights(d, in.src.data(), diff_dst_buffer.data(), d.has_bias ? &want_b : nullptr).values,
            want.data());
        reference::oix_to_weights(
            ld, reference::backward_weights(ld, library.src(), library.dst(), d.has_bias ? &got_b : nullptr).values,
            library.diff_weights());
        if (d.has_bias) {
            reference::round_bias_to_output(d, want_b.values, want_bias.data());
            reference::round_bias_to_output(ld, got_b.values, library.diff_bias());
            if (std::memcmp(want_bias.data(), got_bias.data(), want_bias.size()) != 0) return "diff_bias returned wrong: " + repro;
        }
    }
    library.return_gradients();
    if (got.back() != std::byte{0x5a}) return "written past the runner's gradient: " + repro;
    if (std::memcmp(want.data(), got.data(), want.size()) != 0) return "the gradient returned wrong: " + repro;
    return "";
}

rc::Gen<support::LibraryForm> any_form() {
    return rc::gen::exec([] {
        support::LibraryForm form;
        form.data_format = *rc::gen::element<std::int32_t>(CONVCHECK_NCX, CONVCHECK_NXC);
        form.filter_format = *rc::gen::element<std::int32_t>(CONVCHECK_OIX, CONVCHECK_XIO);
        form.rank1_as_rank2 = *rc::gen::arbitrary<bool>();
        form.depth_as_batch = *rc::gen::arbitrary<bool>();
        form.pads = *rc::gen::element(support::PadsRule::any, support::PadsRule::nonnegative, support::PadsRule::onednn,
                                      support::PadsRule::symmetric_nonnegative);
        return form;
    });
}

testgen::DescriptorLimits small() {
    testgen::DescriptorLimits lim;
    lim.max_batch = 2;
    lim.max_channels_per_group = 3;
    lim.max_groups = 3;
    return lim;
}

}  // namespace

RC_GTEST_PROP(Adaptation, AnAdaptedCaseComputesExactlyTheOriginal, ()) {
    const ConvDescriptor d = *testgen::valid_descriptor(small());
    const std::string failure = check_adaptation(d, *any_form(), *rc::gen::arbitrary<std::uint32_t>());
    if (!failure.empty()) RC_FAIL(failure);
}

// Backward data and backward weights through every form but the depth fold (which has no
// backward: LibraryBuffers refuses it).
RC_GTEST_PROP(Adaptation, AnAdaptedBackwardCaseComputesExactlyTheOriginal, ()) {
    const ConvDescriptor d = *testgen::valid_descriptor(small());
    support::LibraryForm form = *any_form();
    form.depth_as_batch = false;
    const Pass pass = *rc::gen::element(Pass::backward_data, Pass::backward_weights);
    const std::string failure = check_backward_adaptation(d, pass, form, *rc::gen::arbitrary<std::uint32_t>());
    if (!failure.empty()) RC_FAIL(failure);
}

// The depth fold only applies to 3-D cases of kernel depth 1 in an NXC library: drawn on its own.
RC_GTEST_PROP(Adaptation, TheDepthFoldComputesExactlyTheOriginal, ()) {
    testgen::DescriptorLimits lim = small();
    lim.min_rank = lim.max_rank = 3;
    ConvDescriptor d = *testgen::valid_descriptor(lim);
    d.kernel_size[0] = 1;  // still valid: the input covered the deeper kernel
    support::LibraryForm form = *any_form();
    form.data_format = CONVCHECK_NXC;
    form.depth_as_batch = true;
    const std::string failure = check_adaptation(d, form, *rc::gen::arbitrary<std::uint32_t>());
    if (!failure.empty()) RC_FAIL(failure);
}

// Each adaptation alone, on a case that needs it, so that a broken one fails by name.
TEST(Adaptation, EachAdaptationAloneIsExact) {
    struct Example {
        const char* descriptor;
        support::LibraryForm form;
        const char* note;
    };
    const support::LibraryForm as_is_nxc{CONVCHECK_NXC, CONVCHECK_OIX, false, false, support::PadsRule::any};
    const std::vector<Example> examples = {
        {"conv:n=2,c=3,o=4,in=5x4,k=3x2,pb=1x0,pe=1x1,bias=1,data=ncx", as_is_nxc, " [reordered ncx->nxc]"},
        {"conv:n=2,c=3,o=4,in=5x4,k=3x2,data=nxc", {CONVCHECK_NCX, CONVCHECK_OIX, false, false, support::PadsRule::any},
         " [reordered nxc->ncx]"},
        {"conv:c=4,o=6,g=2,in=5x4,k=3x2,wei=xio", {CONVCHECK_NCX, CONVCHECK_OIX, false, false, support::PadsRule::any},
         " [reordered xio->oix]"},
        {"conv:c=4,o=6,g=2,in=5x4,k=3x2,wei=oix", {CONVCHECK_NCX, CONVCHECK_XIO, false, false, support::PadsRule::any},
         " [reordered oix->xio]"},
        {"conv:c=2,o=3,in=9,k=3,s=2,d=2,pb=2,pe=1,data=nxc", {CONVCHECK_NXC, CONVCHECK_OIX, true, false, support::PadsRule::any},
         " [rank1->2]"},
        {"conv:c=2,o=2,in=7x7,k=3x3,pb=-1x0,pe=0x-2", {CONVCHECK_NCX, CONVCHECK_OIX, false, false, support::PadsRule::nonnegative},
         " [cropped]"},
        {"conv:c=2,o=2,in=6x7,k=3x3,pb=0x2,pe=2x1", {CONVCHECK_NCX, CONVCHECK_OIX, false, false, support::PadsRule::symmetric_nonnegative},
         " [zero-padded]"},
        {"conv:c=2,o=2,in=1x5,k=1x3,s=1x2,pb=3x1,pe=-2x1", {CONVCHECK_NCX, CONVCHECK_OIX, false, false, support::PadsRule::onednn},
         " [cropped, zero-padded]"},
        {"conv:n=2,c=2,o=3,in=7x4x5,k=1x3x2,s=2x1x1,d=3x1x2,pb=2x1x0,pe=-1x1x0,bias=1,data=ncx",
         {CONVCHECK_NXC, CONVCHECK_OIX, false, true, support::PadsRule::nonnegative}, " [reordered ncx->nxc, depth->batch]"},
    };
    for (const Example& e : examples) {
        const ConvDescriptor d = parse_descriptor(e.descriptor);
        const convcheck_conv_desc a = runner::to_abi(d);
        EXPECT_EQ(support::adaptation_note(a, support::plan_adaptation(a, e.form)), e.note) << e.descriptor;
        for (std::uint32_t seed : {1u, 2u, 3u}) EXPECT_EQ(check_adaptation(d, e.form, seed), "");
    }
}

TEST(Adaptation, NothingMovesWhereTheLibraryTakesTheCaseAsItIs) {
    const ConvDescriptor d = parse_descriptor("conv:c=3,o=2,in=6,k=3,pb=-1,pe=2,data=nxc,wei=xio,bias=1");
    const convcheck_conv_desc a = runner::to_abi(d);
    const support::Adaptation plan = support::plan_adaptation(a, {CONVCHECK_NXC, CONVCHECK_XIO, false, false, support::PadsRule::any});
    EXPECT_EQ(support::adaptation_note(a, plan), "");
    std::vector<float> src(d.src_elements()), weights(d.weights_elements()), bias(3), dst(d.dst_elements());
    convcheck_conv_args args{};
    args.struct_size = sizeof(args);
    args.src = src.data();
    args.weights = weights.data();
    args.bias = bias.data();
    args.dst = dst.data();
    support::LibraryBuffers library(a, plan, args);
    EXPECT_EQ(library.src(), src.data());
    EXPECT_EQ(library.weights(), weights.data());
    EXPECT_EQ(library.dst(), dst.data());
}

// oneDNN keeps its own negative padding_r where padding_r + stride > 0 (its native path): only
// what its rule refuses is cropped.
TEST(Adaptation, TheOnednnRuleCropsOnlyWhatOnednnRefuses) {
    const convcheck_conv_desc a = runner::to_abi(parse_descriptor("conv:c=1,o=1,in=9x9,k=3x3,s=2x1,pb=1x-1,pe=-1x-1"));
    const support::Adaptation plan = support::plan_adaptation(a, {CONVCHECK_NCX, CONVCHECK_OIX, false, false, support::PadsRule::onednn});
    EXPECT_EQ(plan.moved_begin[0], 0);
    EXPECT_EQ(plan.moved_end[0], 0);   // -1 + 2 > 0: oneDNN's own
    EXPECT_EQ(plan.moved_begin[1], -1);  // padding_l < 0
    EXPECT_EQ(plan.moved_end[1], -1);    // -1 + 1 = 0
}
