// What a plugin must run because its library computes it: a plugin adapts exact data movement
// (conformance/plugins/common/include/convcheck/adaptation/adaptation.hpp: reorders, rank 1 as rank 2, crops, explicit zeros)
// and declines only what the library itself cannot compute. Every bundled library computes f32
// 2-D convolution, so every f32 case of rank 1 or 2 in the table, in every data and filter
// format, must run; a plugin that stops adapting one of them fails here by name. (That the adapted
// cases compute the right result is what the table cases check, in backend_test.cpp.) Arm NN 20.08
// alone has no grouped convolution beyond depthwise (groups = C): it declines those in its words.
#include <gtest/gtest.h>

#include <string>

#include "cases.hpp"
#include "harness.hpp"

namespace convcheck::backend_test {
namespace {

// A grouped case that is not depthwise, for Arm NN (Convolution2dDescriptor has no groups).
bool lacks_grouped_convolution(const ConvDescriptor& d) {
    return std::string(plugin->info().name) == "armnn" && d.groups > 1 && d.groups != d.in_channels;
}

TEST(Adaptations, EveryF32CaseOfRank1And2RunsInEveryFormat) {
    int checked = 0;
    for (const Case& c : all_cases()) {
        if (c.descriptor.dtype != DataType::f32 || c.descriptor.rank == 3) continue;
        ++checked;
        const std::string declined = query(c.descriptor);
        if (lacks_grouped_convolution(c.descriptor))
            EXPECT_NE(declined.find("Arm NN 20.08 has no grouped convolution"), std::string::npos) << c.name << ": " << declined;
        else
            EXPECT_EQ(declined, "") << c.name << ": declined; reproduce: " << reproducer(c.descriptor, 1, accuracy::Mode::exact);
    }
    EXPECT_GT(checked, 0);
}

// XNNPACK and Arm NN 20.08 have no 3-D convolution: they run a 3-D case only when the kernel depth is
// 1 (as 2-D with the depth folded into the batch) and decline the rest in their words. The other
// libraries compute f32 3-D.
TEST(Adaptations, EveryF32CaseOfRank3RunsWhereTheLibraryHas3D) {
    const std::string name = plugin->info().name;
    const std::string no_3d = name == "xnnpack" ? "XNNPACK has no 3-D convolution"
                              : name == "armnn" ? "Arm NN 20.08 has no 3-D convolution"
                                                : "";
    for (const Case& c : all_cases()) {
        if (c.descriptor.dtype != DataType::f32 || c.descriptor.rank != 3) continue;
        const std::string declined = query(c.descriptor);
        if (lacks_grouped_convolution(c.descriptor) && declined.find("has no 3-D") == std::string::npos)
            EXPECT_NE(declined.find("Arm NN 20.08 has no grouped convolution"), std::string::npos) << c.name << ": " << declined;
        else if (!no_3d.empty() && c.descriptor.kernel_size[0] != 1)
            EXPECT_NE(declined.find(no_3d), std::string::npos) << c.name << ": " << declined;
        else
            EXPECT_EQ(declined, "") << c.name << ": declined; reproduce: " << reproducer(c.descriptor, 1, accuracy::Mode::exact);
    }
}

// No library here takes a negative pads_begin: each crops, and says so in the implementation string.
TEST(Adaptations, TheImplementationNamesTheAdaptationThatRan) {
    for (const char* text : {"conv:c=2,o=2,in=7x7,k=3x3,pb=-1x0,pe=0x0", "conv:c=2,o=2,in=7,k=3,pb=-1,pe=0,data=nxc"}) {
        const ConvDescriptor d = parse_descriptor(text);
        const accuracy::ExactFill f = accuracy::make_exact_fill(d, contract_for(d), 1);
        const Outcome got = execute(d, f.src, f.weights, f.bias);
        EXPECT_NE(got.implementation.find("cropped"), std::string::npos) << text << ": " << got.implementation;
    }
}

}  // namespace
}  // namespace convcheck::backend_test
