// Reading 2 (the OpenVINO "as if" process) against reading 1 (the oneDNN summation) and against
// the output-size formula.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/reference/as_if.hpp"
#include "convcheck/reference/convolution.hpp"
#include "problem_data.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;

namespace {

// Sizes keep reading 2 (which multiplies every stuffed zero) fast: 3-D gets short kernels.
testgen::DescriptorLimits limits_for_rank(int rank) {
    testgen::DescriptorLimits lim;
    lim.min_rank = lim.max_rank = rank;
    lim.max_batch = 2;
    if (rank == 3) {
        lim.max_kernel = 3;
        lim.max_dilation = 2;
        lim.max_extra_input = 4;
        lim.max_channels_per_group = 2;
        lim.max_groups = 3;
    }
    return lim;
}

std::vector<std::int64_t> formula_dims(const ConvDescriptor& d) {
    std::vector<std::int64_t> dims{d.batch, d.out_channels};
    for (int a = 0; a < d.rank; ++a) dims.push_back(d.output_size(a));
    return dims;
}

void expect_readings_agree(const ConvDescriptor& d, std::uint64_t seed) {
    const auto p = testdata::make_problem(d, seed);
    const auto summation = reference::convolution_summation(d, p.src, p.weights, p.bias);
    const auto as_if = reference::convolution_as_if(d, p.src, p.weights, p.bias);
    RC_ASSERT(as_if.dst_dims == formula_dims(d));
    RC_ASSERT(as_if.dst.size() == summation.dst.size());
    for (std::size_t i = 0; i < as_if.dst.size(); ++i) {
        if (as_if.dst[i] != summation.dst[i])
            RC_FAIL("output " + std::to_string(i) + ": as-if " + std::to_string(as_if.dst[i]) + " != summation " +
                    std::to_string(summation.dst[i]) + "; " + testdata::repro(d, seed));
    }
}

}  // namespace

// Exact equality: integer data, double arithmetic, every partial sum exact. 10 problems per case,
// 100 cases per rank.
RC_GTEST_PROP(AsIf, AgreesWithTheSummationOnRank1, ()) {
    const auto problems =
        *rc::gen::container<std::vector<ConvDescriptor>>(10, testgen::valid_descriptor(limits_for_rank(1)));
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    for (const auto& d : problems) expect_readings_agree(d, seed);
}

RC_GTEST_PROP(AsIf, AgreesWithTheSummationOnRank2, ()) {
    const auto problems =
        *rc::gen::container<std::vector<ConvDescriptor>>(10, testgen::valid_descriptor(limits_for_rank(2)));
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    for (const auto& d : problems) expect_readings_agree(d, seed);
}

RC_GTEST_PROP(AsIf, AgreesWithTheSummationOnRank3, ()) {
    const auto problems =
        *rc::gen::container<std::vector<ConvDescriptor>>(10, testgen::valid_descriptor(limits_for_rank(3)));
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    for (const auto& d : problems) expect_readings_agree(d, seed);
}

// The formula floor((p_b + p_e + X_I - d(X_K-1) - 1) / s) + 1 (ConvDescriptor::output_size) against
// the shape that the as-if process leaves over, 25 descriptors per case, 100 cases per rank.
RC_GTEST_PROP(AsIf, OutputShapeFormulaMatchesTheProcess, ()) {
    const int rank = *rc::gen::inRange(1, 4);
    auto lim = limits_for_rank(rank);
    lim.max_batch = 1;
    lim.max_channels_per_group = 1;
    lim.max_stride = 5;
    lim.min_pad = -4;
    lim.max_pad = 6;
    const auto descriptors = *rc::gen::container<std::vector<ConvDescriptor>>(25, testgen::valid_descriptor(lim));
    for (const auto& d : descriptors) {
        const auto p = testdata::make_problem(d, 1);
        const auto as_if = reference::convolution_as_if(d, p.src, p.weights, p.bias);
        if (as_if.dst_dims != formula_dims(d)) RC_FAIL("shape differs; " + testdata::repro(d, 1));
    }
}

TEST(AsIf, RejectsWrongBufferSizes) {
    const auto d = parse_descriptor("c=2,o=2,in=4,k=3");
    std::vector<double> src(8), weights(11);  // 12 weights are needed
    EXPECT_THROW(reference::convolution_as_if(d, src, weights, {}), ConvError);
}
