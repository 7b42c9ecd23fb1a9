# PyTorch's convolutions as a convcheck backend:
#   convcheck run --backend python:examples/python/torch_backend.py --suite smoke
#   ... --backend-option device=cuda --backend-option tf32=off
# device= cpu, cuda or cuda:N (default: cuda where torch sees a GPU, else cpu); tf32= on or off (CUDA only; default:
# torch's own setting, torch.backends.cudnn.allow_tf32). On CUDA with TF32 on, the backend names itself
# torch-cuda-tf32, whose declaration in conformance/data/backends.json says that f32 inputs are rounded to TF32; with
# TF32 off, torch-cuda. Both are declared there with cuDNN's transform-based algorithms (a whole-tensor bound, exact
# mode judged by it) and with the bias added after the convolution is rounded to dst (two roundings).
# conv_transposed: F.conv_transpose1d/2d/3d; qconv (CPU): PyTorch's quantized ops on QNNPACK, as the libtorch plugin
# calls them (conformance/plugins/libtorch/libtorch_quantized.cpp), declaring the rule QNNPACK follows.
import numpy as np
import torch
import torch.nn.functional as F

import convcheck_backend

device = "cuda" if torch.cuda.is_available() else "cpu"
DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16}


def configure(options):
    global device
    unknown = set(options) - {"device", "tf32"}
    if unknown:
        raise ValueError("torch_backend takes device= and tf32=, not %s" % ", ".join(sorted(unknown)))
    device = options.get("device", device)
    torch.zeros(1, device=device)  # an unknown or absent device fails here, in torch's words
    if "tf32" in options:
        if options["tf32"] not in ("on", "off"):
            raise ValueError("tf32=%s: on or off" % options["tf32"])
        torch.backends.cudnn.allow_tf32 = options["tf32"] == "on"
    if convcheck_backend.num_threads > 0:
        torch.set_num_threads(convcheck_backend.num_threads)


def describe():
    cuda = device.startswith("cuda")
    tf32 = cuda and torch.backends.cudnn.allow_tf32
    # on the CPU, torch 1.13 has no f16 convolution, and its bf16 one accumulates in bf16 without AVX-512
    # (docs/backends.md, finding T3): both left out there
    # quantized convolution: PyTorch's quantized CPU ops only (it has no CUDA quantized convolution), so on the CPU
    # alone; QNNPACK rounds f32(acc) * f32(M) to nearest even, then adds the dst zero point (qconv below)
    quantized = {} if cuda else {"requantization": "nearest_even_f32", "integer_accumulator": "s32"}
    return dict({"name": "torch-cuda" + ("-tf32" if tf32 else "") if cuda else "torch-cpu", "version": torch.__version__,
                 "dtypes": ["f32", "f64", "f16", "bf16"] if cuda else ["f32", "f64", "u8", "s8", "s32"],
                 "ranks": [1, 2, 3], "data_formats": ["ncx"], "filter_formats": ["oix"], "accumulation_dtype": "f32"},
                **quantized)


def query(desc):
    if desc.quantization is not None:
        return qconv_declines(desc)
    if desc.operation == "conv_transposed" and desc.dtypes["dst"] in ("f16", "bf16") and not transposed_direct(desc):
        return ("torch's padding and output_padding cannot say these pads (padding = pads_begin >= 0 and output_padding "
                "+ pads_begin - pads_end below the stride or the dilation: \"output padding must be smaller than either "
                "stride or dilation\"); the example crops an f32 or f64 result only (an %s one would be rounded before "
                "the bias is added)" % desc.dtypes["dst"])
    return None


def forward(desc, src, weights, bias):
    pads = [p for b, e in zip(reversed(desc.pads_begin), reversed(desc.pads_end)) for p in (b, e)]
    conv = (F.conv1d, F.conv2d, F.conv3d)[desc.rank - 1]
    return conv(F.pad(src, pads), weights, bias, stride=desc.strides, dilation=desc.dilations, groups=desc.groups)


def tensor(desc, array, name):
    return torch.from_numpy(array).to(device=device, dtype=DTYPES[desc.dtypes[name]])


def result(t):
    return t.detach().to("cpu", torch.float32 if t.dtype == torch.bfloat16 else t.dtype).numpy()


def conv(desc, src, weights, bias):
    b = None if bias is None else tensor(desc, bias, "bias")
    return result(forward(desc, tensor(desc, src, "src"), tensor(desc, weights, "weights"), b))


def conv_backward_data(desc, diff_dst, weights):
    src = torch.zeros([desc.batch, desc.in_channels, *desc.input_size], device=device,
                      dtype=DTYPES[desc.dtypes["src"]], requires_grad=True)
    out = forward(desc, src, tensor(desc, weights, "weights"), None)
    return result(torch.autograd.grad(out, src, tensor(desc, diff_dst, "dst"))[0])


def conv_backward_weights(desc, src, diff_dst):
    w = torch.zeros([desc.out_channels, desc.in_channels // desc.groups, *desc.kernel_size], device=device,
                    dtype=DTYPES[desc.dtypes["weights"]], requires_grad=True)
    b = torch.zeros([desc.out_channels], device=device, dtype=DTYPES[desc.dtypes["bias"]], requires_grad=True)
    out = forward(desc, tensor(desc, src, "src"), w, b if desc.has_bias else None)
    grads = torch.autograd.grad(out, [w, b] if desc.has_bias else [w], tensor(desc, diff_dst, "dst"))
    return tuple(result(g) for g in grads) if desc.has_bias else result(grads[0])


def transposed_output_padding(desc, a):
    """torch's output_padding on axis a for padding = pads_begin: out = (in - 1) * s - 2 * pb + K + op'."""
    return desc.output_padding[a] + desc.pads_begin[a] - desc.pads_end[a]


def transposed_direct(desc):
    """torch's padding and output_padding say the case: pads_begin >= 0 and 0 <= op' < stride or dilation."""
    return all(desc.pads_begin[a] >= 0 and 0 <= transposed_output_padding(desc, a) and
               (transposed_output_padding(desc, a) < desc.strides[a] or transposed_output_padding(desc, a) < desc.dilations[a])
               for a in range(desc.rank))


def conv_transposed(desc, src, weights, bias):
    """F.conv_transpose1d/2d/3d: weights [in_channels][out_channels / groups][k...] as the descriptor's oix. Where
    torch's padding (one per axis, both sides) and output_padding cannot say the pads, the whole output (padding 0)
    is cropped and extended with F.pad (negative: a crop; positive: zeros no tap reaches), then the bias added."""
    conv = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[desc.rank - 1]
    x, w = tensor(desc, src, "src"), tensor(desc, weights, "weights")
    b = None if bias is None else tensor(desc, bias, "bias")
    if transposed_direct(desc):
        return result(conv(x, w, b, stride=desc.strides, padding=desc.pads_begin, groups=desc.groups,
                           dilation=desc.dilations,
                           output_padding=[transposed_output_padding(desc, a) for a in range(desc.rank)]))
    out = conv(x, w, None, stride=desc.strides, padding=0, groups=desc.groups, dilation=desc.dilations)
    # F.pad: the last axis first, (begin, end) pairs
    out = F.pad(out, [p for a in reversed(range(desc.rank)) for p in (-desc.pads_begin[a], desc.output_padding[a] - desc.pads_end[a])])
    if b is not None:
        out = out + b.reshape(1, -1, *([1] * desc.rank))
    return result(out)


# Quantized convolution (qconv:): torch.ops.quantized.convNd_prepack of the qint8 weights and a float bias, then
# torch.ops.quantized.convNd (or convNd_relu), on the QNNPACK engine (Debian's torch 1.13 has qnnpack and onednn, no
# fbgemm). quint8 src runs on QNNPACK's kernels, qint8 src (ranks 1-2) on PyTorch's XNNPACK path; dst has the src's
# type. Both round f32(acc) * f32(M) to nearest even and add the dst zero point after (declared nearest_even_f32).

def qconv_declines(desc):
    """Why torch's quantized convolution cannot compute this case, in its words; None when it can."""
    q, t = desc.quantization, desc.dtypes
    if desc.rank not in (1, 2, 3):
        return "PyTorch's quantized convolution has spatial ranks 1-3 (quantized::conv1d, conv2d, conv3d)"
    if t["weights"] != "s8":
        return ("PyTorch's quantized convolution takes qint8 weights: quantized::conv2d_prepack of quint8 weights raises "
                "\"expected scalar type QInt8 but found QUInt8\"")
    name = {"u8": "quint8", "s8": "qint8"}
    if t["dst"] != t["src"]:
        return ("PyTorch's quantized::conv returns a tensor of the activation's type: a %s src gives a %s dst, not %s"
                % (name[t["src"]], name[t["src"]], name.get(t["dst"], t["dst"])))
    if desc.has_bias and t["bias"] != "s32":
        return ("PyTorch quantizes a float bias to int32 at scale src_scale * weights_scale (quant_utils::QuantizeBias) "
                "before adding it to the accumulator; the case adds its f32 bias unrounded, after the scales")
    ranges = {"u8": (0, 255), "s8": (-128, 127)}
    for tensor, points in (("src", q.src_zero_points), ("weights", q.weights_zero_points), ("dst", q.dst_zero_points)):
        lo, hi = ranges[t[tensor]] if t[tensor] in ranges else ranges[t["src"]]
        if any(z < lo or z > hi for z in points):
            return ("PyTorch's quantized tensors hold zero points in their type's range ([%d, %d] for %s): the %s zero "
                    "points %s are outside it" % (lo, hi, t[tensor] if t[tensor] in ranges else t["src"], tensor,
                                                  list(points)))
    if len(q.weights_zero_points) != 1:
        return ("this example quantizes the weights per tensor, or per channel with one zero point (QNNPACK's prepack "
                "here checks \"quantizer->qscheme() == kPerTensorAffine\" on per-channel zero points); the C libtorch "
                "plugin runs them")
    if len(q.src_zero_points) != 1 or len(q.dst_zero_points) != 1:
        return "PyTorch's quantized tensors have one zero point per tensor (src and dst zero points per channel)"
    if t["src"] == "s8" and desc.rank == 3:
        return ("PyTorch sends qint8 activations to XNNPACK, which it does not use in 3-D: quantized::conv3d raises "
                "\"quantized::conv (xnnpack): Unsupported conv config for dtype KQInt8\"")
    if t["src"] == "s8" and any(q.weights_zero_points):
        return ("PyTorch's XNNPACK path (qint8 activations) takes no weights zero point: per tensor it raises \"XNNPACK "
                "Q[SC]8 conv kernels expects kernel zero point to be zero\", per channel it ignores it, not "
                "weights zero points %s" % list(q.weights_zero_points))
    if any(i + b + e < 1 for i, b, e in zip(desc.input_size, desc.pads_begin, desc.pads_end)):
        return "the padded input is empty: PyTorch's quantized convolution takes no empty input"
    return None


def float_bias(desc, qweights, bias):
    """The float bias that PyTorch's own QuantizeBias (scale src_scale * weights_scale(oc), f32) turns into the case's
    int32 bias: from the f32 nearest bias * scale, one f32 step at a time towards it."""
    q = desc.quantization
    per_channel = len(q.weights_scales) != 1
    scales = (qweights.q_per_channel_scales() if per_channel else torch.tensor([qweights.q_scale()], dtype=torch.float64))
    want = torch.from_numpy(bias.astype(np.int32))
    f = (want.double() * (scales * q.src_scale)).float()
    for _ in range(17):
        if per_channel:
            got = torch.quantize_per_channel(f, scales * q.src_scale, torch.zeros(len(f), dtype=torch.long), 0,
                                             torch.qint32).int_repr()
        else:
            got = torch.quantize_per_tensor(f, qweights.q_scale() * q.src_scale, 0, torch.qint32).int_repr()
        if torch.equal(got, want):
            return f
        f = torch.where(got == want, f, torch.nextafter(f, torch.where(got < want, torch.tensor(float("inf")),
                                                                       torch.tensor(float("-inf")))))
    raise ValueError("PyTorch takes a float bias and quantizes it itself (QuantizeBias, in f32): no float bias gives "
                     "the case's int32 bias %s" % bias.tolist())


def qconv(desc, src, weights, bias):
    why = qconv_declines(desc)
    if why:
        raise convcheck_backend.Decline(why)
    torch.backends.quantized.engine = "qnnpack"
    q, rank = desc.quantization, desc.rank
    szp, dzp = q.src_zero_points[0], q.dst_zero_points[0]
    # quantized::convNd_prepack takes one non-negative padding per axis, both sides: the equal part goes there, the
    # rest is applied to the src integers (padded with the src zero point, the padding's value; cropped if negative)
    common = [max(0, min(b, e)) for b, e in zip(desc.pads_begin, desc.pads_end)]
    x = np.pad(src, [(0, 0), (0, 0)] + [(max(b - c, 0), max(e - c, 0)) for b, e, c in zip(desc.pads_begin, desc.pads_end, common)],
               constant_values=szp)
    x = x[(slice(None), slice(None)) + tuple(slice(max(c - b, 0), n - max(c - e, 0))
                                             for b, e, c, n in zip(desc.pads_begin, desc.pads_end, common, x.shape[2:]))]
    qtype = {"u8": torch.quint8, "s8": torch.qint8}[desc.dtypes["src"]]
    qx = torch._make_per_tensor_quantized_tensor(torch.from_numpy(np.ascontiguousarray(x)), q.src_scale, szp)
    w = torch.from_numpy(weights)
    if len(q.weights_scales) == 1:
        qw = torch._make_per_tensor_quantized_tensor(w, q.weights_scales[0], q.weights_zero_points[0])
    else:
        qw = torch._make_per_channel_quantized_tensor(w, torch.tensor(q.weights_scales, dtype=torch.float64),
                                                      torch.full([desc.out_channels], q.weights_zero_points[0]), 0)
    b = None if bias is None else float_bias(desc, qw, bias)
    ops = torch.ops.quantized
    prepack = (ops.conv1d_prepack, ops.conv2d_prepack, ops.conv3d_prepack)[rank - 1]
    packed = prepack(qw, b, list(desc.strides), common, list(desc.dilations), desc.groups)
    lowest, highest = {"u8": (0, 255), "s8": (-128, 127)}[desc.dtypes["src"]]
    relu = (q.dst_min, q.dst_max) == (dzp, highest) and dzp != lowest  # [zero point, max]: convNd_relu
    op = ((ops.conv1d_relu, ops.conv2d_relu, ops.conv3d_relu) if relu else (ops.conv1d, ops.conv2d, ops.conv3d))[rank - 1]
    out = op(qx, packed, q.dst_scale, dzp)
    if not relu and (q.dst_min, q.dst_max) != (lowest, highest):
        # any other range: torch.clamp of the quantized result, as a quantized ReLU6 / Hardtanh after a convolution;
        # given contiguous memory (docs/backends.md, finding TQ1)
        out = torch.clamp(out.contiguous(), (q.dst_min - dzp) * q.dst_scale, (q.dst_max - dzp) * q.dst_scale)
    assert out.dtype == qtype
    return out.int_repr().contiguous().numpy()
