// The transposed form's rule for invalid cases (convcheck/adaptation/transposed_form.hpp): the crop is taken only
// where it computes exactly the case, so a plugin never turns an invalid case into a valid one. Its rules are the
// pad rules of the transposed descriptor's validate(): checked against it, value by value.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/adaptation/transposed_form.hpp"
#include "convcheck/core/transposed_descriptor.hpp"

using namespace convcheck;
using convcheck::runner::to_abi;
namespace support = convcheck_plugin_support;

namespace {

bool valid(const TransposedDescriptor& t) {
    try {
        validate(t);
        return true;
    } catch (const ConvError&) {
        return false;
    }
}

// deconv:c=2,o=2,in=3,k=3,s=2 with the given pads and output padding (an output of 4 + 3 - pb - pe + op).
TransposedDescriptor with(std::int64_t pb, std::int64_t pe, std::int64_t op) {
    TransposedDescriptor t = parse_transposed_descriptor("deconv:c=2,o=2,in=3,k=3,s=2");
    t.pads_begin[0] = pb, t.pads_end[0] = pe, t.output_padding[0] = op;
    return t;
}

TEST(TransposedForm, TheCropHidesExactlyThePadRulesValidateChecks) {
    const std::int64_t big = std::int64_t{1} << 40;
    const std::vector<std::int64_t> pads{-big - 1, -big, -3, -1, 0, 1, 2, 5, 7, big, big + 1};
    for (std::int64_t pb : pads)
        for (std::int64_t pe : pads)
            for (std::int64_t op : std::vector<std::int64_t>{-2, -1, 0, 1, 3, big + 1}) {
                const TransposedDescriptor t = with(pb, pe, op);
                EXPECT_EQ(support::transposed_crop_hides(to_abi(t)).empty(), valid(t)) << to_string(t);
            }
    // any int64 values: an output size past 64 bits is one the crop must not hide either (no overflow on the way)
    convcheck_conv_transposed_desc huge = to_abi(with(0, 0, 0));
    huge.input_size[0] = huge.strides[0] = INT64_MAX;
    EXPECT_EQ(support::transposed_crop_hides(huge), "the output size[0] = beyond 64 bits");
    huge.strides[0] = INT64_MIN;
    EXPECT_NE(support::transposed_crop_hides(huge).find(" < 1"), std::string::npos);
}

TEST(TransposedForm, NumbersBeyond64BitsAreNamedNotWrapped) {
    EXPECT_EQ(support::transposed_beyond_64_bits(to_abi(with(-1, 3, -1))), "");
    EXPECT_EQ(support::transposed_output_size(to_abi(with(-1, 3, -1)), 0), 7 + 1 - 3 - 1);
    convcheck_conv_transposed_desc t = to_abi(with(0, 0, 0));
    t.strides[0] = INT64_MAX / 2;  // (in-1)*s = 2^63 - 2, and the span of 3 takes it beyond
    EXPECT_EQ(support::transposed_beyond_64_bits(t), "the whole output (in-1)*s + (k-1)*d + 1 of axis 0 is beyond 64 bits");
    EXPECT_NE(support::transposed_2d_inexpressible(t, {true, false}, "xnnpack", "XNNPACK")
                  .find("the xnnpack plugin cannot hand this case to XNNPACK: the whole output"),
              std::string::npos);
    t = to_abi(with(0, INT64_MIN, 1));  // 7 - pe + op wraps
    EXPECT_EQ(support::transposed_beyond_64_bits(t), "the output size (in-1)*s - pb - pe + (k-1)*d + 1 + op of axis 0 is beyond 64 bits");
    t = to_abi(with(INT64_MAX, INT64_MAX, 0));  // 7 - pb - pe wraps below
    EXPECT_EQ(support::transposed_beyond_64_bits(t), "the output size (in-1)*s - pb - pe + (k-1)*d + 1 + op of axis 0 is beyond 64 bits");
    t = to_abi(with(INT64_MAX, -1, 1));  // op + pb - pe wraps; the output size does not
    EXPECT_EQ(support::transposed_beyond_64_bits(t), "output_padding + pads_begin - pads_end of axis 0 is beyond 64 bits");
    t = to_abi(with(0, 0, 0));
    t.kernel_size[0] = t.dilations[0] = INT64_MAX;
    EXPECT_EQ(support::transposed_beyond_64_bits(t), "the kernel's span (k-1)*d+1 of axis 0 is beyond 64 bits");
}

TEST(TransposedForm, AnInvalidCaseGoesToTheLibraryAsItIs) {
    const support::TransposedPadsRule unsigned_pads{true, false};  // XNNPACK's
    // op = -1: the adjustment, never a larger end pad
    const support::Transposed2d negative = support::transposed_2d(to_abi(with(0, 0, -1)), unsigned_pads);
    EXPECT_TRUE(negative.direct);
    EXPECT_EQ(negative.axes[1].adjustment, -1);
    EXPECT_EQ(negative.axes[1].end, 0);
    // pads that remove the whole output: not cropped, the pads as they are
    const support::Transposed2d empty = support::transposed_2d(to_abi(with(3, 4, 0)), unsigned_pads);
    EXPECT_TRUE(empty.direct);
    EXPECT_EQ(empty.axes[1].begin, 3);
    EXPECT_EQ(empty.axes[1].end, 4);
    EXPECT_EQ(empty.axes[1].computed, 0);
    // a valid negative pad is still cropped
    EXPECT_FALSE(support::transposed_2d(to_abi(with(-1, 0, 0)), unsigned_pads).direct);
    // a library without an adjustment cannot be given op = -1; a symmetric one not with pb != pe
    const convcheck_conv_transposed_desc asymmetric = to_abi(with(1, 0, -1));
    EXPECT_NE(support::transposed_output_padding_inexpressible(asymmetric, {false, false}, "armnn", "Arm NN")
                  .find("the armnn plugin cannot express output_padding[0] = -1"),
              std::string::npos);
    EXPECT_NE(support::transposed_output_padding_inexpressible(asymmetric, {true, true}, "opencv", "OpenCV"), "");
    EXPECT_EQ(support::transposed_output_padding_inexpressible(to_abi(with(1, 1, -1)), {true, true}, "opencv", "OpenCV"), "");
    EXPECT_EQ(support::transposed_output_padding_inexpressible(asymmetric, unsigned_pads, "xnnpack", "XNNPACK"), "");
}

}  // namespace
