// The layers of the runner's cc suite (conformance/runner/suite_cc.cpp builds its entries from this
// list): continuous convolution layers (seed 004) over the scale kinds (rational down and up, s = 1/k
// that reduces to a strided convolution, real), every kernel kind, supports even and odd, explicit
// output sizes, grid points on window edges (exact scales only: docs/cc.md), an output size that
// needs the ceiling tolerance, batch and bias. Kept with the accuracy contract, below the runner, so that
// the contract's tests (tests/cc_contract_test.cpp, tests/cc_suite_weight_test.cpp) check exactly the
// layers the suite runs.
#pragma once

namespace convcheck {

struct CcSuiteLayer {
    const char* descriptor;
    const char* modes;  // b(ound), p(robe)
    const char* name;
};

inline constexpr CcSuiteLayer kCcSuiteLayers[] = {
    {"cc:n=1,cin=3,cout=4,in=12x12,scale=2/3,support=3x3,kernel=net,bias=1", "bp", "net/scale_2_3"},
    {"cc:n=1,cin=2,cout=2,in=10x9,scale=1/2,support=2x2,kernel=net", "bp", "net/scale_1_2_even_support"},
    {"cc:n=1,cin=2,cout=3,in=9x9,scale=1/3,support=3x3,kernel=net", "bp", "net/scale_1_3_strided_conv"},
    {"cc:n=2,cin=2,cout=2,in=6x7,scale=3/2x5/4,support=3x3,kernel=net,hidden=8x4,slope=0.2,bias=1", "bp",
     "net/upscale_small_net"},
    {"cc:n=1,cin=1,cout=2,in=11x11,scale=1,support=4x4,kernel=net", "bp", "net/scale_1_even_support"},
    // a real scale keeps every grid point away from window edges (docs/cc.md): with support 3, 0.6 on
    // in = 8 put g_2 - 3/2 on the integer 2, which the runner refuses as undecidable
    {"cc:n=1,cin=2,cout=2,in=8x8,scale=0.6,support=2x2,kernel=net", "bp", "net/real_scale"},
    // a real scale whose first windows start before the input (the zero padding's taps are left out at the
    // low border): the chunked path with its low-border tap dropped passed every other layer here
    {"cc:n=1,cin=2,cout=2,in=9x9,scale=0.7071,support=3x3,kernel=net", "bp", "net/real_scale_border"},
    {"cc:n=1,cin=2,cout=2,in=8x10,scale=2/3,out=7x5,support=3x3,kernel=net", "bp", "net/explicit_output"},
    {"cc:n=1,cin=2,cout=2,in=9x9,scale=5/7,support=5x3,kernel=net", "bp", "net/scale_5_7_rect_support"},
    {"cc:n=1,cin=2,cout=2,in=6x6,scale=2,support=2x2,kernel=linear,bias=1", "bp", "linear/upscale_2"},
    {"cc:n=1,cin=2,cout=1,in=9x7,scale=1/2x2/3,support=2x2,kernel=linear", "bp", "linear/downscale"},
    {"cc:n=1,cin=1,cout=2,in=9x9,scale=0.8,support=4x4,kernel=cubic", "bp", "cubic/real_scale"},
    {"cc:n=1,cin=2,cout=2,in=7x9,scale=3/2,support=4x4,kernel=cubic,bias=1", "bp", "cubic/upscale"},
    {"cc:n=1,cin=2,cout=2,in=8x8,scale=3/4,support=3x3,kernel=gaussian,sigma=0.7", "bp", "gaussian/scale_3_4"},
    {"cc:n=1,cin=1,cout=1,in=1x1,scale=1,support=3x3,kernel=gaussian,sigma=0.5", "bp", "gaussian/single_pixel"},
    {"cc:n=1,cin=4,cout=4,in=16x16,scale=2/3,support=3x3,kernel=net,bias=1", "b", "net/larger"},
    // g_n - k/2 = 3n and 2n - 1 exactly: the inclusive window edge decides, and the Gaussian weighs it
    {"cc:n=1,cin=2,cout=1,in=9x10,scale=1/3x1/2,support=2x3,kernel=gaussian,sigma=0.75", "bp", "gaussian/window_edge"},
    // out = 11 x 55 only with the ceiling tolerance: a plain double ceil(1.1 * 50) is 56
    {"cc:n=1,cin=1,cout=1,in=10x50,scale=1.1,support=2x2,kernel=linear", "b", "linear/real_scale_ceiling"},
};

}  // namespace convcheck
