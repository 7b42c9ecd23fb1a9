#!/usr/bin/python3
"""The transposed-convolution reference against torch.nn.functional.conv_transpose{1,2,3}d, exactly.

For a few geometries (ranks 1-3, groups and depthwise, dilation, strides, output_padding below the
stride and below the dilation only, f32/f16/bf16 buffers in NCX/NXC and IOX/XOI), compute
  y = F.conv_transpose{1,2,3}d(x, W, b, stride, padding, output_padding, groups, dilation)
in float64 on data exactly representable in the dtype (multiples of 1/16 below 4), round y once to
the dtype, and compare with reference_transposed_cli (transposed.hpp, through its buffers) element
for element with ==: the exact double results, and the results rounded once. Every sum is exact in
double and in float (at most 23 significant bits), so torch's double -> dtype conversion rounds once.
Pads conv_transpose cannot say (asymmetric, or negative: a wider output) are taken by F.pad of the
unpadded result, bias added after (every output position gets it).

usage: transposed_torch_check.py <reference_transposed_cli>
Exit 0 when every case agrees, 1 on a mismatch, 2 on a usage error, 77 (skipped) without torch.
"""

import sys

import torch_check
from torch_check import parse

# descriptor (the reference's canonical string) and the data seed: together, a reproducer.
CASES = [
    ("deconv:n=2,c=4,o=6,g=2,in=5,k=3,s=2,d=2,pb=1,pe=1,op=1,bias=1", 1),
    ("deconv:n=1,c=3,o=2,in=4x5,k=3x2,s=3x2,pb=1x0,pe=1x0,op=2x1,bias=1,dt=f16", 2),
    ("deconv:n=1,c=2,o=2,in=4x4,k=3x3,s=1x1,d=3x2,pb=2x1,pe=2x1,op=2x1,dt=bf16,data=nxc,wei=xio", 3),  # op < dilation only
    ("deconv:n=1,c=4,o=4,g=4,in=6x6,k=4x4,s=2x2,pb=1x1,pe=1x1,bias=1,dt=bf16", 4),  # depthwise
    ("deconv:n=1,c=2,o=4,g=2,in=3x4x3,k=2x3x2,s=2x1x2,d=1x2x1,pb=0x1x1,pe=0x1x1,op=1x0x1,bias=1,dt=f16,data=nxc", 5),
    ("deconv:n=1,c=2,o=3,in=5x4,k=3x3,s=2x2,pb=2x-1,pe=0x1,bias=1,dt=bf16", 6),  # asymmetric, negative: F.pad
]


def compute(torch, descriptor, seed):
    d = parse(descriptor)
    F = torch.nn.functional
    gen = torch.Generator().manual_seed(seed)
    data = lambda *shape: (torch.randint(-63, 64, shape, generator=gen) / 16).to(torch.float64)  # noqa: E731
    x = data(d["n"], d["c"], *d["in"])
    w = data(d["c"], d["o"] // d["g"], *d["k"])
    b = data(d["o"]) if d["bias"] else None
    conv = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[len(d["in"])]
    # conv_transpose's own padding is symmetric: pads_end = padding - output_padding'
    op = [o + pb - pe for o, pb, pe in zip(d["op"], d["pb"], d["pe"])]
    direct = all(pb >= 0 and 0 <= o and (o < s or o < dil) for pb, o, s, dil in zip(d["pb"], op, d["s"], d["d"]))
    if direct:
        y = conv(x, w, b, stride=d["s"], padding=d["pb"], output_padding=op, groups=d["g"], dilation=d["d"])
    else:
        full = conv(x, w, None, stride=d["s"], groups=d["g"], dilation=d["d"])
        pads = []
        for pb, pe, o in zip(reversed(d["pb"]), reversed(d["pe"]), reversed(d["op"])):  # F.pad: last axis first
            pads += [-pb, o - pe]
        y = F.pad(full, pads)
        if b is not None:
            y = y + b.reshape(1, -1, *([1] * len(d["in"])))
    dtype = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[d["dt"]]
    rounded = y.to(dtype).to(torch.float64)
    numbers = [v for t in (x, w, b) if t is not None for v in t.flatten().tolist()]
    want = {"exact": y.flatten().tolist(), "rounded": rounded.flatten().tolist()}
    changed = sum(1 for a, r in zip(want["exact"], want["rounded"]) if a != r)
    label = (f"{'conv_transpose' if direct else 'conv_transpose + F.pad'}, {len(want['exact'])} elements, "
             f"{changed} changed by the rounding")
    return numbers, want, label


if __name__ == "__main__":
    sys.exit(torch_check.main(__doc__, CASES, compute))
