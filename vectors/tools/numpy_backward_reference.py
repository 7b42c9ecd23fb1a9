#!/usr/bin/python3
"""The second reference for the backward passes and transposed convolution, numpy, float64, written from
SPEC-NOTES 5 ("Adjoints"), not from the C++ code: the forward pairs output (n, o, y) with input x = y*s - pb +
k*d (in range) and weight (o, c_g, k); each gradient scatters every such term once.

  backward data     diff_src[n, c, x]     += diff_dst[n, o, y] * W[o, c_g, k]
  backward weights  diff_W[o, c_g, k]     += src[n, c, x] * diff_dst[n, o, y]
  backward bias     diff_b[o]             += diff_dst[n, o, y]
  transposed        dst = the backward data of its forward (c and o swapped, input = the output,
                    pads_end = pe - op), plus bias

Each returns (values, magnitude, terms): the sums, the sums of |term|, the numbers of terms (canonical
NCX / OIX / [O]). The loops run over output positions and taps; the arithmetic is vectorized over batch and
channels.

usage: numpy_backward_reference.py "<descriptor>"   (prints an iota case's gradients)
"""

import itertools
import sys

import numpy as np

import numpy_reference as ref


def _dir(text):
    fields = dict(f.split("=", 1) for f in text.split(":", 1)[-1].split(","))
    return fields.get("dir", "fwd")


def pass_of(text):
    """'bwd_d', 'bwd_w', 'fwd' for conv descriptors; 'deconv' for transposed ones."""
    return "deconv" if text.startswith("deconv:") else _dir(text)


def _pairs(desc):
    """Every (output index y, tap k, input index x) of the forward's sum, x in range."""
    out = desc.output_size()
    for y in itertools.product(*[range(o) for o in out]):
        for k in itertools.product(*[range(kk) for kk in desc.kernel_size]):
            x = tuple(y[a] * desc.strides[a] - desc.pads_begin[a] + k[a] * desc.dilations[a] for a in range(desc.rank))
            if all(0 <= x[a] < desc.input_size[a] for a in range(desc.rank)):
                yield y, k, x


def _group_blocks(desc):
    cg, og = desc.in_channels // desc.groups, desc.out_channels // desc.groups
    for g in range(desc.groups):
        yield slice(g * cg, (g + 1) * cg), slice(g * og, (g + 1) * og)


def backward_data(desc, diff_dst, weights):
    """diff_dst NCX, weights OIX -> diff_src NCX (values, magnitude, terms)."""
    shape = [desc.batch, desc.in_channels] + desc.input_size
    values, magnitude = np.zeros(shape), np.zeros(shape)
    terms = np.zeros(shape, dtype=np.int64)
    for y, k, x in _pairs(desc):
        for cs, os_ in _group_blocks(desc):
            w = weights[(os_, slice(None)) + k]            # [O/G][C/G]
            dy = diff_dst[(slice(None), os_) + y]          # [N][O/G]
            values[(slice(None), cs) + x] += dy @ w
            magnitude[(slice(None), cs) + x] += np.abs(dy) @ np.abs(w)
            terms[(slice(None), cs) + x] += w.shape[0]
    return values, magnitude, terms


def backward_weights(desc, src, diff_dst):
    """src NCX, diff_dst NCX -> diff_weights OIX (values, magnitude, terms)."""
    shape = [desc.out_channels, desc.in_channels // desc.groups] + desc.kernel_size
    values, magnitude = np.zeros(shape), np.zeros(shape)
    terms = np.zeros(shape, dtype=np.int64)
    for y, k, x in _pairs(desc):
        for cs, os_ in _group_blocks(desc):
            xs = src[(slice(None), cs) + x]                # [N][C/G]
            dy = diff_dst[(slice(None), os_) + y]          # [N][O/G]
            values[(os_, slice(None)) + k] += dy.T @ xs
            magnitude[(os_, slice(None)) + k] += np.abs(dy).T @ np.abs(xs)
            terms[(os_, slice(None)) + k] += desc.batch
    return values, magnitude, terms


def backward_bias(desc, diff_dst):
    """diff_dst NCX -> diff_bias [O] (values, magnitude, terms)."""
    axes = (0,) + tuple(range(2, 2 + desc.rank))
    count = desc.batch * int(np.prod(desc.output_size()))
    return diff_dst.sum(axis=axes), np.abs(diff_dst).sum(axis=axes), np.full(desc.out_channels, count, dtype=np.int64)


class Transposed:
    """A deconv: descriptor: the fields of core/include/convcheck/core/transposed_descriptor.hpp; forward() is the convolution whose
    backward data it is."""

    def __init__(self, text):
        body = text[len("deconv:"):]
        fields = dict(f.split("=", 1) for f in body.split(","))
        self.output_padding = [int(v) for v in fields.pop("op", "0").split("x")]
        self.conv = ref.Descriptor(",".join(f"{k}={v}" for k, v in fields.items()))
        if len(self.output_padding) == 1:
            self.output_padding *= self.conv.rank
        c = self.conv
        self.rank, self.batch, self.has_bias, self.dtype = c.rank, c.batch, c.has_bias, c.dtype
        self.data_format, self.filter_format = c.data_format, c.filter_format
        self.in_channels, self.out_channels = c.in_channels, c.out_channels

    def output_size(self):
        c = self.conv
        return [(i - 1) * s - pb - pe + d * (k - 1) + 1 + op for i, s, pb, pe, d, k, op in
                zip(c.input_size, c.strides, c.pads_begin, c.pads_end, c.dilations, c.kernel_size, self.output_padding)]

    def forward(self):
        c = self.conv
        x = lambda values: "x".join(str(v) for v in values)
        pads_end = [pe - op for pe, op in zip(c.pads_end, self.output_padding)]
        return ref.Descriptor(f"n={c.batch},c={c.out_channels},o={c.in_channels},g={c.groups},in={x(self.output_size())},"
                              f"k={x(c.kernel_size)},s={x(c.strides)},d={x(c.dilations)},pb={x(c.pads_begin)},"
                              f"pe={x(pads_end)},dt={c.dtype},data={c.data_format},wei={c.filter_format}")


def transposed(t, src, weights, bias):
    """src NCX (the transposed op's input), weights the forward's OIX, bias [O] or None -> dst NCX."""
    f = t.forward()
    values, magnitude, terms = backward_data(f, src, weights)
    if bias is not None:
        shape = (1, -1) + (1,) * t.rank
        values = values + bias.reshape(shape)
        magnitude = magnitude + np.abs(bias).reshape(shape)
        terms = terms + 1
    return values, magnitude, terms


def main(argv):
    text = argv[1] if len(argv) > 1 else "c=1,o=1,in=5,k=3,s=2,dir=bwd_d"
    np.set_printoptions(linewidth=150)
    if pass_of(text) == "deconv":
        t = Transposed(text)
        f = t.forward()
        src = (np.arange(np.prod([t.batch, t.in_channels] + t.conv.input_size)) % 16 + 1).reshape([t.batch, t.in_channels] + t.conv.input_size)
        wshape = [f.out_channels, f.in_channels // f.groups] + f.kernel_size
        weights = (np.arange(np.prod(wshape)) % 3 - 1).reshape(wshape)
        print("dst (NCX):\n", transposed(t, src.astype(float), weights.astype(float), None)[0])
        return
    desc = ref.Descriptor(text)
    dshape = [desc.batch, desc.out_channels] + desc.output_size()
    diff_dst = (np.arange(np.prod(dshape)) % 16 + 1).reshape(dshape).astype(float)
    if pass_of(text) == "bwd_d":
        wshape = [desc.out_channels, desc.in_channels // desc.groups] + desc.kernel_size
        weights = (np.arange(np.prod(wshape)) % 3 - 1).reshape(wshape).astype(float)
        print("diff_src (NCX):\n", backward_data(desc, diff_dst, weights)[0])
    else:
        sshape = [desc.batch, desc.in_channels] + desc.input_size
        src = (np.arange(np.prod(sshape)) % 16 + 1).reshape(sshape).astype(float)
        print("diff_weights (OIX):\n", backward_weights(desc, src, diff_dst)[0])
        print("diff_bias:\n", backward_bias(desc, diff_dst)[0])


if __name__ == "__main__":
    main(sys.argv)
