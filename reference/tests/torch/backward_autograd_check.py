#!/usr/bin/python3
"""The backward reference against PyTorch autograd, exactly.

For a few geometries (ranks 1-3, groups and depthwise, dilation, strides wider than the kernel,
asymmetric and negative pads, f32/f16/bf16 buffers in NCX/NXC and OIX/XIO), compute
  y = torch.nn.functional.conv{1,2,3}d(F.pad(x, pads), W, b, stride, dilation, groups)
in float64 on small integers, backpropagate a random integer dy, and compare x.grad, W.grad and
b.grad with reference_backward_cli (the C++ reference, backward.hpp) element for element, with ==.
Integer data keeps every sum exact in double in both, so any difference is a wrong index set.
F.pad takes asymmetric pads and crops with negative ones, which conv*d's own `padding` cannot.

usage: backward_autograd_check.py <reference_backward_cli>
Exit 0 when every case agrees, 1 on a mismatch, 2 on a usage error, 77 (skipped) without torch.
"""

import sys

import torch_check
from torch_check import parse

# descriptor (the reference's canonical string) and the data seed: together, a reproducer.
CASES = [
    ("n=2,c=4,o=6,g=2,in=11,k=3,s=2,d=2,pb=2,pe=1,bias=1", 1),
    ("n=1,c=2,o=3,in=13,k=2,s=4,pb=0,pe=3,bias=0", 2),  # stride > kernel: inputs nothing reads
    ("n=2,c=3,o=4,in=9x8,k=3x2,s=2x3,d=1x2,pb=1x0,pe=2x1,bias=1", 3),
    ("n=1,c=4,o=4,g=4,in=7x7,k=3x3,s=2x2,pb=1x1,pe=0x1,bias=1,dt=f16,data=nxc,wei=xio", 4),  # depthwise
    ("n=1,c=2,o=2,in=8x9,k=2x3,s=1x2,pb=-1x2,pe=-2x0,bias=1,dt=bf16,data=nxc", 5),  # a negative pad crops
    ("n=2,c=2,o=4,g=2,in=5x6x4,k=2x3x2,s=2x1x2,d=2x1x1,pb=1x1x0,pe=0x2x1,bias=1,wei=xio", 6),
]


def torch_gradients(torch, d, seed):
    F = torch.nn.functional
    gen = torch.Generator().manual_seed(seed)
    ints = lambda *shape: torch.randint(-4, 5, shape, generator=gen).to(torch.float64)  # noqa: E731
    x = ints(d["n"], d["c"], *d["in"]).requires_grad_()
    w = ints(d["o"], d["c"] // d["g"], *d["k"]).requires_grad_()
    b = ints(d["o"]).requires_grad_() if d["bias"] else None
    pads = []
    for begin, end in zip(reversed(d["pb"]), reversed(d["pe"])):  # F.pad: last axis first
        pads += [begin, end]
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[len(d["in"])]
    y = conv(F.pad(x, pads), w, b, stride=d["s"], dilation=d["d"], groups=d["g"])
    dy = ints(*y.shape)
    y.backward(dy)
    grads = {"diff_src": x.grad, "diff_weights": w.grad}
    if b is not None:
        grads["diff_bias"] = b.grad
    return x.detach(), w.detach(), dy, grads


def compute(torch, descriptor, seed):
    x, w, dy, grads = torch_gradients(torch, parse(descriptor), seed)
    numbers = [v for t in (x, w, dy) for v in t.flatten().tolist()]
    want = {name: tensor.flatten().tolist() for name, tensor in grads.items()}
    return numbers, want, ", ".join(f"{n} {len(t)} elements" for n, t in want.items())


if __name__ == "__main__":
    sys.exit(torch_check.main(__doc__, CASES, compute))
