#include "cases.hpp"

namespace convcheck::backend_test {

const std::vector<NamedDescriptor>& geometries() {
    // Small on purpose: the reference is naive, and each case runs twice (exact and bound mode).
    static const std::vector<NamedDescriptor> table = {
        {"conv2d_plain", "n=2,c=3,o=4,in=7x6,k=3x3,pb=1x1,pe=1x1,bias=1"},
        {"conv2d_strided", "c=4,o=5,in=9x8,k=3x2,s=2x3,pb=1x0,pe=1x1"},
        {"conv2d_dilated", "c=3,o=2,in=9x9,k=3x3,d=2x3,pb=2x3,pe=2x3,bias=1"},
        {"conv2d_asymmetric_pads", "c=2,o=3,in=6x7,k=3x3,pb=0x2,pe=2x1"},
        {"conv2d_grouped", "c=6,o=4,g=2,in=5x5,k=3x3,pb=1x1,pe=1x1,bias=1"},
        {"conv2d_depthwise", "c=4,o=8,g=4,in=6x6,k=3x3,s=2x2,pb=1x1,pe=1x1,bias=1"},
        {"conv2d_pointwise", "c=8,o=16,in=5x5,k=1x1"},
        {"conv2d_all_attributes", "n=2,c=4,o=6,g=2,in=11x10,k=3x2,s=2x1,d=2x2,pb=1x2,pe=0x1,bias=1"},
        {"conv2d_kernel_beyond_input", "c=1,o=2,in=2x2,k=5x5,pb=2x2,pe=2x2"},
        {"conv2d_long_reduction", "c=64,o=4,in=5x5,k=3x3,pb=1x1,pe=1x1,bias=1"},
        {"conv2d_negative_pads_end", "c=2,o=2,in=7x7,k=3x3,s=2x2,pb=1x1,pe=-1x-1"},
        {"conv2d_negative_pads_begin", "c=2,o=2,in=7x7,k=3x3,pb=-1x0,pe=0x0"},
        {"conv2d_crop_past_the_input", "c=2,o=2,in=1x5,k=1x3,s=1x2,pb=3x1,pe=-2x1,bias=1"},
        // What the plugins adapt (conformance/plugins/common/include/convcheck/adaptation/adaptation.hpp): pads beyond the kernel,
        // a crop oneDNN's padding_r + stride > 0 refuses, rank 1 and 3 with crops, and the shapes
        // XNNPACK's NCHW operator takes natively (1x1, and 3x3 / 5x5 depthwise with set pads).
        {"conv2d_pads_beyond_kernel", "c=2,o=3,in=3x4,k=2x2,pb=3x1,pe=4x2,bias=1"},
        {"conv2d_crop_end_beyond_stride", "n=2,c=2,o=2,in=8x7,k=3x3,pb=1x0,pe=-2x-1"},
        {"conv2d_depthwise_3x3", "n=2,c=4,o=4,g=4,in=7x6,k=3x3,pb=1x1,pe=1x1,bias=1"},
        {"conv2d_depthwise_5x5_strided", "c=3,o=3,g=3,in=9x10,k=5x5,s=2x2,pb=2x2,pe=2x2"},
        {"conv1d_crops", "n=2,c=2,o=3,in=9,k=3,s=2,pb=-2,pe=-1,bias=1"},
        {"conv1d_pointwise", "c=5,o=3,in=7,k=1,bias=1"},
        {"conv3d_crops_and_pads", "c=2,o=2,in=6x5x5,k=2x3x2,pb=-1x1x0,pe=2x-1x1"},
        {"conv3d_unit_kernel_depth", "n=2,c=2,o=3,in=5x4x5,k=1x3x2,s=2x1x2,d=2x1x1,pb=1x1x0,pe=-1x0x1,bias=1"},
        {"conv1d_all_attributes", "c=3,o=4,in=11,k=3,s=2,d=2,pb=2,pe=1,bias=1"},
        {"conv1d_grouped", "c=4,o=6,g=2,in=8,k=2,pb=1,pe=0"},
        {"conv3d_all_attributes", "c=2,o=3,in=5x4x6,k=3x2x3,s=1x2x1,d=1x1x2,pb=1x0x2,pe=1x1x1,bias=1"},
        {"conv3d_grouped", "c=4,o=4,g=2,in=4x4x4,k=2x2x2,s=2x2x2"},
    };
    return table;
}

std::vector<Case> all_cases() {
    std::vector<Case> cases;
    for (const NamedDescriptor& g : geometries())
        for (const char* dtype : {"f32", "f16", "bf16"})
            for (const char* data : {"ncx", "nxc"})
                for (const char* wei : {"oix", "xio"}) {
                    const std::string text = std::string("conv:") + g.descriptor + ",dt=" + dtype + ",data=" + data + ",wei=" + wei;
                    cases.push_back({std::string(g.name) + "/" + dtype + "_" + data + "_" + wei, parse_descriptor(text)});
                }
    return cases;
}

}  // namespace convcheck::backend_test
