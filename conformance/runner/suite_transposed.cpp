// The transposed suite (docs/transposed.md): transposed convolution ("deconv:") over every attribute
// once: ranks 1-3, groups, depthwise, dilation, strides, output_padding (below the stride, and below the
// dilation with stride 1), asymmetric and negative pads, layouts, bias, f32/f16/bf16, in exact and bound
// mode, five of them in probe mode too. Sizes stay small enough that exact mode's integers keep every sum
// exact in f16 and bf16.
#include <algorithm>
#include <iterator>

#include "convcheck/runner/suites.hpp"

namespace convcheck::runner {

std::vector<SuiteEntry> transposed_suite() {
    static const char* const descriptors[] = {
        // rank 1, 2, 3: plain, bias, layouts
        "deconv:n=2,c=3,o=4,in=5,k=3,s=2,pb=1,pe=1,op=1,bias=1,dt=f32",
        "deconv:n=2,c=3,o=5,in=4x3,k=3x2,s=2x1,bias=0,dt=f32,data=nxc,wei=xio",
        "deconv:n=1,c=2,o=3,in=3x4x3,k=2x3x2,s=2x1x2,pb=1x0x1,pe=0x1x0,op=1x0x0,bias=1,dt=f32,data=nxc",
        // groups, depthwise, depthwise with a channel multiplier
        "deconv:n=2,c=4,o=6,g=2,in=4x4,k=3x3,s=2x2,pb=1,pe=1,op=1x0,bias=1,dt=f32",
        "deconv:n=2,c=4,o=4,g=4,in=5x5,k=3x3,s=2x2,pb=1,pe=1,bias=0,dt=f32,data=nxc,wei=xio",
        "deconv:n=1,c=3,o=6,g=3,in=6,k=4,s=2,pb=1,pe=1,bias=1,dt=f16",
        // dilation (output_padding below the dilation at stride 1), strides beyond the kernel
        "deconv:n=2,c=2,o=3,in=5x4,k=3x3,d=2x3,op=1x2,bias=0,dt=f32",
        "deconv:n=1,c=2,o=2,in=4,k=2,s=4,op=3,bias=1,dt=f32",
        "deconv:n=2,c=3,o=2,in=4x3,k=2x3,s=3x2,d=1x2,pb=0x1,pe=1x0,op=2x1,bias=1,dt=f32,data=nxc",
        // asymmetric and negative pads (negative widens the output, as TOSA's out_pad)
        "deconv:n=2,c=2,o=3,in=4x5,k=3x3,s=2x2,pb=-1x1,pe=2x-2,bias=1,dt=f32,wei=xio",
        "deconv:n=1,c=4,o=4,g=2,in=3x4x3,k=3x2x3,s=2x1x2,d=1x2x1,pb=1x-1x0,pe=0x1x2,op=1x0x1,bias=1,dt=f32",
        // f16 and bf16
        "deconv:n=2,c=3,o=4,in=4x5,k=3x3,s=2x1,pb=1,pe=1,op=1x0,bias=1,dt=f16,data=nxc,wei=xio",
        "deconv:n=2,c=4,o=4,g=4,in=6,k=3,d=3,pb=3,pe=3,op=2,bias=0,dt=bf16",
        "deconv:n=1,c=2,o=3,in=4x4,k=2x2,s=2x2,pb=0x1,pe=1x0,bias=1,dt=bf16,data=nxc",
        "deconv:n=1,c=2,o=2,in=3x3x2,k=2x2x2,s=2x2x2,op=1x1x0,bias=0,dt=f16,wei=xio",
        // a 1x1 kernel; a kernel as large as the output; upsampling by 2 as decoders use it
        "deconv:n=3,c=5,o=4,in=4x4,k=1x1,s=2x2,op=1x1,bias=1,dt=f32,data=nxc,wei=xio",
        "deconv:n=2,c=2,o=2,in=1x1,k=5x5,bias=1,dt=f32",
        "deconv:n=1,c=8,o=4,in=6x6,k=4x4,s=2x2,pb=1,pe=1,bias=1,dt=f32",
    };
    // probe mode (a NaN must reach exactly the outputs its input pairs with) on rank 1, groups with output
    // padding, dilation with output padding, negative pads and rank 3
    const std::size_t probed[] = {0, 3, 6, 9, 10};
    std::vector<SuiteEntry> entries;
    for (std::size_t i = 0; i < std::size(descriptors); ++i)
        entries.emplace_back(descriptors[i], std::find(std::begin(probed), std::end(probed), i) != std::end(probed) ? "bep" : "be");
    return entries;
}

}  // namespace convcheck::runner
