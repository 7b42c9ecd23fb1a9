// The edge suite: corner cases of the geometry and of the data types, and the families of smoke's
// designed cases (special fills, channel tails, depthwise multiplier, unequal per-axis strides).
#include "suites.hpp"

namespace convcheck::runner {

namespace {
constexpr auto ties = accuracy::Fill::ties, overflow = accuracy::Fill::overflow, subnormal = accuracy::Fill::subnormal;
}  // namespace

std::vector<SuiteEntry> edge_suite() {
    return {
        {"c=1,o=1,in=1,k=1", "bep", "single_element_1d"},
        {"c=1,o=1,in=1x1x1,k=1x1x1,bias=1", "bep", "single_element_3d"},
        {"c=2,o=3,in=4x4,k=6x6,pb=1x1,pe=1x1", "bep", "kernel_equals_padded_input"},
        {"c=2,o=2,in=2x2,k=3x3,pb=5x5,pe=5x5,bias=1", "bp", "pads_much_larger_than_kernel"},
        {"c=2,o=2,in=5x5,k=1x1,s=7x9", "bp", "stride_larger_than_input"},
        {"c=3,o=2,in=9x9,k=3x3,s=2x2,pb=-3x-3,pe=-3x-3", "bep", "cropping_pads"},
        {"c=2,o=2,in=7x7,k=3x3,d=3x3,pb=0x0,pe=0x0", "bep", "dilated_kernel_equals_input"},
        {"c=2,o=2,in=3x3,k=3x3,d=4x4,pb=4x4,pe=4x4", "bp", "dilated_kernel_wider_than_input"},
        {"c=2,o=2,in=10,k=2,s=3,d=5,pb=-2,pe=4", "bep", "1d_all_attributes"},
        {"c=7,o=11,in=5x3,k=3x1,pb=1x0,pe=1x0,bias=1", "be", "prime_channels"},
        {"c=13,o=13,g=13,in=6x6,k=5x5,pb=2x2,pe=2x2,data=nxc", "bep", "depthwise_prime"},
        {"c=12,o=12,g=4,in=5x5,k=1x1,s=2x2,pb=1x1,pe=1x1,wei=xio", "bp", "pointwise_strided_padded"},
        {"c=256,o=2,in=3x3,k=3x3,pb=1x1,pe=1x1", "be", "very_long_reduction"},
        {"c=256,o=2,in=3x3,k=3x3,pb=1x1,pe=1x1,dt=bf16", "be", "very_long_reduction_bf16"},
        {"c=256,o=2,in=3x3,k=3x3,pb=1x1,pe=1x1,dt=f16", "be", "very_long_reduction_f16"},
        {"c=2,o=2,in=1x40,k=1x7,s=1x3,pb=0x3,pe=0x3", "bep", "one_row"},
        {"c=2,o=2,in=3x3x40,k=1x1x5,d=1x1x7,pb=0x0x14,pe=0x0x14", "bp", "3d_one_dilated_axis"},
        {"n=4,c=1,o=1,in=2x2,k=2x2", "be", "batch_without_spatial_extent"},
        {"c=4,o=4,g=2,in=8x8,k=3x3,s=3x3,pb=0x0,pe=-1x-1,data=nxc,wei=xio,dt=f16,bias=1", "bep", "negative_end_pad_strided"},
        {"c=3,o=3,g=3,in=4x4x4,k=4x4x4,s=2x2x2,pb=2x2x2,pe=2x2x2,dt=bf16,data=nxc", "bp", "3d_depthwise_big_kernel"},
        {"c=4,o=12,g=4,in=7x6,k=3x3,s=2x1,pb=1x1,pe=1x0,data=nxc,wei=xio", "bep", "depthwise_multiplier_3"},
        {"c=2,o=4,g=2,in=11,k=4,s=3,d=2,pb=2,pe=1,dt=f16,bias=1", "bep", "depthwise_multiplier_2_1d"},
        {"c=3,o=2,in=9x7x11,k=3x2x3,s=3x1x2,d=1x2x1,pb=1x0x1,pe=0x1x1,bias=1", "bep", "3d_unequal_strides"},
        {"c=2,o=2,in=6x10x8,k=1x3x2,s=2x3x1,pb=0x1x0,pe=0x1x1,data=nxc,wei=xio", "bep", "3d_unequal_strides_nxc"},
        {"c=200,o=2,in=3x3,k=3x3,pb=1x1,pe=1x1", "be", "tail_c200"},
        {"c=300,o=2,in=3x3,k=3x3,pb=1x1,pe=1x1,data=nxc,bias=1", "be", "tail_c300_nxc"},
        {"c=2,o=2,g=2,in=2x2,k=1x1,n=2", "be", "batch_depthwise_pointwise"},
        {"c=1,o=2,in=9,k=3,pb=1,pe=1,dt=f16", "e", "ties_f16_1d", ties},
        {"c=2,o=2,in=3x4x3,k=2x2x2,pb=1x0x1,pe=0x1x0,dt=bf16,data=nxc", "e", "ties_bf16_3d", ties},
        {"c=6,o=6,g=6,in=5x5,k=3x3,pb=1x1,pe=1x1,dt=f16,data=nxc", "e", "overflow_f16_depthwise", overflow},
        {"c=2,o=2,in=7,k=2,s=2,dt=bf16,bias=1", "e", "overflow_bf16_1d", overflow},
        {"c=4,o=4,g=4,in=5x5,k=3x3,pb=1x1,pe=1x1,dt=f16", "e", "subnormal_f16_depthwise", subnormal},
        {"c=2,o=2,in=8,k=3,d=2,pb=2,pe=0,dt=bf16,data=nxc", "e", "subnormal_bf16_1d", subnormal},
    };
}

}  // namespace convcheck::runner
