// benchdnn's int8 conv cases (formats/benchdnn_quantized.hpp): each setup of data/benchdnn/int8 is a qconv:
// descriptor where the mapping is exact, or a skip whose reason names the option.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "convcheck/core/quantized_descriptor.hpp"
#include "convcheck/formats/benchdnn_driver.hpp"

using namespace convcheck;

namespace {

const std::filesystem::path kData = CONVCHECK_BENCHDNN_TEST_DATA;

struct Want {
    const char* name;
    const char* run;   // qconv: descriptor, or nullptr
    const char* skip;  // the start of the skip reason, or nullptr
};

}  // namespace

TEST(BenchdnnInt8, CasesAreQuantizedDescriptorsOrSkippedWithTheirReason) {
    const auto got = read_benchdnn_batch((kData / "int8").string());  // current oneDNN's grammar
    const std::vector<Want> want = {
        {"plain_s32", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,dt=u8:s8:s32", nullptr},
        {"scaled", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,dt=u8:s8:u8,ssc=0.25,szp=3,wsc=oc,dsc=2,dzp=1", nullptr},
        {"scaled", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,dt=s8:s8:s8,ssc=0.25,szp=3,wsc=oc,dsc=2,dzp=1", nullptr},
        {"grouped_nxc", "qconv:n=2,c=4,o=4,g=2,in=5x5,k=3x3,dt=s8:s8:s8,wsc=oc,wzp=1,data=nxc", nullptr},
        {"bias", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,bias=1,dt=u8:s8:u8,bdt=f32,ssc=0.5", nullptr},
        {"bias", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,bias=1,dt=u8:s8:s32,bdt=f32,ssc=0.5", nullptr},  // rounded s32
        {"types", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,dt=u8:s8:f32", nullptr},  // a float dst: the general output
        {"types", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,dt=u8:s8:bf16", nullptr},
        {"types", nullptr, "--dt: integer types other than u8/s8 src and weights"},
        {"scaled_s32", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,dt=u8:s8:s32,ssc=0.5", nullptr},  // oneDNN's rounded s32
        {"zero_points", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,dt=u8:s8:u8,szp=ic,dzp=oc", nullptr},
        {"zero_points", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,dt=u8:s8:u8,wzp=1", nullptr},
        {"zero_points", nullptr, "--attr-zero-points: src:common:200:s8: the value is outside s8"},
        {"zero_points", nullptr, "--attr-zero-points: wei:per_oc (weights zero points per channel"},
        {"zero_points", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,dt=u8:s8:u8,szp=ic", nullptr},
        {"zero_points", nullptr, "--attr-zero-points: wei zero points in groups"},
        {"scales", nullptr, "--attr-scales: src:per_dim_1"},
        {"scales", nullptr, "--attr-scales: dst scales of type f16"},
        // per_oc gives no value: the field after it is the data type (benchdnn's entry_t::from_str)
        {"scales", nullptr, "--attr-scales: wei scales of type bf16"},
        {"scales", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,dt=u8:s8:u8,wsc=oc", nullptr},
        {"post_ops", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,dt=u8:s8:u8,dsc=0.5,dzp=3,po=relu+sum:0.5", nullptr},
        {"post_ops", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,dt=u8:s8:u8,dsc=0.5,dzp=3,po=prelu:per_oc", nullptr},  // prelu on int8
        {"backward", nullptr, "--dir=BWD_D: an int8 backward pass"},
        // oneDNN's zero points are s32 attributes: 300 on a u8 src is read as it is, the case saying so (zpt=s32)
        {"zero_point_range", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,dt=u8:s8:u8,zpt=s32,szp=300", nullptr},
        {"fpmath", "qconv:n=2,c=4,o=4,in=5x5,k=3x3,dt=u8:s8:u8", nullptr},  // fpmath applies to floating-point primitives only
        {"fpmath", nullptr, "--attr-fpmath=bf16:true: applied to an integer primitive"},
    };
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        const BenchdnnCase& c = got[i];
        SCOPED_TRACE("case " + std::to_string(i) + ": " + c.source + " `" + c.input + "` -> " +
                     (c.quantized ? to_string(*c.quantized) : "skip: " + c.skip_reason));
        EXPECT_EQ(c.name, want[i].name);
        EXPECT_FALSE(c.descriptor.has_value());  // never read as a float case
        if (want[i].run) {
            ASSERT_TRUE(c.quantized.has_value());
            EXPECT_EQ(to_string(*c.quantized), to_string(parse_quantized_descriptor(want[i].run)));
        } else {
            EXPECT_FALSE(c.quantized.has_value());
            EXPECT_TRUE(c.skip_reason.starts_with(want[i].skip)) << "want a reason starting `" << want[i].skip << "`";
        }
    }
}
