// The one-output reference (convolution_output, read from the buffers in their own formats) gives,
// for every output, bit for bit what the whole reference gives (value, magnitude and terms): the
// large suite judges its samples with it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <vector>

#include "convcheck/reference/convolution.hpp"
#include "problem_data.hpp"
#include "convcheck/testing/random_descriptor.hpp"

using namespace convcheck;

RC_GTEST_PROP(ConvolutionOutput, EveryOutputIsTheWholeReferences, ()) {
    const auto d = *testgen::valid_descriptor();  // every dtype, data format and filter format
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    const auto p = testdata::make_problem(d, seed);
    const std::size_t e = static_cast<std::size_t>(size_of(d.dtype));
    std::vector<unsigned char> src(d.src_elements() * e), weights(d.weights_elements() * e),
        bias(d.bias_elements() * e + 1);
    reference::ncx_to_src(d, p.src, src.data());
    reference::oix_to_weights(d, p.weights, weights.data());
    for (std::int64_t o = 0; o < d.bias_elements(); ++o) store_from_double(bias.data(), d.dtype, o, p.bias[o]);
    const auto whole = reference::convolution(d, src.data(), weights.data(), d.has_bias ? bias.data() : nullptr);
    for (std::int64_t i = 0; i < d.dst_elements(); ++i) {
        const auto one = reference::convolution_output(d, src.data(), weights.data(), bias.data(), i);
        if (one.value != whole.dst[i] || one.magnitude != whole.magnitude[i] || one.terms != whole.terms[i])
            RC_FAIL("output " + std::to_string(i) + ": " + std::to_string(one.value) + " vs " +
                    std::to_string(whole.dst[i]) + "; " + testdata::repro(d, seed));
    }
}

TEST(ConvolutionOutput, ReadsNxcAndXioBuffersByHand) {
    // c=2, in=2, k=1, o=2: dst(o, x) = w(o,0) src(0,x) + w(o,1) src(1,x); NXC src [x][c], XIO weights [i][o]
    const auto d = parse_descriptor("c=2,o=2,in=2,k=1,data=nxc,wei=xio,bias=1");
    const std::vector<float> src{1, 2, 3, 4};      // src(c0,x0)=1 src(c1,x0)=2 src(c0,x1)=3 src(c1,x1)=4
    const std::vector<float> weights{1, 10, 100, 1000};  // w(o0,i0)=1 w(o1,i0)=10 w(o0,i1)=100 w(o1,i1)=1000
    const std::vector<float> bias{0.5f, -0.5f};
    // output NCX offset 3 is (o1, x1): 10 * 3 + 1000 * 4 - 0.5
    const auto r = reference::convolution_output(d, src.data(), weights.data(), bias.data(), 3);
    EXPECT_EQ(r.value, 4029.5);
    EXPECT_EQ(r.magnitude, 4030.5);
    EXPECT_EQ(r.terms, 3);
}
