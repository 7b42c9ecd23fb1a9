// The backward suite (docs/passes.md): every geometry the forward smoke suite touches, as backward
// data (dir=bwd_d) and backward weights (dir=bwd_w; the bias gradient with it when bias=1), in exact
// and bound mode. Sizes stay small enough that exact mode's integers keep every sum exact in f16
// and bf16 (conv_backward_data.cpp: at most 2^p / 1 terms per gradient element).
#include "suites.hpp"

namespace convcheck::runner {

std::vector<SuiteEntry> backward_suite() {
    // One forward geometry per line; each becomes a backward-data and a backward-weights entry.
    static const char* const geometries[] = {
        // rank 1, 2, 3: plain, bias, layouts
        "n=2,c=3,o=4,in=9,k=3,pb=1,pe=1,bias=1,dt=f32",
        "n=2,c=3,o=5,in=7x6,k=3x2,bias=0,dt=f32,data=nxc,wei=xio",
        "n=1,c=2,o=3,in=4x5x4,k=2x3x2,pb=1x0x1,pe=0x1x1,bias=1,dt=f32,data=nxc,wei=oix",
        // groups, depthwise, depthwise with a channel multiplier
        "n=2,c=4,o=6,g=2,in=6x6,k=3x3,pb=1,pe=1,bias=1,dt=f32",
        "n=2,c=4,o=4,g=4,in=7x7,k=3x3,s=2x2,pb=1,pe=1,bias=0,dt=f32,data=nxc,wei=xio",
        "n=1,c=3,o=6,g=3,in=8,k=5,d=2,pb=2,pe=3,bias=1,dt=f16",
        // dilation, strides (beyond the kernel: inputs no output reads), asymmetric and negative pads
        "n=2,c=2,o=3,in=9x8,k=3x3,d=2x3,pb=2x1,pe=0x3,bias=0,dt=f32",
        "n=2,c=3,o=2,in=11x9,k=2x3,s=3x2,pb=0x1,pe=1x0,bias=1,dt=f32,data=nxc",
        "n=1,c=2,o=2,in=12,k=2,s=4,bias=0,dt=f32",
        "n=2,c=2,o=3,in=8x9,k=3x3,pb=-1x1,pe=2x-2,bias=1,dt=f32,wei=xio",
        "n=1,c=4,o=4,g=2,in=5x6x5,k=3x2x3,s=2x1x2,d=1x2x1,pb=1x-1x0,pe=0x1x2,bias=1,dt=f32",
        // f16 and bf16
        "n=2,c=3,o=4,in=6x7,k=3x3,s=2x1,pb=1,pe=1,bias=1,dt=f16,data=nxc,wei=xio",
        "n=2,c=4,o=4,g=4,in=9,k=3,d=3,pb=3,pe=3,bias=0,dt=bf16",
        "n=1,c=2,o=3,in=6x6,k=2x2,s=2x2,pb=0x1,pe=1x0,bias=1,dt=bf16,data=nxc",
        "n=1,c=2,o=2,in=4x4x3,k=2x2x2,pb=1x0x0,pe=0x0x1,bias=0,dt=f16,wei=xio",
        // kernel as large as the padded input; a 1x1 kernel; a stride the output just reaches
        "n=2,c=2,o=2,in=5x5,k=5x5,bias=1,dt=f32",
        "n=3,c=5,o=4,in=4x4,k=1x1,bias=1,dt=f32,data=nxc,wei=xio",
        "n=1,c=3,o=3,g=3,in=10,k=4,s=3,pb=0,pe=2,bias=0,dt=f16",
        "n=2,c=6,o=4,g=2,in=7x5,k=3x1,s=1x2,d=2x1,pb=2x0,pe=2x1,bias=1,dt=bf16,wei=xio",
        "n=4,c=2,o=2,in=6x6,k=3x3,s=2x2,pb=1,pe=0,bias=1,dt=f32",
    };
    std::vector<SuiteEntry> entries;
    for (const char* g : geometries)
        for (const char* dir : {"bwd_d", "bwd_w"})
            entries.emplace_back(std::string("conv:") + g + ",dir=" + dir, "be");
    return entries;
}

}  // namespace convcheck::runner
