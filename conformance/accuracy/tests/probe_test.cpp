// Probe mode: the NaN set the reference produces is exactly the receptive field of the probed
// element (checked against the summation formula's index arithmetic), compare_probe counts leaks and
// misses, and the probe data keeps every weight away from zero.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>

#include "convcheck/reference/convolution.hpp"
#include "convcheck/accuracy/probe.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;
using namespace convcheck::accuracy;

namespace {

// Does output (n, oc, o...) read src element (n', c, x...)? Straight from oh*s - pb + kh*d = ih.
bool reads(const ConvDescriptor& d, std::int64_t out_flat, std::int64_t src_flat) {
    std::int64_t out_spatial = 1, in_spatial = 1;
    for (int a = 0; a < d.rank; ++a) out_spatial *= d.output_size(a), in_spatial *= d.input_size[a];
    const std::int64_t n = out_flat / (d.out_channels * out_spatial), oc = (out_flat / out_spatial) % d.out_channels;
    const std::int64_t sn = src_flat / (d.in_channels * in_spatial), c = (src_flat / in_spatial) % d.in_channels;
    if (n != sn || c / d.in_channels_per_group() != oc / d.out_channels_per_group()) return false;
    std::int64_t o = out_flat % out_spatial, x = src_flat % in_spatial;
    for (int a = d.rank - 1; a >= 0; --a) {
        const std::int64_t oa = o % d.output_size(a), xa = x % d.input_size[a];
        o /= d.output_size(a), x /= d.input_size[a];
        const std::int64_t offset = xa - (oa * d.strides[a] - d.pads_begin[a]);
        if (offset < 0 || offset % d.dilations[a] != 0 || offset / d.dilations[a] >= d.kernel_size[a]) return false;
    }
    return true;
}

}  // namespace

RC_GTEST_PROP(Probe, ReferenceNanSetIsTheReceptiveField, ()) {
    testgen::DescriptorLimits limits;
    limits.max_batch = 2;
    limits.max_extra_input = 4;
    const ConvDescriptor d = *testgen::valid_descriptor(limits);
    const std::uint64_t seed = *rc::gen::arbitrary<std::uint32_t>();
    const RandomFill f = make_probe_fill(d, seed);
    for (double w : f.weights) RC_ASSERT(std::fabs(w) >= 0.24);
    for (const std::int64_t e : probe_elements(d, seed, 1)) {
        std::vector<double> src = f.src;
        src[e] = std::numeric_limits<double>::quiet_NaN();
        const auto want = reference::convolution_summation(d, src, f.weights, f.bias);
        for (std::size_t i = 0; i < want.dst.size(); ++i)
            RC_ASSERT(std::isnan(want.dst[i]) == reads(d, static_cast<std::int64_t>(i), e));
    }
}

TEST(Probe, CompareCountsLeaksAndMisses) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> want{1.0, nan, nan, 2.0};
    EXPECT_TRUE(compare_probe(want, std::vector<double>{5.0, nan, nan, 7.0}).passed());
    const ProbeComparison p = compare_probe(want, std::vector<double>{nan, nan, 1.0, 2.0});
    EXPECT_EQ(p.expected, 2);
    EXPECT_EQ(p.leaked, 1);
    EXPECT_EQ(p.first_leaked, 0);
    EXPECT_EQ(p.missing, 1);
    EXPECT_EQ(p.first_missing, 2);
    EXPECT_FALSE(p.passed());
}

// Outputs a NaN may reach (a padded zero times NaN) are neither leaks nor misses when reached or not; a NaN
// the reference has there must still arrive, and every other output is judged as before.
TEST(Probe, MayReachExcusesOnlyTheOutputsItFlags) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> want{1.0, nan, 3.0, 2.0};
    const std::vector<char> may{0, 1, 1, 0};
    EXPECT_TRUE(compare_probe(want, std::vector<double>{1.0, nan, nan, 2.0}, may).passed());
    EXPECT_TRUE(compare_probe(want, std::vector<double>{1.0, nan, 3.0, 2.0}, may).passed());
    const ProbeComparison p = compare_probe(want, std::vector<double>{nan, 1.0, nan, nan}, may);
    EXPECT_EQ(p.leaked, 2);  // outputs 0 and 3
    EXPECT_EQ(p.missing, 1);  // output 1: the reference's NaN must arrive, flagged or not
    EXPECT_EQ(p.first_leaked, 0);
}

TEST(Probe, ElementsAreDistinctAndStartWithTheCorners) {
    const ConvDescriptor d = parse_descriptor("n=2,c=3,o=1,in=4x5,k=3x3");
    const auto e = probe_elements(d, 9, 5);
    ASSERT_EQ(e.size(), 7u);
    EXPECT_EQ(e[0], 0);
    EXPECT_EQ(e[1], d.src_elements() - 1);
    for (std::size_t i = 0; i < e.size(); ++i)
        for (std::size_t j = i + 1; j < e.size(); ++j) EXPECT_NE(e[i], e[j]);
    EXPECT_EQ(probe_elements(parse_descriptor("c=1,o=1,in=1,k=1"), 9, 3), std::vector<std::int64_t>{0});
}
