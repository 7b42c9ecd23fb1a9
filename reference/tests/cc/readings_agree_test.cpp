// The two readings of the CC layer agree: the four blocks (Sec. 3.1) and Eq. 1 summed over every
// input pixel with K_theta zero outside the support.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/reference_tests/cc_fixtures.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;

namespace {

// Same terms, and values within the double-evaluation bound of the accuracy contract.
void expect_same(const ConvResult& a, const ConvResult& b, const std::string& repro) {
    ASSERT_EQ(a.dst.size(), b.dst.size()) << repro;
    for (std::size_t o = 0; o < a.dst.size(); ++o) {
        ASSERT_EQ(a.terms[o], b.terms[o]) << "output " << o << "; " << repro;
        ASSERT_LE(std::fabs(a.dst[o] - b.dst[o]), cctest::double_bound(a.magnitude[o], a.terms[o]))
            << "output " << o << ": " << a.dst[o] << " vs " << b.dst[o] << "; " << repro;
        ASSERT_NEAR(a.magnitude[o], b.magnitude[o], cctest::double_bound(a.magnitude[o], a.terms[o])) << repro;
    }
}

void check(const CcDescriptor& d, std::uint64_t seed) {
    const std::string repro = cctest::reproducer(d, seed);
    const auto src = cctest::uniform(d.src_elements(), seed);
    const auto bias = d.has_bias ? cctest::uniform(d.out_channels, seed + 1) : std::vector<double>{};
    const ContinuousKernel kernel = cctest::kernel_for(d, seed + 2);
    expect_same(cc_four_blocks(d, src, kernel, bias), cc_equation1(d, src, kernel, bias), repro);
}

}  // namespace

TEST(ReadingsAgree, NamedCases) {
    for (const char* text : {
             "cin=3,cout=8,in=12x12,scale=2/3x5/7,kernel=net",
             "cin=1,cout=1,in=4,scale=3/5x7/5,support=3",             // Fig. 4
             "cin=2,cout=2,in=9x7,scale=1/3x1/2,support=3x2",         // 1/int scales
             "cin=1,cout=2,in=5,scale=7/3,support=4,kernel=cubic",    // upscaling
             "n=2,cin=2,cout=1,in=6x5,scale=0.7071,kernel=gaussian,sigma=0.8,bias=1",
             "cin=1,cout=1,in=10,scale=1/2,out=7,support=5,kernel=linear",  // explicit out
             "cin=2,cout=3,in=3x8,scale=1x1,support=4,kernel=net,bias=1",   // even support at scale 1
         })
        for (std::uint64_t seed : {1u, 2u}) check(parse_cc_descriptor(text), seed);
}

RC_GTEST_PROP(ReadingsAgree, RandomDescriptors, ()) {
    const CcDescriptor d = *cctest::small_cc_descriptor(true);
    const std::uint64_t seed = *rc::gen::inRange<std::uint64_t>(0, 1000000);
    RC_LOG() << cctest::reproducer(d, seed);
    check(d, seed);
    RC_ASSERT(!::testing::Test::HasFailure());
}

RC_GTEST_PROP(ReadingsAgree, RealScaleMatchesTheExactScale, ()) {
    // the same layer with s = p/q exact and s = p/q in double: same terms, outputs within the bound
    CcDescriptor exact = *cctest::small_cc_descriptor(false);
    CcDescriptor real = exact;
    for (int a = 0; a < 2; ++a) {
        real.scale[a] = CcScale::real(exact.scale[a].rational().to_double());
        real.output_size[a] = exact.output_size[a];
    }
    const std::uint64_t seed = *rc::gen::inRange<std::uint64_t>(0, 1000000);
    RC_LOG() << cctest::reproducer(exact, seed) << " vs " << to_string(real);
    const auto src = cctest::uniform(exact.src_elements(), seed);
    const auto bias = exact.has_bias ? cctest::uniform(exact.out_channels, seed + 1) : std::vector<double>{};
    const ContinuousKernel kernel = cctest::kernel_for(exact, seed + 2);
    const ConvResult e = cc_four_blocks(exact, src, kernel, bias), r = cc_four_blocks(real, src, kernel, bias);
    for (std::size_t o = 0; o < e.dst.size(); ++o) {
        RC_ASSERT(e.terms[o] == r.terms[o]);
        // the distances differ by a few ulps of the grid; the kernels are Lipschitz with small constants
        RC_ASSERT(std::fabs(e.dst[o] - r.dst[o]) <= 1e-9 * std::max(1.0, e.magnitude[o]));
    }
}
