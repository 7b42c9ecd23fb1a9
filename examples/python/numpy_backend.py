# A convcheck backend in numpy: `convcheck run --backend python:examples/python/numpy_backend.py --suite smoke`.
# The forward pass of a grouped, strided, dilated, padded (or cropped) convolution, NCX/OIX, f32 and f64, summed in
# float64 and rounded once to the output's dtype.
import numpy as np


def describe():
    return {"name": "numpy", "version": np.__version__, "dtypes": ["f32", "f64"], "ranks": [1, 2, 3],
            "data_formats": ["ncx"], "filter_formats": ["oix"], "accumulation_dtype": "f64"}


def conv(desc, src, weights, bias):
    x = np.pad(src.astype(np.float64), [(0, 0), (0, 0)] + [(max(b, 0), max(e, 0))
                                                           for b, e in zip(desc.pads_begin, desc.pads_end)])
    x = x[(slice(None), slice(None)) + tuple(slice(max(-b, 0), size - max(-e, 0))  # a negative pad crops
                                             for b, e, size in zip(desc.pads_begin, desc.pads_end, x.shape[2:]))]
    n, g = x.shape[0], desc.groups
    x = x.reshape(n, g, -1, *x.shape[2:])
    w = weights.astype(np.float64).reshape(g, -1, *weights.shape[1:])
    dst = np.zeros((n, g, w.shape[1], *desc.output_size))
    for tap in np.ndindex(*desc.kernel_size):
        window = tuple(slice(t * d, t * d + (o - 1) * s + 1, s)
                       for t, d, o, s in zip(tap, desc.dilations, desc.output_size, desc.strides))
        dst += np.einsum("ngc...,goc->ngo...", x[(Ellipsis,) + window], w[(Ellipsis,) + tap])
    dst = dst.reshape(n, -1, *desc.output_size)
    if bias is not None:
        dst += bias.reshape(1, -1, *([1] * desc.rank))
    return dst.astype(src.dtype)
