"""Each framework's padding rule, written from SPEC-NOTES section 2 (the frameworks' own code and
specifications), independently of the C++ dialect layer. verify.py uses it to check that a dialects-set
case's canonical descriptor is what the framework would compute, or that the framework refuses it.

pads(framework, attribute_text) -> (strides, dilations, pads_begin, pads_end) per spatial axis, outermost
first, or raises Refused(reason).
"""

import math


class Refused(Exception):
    pass


def parse(text):
    attrs = {}
    for item in text.split(","):
        key, value = item.split("=", 1)
        attrs[key] = value
    return attrs


def ints(value):
    return [int(v) for v in value.replace(":", "x").split("x")]


def axes(attrs, key, rank, default):
    if key not in attrs:
        return [default] * rank
    v = ints(attrs[key])
    return v * rank if len(v) == 1 else v


def same(ins, ks, strides, dilations, extra_at_end):
    """out = ceil(in/s); t = max(0, (out-1)*s + K - in); the odd pad at the end or the beginning."""
    pb, pe = [], []
    for i, k, s, d in zip(ins, ks, strides, dilations):
        out = -(-i // s)
        t = max(0, (out - 1) * s + (k - 1) * d + 1 - i)
        lower = t // 2 if extra_at_end else t - t // 2
        pb.append(lower)
        pe.append(t - lower)
    return pb, pe


def pads(framework, text):
    a = parse(text)
    ins = ints(a["in"])
    rank = len(ins)
    ks = axes(a, "k", rank, 1)
    if framework in ("tensorflow", "tf_convolution"):
        s, d = axes(a, "strides", rank, 1), axes(a, "dilations", rank, 1)
        # the Conv2D op defines it; tf.nn.convolution's Python wrapper (and Keras) refuses it (SPEC-NOTES 6)
        if framework == "tf_convolution" and any(v > 1 for v in s) and any(v > 1 for v in d):
            raise Refused("tf.nn.convolution: strides > 1 together with dilation_rate > 1")
        if a["padding"] == "SAME":
            return (s, d) + same(ins, ks, s, d, True)
        if a["padding"] == "VALID":
            return s, d, [0] * rank, [0] * rank
        p = ints(a["explicit_paddings"])  # (before, after) per dimension of data_format, N and C zero
        channels_last = a.get("data_format", "NHWC").endswith("C")
        spatial = p[2:2 + 2 * rank] if channels_last else p[4:4 + 2 * rank]
        return s, d, spatial[0::2], spatial[1::2]
    if framework == "atrous":
        r = int(a["rate"])
        d = [r] * rank
        if a["padding"] == "SAME":
            return ([1] * rank, d) + same(ins, ks, [1] * rank, d, True)
        return [1] * rank, d, [0] * rank, [0] * rank
    if framework in ("onnx", "onednn_graph", "openvino", "onednn_graph@<3.2"):
        s, d = axes(a, "strides", rank, 1), axes(a, "dilations", rank, 1)
        mode = a.get("auto_pad", "NOTSET").upper()
        if framework == "onednn_graph@<3.2" and mode.startswith("SAME"):
            # before v3.2 (SPEC-NOTES 6): the raw kernel, the total not clamped at 0, dilation refused
            if any(v != 1 for v in d):
                raise Refused("oneDNN Graph before v3.2: SAME_* with dilation is unimplemented")
            pb, pe = [], []
            for i, k, st in zip(ins, ks, s):
                t = (-(-i // st) - 1) * st + k - i
                lower = int((t + 1) / 2) if mode == "SAME_LOWER" else int(t / 2)  # C division
                pb.append(lower)
                pe.append(t - lower)
            return s, d, pb, pe
        if mode == "SAME_UPPER":
            pb, pe = same(ins, ks, s, d, True)
        elif mode == "SAME_LOWER":
            pb, pe = same(ins, ks, s, d, False)
        elif mode == "VALID":
            pb, pe = [0] * rank, [0] * rank
        elif framework == "onnx":
            p = axes(a, "pads", 2 * rank, 0)
            pb, pe = p[:rank], p[rank:]
        else:
            pb, pe = axes(a, "pads_begin", rank, 0), axes(a, "pads_end", rank, 0)
        if framework == "openvino":
            for i, k, di, b, e in zip(ins, ks, d, pb, pe):
                if (k - 1) * di + 1 > i + b + e:
                    raise Refused("OpenVINO: the kernel exceeds the padded input")
        if framework == "onnx":
            # shape inference (SPEC-NOTES 6): out = (in + pads - K) / s + 1 in C division; a numerator
            # in (-s, 0) gives 1, the window overhanging the padded input: read as a larger pads_end
            pe = list(pe)
            for axis, (i, k, di, st) in enumerate(zip(ins, ks, d, s)):
                numerator = i + pb[axis] + pe[axis] - ((k - 1) * di + 1)
                if -st < numerator < 0:
                    pe[axis] -= numerator
        return s, d, pb, pe
    if framework == "onednn":
        s = axes(a, "strides", rank, 1)
        d = [v + 1 for v in axes(a, "dilates", rank, 0)]  # 0-based
        pb, pe = axes(a, "padding_l", rank, 0), axes(a, "padding_r", rank, 0)
        if any(e + st <= 0 for e, st in zip(pe, s)):
            raise Refused("oneDNN: padding_r + stride must be > 0")
        return s, d, pb, pe
    if framework == "pytorch":
        s, d = axes(a, "stride", rank, 1), axes(a, "dilation", rank, 1)
        p = a.get("padding", "0")
        if p == "same":
            if any(v != 1 for v in s):
                raise Refused("PyTorch: padding='same' is not supported for strided convolutions")
            total = [di * (k - 1) for k, di in zip(ks, d)]
            return s, d, [t // 2 for t in total], [t - t // 2 for t in total]
        if p == "valid":
            return s, d, [0] * rank, [0] * rank
        p = axes(a, "padding", rank, 0)
        return s, d, p, p
    if framework == "cntk":
        # CNTK lists are column-major: the innermost spatial axis first, then channels.
        ks = ints(a["kernel"])[:rank][::-1]
        s = ints(a["stride"])[:rank][::-1]
        auto = [v == "true" for v in a["autoPadding"].split(":")][:rank][::-1]
        d = axes(a, "dilation", rank, 1)[:rank][::-1] if "dilation" in a else [1] * rank
        if any(k > i for k, i in zip(ks, ins)):
            raise Refused("CNTK: the kernel is larger than the input")
        pb, pe = [], []
        for i, k, st, di, on in zip(ins, ks, s, d, auto):
            if not on:
                pb.append(0), pe.append(0)
                continue
            big_k = (k - 1) * di + 1
            e = (i - 1) % st
            pb.append((big_k - 1) // 2 - e // 2)           # floor((K-1)/2) - floor(e/2)
            pe.append(math.ceil((big_k - 1) / 2) - math.ceil(e / 2))
        return s, d, pb, pe
    if framework in ("xnnpack", "xnnpack@git20220216"):
        s = [int(a.get("subsampling_height", 1)), int(a.get("subsampling_width", 1))][-rank:]
        d = [int(a.get("dilation_height", 1)), int(a.get("dilation_width", 1))][-rank:]
        explicit = [int(a.get("input_padding_" + side, 0)) for side in ("top", "bottom", "left", "right")]
        if a.get("flags", "0") == "TENSORFLOW_SAME_PADDING":
            if any(explicit):
                raise Refused("XNNPACK: TENSORFLOW_SAME_PADDING together with explicit padding")
            return (s, d) + same(ins, ks, s, d, True)
        pb, pe = [explicit[0], explicit[2]], [explicit[1], explicit[3]]
        for axis, (i, k, di) in enumerate(zip(ins, ks, d)):
            short = (k - 1) * di + 1 - (pb[axis] + i + pe[axis])
            if short > 0 and framework == "xnnpack":
                raise Refused("XNNPACK (since a07bc8f71b): the padded input is smaller than the effective kernel")
            if short > 0:  # the 2022 snapshot: doz() gives 1 output, the window overhanging
                pe[axis] += short
        return s, d, pb, pe
    if framework == "tosa":
        # TOSA CONV2D / CONV3D / DEPTHWISE_CONV2D ERROR_IFs (pseudocode/operators/*.tosac, v1.0.1)
        s, d = axes(a, "stride", rank, 1), axes(a, "dilation", rank, 1)
        p = axes(a, "pad", 2 * rank, 0)
        pb, pe = p[0::2], p[1::2]
        if any(v < 0 for v in p):
            raise Refused("TOSA: ERROR_IF(pad < 0)")
        for i, k, di, st, b, e in zip(ins, ks, d, s, pb, pe):
            extent = i - 1 + b + e - (k - 1) * di
            if math.fmod(extent, st) != 0:
                raise Refused("TOSA: idiv_check, the padded extent minus the dilated kernel is not a multiple of the stride")
            if int(extent / st) + 1 < 1:
                raise Refused("TOSA: the output shape must be >= 1")
        return s, d, pb, pe
    if framework == "stablehlo":
        # StableHLO convolution (docs/spec.md C25); lhs dilation and batch groups are not forward convolutions
        if any(v > 1 for v in axes(a, "lhs_dilation", rank, 1)) or int(a.get("batch_group_count", 1)) > 1:
            raise Refused("StableHLO: lhs_dilation > 1 (a transposed convolution: stablehlo_transpose) or batch_group_count > 1 (backward weights): not a forward convolution")
        s, d = axes(a, "window_strides", rank, 1), axes(a, "rhs_dilation", rank, 1)
        p = axes(a, "padding", 2 * rank, 0)
        return s, d, p[0::2], p[1::2]
    raise ValueError("no rule for framework " + framework)
