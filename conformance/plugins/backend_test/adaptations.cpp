// What a plugin must run because its library computes it: a plugin adapts exact data movement
// (conformance/plugins/common/adaptation.hpp: reorders, rank 1 as rank 2, crops, explicit zeros)
// and declines only what the library itself cannot compute. Every bundled library computes f32
// 2-D convolution, so every f32 case of rank 1 or 2 in the table, in every data and filter
// format, must run; a plugin that stops adapting one of them fails here by name. (That the adapted
// cases compute the right result is what the table cases check, in backend_test.cpp.)
#include <gtest/gtest.h>

#include <string>

#include "cases.hpp"
#include "harness.hpp"

namespace convcheck::backend_test {
namespace {

TEST(Adaptations, EveryF32CaseOfRank1And2RunsInEveryFormat) {
    int checked = 0;
    for (const Case& c : all_cases()) {
        if (c.descriptor.dtype != DataType::f32 || c.descriptor.rank == 3) continue;
        ++checked;
        EXPECT_EQ(query(c.descriptor), "") << c.name << ": declined; reproduce: " << reproducer(c.descriptor, 1, accuracy::Mode::exact);
    }
    EXPECT_GT(checked, 0);
}

// XNNPACK has no 3-D convolution: it runs a 3-D case only when the kernel depth is 1 (as 2-D with
// the depth folded into the batch) and declines the rest in its words. The other libraries compute
// f32 3-D.
TEST(Adaptations, EveryF32CaseOfRank3RunsWhereTheLibraryHas3D) {
    const bool xnnpack = plugin->info().name == "xnnpack";
    for (const Case& c : all_cases()) {
        if (c.descriptor.dtype != DataType::f32 || c.descriptor.rank != 3) continue;
        const std::string declined = query(c.descriptor);
        if (xnnpack && c.descriptor.kernel_size[0] != 1)
            EXPECT_NE(declined.find("XNNPACK has no 3-D convolution"), std::string::npos) << c.name << ": " << declined;
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
