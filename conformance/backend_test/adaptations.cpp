// What a plugin must run because it claims it: a case in a dtype, rank and format the plugin's
// describe claims is one its query must accept, unless its library cannot compute that geometry
// (the bundled plugins adapt exact data movement instead of declining it:
// conformance/plugins/common/include/convcheck/adaptation/adaptation.hpp: reorders, rank 1 as rank 2,
// crops, explicit zeros). Every f32 case of rank 1 or 2 in the table must run in each data and filter
// format the plugin claims; a format it does not claim is skipped, the skip naming it (the plugin
// template, an NCX/OIX direct loop, rightly declines NXC and XIO). A bundled plugin that stops adapting
// a format it claims fails here by name. (That the cases compute the right result is what the table
// cases check, in backend_test.cpp.) Arm NN 20.08 alone has no grouped convolution beyond depthwise
// (groups = C): it declines those in its words.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "cases.hpp"
#include "harness.hpp"

namespace convcheck::backend_test {
namespace {

// A grouped case that is not depthwise, for Arm NN (Convolution2dDescriptor has no groups).
bool lacks_grouped_convolution(const ConvDescriptor& d) {
    return std::string(plugin->info().name) == "armnn" && d.groups > 1 && d.groups != d.in_channels;
}

struct Formats {
    DataFormat data;
    FilterFormat filter;
};

std::string name_of(const Formats& f) { return std::string(to_string(f.data)) + "_" + std::string(to_string(f.filter)); }

// The table's f32 cases in formats f whose rank `rank_selected` accepts, split into those the plugin
// claims and the reasons it does not claim the others.
struct Selection {
    std::vector<Case> claimed;
    std::set<std::string> not_claimed;  // the runner's words: "the plugin does not claim data format nxc"
};

template <typename RankSelected>
Selection select(const Formats& f, RankSelected rank_selected) {
    Selection s;
    for (const Case& c : all_cases()) {
        const ConvDescriptor& d = c.descriptor;
        if (d.dtype != DataType::f32 || d.data_format != f.data || d.filter_format != f.filter || !rank_selected(d.rank))
            continue;
        const std::string why = unclaimed(plugin->info(), d);
        if (why.empty()) s.claimed.push_back(c);
        else s.not_claimed.insert(why);
    }
    return s;
}

std::string joined(const std::set<std::string>& reasons) {
    std::string text;
    for (const std::string& r : reasons) text += (text.empty() ? "" : "; ") + r;
    return text;
}

// Skips the test when the plugin claims none of the selection; else notes what it leaves out.
#define SKIP_UNLESS_CLAIMED(selection, what)                                                                     \
    do {                                                                                                         \
        if ((selection).claimed.empty())                                                                         \
            GTEST_SKIP() << (what) << ": not claimed (" << joined((selection).not_claimed) << "): not checked";  \
        if (!(selection).not_claimed.empty())                                                                    \
            RecordProperty("not_claimed", joined((selection).not_claimed));                                      \
    } while (0)

// One instance per data and filter format of the table: Table/FormatAdaptations.<test>/<data>_<filter>.
class FormatAdaptations : public ::testing::TestWithParam<Formats> {};

TEST_P(FormatAdaptations, EveryF32CaseOfRank1And2Runs) {
    const Selection s = select(GetParam(), [](int rank) { return rank != 3; });
    SKIP_UNLESS_CLAIMED(s, "the f32 cases of rank 1 and 2 in " + name_of(GetParam()));
    for (const Case& c : s.claimed) {
        const std::string declined = query(c.descriptor);
        if (lacks_grouped_convolution(c.descriptor))
            EXPECT_NE(declined.find("Arm NN 20.08 has no grouped convolution"), std::string::npos) << c.name << ": " << declined;
        else
            EXPECT_EQ(declined, "") << c.name << ": declined; reproduce: " << reproducer(c.descriptor, 1, accuracy::Mode::exact);
    }
}

// XNNPACK and Arm NN 20.08 have no 3-D convolution: they run a 3-D case only when the kernel depth is
// 1 (as 2-D with the depth folded into the batch) and decline the rest in their words. The other
// libraries compute f32 3-D.
TEST_P(FormatAdaptations, EveryF32CaseOfRank3RunsWhereTheLibraryHas3D) {
    const Selection s = select(GetParam(), [](int rank) { return rank == 3; });
    SKIP_UNLESS_CLAIMED(s, "the f32 cases of rank 3 in " + name_of(GetParam()));
    const std::string name = plugin->info().name;
    const std::string no_3d = name == "xnnpack" ? "XNNPACK has no 3-D convolution"
                              : name == "armnn" ? "Arm NN 20.08 has no 3-D convolution"
                                                : "";
    for (const Case& c : s.claimed) {
        const std::string declined = query(c.descriptor);
        if (lacks_grouped_convolution(c.descriptor) && declined.find("has no 3-D") == std::string::npos)
            EXPECT_NE(declined.find("Arm NN 20.08 has no grouped convolution"), std::string::npos) << c.name << ": " << declined;
        else if (!no_3d.empty() && c.descriptor.kernel_size[0] != 1)
            EXPECT_NE(declined.find(no_3d), std::string::npos) << c.name << ": " << declined;
        else
            EXPECT_EQ(declined, "") << c.name << ": declined; reproduce: " << reproducer(c.descriptor, 1, accuracy::Mode::exact);
    }
}

INSTANTIATE_TEST_SUITE_P(Table, FormatAdaptations,
                         ::testing::Values(Formats{DataFormat::ncx, FilterFormat::oix}, Formats{DataFormat::ncx, FilterFormat::xio},
                                           Formats{DataFormat::nxc, FilterFormat::oix}, Formats{DataFormat::nxc, FilterFormat::xio}),
                         [](const ::testing::TestParamInfo<Formats>& info) { return name_of(info.param); });

// The plugins built on the shared adaptations, whose libraries take no negative pads_begin: each crops,
// and says so in the implementation string. Another plugin (a vendor's, the template's direct loop) may
// compute a negative pad as it is; whether its result is right is what the table's crop cases check.
bool crops_through_the_shared_adaptations(const std::string& name) {
    for (const char* bundled : {"onednn", "xnnpack", "libtorch", "opencv", "armnn"})
        if (name == bundled) return true;
    return false;
}

TEST(Adaptations, TheImplementationNamesTheAdaptationThatRan) {
    const std::string name = plugin->info().name;
    if (!crops_through_the_shared_adaptations(name))
        GTEST_SKIP() << name << " is not built on the shared adaptations (onednn, xnnpack, libtorch, opencv, armnn are): "
                     << "nothing says its library takes no negative pads_begin";
    int checked = 0;
    for (const char* text : {"conv:c=2,o=2,in=7x7,k=3x3,pb=-1x0,pe=0x0", "conv:c=2,o=2,in=7,k=3,pb=-1,pe=0,data=nxc"}) {
        const ConvDescriptor d = parse_descriptor(text);
        if (!claims(plugin->info(), d)) continue;
        ++checked;
        const accuracy::ExactFill f = accuracy::make_exact_fill(d, contract_for(d), 1);
        const Outcome got = execute(d, f.src, f.weights, f.bias);
        EXPECT_NE(got.implementation.find("cropped"), std::string::npos) << text << ": " << got.implementation;
    }
    if (checked == 0) GTEST_SKIP() << "the plugin claims neither case's format (f32 ncx/oix rank 2, f32 nxc/oix rank 1)";
}

}  // namespace
}  // namespace convcheck::backend_test
