// The steps a VPDPBUSD tile skips (quantized_vnni.hpp, vnni_step_classes): each output pixel's class holds the steps
// whose taps read the input, every other step lying wholly in the padding. Checked on the layers whose borders cost
// most (res5_3x3's 7 x 7 plane, conv1's kernel rows), a window wholly in the padding, and a layer without padding.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "convcheck/core/quantized_descriptor.hpp"
#include "quantized_vnni.hpp"

using namespace convcheck;
using optimized::detail::QuantizedGeometry;
using optimized::detail::StepClasses;
using optimized::detail::vnni_step_classes;
using Steps = std::vector<std::int64_t>;

namespace {

// The steps of output pixel (y1, y2) of a 2-d layer
Steps steps_of(const StepClasses& c, const QuantizedGeometry& g, std::int64_t y1, std::int64_t y2) {
    return c.steps[c.class_of[static_cast<std::size_t>(y1 * g.out[2] + y2)]];
}

}  // namespace

TEST(VnniStepClasses, ThreeByThreeBordersSkipThePaddingTaps) {
    const QuantizedGeometry g(parse_quantized_descriptor("qconv:c=512,o=512,in=7x7,k=3x3,pb=1x1,pe=1x1,data=nxc,wei=xio,dt=u8:s8:u8"));
    const StepClasses c = vnni_step_classes(g, false);
    ASSERT_EQ(c.steps.size(), 9u);  // corners, edges, interior
    EXPECT_EQ(steps_of(c, g, 0, 0), (Steps{4, 5, 7, 8}));
    EXPECT_EQ(steps_of(c, g, 0, 3), (Steps{3, 4, 5, 6, 7, 8}));
    EXPECT_EQ(steps_of(c, g, 3, 6), (Steps{0, 1, 3, 4, 6, 7}));
    EXPECT_EQ(steps_of(c, g, 6, 6), (Steps{0, 1, 3, 4}));
    EXPECT_EQ(steps_of(c, g, 3, 3), (Steps{0, 1, 2, 3, 4, 5, 6, 7, 8}));
    std::int64_t interior = 0;
    for (std::uint16_t k : c.class_of) interior += c.steps[k].size() == 9 ? 1 : 0;
    EXPECT_EQ(interior, 25);
}

TEST(VnniStepClasses, RowRunsSkipWholeKernelRows) {
    // conv1: kernel rows of 7 taps x 3 channels, stride 2, pads of 3: output row 0 reads input rows -3 .. 3
    const QuantizedGeometry g(parse_quantized_descriptor("qconv:c=3,o=64,in=224x224,k=7x7,s=2x2,pb=3x3,pe=3x3,data=nxc,wei=xio,dt=u8:s8:u8"));
    const StepClasses c = vnni_step_classes(g, true);
    ASSERT_EQ(c.steps.size(), 4u);  // rows 0, 1, 111 and the rest; a row's columns never split it
    EXPECT_EQ(steps_of(c, g, 0, 0), (Steps{3, 4, 5, 6}));
    EXPECT_EQ(steps_of(c, g, 0, 50), (Steps{3, 4, 5, 6}));
    EXPECT_EQ(steps_of(c, g, 1, 0), (Steps{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(steps_of(c, g, 2, 111), (Steps{0, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(steps_of(c, g, 111, 7), (Steps{0, 1, 2, 3, 4}));
}

TEST(VnniStepClasses, AWindowWhollyInThePaddingTakesNoStep) {
    const QuantizedGeometry g(parse_quantized_descriptor("qconv:c=8,o=16,in=3x3,k=3x3,pb=3x3,pe=3x3,data=nxc,wei=xio,dt=u8:s8:u8"));
    const StepClasses c = vnni_step_classes(g, false);
    EXPECT_EQ(steps_of(c, g, 0, 0), Steps{});
    EXPECT_EQ(steps_of(c, g, 3, 3), (Steps{0, 1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(VnniStepClasses, NoneWithoutPadding) {
    for (const char* text : {"qconv:c=64,o=256,in=56x56,k=1x1,data=nxc,wei=xio,dt=u8:s8:u8",
                             "qconv:c=64,o=64,in=9x9,k=3x3,data=nxc,wei=xio,dt=u8:s8:u8",
                             "qconv:c=16,o=16,in=9x9,k=3x3,s=2x2,pb=-1x-1,pe=0x0,data=nxc,wei=xio,dt=u8:s8:u8"}) {
        const StepClasses c = vnni_step_classes(QuantizedGeometry(parse_quantized_descriptor(text)), false);
        EXPECT_TRUE(c.steps.empty() && c.class_of.empty()) << text;
    }
}
