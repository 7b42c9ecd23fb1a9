#include "convcheck/formats/case_list.hpp"

#include <gtest/gtest.h>

namespace convcheck::formats {
namespace {

TEST(CaseList, ReadsCasesSkippingCommentsAndBlankLines) {
    const auto entries = read_case_list("smoke.cases",
                                        "# the smoke suite\n"
                                        "\n"
                                        "c=3,o=8,in=12x10,k=3x3   bep  2d/basic   # why it is here\n"
                                        "  c=4,o=4,in=6x7,k=3x3,dt=f16\te\trounding/ties fill=ties seed=18446744073709551615\n");
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[0].descriptor, "c=3,o=8,in=12x10,k=3x3");
    EXPECT_EQ(entries[0].modes, "bep");
    EXPECT_EQ(entries[0].name, "2d/basic");
    EXPECT_EQ(entries[0].fill, "");
    EXPECT_FALSE(entries[0].seed);
    EXPECT_EQ(entries[0].where, "smoke.cases:3");
    EXPECT_EQ(entries[1].fill, "ties");
    ASSERT_TRUE(entries[1].seed);
    EXPECT_EQ(*entries[1].seed, 18446744073709551615ull);
    EXPECT_EQ(entries[1].where, "smoke.cases:4");
    EXPECT_EQ(read_case_list("x.cases", "c=1,o=1,in=3,k=1 b -\n")[0].name, "");  // no name
}

void expect_refused(const std::string& text, const std::string& words) {
    try {
        read_case_list("x.cases", text);
        ADD_FAILURE() << "accepted: " << text;
    } catch (const CaseListError& e) {
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
}

TEST(CaseList, RefusesWhatItDoesNotReadNamingLineAndField) {
    expect_refused("c=1,o=1,in=3,k=1 b\n", "x.cases:1: line");                    // no name
    expect_refused("\nc=1,o=1,in=3,k=1 b one dialect=onnx\n", "x.cases:2: field 'dialect=onnx'");
    expect_refused("c=1,o=1,in=3,k=1 b one fill=ties fill=overflow\n", "fill 'fill=overflow': given twice");
    expect_refused("c=1,o=1,in=3,k=1 b one seed=-1\n", "seed '-1'");
    expect_refused("c=1,o=1,in=3,k=1 b one seed=18446744073709551616\n", "seed '18446744073709551616'");
    expect_refused("c=1,o=1,in=3,k=1 b one seed=1.5\n", "seed '1.5'");
    expect_refused("c=1,o=1,in=3,k=1 mode=bound one\n", "modes 'mode=bound'");
    expect_refused("c=1,o=1,in=3,k=1 b one extra\n", "field 'extra'");
    expect_refused("# only a comment\n\n", "no case in the list");
}

}  // namespace
}  // namespace convcheck::formats
