"""A second reference for discrete convolution, in numpy, written from the seed texts.

It follows OpenVINO Convolution-1's "as if" narrative (seed 001), not the C++ reference's summation
loop, so that the two readings are independent:

    "each sample input first has p_b zeros inserted before and p_e zeros inserted [after] ... giving a
     padded input size of p_b+p_e+X_I. The kernel is stretched by a factor of d on each of its spatial
     dimensions. The last index of the stretched kernel is then d(X_K-1) so the shape is d(X_K-1)+1.
     The padded input and the dilated kernel are then ungrouped into g equal-sized input and kernel
     segments; padded input segment i and dilated kernel segment i are convolved. The convolution is
     only performed where there is complete spatial overlap between the shifted kernel and the padded
     input. ... [the segments are regrouped and] the output is down-sampled [keeping every s-th]."

A negative pad removes elements (SPEC-NOTES 1: "a negative pad crops"). Everything is float64.

The rounding to f32 / f16 / bf16 is IEEE 754 round-to-nearest-even written from the standard's
definition (round with an unbounded exponent at the format's quantum, then overflow to infinity when
the result exceeds the largest finite value), not numpy's casts; the verifier also checks it against
numpy's own f32 and f16 casts.

Also usable from the command line: numpy_reference.py "<descriptor>" runs an iota case and prints it.
"""

import sys

import numpy as np

# ---- the canonical descriptor string (core/include/convcheck/core/descriptor.hpp): conv:n=1,c=16,o=32,g=1,in=7x7,k=3x3,...


class Descriptor:
    def __init__(self, text):
        text = text[len("conv:"):] if text.startswith("conv:") else text
        fields = dict(f.split("=", 1) for f in text.split(","))
        spatial = lambda key, default: [int(v) for v in fields[key].split("x")] if key in fields else None
        self.input_size = spatial("in", None)
        self.rank = len(self.input_size)

        def axes(key, default):
            v = spatial(key, default)
            if v is None:
                return [default] * self.rank
            return v * self.rank if len(v) == 1 else v

        self.kernel_size = axes("k", 1)
        self.strides = axes("s", 1)
        self.dilations = axes("d", 1)
        self.pads_begin = axes("pb", 0)
        self.pads_end = axes("pe", 0)
        self.batch = int(fields.get("n", 1))
        self.in_channels = int(fields["c"])
        self.out_channels = int(fields["o"])
        self.groups = int(fields.get("g", 1))
        self.has_bias = fields.get("bias", "0") == "1"
        self.dtype = fields.get("dt", "f32")
        self.data_format = fields.get("data", "ncx")
        self.filter_format = fields.get("wei", "oix")

    def output_size(self):
        # OpenVINO: floor((p_b + p_e + X_I - d(X_K - 1) - 1) / s) + 1
        return [(pb + pe + xi - d * (xk - 1) - 1) // s + 1 for xi, xk, s, d, pb, pe in
                zip(self.input_size, self.kernel_size, self.strides, self.dilations, self.pads_begin, self.pads_end)]


# ---- layouts: the reference works on NCX data and OIX weights


def to_ncx(x, desc):
    return np.moveaxis(x, -1, 1) if desc.data_format == "nxc" else x


def from_ncx(x, desc):
    return np.moveaxis(x, 1, -1) if desc.data_format == "nxc" else x


def to_oix(w, desc):
    # XIO = [k...][I/G][O] -> OIX = [O][I/G][k...]
    if desc.filter_format == "xio":
        r = desc.rank
        return np.transpose(w, [r + 1, r] + list(range(r)))
    return w


# ---- the narrative, step by step


def pad(x, desc):
    """Insert p_b zeros before and p_e after each spatial axis of [N][C][spatial...]; a negative pad crops."""
    for axis, (pb, pe) in enumerate(zip(desc.pads_begin, desc.pads_end)):
        a = 2 + axis
        if pb < 0:
            x = np.take(x, range(-pb, x.shape[a]), axis=a)
        if pe < 0:
            x = np.take(x, range(0, x.shape[a] + pe), axis=a)
        widths = [(0, 0)] * x.ndim
        widths[a] = (max(pb, 0), max(pe, 0))
        x = np.pad(x, widths)
    return x


def stretch(w, desc):
    """Stretch the kernel by d: index j moves to d*j, zeros between; the shape becomes d(X_K-1)+1."""
    shape = list(w.shape[:2]) + [d * (k - 1) + 1 for k, d in zip(desc.kernel_size, desc.dilations)]
    stretched = np.zeros(shape, dtype=w.dtype)
    stretched[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in desc.dilations)] = w
    return stretched


def full_overlap_correlation(x, w):
    """Correlate where the kernel lies fully inside x: x [N][C][spatial...], w [O][C][K...] -> [N][O][spatial'...]."""
    rank = x.ndim - 2
    windows = np.lib.stride_tricks.sliding_window_view(x, w.shape[2:], axis=tuple(range(2, 2 + rank)))
    # windows: [N][C][out...][K...]; sum over C and K...
    letters = "defghi"[:rank]
    kernel = "uvw"[:rank]
    return np.einsum(f"nc{letters}{kernel},oc{kernel}->no{letters}", windows, w, optimize=True)


def convolution(desc, src, weights, bias=None):
    """src, weights, bias as float64 arrays in the descriptor's formats; returns float64 dst in its data_format."""
    x = pad(to_ncx(np.asarray(src, dtype=np.float64), desc), desc)
    w = stretch(to_oix(np.asarray(weights, dtype=np.float64), desc), desc)
    g = desc.groups
    # ungroup, convolve each segment, regroup
    segments = [full_overlap_correlation(xs, ws) for xs, ws in zip(np.split(x, g, axis=1), np.split(w, g, axis=0))]
    y = np.concatenate(segments, axis=1)
    # keep every s-th
    y = y[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in desc.strides)]
    assert list(y.shape[2:]) == desc.output_size(), (y.shape, desc.output_size())
    if desc.has_bias:
        y = y + np.asarray(bias, dtype=np.float64).reshape([1, -1] + [1] * desc.rank)
    return from_ncx(y, desc)


def magnitude_and_terms(desc, src, weights, bias=None):
    """sum |x*w| (+|bias|) and the number of products over real (not padded) inputs (+1 for bias), NCX."""
    magnitude = convolution(desc, np.abs(src), np.abs(weights), None if bias is None else np.abs(bias))
    ones = np.ones(np.shape(src))
    kernel_ones = np.ones(np.shape(weights))
    terms = convolution(desc, ones, kernel_ones, None if bias is None else np.ones(np.shape(bias)))
    return to_ncx(magnitude, desc), to_ncx(np.rint(terms).astype(np.int64), desc)


# ---- IEEE 754 rounding to nearest, ties to even


FORMATS = {
    # significand bits p (hidden bit included), smallest normal exponent emin, largest exponent emax
    "f32": (24, -126, 127),
    "f16": (11, -14, 15),
    "bf16": (8, -126, 127),
}


def round_to(dtype, x):
    """Round float64 values to the format, once; returns float64 holding the rounded values."""
    p, emin, emax = FORMATS[dtype]
    x = np.asarray(x, dtype=np.float64)
    out = x.copy()
    finite = np.isfinite(x) & (x != 0)
    _, e = np.frexp(x[finite])                   # x = m * 2^e, 0.5 <= |m| < 1: exponent E = e - 1
    exponent = np.maximum(e - 1, emin)           # subnormals share the quantum of the smallest normal
    quantum = np.ldexp(1.0, exponent - (p - 1))
    rounded = np.rint(x[finite] / quantum) * quantum   # np.rint rounds half to even
    largest = (2.0 - 2.0 ** (1 - p)) * 2.0 ** emax
    rounded = np.where(np.abs(rounded) > largest, np.copysign(np.inf, rounded), rounded)
    out[finite] = rounded
    return out


def to_bits(dtype, rounded):
    """Bit patterns of values already rounded to dtype: uint32 for f32, uint16 for f16 and bf16."""
    rounded = np.asarray(rounded, dtype=np.float64)
    if dtype == "f32":
        return rounded.astype(np.float32).view(np.uint32)
    if dtype == "f16":
        return rounded.astype(np.float16).view(np.uint16)
    return (rounded.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def from_storage(dtype, array):
    """Widen a stored array (f32, f16, or bf16 bit patterns in uint16) to float64."""
    if dtype == "bf16":
        return (np.asarray(array, dtype=np.uint32) << 16).view(np.float32).astype(np.float64)
    return np.asarray(array).astype(np.float64)


def main(argv):
    desc = Descriptor(argv[1] if len(argv) > 1 else "c=1,o=1,in=4x4,k=3x3")
    ncx_src_shape = [desc.batch, desc.in_channels] + desc.input_size
    src = (np.arange(np.prod(ncx_src_shape)) % 16 + 1).reshape(ncx_src_shape)
    wshape = [desc.out_channels, desc.in_channels // desc.groups] + desc.kernel_size
    weights = (np.arange(np.prod(wshape)) % 3 - 1).reshape(wshape)
    desc.data_format, desc.filter_format = "ncx", "oix"
    bias = np.arange(desc.out_channels) + 1.0 if desc.has_bias else None
    np.set_printoptions(linewidth=150)
    print("src (NCX):\n", src, "\nweights (OIX):\n", weights, "\ndst (NCX):\n", convolution(desc, src, weights, bias))


if __name__ == "__main__":
    main(sys.argv)
