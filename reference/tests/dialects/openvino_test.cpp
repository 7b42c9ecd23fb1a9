// OpenVINO Convolution-1 (seed 001): pads and shapes derived by hand from the seed and OpenVINO's
// infer_auto_padding.
#include "case_table.hpp"
#include "convcheck/reference/dialects/openvino.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;
using cases::check_table;

namespace {
// a rank-1 case with every required attribute
std::string r1(const char* a, const char* strides = "1") {
    return std::string(a) + " strides=" + strides + " dilations=1 pads_begin=0 pads_end=0";
}
}  // namespace

TEST(OpenvinoDialect, AutoPadByHand) {
    // same_*: out = ceil(in/s) for every stride and dilation; t = max(0, (out-1)*s + K - in)
    const std::string same_lower = r1("auto_pad=same_lower in=7 k=4", "2");   // t = 3*2 + 4 - 7 = 3 -> 2/1
    const std::string same_upper = r1("auto_pad=same_upper in=7 k=4", "2");   // 1/2
    const std::string big_kernel = r1("auto_pad=same_upper in=3 k=5");        // t = 4 -> 2/2, out 3
    const std::string valid = "auto_pad=valid in=5 k=3 strides=1 dilations=1 pads_begin=1 pads_end=1";
    const std::string explicit_pads = "in=5 k=3 strides=2 dilations=1 pads_begin=1 pads_end=1";
    check_table("openvino", {
        {same_lower.c_str(), "pb=2 pe=1 out=4"},
        {same_upper.c_str(), "pb=1 pe=2 out=4"},
        {big_kernel.c_str(), "pb=2 pe=2 out=3"},
        // valid ignores pads_begin / pads_end: floor((5 - 2 - 1) / 1) + 1 = 3
        {valid.c_str(), "pb=0 pe=0 out=3"},
        // floor((1 + 1 + 5 - 1*(3-1) - 1) / 2) + 1 = 3
        {explicit_pads.c_str(), "pb=1 pe=1 out=3"},
    });
}

TEST(OpenvinoDialect, RejectsWhatOpenvinoRejects) {
    check_table("openvino", {
        // K = (3-1)*2 + 1 = 5 > 3
        {"in=3 k=3 strides=1 dilations=2 pads_begin=0 pads_end=0",
         "error Window after dilation has dimension (dim: 5) larger than the data shape after padding (dim: 3) at axis 0."},
        {"in=3 k=1 strides=0 dilations=1 pads_begin=0 pads_end=0", "error Window strides (Strides{0}) has zero dimension at axis 0."},
        {"in=3x3 k=1x1 strides=1x1 dilations=1x0 pads_begin=0x0 pads_end=0x0",
         "error Window dilation (Strides{1, 0}) has zero dimension at axis 1."},
        {"in=3 k=1 dilations=1 pads_begin=0 pads_end=0", "ours the attribute is required"},
        {"in=3 k=1 strides=1 dilations=1 pads_begin=-1 pads_end=0", "ours non-negative"},
        {"in=3 k=1 strides=1 dilations=1 pads_begin=0 pads_end=0 auto_pad=SAME_UPPER", "ours must be explicit"},
    });
}

TEST(OpenvinoDialect, SeedDefaultsAreNxcAndXio) {
    DialectResult r = cases::run("openvino", "in=5x5 k=3x3 strides=1x1 dilations=1x1 pads_begin=0x0 pads_end=0x0");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.descriptor.data_format, DataFormat::nxc);
    EXPECT_EQ(r.descriptor.filter_format, FilterFormat::xio);
    r = cases::run("openvino",
                     "in=5x5 k=3x3 strides=1x1 dilations=1x1 pads_begin=0x0 pads_end=0x0 data_format=NCX filter_format=OIX");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.descriptor.data_format, DataFormat::ncx);
    EXPECT_EQ(r.descriptor.filter_format, FilterFormat::oix);
}
