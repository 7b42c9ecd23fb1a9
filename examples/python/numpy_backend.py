# A convcheck backend in numpy: `convcheck run --backend python:examples/python/numpy_backend.py --suite smoke`.
# The forward pass of a grouped, strided, dilated, padded (or cropped) convolution, NCX/OIX: f32 and f64 summed in
# float64 and rounded once to the output's dtype; quantized (u8/s8 src and weights, s32 bias, u8/s8/s32 or float
# dst) summed exactly in int64 and requantized by the rule it declares, ONNX's QLinearConv rule; and the transposed
# convolution (deconv:, output padding), f32 and f64, summed in float64.
import numpy as np


def describe():
    return {"name": "numpy", "version": np.__version__, "dtypes": ["f32", "f64", "u8", "s8", "s32"],
            "ranks": [1, 2, 3], "data_formats": ["ncx"], "filter_formats": ["oix"], "accumulation_dtype": "f64",
            "requantization": "nearest_even_f32_with_zero_point", "integer_accumulator": "s32",
            "zero_points_outside_types": True}  # int64 sums hold any s32 zero point


def correlate(desc, x, w, dtype):
    """sum over the taps of x (NCX, padded with zeros) times w (OIX), grouped, in `dtype`."""
    x = np.pad(x.astype(dtype), [(0, 0), (0, 0)] + [(max(b, 0), max(e, 0)) for b, e in zip(desc.pads_begin, desc.pads_end)])
    x = x[(slice(None), slice(None)) + tuple(slice(max(-b, 0), size - max(-e, 0))  # a negative pad crops
                                             for b, e, size in zip(desc.pads_begin, desc.pads_end, x.shape[2:]))]
    n, g = x.shape[0], desc.groups
    x = x.reshape(n, g, -1, *x.shape[2:])
    w = w.astype(dtype).reshape(g, -1, *w.shape[1:])
    dst = np.zeros((n, g, w.shape[1], *desc.output_size), dtype=dtype)
    for tap in np.ndindex(*desc.kernel_size):
        window = tuple(slice(t * d, t * d + (o - 1) * s + 1, s)
                       for t, d, o, s in zip(tap, desc.dilations, desc.output_size, desc.strides))
        dst += np.einsum("ngc...,goc->ngo...", x[(Ellipsis,) + window], w[(Ellipsis,) + tap])
    return dst.reshape(n, -1, *desc.output_size)


def conv(desc, src, weights, bias):
    dst = correlate(desc, src, weights, np.float64)
    if bias is not None:
        dst += bias.reshape(1, -1, *([1] * desc.rank))
    return dst.astype(src.dtype)


def qconv(desc, src, weights, bias):
    q, channel = desc.quantization, (1, -1) + (1,) * desc.rank  # a per-channel value's shape against NCX
    # the padding holds the zero point: subtract it first, then pad with zeros
    acc = correlate(desc, src.astype(np.int64) - np.array(q.src_zero_points).reshape(channel),
                    weights.astype(np.int64) - np.array(q.weights_zero_points).reshape((-1,) + (1,) * (desc.rank + 1)),
                    np.int64)
    f32_bias = bias is not None and desc.dtypes["bias"] == "f32"
    if bias is not None and not f32_bias:
        acc += bias.astype(np.int64).reshape(channel)  # an s32 bias is in the accumulator
    wsc = np.array(q.weights_scales, dtype=np.float64).reshape(channel)
    dzp = np.array(q.dst_zero_points, dtype=np.int64).reshape(channel)
    kind = desc.dtypes["dst"]
    if kind == "s32" and not f32_bias and q.src_scale == q.dst_scale == 1 and np.all(wsc == 1) and np.all(dzp == 0):
        return acc.astype(np.int32)  # the accumulator itself (ONNX ConvInteger)
    if kind in ("f32", "f64", "f16"):  # a float dst: the real value / dst scale + zero point, rounded once
        v = q.src_scale * wsc * acc + (bias.astype(np.float64).reshape(channel) if f32_bias else 0.0)
        return (v / q.dst_scale + dzp).astype(kind.replace("f", "float"))
    # nearest_even_f32_with_zero_point: f32(acc) * f32(M) (+ f32(bias / dsc)) + zero point in f32, ties to even
    t = acc.astype(np.float32) * (q.src_scale * wsc / q.dst_scale).astype(np.float32)
    if f32_bias:
        t = t + (bias.astype(np.float64) / q.dst_scale).astype(np.float32).reshape(channel)
    t = np.rint(t + dzp.astype(np.float32)).astype(np.float64)
    return np.clip(t, q.dst_min, q.dst_max).astype({"u8": np.uint8, "s8": np.int8, "s32": np.int32}[kind])


def conv_transposed(desc, src, weights, bias):
    """Each input position y scatters to the outputs x = y * stride - pads_begin + k * dilation (docs/transposed.md)."""
    n, g = src.shape[0], desc.groups
    x = src.astype(np.float64).reshape(n, g, -1, *src.shape[2:])
    w = weights.astype(np.float64).reshape(g, -1, *weights.shape[1:])  # [g][in/g][out/g][k...]
    # the whole output, before the pads: (input - 1) * stride + window, and room for the output padding at the end
    full = [(i - 1) * s + (k - 1) * d + 1 for i, s, k, d in zip(desc.input_size, desc.strides, desc.kernel_size, desc.dilations)]
    begin = [max(-p, 0) for p in desc.pads_begin]  # a negative pad widens the output
    size = [b + max(f, p + o) + max(op - e, 0)
            for b, f, p, o, e, op in zip(begin, full, desc.pads_begin, desc.output_size, desc.pads_end, desc.output_padding)]
    dst = np.zeros((n, g, w.shape[2], *size))
    for tap in np.ndindex(*desc.kernel_size):
        window = tuple(slice(b + t * d, b + t * d + (i - 1) * s + 1, s)
                       for b, t, d, i, s in zip(begin, tap, desc.dilations, desc.input_size, desc.strides))
        dst[(Ellipsis,) + window] += np.einsum("ngc...,gco->ngo...", x, w[(Ellipsis,) + tap])
    dst = dst[(slice(None),) * 3 + tuple(slice(b + p, b + p + o)
                                          for b, p, o in zip(begin, desc.pads_begin, desc.output_size))]
    dst = dst.reshape(n, -1, *desc.output_size)
    if bias is not None:
        dst += bias.reshape(1, -1, *([1] * desc.rank))
    return dst.astype(src.dtype)
