// The smoke suite: every feature at least once, small enough to run in seconds (docs/runner.md).
// Each line says what it is there for. Modes: b(ound), e(xact), p(robe). The last block holds the
// cases designed for one class of bug each (docs/selftest.md says which mutant each one kills).
#include "suites.hpp"

namespace convcheck::runner {

namespace {
constexpr auto ties = accuracy::Fill::ties, overflow = accuracy::Fill::overflow, subnormal = accuracy::Fill::subnormal;
}  // namespace

std::vector<SuiteEntry> smoke_suite() {
    return {
        // ---- rank 1
        {"n=2,c=3,o=4,in=17,k=3,pb=1,pe=1,bias=1", "bep", "1d/basic_bias"},
        {"c=4,o=4,g=2,in=20,k=5,s=2,d=2,pb=3,pe=0", "bep", "1d/groups_dilated_strided_asymmetric"},
        {"c=6,o=6,g=6,in=15,k=3,d=3,pb=-1,pe=2", "bp", "1d/depthwise_negative_pad"},
        {"c=3,o=5,in=16,k=4,s=3,pb=0,pe=2,dt=f16,data=nxc,wei=xio,bias=1", "bep", "1d/f16_nxc_xio"},
        {"n=2,c=4,o=2,in=19,k=3,s=2,pb=1,pe=1,dt=bf16,bias=1", "be", "1d/bf16"},
        // ---- rank 2
        {"c=3,o=8,in=12x10,k=3x3,pb=1x1,pe=1x1,bias=1", "bep", "2d/basic_bias"},
        {"c=8,o=8,g=8,in=9x11,k=3x3,s=2x2,pb=1x1,pe=1x1,data=nxc", "bep", "2d/depthwise_strided_nxc"},
        {"c=8,o=16,g=2,in=8x8,k=1x1", "be", "2d/pointwise_groups"},
        {"c=4,o=4,in=13x13,k=3x3,d=2x3,pb=2x3,pe=2x3", "bep", "2d/dilated"},
        {"c=3,o=4,in=10x9,k=3x2,s=2x1,pb=0x1,pe=1x0", "bep", "2d/asymmetric_pads"},
        {"c=2,o=3,in=12x12,k=3x3,s=2x2,pb=-1x-2,pe=-2x1", "bep", "2d/negative_pads"},
        {"c=6,o=9,g=3,in=7x8,k=3x3,pb=1x1,pe=1x1,data=nxc,wei=xio,bias=1", "bep", "2d/groups_nxc_xio"},
        {"c=8,o=8,in=10x10,k=3x3,pb=1x1,pe=1x1,dt=f16,bias=1", "bep", "2d/f16"},
        {"c=16,o=8,in=8x8,k=3x3,s=2x2,pb=1x1,pe=0x0,dt=bf16,data=nxc,wei=xio,bias=1", "be", "2d/bf16_nxc_xio"},
        {"c=8,o=4,in=9x9,k=3x3,pb=1x1,pe=1x1,dt=bf16", "b", "2d/bf16_ncx"},
        {"c=2,o=2,in=11x11,k=2x2,s=4x3", "bp", "2d/stride_larger_than_kernel"},
        {"c=3,o=2,in=5x5,k=5x5,bias=1", "be", "2d/kernel_equals_input"},
        {"c=64,o=4,in=4x4,k=3x3,pb=1x1,pe=1x1", "be", "2d/long_reduction"},
        {"c=64,o=4,in=4x4,k=3x3,pb=1x1,pe=1x1,dt=f16", "b", "2d/long_reduction_f16"},
        {"c=1,o=1,in=3x3,k=2x2,pb=3x3,pe=3x3,bias=1", "bp", "2d/pads_larger_than_kernel"},
        {"n=3,c=2,o=2,in=6x6,k=3x3", "b", "2d/batch"},
        {"c=4,o=8,g=4,in=7x7,k=3x3,d=2x2,pb=2x2,pe=2x2,wei=xio", "bep", "2d/depthwise_multiplier_dilated"},
        {"c=5,o=7,in=9x6,k=2x3,s=3x2,pb=1x0,pe=2x1,data=nxc,dt=f16", "be", "2d/odd_channels_f16_nxc"},
        // ---- rank 3
        {"c=2,o=3,in=5x6x7,k=3x3x3,pb=1x1x1,pe=1x1x1,bias=1", "bep", "3d/basic_bias"},
        {"c=4,o=4,g=2,in=6x6x6,k=2x3x2,s=2x1x2,d=1x2x1,pb=0x2x1,pe=1x0x0,data=nxc,wei=xio", "bep", "3d/groups_mixed_attrs"},
        {"c=3,o=3,g=3,in=5x5x5,k=3x3x3,pb=-1x0x1,pe=1x0x-1,dt=f16", "be", "3d/depthwise_f16_negative"},
        {"c=4,o=2,in=4x5x4,k=2x2x2,s=2x2x2,dt=bf16,data=nxc,bias=1", "b", "3d/bf16_nxc"},
        {"c=2,o=3,in=5x9x13,k=2x3x2,s=1x2x3,d=1x1x2,pb=1x0x1,pe=0x1x0,bias=1", "be", "3d/unequal_strides"},
        // ---- designed cases: output rounding (exact mode, special fills: one right answer each)
        {"c=4,o=4,in=6x7,k=3x3,pb=1x1,pe=1x1,dt=f16", "e", "rounding/f16_ties", ties},
        {"c=4,o=4,in=6x7,k=3x3,pb=1x1,pe=1x1,dt=bf16,data=nxc,wei=xio,bias=1", "e", "rounding/bf16_ties", ties},
        {"c=4,o=4,in=5x6,k=3x3,pb=1x1,pe=1x1,dt=f16,bias=1", "e", "overflow/f16_inf", overflow},
        {"c=4,o=4,in=5x6,k=3x3,pb=1x1,pe=1x1,dt=bf16,data=nxc", "e", "overflow/bf16_inf", overflow},
        {"c=4,o=4,in=6x5,k=3x3,pb=1x1,pe=1x1,dt=f16", "e", "subnormal/f16", subnormal},
        {"c=4,o=4,in=6x5,k=3x3,pb=1x1,pe=1x1,dt=bf16,data=nxc", "e", "subnormal/bf16", subnormal},
        {"c=4,o=4,in=6x5,k=3x3,pb=1x1,pe=1x1", "e", "subnormal/f32", subnormal},
        // ---- designed cases: channel tails of every block size 8..256 (300 = 256 + 32 + 8 + 4)
        {"c=300,o=2,in=4x4,k=3x3,pb=1x1,pe=1x1", "be", "tail/c300"},
        {"c=200,o=3,in=3x5,k=3x1,pb=1x0,pe=1x0,data=nxc,wei=xio", "be", "tail/c200_nxc"},
        {"c=3,o=300,in=3x3,k=1x1,data=nxc", "be", "tail/o300_nxc"},
        // ---- designed cases: layout strides, depthwise multiplier, per-axis attributes
        {"c=7,o=4,in=12x12,k=3x3,pe=-6x-6,data=nxc", "be", "layout/nxc_channel_stride_cropped"},
        {"c=3,o=9,g=3,in=9x8,k=3x2,s=2x1,pb=1x0,pe=1x1,data=nxc", "be", "depthwise/multiplier_3_nxc"},
        // ---- backward passes (docs/passes.md): exact and bound (probe does not apply to them yet). A backend that
        // does not claim a pass declines its cases, counted with the reason. Each is designed for bugs of its
        // pass (docs/selftest.md); the backward suite has them all.
        {"n=2,c=4,o=6,g=2,in=7x6,k=3x3,s=2x1,d=1x2,pb=1x2,pe=1x1,dir=bwd_d", "be", "backward/data_groups_strided_dilated"},
        {"n=2,c=3,o=5,in=9,k=3,pb=1,pe=1,dt=bf16,data=nxc,wei=xio,dir=bwd_d", "be", "backward/data_1d_bf16_nxc_xio"},
        {"n=2,c=3,o=4,in=8x7,k=3x3,s=1x2,pb=1x1,pe=1x1,bias=1,dir=bwd_w", "be", "backward/weights_bias"},
        {"n=2,c=4,o=4,g=2,in=8x8,k=3x3,pb=1x1,pe=1x1,dt=f16,bias=1,data=nxc,dir=bwd_w", "be", "backward/weights_bias_f16_long_reduction"},
        {"c=2,o=2,g=2,in=4x5x4,k=2x3x2,s=2x1x1,pb=0x1x1,pe=1x1x0,wei=xio,dir=bwd_w", "be", "backward/weights_3d_depthwise"},
        // ---- continuous convolution (seed 004): bound and probe (exact mode does not apply)
        {"cc:n=1,cin=2,cout=3,in=9x8,scale=2/3,support=3x3,kernel=net,bias=1", "bp", "cc/net_rational_downscale"},
        {"cc:n=2,cin=1,cout=2,in=5x6,scale=2x3/2,support=2x2,kernel=linear", "bp", "cc/linear_upscale"},
        {"cc:n=1,cin=2,cout=2,in=8x8,scale=0.7071,support=4x4,kernel=cubic,bias=1", "bp", "cc/cubic_real_scale"},
        {"cc:n=1,cin=2,cout=2,in=7x8,scale=3/4x5/4,support=3x3,kernel=gaussian,sigma=0.6,bias=1", "b", "cc/gaussian"},
        {"cc:n=1,cin=1,cout=2,in=8x10,scale=2/3,out=7x5,support=2x2,kernel=linear", "b", "cc/explicit_output_size"},
        // g_n - k/2 = 3n exactly: the window's inclusive edge decides (a Gaussian weighs the edge tap)
        {"cc:n=1,cin=1,cout=1,in=9x10,scale=1/3x1/2,support=2x3,kernel=gaussian,sigma=0.75", "b", "cc/grid_on_window_edge"},
        // out = ceil(1.1 * in) = 11 x 55 only with the ceiling tolerance (plain double ceil gives 56)
        {"cc:n=1,cin=1,cout=1,in=10x50,scale=1.1,support=2x2,kernel=linear", "b", "cc/real_scale_ceiling"},
    };
}

}  // namespace convcheck::runner
