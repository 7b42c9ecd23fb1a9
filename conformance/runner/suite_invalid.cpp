// The invalid suite (docs/runner.md): one descriptor per rule of validate() (core/descriptor.hpp),
// each breaking that rule and no other, in mode "invalid": the backend must refuse it. Every case
// is a small 2-D f32 NCX/OIX convolution (the layout every bundled backend claims) with one field
// changed. Where the frameworks read the rule differently (SPEC-NOTES §1 and §6, docs/dialects.md),
// each reading has its own case: the padded input smaller than the kernel by less than a stride
// (oneDNN's and ONNX's truncating division give 1 output), by exactly the kernel overhang at stride 1
// (XNNPACK's doz gives 1 output in Debian's 2022 snapshot), through dilation, and through cropping
// pads. The memory-stride rules (overlapping, negative, zero, too few strides) have a case each.
// The rules the canonical descriptor cannot say are not here: a rank other than 1-3 (in= has
// 1-3 values) and a bias whose length is not O (the ABI has no bias length).
#include "suites.hpp"

namespace convcheck::runner {

std::vector<SuiteEntry> invalid_suite() {
    return {
        {"n=0,c=4,o=4,in=6x6,k=3x3", "i", "batch_not_positive"},
        {"c=0,o=4,in=6x6,k=3x3", "i", "in_channels_not_positive"},
        {"c=4,o=0,in=6x6,k=3x3", "i", "out_channels_not_positive"},
        {"c=4,o=4,g=0,in=6x6,k=3x3", "i", "groups_not_positive"},
        {"c=3,o=4,g=2,in=6x6,k=3x3", "i", "in_channels_not_divisible_by_groups"},
        {"c=4,o=3,g=2,in=6x6,k=3x3", "i", "out_channels_not_divisible_by_groups"},
        {"c=4,o=4,in=0x6,k=1x3", "i", "input_size_not_positive"},
        {"c=4,o=4,in=6x6,k=0x3", "i", "kernel_size_not_positive"},
        {"c=4,o=4,in=6x6,k=3x3,s=0x1", "i", "stride_zero"},
        {"c=4,o=4,in=6x6,k=3x3,s=-1x1", "i", "stride_negative"},
        {"c=4,o=4,in=6x6,k=3x3,d=0x1", "i", "dilation_zero"},
        {"c=4,o=4,in=6x6,k=3x3,d=-1x1", "i", "dilation_negative"},
        {"c=4,o=4,in=2x6,k=3x3", "i", "padded_input_smaller_than_kernel"},
        {"c=4,o=4,in=2x6,k=3x3,s=2x1", "i", "padded_input_smaller_than_kernel_within_stride"},
        {"c=4,o=4,in=4x6,k=3x3,d=3x1", "i", "padded_input_smaller_than_dilated_kernel"},
        {"c=4,o=4,in=6x6,k=3x3,pb=-2x0,pe=-2x0", "i", "cropping_pads_leave_less_than_kernel"},
        {"n=8589934592,c=2147483648,o=4,in=1x1,k=1x1", "i", "element_count_overflows_64_bits"},
        // memory strides (ABI 1.2, core/memory_layout.hpp): a backend that does not claim strides never gets these
        {"c=4,o=4,in=6x6,k=3x3,ss=144x36x3x1", "i", "src_strides_overlap"},
        {"c=4,o=4,in=6x6,k=3x3,ss=144x36x-6x1", "i", "src_stride_negative"},
        {"c=4,o=4,in=6x6,k=3x3,ws=36x9x3x0", "i", "weights_stride_zero"},
        {"c=4,o=4,in=6x6,k=3x3,ds=64x16x2x1", "i", "dst_strides_overlap"},
        {"c=4,o=4,in=6x6,k=3x3,ss=144x36x6", "i", "src_strides_too_short"},
    };
}

}  // namespace convcheck::runner
